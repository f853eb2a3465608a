//! Throughput on a generated loopback site. Ignored by default; run it in release:
//! `cargo test --release -p crawl --test perf -- --ignored --nocapture`
//! (`PERF_PAGES=100000` for the memory check at 100,000 pages).

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::fmt::Write;

use crawl::{CancellationToken, CrawlConfig, Progress};
use store::Store;
use support::{Reply, Request, Server};
use tokio::sync::watch;

/// Page `n` of a `pages`-page site: ~25 KB of HTML and 50 links spread over the site.
fn page(n: u64, pages: u64) -> String {
    let mut body = format!("<!doctype html><html><head><title>Page {n}</title></head><body><nav>");
    for k in 0..50u64 {
        // The next five pages (so every page is reachable) and 45 spread over the site.
        let target = if k < 5 {
            (n + k + 1) % pages
        } else {
            (n * 7 + k * 131 + k * k) % pages
        };
        write!(body, r#"<a href="/p/{target}">link {k} to {target}</a> "#).unwrap();
    }
    body.push_str("</nav><main>");
    for para in 0..90u64 {
        write!(
            body,
            "<p>Paragraph {para} of page {n}: the quick brown fox jumps over the lazy dog while \
             site auditors count duplicate pages, canonical tags and redirect chains; \
             every page says something a little different ({}).</p>",
            n * 31 + para
        )
        .unwrap();
    }
    body.push_str("</main></body></html>");
    body
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "throughput measurement: run in release with --ignored"]
async fn crawl_a_generated_site() {
    let pages: u64 = std::env::var("PERF_PAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let server = Server::start(move |_| {
        move |r: &Request| {
            if r.path == "/robots.txt" || r.host != "example.test" {
                return Reply::not_found();
            }
            let n = if r.path == "/" {
                Some(0)
            } else {
                r.path.strip_prefix("/p/").and_then(|n| n.parse().ok())
            };
            match n {
                Some(n) if n < pages => Reply::html(page(n, pages)),
                _ => Reply::not_found(),
            }
        }
    })
    .await;
    let port = server.port();
    let config = CrawlConfig {
        start_urls: vec![format!("http://example.test:{port}/")],
        resolve: vec![
            format!("example.test:{port}:127.0.0.1"),
            format!("www.example.test:{port}:127.0.0.1"),
        ],
        max_urls: pages + 100,
        trap_pattern_budget: 0,
        ..CrawlConfig::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("perf.sqlite")).await.unwrap();
    let (progress, _rx) = watch::channel(Progress::default());
    let summary = crawl::start_audit(&store, &config, &progress, &CancellationToken::new())
        .await
        .unwrap();
    let db_bytes = std::fs::metadata(dir.path().join("perf.sqlite"))
        .map(|m| m.len())
        .unwrap_or(0);
    println!(
        "pages: {}  elapsed: {:.1?}  pages/s: {:.0}  urls: {}  peak RSS (test process, server included): {} MiB  db: {} MiB",
        summary.fetched,
        summary.elapsed,
        summary.pages_per_sec,
        summary.urls,
        peak_rss_kib() / 1024,
        db_bytes / (1 << 20)
    );
    assert!(summary.fetched >= pages);
}
