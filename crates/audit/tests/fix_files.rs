//! The redirect map's fix files for nginx, Apache, Netlify, Vercel, Cloudflare and the
//! WordPress Redirection plugin: how each generator escapes every character class a
//! hostile site may put in a URL, that a map with no redirect still makes a valid file,
//! and each file read by the platform's own code where it runs offline:
//!
//! - Netlify and Vercel: `tests/validators/check.mjs` runs Netlify's `_redirects` parser
//!   and redirect engine, and Vercel's schema and route builder (npm packages pinned in
//!   `tests/validators/package.json`; the test skips, saying so, when node or
//!   `tests/validators/node_modules` is missing: `npm ci --prefix crates/audit/tests/validators`).
//! - WordPress: PHP's `fgetcsv`, called as the plugin calls it, and the plugin's import
//!   rules (falls back to the `csv` crate when `php` is missing).
//! - Cloudflare has no offline validator: a parser of its documented CSV format.
//!
//! nginx and Apache run for real in `fix_servers.rs`.

use audit::{FixFiles, RedirectLine};
use std::path::{Path, PathBuf};
use std::process::Command;

const S: &str = "https://example.com";

fn line(source: &str, target: &str) -> RedirectLine {
    RedirectLine {
        source: source.to_owned(),
        target: target.to_owned(),
        status: 301,
        today: None,
    }
}

fn map(mut redirects: Vec<RedirectLine>) -> FixFiles {
    redirects.sort_by(|a, b| a.source.cmp(&b.source));
    FixFiles {
        redirects,
        ..FixFiles::default()
    }
}

/// One redirect per character class, on one site, plus one across hosts.
fn hostile() -> FixFiles {
    let on = |a: &str, b: &str| line(&format!("{S}{a}"), &format!("{S}{b}"));
    map(vec![
        on("/semi;colon", "/new;internal"),
        on("/brace}x{y", "/t}{"),
        on("/back\\slash", "/to\\"),
        on("/quote\"d", "/t\"q"),
        on("/single'q", "/t'q"),
        on("/dollar$x", "/cash$y"),
        on("/pct%25x", "/p%25q"),
        on("/with space", "/to space"),
        on("/café", "/ü"),
        on("/nl\nx", "/ok\r\n"),
        on("/q?a=1&b={x}", "/q"),
        on("/colon:x/:id", "/c:d"),
        on("/star*", "/s*"),
        on("/refs", "/t?x=$1&y=%2&z=${HOME}"),
        line("https://www.example.com/a,b", "https://example.com/a,b"),
    ])
}

/// Every generator's output, by name.
fn all(f: &FixFiles) -> Vec<(&'static str, String)> {
    vec![
        ("nginx", f.nginx()),
        ("apache", f.apache()),
        ("netlify", f.netlify()),
        ("vercel", f.vercel()),
        ("cloudflare", f.cloudflare_csv()),
        ("wordpress", f.wordpress_csv()),
    ]
}

fn lines_of(text: &str) -> Vec<&str> {
    text.lines().collect()
}

#[test]
fn no_file_holds_a_raw_control_or_non_ascii_byte() {
    for (name, text) in all(&hostile()) {
        for (i, c) in text.chars().enumerate() {
            // Netlify matches the decoded path, so its file holds UTF-8 text.
            let utf8 = name == "netlify" && !c.is_ascii() && !c.is_control() && !c.is_whitespace();
            assert!(
                c == '\n' || (' '..='~').contains(&c) || utf8,
                "{name}: {c:?} at {i}:\n{text}"
            );
        }
    }
}

#[test]
fn nginx_quotes_every_value() {
    let f = hostile().nginx();
    let l = lines_of(&f);
    for want in [
        // `;` stays inside a quoted string: no directive can be injected.
        r#"    "https://example.com/semi;colon" "301 https://example.com/semi;colon https://example.com/new;internal";"#,
        r#"    "https://example.com/brace}x{y" "301 https://example.com/brace}x{y https://example.com/t}{";"#,
        r#"    "https://example.com/back\\slash" "301 https://example.com/back\\slash https://example.com/to\\";"#,
        r#"    "https://example.com/quote%22d" "301 https://example.com/quote%22d https://example.com/t%22q";"#,
        r#"    "https://example.com/single'q" "301 https://example.com/single'q https://example.com/t'q";"#,
        // A source with `$` is a regular expression; a `$` in a target is %24.
        r#"    "~^https://example\\.com/dollar\\$x\z" "301 $scheme://$host$request_uri https://example.com/cash%24y";"#,
        r#"    "https://example.com/pct%25x" "301 https://example.com/pct%25x https://example.com/p%25q";"#,
        r#"    "https://example.com/with%20space" "301 https://example.com/with%20space https://example.com/to%20space";"#,
        r#"    "https://example.com/caf%C3%A9" "301 https://example.com/caf%C3%A9 https://example.com/%C3%BC";"#,
        r#"    "https://example.com/nl%0Ax" "301 https://example.com/nl%0Ax https://example.com/ok%0D%0A";"#,
        r#"    "https://example.com/q?a=1&b={x}" "301 https://example.com/q?a=1&b={x} https://example.com/q";"#,
        r#"    "https://example.com/refs" "301 https://example.com/refs https://example.com/t?x=%241&y=%2&z=%24{HOME}";"#,
        r#"    "https://www.example.com/a,b" "301 https://www.example.com/a,b https://example.com/a,b";"#,
        "#     if ($dustpan_redirect_301) { return 301 $dustpan_redirect_301; }",
    ] {
        assert!(l.contains(&want), "missing {want}\n{f}");
    }
    // Plain paths (any query string) and the rest (exact request target) are two maps.
    let path_map = f
        .split("map $scheme://$host$uri $dustpan_path {")
        .nth(1)
        .and_then(|m| m.split("\n}").next())
        .unwrap_or_default();
    assert!(path_map.contains("/single'q") && path_map.contains("/star*"));
    assert!(!path_map.contains("/semi;colon") && !path_map.contains("/q?"));
}

#[test]
fn nginx_keeps_letter_case_and_ports_apart() {
    let f = map(vec![
        line(&format!("{S}/Price"), &format!("{S}/price")),
        line(&format!("{S}/Only"), &format!("{S}/x")),
        line("http://example.com:8080/p", "http://example.com/p"),
        line("http://example.com:8080/q", "http://example.com/r"),
        line("http://example.com:9090/q", "http://example.com/s"),
        line(&format!("{S}/shoes"), &format!("{S}/shoes?color=red")),
    ])
    .nginx();
    let l = lines_of(&f);
    // Nothing else differs only in case: an exact key, checked case-sensitively.
    assert!(l.contains(
        &r#"    "https://example.com/Only" "301 https://example.com/Only https://example.com/x";"#
    ));
    // The same source on two ports: the first; only the port differs: left out.
    assert!(l.contains(
        &r#"    "http://example.com/q" "301 http://example.com/q http://example.com/r";"#
    ));
    assert!(
        l.contains(&"#   http://example.com:9090/q (the same source on another port comes first)")
    );
    assert!(l.contains(&"#   http://example.com:8080/p (only the port differs from the target)"));
    // A target on the source's own path is matched on the exact request, never the path.
    assert!(l.contains(&r#"    "https://example.com/shoes" "301 https://example.com/shoes https://example.com/shoes?color=red";"#));
    let request_map = f.split("$dustpan_path {").next().unwrap_or_default();
    assert!(request_map.contains("/shoes\""));
    // A long key gets a hash bucket that holds it.
    let long = map(vec![line(
        &format!("{S}/{}", "x".repeat(300)),
        &format!("{S}/y"),
    )])
    .nginx();
    assert!(long.contains("map_hash_bucket_size 1408;"), "{long}");
}

#[test]
fn apache_escapes_patterns_and_substitutions() {
    let f = hostile().apache();
    let l = lines_of(&f);
    for want in [
        r"RewriteCond %{THE_REQUEST} ^\S+\s/semi;colon(?:\s|$)",
        r#"RewriteRule ^ "https://example.com/new;internal" [R=301,L,NE,QSD]"#,
        r"RewriteCond %{THE_REQUEST} ^\S+\s/brace\}x\{y(?:\s|$)",
        r#"RewriteRule ^ "https://example.com/t}\{" [R=301,L,NE,QSD]"#,
        r"RewriteCond %{THE_REQUEST} ^\S+\s/back\x5Cslash(?:\s|$)",
        r#"RewriteRule ^ "https://example.com/to\\" [R=301,L,NE,QSD]"#,
        r"RewriteCond %{THE_REQUEST} ^\S+\s/quote%22d(?:\s|$)",
        r#"RewriteRule ^ "https://example.com/t\%22q" [R=301,L,NE,QSD]"#,
        r"RewriteCond %{THE_REQUEST} ^\S+\s/single\x27q(?:\?\S*)?(?:\s|$)",
        r"RewriteCond %{THE_REQUEST} ^\S+\s/dollar\$x(?:\s|$)",
        r#"RewriteRule ^ "https://example.com/cash\$y" [R=301,L,NE,QSD]"#,
        r"RewriteCond %{THE_REQUEST} ^\S+\s/pct%25x(?:\s|$)",
        r"RewriteCond %{THE_REQUEST} ^\S+\s/with%20space(?:\s|$)",
        r#"RewriteRule ^ "https://example.com/to\%20space" [R=301,L,NE,QSD]"#,
        r"RewriteCond %{THE_REQUEST} ^\S+\s/caf%C3%A9(?:\s|$)",
        r"RewriteCond %{THE_REQUEST} ^\S+\s/nl%0Ax(?:\s|$)",
        r"RewriteCond %{THE_REQUEST} ^\S+\s/q\?a=1&b=\{x\}(?:\s|$)",
        r"RewriteCond %{THE_REQUEST} ^\S+\s/star\*(?:\?\S*)?(?:\s|$)",
        // Back-references and Apache's own ${VAR} are escaped.
        r#"RewriteRule ^ "https://example.com/t?x=\$1&y=\%2&z=\$\{HOME}" [R=301,L,NE,QSD]"#,
        // Any port, any case, an optional final dot; the scheme is checked.
        r"RewriteCond %{HTTP_HOST} ^www\.example\.com\.?(?::[0-9]+)?$ [NC]",
        "RewriteCond %{HTTPS} =on",
    ] {
        assert!(l.contains(&want), "missing {want}\n{f}");
    }
    assert!(!f.contains("${"), "{f}");
    for l in f.lines() {
        assert!(!l.ends_with('\\'), "a line continues: {l}");
    }
    let http = map(vec![line("http://example.com/a", "https://example.com/a")]).apache();
    assert!(http.contains("RewriteCond %{HTTPS} !=on\n"), "{http}");
}

#[test]
fn netlify_writes_decoded_paths_and_leaves_out_patterns() {
    let f = hostile().netlify();
    let l = lines_of(&f);
    for want in [
        "/semi;colon /new;internal 301!",
        "/brace}x{y /t}{ 301!",
        "/back\\slash /to\\ 301!",
        "/quote\"d /t%22q 301!",
        "/single'q /t'q 301!",
        "/dollar$x /cash$y 301!",
        "/pct%x /p%25q 301!",
        "/café /%C3%BC 301!",
        "/refs /t?x=$1&y=%2&z=${HOME} 301!",
        "https://www.example.com/a,b https://example.com/a,b 301!",
        "#   https://example.com/with%20space (its path cannot be written in _redirects)",
        "#   https://example.com/nl%0Ax (its path cannot be written in _redirects)",
        "#   https://example.com/colon:x/:id (its path cannot be written in _redirects)",
        "#   https://example.com/star* (its path cannot be written in _redirects)",
        "#   https://example.com/q?a=1&b={x} (Netlify matches query strings only loosely)",
    ] {
        assert!(l.contains(&want), "missing {want}\n{f}");
    }
    // http → https on one host is Netlify's own job; as a path rule it would loop.
    let https = map(vec![line("http://example.com/a", "https://example.com/a")]).netlify();
    assert!(
        https.contains("#   http://example.com/a (only the scheme, port or query differs)"),
        "{https}"
    );
}

#[test]
fn vercel_escapes_path_patterns() {
    let f = hostile().vercel();
    let json: serde_json::Value = serde_json::from_str(&f).expect("vercel.json is JSON");
    let list = json["redirects"].as_array().expect("redirects");
    let find = |source: &str| {
        list.iter()
            .find(|r| r["source"] == source)
            .unwrap_or_else(|| panic!("no source {source}\n{f}"))
    };
    for (source, destination) in [
        ("/semi;colon", "https://example.com/new;internal"),
        ("/brace\\}x\\{y", "https://example.com/t}{"),
        ("/back\\\\slash", "https://example.com/to\\"),
        ("/quote%22d", "https://example.com/t%22q"),
        ("/dollar$x", "https://example.com/cash%24y"),
        ("/with%20space", "https://example.com/to%20space"),
        ("/caf%C3%A9", "https://example.com/%C3%BC"),
        ("/colon\\:x/\\:id", "https://example.com/c%3Ad"),
        ("/star\\*", "https://example.com/s*"),
        ("/refs", "https://example.com/t?x=%241&y=%2&z=%24{HOME}"),
    ] {
        let r = find(source);
        assert_eq!(r["destination"], destination, "{f}");
        assert_eq!(r["permanent"], true);
        assert_eq!(r["has"][0]["value"]["eq"], "example.com");
    }
    assert_eq!(find("/a,b")["has"][0]["value"]["eq"], "www.example.com");
    assert!(!f.contains("/q?"), "query strings are left out: {f}");
}

#[test]
fn cloudflare_rows_are_quoted_and_complete() {
    let f = hostile().cloudflare_csv();
    let l = lines_of(&f);
    for want in [
        "https://example.com/semi;colon,https://example.com/new;internal,301,false,false,false,false",
        "https://example.com/brace%7Dx%7By,https://example.com/t}{,301,false,false,false,false",
        "https://example.com/quote%22d,https://example.com/t%22q,301,false,false,false,false",
        "https://example.com/dollar$x,https://example.com/cash$y,301,false,false,false,false",
        "https://example.com/with%20space,https://example.com/to%20space,301,false,false,false,false",
        "\"https://www.example.com/a,b\",\"https://example.com/a,b\",301,false,false,false,false",
    ] {
        assert!(l.contains(&want), "missing {want}\n{f}");
    }
    assert!(!f.contains('\\') && !f.contains("/q?"), "{f}");
}

#[test]
fn wordpress_rows_keep_what_the_plugin_keeps() {
    let f = hostile().wordpress_csv();
    let l = lines_of(&f);
    for want in [
        "source,target,regex,code,type,hits,title,status",
        "/semi;colon,https://example.com/new;internal,0,301,url,0,,active",
        "/back\\slash,https://example.com/to\\,0,301,url,0,,active",
        "/q?a=1&b={x},https://example.com/q,0,301,url,0,,active",
        "/with%20space,https://example.com/to%20space,0,301,url,0,,active",
        "\"https://www.example.com/a,b\",\"https://example.com/a,b\",0,301,url,0,,active",
    ] {
        assert!(l.contains(&want), "missing {want}\n{f}");
    }
    // A control character would be cut off by the plugin.
    assert!(!f.contains("/nl"), "{f}");
    // The plugin ignores letter case and a trailing slash by default: these would loop.
    let loops = map(vec![
        line(&format!("{S}/Price"), &format!("{S}/price")),
        line(&format!("{S}/docs/"), &format!("{S}/docs")),
    ])
    .wordpress_csv();
    assert_eq!(loops, "source,target,regex,code,type,hits,title,status\n");
}

#[test]
fn an_empty_map_makes_valid_files() {
    let f = FixFiles::default();
    let nginx = f.nginx();
    assert!(
        nginx.contains("map $dustpan_match $dustpan_redirect_301 {"),
        "{nginx}"
    );
    assert!(nginx.starts_with("# Dustpan redirect map for nginx: 0 redirects.\n"));
    let apache = f.apache();
    assert!(
        apache.lines().all(|l| l.is_empty() || l.starts_with('#')),
        "{apache}"
    );
    let netlify = f.netlify();
    assert!(netlify.lines().all(|l| l.starts_with('#')), "{netlify}");
    assert_eq!(f.vercel(), "{\n  \"redirects\": []\n}\n");
    assert_eq!(f.cloudflare_csv(), "");
    assert_eq!(
        f.wordpress_csv(),
        "source,target,regex,code,type,hits,title,status\n"
    );
}

/// Cloudflare's documented Bulk Redirect CSV: no header row; `SOURCE,TARGET` then
/// optional status (301, 302, 307, 308) and four booleans (`true`/`false`, either case,
/// or empty); a source URL has an optional http(s) scheme, a host and a path, and no
/// port, query string or fragment; URLs are at most 32 KB; no two rows share a source.
fn parse_cloudflare(text: &str) -> Result<Vec<(String, String, u16)>, String> {
    let mut rows = Vec::new();
    let mut sources = std::collections::HashSet::new();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    for record in reader.records() {
        let r = record.map_err(|e| e.to_string())?;
        if !(2..=7).contains(&r.len()) {
            return Err(format!("{} columns: {r:?}", r.len()));
        }
        let (source, target) = (&r[0], &r[1]);
        let status: u16 = match r.get(2) {
            None | Some("") => 301,
            Some(s) => s.parse().map_err(|_| format!("status {s:?}"))?,
        };
        if ![301, 302, 307, 308].contains(&status) {
            return Err(format!("status {status}"));
        }
        for b in r.iter().skip(3) {
            if !["", "true", "false", "TRUE", "FALSE"].contains(&b) {
                return Err(format!("boolean {b:?}"));
            }
        }
        for url in [source, target] {
            if url.len() > 32 * 1024
                || url
                    .chars()
                    .any(|c| !c.is_ascii_graphic() || matches!(c, '"' | '<' | '>' | '\\'))
            {
                return Err(format!("not a valid URL: {url:?}"));
            }
        }
        let rest = source
            .strip_prefix("https://")
            .or_else(|| source.strip_prefix("http://"))
            .unwrap_or(source);
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if host.is_empty() || host.contains(':') || path.contains(['?', '#']) {
            return Err(format!("source {source:?}"));
        }
        if !(target.starts_with("https://") || target.starts_with("http://")) {
            return Err(format!("target {target:?}"));
        }
        if !sources.insert(source.to_owned()) {
            return Err(format!("two rows for {source}"));
        }
        rows.push((source.to_owned(), target.to_owned(), status));
    }
    Ok(rows)
}

#[test]
fn cloudflare_file_parses_as_documented() {
    let f = hostile();
    let rows = parse_cloudflare(&f.cloudflare_csv()).expect("valid Cloudflare CSV");
    assert!(rows.contains(&(
        "https://www.example.com/a,b".to_owned(),
        "https://example.com/a,b".to_owned(),
        301
    )));
    assert_eq!(rows.len(), 13, "{rows:?}");
    assert_eq!(
        parse_cloudflare(&FixFiles::default().cloudflare_csv()),
        Ok(vec![])
    );
}

/// The first of these programs on PATH.
fn find(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The rows the Redirection plugin imports: PHP's fgetcsv as the plugin calls it (line
/// length 5000, `,`), the plugin's header check, and its source clean-up
/// (`rawurldecode`); `(source, target, regex, code)`.
fn wordpress_import(text: &str) -> Vec<(String, String, String, String)> {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("redirects.csv");
    std::fs::write(&file, text).expect("write csv");
    let Some(php) = find("php") else {
        eprintln!(
            "note: no php binary; the WordPress CSV is read by the csv crate instead of PHP's fgetcsv"
        );
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(text.as_bytes());
        return reader
            .records()
            .map(|r| r.expect("csv row"))
            .filter(|r| r.len() > 1 && &r[0] != "source" && &r[1] != "target")
            .map(|r| {
                let decoded = percent_encoding::percent_decode_str(r[0].trim())
                    .decode_utf8_lossy()
                    .into_owned();
                (decoded, r[1].trim().to_owned(), r[2].into(), r[3].into())
            })
            .collect();
    };
    let script = r#"
        $f = fopen($argv[1], 'r');
        $out = [];
        while (($csv = fgetcsv($f, 5000, ',', '"', '\\'))) {
            if (count($csv) > 1 && $csv[0] !== 'source' && $csv[1] !== 'target') {
                $out[] = [rawurldecode(trim($csv[0])), trim($csv[1]), $csv[2] ?? '', $csv[3] ?? ''];
            }
        }
        echo json_encode($out, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
    "#;
    let out = Command::new(php)
        .arg("-r")
        .arg(script)
        .arg(&file)
        .output()
        .expect("run php");
    assert!(
        out.status.success(),
        "php: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("php's JSON")
}

#[test]
fn wordpress_file_imports_as_written() {
    let f = hostile();
    let rows = wordpress_import(&f.wordpress_csv());
    let want = |source: &str, target: &str| {
        (
            source.to_owned(),
            target.to_owned(),
            "0".to_owned(),
            "301".to_owned(),
        )
    };
    for row in [
        want("/semi;colon", "https://example.com/new;internal"),
        want("/brace}x{y", "https://example.com/t}{"),
        want("/back\\slash", "https://example.com/to\\"),
        want("/quote\"d", "https://example.com/t%22q"),
        want("/single'q", "https://example.com/t'q"),
        want("/dollar$x", "https://example.com/cash$y"),
        want("/pct%x", "https://example.com/p%25q"),
        want("/with space", "https://example.com/to%20space"),
        want("/café", "https://example.com/%C3%BC"),
        want("/q?a=1&b={x}", "https://example.com/q"),
        want("https://www.example.com/a,b", "https://example.com/a,b"),
    ] {
        assert!(rows.contains(&row), "missing {row:?} in {rows:?}");
    }
    assert_eq!(rows.len(), 14, "{rows:?}");
    assert!(wordpress_import(&FixFiles::default().wordpress_csv()).is_empty());
}

/// Where the platform validators are installed, if they are.
fn validators() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/validators");
    if find("node").is_none() {
        eprintln!("SKIPPED Netlify and Vercel validators: no node binary");
        return None;
    }
    if !dir.join("node_modules/netlify-redirector").is_dir() {
        eprintln!(
            "SKIPPED Netlify and Vercel validators: run `npm ci --prefix crates/audit/tests/validators`"
        );
        return None;
    }
    Some(dir)
}

/// Runs check.mjs on the Netlify and Vercel files of `f` with these requests
/// (`(scheme, host, raw path, query, expected)`).
fn run_validators(
    dir: &Path,
    f: &FixFiles,
    netlify: &[(&str, &str, &str, &str, Option<&str>)],
    vercel: &[(&str, &str, Option<&str>)],
) -> serde_json::Value {
    let work = tempfile::tempdir().expect("temp dir");
    std::fs::write(work.path().join("_redirects"), f.netlify()).expect("write");
    std::fs::write(work.path().join("vercel.json"), f.vercel()).expect("write");
    let cases = serde_json::json!({
        "netlify": netlify.iter().map(|(scheme, host, path, query, expect)| serde_json::json!({
            "scheme": scheme, "host": host, "path": path, "query": query, "expect": expect,
        })).collect::<Vec<_>>(),
        "vercel": vercel.iter().map(|(host, path, expect)| serde_json::json!({
            "host": host, "path": path, "expect": expect,
        })).collect::<Vec<_>>(),
    });
    std::fs::write(work.path().join("cases.json"), cases.to_string()).expect("write");
    let out = Command::new("node")
        .arg(dir.join("check.mjs"))
        .arg(work.path())
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "check.mjs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("check.mjs prints JSON")
}

#[test]
fn netlify_and_vercel_read_the_files_as_meant() {
    let Some(dir) = validators() else { return };
    let f = hostile();
    let h = "example.com";
    let netlify = [
        ("https", h, "/semi;colon", "", Some("301! /new;internal")),
        ("https", h, "/brace%7Dx%7By", "", Some("301! /t}{")),
        ("https", h, "/back\\slash", "", Some("301! /to\\")),
        ("https", h, "/quote%22d", "", Some("301! /t%22q")),
        ("https", h, "/single'q", "", Some("301! /t'q")),
        ("https", h, "/dollar$x", "", Some("301! /cash$y")),
        ("https", h, "/pct%25x", "", Some("301! /p%25q")),
        ("https", h, "/caf%C3%A9", "", Some("301! /%C3%BC")),
        (
            "https",
            h,
            "/refs",
            "utm_source=x",
            Some("301! /t?x=$1&y=%2&z=${HOME}"),
        ),
        (
            "https",
            "www.example.com",
            "/a,b",
            "",
            Some("301! https://example.com/a,b"),
        ),
        ("https", h, "/a,b", "", None),
        ("https", h, "/new;internal", "", None),
        ("https", h, "/semi", "", None),
        ("https", h, "/star", "", None),
        ("https", h, "/colon:x/anything", "", None),
    ];
    let vercel = [
        (
            h,
            "/semi;colon",
            Some("308 https://example.com/new;internal"),
        ),
        (h, "/brace}x{y", Some("308 https://example.com/t}{")),
        (h, "/back\\slash", Some("308 https://example.com/to\\")),
        (h, "/quote%22d", Some("308 https://example.com/t%22q")),
        (h, "/single'q", Some("308 https://example.com/t'q")),
        (h, "/dollar$x", Some("308 https://example.com/cash%24y")),
        (h, "/pct%25x", Some("308 https://example.com/p%25q")),
        (
            h,
            "/with%20space",
            Some("308 https://example.com/to%20space"),
        ),
        (h, "/caf%C3%A9", Some("308 https://example.com/%C3%BC")),
        (h, "/nl%0Ax", Some("308 https://example.com/ok%0D%0A")),
        (h, "/colon:x/:id", Some("308 https://example.com/c%3Ad")),
        (h, "/star*", Some("308 https://example.com/s*")),
        (
            h,
            "/refs",
            Some("308 https://example.com/t?x=%241&y=%2&z=%24{HOME}"),
        ),
        (
            "www.example.com",
            "/a,b",
            Some("308 https://example.com/a,b"),
        ),
        (h, "/a,b", None),
        (h, "/colon:x/other", None),
        (h, "/starX", None),
        (h, "/semi", None),
        (h, "/Semi;colon", None),
    ];
    let out = run_validators(&dir, &f, &netlify, &vercel);
    assert_eq!(
        out["netlify"],
        serde_json::json!([]),
        "{out}\n{}",
        f.netlify()
    );
    assert_eq!(
        out["vercel"],
        serde_json::json!([]),
        "{out}\n{}",
        f.vercel()
    );
    assert_eq!(out["netlify_rules"], 10, "{out}");
    assert_eq!(out["vercel_rules"], 14, "{out}");
    let empty = run_validators(&dir, &FixFiles::default(), &[], &[]);
    assert_eq!(
        empty,
        serde_json::json!({"netlify": [], "vercel": [], "netlify_rules": 0, "vercel_rules": 0})
    );
}
