//! Faceted navigation on loopback: a shop listing whose filter links add a parameter to
//! the current URL (the way many shop templates build them), so every page links to
//! longer URLs, with repeats, without end. The crawl must stop expanding combinations
//! past the facet budget of the listing's path, never fetch a URL that repeats a
//! parameter with its value, record what it skipped and why, and finish.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use crawl::CrawlConfig;
use store::{AuditStatus, ReasonKind, UrlState};
use support::audit::crawl_into;
use support::{Reply, Request, Server};

const COLOURS: [&str; 6] = ["black", "brown", "red", "blue", "green", "white"];
const SIZES: [&str; 4] = ["s", "m", "l", "xl"];

/// The shop: `/shop/` with any query lists the products matching it and links, for each
/// colour and size, the current URL with `&color=…` or `&size=…` appended.
fn shop(r: &Request) -> Reply {
    let (path, query) = r.path.split_once('?').unwrap_or((&r.path, ""));
    match path {
        "/robots.txt" => Reply::bytes("text/plain", b"User-agent: *\n".to_vec()),
        "/" => Reply::html(
            r#"<html><body><a href="/shop/">Shop</a>
            <a href="/shop/?color=red&amp;color=red">Red, named twice on purpose</a></body></html>"#,
        ),
        "/shop/" => {
            let here = if query.is_empty() {
                "/shop/?".to_owned()
            } else {
                format!("/shop/?{query}&")
            };
            let mut links = String::new();
            for c in COLOURS {
                links.push_str(&format!(r#"<a href="{here}color={c}">{c}</a> "#));
            }
            for s in SIZES {
                links.push_str(&format!(r#"<a href="{here}size={s}">{s}</a> "#));
            }
            Reply::html(format!(
                "<html><head><title>Shop {query}</title></head><body><nav>{links}</nav>\
                 <main><p>Products matching {query}</p><a href=\"/p/1\">Boot</a></main></body></html>"
            ))
        }
        "/p/1" => {
            Reply::html("<html><body><p>A boot.</p><a href=\"/shop/\">Shop</a></body></html>")
        }
        _ => Reply::not_found(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filter_combinations_stop_at_the_facet_budget_and_repeats_are_never_fetched() {
    let server = Server::start(|_| shop).await;
    let dir = tempfile::tempdir().unwrap();
    let config = CrawlConfig {
        max_urls: 20_000,
        facet_budget: 50,
        // Counts the filter combinations fetched: URL-variant probes (exempt from the
        // budget, like start URL variants) would add theirs.
        probe_variants: false,
        ..CrawlConfig::for_url(&format!("http://127.0.0.1:{}/", server.port()))
    };
    let (store, summary) = crawl_into(&dir.path().join("audit.sqlite"), &config).await;
    assert_eq!(summary.status, AuditStatus::Finished);

    let urls = store.urls(summary.audit).await.unwrap();
    let combos = |u: &str| {
        u.split_once('?')
            .is_some_and(|(_, q)| q.split('&').count() >= 2)
    };
    let repeats = |u: &str| {
        let q = u.split_once('?').map_or("", |(_, q)| q);
        let pairs: Vec<&str> = q.split('&').collect();
        pairs
            .iter()
            .enumerate()
            .any(|(i, p)| pairs[..i].contains(p))
    };
    let fetched: Vec<&str> = urls
        .iter()
        .filter(|u| u.state == UrlState::Done)
        .map(|u| u.url.as_str())
        .collect();
    // Distinct combinations (the same filters in another order are one) stay within the
    // budget; their orders are URLs of their own, bounded by the combinations.
    let combination = |u: &str| {
        let mut pairs: Vec<&str> = u
            .split_once('?')
            .map_or("", |(_, q)| q)
            .split('&')
            .collect();
        pairs.sort_unstable();
        pairs.join("&")
    };
    let distinct: std::collections::BTreeSet<String> = fetched
        .iter()
        .filter(|u| combos(u))
        .map(|u| combination(u))
        .collect();
    assert!(
        distinct.len() <= 50,
        "{} combinations fetched",
        distinct.len()
    );
    assert!(
        distinct.len() >= 40,
        "the budget is used: {}",
        distinct.len()
    );
    let fetched_combos = fetched.iter().filter(|u| combos(u)).count();
    assert!(
        fetched_combos <= 400,
        "{fetched_combos} URLs of combinations fetched"
    );
    // The one repeat a page without a query names is fetched; none a filter links is.
    let fetched_repeats: Vec<&&str> = fetched.iter().filter(|u| repeats(u)).collect();
    assert_eq!(fetched_repeats.len(), 1, "{fetched_repeats:?}");
    assert!(fetched_repeats[0].ends_with("/shop/?color=red&color=red"));
    // Every single filter is crawled: only combinations are budgeted.
    for c in COLOURS {
        assert!(
            fetched
                .iter()
                .any(|u| u.ends_with(&format!("/shop/?color={c}"))),
            "{c}"
        );
    }
    let facet_skips: Vec<_> = urls
        .iter()
        .filter(|u| {
            u.reason
                .as_ref()
                .is_some_and(|r| r.kind == ReasonKind::TrapFacets)
        })
        .collect();
    assert!(!facet_skips.is_empty());
    assert!(
        facet_skips
            .iter()
            .any(|u| u.reason.as_ref().unwrap().detail.as_deref()
                == Some("over 50 combinations of query parameters on /shop/"))
    );
    assert!(facet_skips.iter().any(|u| {
        u.reason
            .as_ref()
            .unwrap()
            .detail
            .as_deref()
            .is_some_and(|d| d.starts_with("parameter ") && d.ends_with(" repeated in /shop/"))
    }));
    // Bounded: the frontier stopped growing long before the URL limit.
    assert!(urls.len() < 2_000, "{} URLs recorded", urls.len());
    drop(server);
}
