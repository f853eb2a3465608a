//! DUST learned during the crawl, on loopback: a catalogue whose every product link
//! comes twice, once as `/p/N` and once as `/p/N?view=full`, a parameter that never
//! changes the page. Once the pages fetched show it, the crawl skips the `?view=full`
//! URLs (fetching one in ten to check), saving at least a fifth of the fetches; where
//! the rule stops holding, the checked sample catches it and the rule is dropped.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use crawl::{CancellationToken, CrawlConfig, Progress};
use store::{AuditStatus, ReasonKind, Store, UrlState};
use support::{Reply, Request, Server};
use tokio::sync::watch;

/// Products.
const PRODUCTS: usize = 600;

/// The catalogue: `/` links the first products; product N links the next three, each
/// twice. With `broken_from`, `?view=full` shows another page from that product on.
fn catalogue(broken_from: usize) -> impl Fn(&Request) -> Reply + Clone {
    move |r: &Request| {
        let (path, query) = r.path.split_once('?').unwrap_or((&r.path, ""));
        let links = |from: usize| {
            let mut s = String::new();
            for k in from..(from + 3).min(PRODUCTS) {
                s.push_str(&format!(
                    r#"<a href="/p/{k}">Product {k}</a> <a href="/p/{k}?view=full">details</a> "#
                ));
            }
            s
        };
        if path == "/" {
            return Reply::html(format!(
                "<html><body><main>{}</main></body></html>",
                links(0)
            ));
        }
        let Some(k) = path
            .strip_prefix("/p/")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&k| k < PRODUCTS)
        else {
            return Reply::not_found();
        };
        let shown = if query == "view=full" && k >= broken_from {
            k + 100_000
        } else {
            k
        };
        Reply::html(format!(
            "<html><head><title>Product {shown}</title></head><body><main><h1>Product {shown}</h1>\
             <p>Product number {shown} is a sturdy item made by hand of fine materials number \
             {shown}, shipped in a box labelled {shown}, sold with a guarantee {shown}.</p>{}\
             </main></body></html>",
            links(3 * k + 1)
        ))
    }
}

async fn crawl(server: &Server, learn: bool) -> (Store, tempfile::TempDir, crawl::CrawlSummary) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("audit.sqlite")).await.unwrap();
    let config = CrawlConfig {
        learn_dust: learn,
        probe_variants: false,
        ..CrawlConfig::for_url(&format!("http://127.0.0.1:{}/", server.port()))
    };
    let (progress, _rx) = watch::channel(Progress::default());
    let summary = crawl::start_audit(&store, &config, &progress, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(summary.status, AuditStatus::Finished);
    (store, dir, summary)
}

fn requests(server: &Server) -> usize {
    server
        .log()
        .iter()
        .filter(|r| r.path.starts_with("/p/"))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parameter_that_never_changes_the_page_saves_a_fifth_of_the_fetches() {
    let plain = Server::start(|_| catalogue(usize::MAX)).await;
    let (_s, _d, without) = crawl(&plain, false).await;
    let fetched_without = requests(&plain);
    assert_eq!(fetched_without, 2 * PRODUCTS);
    assert!(without.dust.is_none());

    let server = Server::start(|_| catalogue(usize::MAX)).await;
    let (store, _dir, summary) = crawl(&server, true).await;
    let fetched = requests(&server);
    let saved = fetched_without - fetched;
    eprintln!("{fetched} of {fetched_without} product fetches made; {saved} saved");
    assert!(
        saved * 5 >= fetched_without,
        "{saved} of {fetched_without} fetches saved"
    );
    let dust = summary.dust.unwrap();
    assert!(
        dust.rules >= 1 && (dust.dropped, dust.wrong) == (0, 0),
        "{dust:?}"
    );
    assert!(dust.verified > 0, "{dust:?}");
    // Every URL skipped is recorded as a predicted duplicate, and is a `?view=full` URL.
    let urls = store.urls(summary.audit).await.unwrap();
    let skipped: Vec<&store::UrlRow> = urls
        .iter()
        .filter(|u| u.state == UrlState::Skipped)
        .collect();
    assert_eq!(skipped.len(), saved);
    assert!(skipped.iter().all(|u| u.url.ends_with("?view=full")
        && u.reason.as_ref().map(|r| r.kind) == Some(ReasonKind::DustDuplicate)));
    // The rule is kept with the audit, for a resume and for the analysis.
    let config = crawl::audit_config(&store, summary.audit).await.unwrap();
    let rules = config.learned_during_crawl.unwrap();
    assert!(
        rules.confirmed().any(|r| r.id == "drop_param:view"),
        "{rules:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_that_stops_holding_is_dropped_by_its_check() {
    // From product 300 on, `?view=full` is another page.
    let server = Server::start(|_| catalogue(300)).await;
    let (store, _dir, summary) = crawl(&server, true).await;
    let dust = summary.dust.unwrap();
    assert!(dust.rules >= 1 && dust.dropped == dust.rules, "{dust:?}");
    assert!(dust.wrong >= 1, "{dust:?}");
    // After the drop, every `?view=full` URL is fetched again.
    let urls = store.urls(summary.audit).await.unwrap();
    let last_skipped = urls
        .iter()
        .filter(|u| u.state == UrlState::Skipped)
        .map(|u| u.id)
        .max()
        .unwrap_or_default();
    let later_fetched = urls
        .iter()
        .filter(|u| u.id > last_skipped && u.url.ends_with("?view=full"))
        .all(|u| u.state == UrlState::Done);
    assert!(later_fetched);
    let config = crawl::audit_config(&store, summary.audit).await.unwrap();
    let rules = config.learned_during_crawl.unwrap();
    assert!(rules.confirmed().next().is_none(), "{rules:?}");
    assert!(
        rules
            .rules
            .iter()
            .any(|r| r.id == "drop_param:view" && r.status == rules::RuleStatus::Rejected)
    );
}
