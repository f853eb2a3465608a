//! A crawl of the shared fixture site (HTTP and TLS on one loopback port, private CA).

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::collections::HashMap;

use crawl::CrawlConfig;
use fixture::{FixtureConfig, FixtureServer};
use store::{AuditStatus, UrlState};

mod support;
use support::audit::{crawl_into, fixture_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fixture_site_is_crawled_over_tls_once_per_url() {
    let server = FixtureServer::start(FixtureConfig::default())
        .await
        .unwrap();
    let config = CrawlConfig {
        max_response_bytes: 4 << 20,
        ..fixture_config(
            &server,
            vec![server.base_url()],
            &["example.test", "www.example.test", "blog.example.test"],
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let (store, summary) = crawl_into(&dir.path().join("fixture.sqlite"), &config).await;
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
