//! `pages.csv` read as a Screaming Frog SEO Spider user reads it: the columns a
//! duplicate audit lives on carry SF's names, stand in SF's order, and hold sensible
//! values for pages of the fixture audit.

use crate::util::dustpan;
use std::collections::HashMap;

/// The header of the SEO Spider's Internal tab export (`internal_all.csv`), in its
/// order. `HTTP Canonical 1` stands where SF's Canonicals tab puts it: right after
/// `Canonical Link Element 1`.
const SEO_SPIDER_INTERNAL: &[&str] = &[
    "Address",
    "Content Type",
    "Status Code",
    "Status",
    "Indexability",
    "Indexability Status",
    "Title 1",
    "Title 1 Length",
    "Title 1 Pixel Width",
    "Meta Description 1",
    "Meta Description 1 Length",
    "Meta Description 1 Pixel Width",
    "Meta Keywords 1",
    "Meta Keywords 1 Length",
    "H1-1",
    "H1-1 Length",
    "H1-2",
    "H1-2 Length",
    "H2-1",
    "H2-1 Length",
    "H2-2",
    "H2-2 Length",
    "Meta Robots 1",
    "X-Robots-Tag 1",
    "Meta Refresh 1",
    "Canonical Link Element 1",
    "HTTP Canonical 1",
    "rel=\"next\" 1",
    "rel=\"prev\" 1",
    "HTTP rel=\"next\" 1",
    "HTTP rel=\"prev\" 1",
    "amphtml Link Element",
    "Size (bytes)",
    "Word Count",
    "Text Ratio",
    "Crawl Depth",
    "Link Score",
    "Inlinks",
    "Unique Inlinks",
    "Unique JS Inlinks",
    "% of Total",
    "Outlinks",
    "Unique Outlinks",
    "Unique JS Outlinks",
    "External Outlinks",
    "Unique External Outlinks",
    "Unique External JS Outlinks",
    "Closest Similarity Match",
    "No. Near Duplicates",
    "Spelling Errors",
    "Grammar Errors",
    "Hash",
    "Response Time",
    "Last Modified",
    "Redirect URL",
    "Redirect Type",
    "Cookies",
    "HTTP Version",
    "URL Encoded Address",
    "Crawl Timestamp",
];

/// The SF columns `pages.csv` must carry.
const REQUIRED: &[&str] = &[
    "Address",
    "Content Type",
    "Status Code",
    "Indexability",
    "Indexability Status",
    "Title 1",
    "Title 1 Length",
    "Meta Description 1",
    "H1-1",
    "Meta Robots 1",
    "X-Robots-Tag 1",
    "Canonical Link Element 1",
    "HTTP Canonical 1",
    "Size (bytes)",
    "Word Count",
    "Crawl Depth",
    "Inlinks",
    "Unique Inlinks",
    "Hash",
    "Response Time",
    "Redirect URL",
];

/// Dustpan's own columns, after SF's.
const OWN: &[&str] = &[
    "Main Content Hash",
    "Main Content Word Count",
    "Cluster",
    "Preferred URL",
    "Found Via",
];

#[test]
fn pages_csv_reads_as_a_seo_spider_internal_export() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("audit.sqlite");
    let db = db.to_str().unwrap();
    let demo = dustpan(&["demo", "--db", db, "-q", "--slow-ms", "200"], "");
    assert_eq!(demo.code, 0, "{}", demo.stderr);
    let out = dir.path().join("export");
    let export = dustpan(&["export", "--db", db, "--out", out.to_str().unwrap()], "");
    assert_eq!(export.code, 0, "{}", export.stderr);

    let mut reader = csv::Reader::from_path(out.join("pages.csv")).unwrap();
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();

    // Every required column is there, under SF's name.
    for name in REQUIRED {
        assert!(
            header.iter().any(|h| h == name),
            "no {name:?} in {header:?}"
        );
    }
    // The columns SF knows stand in SF's order, first; ours follow.
    let sf_position = |h: &str| SEO_SPIDER_INTERNAL.iter().position(|s| *s == h);
    let known: Vec<usize> = header.iter().filter_map(|h| sf_position(h)).collect();
    assert!(known.is_sorted(), "not in SF's order: {header:?}");
    let first_own = header.iter().position(|h| sf_position(h).is_none());
    assert_eq!(first_own, Some(known.len()), "{header:?}");
    assert_eq!(&header[known.len()..], OWN, "{header:?}");

    let rows: Vec<HashMap<String, String>> = reader
        .records()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(str::to_owned))
                .collect()
        })
        .collect();
    let page = |path: &str| {
        let address = format!("https://example.test{path}");
        rows.iter()
            .find(|r| r["Address"] == address)
            .unwrap_or_else(|| panic!("{address} is not in pages.csv"))
    };

    let meta = page("/noindex/meta");
    assert_eq!(meta["Status Code"], "200");
    assert_eq!(meta["Indexability Status"], "noindex");
    assert_eq!(meta["Meta Robots 1"], "noindex, follow");
    assert_eq!(meta["X-Robots-Tag 1"], "");
    assert_eq!(meta["H1-1"], "Clearance archive");
    let title = "Clearance archive | Example Outfitters";
    assert_eq!(meta["Title 1"], title);
    assert_eq!(meta["Title 1 Length"], title.chars().count().to_string());
    assert!(
        meta["Meta Description 1"].len() > 10 && meta["Meta Description 1"].ends_with('.'),
        "{meta:?}"
    );

    let header_noindex = page("/noindex/header");
    assert_eq!(header_noindex["X-Robots-Tag 1"], "noindex");
    assert_eq!(header_noindex["Meta Robots 1"], "");

    let conflict = page("/canonical/header-conflict");
    assert_eq!(
        conflict["Canonical Link Element 1"],
        "https://example.test/canonical/header-conflict"
    );
    assert_eq!(conflict["HTTP Canonical 1"], "https://example.test/about");

    // The home page: linked from the navigation of every page.
    let home = page("/");
    let inlinks: u32 = home["Inlinks"].parse().unwrap();
    let unique: u32 = home["Unique Inlinks"].parse().unwrap();
    assert!(unique > 10 && inlinks >= unique, "{home:?}");
    assert!(home["Content Type"].starts_with("text/html"), "{home:?}");
    let size: u64 = home["Size (bytes)"].parse().unwrap();
    assert!(size > 1000, "{home:?}");
    // Seconds with three decimals, as SF writes them.
    let time = &home["Response Time"];
    let (whole, millis) = time.split_once('.').unwrap_or_else(|| panic!("{time:?}"));
    assert!(
        whole.parse::<u32>().is_ok() && millis.len() == 3,
        "{time:?}"
    );
    assert!(time.parse::<f64>().unwrap() < 30.0, "{time:?}");
    for column in ["Hash", "Main Content Hash"] {
        let hash = &home[column];
        assert!(
            hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
            "{column}: {hash:?}"
        );
    }

    // A redirect has a size and a time but no text hash.
    let redirect = rows
        .iter()
        .find(|r| r["Status Code"] == "301" && !r["Redirect URL"].is_empty())
        .expect("the fixture redirects");
    assert_eq!(redirect["Hash"], "", "{redirect:?}");
    assert!(!redirect["Response Time"].is_empty(), "{redirect:?}");

    // The same text has the same hash: the pages of one exact-duplicate cluster.
    let by_cluster = |cluster: &str| {
        rows.iter()
            .filter(|r| r["Cluster"] == cluster && r["Status Code"] == "200")
            .map(|r| r["Hash"].as_str())
            .collect::<Vec<_>>()
    };
    let shared = rows
        .iter()
        .filter(|r| !r["Cluster"].is_empty() && !r["Hash"].is_empty())
        .any(|r| {
            let hashes = by_cluster(&r["Cluster"]);
            hashes.len() > 1 && hashes.iter().all(|h| *h == hashes[0])
        });
    assert!(shared, "no cluster of pages with one text hash");
}
