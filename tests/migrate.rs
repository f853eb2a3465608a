//! `dustpan migrate` on the fixture's Before and After sites: the pages After still
//! serves are kept, `/careers` (gone in After) is unmatched and listed with its inlinks,
//! and `--out` writes the mapping and the redirect map for every server.

use fixture::SiteVariant;

use crate::util::{Site, path, run};

const START: &str = "https://example.test/";

#[test]
fn a_migration_between_the_before_and_after_sites_keeps_their_pages_and_lists_what_is_gone() {
    let site = Site::quiet();
    let old = site.audit(START, &["-q", "--no-dust-learning"]);
    site.server.set_variant(SiteVariant::After);
    let new = site.audit(START, &["-q", "--no-dust-learning"]);

    let dir = tempfile::tempdir().unwrap();
    let db = path(&site.db);
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a = vec![
            "migrate".to_owned(),
            old.to_string(),
            new.to_string(),
            "--db".to_owned(),
            db.clone(),
        ];
        a.extend(extra.iter().map(|s| (*s).to_owned()));
        a
    };
    let out = run(&args(&["--json", "--out", &path(dir.path())]));
    // Exit 1: an old page is unmatched.
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let m: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    // The document is the type its schema is generated from (docs/json/v1/), whole.
    let typed: view::migrate::Migration = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), m);
    let rows = m["rows"].as_array().unwrap();
    let row = |url: &str| {
        rows.iter()
            .find(|r| r["old_url"] == url)
            .unwrap_or_else(|| panic!("{url} not mapped: {rows:#?}"))
    };
    let careers = row("https://example.test/careers");
    assert_eq!(careers["basis"]["by"], "unmatched");
    assert!(careers["new_url"].is_null());
    assert!(careers["inlinks"].as_u64().unwrap() > 0, "{careers}");
    let kept = row("https://example.test/shoes");
    assert_eq!(kept["basis"]["by"], "same_url");
    assert_eq!(kept["new_url"], "https://example.test/shoes");
    let kept_count = rows
        .iter()
        .filter(|r| r["basis"]["by"] == "same_url")
        .count();
    assert!(kept_count > 20, "{kept_count} kept");

    let csv = std::fs::read_to_string(dir.path().join("migration.csv")).unwrap();
    assert!(csv.starts_with("old_url,new_url,confidence,basis,inlinks,log_requests\n"));
    assert!(
        csv.contains("https://example.test/careers,,0,no match,"),
        "{csv}"
    );
    for file in [
        "redirect_map.csv",
        "redirects.nginx.conf",
        "redirects.apache.conf",
    ] {
        assert!(dir.path().join(file).is_file(), "{file}");
    }

    // The terminal report: counts, and the unmatched page with its inlinks.
    let out = run(&args(&[]));
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("unmatched"), "{}", out.stdout);
    assert!(
        out.stdout.contains("https://example.test/careers"),
        "{}",
        out.stdout
    );
    // A missing audit is an error (exit 2), not a panic.
    let mut missing = args(&[]);
    missing[2] = "999".to_owned();
    let out = run(&missing);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("999"), "{}", out.stderr);
}
