//! A crawl of the shared fixture site (HTTP and TLS on one loopback port, private CA).

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::collections::HashMap;

use crawl::{CancellationToken, CrawlConfig, Progress};
use fixture::{FixtureConfig, FixtureServer};
use store::{AuditStatus, Store, UrlState};
use tokio::sync::watch;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fixture_site_is_crawled_over_tls_once_per_url() {
    let server = FixtureServer::start(FixtureConfig::default())
        .await
        .unwrap();
    let port = server.port();
    let config = CrawlConfig {
        start_urls: vec![server.base_url()],
        resolve: ["example.test", "www.example.test", "blog.example.test"]
            .iter()
            .map(|h| format!("{h}:{port}:127.0.0.1"))
            .collect(),
        extra_root_certs_pem: vec![server.ca_pem().to_owned()],
        read_timeout_ms: 5_000,
        total_timeout_ms: 20_000,
        max_response_bytes: 4 << 20,
        ..CrawlConfig::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("fixture.sqlite"))
        .await
        .unwrap();
    let (progress, _rx) = watch::channel(Progress::default());
    let summary = crawl::start_audit(&store, &config, &progress, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(summary.status, AuditStatus::Finished);

    // Every URL requested at most once (robots.txt aside: a www origin's robots.txt may
    // redirect to the bare host's).
    let mut counts: HashMap<String, usize> = HashMap::new();
    for r in server.requests() {
        if !r.target.starts_with("/robots.txt") {
            *counts.entry(r.url()).or_default() += 1;
        }
    }
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "requested twice: {twice:?}");

    let urls: HashMap<String, store::UrlRow> = store
        .urls(summary.audit)
        .await
        .unwrap()
        .into_iter()
        .map(|u| (u.url.clone(), u))
        .collect();
    let home = &urls["https://example.test/"];
    assert_eq!(home.state, UrlState::Done);
    let fetch = store.fetch(summary.audit, home.id).await.unwrap().unwrap();
    assert_eq!(
        fetch.status,
        Some(200),
        "TLS with the fixture's private CA works"
    );
    assert!(urls.values().filter(|u| u.state == UrlState::Done).count() > 30);
    let blocked = urls
        .values()
        .filter(|u| u.state == UrlState::Blocked)
        .count();
    assert!(blocked > 0, "the fixture's robots.txt blocks something");
    let s = store.audit_summary(summary.audit).await.unwrap();
    assert!(
        s.redirects > 0 && s.canonicals > 0 && s.sitemaps > 0,
        "{s:?}"
    );
    assert_eq!(s.states.queued + s.states.fetching, 0);
}
