//! Response headers are stored with every fetch, redirect hops included, within their
//! bounds: a page of the fixture sends a `Link` and an `X-Robots-Tag` header, a value
//! of 20,000 bytes and 40 more headers.

#![allow(clippy::unwrap_used)]

use std::collections::HashMap;

use crawl::CrawlConfig;
use fixture::{FixtureConfig, FixtureServer};
use store::{AuditStatus, CUT_MARKER, MAX_HEADERS, MAX_HEADERS_BYTES, MAX_VALUE_BYTES};

mod support;
use support::audit::{crawl_into, fixture_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fetch_stores_its_headers_bounded() {
    let server = FixtureServer::start(FixtureConfig::default())
        .await
        .unwrap();
    let base = server.base_url();
    let config = CrawlConfig {
        include_patterns: vec![r"/(hostile/headers|moved/)".into()],
        default_sitemap: false,
        ..fixture_config(
            &server,
            vec![
                format!("{base}hostile/headers"),
                format!("{base}moved/old-page"),
            ],
            &["example.test", "www.example.test"],
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let (store, summary) = crawl_into(&dir.path().join("headers.sqlite"), &config).await;
    assert_eq!(summary.status, AuditStatus::Finished);
    let urls: HashMap<String, store::UrlRow> = store
        .urls(summary.audit)
        .await
        .unwrap()
        .into_iter()
        .map(|u| (u.url.clone(), u))
        .collect();
    let headers_of = async |url: &str| {
        store
            .response_headers(summary.audit, urls[url].id)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("no headers stored for {url}"))
    };

    let page = headers_of("https://example.test/hostile/headers").await;
    let pairs: HashMap<&str, &str> = page.pairs().into_iter().collect();
    assert_eq!(
        pairs["link"],
        "<https://example.test/hostile/headers>; rel=\"canonical\""
    );
    assert_eq!(pairs["x-robots-tag"], "noindex, nofollow");
    assert_eq!(pairs["content-type"], "text/html; charset=utf-8");
    assert_eq!(
        pairs["x-markup"], "<img src=x onerror=alert(1)><script>alert(2)</script>",
        "stored as sent: escaping is the reader's"
    );
    let oversized = pairs["x-oversized"];
    assert!(oversized.starts_with(&"o".repeat(MAX_VALUE_BYTES)));
    assert!(
        oversized.ends_with(&format!("{CUT_MARKER}20000]")),
        "{oversized}"
    );
    // 45 headers and more sent: the count cap holds, and what is left is counted.
    assert_eq!(page.pairs().len(), MAX_HEADERS);
    assert!(page.omitted >= 13, "{}", page.omitted);
    assert!(page.text.len() <= MAX_HEADERS_BYTES);
    assert!(page.pairs().iter().all(|(n, _)| *n == n.to_lowercase()));

    // A redirect hop's headers: its Location among them.
    let hop = headers_of("https://example.test/moved/old-page").await;
    let location = hop
        .pairs()
        .into_iter()
        .find(|(n, _)| *n == "location")
        .map(|(_, v)| v.to_owned());
    assert!(
        location
            .as_deref()
            .is_some_and(|l| l.ends_with("/moved/new-page")),
        "{hop:?}"
    );
    // And the page it leads to.
    headers_of("https://example.test/moved/new-page").await;
}
