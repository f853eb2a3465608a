//! `dustpan normalize`.

use crate::util::dustpan;

#[test]
fn one_line_out_per_line_in_with_errors_aligned() {
    let input = "HTTP://www.Example.com:80/a/./index.html?b=2&a=1#x\nmailto:x@example.com\n\n/relative\nhttp://example.com/ok\n";
    let out = dustpan(&["normalize"], input);
    assert_eq!(
        out.stdout,
        "http://example.com/a/?a=1&b=2\n\
         ERROR\tunsupported_scheme\tunsupported scheme \"mailto\"\n\
         ERROR\tempty\tempty URL\n\
         ERROR\tnot_absolute\tnot an absolute URL: \"/relative\"\n\
         http://example.com/ok\n"
    );
    assert_eq!(out.code, 1, "rejected lines give exit code 1");
}

#[test]
fn explain_prints_the_rules() {
    let out = dustpan(&["normalize", "--explain"], "http://example.com/foo%2a\n");
    assert_eq!(
        out.stdout,
        "http://example.com/foo%2a\thttp://example.com/foo%2A\tpercent_hex_case\n"
    );
    assert_eq!(out.code, 0);
}

#[test]
fn presets_and_policy_files() {
    let url = "http://www.example.com/Shoes?utm_source=x\n";
    assert_eq!(
        dustpan(&["normalize", "--preset", "rfc3986"], url).stdout,
        url
    );
    assert_eq!(
        dustpan(&["normalize", "--preset", "aggressive"], url).stdout,
        "https://example.com/shoes/\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("policy.toml");
    std::fs::write(&path, "extends = \"seo\"\nwww = \"keep\"\n").unwrap();
    assert_eq!(
        dustpan(&["normalize", "--policy", path.to_str().unwrap()], url).stdout,
        "http://www.example.com/Shoes\n"
    );
    std::fs::write(&path, "wwww = \"keep\"\n").unwrap();
    let bad = dustpan(&["normalize", "--policy", path.to_str().unwrap()], url);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("unknown field `wwww`"),
        "{}",
        bad.stderr
    );
}

#[test]
fn invalid_utf8_and_crlf_lines_stay_aligned() {
    let out = dustpan(
        &["normalize"],
        "http://example.com/a\r\nhttp://example.com/\u{FFFD}\r\n",
    );
    assert_eq!(out.stdout.lines().count(), 2);
}

#[test]
fn group_prints_largest_groups_first() {
    let input = "http://www.example.com/\nhttp://example.com/index.html\nhttp://example.com/?utm_source=1\n\
                 http://example.com/\nhttp://other.example/a\nhttp://other.example/a#x\nhttp://lonely.example/\n";
    let out = dustpan(&["normalize", "--group"], input);
    assert_eq!(
        out.stdout,
        "4\thttp://example.com/\n\thttp://www.example.com/\n\thttp://example.com/index.html\n\
         \thttp://example.com/?utm_source=1\n\thttp://example.com/\n\
         2\thttp://other.example/a\n\thttp://other.example/a\n\thttp://other.example/a#x\n"
    );
    assert!(out.stderr.contains("7 lines, 2 groups shown"));
}
