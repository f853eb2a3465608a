//! Fetching a few URLs outside the frontier: the samples that test a learned DUST rule
//! after a crawl. Each request obeys the audit's scope and address policy, robots.txt (the rules stored by
//! the crawl are reused), per-host rate, timeouts and body limit, and is not followed
//! if it redirects.

use std::sync::Arc;
use std::time::Duration;

use store::{AuditId, Store};
use tokio::task::JoinSet;
use url::Url;

use crate::address::AddressPolicy;
use crate::robots::{HostGate, RobotsCache};
use crate::scope::{Guard, Route, Scope};
use crate::{CrawlConfig, CrawlError, fetch};

/// What one sample request got (at most 5,000 links kept).
pub type SampleFetch = store::FetchFingerprint;

/// Most links kept of a sample page.
const MAX_SAMPLE_LINKS: usize = 5_000;

struct Shared {
    config: CrawlConfig,
    client: fetch::Http,
    guard: Guard,
    robots: RobotsCache,
    gate: HostGate,
}

/// Fetches `urls` for `audit` with its crawl configuration, at most
/// `config.concurrency` at once. The answers come back in the order of `urls`.
pub async fn fetch_samples(
    store: &Store,
    audit: AuditId,
    config: &CrawlConfig,
    urls: &[String],
) -> Result<Vec<SampleFetch>, CrawlError> {
    fetch_urls_with(config, store.robots(audit).await?, urls).await
}

/// [`fetch_samples`] outside any audit: robots.txt is fetched as the requests need it.
/// What `dustpan learn` validates its candidate rules with.
pub async fn fetch_urls(
    config: &CrawlConfig,
    urls: &[String],
) -> Result<Vec<SampleFetch>, CrawlError> {
    fetch_urls_with(config, Vec::new(), urls).await
}

async fn fetch_urls_with(
    config: &CrawlConfig,
    stored_robots: Vec<store::RobotsRecord>,
    urls: &[String],
) -> Result<Vec<SampleFetch>, CrawlError> {
    let agent = config.robots_agent().to_owned();
    let robots = RobotsCache::new(&agent, Duration::from_millis(config.max_crawl_delay_ms));
    for record in stored_robots {
        robots.preload(record);
    }
    let scope = Scope::new(config)?;
    let policy = Arc::new(AddressPolicy::new(config).await?);
    let shared = Arc::new(Shared {
        client: fetch::client(config, &policy)?,
        guard: Guard::new(scope, policy),
        robots,
        gate: HostGate::new(config.requests_per_second),
        config: config.clone(),
    });
    let mut out: Vec<Option<SampleFetch>> = vec![None; urls.len()];
    let mut tasks: JoinSet<(usize, SampleFetch)> = JoinSet::new();
    let mut next = 0;
    loop {
        while next < urls.len() && tasks.len() < config.concurrency.max(1) {
            let shared = Arc::clone(&shared);
            let url = urls[next].clone();
            let at = next;
            tasks.spawn(async move { (at, one(&shared, url).await) });
            next += 1;
        }
        match tasks.join_next().await {
            Some(Ok((at, fetched))) => out[at] = Some(fetched),
            Some(Err(_)) => {}
            None => break,
        }
    }
    Ok(out
        .into_iter()
        .zip(urls)
        .map(|(f, url)| {
            f.unwrap_or_else(|| SampleFetch {
                url: url.clone(),
                fetched_at: store::now_ms(),
                error_kind: Some(store::FetchErrorKind::Panic.as_str().into()),
                ..SampleFetch::default()
            })
        })
        .collect())
}

async fn one(shared: &Shared, raw: String) -> SampleFetch {
    let mut out = SampleFetch {
        url: raw,
        fetched_at: store::now_ms(),
        ..SampleFetch::default()
    };
    let url = match Url::parse(&out.url) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => url,
        _ => {
            out.error_kind = Some(store::FetchErrorKind::InvalidUrl.as_str().into());
            return out;
        }
    };
    if let Err(refusal) = shared.guard.admit(&url, Route::Crawl) {
        out.error_kind = Some(refusal.reason().into());
        return out;
    }
    let mut crawl_delay = None;
    if shared.config.obey_robots {
        let (rules, _) = shared
            .robots
            .rules(&shared.client, &shared.guard, &url)
            .await;
        if !rules.allows(&url) {
            out.error_kind = Some(store::FetchErrorKind::RobotsTxt.as_str().into());
            return out;
        }
        crawl_delay = rules.crawl_delay;
    }
    shared
        .gate
        .wait(url.host_str().unwrap_or(""), crawl_delay)
        .await;
    out.fetched_at = store::now_ms();
    let result = fetch::get(
        &shared.client,
        &url,
        shared.config.max_response_bytes,
        |status, _| status.is_success(),
    )
    .await;
    match result {
        Ok(response) => {
            out.status = Some(response.status.as_u16());
            if response.status.is_redirection() {
                out.location = response
                    .location()
                    .ok()
                    .flatten()
                    .and_then(|l| url.join(l.trim()).ok())
                    .map(String::from);
            }
            if response.status.is_success()
                && fetch::is_html(response.header("content-type"), &response.body)
            {
                let content_type = response.header("content-type").map(str::to_owned);
                let body = response.body;
                let page = tokio::task::spawn_blocking(move || {
                    extract::extract(&body, content_type.as_deref())
                })
                .await;
                if let Ok(page) = page {
                    out.text_hash = Some(page.text_hash);
                    out.simhash = Some(page.simhash);
                    let base = canon::document_base(&url, page.base_href.as_deref());
                    out.location = page
                        .meta_refresh
                        .iter()
                        .filter_map(|m| m.refresh.as_ref()?.url.as_deref())
                        .find_map(|to| base.join(to).ok())
                        .map(String::from);
                    out.canonical = page
                        .canonicals
                        .iter()
                        .find(|c| c.in_head)
                        .and_then(|c| base.join(&c.href).ok())
                        .map(String::from);
                    out.links = page
                        .links
                        .iter()
                        .filter_map(|l| base.join(&l.href).ok())
                        .filter(|u| matches!(u.scheme(), "http" | "https"))
                        .map(String::from)
                        .take(MAX_SAMPLE_LINKS)
                        .collect();
                }
            }
        }
        Err(failure) => {
            out.status = failure.partial.map(|p| p.status.as_u16());
            out.error_kind = Some(failure.kind.to_owned());
        }
    }
    out
}
