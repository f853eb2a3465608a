//! Dustpan's crawler: discovers a site through robots.txt, its sitemaps and the scheme /
//! `www.` variants of the start URLs, then fetches every distinct URL once, following
//! redirects hop by hop, and stores everything through the [`store`] crate.
//!
//! * The frontier is the store's `urls` table (state `queued`, by depth then id), so an
//!   audit killed at any point resumes with [`resume_audit`]: nothing committed is lost
//!   and no `done` URL is fetched again.
//! * Every distinct URL is fetched once: URLs are identified by their `rfc3986` form
//!   (`canon::Policy::rfc3986()`), so SEO variants (trailing slash, case, parameters,
//!   index pages) are fetched and stored with their raw, `rfc3986` and `seo` forms.
//! * Limits ([`CrawlConfig`]) bound what is fetched; whatever is not fetched is recorded
//!   with the reason (out of scope, depth, URL length, parameters, trap, robots.txt).
//! * Sites are hostile: every request (pages, redirects, robots.txt, sitemaps, DUST
//!   samples) passes one admission check against the audit's scope, a set of origins
//!   (scheme, host, port), and every connection an address policy that keeps loopback,
//!   private, link-local and cloud metadata addresses for the audit's own origins. What
//!   they refuse is recorded with the reason (`out_of_scope`, `address_refused`) and
//!   counted in the [`CrawlSummary`].
//! * Progress goes to a `tokio::sync::watch` channel; a [`CancellationToken`] stops the
//!   crawl (the audit is then `cancelled` and can be resumed).
//!
//! ```no_run
//! # async fn demo() -> Result<(), crawl::CrawlError> {
//! let store = store::Store::open(std::path::Path::new("audits.sqlite")).await?;
//! let config = crawl::CrawlConfig::for_url("https://example.com/");
//! let (progress, _watch) = tokio::sync::watch::channel(crawl::Progress::default());
//! let cancel = crawl::CancellationToken::new();
//! let summary = crawl::start_audit(&store, &config, &progress, &cancel).await?;
//! println!("audit {}: {} pages", summary.audit, summary.fetched);
//! # Ok(())
//! # }
//! ```

mod address;
mod budget;
mod config;
mod fetch;
mod frontier;
mod online;
mod own_hosts;
mod page;
pub mod probe;
mod redirects;
mod render;
mod robots;
mod run;
pub mod same_page;
mod sample;
mod scope;
mod sitemaps;

use std::time::Duration;

use serde::Serialize;
use store::{AuditId, AuditStatus, Store, StoreError};
use tokio::sync::watch;

pub use config::{
    AuditPolicy, BotCheckSummary, CrawlConfig, ListInput, ListMode, ListedUrl, MAX_START_ADDRESSES,
    RejectedLine, default_user_agent, parse_resolve, start_url,
};
pub use online::OnlineCounts;
pub use own_hosts::OwnHosts;
pub use render::RenderConfig;
pub use sample::{SampleFetch, fetch_samples, fetch_urls};
pub use tokio_util::sync::CancellationToken;

/// Everything that stops an audit from running. A page that fails to load, a bad
/// sitemap or a broken robots.txt is not an error: it is recorded in the store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CrawlError {
    /// The configuration cannot be used.
    #[error("invalid crawl configuration: {0}")]
    Config(String),
    /// The store failed (the audit is marked `failed` if the store still works).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The audit's stored configuration cannot be read back.
    #[error("audit {audit}: stored configuration is unreadable: {detail}")]
    StoredConfig {
        /// The audit.
        audit: AuditId,
        /// What is wrong.
        detail: String,
    },
    /// The audit already finished; there is nothing to resume.
    #[error("audit {0} already finished")]
    AlreadyFinished(AuditId),
    /// A host of the audit (a start URL's, a list's `--site`) resolves to a non-public
    /// address that the user has not allowed: for a new audit, any (without
    /// [`CrawlConfig::allow_internal`]); for a resume or an audit started like another,
    /// one that its earlier runs did not use ([`CrawlConfig::start_addresses`]).
    #[error("{}", CrawlError::internal_address_message(host, *address, known, &format!("give --allow-internal (or --resolve {host}:PORT:{address})")))]
    InternalAddress {
        /// The host name.
        host: String,
        /// The non-public address it resolves to now.
        address: std::net::IpAddr,
        /// What it resolved to in the audit's earlier runs (empty for a new audit).
        known: Vec<std::net::IpAddr>,
    },
}

impl CrawlError {
    /// The message of [`CrawlError::InternalAddress`], with `how` (what the user gives
    /// to audit the host there on purpose: a flag on the command line, a box to tick
    /// in the app) after "to audit it there on purpose,".
    pub fn internal_address_message(
        host: &str,
        address: std::net::IpAddr,
        known: &[std::net::IpAddr],
        how: &str,
    ) -> String {
        internal_address_message(host, address, known, how)
    }
}

fn internal_address_message(
    host: &str,
    address: std::net::IpAddr,
    known: &[std::net::IpAddr],
    how: &str,
) -> String {
    let how = format!("to audit it there on purpose, {how}");
    if known.is_empty() {
        format!(
            "{host} resolves to {address}, which is not a public address (loopback, private, link-local or a cloud metadata service): not audited without an opt-in; {how}"
        )
    } else {
        let before: Vec<String> = known.iter().map(ToString::to_string).collect();
        format!(
            "{host} now resolves to {address}, which is not a public address and not one the audit used before ({}): not crawled; {how}",
            before.join(", ")
        )
    }
}

/// What the crawl is doing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Not started.
    #[default]
    Starting,
    /// Start URLs, robots.txt and sitemaps.
    Discovery,
    /// Fetching the frontier.
    Crawling,
    /// Walking redirect chains and closing the audit.
    Finishing,
    /// Over.
    Done,
}

/// A snapshot of a running crawl, sent through a `watch` channel after every page.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Progress {
    /// The audit.
    pub audit: Option<AuditId>,
    /// What the crawl is doing.
    pub phase: Phase,
    /// URLs processed (fetched, failed or blocked), this run and earlier ones.
    pub fetched: u64,
    /// URLs waiting in the frontier (approximate while pages are in flight).
    pub queued: u64,
    /// Requests in flight.
    pub in_flight: u64,
    /// Fetches that ended without a usable response.
    pub errors: u64,
    /// URLs blocked by robots.txt.
    pub blocked: u64,
    /// URLs recorded (fetched or not).
    pub urls: u64,
    /// Sitemaps read.
    pub sitemaps: u64,
    /// URLs processed per second over this run.
    pub pages_per_sec: f64,
    /// Time spent in this run.
    pub elapsed: Duration,
    /// Answers by status class, earlier runs of the audit included (a resumed run
    /// starts from the counts the store holds).
    pub statuses: StatusCounts,
    /// The latest URLs of this run that failed to fetch or answered 4xx / 5xx, oldest
    /// first, at most [`LATEST_PROBLEMS`].
    pub latest_problems: Vec<Problem>,
}

/// How many of the latest problems a [`Progress`] carries.
pub const LATEST_PROBLEMS: usize = 10;

/// Processed URLs by the class of their answer: the classes of the store's `fetches`
/// rows, and the URLs robots.txt kept the crawler from requesting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StatusCounts {
    /// 2xx.
    pub success: u64,
    /// 3xx.
    pub redirect: u64,
    /// 4xx.
    pub client_error: u64,
    /// 5xx.
    pub server_error: u64,
    /// 1xx and anything outside 100-599.
    pub other: u64,
    /// Requests that ended without a response (timeout, refused or dropped connection).
    pub no_response: u64,
    /// URLs not requested because robots.txt disallows them.
    pub blocked: u64,
}

impl StatusCounts {
    /// Counts one fetch: its status, or `None` when no response arrived.
    pub fn add(&mut self, status: Option<u16>) {
        let class = match status {
            None => &mut self.no_response,
            Some(200..=299) => &mut self.success,
            Some(300..=399) => &mut self.redirect,
            Some(400..=499) => &mut self.client_error,
            Some(500..=599) => &mut self.server_error,
            Some(_) => &mut self.other,
        };
        *class += 1;
    }
}

/// A URL that failed to fetch or answered 4xx / 5xx, as the progress lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The URL requested.
    pub url: String,
    /// The status code, when a response arrived.
    pub status: Option<u16>,
    /// What went wrong when the fetch failed (`timeout`, `connect`, `body`, ...).
    pub error: Option<String>,
    /// When it was requested (ms since the epoch).
    pub at_ms: i64,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CrawlSummary {
    /// The audit.
    pub audit: AuditId,
    /// Its status now: `finished`, `cancelled` or `failed`.
    pub status: AuditStatus,
    /// URLs processed in this run (fetched, failed or blocked).
    pub fetched: u64,
    /// Of those, fetches without a usable response.
    pub errors: u64,
    /// Of those, URLs blocked by robots.txt.
    pub blocked: u64,
    /// URLs recorded in the audit (all runs).
    pub urls: u64,
    /// URLs still queued (non-zero after a cancel).
    pub queued: u64,
    /// Time this run took.
    pub elapsed: Duration,
    /// URLs processed per second in this run.
    pub pages_per_sec: f64,
    /// Requests refused by the address policy in this run: a host name or IP address
    /// at a non-public address that is not the audit's own (recorded as error kind or
    /// issue `address_refused`).
    pub address_refused: u64,
    /// Requests refused by the admission check in this run outside the frontier: sitemaps
    /// (robots.txt lines, index children, redirects), robots.txt redirects and queued URLs
    /// out of scope (recorded in the sitemap's row, the robots.txt record or the URL's
    /// row). Discovered URLs out of scope are recorded as skipped `out_of_scope`.
    pub scope_refused: u64,
    /// Why the run failed, if it did.
    pub failure: Option<String>,
    /// Why the crawl stopped short of everything it found, and where: a budget that
    /// stopped it (storage, duration, a slow host) or a limit that left URLs uncrawled
    /// (`max_urls`, `max_depth`); `None` for a complete crawl (or a cancel or failure).
    pub stop: Option<store::AuditStop>,
    /// DUST rules learned during this run, and their verification (`learn_dust`).
    pub dust: Option<OnlineCounts>,
}

/// Creates an audit for `config` (stored with it) and runs it to the end, a cancel or
/// a failure.
pub async fn start_audit(
    store: &Store,
    config: &CrawlConfig,
    progress: &watch::Sender<Progress>,
    cancel: &CancellationToken,
) -> Result<CrawlSummary, CrawlError> {
    let audit = create_audit(store, config).await?;
    run(store, audit, config, progress, cancel).await
}

/// Creates an audit for `config` without running it (the desktop app shows it at once).
pub async fn create_audit(store: &Store, config: &CrawlConfig) -> Result<AuditId, CrawlError> {
    config.validate()?;
    // A start host on a non-public address the user has not allowed: no audit at all.
    address::AddressPolicy::new(config).await?;
    let json = serde_json::to_string(config).map_err(|e| CrawlError::Config(e.to_string()))?;
    Ok(store.create_audit(&config.start_urls, &json).await?)
}

/// The configuration stored with an audit.
pub async fn audit_config(store: &Store, audit: AuditId) -> Result<CrawlConfig, CrawlError> {
    stored_config(&store.audit(audit).await?)
}

/// The configuration stored in an audit's row (for a caller that has read the row).
pub fn stored_config(row: &store::Audit) -> Result<CrawlConfig, CrawlError> {
    serde_json::from_str(&row.config_json).map_err(|e| CrawlError::StoredConfig {
        audit: row.id,
        detail: e.to_string(),
    })
}

/// Resumes an audit that was cancelled, failed or killed, or that a per-run budget
/// stopped (`max_duration`, `slow_host`), with its stored configuration: URLs left
/// `fetching` are queued again, `done` URLs are not fetched again.
pub async fn resume_audit(
    store: &Store,
    audit: AuditId,
    progress: &watch::Sender<Progress>,
    cancel: &CancellationToken,
) -> Result<CrawlSummary, CrawlError> {
    let row = store.audit(audit).await?;
    if !row.resumable() {
        return Err(CrawlError::AlreadyFinished(audit));
    }
    let config = audit_config(store, audit).await?;
    run(store, audit, &config, progress, cancel).await
}

/// Runs (or continues) `audit` with `config` until the frontier is empty, `cancel` fires
/// or the store fails. The audit's status is set accordingly.
pub async fn run(
    store: &Store,
    audit: AuditId,
    config: &CrawlConfig,
    progress: &watch::Sender<Progress>,
    cancel: &CancellationToken,
) -> Result<CrawlSummary, CrawlError> {
    run::run(store, audit, config, progress, cancel).await
}
