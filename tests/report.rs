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
    // A control page is never the subject of a finding (the first address).
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
