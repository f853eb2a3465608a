//! Running audits: start, resume and cancel crawls, report their progress at most
//! [`PROGRESS_INTERVAL`] apart (and at every phase change), and analyse each finished
//! audit once so that opening it is instant.

use crate::error::ViewError;
use crate::open::{AnalysisPolicy, OpenAudit};
use crate::options::CrawlOptions;
use crate::types::{LatestError, Progress, ProgressPhase, StartAuditRequest, StatusCounts};
use crawl::CancellationToken;
/// The crawl configuration a run is started with.
pub use crawl::CrawlConfig;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The shortest time between two progress reports of one audit in the same phase.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);

/// Where a run reports to (the desktop app emits window events).
pub trait RunEvents: Send + Sync + 'static {
    /// A progress report (throttled; always sent on a phase change).
    fn progress(&self, progress: &Progress);
    /// The run is over; `opened` is the finished audit analysed, ready to cache.
    fn finished(&self, progress: &Progress, opened: Option<OpenAudit>);
}

/// The crawl configuration of a start request ([`CrawlOptions::from_request`] through the
/// one builder, [`CrawlOptions::crawl`]). `ca_pems` are extra trusted certificate
/// authorities (PEM text).
pub fn crawl_config(req: &StartAuditRequest, ca_pems: &[String]) -> Result<CrawlConfig, ViewError> {
    let (config, _) = CrawlOptions::from_request(req, ca_pems).crawl(CrawlConfig::default())?;
    Ok(config)
}

/// The limits, robots, user agent, `--resolve` entries and extra CAs of `req` applied to
/// `config` (everything but the start URL).
pub fn apply_settings(
    config: &mut CrawlConfig,
    req: &StartAuditRequest,
    ca_pems: &[String],
) -> Result<(), ViewError> {
    CrawlOptions {
        url: None,
        ..CrawlOptions::from_request(req, ca_pems)
    }
    .apply(config)
}

/// A stored configuration that does not start where its audit's row says: start URLs
/// edited in the database, or a database from someone else. It is not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "audit {audit}: its stored configuration starts at {} but the audit at {}; the configuration was changed and is not run",
    .configured.join(" "),
    .recorded.join(" ")
)]
pub struct StartUrlsMismatch {
    /// The audit.
    pub audit: i64,
    /// The start URLs of the stored configuration.
    pub configured: Vec<String>,
    /// The start URLs of the audit's row.
    pub recorded: Vec<String>,
}

/// Checks that an audit's stored configuration starts at the audit's start URLs.
pub fn check_stored_config(
    row: &store::Audit,
    config: &CrawlConfig,
) -> Result<(), StartUrlsMismatch> {
    if config.start_urls == row.start_urls {
        Ok(())
    } else {
        Err(StartUrlsMismatch {
            audit: row.id.0,
            configured: config.start_urls.clone(),
            recorded: row.start_urls.clone(),
        })
    }
}

/// The stored configuration of audit `id`, to resume it or start a new audit like it,
/// checked against the audit's row ([`check_stored_config`]).
pub async fn stored_run_config(
    store: &store::Store,
    id: store::AuditId,
) -> Result<CrawlConfig, ViewError> {
    let row = store.audit(id).await?;
    let config = crawl::stored_config(&row)?;
    check_stored_config(&row, &config).map_err(|e| ViewError::Invalid(e.to_string()))?;
    Ok(config)
}

/// The stored configuration of audit `id` to resume it, checked against the audit's row
/// ([`check_stored_config`]): refused for a complete audit ([`store::Audit::resumable`]:
/// an audit that a per-run budget stopped, its duration or a slow host, continues). The
/// one rule `dustpan audit --resume` and the app's resume both follow.
pub async fn resumable_config(
    store: &store::Store,
    id: store::AuditId,
) -> Result<CrawlConfig, ViewError> {
    let row = store.audit(id).await?;
    if !row.resumable() {
        return Err(crawl::CrawlError::AlreadyFinished(id).into());
    }
    let config = crawl::stored_config(&row)?;
    check_stored_config(&row, &config).map_err(|e| ViewError::Invalid(e.to_string()))?;
    Ok(config)
}

/// Certificates in PEM texts (a text without a certificate header counts as one).
pub fn certificate_count(pems: &[String]) -> usize {
    pems.iter()
        .map(|pem| pem.matches("-----BEGIN CERTIFICATE-----").count().max(1))
        .sum()
}

struct Run {
    cancel: Option<CancellationToken>,
    last: Progress,
}

/// The audits this process runs, and the last progress of each.
#[derive(Clone, Default)]
pub struct Runs {
    runs: Arc<Mutex<HashMap<i64, Run>>>,
}

fn phase_of(p: crawl::Phase) -> ProgressPhase {
    match p {
        crawl::Phase::Starting | crawl::Phase::Discovery => ProgressPhase::Discovery,
        crawl::Phase::Crawling => ProgressPhase::Crawling,
        crawl::Phase::Finishing | crawl::Phase::Done => ProgressPhase::Analysing,
    }
}

fn clamp(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn statuses_of(s: &crawl::StatusCounts) -> StatusCounts {
    StatusCounts {
        success: clamp(s.success),
        redirect: clamp(s.redirect),
        client_error: clamp(s.client_error),
        server_error: clamp(s.server_error),
        other: clamp(s.other),
        no_response: clamp(s.no_response),
        blocked: clamp(s.blocked),
    }
}

fn progress_of(id: i64, p: &crawl::Progress) -> Progress {
    Progress {
        audit_id: id,
        phase: phase_of(p.phase),
        fetched: clamp(p.fetched),
        queued: clamp(p.queued),
        errors: clamp(p.errors),
        pages_per_second: p.pages_per_sec,
        elapsed_ms: clamp(p.elapsed.as_millis() as u64),
        message: None,
        statuses: statuses_of(&p.statuses),
        // Newest first, as the panel lists them.
        latest_errors: p
            .latest_problems
            .iter()
            .rev()
            .map(|e| LatestError {
                url: e.url.clone(),
                status: e.status,
                error: e.error.clone(),
                at: e.at_ms,
            })
            .collect(),
    }
}

impl Runs {
    /// No runs.
    pub fn new() -> Runs {
        Runs::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut HashMap<i64, Run>) -> T) -> T {
        let mut runs = self
            .runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut runs)
    }

    /// This process is running audit `id`.
    pub fn is_running(&self, id: i64) -> bool {
        self.with(|r| r.get(&id).is_some_and(|run| run.cancel.is_some()))
    }

    /// The last progress of audit `id`, if this process ran it.
    pub fn progress(&self, id: i64) -> Option<Progress> {
        self.with(|r| r.get(&id).map(|run| run.last.clone()))
    }

    /// Asks audit `id` to stop (pages in flight are stored; it can be resumed).
    /// Returns whether it was running.
    pub fn cancel(&self, id: i64) -> bool {
        self.with(|r| match r.get(&id).and_then(|run| run.cancel.as_ref()) {
            Some(c) => {
                c.cancel();
                true
            }
            None => false,
        })
    }

    /// Creates an audit for `config` analysed under `policy` (stored with it: its
    /// frontier keys, its finishing analysis and every later open use it) and crawls it
    /// in the background, holding its lease; returns its id at once.
    pub async fn start(
        &self,
        store: store::Store,
        mut config: CrawlConfig,
        policy: AnalysisPolicy,
        events: Arc<dyn RunEvents>,
    ) -> Result<i64, ViewError> {
        config.policy = policy.clone().into();
        let id = crawl::create_audit(&store, &config).await?;
        let lease = store.acquire_lease(id).await?;
        self.spawn(store, lease, config, policy, events);
        Ok(id.0)
    }

    /// Resumes audit `id` with its stored configuration in the background, holding its
    /// lease: refused while another process crawls it.
    pub async fn resume(
        &self,
        store: store::Store,
        id: i64,
        policy: AnalysisPolicy,
        events: Arc<dyn RunEvents>,
    ) -> Result<i64, ViewError> {
        if self.is_running(id) {
            return Err(ViewError::Invalid(format!("audit {id} is running")));
        }
        let lease = store.acquire_lease(store::AuditId(id)).await?;
        match resumable_config(&store, store::AuditId(id)).await {
            Ok(config) => {
                self.spawn(store, lease, config, policy, events);
                Ok(id)
            }
            Err(e) => {
                lease.release().await?;
                Err(e)
            }
        }
    }

    fn spawn(
        &self,
        store: store::Store,
        lease: store::Lease,
        config: CrawlConfig,
        policy: AnalysisPolicy,
        events: Arc<dyn RunEvents>,
    ) {
        let id = lease.audit().0;
        let cancel = CancellationToken::new();
        let first = Progress::starting(id, ProgressPhase::Discovery);
        self.with(|r| {
            r.insert(
                id,
                Run {
                    cancel: Some(cancel.clone()),
                    last: first.clone(),
                },
            )
        });
        events.progress(&first);
        let (tx, rx) = watch::channel(crawl::Progress::default());
        let forward = tokio::spawn(forward(self.clone(), id, rx, Arc::clone(&events), first));
        let runs = self.clone();
        tokio::spawn(async move {
            let result = {
                let crawl = crawl::run(&store, store::AuditId(id), &config, &tx, &cancel);
                tokio::pin!(crawl);
                tokio::select! {
                    result = &mut crawl => result,
                    // Another process took the lease over (this one stalled past the
                    // timeout): stop crawling.
                    () = lease.lost() => {
                        cancel.cancel();
                        crawl.await
                    }
                }
            };
            drop(tx);
            let last = forward.await.ok();
            let mut p = last.unwrap_or_else(|| {
                runs.progress(id)
                    .unwrap_or_else(|| Progress::starting(id, ProgressPhase::Analysing))
            });
            let mut opened = None;
            match result {
                Ok(summary) => {
                    // `p.fetched` stays the crawl's last count of pages fetched: the
                    // audit's stored count, as the audits list and the overview show it.
                    p.queued = clamp(summary.queued);
                    p.elapsed_ms = clamp(summary.elapsed.as_millis() as u64);
                    p.pages_per_second = summary.pages_per_sec;
                    match summary.status {
                        store::AuditStatus::Finished => {
                            if p.phase != ProgressPhase::Analysing {
                                p.phase = ProgressPhase::Analysing;
                                runs.report(&p, &*events);
                            }
                            // The same finishing step as `dustpan audit`: DUST rule
                            // validation, the default analysis and its summary.
                            let finished =
                                crate::workflow::finish_audit(&store, store::AuditId(id)).await;
                            let opened_now = match finished {
                                // Under the audit's own policy the finishing step's
                                // analysis is the one to show: no second load and analysis.
                                Ok(f) if f.policy == policy => store
                                    .audit(store::AuditId(id))
                                    .await
                                    .map_err(ViewError::from)
                                    .map(|row| {
                                        OpenAudit::from_parts(
                                            row,
                                            f.input,
                                            f.analysis,
                                            f.policy.name,
                                        )
                                    }),
                                Ok(_) => OpenAudit::open(&store, id, &policy).await,
                                Err(e) => Err(e),
                            };
                            match opened_now {
                                Ok(o) => {
                                    opened = Some(o);
                                    p.phase = ProgressPhase::Done;
                                }
                                Err(e) => {
                                    p.phase = ProgressPhase::Failed;
                                    p.message = Some(format!("analysis failed: {e}"));
                                }
                            }
                        }
                        store::AuditStatus::Cancelled => p.phase = ProgressPhase::Cancelled,
                        _ => {
                            p.phase = ProgressPhase::Failed;
                            p.message = summary.failure.clone();
                        }
                    }
                }
                Err(e) => {
                    p.phase = ProgressPhase::Failed;
                    p.message = Some(e.to_string());
                }
            }
            // The finishing step wrote to the audit too: the lease is released after it.
            if let Err(e) = lease.release().await
                && p.message.is_none()
            {
                p.message = Some(format!("the audit's lease stays until it times out: {e}"));
            }
            runs.with(|r| {
                if let Some(run) = r.get_mut(&id) {
                    run.cancel = None;
                    run.last = p.clone();
                }
            });
            events.progress(&p);
            events.finished(&p, opened);
        });
    }

    fn report(&self, p: &Progress, events: &dyn RunEvents) {
        self.with(|r| {
            if let Some(run) = r.get_mut(&p.audit_id) {
                run.last = p.clone();
            }
        });
        events.progress(p);
    }
}

/// Forwards the crawl's progress: every phase change at once, otherwise at most one
/// report per [`PROGRESS_INTERVAL`]. Returns the last progress seen.
async fn forward(
    runs: Runs,
    id: i64,
    mut rx: watch::Receiver<crawl::Progress>,
    events: Arc<dyn RunEvents>,
    first: Progress,
) -> Progress {
    let mut last_sent = Instant::now();
    let mut sent_phase = first.phase;
    let mut latest = first;
    while rx.changed().await.is_ok() {
        latest = progress_of(id, &rx.borrow_and_update());
        runs.with(|r| {
            if let Some(run) = r.get_mut(&id) {
                run.last = latest.clone();
            }
        });
        if latest.phase != sent_phase || last_sent.elapsed() >= PROGRESS_INTERVAL {
            events.progress(&latest);
            sent_phase = latest.phase;
            last_sent = Instant::now();
        }
    }
    latest
}
