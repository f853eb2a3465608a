//! The fixture audit as users see it, compared with reviewed snapshots (insta): one
//! `dustpan demo` audit of the fixture site, then `dustpan report --top 1000` (every
//! cluster with its preferred URL, each member with why it is in the cluster and its
//! fix; every finding with its fixes; the learned DUST rules and their validation) and
//! the files of `dustpan export` that carry findings, clusters and fixes. The snapshots
//! are `tests/golden/*.snap`, one per output.
//!
//! Reviewing a change: a mismatch fails the test and leaves the new output beside the
//! snapshot as `tests/golden/NAME.snap.new`. Review it with `cargo insta review`
//! (`cargo install cargo-insta`), which accepts or rejects each change, or read the
//! diff the failed test printed and accept every change with
//! `INSTA_UPDATE=always cargo test --test integration golden`. With `CI` set nothing
//! is written. The fixture's port is redacted as `127.0.0.1:[port]`; the outputs hold
//! no row ids, temporary paths or times.

use crate::util::dustpan;
use audit::{Analysis, UrlId};
use std::collections::HashMap;
use std::path::Path;

/// The export files snapshotted: the findings, the clusters (member by member and one
/// line each) and the fixes (redirects, canonicals and sitemap changes to make).
const EXPORTS: [&str; 6] = [
    "findings.csv",
    "clusters.csv",
    "cluster_list.csv",
    "redirect_map.csv",
    "canonicals_to_set.csv",
    "sitemap_changes.csv",
];

/// One `dustpan demo` audit of the fixture: its analysis, and what `dustpan report` and
/// `dustpan export` print and write for it.
pub(crate) struct Demo {
    pub analysis: Analysis,
    /// The URLs fetched (with a response or not).
    pub fetched: Vec<String>,
    /// The URLs Dustpan made up (URL-variant probes), and the fetches of the others.
    made_up: Vec<String>,
    own_fetches: usize,
    /// The desktop app's overview and Issues view of the audit.
    overview: view::Overview,
    issues: Vec<view::IssueView>,
    /// `links_to_non_preferred.csv` of `dustpan export`.
    links_csv: String,
    /// `dustpan report --top 1000`.
    report: String,
    /// The contents of [`EXPORTS`], by file name.
    exports: HashMap<&'static str, String>,
}

/// The analysis `dustpan report` makes of the audit (the workflow's own load, with the
/// audit's validation samples and carried rules), with the URLs it fetched.
fn analyse(db: &Path) -> (Analysis, Vec<String>, view::OpenAudit) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = store::Store::open(db).await.unwrap();
        let id = store.list_audits().await.unwrap()[0].id;
        let loaded = view::workflow::load(&store, id, canon::Policy::seo())
            .await
            .unwrap();
        let input = loaded.input;
        let urls: HashMap<UrlId, String> = input
            .urls
            .iter()
            .map(|u| (u.id, u.found_url().to_owned()))
            .collect();
        let fetched = input
            .fetches
            .iter()
            .filter_map(|f| urls.get(&f.url_id).cloned())
            .collect();
        store.close().await;
        let analysis = audit::analyse(&input, &loaded.config);
        let open =
            view::OpenAudit::from_parts(loaded.audit, input, analysis.clone(), "seo".to_owned());
        (analysis, fetched, open)
    })
}

/// The fixture audit, its report and its exports (made once per test binary).
pub(crate) fn demo_analysis() -> &'static Demo {
    static DEMO: std::sync::OnceLock<Demo> = std::sync::OnceLock::new();
    DEMO.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("golden.sqlite");
        let db = db.to_str().unwrap();
        // The crawl's own DUST rules spare URLs depending on the order pages arrive in
        // (crates/crawl/tests/dust.rs checks them on the fixture): without them every
        // run fetches the same URLs.
        let demo = dustpan(
            &[
                "demo",
                "--db",
                db,
                "-q",
                "--slow-ms",
                "200",
                "--no-dust-learning",
            ],
            "",
        );
        assert_eq!(demo.code, 0, "{}", demo.stderr);

        let report = dustpan(&["report", "--db", db, "--top", "1000"], "");
        assert_eq!(report.code, 0, "{}", report.stderr);

        let out = dir.path().join("export");
        let export = dustpan(&["export", "--db", db, "--out", out.to_str().unwrap()], "");
        assert_eq!(export.code, 0, "{}", export.stderr);
        let tmp = dir.path().to_str().unwrap();
        let exports = EXPORTS
            .iter()
            .map(|&name| {
                let text = std::fs::read_to_string(out.join(name))
                    .unwrap_or_else(|e| panic!("dustpan export wrote no {name}: {e}"));
                (name, text.replace(tmp, "[tmp]"))
            })
            .collect();

        let links_csv = std::fs::read_to_string(out.join("links_to_non_preferred.csv"))
            .expect("dustpan export wrote links_to_non_preferred.csv");
        let (analysis, fetched, open) = analyse(Path::new(db));
        let input = open.input();
        let made_up_ids = input.made_up_urls();
        let made_up = input
            .urls
            .iter()
            .filter(|u| made_up_ids.contains(&u.id))
            .map(|u| u.found_url().to_owned())
            .collect();
        let own_fetches = input
            .fetches
            .iter()
            .filter(|f| !made_up_ids.contains(&f.url_id))
            .count();
        Demo {
            made_up,
            own_fetches,
            overview: open.overview().clone(),
            issues: open.issues(),
            links_csv,
            analysis,
            fetched,
            report: report.stdout.replace(tmp, "[tmp]"),
            exports,
        }
    })
}

/// Compares `text` with the snapshot `tests/golden/{name}.snap`.
fn check(name: &str, what: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("golden");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_description(what);
    settings.add_filter(r"127\.0\.0\.1:\d+", "127.0.0.1:[port]");
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// Compares one export file of the fixture audit with its snapshot.
fn check_export(file: &'static str) {
    let text = &demo_analysis().exports[file];
    check(file, &format!("dustpan export: {file}"), text);
}

#[test]
fn the_fixture_report_matches_its_snapshot() {
    check(
        "report",
        "dustpan report --top 1000",
        &demo_analysis().report,
    );
}

#[test]
fn the_fixture_findings_csv_matches_its_snapshot() {
    check_export("findings.csv");
}

#[test]
fn the_fixture_clusters_csv_matches_its_snapshot() {
    check_export("clusters.csv");
}

#[test]
fn the_fixture_cluster_list_csv_matches_its_snapshot() {
    check_export("cluster_list.csv");
}

#[test]
fn the_fixture_redirect_map_matches_its_snapshot() {
    check_export("redirect_map.csv");
}

#[test]
fn the_fixture_canonicals_to_set_match_their_snapshot() {
    check_export("canonicals_to_set.csv");
}

#[test]
fn the_fixture_sitemap_changes_match_their_snapshot() {
    check_export("sitemap_changes.csv");
}

/// The URLs Dustpan made up to test the server's rules (URL-variant probes) are
/// evidence about those rules, never the site's problems: only a `VARIANT-*` finding
/// names them, the status chart counts the site's own answers, no row of the links
/// export involves them, and a variant rule's issue counts the site's pages it
/// concerns, not the made-up URLs.
#[test]
fn made_up_urls_are_no_site_problem_in_the_fixture_audit() {
    let demo = demo_analysis();
    assert!(demo.made_up.len() > 50, "{}", demo.made_up.len());
    let made_up: std::collections::HashSet<&str> =
        demo.made_up.iter().map(String::as_str).collect();
    for f in &demo.analysis.findings {
        if matches!(
            f.id,
            audit::FindingId::VariantDuplicate | audit::FindingId::VariantTemporary
        ) {
            assert!(f.affects.is_some(), "{f:#?}");
            continue;
        }
        let named: Vec<&String> = f
            .urls
            .iter()
            .filter(|u| made_up.contains(u.as_str()))
            .collect();
        assert!(named.is_empty(), "{} names {named:?}", f.key);
    }
    let charted: u32 = demo.overview.status_codes.iter().map(|c| c.count).sum();
    assert_eq!(
        charted as usize, demo.own_fetches,
        "{:?}",
        demo.overview.status_codes
    );
    let mut links = csv::Reader::from_reader(demo.links_csv.as_bytes());
    for row in links.records() {
        let row = row.unwrap();
        for cell in row.iter() {
            assert!(!made_up.contains(cell), "{row:?}");
        }
    }
    // "Fix these first": the site's errors, before any warning about URL variants.
    let first: Vec<&str> = demo
        .issues
        .iter()
        .take(5)
        .map(|i| i.code.as_str())
        .collect();
    assert!(
        first.iter().all(|c| !c.starts_with("VARIANT-")),
        "{first:?}"
    );
    for issue in demo
        .issues
        .iter()
        .filter(|i| i.code.starts_with("VARIANT-"))
    {
        let pages: u32 = demo
            .analysis
            .findings
            .iter()
            .filter(|f| f.id.code() == issue.code)
            .filter_map(|f| f.affects)
            .sum();
        assert_eq!(issue.urls, pages, "{issue:#?}");
    }
}
