//! Search Console verdicts explained: `dustpan audit --list` of page-indexing exports
//! (one `Table.csv` per reason, named by it) and URL Inspection API results (JSON lines
//! and one pretty-printed response) for the fixture's duplicates, on loopback. Each URL
//! is shown with its contradicting signal and fix, the predicted canonical agrees with
//! the inspected one where the fixture's truth says it should, hostile cells are
//! rejected lines or escaped text, and `dustpan explain --format json` holds the same.

use std::path::{Path, PathBuf};

use fixture::FixtureConfig;
use serde_json::Value;

use crate::util::{Output, Site, path, run};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/search-console");

const EXPORTS: [&str; 4] = [
    "Duplicate, Google chose different canonical than user.csv",
    "Duplicate without user-selected canonical.csv",
    "Alternate page with proper canonical tag.csv",
    "Page with redirect.csv",
];

fn site() -> Site {
    Site::start(FixtureConfig {
        hostile: false,
        ..FixtureConfig::default()
    })
}

fn data(name: &str) -> PathBuf {
    Path::new(DATA).join(name)
}

/// `dustpan audit --list FILE... <fixture args> -q`, which must succeed.
fn list_audit(site: &Site, files: &[PathBuf]) -> Output {
    let mut args = vec!["audit".to_owned()];
    for f in files {
        args.push("--list".into());
        args.push(path(f));
    }
    // The site's sitemap, read for its entries (a signal; its URLs are audited too).
    args.push("--sitemap".into());
    args.push("https://example.test/sitemap.xml".into());
    args.extend(site.args());
    args.push("-q".into());
    let out = run(&args);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    out
}

fn explain(site: &Site, format: &str) -> Output {
    let args = vec![
        "explain".to_owned(),
        "--db".into(),
        path(&site.db),
        "--format".into(),
        format.into(),
    ];
    let out = run(&args);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    out
}

/// Every input: the four exports and both inspection files.
fn all_inputs() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = EXPORTS.iter().map(|n| data(n)).collect();
    files.push(data("inspection.jsonl"));
    files.push(data("inspection-one.json"));
    files
}

/// The explained URL `url` of the JSON explanation.
fn url<'a>(doc: &'a Value, url: &str) -> &'a Value {
    doc["urls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["url"] == url)
        .unwrap_or_else(|| panic!("{url} is not explained in {doc:#}"))
}

/// The contradiction kind of an explained URL (`null` when none).
fn kind(doc: &Value, u: &str) -> Value {
    url(doc, u)["contradiction"]["kind"].clone()
}

#[test]
fn each_search_console_url_shows_the_signal_that_contradicts_the_users_choice() {
    let site = site();
    let out = list_audit(&site, &all_inputs());
    // Both formats are detected by content; bad rows are rejected with their line.
    for line in [
        "Duplicate, Google chose different canonical than user.csv (a Search Console page-indexing export): 6 lines read, 4 URLs listed, 1 lines not URLs",
        "line 5: not a URL",
        "Duplicate without user-selected canonical.csv (a Search Console page-indexing export): 4 lines read, 2 URLs listed, 1 lines not URLs",
        "line 4: the URL column is empty",
        "inspection.jsonl (URL Inspection API results): 6 lines read, 3 URLs listed, 1 lines not URLs",
        "line 4: not JSON",
        "inspection-one.json (URL Inspection API results): 15 lines read, 1 URLs listed",
    ] {
        assert!(out.stdout.contains(line), "no {line:?} in:\n{}", out.stdout);
    }
    // Nothing but the fixture was asked for (every listed URL is an example.test name
    // resolved to loopback; evil.test in a formula cell is no URL).
    assert!(
        site.server
            .requests()
            .iter()
            .all(|r| !r.url().contains("evil.test")),
    );

    let json = explain(&site, "json");
    let doc: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["urls"].as_array().unwrap().len(), 8, "{doc:#}");
    // The fixture's truth, URL by URL.
    // A canonical to a 404: Google keeps the page itself, as predicted.
    let to_404 = url(&doc, "https://example.test/canonical/to-404");
    assert_eq!(to_404["contradiction"]["kind"], "target_not_indexable");
    assert!(
        to_404["contradiction"]["detail"]
            .as_str()
            .unwrap()
            .ends_with("but it answers 404"),
        "{to_404:#}"
    );
    assert_eq!(to_404["predicted"], "https://example.test/canonical/to-404");
    assert_eq!(to_404["agrees"], true);
    // A canonical to a redirect.
    let to_redirect = url(&doc, "https://example.test/canonical/to-redirect");
    assert_eq!(to_redirect["contradiction"]["kind"], "target_not_indexable");
    assert!(
        to_redirect["contradiction"]["detail"]
            .as_str()
            .unwrap()
            .contains("it redirects to https://example.test/moved/new-page"),
        "{to_redirect:#}"
    );
    // A canonical chain: Google follows it to its end, as predicted.
    let chain = url(&doc, "https://example.test/canonical/chain-a");
    assert_eq!(chain["predicted"], "https://example.test/canonical/chain-c");
    assert_eq!(chain["agrees"], true);
    assert!(
        chain["contradiction"]["detail"]
            .as_str()
            .unwrap()
            .contains("declares https://example.test/canonical/chain-c canonical itself")
    );
    // No canonical: the predicted canonical is the cluster's preferred URL, Google's.
    let shoes = url(&doc, "https://example.test/shoes/");
    assert_eq!(kind(&doc, "https://example.test/shoes/"), "no_canonical");
    assert_eq!(shoes["predicted"], "https://example.test/shoes");
    assert_eq!(shoes["agrees"], true);
    assert!(shoes["cluster"].is_u64());
    assert!(
        shoes["contradiction"]["fix"]
            .as_str()
            .unwrap()
            .starts_with("declare <link rel=\"canonical\" href=\"https://example.test/shoes\">")
    );
    let care = url(&doc, "https://example.test/old-site/care-tips.html");
    assert_eq!(care["contradiction"]["kind"], "no_canonical");
    assert_eq!(care["predicted"], "https://example.test/articles/boot-care");
    // Canonicals and redirects Google follows: nothing contradicts them.
    let utm = "https://example.test/products?utm_source=newsletter&utm_medium=email";
    assert_eq!(kind(&doc, utm), Value::Null);
    assert_eq!(url(&doc, utm)["agrees"], true);
    let contact = url(&doc, "http://example.test/contact");
    assert_eq!(contact["contradiction"], Value::Null);
    assert_eq!(contact["predicted"], "https://example.test/contact");
    // Facts from several inputs meet on one URL: the export's reason and crawl date,
    // the inspection's canonicals (the single response named its URL only in
    // inspectionResultLink).
    assert_eq!(
        contact["search_console"]["reasons"],
        serde_json::json!(["Page with redirect"])
    );
    assert_eq!(
        contact["search_console"]["coverage_state"],
        "Page with redirect"
    );
    // Google chose the index file against the page's canonical, its links and the
    // sitemap: the prediction disagrees and no signal on the site explains it.
    let guide = url(&doc, "https://example.test/guide/index.html");
    assert_eq!(guide["agrees"], false);
    assert_eq!(guide["contradiction"]["kind"], "none_seen");
    // The signal table: links in and sitemap entries of both choices.
    let signals = guide["signals"].as_array().unwrap();
    let index = signals
        .iter()
        .find(|s| s["url"] == "https://example.test/guide/")
        .unwrap();
    assert!(index["links_in"].as_u64().unwrap() > 10, "{index:#}");
    assert_eq!(index["sitemaps"], 1);
    // A formula in a cell is kept as text, never evaluated or dropped silently.
    assert_eq!(
        guide["search_console"]["last_crawled"],
        "=cmd|' /C calc'!A0"
    );
    // Agreement: 5 of the 6 inspected URLs.
    assert_eq!(
        (doc["compared"].as_u64(), doc["agreed"].as_u64()),
        (Some(6), Some(5))
    );

    // The same in text, and in the report's section.
    let text = explain(&site, "text").stdout;
    for line in [
        "Search Console verdicts explained: 8 URLs; predicted canonical = Google's canonical for 5 of 6 inspected URLs (83%)",
        "Contradicts      target_not_indexable: Google chose https://example.test/canonical/to-404; your canonical says https://example.test/canonical/missing-target, but it answers 404",
        "Contradicts      nothing: Google follows the page's choice",
    ] {
        assert!(text.contains(line), "no {line:?} in:\n{text}");
    }
    let report = run(&["report".to_owned(), "--db".into(), path(&site.db)]);
    assert_eq!(report.code, 0, "{}", report.stderr);
    assert!(
        report
            .stdout
            .contains("Search Console verdicts explained: 8 URLs"),
        "{}",
        report.stdout
    );
    let lines = explain(&site, "jsonl").stdout;
    assert_eq!(lines.lines().count(), 8);
}

#[test]
fn hostile_search_console_inputs_are_rejected_lines_and_escaped_text() {
    let site = site();
    let dir = site._dir.path();
    // A reason (file name) with a terminal escape, a row over the CSV record limit, and
    // a JSON array whose elements are not all inspection results.
    let export = dir.join("Duplicate \u{1b}[31mred\u{1b}[0m.csv");
    let mut csv = b"URL,Last crawled\nhttps://example.test/shoes/,2026-11-21\n".to_vec();
    csv.extend(b"https://example.test/faq,");
    csv.extend(std::iter::repeat_n(b'x', 2 << 20));
    csv.extend(b"\nhttps://example.test/team,2026-11-20\n");
    std::fs::write(&export, csv).unwrap();
    let array = dir.join("inspections.json");
    std::fs::write(
        &array,
        r#"[
  {"inspectionUrl": "https://example.test/shoes/", "inspectionResult": {"indexStatusResult": {"googleCanonical": "https://example.test/shoes", "verdict": "NEUTRAL"}}},
  {"inspectionUrl": "javascript:alert(1)", "inspectionResult": {"indexStatusResult": {}}},
  "not an object",
  {"inspectionResult": {"indexStatusResult": {"googleCanonical": "https://example.test/faq"}}}
]"#,
    )
    .unwrap();
    let out = list_audit(&site, &[export, array]);
    assert!(!out.stdout.contains('\u{1b}'), "{}", out.stdout);
    for line in [
        "line 3: reading stopped here",
        "inspections.json (URL Inspection API results): 6 lines read, 1 URLs listed, 3 lines not URLs",
        "line 3: a javascript URL, not http(s)",
        "line 4: not a URL inspection result",
        "line 5: the inspected URL is not named",
    ] {
        assert!(out.stdout.contains(line), "no {line:?} in:\n{}", out.stdout);
    }
    let text = explain(&site, "text").stdout;
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(text.contains("Search Console   Duplicate"), "{text}");
    let doc: Value = serde_json::from_str(&explain(&site, "json").stdout).unwrap();
    // The document is the type its schema is generated from (docs/json/v1/), whole.
    let typed: view::explain::Explanation = serde_json::from_value(doc.clone()).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), doc);
    let shoes = url(&doc, "https://example.test/shoes/");
    assert_eq!(shoes["agrees"], true);
    assert_eq!(
        shoes["search_console"]["reasons"][0],
        "Duplicate \u{1b}[31mred\u{1b}[0m"
    );
}

#[test]
fn an_audit_without_search_console_inputs_has_nothing_to_explain() {
    let site = site();
    let list = site._dir.path().join("urls.txt");
    std::fs::write(&list, "https://example.test/shoes/\n").unwrap();
    list_audit(&site, &[list]);
    let args = vec!["explain".to_owned(), "--db".into(), path(&site.db)];
    let out = run(&args);
    assert_ne!(out.code, 0);
    assert!(
        out.stderr
            .contains("was not made from Search Console inputs"),
        "{}",
        out.stderr
    );
}
