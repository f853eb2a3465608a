//! `dustpan audit` killed with SIGKILL mid-crawl, then `dustpan audit --resume ID`.
//!
//! What the crawler promises (crates/crawl, crates/store): every committed row survives;
//! a URL stored `done` is never requested again; URLs claimed (`fetching`) or fetched
//! but not yet committed when the process died are queued again and requested once more.

use std::collections::{BTreeMap, HashMap};
use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

use fixture::answers;
use store::{AuditStatus, UrlState};

use crate::util::{Site, Snapshot, drain, path, run, spawn_dustpan};

/// Pages of the generated site: enough for a few seconds of crawling in a debug build.
const PAGES: usize = 1_000;
const SEED: u64 = 7;
/// Pages stored `done` before the kill.
const KILL_AFTER: u64 = 200;

#[test]
fn a_killed_audit_resumes_without_refetching_stored_pages() {
    let site = Site::start(fixture::generated_site(PAGES, SEED));
    let facts = answers::generated(PAGES, SEED);
    // The start URL's scheme and www. variants are fetched and redirect to the preferred
    // origin (robots.txt included), so the crawl keeps to it without --include.
    // Without URL-variant probes and DUST learning: the counts below are the generated
    // site's pages, every one fetched (probes resume without probing twice:
    // crates/crawl/tests/probes.rs; a DUST rule learned from the `/item?id=J` pages,
    // depending on how fast pages answer, would skip some of them).
    let args = site.audit_args(
        "https://example.test/",
        &[
            "-q",
            "--concurrency",
            "2",
            "--no-probes",
            "--no-dust-learning",
        ],
    );
    let started = Instant::now();
    let mut child = spawn_dustpan(&args);
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());

    // Wait until the crawl is under way (the database exists and is migrated), then
    // until enough pages are committed.
    let deadline = Instant::now() + Duration::from_secs(60);
    let exited_early = |child: &mut std::process::Child| {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("dustpan exited before the kill: {status}");
        }
    };
    while site.server.requests().len() < 20 {
        exited_early(&mut child);
        assert!(Instant::now() < deadline, "no crawl started");
        std::thread::sleep(Duration::from_millis(10));
    }
    let store = site.store();
    let audit = loop {
        if let Some(a) = site.rt.block_on(store.list_audits()).unwrap().first() {
            break a.id;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    loop {
        exited_early(&mut child);
        assert!(
            Instant::now() < deadline,
            "too slow to store {KILL_AFTER} pages"
        );
        let summary = site.rt.block_on(store.audit_summary(audit)).unwrap();
        if summary.states.done >= KILL_AFTER {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(9), "{status}");
    let _ = (stdout.join(), stderr.join());
    let killed_after = started.elapsed();
    let requests_before = site.server.requests();

    let before = site.rt.block_on(Snapshot::load(&store, audit));
    assert_eq!(
        before.audit.status,
        AuditStatus::Running,
        "killed, not closed"
    );
    let st = &before.summary.states;
    assert!(st.done >= KILL_AFTER, "{st:?}");
    assert!(
        st.queued + st.fetching > 0,
        "the kill came after the crawl ended: {st:?}"
    );
    assert!(before.audit.discovery_done);

    // Resume with nothing but the database: the stored configuration carries the
    // --resolve overrides and the CA.
    let out = run(&[
        "audit".to_owned(),
        "--resume".to_owned(),
        audit.to_string(),
        "--db".to_owned(),
        path(&site.db),
        "-q".to_owned(),
    ]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.starts_with(&format!(
            "Resuming audit {audit} with its stored configuration:"
        )) && out.stdout.contains(&format!("\nAudit {audit} finished")),
        "{}",
        out.stdout
    );
    let after = site.rt.block_on(Snapshot::load(&store, audit));
    eprintln!(
        "resume: killed after {killed_after:?} with {} done, {} queued, {} fetching; total {:?}",
        st.done,
        st.queued,
        st.fetching,
        started.elapsed()
    );

    // Every row stored before the kill is still there, unchanged where it was final.
    for row in &before.urls {
        let now = after.url(&row.url);
        assert_eq!(
            (now.id, &now.url_rfc3986, now.found_via, now.found_from),
            (row.id, &row.url_rfc3986, row.found_via, row.found_from),
            "{}",
            row.url
        );
        if row.state == UrlState::Done {
            assert_eq!(now.state, UrlState::Done, "{}", row.url);
            assert_eq!(
                after.fetches.get(&row.id),
                before.fetches.get(&row.id),
                "{}: the fetch stored before the kill changed",
                row.url
            );
        }
    }
    assert_eq!(after.robots, before.robots);
    let sitemaps = |s: &Snapshot| -> Vec<(String, u64)> {
        s.sitemaps
            .iter()
            .map(|(r, e)| (r.url.clone(), e.len() as u64))
            .collect()
    };
    assert_eq!(sitemaps(&after), sitemaps(&before));

    // The audit ran to its end.
    assert_eq!(after.audit.status, AuditStatus::Finished);
    let st = &after.summary.states;
    assert_eq!((st.queued, st.fetching, st.failed), (0, 0, 0), "{st:?}");
    assert!(after.audit.elapsed_ms >= before.audit.elapsed_ms);

    // No URL stored `done` before the kill was requested again; the others at most
    // twice (once in flight at the kill, once after).
    let mut requests: HashMap<String, usize> = HashMap::new();
    for r in &site.server.requests() {
        *requests.entry(r.url()).or_default() += 1;
    }
    let mut requests_pre: HashMap<String, usize> = HashMap::new();
    for r in &requests_before {
        *requests_pre.entry(r.url()).or_default() += 1;
    }
    let mut again = Vec::new();
    for row in &after.urls {
        let n = requests.get(&row.url).copied().unwrap_or(0);
        let was = before.get(&row.url).map(|r| r.state);
        if was == Some(UrlState::Done) {
            assert_eq!(n, 1, "{} was stored done and requested {n} times", row.url);
            assert_eq!(requests_pre.get(&row.url), Some(&1), "{}", row.url);
        } else if row.url.ends_with("/sitemap_index.xml") {
            // Read once as a sitemap, and fetched as a page (the footer links it).
            assert!(n <= 3, "{}: {n}", row.url);
        } else {
            assert!(n <= 2, "{} requested {n} times", row.url);
            if n == 2 {
                assert!(
                    matches!(was, Some(UrlState::Fetching | UrlState::Queued)),
                    "{} requested twice, stored {was:?} at the kill",
                    row.url
                );
                assert_eq!(requests_pre.get(&row.url), Some(&1), "{}", row.url);
                again.push(row.url.as_str());
            }
        }
    }
    eprintln!(
        "resume: {} URLs in flight at the kill requested again",
        again.len()
    );
    // Discovery is not repeated: no robots.txt is requested after the kill (the
    // variants' robots.txt redirect to the preferred one, which is thus requested once
    // per origin), the URL sitemap once.
    for (url, n) in &requests {
        if url.ends_with("/robots.txt") {
            assert_eq!(Some(n), requests_pre.get(url), "{url}");
            let most = if url == "https://example.test/robots.txt" {
                4
            } else {
                1
            };
            assert!(*n <= most, "{url}: {n}");
        }
        if url.ends_with("/sitemap-1.xml") {
            assert_eq!(*n, 1, "{url}");
        }
    }

    // The final page count equals the site's: every page once, nothing else on the
    // preferred origin but the home page, its tracking-parameter duplicates and the
    // sitemap index the footer links.
    let mut pages: BTreeMap<usize, u16> = BTreeMap::new();
    let mut others = Vec::new();
    for row in &after.urls {
        let Some(fetch) = after.fetches.get(&row.id) else {
            assert_eq!(row.state, UrlState::Skipped, "{row:?}");
            assert_eq!(
                row.reason.as_ref().map(|r| r.kind),
                Some(store::ReasonKind::OutOfScope),
                "{row:?}"
            );
            continue;
        };
        assert_eq!(row.state, UrlState::Done, "{}", row.url);
        match row
            .url
            .strip_prefix("https://example.test/p/")
            .and_then(|n| n.parse().ok())
        {
            Some(n) => {
                assert!(pages.insert(n, fetch.status.unwrap_or(0)).is_none());
            }
            None => others.push((row.url.as_str(), fetch.status)),
        }
    }
    assert_eq!(pages.len(), PAGES);
    assert_eq!(pages.keys().next_back(), Some(&(PAGES - 1)));
    assert!(pages.values().all(|s| *s == 200));
    let tracking = others
        .iter()
        .filter(|(u, s)| u.contains("?utm_source=related") && *s == Some(200))
        .count();
    assert_eq!(tracking, facts.tracking_variants());
    assert_eq!(
        after.summary.states.done as usize,
        facts.html_urls() + 1 + 3,
        "home, pages and tracking duplicates, the sitemap index, 3 start URL variants"
    );
}

#[test]
fn an_audit_stopped_by_its_duration_budget_continues_where_its_summary_says() {
    let site = Site::start(fixture::generated_site(PAGES, SEED));
    let first = run(&site.audit_args(
        "https://example.test/",
        &["--concurrency", "1", "--rate", "50", "--max-duration", "1s"],
    ));
    assert_eq!(first.code, 0, "{}", first.stderr);
    let id = crate::util::audit_id(&first.stdout);
    let resume = format!("Continue with: dustpan audit --resume {}", id.0);
    assert!(first.stdout.contains(&resume), "{}", first.stdout);
    let store = site.store();
    let before = site.rt.block_on(store.audit_summary(id)).unwrap();
    assert!(before.states.queued > 0, "the budget left nothing queued");

    // The stored configuration holds the --resolve and --ca-cert options.
    let args = [
        "audit".to_owned(),
        "--resume".to_owned(),
        id.0.to_string(),
        "--db".to_owned(),
        path(&site.db),
    ];
    let second = run(&args);
    assert_eq!(second.code, 0, "{}", second.stderr);
    let after = site.rt.block_on(store.audit_summary(id)).unwrap();
    assert!(
        after.audit.pages_fetched > before.audit.pages_fetched,
        "{} then {}",
        before.audit.pages_fetched,
        after.audit.pages_fetched
    );
}
