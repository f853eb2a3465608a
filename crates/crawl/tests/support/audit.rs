//! Crawling a test site into a new store, and the fixture site's crawl configuration.

use std::path::Path;

use crawl::{CancellationToken, CrawlConfig, CrawlSummary, Progress};
use fixture::FixtureServer;
use store::Store;
use tokio::sync::watch;

/// Crawls `config` to the end into a new store at `path`; answers the store and the
/// crawl's summary.
pub async fn crawl_into(path: &Path, config: &CrawlConfig) -> (Store, CrawlSummary) {
    let store = Store::open(path).await.unwrap();
    let (progress, _rx) = watch::channel(Progress::default());
    let summary = crawl::start_audit(&store, config, &progress, &CancellationToken::new())
        .await
        .unwrap();
    (store, summary)
}

/// An audit of `server`'s fixture site from `start_urls`: `hosts` resolved to the
/// server, its private CA trusted, short timeouts.
pub fn fixture_config(
    server: &FixtureServer,
    start_urls: Vec<String>,
    hosts: &[&str],
) -> CrawlConfig {
    let port = server.port();
    CrawlConfig {
        start_urls,
        resolve: hosts
            .iter()
            .map(|h| format!("{h}:{port}:127.0.0.1"))
            .collect(),
        extra_root_certs_pem: vec![server.ca_pem().to_owned()],
        read_timeout_ms: 5_000,
        total_timeout_ms: 20_000,
        ..CrawlConfig::default()
    }
}
