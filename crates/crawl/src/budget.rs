//! The budgets that stop a crawl: the audit's storage ([`CrawlConfig::max_db_bytes`]),
//! the run's duration ([`CrawlConfig::max_duration_ms`]) and the slow-host cut-off
//! ([`CrawlConfig::slow_host_ms`]). The first one hit is the audit's stop reason.
//!
//! Stored bytes are counted as the crawl hands records to the writer (no database query
//! on the way): the lengths of the text each row holds, plus a fixed estimate per row
//! for its integers, the row header and its index entries. The count runs ahead of the
//! writer but under the file (B-tree pages are never full), so it is calibrated on the
//! disk: every 32nd of the budget (every 200th past 90 % of it) the crawl has the writer
//! commit what it was handed and checkpoint the write-ahead log into the file, and reads
//! the growth of the file and the log since the run started (two `stat` calls); the
//! growth per counted byte scales the count from then on. Between calibrations the log
//! holds at most a 64th of the budget ([`wal_limit`]) and the transaction being written,
//! and that much of the budget is kept for it; the pages in flight when the budget stops
//! the run are accounted for in advance, twice (they are the last transaction, which the
//! closing checkpoint copies into the file before it truncates the log).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use store::{
    AuditStop, ErrorRecord, FetchRecord, NewUrl, PageRecord, RobotsRecord, SitemapRecord,
    StopReason,
};
use tokio_util::sync::CancellationToken;

use crate::CrawlConfig;

/// Per-row estimates, in bytes, of what a row costs beyond its text: integers, the
/// record header, B-tree overhead and the entries of the table's indexes.
const URL_ROW: u64 = 90;
const FETCH_ROW: u64 = 160;
const LINK_ROW: u64 = 40;
const DECL_ROW: u64 = 45;
const OTHER_ROW: u64 = 50;

fn opt(s: &Option<String>) -> u64 {
    s.as_ref().map_or(0, |s| s.len() as u64)
}

/// Bytes a new URL row stores: its forms (the identity and the seo form are indexed
/// too), host and reason.
fn new_url(u: &NewUrl) -> u64 {
    URL_ROW
        + u.url.len() as u64
        + 2 * u.url_rfc3986.len() as u64
        + 2 * opt(&u.url_seo)
        + u.host.len() as u64
        + u.reason
            .as_ref()
            .map_or(0, |r| opt(&r.detail) + r.kind.as_str().len() as u64)
}

fn fetch(f: &FetchRecord) -> u64 {
    FETCH_ROW
        + opt(&f.content_type)
        + opt(&f.title)
        + opt(&f.meta_description)
        + opt(&f.meta_robots)
        + opt(&f.x_robots_tag)
        + opt(&f.h1)
        + f.blocks.as_ref().map_or(0, |b| b.len() as u64)
        + opt(&f.charset)
        + opt(&f.error_kind)
        + opt(&f.error_message)
}

/// Bytes an error row stores.
pub(crate) fn error(e: &ErrorRecord) -> u64 {
    OTHER_ROW + (e.phase.len() + e.kind.len() + e.message.len()) as u64
}

/// Bytes one processed URL's record stores.
pub(crate) fn page(r: &PageRecord) -> u64 {
    let mut n = OTHER_ROW / 2
        + r.reason
            .as_ref()
            .map_or(0, |r| opt(&r.detail) + r.kind.as_str().len() as u64)
        + opt(&r.blocked_by);
    n += r.new_urls.iter().map(new_url).sum::<u64>();
    n += r.requeue.len() as u64 * 8;
    n += r.fetch.as_ref().map_or(0, fetch);
    if let Some(h) = &r.redirect {
        n += DECL_ROW + h.location_raw.len() as u64 + opt(&h.error);
    }
    n += r
        .links
        .iter()
        .map(|l| {
            LINK_ROW
                + l.href_raw.len() as u64
                + opt(&l.anchor_text)
                + l.tag.len() as u64
                + opt(&l.error)
        })
        .sum::<u64>();
    n += r
        .canonicals
        .iter()
        .map(|c| DECL_ROW + c.href_raw.len() as u64 + opt(&c.error))
        .sum::<u64>();
    n += r
        .hreflang
        .iter()
        .map(|h| DECL_ROW + (h.lang.len() + h.href_raw.len()) as u64)
        .sum::<u64>();
    n + r.errors.iter().map(error).sum::<u64>()
}

/// Bytes a sitemap's record stores (its entries and the URLs they added).
pub(crate) fn sitemap(s: &SitemapRecord) -> u64 {
    OTHER_ROW
        + (s.url.len() + s.kind.len() + s.issues_json.len()) as u64
        + opt(&s.error)
        + s.new_urls.iter().map(new_url).sum::<u64>()
        + s.entries
            .iter()
            .map(|e| DECL_ROW + e.loc_raw.len() as u64 + opt(&e.lastmod) + opt(&e.changefreq))
            .sum::<u64>()
}

/// Bytes a robots.txt record stores.
pub(crate) fn robots(r: &RobotsRecord) -> u64 {
    OTHER_ROW
        + r.origin.len() as u64
        + opt(&r.body)
        + r.sitemaps.iter().map(|s| s.len() as u64 + 3).sum::<u64>()
        + opt(&r.error)
}

/// What stops a run besides the user: the budgets' state, shared by every task.
#[derive(Debug)]
pub(crate) struct Budget {
    /// Cancelled when a budget is spent (a child of the user's token, so a user's cancel
    /// stops everything that watches this one).
    token: CancellationToken,
    /// The first budget hit.
    stop: Mutex<Option<AuditStop>>,
    /// Bytes stored by earlier runs.
    bytes_before: u64,
    /// Bytes handed to the writer in this run.
    bytes: AtomicU64,
    /// Of those, the sitemaps' (their rows, entries and the URLs they admitted).
    sitemap_bytes: AtomicU64,
    max_bytes: u64,
    /// The database whose growth is measured, with its size on disk (file and WAL) when
    /// the run started.
    disk: Option<(store::Store, u64)>,
    /// The database's growth per counted byte, in thousandths (at least 1,000), as the
    /// last calibration found it.
    factor_permille: AtomicU64,
    /// What the audit had spent at the last calibration.
    calibrated_at: AtomicU64,
    /// Pages counted in this run, and their bytes: the pages still in flight when the
    /// budget stops the run are stored too, so the stop comes that much earlier.
    pages: AtomicU64,
    page_bytes: AtomicU64,
    concurrency: u64,
    /// Room kept for the write-ahead log beside the file ([`wal_limit`]), when the disk
    /// is measured.
    wal_reserve: u64,
}

/// The write-ahead log a crawl's writer may keep ([`store::WriterOptions::wal_limit_bytes`]):
/// a 64th of the storage budget, at most the writer's default, at least its minimum.
pub(crate) fn wal_limit(config: &CrawlConfig) -> u64 {
    let default = store::WriterOptions::default().wal_limit_bytes;
    match config.max_db_bytes {
        0 => default,
        max => (max / 64).clamp(store::WAL_LIMIT_MIN_BYTES, default),
    }
}

/// The share of the storage budget (percent) that sitemaps may spend in a run: the rest
/// is kept for pages, so that sitemaps listing millions of URLs cannot spend the whole
/// budget before the first page is fetched. Past it, a sitemap's entries for URLs the
/// audit does not know are counted, not stored.
pub(crate) const SITEMAP_SHARE_PERCENT: u64 = 40;

impl Budget {
    /// The budgets of a run whose audit stored `bytes_before` in earlier runs, in the
    /// database `disk` whose growth also counts; `cancel` is the user's token.
    pub(crate) fn new(
        config: &CrawlConfig,
        bytes_before: u64,
        disk: Option<&store::Store>,
        cancel: &CancellationToken,
    ) -> Self {
        Self {
            token: cancel.child_token(),
            stop: Mutex::new(None),
            bytes_before,
            bytes: AtomicU64::new(0),
            sitemap_bytes: AtomicU64::new(0),
            max_bytes: config.max_db_bytes,
            disk: disk.map(|store| (store.clone(), store.disk_bytes())),
            factor_permille: AtomicU64::new(1_000),
            calibrated_at: AtomicU64::new(bytes_before),
            pages: AtomicU64::new(0),
            page_bytes: AtomicU64::new(0),
            concurrency: config.concurrency as u64,
            wal_reserve: if disk.is_some() { wal_limit(config) } else { 0 },
        }
    }

    /// Whether the count should be calibrated on the disk now ([`Budget::calibrate`],
    /// after the writer committed what it was handed): every 32nd of the budget, every
    /// 200th once 90 % of it is spent.
    pub(crate) fn wants_calibration(&self) -> bool {
        if self.disk.is_none() || self.max_bytes == 0 || self.token.is_cancelled() {
            return false;
        }
        let spent = self.bytes_before + self.spent();
        let step = if spent > self.max_bytes / 10 * 9 {
            self.max_bytes / 200
        } else {
            self.max_bytes / 32
        };
        spent >= self.calibrated_at.load(Ordering::Relaxed) + step.max(1)
    }

    /// Calibrates the count on the database's growth on disk; call it when the writer
    /// has committed every record counted so far. Past the budget, stops the run.
    pub(crate) fn calibrate(&self) {
        let counted = self.bytes.load(Ordering::Relaxed);
        if counted > 0 {
            let factor = (u128::from(self.growth()) * 1_000 / u128::from(counted)).max(1_000);
            self.factor_permille
                .store(u64::try_from(factor).unwrap_or(u64::MAX), Ordering::Relaxed);
        }
        self.calibrated_at
            .store(self.bytes_before + self.spent(), Ordering::Relaxed);
        self.check();
    }

    /// The count scaled by the calibration. (Not the growth on disk read at any moment:
    /// while a large transaction sits in the log beside the pages it rewrites, the disk
    /// holds more than the audit will.)
    fn spent(&self) -> u64 {
        let counted = u128::from(self.bytes.load(Ordering::Relaxed));
        let scaled = counted * u128::from(self.factor_permille.load(Ordering::Relaxed)) / 1_000;
        u64::try_from(scaled).unwrap_or(u64::MAX)
    }

    /// How much the database grew on disk in this run (file and WAL).
    fn growth(&self) -> u64 {
        self.disk.as_ref().map_or(0, |(store, before)| {
            store.disk_bytes().saturating_sub(*before)
        })
    }

    /// The token every part of the run watches: cancelled by the user or by a budget.
    pub(crate) fn token(&self) -> &CancellationToken {
        &self.token
    }

    /// Records the stop (the first one wins) and stops the run.
    pub(crate) fn hit(&self, reason: StopReason, detail: String) {
        let mut stop = self.stop.lock().unwrap_or_else(PoisonError::into_inner);
        if stop.is_none() && !self.token.is_cancelled() {
            *stop = Some(AuditStop { reason, detail });
        }
        drop(stop);
        self.token.cancel();
    }

    /// Records a stop that does not end the run (a host cut off while others go on),
    /// unless another was recorded first.
    pub(crate) fn note(&self, reason: StopReason, detail: String) {
        let mut stop = self.stop.lock().unwrap_or_else(PoisonError::into_inner);
        if stop.is_none() {
            *stop = Some(AuditStop { reason, detail });
        }
    }

    /// The budget that stopped the run, if one did.
    pub(crate) fn stop(&self) -> Option<AuditStop> {
        self.stop
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Bytes this run spent: those handed to the writer (scaled by the calibration), or
    /// the database's growth on disk, whichever is larger (at the end of a run, when the
    /// writer has checkpointed its log, the growth is the file's).
    pub(crate) fn bytes(&self) -> u64 {
        self.spent().max(self.growth())
    }

    /// Counts `n` bytes of a sitemap handed to the writer (see [`Budget::add_bytes`]).
    pub(crate) fn add_sitemap_bytes(&self, n: u64) {
        self.sitemap_bytes.fetch_add(n, Ordering::Relaxed);
        self.add_bytes(n);
    }

    /// Whether the sitemaps spent their share of the storage budget
    /// ([`SITEMAP_SHARE_PERCENT`]) in this run.
    pub(crate) fn sitemap_share_spent(&self) -> bool {
        self.max_bytes > 0
            && self.sitemap_bytes.load(Ordering::Relaxed)
                >= self.max_bytes / 100 * SITEMAP_SHARE_PERCENT
    }

    /// Counts `n` bytes handed to the writer; past the storage budget, stops the run.
    pub(crate) fn add_bytes(&self, n: u64) {
        self.bytes.fetch_add(n, Ordering::Relaxed);
        self.check();
    }

    /// Counts the `n` bytes of one page's record handed to the writer (see
    /// [`Budget::add_bytes`]).
    pub(crate) fn add_page_bytes(&self, n: u64) {
        self.pages.fetch_add(1, Ordering::Relaxed);
        self.page_bytes.fetch_add(n, Ordering::Relaxed);
        self.add_bytes(n);
    }

    /// What the pages in flight will store: `concurrency` pages of the run's average,
    /// scaled by the calibration.
    fn in_flight(&self) -> u64 {
        let pages = self.pages.load(Ordering::Relaxed);
        if pages == 0 {
            return 0;
        }
        let average = u128::from(self.page_bytes.load(Ordering::Relaxed) / pages);
        let bytes = average
            * u128::from(self.concurrency)
            * u128::from(self.factor_permille.load(Ordering::Relaxed))
            / 1_000;
        u64::try_from(bytes).unwrap_or(u64::MAX)
    }

    /// Past the storage budget, with what the pages in flight will add, stops the run.
    fn check(&self) {
        if self.max_bytes == 0 {
            return;
        }
        let total = self.bytes_before + self.spent();
        let in_flight = self.in_flight();
        // The pages in flight are stored after the stop, in the last transaction, which
        // the closing checkpoint holds in the log and the file at once for a moment.
        let reserve = in_flight.saturating_mul(2).saturating_add(self.wal_reserve);
        if total.saturating_add(reserve) > self.max_bytes {
            let detail = if total > self.max_bytes {
                format!(
                    "{} MB stored, over the budget of {} MB (--max-db-bytes)",
                    mb(total),
                    mb(self.max_bytes)
                )
            } else {
                format!(
                    "{} MB stored and about {} MB in flight, over the budget of {} MB (--max-db-bytes)",
                    mb(total),
                    mb(in_flight),
                    mb(self.max_bytes)
                )
            };
            self.hit(StopReason::MaxDbBytes, detail);
        }
    }
}

fn mb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1e6)
}

/// The slow-host cut-off: response times of each host's last requests, and the hosts cut
/// off.
#[derive(Debug)]
pub(crate) struct SlowHosts {
    limit_ms: u64,
    window: usize,
    times: HashMap<String, VecDeque<u64>>,
    cut: HashSet<String>,
}

impl SlowHosts {
    /// The cut-off of `config` (inactive when `slow_host_ms` is 0).
    pub(crate) fn new(config: &CrawlConfig) -> Self {
        Self {
            limit_ms: config.slow_host_ms,
            window: config.slow_host_window.max(3) as usize,
            times: HashMap::new(),
            cut: HashSet::new(),
        }
    }

    /// Whether `host` was cut off.
    pub(crate) fn is_cut(&self, host: &str) -> bool {
        !self.cut.is_empty() && self.cut.contains(host)
    }

    /// Counts one request to `host` that took `ms`; when the host's median over its last
    /// requests passes the limit, cuts it off and returns the stop's detail.
    pub(crate) fn record(&mut self, host: &str, ms: u64) -> Option<String> {
        if self.limit_ms == 0 || self.cut.contains(host) {
            return None;
        }
        let times = self.times.entry(host.to_owned()).or_default();
        if times.len() == self.window {
            times.pop_front();
        }
        times.push_back(ms);
        if times.len() < self.window {
            return None;
        }
        let mut sorted: Vec<u64> = times.iter().copied().collect();
        sorted.sort_unstable();
        let median = sorted[sorted.len() / 2];
        if median <= self.limit_ms {
            return None;
        }
        self.cut.insert(host.to_owned());
        Some(format!(
            "host {host}: median response {:.1} s over its last {} requests, over the limit of {:.1} s (--slow-host); its remaining URLs were left queued",
            median as f64 / 1000.0,
            self.window,
            self.limit_ms as f64 / 1000.0
        ))
    }
}

/// The host (with its port, if any) of a URL as stored: what the cut-off counts by.
pub(crate) fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    authority.rsplit_once('@').map_or(authority, |(_, h)| h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_a_full_window_cuts_a_host_off() {
        let config = CrawlConfig {
            slow_host_ms: 1_000,
            slow_host_window: 3,
            ..CrawlConfig::default()
        };
        let mut slow = SlowHosts::new(&config);
        assert_eq!(slow.record("a.test", 5_000), None);
        assert_eq!(slow.record("a.test", 10), None);
        // Two of three over the limit: the median is.
        let detail = slow.record("a.test", 2_000).expect("cut off");
        assert!(
            detail.contains("host a.test: median response 2.0 s"),
            "{detail}"
        );
        assert!(slow.is_cut("a.test"));
        assert!(!slow.is_cut("b.test"));
        assert_eq!(slow.record("a.test", 9_000), None, "reported once");
        // One slow page among fast ones is not enough.
        for ms in [10, 9_000, 10, 10] {
            assert_eq!(slow.record("b.test", ms), None);
        }
        let off = SlowHosts::new(&CrawlConfig {
            slow_host_ms: 0,
            ..CrawlConfig::default()
        });
        assert!(!off.is_cut("a.test"));
    }

    #[test]
    fn hosts_are_read_from_stored_urls() {
        assert_eq!(host_of("https://a.test:8080/x?y"), "a.test:8080");
        assert_eq!(host_of("http://u:p@a.test/"), "a.test");
        assert_eq!(host_of("http://[::1]:9/"), "[::1]:9");
        assert_eq!(host_of("http://a.test"), "a.test");
    }

    #[test]
    fn the_storage_budget_stops_once_and_keeps_the_first_reason() {
        let cancel = CancellationToken::new();
        let budget = Budget::new(
            &CrawlConfig {
                max_db_bytes: 1_000,
                ..CrawlConfig::default()
            },
            400,
            None,
            &cancel,
        );
        budget.add_bytes(500);
        assert!(!budget.token().is_cancelled());
        budget.add_bytes(200);
        assert!(budget.token().is_cancelled());
        assert!(!cancel.is_cancelled(), "the user's token is left alone");
        budget.hit(StopReason::MaxDuration, "later".into());
        let stop = budget.stop().unwrap();
        assert_eq!(stop.reason, StopReason::MaxDbBytes);
        assert_eq!(budget.bytes(), 700);

        // The pages in flight count too, twice (the log and the file at the closing
        // checkpoint): two pages of the average in flight, 1,200 bytes.
        let budget = Budget::new(
            &CrawlConfig {
                max_db_bytes: 2_000,
                concurrency: 2,
                ..CrawlConfig::default()
            },
            0,
            None,
            &cancel,
        );
        budget.add_page_bytes(300);
        budget.add_page_bytes(300);
        assert!(!budget.token().is_cancelled());
        budget.add_page_bytes(300);
        assert!(budget.token().is_cancelled());
        let stop = budget.stop().unwrap();
        assert_eq!(
            stop.detail,
            "0.0 MB stored and about 0.0 MB in flight, over the budget of 0.0 MB (--max-db-bytes)"
        );

        // A user's cancel is not a budget stop.
        let cancel = CancellationToken::new();
        let budget = Budget::new(&CrawlConfig::default(), 0, None, &cancel);
        cancel.cancel();
        budget.hit(StopReason::MaxDuration, "after".into());
        assert_eq!(budget.stop(), None);
    }
}
