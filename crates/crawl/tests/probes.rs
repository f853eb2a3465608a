//! URL-variant probes on a loopback site (127.0.0.1:0 only): every rule is requested for
//! the sample, no URL twice, a probe's links are recorded but not followed, probes can
//! be turned off, and a resumed audit does not probe twice.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use crawl::probe::{ProbeRule, SESSION_PARAM};
use crawl::{CancellationToken, CrawlConfig, Progress};
use store::{AuditStatus, ProbePhase, ProbeRecord, ReasonKind, Store, UrlRow, UrlState};
use support::{Reply, Request, Server};
use tokio::sync::{Notify, watch};

/// A page whose relative links stay in its directory.
fn page(title: &str, links: &[&str]) -> Reply {
    let links: String = links
        .iter()
        .map(|l| format!(r#"<a href="{l}">{l}</a> "#))
        .collect();
    Reply::html(format!(
        "<html><head><title>{title}</title></head><body><main><h1>{title}</h1>\
         <p>{title} is a page of the probe site with enough words to be a real page of \
         its own, written for the tests of URL variants.</p>{links}</main></body></html>"
    ))
}

/// The site: `/shop/` is case-insensitive and merges doubled slashes; a trailing slash
/// and `index.html` redirect with a 301, `index.php` is missing; `/blog/` redirects
/// upper-case paths with a 302; every page ignores its query; `www.` and the IP address
/// redirect to the site's host. The URL a probe's relative link would open
/// (`/SHOP/blue`) answers like the rest, so that requesting it would show.
fn site(port: u16, slow: Option<Arc<Notify>>) -> impl Fn(&Request) -> Reply + Send + Sync {
    let origin = format!("http://site.test:{port}");
    move |r: &Request| {
        if r.host == "www.site.test" || r.host == "127.0.0.1" {
            return Reply::status(301, &[("Location", &format!("{origin}{}", r.path))]);
        }
        let (path, query) = r.path.split_once('?').unwrap_or((&r.path, ""));
        if let Some(notify) = &slow
            && query.contains("dustpan_probe")
        {
            notify.notify_one();
            return Reply::Drip {
                body: b"<html><head><title>Slow</title></head><body>slow</body></html>".to_vec(),
                steps: 3,
                interval: Duration::from_millis(100),
            };
        }
        let merged = path.replace("//", "/");
        let lower = merged.to_ascii_lowercase();
        if lower.starts_with("/blog/") && path != lower {
            return Reply::status(302, &[("Location", &format!("{origin}{lower}"))]);
        }
        let shop = lower.starts_with("/shop/");
        if path.contains("//") && !shop {
            return Reply::not_found();
        }
        let key = if shop { lower.as_str() } else { path };
        match key {
            "/robots.txt" => Reply::bytes("text/plain", b"User-agent: *\nDisallow:\n".to_vec()),
            "/" => page(
                "Home",
                &[
                    "/shop/",
                    "/shop/red",
                    "/blog/first",
                    "/about",
                    "/about?utm_source=dustpan",
                ],
            ),
            "/shop/" => page("Shop", &["red", "blue"]),
            "/shop/red" => page("Red shoe", &["blue", "/shop/"]),
            "/shop/blue" => page("Blue shoe", &["red"]),
            "/shop/index.html" => Reply::status(301, &[("Location", &format!("{origin}/shop/"))]),
            "/blog/first" => page("First post", &["second"]),
            "/blog/second" => page("Second post", &["first"]),
            "/about" => page("About", &["/"]),
            p if p.ends_with('/') && p.len() > 1 => Reply::status(
                301,
                &[("Location", &format!("{origin}{}", &p[..p.len() - 1]))],
            ),
            _ => Reply::not_found(),
        }
    }
}

fn config(server: &Server) -> CrawlConfig {
    let port = server.port();
    CrawlConfig {
        start_urls: vec![format!("http://site.test:{port}/")],
        resolve: vec![
            format!("site.test:{port}:127.0.0.1"),
            format!("www.site.test:{port}:127.0.0.1"),
        ],
        // The IP address's origin is in scope, so `ip_host` is probed.
        extra_hosts: vec![format!("127.0.0.1:{port}")],
        connect_timeout_ms: 1_000,
        read_timeout_ms: 1_000,
        total_timeout_ms: 3_000,
        default_sitemap: false,
        ..CrawlConfig::default()
    }
}

async fn open() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("audit.sqlite")).await.unwrap();
    (dir, store)
}

/// Requests per host and target (robots.txt left out: one per origin).
fn requests(server: &Server) -> HashMap<(String, String), usize> {
    let mut seen = HashMap::new();
    for r in server.log().into_iter().filter(|r| r.path != "/robots.txt") {
        *seen.entry((r.host, r.path)).or_default() += 1;
    }
    seen
}

fn assert_each_requested_once(server: &Server) {
    let twice: Vec<_> = requests(server)
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .collect();
    assert!(twice.is_empty(), "requested more than once: {twice:?}");
}

fn requested(server: &Server, host: &str, target: &str) -> bool {
    server.count(host, target) > 0
}

async fn rows(store: &Store, audit: store::AuditId) -> BTreeMap<i64, UrlRow> {
    store
        .urls(audit)
        .await
        .unwrap()
        .into_iter()
        .map(|u| (u.id, u))
        .collect()
}

/// The probes as (rule, variant URL, page URL).
async fn probes(store: &Store, audit: store::AuditId) -> BTreeSet<(ProbeRule, String, String)> {
    let urls = rows(store, audit).await;
    store
        .probes(audit)
        .await
        .unwrap()
        .into_iter()
        .map(
            |ProbeRecord {
                 url_id,
                 base_url_id,
                 rule,
             }| {
                (
                    rule,
                    urls[&url_id].url.clone(),
                    urls[&base_url_id].url.clone(),
                )
            },
        )
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rule_is_probed_once_per_variant_and_probe_links_are_not_followed() {
    let server = Server::start(|port| site(port, None)).await;
    let port = server.port();
    let (_dir, store) = open().await;
    let (progress, _rx) = watch::channel(Progress::default());
    let summary = crawl::start_audit(
        &store,
        &config(&server),
        &progress,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(summary.status, AuditStatus::Finished, "{summary:?}");
    assert_eq!(
        store.probe_phase(summary.audit).await.unwrap(),
        ProbePhase::Done
    );

    let probes = probes(&store, summary.audit).await;
    let rules: BTreeSet<ProbeRule> = probes.iter().map(|p| p.0).collect();
    assert_eq!(
        rules,
        ProbeRule::ALL.iter().copied().collect(),
        "every rule probed: {probes:#?}"
    );
    let o = format!("http://site.test:{port}");
    let has = |rule, variant: &str, base: &str| {
        probes.contains(&(rule, variant.to_owned(), base.to_owned()))
    };
    let red = format!("{o}/shop/red");
    assert!(
        has(ProbeRule::PathCase, &format!("{o}/SHOP/RED"), &red),
        "{probes:#?}"
    );
    assert!(has(ProbeRule::DoubleSlash, &format!("{o}/shop//red"), &red));
    assert!(has(
        ProbeRule::TrailingSlash,
        &format!("{o}/shop/red/"),
        &red
    ));
    assert!(has(
        ProbeRule::IndexFile,
        &format!("{o}/shop/index.html"),
        &format!("{o}/shop/")
    ));
    assert!(has(
        ProbeRule::IndexFile,
        &format!("{o}/shop/index.php"),
        &format!("{o}/shop/")
    ));
    assert!(has(
        ProbeRule::HostWww,
        &format!("http://www.site.test:{port}/shop/red"),
        &red
    ));
    assert!(has(
        ProbeRule::Scheme,
        &format!("https://site.test:{port}/shop/red"),
        &red
    ));
    assert!(has(
        ProbeRule::IpHost,
        &format!("http://127.0.0.1:{port}/shop/red"),
        &red
    ));
    assert!(has(ProbeRule::EmptyQuery, &format!("{o}/shop/red?"), &red));
    assert!(has(
        ProbeRule::UnknownParam,
        &format!("{o}/shop/red?dustpan_probe=1"),
        &red
    ));
    assert!(has(
        ProbeRule::SessionParam,
        &format!("{o}/shop/red?{SESSION_PARAM}"),
        &red
    ));

    // Requested as written, each once (the https variant is refused by the server's
    // plain HTTP: a fetch error, stored).
    for (host, target) in [
        ("site.test", "/SHOP/RED"),
        ("site.test", "/shop//red"),
        ("site.test", "/shop/red/"),
        ("site.test", "/shop/index.html"),
        ("site.test", "/shop/index.php"),
        ("www.site.test", "/shop/red"),
        ("127.0.0.1", "/shop/red"),
        ("site.test", "/shop/red?"),
        ("site.test", "/shop/red?dustpan_probe=1"),
    ] {
        assert!(
            requested(&server, host, target),
            "{host}{target} not requested"
        );
    }
    assert_each_requested_once(&server);

    // The tracking variant of /about was linked: recorded against that URL, fetched
    // once in the crawl, not again.
    let about = format!("{o}/about");
    assert!(has(
        ProbeRule::TrackingParam,
        &format!("{about}?utm_source=dustpan"),
        &about
    ));
    assert_eq!(server.count("site.test", "/about?utm_source=dustpan"), 1);

    // The upper-case page's relative links are recorded, not followed.
    let urls = rows(&store, summary.audit).await;
    let by_url: HashMap<&str, &UrlRow> = urls.values().map(|u| (u.url.as_str(), u)).collect();
    let upper_blue = by_url[format!("{o}/SHOP/blue").as_str()];
    assert_eq!(upper_blue.state, UrlState::Skipped, "{upper_blue:?}");
    assert_eq!(
        upper_blue.reason.as_ref().map(|r| r.kind),
        Some(ReasonKind::NotFollowed)
    );
    assert!(!requested(&server, "site.test", "/SHOP/blue"));
    assert!(!requested(&server, "site.test", "/SHOP/red"));
    // The 302 of an upper-case blog URL is followed to the known page only.
    assert!(requested(&server, "site.test", "/BLOG/FIRST"));
    // Probes are admitted one hop below their page, as variants.
    let upper = by_url[format!("{o}/SHOP/RED").as_str()];
    assert_eq!(upper.found_via, store::FoundVia::Variant);
    assert_eq!(upper.depth, by_url[red.as_str()].depth + 1);
    // The start URL's own scheme and www variants stay at depth 0 and are followed.
    assert_eq!(
        by_url[format!("http://www.site.test:{port}/").as_str()].depth,
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_probes_when_turned_off_or_for_an_audit_stored_before_probes() {
    let server = Server::start(|port| site(port, None)).await;
    let (_dir, store) = open().await;
    let (progress, _rx) = watch::channel(Progress::default());
    let off = CrawlConfig {
        probe_variants: false,
        ..config(&server)
    };
    let summary = crawl::start_audit(&store, &off, &progress, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(summary.status, AuditStatus::Finished);
    assert!(store.probes(summary.audit).await.unwrap().is_empty());
    assert!(!requested(&server, "site.test", "/SHOP/RED"));
    assert!(!requested(&server, "site.test", "/shop//red"));
    let crawled = server.log().len();

    // An audit whose row predates probes (`none`) does not probe when it runs on.
    let on = config(&server);
    let audit = crawl::create_audit(&store, &on).await.unwrap();
    store
        .set_probe_phase(audit, ProbePhase::Never)
        .await
        .unwrap();
    let summary = crawl::run(&store, audit, &on, &progress, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(summary.status, AuditStatus::Finished);
    assert!(store.probes(audit).await.unwrap().is_empty());
    assert!(!requested(&server, "site.test", "/SHOP/RED"));
    assert_eq!(store.probe_phase(audit).await.unwrap(), ProbePhase::Never);
    assert!(server.log().len() > crawled);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_audit_finishes_its_probes_without_probing_twice() {
    let notify = Arc::new(Notify::new());
    let slow = Arc::clone(&notify);
    let server = Server::start(move |port| site(port, Some(slow))).await;
    let (_dir, store) = open().await;
    let (progress, _rx) = watch::channel(Progress::default());
    let config = CrawlConfig {
        concurrency: 2,
        ..config(&server)
    };
    let audit = crawl::create_audit(&store, &config).await.unwrap();
    let cancel = CancellationToken::new();
    let run = {
        let (store, config, progress, cancel) = (
            store.clone(),
            config.clone(),
            progress.clone(),
            cancel.clone(),
        );
        tokio::spawn(async move { crawl::run(&store, audit, &config, &progress, &cancel).await })
    };
    // Cancelled while the probes are being fetched.
    tokio::time::timeout(Duration::from_secs(30), notify.notified())
        .await
        .expect("a probe was requested");
    cancel.cancel();
    let first = run.await.unwrap().unwrap();
    assert_eq!(first.status, AuditStatus::Cancelled);
    assert_eq!(store.probe_phase(audit).await.unwrap(), ProbePhase::Pending);
    let planned = probes(&store, audit).await;
    assert!(!planned.is_empty());

    let second = crawl::resume_audit(&store, audit, &progress, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(second.status, AuditStatus::Finished, "{second:?}");
    assert_eq!(store.probe_phase(audit).await.unwrap(), ProbePhase::Done);
    assert_eq!(
        probes(&store, audit).await,
        planned,
        "the same probes, once"
    );
    assert_each_requested_once(&server);
    assert!(!requested(&server, "site.test", "/SHOP/blue"));
    let urls = rows(&store, audit).await;
    assert!(
        urls.values()
            .all(|u| !matches!(u.state, UrlState::Queued | UrlState::Fetching)),
        "everything fetched"
    );
    // A finished audit is not resumed (so never probed again).
    assert!(
        crawl::resume_audit(&store, audit, &progress, &CancellationToken::new())
            .await
            .is_err()
    );
}
