//! The fix plan's workflows as the app and the command line share them, over real
//! audits of the fixture site on loopback: the plan's files and its simulation (clean on
//! the fixture), its verification as a list audit run like any other and judged (and the
//! same plan read back from its files judged alike), a migration mapped and written, and
//! a Search Console URL explained as `dustpan explain` explains it.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use fixture::FixtureConfig;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use support::{Recorder, Site, request, site};
use view::fixplan::{FixPlanFile, SimulationCache, fix_plan_page, simulation_page};
use view::runs::{Runs, crawl_config};
use view::verify::{Redirected, VerificationView};
use view::{AnalysisPolicy, OpenAudit};

/// The configuration of a list audit of `files`, read off the async runtime as the app
/// reads it.
async fn list_config(site: &Site, files: Vec<String>) -> crawl::CrawlConfig {
    let request = request(&site.server);
    let ca = [site.server.ca_pem().to_owned()];
    tokio::task::spawn_blocking(move || {
        view::lists::list_crawl_config(
            &request,
            &view::ListAuditRequest {
                files,
                site: None,
                log_agent: None,
                follow: false,
            },
            &ca,
            view::lists::BotCheck::Off,
        )
    })
    .await
    .unwrap()
    .unwrap()
}

/// Runs `config` to its end as the app runs it; answers the audit's id.
async fn run(site: &Site, config: crawl::CrawlConfig, policy: AnalysisPolicy) -> i64 {
    let rec = Arc::new(Recorder::default());
    let runs = Runs::new();
    let id = runs
        .start(site.store.clone(), config, policy, rec.clone())
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(120), rec.done.notified())
        .await
        .expect("the audit finishes");
    id
}

async fn audit(site: &Site) -> i64 {
    let config = crawl_config(&request(&site.server), &[site.server.ca_pem().to_owned()]).unwrap();
    run(site, config, AnalysisPolicy::default()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fixtures_plan_pages_simulates_clean_and_verifies_as_a_run() {
    let site = site(FixtureConfig {
        hostile: false,
        ..FixtureConfig::default()
    })
    .await;
    let id = audit(&site).await;
    let policy = AnalysisPolicy::default();
    let open = OpenAudit::open(&site.store, id, &policy).await.unwrap();

    // The plan's files, paged.
    let first = fix_plan_page(&open, FixPlanFile::RedirectMap, 0, 2).unwrap();
    assert_eq!(first.file, "redirect_map.csv");
    assert_eq!(first.columns[..2], ["source", "target"]);
    assert!(first.total > 2, "{first:?}");
    assert_eq!(first.rows.len(), 2);
    let second = fix_plan_page(&open, FixPlanFile::RedirectMap, 2, 2).unwrap();
    assert_ne!(first.rows[0], second.rows[0]);

    // The simulation: clean, kept for paging.
    let cache = SimulationCache::new();
    let sim = cache.get(&site.store, id, policy.clone()).await.unwrap();
    let again = cache.get(&site.store, id, policy.clone()).await.unwrap();
    assert!(
        Arc::ptr_eq(&sim, &again),
        "the second page reuses the simulation"
    );
    let page = simulation_page(&sim, None, 0, 100).unwrap();
    assert!(page.clean, "{page:?}");
    assert_eq!(page.matched, 0);
    assert!(page.problem_counts.iter().all(|c| c.count == 0));
    assert!(page.redirects > 0 && page.findings_resolved > 0, "{page:?}");

    // Verification, as the app runs it: the plan's list audit with progress like any
    // run, then judged. The fixture serves none of the new redirects: they are missing.
    let plan = view::fixplan::fix_files(&open);
    let planned = view::verify::plan_verification(
        &site.store,
        store::AuditId(id),
        &plan,
        &Redirected {
            resolves: Vec::new(),
            ca_pems: vec![site.server.ca_pem().to_owned()],
        },
    )
    .await
    .unwrap();
    assert!(!planned.config.probe_variants);
    // On a staging server, as the app's Verify view and `dustpan verify --resolve` send
    // it: an override replaces the audit's own for its host, the others are kept; one
    // that is not host:port:address is refused before anything is requested.
    let own = planned.config.resolve.clone();
    let host = fixture::HOSTS[0];
    let staging = format!("{host}:{}:127.0.0.2", site.server.port());
    let redirected = |resolves: Vec<String>| Redirected {
        resolves,
        ca_pems: vec![site.server.ca_pem().to_owned()],
    };
    let elsewhere = view::verify::plan_verification(
        &site.store,
        store::AuditId(id),
        &plan,
        &redirected(vec![staging.clone()]),
    )
    .await
    .unwrap();
    let for_host = |r: &[String]| -> Vec<String> {
        r.iter()
            .filter(|e| e.split(':').next() == Some(host))
            .cloned()
            .collect()
    };
    assert_eq!(for_host(&elsewhere.config.resolve), [staging]);
    assert_ne!(for_host(&own), for_host(&elsewhere.config.resolve));
    assert_eq!(elsewhere.config.resolve.len(), own.len(), "{own:?}");
    for bad in [format!("{host}:443"), format!("{host}:port:127.0.0.1")] {
        let err = view::verify::plan_verification(
            &site.store,
            store::AuditId(id),
            &plan,
            &redirected(vec![bad.clone()]),
        )
        .await
        .unwrap_err();
        assert_eq!(err.code(), view::ErrorCode::InvalidInput, "{bad}: {err}");
        assert!(err.to_string().contains(&bad), "{err}");
    }
    let verification_id = run(&site, planned.config, planned.policy).await;
    assert_ne!(verification_id, id);
    let judged = view::verify::judge_stored(
        &site.store,
        store::AuditId(id),
        store::AuditId(verification_id),
        &plan,
    )
    .await
    .unwrap();
    let shown = VerificationView::from(&judged);
    assert_eq!(shown.verification_id, verification_id);
    let verdicts: Vec<&str> = shown.counts.iter().map(|c| c.verdict.as_str()).collect();
    assert_eq!(
        verdicts,
        ["done", "missing", "wrong", "harmful", "not_checked"]
    );
    let total: u32 = shown.counts.iter().map(|c| c.count).sum();
    assert_eq!(total as usize, shown.checks.len());
    let missing = shown.counts[1].count;
    assert!(missing > 0, "{shown:#?}");
    assert!(!shown.all_done);
    // Those not done come first.
    assert_ne!(shown.checks[0].verdict, "done");
    let first_done = shown.checks.iter().position(|c| c.verdict == "done");
    if let Some(at) = first_done {
        assert!(shown.checks[at..].iter().all(|c| c.verdict == "done"));
    }

    // The same plan written as `dustpan export` writes it and read back from its folder
    // judges alike (`--audit-of`).
    let folder = site.dir.path().join("plan");
    std::fs::create_dir(&folder).unwrap();
    for file in FixPlanFile::ALL {
        let page = fix_plan_page(&open, file, 0, view::fixplan::MAX_PAGE).unwrap();
        let mut writer = csv::Writer::from_path(folder.join(file.file_name())).unwrap();
        writer.write_record(&page.columns).unwrap();
        for row in &page.rows {
            writer.write_record(row).unwrap();
        }
        writer.flush().unwrap();
    }
    let read = view::verify::read_plan(&folder).unwrap();
    let rejudged = view::verify::judge_stored(
        &site.store,
        store::AuditId(id),
        store::AuditId(verification_id),
        &read,
    )
    .await
    .unwrap();
    assert_eq!(rejudged, judged);

    // A folder without a plan is an error naming it.
    let empty = site.dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = view::verify::read_plan(&empty).unwrap_err().to_string();
    assert!(
        err.contains("holds no redirect_map.csv") && err.contains("empty"),
        "{err}"
    );

    // A migration of the audit onto itself keeps every page at its URL; its files are
    // written to a folder.
    let m = view::migrate::map_stored(&site.store, store::AuditId(id), store::AuditId(id))
        .await
        .unwrap();
    let shown = view::migrate::migration_view(id, id, &m);
    assert!(shown.kept > 0, "{shown:?}");
    assert_eq!((shown.mapped, shown.unmatched), (0, 0));
    assert_eq!(shown.rows.len(), shown.kept as usize);
    assert!(shown.rows.iter().all(|r| r.basis == "same URL"
        && r.confidence == 100
        && r.new_url.as_deref() == Some(r.old_url.as_str())));
    // Nothing to redirect: the map is empty and simulates clean.
    assert!(shown.simulation.clean, "{:?}", shown.simulation);
    assert_eq!(shown.simulation.redirects, 0);
    assert!(m.complete());
    let out = site.dir.path().join("migration");
    let written = view::migrate::write_migration(&m.migration, &out).unwrap();
    assert_eq!(written[..2], ["migration.csv", "redirect_map.csv"]);
    for name in &written {
        assert!(out.join(name).is_file(), "{name}");
    }
    let csv = std::fs::read_to_string(out.join("migration.csv")).unwrap();
    assert_eq!(csv.lines().count(), shown.rows.len() + 1, "{csv}");

    // An audit that does not exist, old or new, is not found (the app and the MCP
    // server act on the kind).
    for (old, new) in [(id + 100, id), (id, id + 100)] {
        let err = view::migrate::map_stored(&site.store, store::AuditId(old), store::AuditId(new))
            .await
            .unwrap_err();
        assert_eq!(err.code(), view::ErrorCode::NotFound, "{err}");
        assert_eq!(err.to_string(), format!("audit {} not found", id + 100));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_migration_lists_the_unmatched_first() {
    let site = site(FixtureConfig {
        hostile: false,
        ..FixtureConfig::default()
    })
    .await;
    let old = audit(&site).await;
    // The new site: one page of the old one, audited alone.
    let list = site.dir.path().join("one.txt");
    std::fs::write(&list, "https://example.test/\n").unwrap();
    let config = list_config(&site, vec![list.display().to_string()]).await;
    let new = run(&site, config, AnalysisPolicy::default()).await;
    let m = view::migrate::map_stored(&site.store, store::AuditId(old), store::AuditId(new))
        .await
        .unwrap();
    let shown = view::migrate::migration_view(old, new, &m);
    assert!(shown.unmatched > 0 && shown.kept >= 1, "{shown:?}");
    let parts: Vec<&str> = shown
        .rows
        .iter()
        .map(|r| match r.basis.as_str() {
            "no match" => "unmatched",
            "same URL" => "kept",
            _ => "mapped",
        })
        .collect();
    let mut sorted = parts.clone();
    sorted.sort_by_key(|p| ["unmatched", "mapped", "kept"].iter().position(|q| q == p));
    assert_eq!(parts, sorted, "unmatched, then mapped, then kept");
    // Among the unmatched, the most linked first.
    let inlinks: Vec<u32> = shown
        .rows
        .iter()
        .take(shown.unmatched as usize)
        .map(|r| r.inlinks)
        .collect();
    assert!(inlinks.windows(2).all(|w| w[0] >= w[1]), "{inlinks:?}");
    assert_eq!(
        shown.rows.iter().filter(|r| r.new_url.is_none()).count(),
        shown.unmatched as usize
    );
}

const SEARCH_CONSOLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/search-console"
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_console_url_is_explained_in_its_detail() {
    let site = site(FixtureConfig {
        hostile: false,
        ..FixtureConfig::default()
    })
    .await;
    let files = [
        "Duplicate, Google chose different canonical than user.csv",
        "inspection.jsonl",
    ]
    .map(|f| Path::new(SEARCH_CONSOLE).join(f).display().to_string());
    let config = list_config(&site, files.to_vec()).await;
    let id = run(&site, config, AnalysisPolicy::default()).await;
    let open = OpenAudit::open(&site.store, id, &AnalysisPolicy::default())
        .await
        .unwrap();
    let url = "https://example.test/canonical/to-404";
    let shown = view::explain::explain_url(&open, url)
        .unwrap()
        .expect("a URL of the export is explained");
    assert_eq!(shown.url, url);
    assert_eq!(
        shown.reasons,
        ["Duplicate, Google chose different canonical than user"]
    );
    // The page names a canonical that answers 404: Google cannot follow it.
    assert_eq!(
        shown.contradiction.as_deref(),
        Some("target_not_indexable"),
        "{shown:#?}"
    );
    assert!(shown.fix.is_some());
    assert!(shown.signals.iter().any(|s| s.url == url));
    // What `dustpan explain` prints for the same URL.
    let all = view::explain::of_audit(open.audit(), open.input(), open.analysis())
        .unwrap()
        .unwrap();
    let printed = all.urls.iter().find(|x| x.url == url).unwrap();
    assert_eq!(view::explain::SearchConsoleView::from(printed), shown);
    // A URL no Search Console file names, and an audit made from none, explain nothing.
    assert_eq!(
        view::explain::explain_url(&open, "https://example.test/nowhere").unwrap(),
        None
    );
    let crawled = audit(&site).await;
    let plain = OpenAudit::open(&site.store, crawled, &AnalysisPolicy::default())
        .await
        .unwrap();
    assert_eq!(view::explain::explain_url(&plain, url).unwrap(), None);
}
