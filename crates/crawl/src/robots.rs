//! robots.txt, one per origin, fetched once per audit (kept in the store, so a resumed
//! audit does not fetch it again), and the per-host politeness gate.
//!
//! Parsing and matching are done by `texting_robots`, a maintained parser tested against
//! Google's robots.txt test suite that also reads `Crawl-delay` and `Sitemap:` lines.
//! What a fetch means follows RFC 9309: 2xx gives rules; 4xx (and more than five
//! redirects) means no rules, everything allowed; 5xx means everything disallowed. No
//! response at all (refused, TLS failure, timeout) is recorded and treated as no rules:
//! the origin's pages are then tried, and fail with the same network error, which is
//! what the audit should report.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::fetch::Http;
use store::{RobotsRecord, RobotsVerdict, now_ms};
use texting_robots::Robot;
use tokio::sync::OnceCell;
use tokio::time::Instant;
use url::Url;

use crate::fetch;
use crate::scope::{Guard, Route};

/// robots.txt bytes read (RFC 9309 asks crawlers to read at least 500 KiB; Google reads
/// 500 KiB and ignores the rest). A longer file is read up to here, its rules applied, and
/// an error row of kind [`ROBOTS_TOO_LARGE`] recorded.
pub(crate) const MAX_ROBOTS_BYTES: u64 = 512 * 1024;
/// The error kind of a robots.txt longer than [`MAX_ROBOTS_BYTES`].
pub(crate) const ROBOTS_TOO_LARGE: &str = "too_large";
/// Redirects followed for robots.txt (RFC 9309: at least five).
const MAX_ROBOTS_REDIRECTS: usize = 5;

/// The origin (`scheme://host[:port]`) of a URL.
pub(crate) fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// What one origin's robots.txt says.
pub(crate) struct RobotsRules {
    /// The stored record.
    pub record: RobotsRecord,
    robot: Option<Robot>,
    /// Crawl-delay for our agent, capped.
    pub crawl_delay: Option<Duration>,
    /// The file was longer than [`MAX_ROBOTS_BYTES`] (known when this run fetched it).
    pub truncated: bool,
}

impl std::fmt::Debug for RobotsRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RobotsRules")
            .field("origin", &self.record.origin)
            .field("verdict", &self.record.verdict)
            .finish()
    }
}

impl RobotsRules {
    /// Builds the rules from a stored (or just fetched) record.
    pub(crate) fn from_record(mut record: RobotsRecord, agent: &str, max_delay: Duration) -> Self {
        let mut robot = None;
        if record.verdict == RobotsVerdict::Rules {
            match Robot::new(agent, record.body.as_deref().unwrap_or("").as_bytes()) {
                Ok(r) => robot = Some(r),
                Err(e) => {
                    // texting_robots is lenient; a file it cannot read at all is as good as none.
                    record.verdict = RobotsVerdict::AllowAll;
                    record.error = Some(format!("unparsable robots.txt: {e}"));
                }
            }
        }
        if let Some(r) = &robot {
            record.crawl_delay = r.delay.map(f64::from);
            record.sitemaps = r.sitemaps.clone();
        }
        let crawl_delay = record
            .crawl_delay
            .filter(|d| d.is_finite() && *d > 0.0)
            .map(|d| Duration::from_secs_f64(d.min(86_400.0)).min(max_delay))
            .filter(|d| !d.is_zero());
        Self {
            record,
            robot,
            crawl_delay,
            truncated: false,
        }
    }

    /// Whether our agent may fetch `url`.
    pub(crate) fn allows(&self, url: &Url) -> bool {
        match self.record.verdict {
            RobotsVerdict::AllowAll => true,
            RobotsVerdict::DisallowAll => url.path() == "/robots.txt",
            RobotsVerdict::Rules => self.robot.as_ref().is_none_or(|r| r.allowed(url.as_str())),
        }
    }
}

/// The robots.txt of every origin met so far, each fetched once.
pub(crate) struct RobotsCache {
    agent: String,
    max_delay: Duration,
    origins: Mutex<HashMap<String, Arc<OnceCell<Arc<RobotsRules>>>>>,
}

impl RobotsCache {
    /// An empty cache for `agent` (the robots.txt product token).
    pub(crate) fn new(agent: &str, max_delay: Duration) -> Self {
        Self {
            agent: agent.to_owned(),
            max_delay,
            origins: Mutex::new(HashMap::new()),
        }
    }

    /// Adds rules stored by an earlier run.
    pub(crate) fn preload(&self, record: RobotsRecord) {
        let rules = Arc::new(RobotsRules::from_record(
            record,
            &self.agent,
            self.max_delay,
        ));
        let cell = Arc::new(OnceCell::new_with(Some(Arc::clone(&rules))));
        self.lock().insert(rules.record.origin.clone(), cell);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<OnceCell<Arc<RobotsRules>>>>> {
        self.origins
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The rules for `url`'s origin, fetching its robots.txt first if needed (within
    /// `guard`'s scope). The second value is true when this call fetched it (the caller
    /// stores the record).
    pub(crate) async fn rules(
        &self,
        client: &Http,
        guard: &Guard,
        url: &Url,
    ) -> (Arc<RobotsRules>, bool) {
        let key = origin(url);
        let cell = Arc::clone(self.lock().entry(key.clone()).or_default());
        let mut fetched = false;
        let rules = cell
            .get_or_init(|| async {
                fetched = true;
                let mut truncated = false;
                let record = fetch_robots(client, guard, url, &key, &mut truncated).await;
                let mut rules = RobotsRules::from_record(record, &self.agent, self.max_delay);
                rules.truncated = truncated;
                Arc::new(rules)
            })
            .await;
        (Arc::clone(rules), fetched)
    }
}

/// Fetches and classifies one origin's robots.txt. Its redirects are followed within the
/// audit's scope only: one that leaves it is recorded as the file's error, and the
/// origin then has no rules (as when robots.txt is unavailable). `truncated` is set when
/// the file was longer than [`MAX_ROBOTS_BYTES`].
async fn fetch_robots(
    client: &Http,
    guard: &Guard,
    url: &Url,
    origin: &str,
    truncated: &mut bool,
) -> RobotsRecord {
    let mut record = RobotsRecord {
        origin: origin.to_owned(),
        fetched_at: now_ms(),
        status: None,
        body: None,
        crawl_delay: None,
        sitemaps: Vec::new(),
        verdict: RobotsVerdict::DisallowAll,
        error: None,
    };
    let mut target = match url.join("/robots.txt") {
        Ok(t) => t,
        Err(e) => {
            record.error = Some(format!("no robots.txt URL: {e}"));
            record.verdict = RobotsVerdict::AllowAll;
            return record;
        }
    };
    if let Err(refusal) = guard.admit(&target, Route::Fetch) {
        record.error = Some(refusal.to_string());
        record.verdict = RobotsVerdict::AllowAll;
        return record;
    }
    for _ in 0..=MAX_ROBOTS_REDIRECTS {
        match fetch::get(client, &target, MAX_ROBOTS_BYTES, |s, _| s.is_success()).await {
            Err(failure) => {
                // RFC 9309 says to assume complete disallow when the file is unreachable
                // (5xx, handled below, follows it). A network failure (refused, TLS,
                // timeout) is different for an audit: the origin's pages would fail the
                // same way, so they are tried and that failure is what gets recorded.
                record.error = Some(format!(
                    "unreachable ({}): {}",
                    failure.kind, failure.message
                ));
                record.verdict = RobotsVerdict::AllowAll;
                return record;
            }
            Ok(response) => {
                let status = response.status.as_u16();
                record.status = Some(status);
                if response.status.is_redirection() {
                    if let Some(next) = response
                        .location()
                        .ok()
                        .flatten()
                        .and_then(|l| target.join(l).ok())
                    {
                        if let Err(refusal) = guard.admit(&next, Route::Fetch) {
                            record.verdict = RobotsVerdict::AllowAll;
                            record.error = Some(format!(
                                "{status} to {next}: not followed ({}: {})",
                                refusal.reason(),
                                refusal.message
                            ));
                            return record;
                        }
                        target = next;
                        continue;
                    }
                    record.verdict = RobotsVerdict::AllowAll;
                    record.error = Some(format!("{status} without a usable Location"));
                    return record;
                }
                if response.status.is_success() {
                    *truncated = response.truncated;
                    record.body = Some(String::from_utf8_lossy(&response.body).into_owned());
                    record.verdict = RobotsVerdict::Rules;
                } else if response.status.is_client_error() {
                    record.verdict = RobotsVerdict::AllowAll;
                } else {
                    record.verdict = RobotsVerdict::DisallowAll;
                    record.error = Some(format!(
                        "status {status}: every URL of the origin is disallowed"
                    ));
                }
                return record;
            }
        }
    }
    record.verdict = RobotsVerdict::AllowAll;
    record.error = Some(format!("more than {MAX_ROBOTS_REDIRECTS} redirects"));
    record
}

/// Spaces requests to each host by the larger of the configured rate and the host's
/// Crawl-delay. Costs nothing when neither applies.
pub(crate) struct HostGate {
    min_interval: Duration,
    next: Mutex<HashMap<String, Instant>>,
}

impl HostGate {
    /// A gate for `requests_per_second` per host (0: no limit).
    pub(crate) fn new(requests_per_second: f64) -> Self {
        let min_interval = if requests_per_second > 0.0 {
            Duration::from_secs_f64(1.0 / requests_per_second)
        } else {
            Duration::ZERO
        };
        Self {
            min_interval,
            next: Mutex::new(HashMap::new()),
        }
    }

    /// Waits for this host's turn.
    pub(crate) async fn wait(&self, host: &str, crawl_delay: Option<Duration>) {
        let interval = crawl_delay.unwrap_or_default().max(self.min_interval);
        if interval.is_zero() {
            return;
        }
        let slot = {
            let mut next = self
                .next
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let now = Instant::now();
            let entry = next.entry(host.to_owned()).or_insert(now);
            let slot = (*entry).max(now);
            *entry = slot + interval;
            slot
        };
        tokio::time::sleep_until(slot).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(body: &str) -> RobotsRecord {
        RobotsRecord {
            origin: "https://example.test".into(),
            fetched_at: 0,
            status: Some(200),
            body: Some(body.into()),
            crawl_delay: None,
            sitemaps: vec![],
            verdict: RobotsVerdict::Rules,
            error: None,
        }
    }

    #[test]
    fn rules_delay_and_sitemaps_are_read_for_our_agent() {
        let rules = RobotsRules::from_record(
            record(
                "User-agent: *\nDisallow: /\n\nUser-agent: dustpan\nDisallow: /private\nCrawl-delay: 60\n\
                 Sitemap: https://example.test/sm.xml\n",
            ),
            "Dustpan",
            Duration::from_secs(5),
        );
        assert!(rules.allows(&Url::parse("https://example.test/public").unwrap()));
        assert!(!rules.allows(&Url::parse("https://example.test/private/x").unwrap()));
        assert_eq!(rules.crawl_delay, Some(Duration::from_secs(5)), "capped");
        assert_eq!(rules.record.crawl_delay, Some(60.0), "stored as written");
        assert_eq!(
            rules.record.sitemaps,
            vec!["https://example.test/sm.xml".to_string()]
        );
    }

    #[test]
    fn verdicts_without_rules() {
        let mut r = record("");
        r.verdict = RobotsVerdict::DisallowAll;
        let rules = RobotsRules::from_record(r, "Dustpan", Duration::from_secs(5));
        assert!(!rules.allows(&Url::parse("https://example.test/").unwrap()));
        let mut r = record("");
        r.verdict = RobotsVerdict::AllowAll;
        let rules = RobotsRules::from_record(r, "Dustpan", Duration::from_secs(5));
        assert!(rules.allows(&Url::parse("https://example.test/").unwrap()));
    }

    #[tokio::test(start_paused = true)]
    async fn the_gate_spaces_requests_to_one_host() {
        let gate = HostGate::new(10.0);
        let start = Instant::now();
        for _ in 0..3 {
            gate.wait("example.test", None).await;
        }
        gate.wait("other.test", None).await;
        assert_eq!(start.elapsed(), Duration::from_millis(200));
        gate.wait("example.test", Some(Duration::from_secs(1)))
            .await;
        assert!(start.elapsed() >= Duration::from_millis(300));
    }
}
