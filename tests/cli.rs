//! Argument handling shared by the subcommands.

use crate::util::dustpan;

#[test]
fn resume_takes_no_other_crawl_option() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let out = dustpan(
        &[
            "audit",
            "--resume",
            "1",
            "--rate",
            "3",
            "--db",
            db.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("cannot be used with"), "{}", out.stderr);
}

#[test]
fn resuming_an_unknown_audit_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let out = dustpan(
        &[
            "audit",
            "--resume",
            "42",
            "--db",
            db.to_str().unwrap(),
            "-q",
        ],
        "",
    );
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("42"), "{}", out.stderr);
}

#[test]
fn a_start_url_that_is_not_http_is_rejected_before_crawling() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let out = dustpan(
        &[
            "audit",
            "ftp://example.com/",
            "--db",
            db.to_str().unwrap(),
            "-q",
        ],
        "",
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not an http(s) URL"), "{}", out.stderr);
}

#[test]
fn audits_on_an_empty_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let out = dustpan(&["audits", "--db", db.to_str().unwrap()], "");
    assert_eq!(out.code, 0);
    assert!(out.stderr.contains("no audits"), "{}", out.stderr);
}

#[test]
fn a_site_that_cannot_be_reached_is_a_failed_audit_not_a_finished_one() {
    // Nothing listens on 127.0.0.1:1 (a port below 1024 that no test binds).
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let db = db.to_str().unwrap();
    let out = dustpan(
        &[
            "audit",
            "http://127.0.0.1:1/",
            "--db",
            db,
            "-q",
            "--timeout",
            "5",
        ],
        "",
    );
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("Audit 1 failed"), "{}", out.stdout);
    assert!(
        out.stdout.contains("could not be audited") && out.stdout.contains("http://127.0.0.1:1/"),
        "{}",
        out.stdout
    );
    // No finding pretends the site has a sitemap problem.
    let report = dustpan(&["report", "--db", db], "");
    assert!(
        !report.stdout.contains("SITEMAP-INVALID"),
        "{}",
        report.stdout
    );
    let list = dustpan(&["audits", "--db", db], "");
    assert!(list.stdout.contains("failed"), "{}", list.stdout);
}

#[test]
fn a_bare_host_name_is_audited_over_https() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let db = db.to_str().unwrap();
    // Nothing answers there either: the point is that it is taken as a URL.
    let out = dustpan(
        &["audit", "127.0.0.1:1", "--db", db, "-q", "--timeout", "5"],
        "",
    );
    assert!(
        out.stderr.contains("auditing https://127.0.0.1:1"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("relative URL without a base"),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let db = db.to_str().unwrap();
    let demo = dustpan(&["demo", "--db", db, "-q", "--slow-ms", "200"], "");
    assert_eq!(demo.code, 0, "{}", demo.stderr);
    let out_dir = dir.path().join("diff");
    for args in [
        vec!["report", "--db", db],
        vec!["audits", "--db", db],
        vec![
            "diff",
            "1",
            "1",
            "--db",
            db,
            "--out",
            out_dir.to_str().unwrap(),
        ],
    ] {
        // The reader goes away before the first line (as `| head -0` would).
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_dustpan"))
            .args(&args)
            .env("RUST_BACKTRACE", "1")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut child = child;
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // The diff's files were written although nobody read its output.
    assert!(out_dir.join("findings.csv").exists());
}

#[test]
fn an_error_is_one_line_that_says_each_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("notdb.sqlite");
    std::fs::write(&bad, "not a database").unwrap();
    let out = dustpan(&["report", "--db", bad.to_str().unwrap()], "");
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert_eq!(
        out.stderr.matches("file is not a database").count(),
        1,
        "{}",
        out.stderr
    );
    let db = dir.path().join("a.sqlite");
    let db = db.to_str().unwrap();
    let _ = dustpan(&["audits", "--db", db], "");
    for args in [
        vec!["report", "999", "--db", db],
        vec!["diff", "998", "999", "--db", db],
        vec!["migrate", "998", "999", "--db", db],
    ] {
        let out = dustpan(&args, "");
        assert_eq!(out.code, 2, "{args:?}");
        assert_eq!(
            out.stderr.matches(" not found").count(),
            1,
            "{}",
            out.stderr
        );
    }
}
