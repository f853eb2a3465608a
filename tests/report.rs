//! `dustpan report` and `dustpan export` on an audit of the fixture site: the
//! expected clusters and findings are there, control pages have none, and the CSV
//! files parse as RFC 4180 with spreadsheet-safe cells.

use crate::util::{dustpan, read_csv};
use fixture::answers::{SiteVariant, site};

#[test]
fn report_and_export_of_the_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("audit.sqlite");
    let db = db.to_str().unwrap();
    let demo = dustpan(&["demo", "--db", db, "-q", "--slow-ms", "200"], "");
    assert_eq!(demo.code, 0, "{}", demo.stderr);

    // The demo's analysis stored the overview the desktop app shows at once: the same
    // overview the app computes when it analyses the audit itself.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = store::Store::open(std::path::Path::new(db)).await.unwrap();
        let seo = view::AnalysisPolicy::default();
        let stored = view::OpenAudit::stored_overview(&store, 1, &seo)
            .await
            .unwrap();
        let open = view::OpenAudit::open(&store, 1, &seo).await.unwrap();
        assert_eq!(stored.as_ref(), Some(open.overview()));
        store.close().await;
    });

    let report = dustpan(&["report", "--db", db], "");
    assert_eq!(report.code, 0, "{}", report.stderr);
    for code in [
        "REDIRECT-LOOP",
        "REDIRECT-CHAIN",
        "CANON-TO-ERROR",
        "DUP-SLASH",
        "DUP-DUST",
        "TRAP",
    ] {
        assert!(
            report.stdout.contains(code),
            "report lacks {code}:\n{}",
            report.stdout
        );
    }
    assert!(
        report.stdout.contains("Learned DUST rules:"),
        "{}",
        report.stdout
    );

    let out = dir.path().join("export");
    let export = dustpan(&["export", "--db", db, "--out", out.to_str().unwrap()], "");
    assert_eq!(export.code, 0, "{}", export.stderr);

    let findings = read_csv(&out.join("findings.csv"));
    let has = |code: &str, url: &str| {
        findings
            .iter()
            .any(|f| f["Finding"] == code && f["Addresses"].split('\n').any(|a| a == url))
    };
    assert!(has("REDIRECT-LOOP", "https://example.test/loop/a"));
    assert!(has("REDIRECT-CHAIN", "https://example.test/chain/start"));
    assert!(has("DUP-SLASH", "https://example.test/shoes"));
    // A broken link's finding quotes the link's anchor text, read from the store.
    let broken = findings
        .iter()
        .find(|f| f["Finding"] == "LINK-BROKEN" && f["Addresses"].contains("/discontinued-boots"))
        .expect("the broken link is reported");
    assert!(
        broken["Evidence"].contains("anchor text: \"Discontinued boots\""),
        "{}",
        broken["Evidence"]
    );
    // Pages of a pattern the crawl stopped (the calendar) are not "missing from the sitemap".
    assert!(
        !findings
            .iter()
            .any(|f| f["Finding"] == "SITEMAP-MISSING" && f["Addresses"].contains("/calendar")),
        "calendar pages reported as missing from the sitemap"
    );
    // Posts that name their newest comment page canonical (comments split into pages):
    // one finding with one template fix, nothing about the comment pages apart from it,
    // and no fix that moves the sitemap or the links onto a comment page.
    let posts: Vec<&str> = {
        let mut p = fixture::answers::COMMENT_PAGES.to_vec();
        p.sort_unstable();
        p
    };
    let cause: Vec<_> = findings
        .iter()
        .filter(|f| f["Finding"] == "CANON-COMMENT-PAGE")
        .collect();
    assert_eq!(cause.len(), 1, "{cause:#?}");
    let mut listed: Vec<&str> = cause[0]["Addresses"].split('\n').collect();
    listed.sort_unstable();
    assert_eq!(listed, posts);
    assert!(cause[0]["Fix"].contains("make each page's canonical its own URL"));
    let apart: Vec<_> = findings
        .iter()
        .filter(|f| {
            f["Finding"] != "CANON-COMMENT-PAGE" && f["Addresses"].contains("/comment-page-")
        })
        .map(|f| f["Finding"].as_str())
        .collect();
    assert!(
        apart.is_empty(),
        "comment-page findings apart from their cause: {apart:?}"
    );
    for (file, column) in [
        ("sitemap_changes.csv", "replacement"),
        ("redirect_map.csv", "target"),
    ] {
        assert!(
            read_csv(&out.join(file))
                .iter()
                .all(|r| !r[column].contains("/comment-page-")),
            "{file} leads onto a comment page"
        );
    }

    // Different pages sharing a title: one finding naming the three roundup posts, every
    // page in duplicate_metadata.csv, and the report's section listing them.
    let roundups: Vec<&str> = {
        let mut r = fixture::answers::ROUNDUPS.to_vec();
        r.sort_unstable();
        r
    };
    let title = format!(
        "{} | Example Outfitters Journal",
        fixture::answers::SHARED_TITLE
    );
    let shared: Vec<_> = findings
        .iter()
        .filter(|f| f["Finding"] == "TITLE-DUPLICATE" && f["Summary"].contains(&title))
        .collect();
    assert_eq!(shared.len(), 1, "{shared:#?}");
    assert_eq!(
        shared[0]["Addresses"].split('\n').collect::<Vec<_>>(),
        roundups
    );
    assert!(
        shared[0]["Summary"].starts_with("3 different pages share the title"),
        "{}",
        shared[0]["Summary"]
    );
    assert!(findings.iter().any(|f| f["Finding"] == "H1-DUPLICATE"
        && f["Summary"].contains("\"Weekly roundup\"")
        && f["Addresses"].split('\n').collect::<Vec<_>>() == roundups));
    let rows = read_csv(&out.join("duplicate_metadata.csv"));
    let mut listed: Vec<&str> = rows
        .iter()
        .filter(|r| r["Element"] == "title" && r["Value"] == title)
        .map(|r| r["Address"].as_str())
        .collect();
    listed.sort_unstable();
    assert_eq!(listed, roundups);
    let full = dustpan(&["report", "--db", db, "--top", "1000"], "");
    assert_eq!(full.code, 0, "{}", full.stderr);
    let section = full
        .stdout
        .split("\nShared titles, headings and descriptions")
        .nth(1)
        .expect("the report lists the shared titles");
    assert!(
        section.contains(&format!("title \"{title}\": 3 pages")),
        "{section}"
    );
    for r in &roundups {
        assert!(section.contains(r), "{r} not in:\n{section}");
    }
    // A control page is never the subject of a finding (the first address), nor one of
    // the pages sharing a title, heading or description.
    let facts = site(SiteVariant::Before);
    for control in facts.controls() {
        for f in &findings {
            let subject = f["Addresses"].split('\n').next().unwrap_or("");
            assert_ne!(
                subject, control.url,
                "control page has finding {}",
                f["Finding"]
            );
        }
        assert!(
            !rows.iter().any(|r| r["Address"] == control.url),
            "control page {} shares a title, heading or description",
            control.url
        );
    }

    let clusters = read_csv(&out.join("clusters.csv"));
    let slash = clusters
        .iter()
        .find(|c| {
            c["Address"] == "https://example.test/shoes/"
                || c["Address"] == "https://example.test/shoes"
        })
        .expect("the slash duplicate is clustered");
    let members: Vec<_> = clusters
        .iter()
        .filter(|c| c["Cluster"] == slash["Cluster"])
        .collect();
    let addresses: Vec<&str> = members.iter().map(|m| m["Address"].as_str()).collect();
    assert!(
        addresses.contains(&"https://example.test/shoes"),
        "{addresses:?}"
    );
    assert!(
        addresses.contains(&"https://example.test/shoes/"),
        "{addresses:?}"
    );
    assert_eq!(
        members.iter().filter(|m| m["Role"] == "preferred").count(),
        1
    );
    // (A member that redirects already, such as the http URL a URL-variant probe
    // requested, needs no fix.)
    for m in members
        .iter()
        .filter(|m| m["Role"] != "preferred" && m["Role"] != "redirects")
    {
        assert!(
            !m["Fix"].is_empty() && !m["Why In Cluster"].is_empty(),
            "{m:?}"
        );
    }
    // The trailing slash that really changes the page is not merged.
    assert!(
        !clusters
            .iter()
            .any(|c| c["Address"].starts_with("https://example.test/hats"))
    );

    let pages = read_csv(&out.join("pages.csv"));
    assert!(pages.len() > 100);
    for file in [
        "pages.csv",
        "clusters.csv",
        "findings.csv",
        "redirects.csv",
        "canonicals.csv",
    ] {
        for row in read_csv(&out.join(file)) {
            for cell in row.values() {
                assert!(
                    !cell.starts_with(['=', '+', '-', '@']),
                    "{file}: unsafe cell {cell:?}"
                );
            }
        }
    }
    let nginx = std::fs::read_to_string(out.join("redirects.nginx.conf")).unwrap();
    assert!(
        nginx.contains(" https://example.test/chain/end\";"),
        "{nginx}"
    );
}
