//! `dustpan url` (one URL in full, its links paged and exported) and the client-ready
//! outputs of `dustpan export` (every link, the Excel workbook, the HTML report), each
//! checked against what `view` answers for the same audit.

use fixture::FixtureConfig;
use view::output::UrlDocument;
use view::{LinkDirection, Session};

use crate::util::{Output, Site, audit_id, check, path, read_csv, run};

const START: &str = "https://example.test/";

/// `dustpan ARGS --db DB`.
fn on_db(site: &Site, args: &[&str]) -> Output {
    let mut all: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    all.push("--db".to_owned());
    all.push(path(&site.db));
    run(&all)
}

#[test]
fn one_url_in_full_with_paged_and_exported_links_and_client_outputs() {
    let site = Site::start(FixtureConfig {
        hostile: false,
        ..FixtureConfig::default()
    });
    let out = run(&site.audit_args(
        START,
        &[
            "-q",
            "--max-urls",
            "120",
            "--no-dust-learning",
            "--timeout",
            "20",
        ],
    ));
    check(&out, "dustpan audit");
    let id = audit_id(&out.stdout).0;
    let ids = id.to_string();
    let session = Session::new(site.store());
    let open = site.rt.block_on(session.open(id)).unwrap();
    let detail = site
        .rt
        .block_on(open.url_detail_with_headers(&site.store(), START))
        .unwrap();
    assert!(detail.headers_stored && !detail.headers.is_empty());
    assert!(detail.inlinks_total > 3, "{}", detail.inlinks_total);

    // JSON: the app's detail, and the page of links asked for.
    let out = on_db(
        &site,
        &[
            "url", &ids, START, "--format", "json", "--offset", "1", "--limit", "2",
        ],
    );
    check(&out, "url --format json");
    let doc: UrlDocument = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc.schema_version, 1);
    assert_eq!(doc.audit_id, id);
    let mut expected = detail.clone();
    expected.inlinks.clear();
    expected.outlinks.clear();
    assert_eq!(doc.detail, expected);
    assert_eq!(doc.inlinks.total, detail.inlinks_total);
    assert_eq!(doc.inlinks.offset, 1);
    assert_eq!(doc.inlinks.links, detail.inlinks[1..3].to_vec());
    assert_eq!(doc.outlinks.total, detail.outlinks_total);
    assert_eq!(
        doc.inlinks,
        open.url_links(START, LinkDirection::Inlinks, 1, 2).unwrap()
    );
    // Paging past the end is an empty page with the total, not an error.
    let past = open
        .url_links(START, LinkDirection::Inlinks, detail.inlinks_total, 10)
        .unwrap();
    assert!(past.links.is_empty() && past.total == detail.inlinks_total);

    // Text: the totals, the page and its place, and every link of a CSV export.
    let dir = tempfile::tempdir().unwrap();
    let inlinks_csv = dir.path().join("inlinks.csv");
    let out = on_db(
        &site,
        &[
            "url",
            &ids,
            START,
            "--limit",
            "3",
            "--inlinks-csv",
            &path(&inlinks_csv),
        ],
    );
    check(&out, "url");
    let total = detail.inlinks_total;
    assert!(
        out.stdout.contains(&format!(
            "Inlinks (from): {total} in all\n  1 to 3 of {total}"
        )),
        "{}",
        out.stdout
    );
    assert!(out.stdout.starts_with(START), "{}", out.stdout);
    let rows = read_csv(&inlinks_csv);
    assert_eq!(rows.len(), total as usize);
    assert!(rows.iter().all(|r| r["Destination"] == START), "{rows:?}");
    assert_eq!(rows[0]["Source"], detail.inlinks[0].url);
    // A URL the audit does not hold is a clear error.
    let out = on_db(
        &site,
        &["url", &ids, "https://example.test/not-in-the-audit"],
    );
    assert_ne!(out.code, 0);
    assert!(
        out.stderr
            .contains("the audit has no URL https://example.test/not-in-the-audit"),
        "{}",
        out.stderr
    );

    // export: every link twice, the workbook and the HTML report.
    let report = dir.path().join("report");
    let xlsx = dir.path().join("audit.xlsx");
    let html = dir.path().join("audit.html");
    let out = on_db(
        &site,
        &[
            "export",
            &ids,
            "--out",
            &path(&report),
            "--xlsx",
            &path(&xlsx),
            "--html",
            &path(&html),
        ],
    );
    check(&out, "export --out --xlsx --html");
    let links = open.input().links.len();
    let resolved = open.input().links.iter().filter(|l| l.to.is_some()).count();
    assert_eq!(read_csv(&report.join("all_outlinks.csv")).len(), links);
    let all_in = read_csv(&report.join("all_inlinks.csv"));
    assert_eq!(all_in.len(), resolved);
    assert_eq!(
        all_in.iter().filter(|r| r["Destination"] == START).count(),
        total as usize
    );
    // An .xlsx file is a zip archive with a sheet per table.
    let book = std::fs::read(&xlsx).unwrap();
    assert!(book.starts_with(b"PK\x03\x04"), "not a zip archive");
    let sheets = open
        .export_workbook(&dir.path().join("again.xlsx"))
        .unwrap();
    assert!(
        out.stdout
            .contains(&format!("{} ({} sheets)", path(&xlsx), sheets.len())),
        "{}",
        out.stdout
    );
    assert!(sheets.iter().any(|s| s.name == "pages" && s.rows > 100));
    // The HTML report: no script, nothing loaded, every issue, crawled text escaped.
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(!page.to_ascii_lowercase().contains("<script"), "{page}");
    assert!(page.contains("default-src 'none'"), "{page}");
    for issue in open.issues() {
        assert!(
            page.contains(&view::deliver::escape_html(&issue.title)),
            "{}",
            issue.title
        );
    }
    assert_eq!(
        page,
        view::deliver::html_report(open.overview(), &open.issues())
    );
    // --xlsx alone writes no folder; no output at all is a usage error.
    let out = on_db(&site, &["export", &ids]);
    assert_eq!(out.code, 2, "{}", out.stderr);
}
