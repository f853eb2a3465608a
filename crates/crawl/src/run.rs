//! One run of an audit: reload what an earlier run stored, discover, crawl the frontier
//! with bounded concurrency, then walk redirect chains and set the audit's status.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::fetch::Http;
use canon::Policy;
use store::{
    AuditId, AuditStatus, AuditStop, Claimed, ErrorRecord, FetchRecord, FoundVia, NewUrl,
    PageRecord, ReasonKind, SitemapSource, StopReason, Store, UrlId, UrlState, Writer,
    WriterOptions,
};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use url::Url;

use crate::address::AddressPolicy;
use crate::budget::{self, Budget, SlowHosts};
use crate::frontier::{Admission, Found, Frontier, rfc3986_key};
use crate::online::OnlineDust;
use crate::robots::{HostGate, MAX_ROBOTS_BYTES, ROBOTS_TOO_LARGE, RobotsCache, RobotsRules};
use crate::scope::{Guard, Scope, www_twin};
use crate::sitemaps::SitemapBook;
use crate::{
    CrawlConfig, CrawlError, CrawlSummary, LATEST_PROBLEMS, Phase, Problem, Progress, StatusCounts,
    page, redirects, sitemaps,
};

/// How long pages in flight at a cancel may take to finish.
const CANCEL_GRACE: Duration = Duration::from_secs(2);

/// URLs read per query when a resumed run reloads the known URLs.
const RELOAD_PAGE: u32 = 20_000;

/// What every task of a run shares.
pub(crate) struct Ctx {
    /// The configuration.
    pub config: CrawlConfig,
    /// The HTTP client (its resolver applies the address policy).
    pub client: Http,
    /// The admission check of every request.
    pub guard: Guard,
    /// The frontier's identity policy.
    pub rfc3986: Policy,
    /// The robots.txt product token.
    pub agent: String,
    /// Per-host politeness.
    pub gate: HostGate,
    /// The store's writer for this audit.
    pub writer: Writer,
    /// The budgets that stop the run, and the bytes handed to the writer.
    pub budget: Budget,
    frontier: Mutex<Frontier>,
    robots: RobotsCache,
    /// The sitemaps read so far (one reader at a time).
    pub sitemaps: tokio::sync::Mutex<SitemapBook>,
    /// `Sitemap:` lines of robots.txt files fetched during the crawl, not read yet.
    robots_sitemaps: Mutex<Vec<String>>,
    /// The pages of URL-variant probes, whose links are recorded, not followed.
    pub probes: crate::probe::ProbeMarks,
    /// DUST rules learned during the crawl (`learn_dust`).
    pub dust: Option<OnlineDust>,
    /// The large pages being parsed, in KiB ([`crate::page::PARSE_BUDGET_BYTES`]).
    pub parsing: tokio::sync::Semaphore,
    /// The pages rendered in Chromium (`CrawlConfig::render`).
    pub renderer: Option<Arc<render::Renderer>>,
}

impl Ctx {
    /// Queues the `Sitemap:` lines of robots.txt files (by origin) for reading, those of
    /// origins in scope, unless the audit reads only the URLs it lists.
    fn queue_robots_sitemaps(&self, robots: Vec<(Vec<String>, Url)>) {
        for (sitemaps, url) in robots {
            if self.guard.scope().origin_in_scope(&url) && !self.config.list_only() {
                self.robots_sitemaps
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .extend(sitemaps);
            }
        }
    }

    /// The in-memory frontier (a poisoned lock is taken over: admission keeps no
    /// invariant a panic could break halfway).
    pub(crate) fn lock_frontier(&self) -> MutexGuard<'_, Frontier> {
        self.frontier.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The robots.txt rules for `url`'s origin; a first fetch is stored.
    pub(crate) async fn robots_for(&self, url: &Url) -> Arc<RobotsRules> {
        let (rules, fetched) = self.robots.rules(&self.client, &self.guard, url).await;
        if fetched {
            // A failed send means the writer stopped; the crawl loop reports that.
            self.budget.add_bytes(budget::robots(&rules.record));
            let _ = self.writer.robots(rules.record.clone()).await;
            self.note_robots_sitemaps(&rules.record, url);
            if let Some(error) = &rules.record.error {
                let _ = self
                    .error(ErrorRecord {
                        url_id: None,
                        phase: "robots".into(),
                        kind: rules.record.verdict.as_str().to_owned(),
                        message: format!("{}/robots.txt: {error}", rules.record.origin),
                    })
                    .await;
            }
            if rules.truncated {
                let _ = self
                    .error(ErrorRecord {
                        url_id: None,
                        phase: "robots".into(),
                        kind: ROBOTS_TOO_LARGE.into(),
                        message: format!(
                            "{}/robots.txt is larger than {} KiB: only the first {} KiB were read and applied (Google reads 500 KiB and ignores the rest)",
                            rules.record.origin,
                            MAX_ROBOTS_BYTES / 1024,
                            MAX_ROBOTS_BYTES / 1024
                        ),
                    })
                    .await;
            }
        }
        rules
    }

    /// Stores an error row (counted toward the storage budget).
    pub(crate) async fn error(&self, record: ErrorRecord) -> Result<(), store::StoreError> {
        self.budget.add_bytes(budget::error(&record));
        self.writer.error(record).await
    }

    /// Keeps the `Sitemap:` lines of the robots.txt of an in-scope origin, to be read by
    /// the crawl loop (those already read are skipped then).
    /// A list audit that stays on its listed URLs reads no sitemap it was not given.
    fn note_robots_sitemaps(&self, record: &store::RobotsRecord, url: &Url) {
        if record.sitemaps.is_empty()
            || !self.guard.scope().origin_in_scope(url)
            || self.config.list_only()
        {
            return;
        }
        self.robots_sitemaps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(record.sitemaps.iter().cloned());
    }

    /// Takes the robots.txt sitemaps not read yet.
    fn take_robots_sitemaps(&self) -> Vec<(String, SitemapSource)> {
        std::mem::take(
            &mut *self
                .robots_sitemaps
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
        .into_iter()
        .map(|s| (s, SitemapSource::Robots))
        .collect()
    }

    /// Admits URLs found outside pages (start URLs, variants, sitemap entries) and
    /// returns their ids and the rows / re-queues to write.
    pub(crate) fn admit_loose(
        &self,
        found: &[(Url, String)],
        depth: u32,
        via: FoundVia,
    ) -> (Vec<UrlId>, Vec<NewUrl>, Vec<store::Requeue>) {
        let mut frontier = self.lock_frontier();
        let mut ids = Vec::with_capacity(found.len());
        let mut new = Vec::new();
        let mut requeue = Vec::new();
        for (url, key) in found {
            let admission = frontier.admit(&Found {
                url,
                key,
                depth,
                redirect_depth: 0,
                from: None,
                from_query: false,
                via,
                unfollowed: None,
            });
            ids.push(admission.id());
            match admission {
                Admission::Known(_) => {}
                Admission::New(u) => new.push(u),
                Admission::Requeue(id, depth) => requeue.push(store::Requeue { id, depth }),
            }
        }
        (ids, new, requeue)
    }
}

/// Running counts for progress reports.
#[derive(Debug, Default)]
struct Tally {
    /// Pages fetched, all runs: records whose fetch got a response, the count the store
    /// keeps as `audits.pages_fetched` ([`FetchRecord::answered`]).
    fetched: u64,
    /// URLs processed in this run (fetched, failed, blocked or skipped on the way out).
    processed: u64,
    errors: u64,
    blocked: u64,
    sitemaps: u64,
    /// Fetches by status class and URLs blocked by robots.txt, all runs.
    statuses: StatusCounts,
    /// The latest problems of this run, oldest first, at most [`LATEST_PROBLEMS`].
    problems: VecDeque<Problem>,
}

impl Tally {
    /// Counts one processed URL, `url` the URL requested. A healthy page costs a few
    /// increments and no allocation; a failed fetch or a 4xx / 5xx answer is kept in
    /// the bounded list of the latest problems.
    fn count(&mut self, record: &PageRecord, url: &str) {
        self.processed += 1;
        let failed = record.state == UrlState::Failed;
        match record.state {
            UrlState::Blocked => {
                self.blocked += 1;
                self.statuses.blocked += 1;
            }
            UrlState::Failed => self.errors += 1,
            _ => {}
        }
        let status = record.fetch.as_ref().and_then(|f| f.status);
        if let Some(fetch) = &record.fetch {
            if fetch.answered() {
                self.fetched += 1;
            }
            self.statuses.add(fetch.status);
        }
        if failed || status.is_some_and(|s| s >= 400) {
            let error = failed.then(|| {
                record
                    .fetch
                    .as_ref()
                    .and_then(|f| f.error_kind.clone())
                    .or_else(|| record.errors.first().map(|e| e.kind.clone()))
                    .unwrap_or_else(|| "failed".to_owned())
            });
            let at_ms = record
                .fetch
                .as_ref()
                .map_or_else(store::now_ms, |f| f.fetched_at);
            if self.problems.len() == LATEST_PROBLEMS {
                self.problems.pop_front();
            }
            self.problems.push_back(Problem {
                url: url.to_owned(),
                status,
                error,
                at_ms,
            });
        }
    }
}

/// The counts of the store's rows: fetches by status class and URLs blocked.
fn stored_statuses(summary: &store::AuditSummary) -> StatusCounts {
    let c = &summary.status_classes;
    StatusCounts {
        success: c.success,
        redirect: c.redirect,
        client_error: c.client_error,
        server_error: c.server_error,
        other: c.other,
        no_response: c.no_response,
        blocked: summary.states.blocked,
    }
}

/// The scheme and `www.` variants of a start URL (the URL itself excluded).
pub(crate) fn variants(url: &Url) -> Vec<Url> {
    let Some(host) = url.host_str() else {
        return Vec::new();
    };
    let mut hosts = vec![host.to_owned()];
    hosts.extend(www_twin(host));
    let explicit_port = url.port();
    let mut out = Vec::new();
    for scheme in ["http", "https"] {
        for host in &hosts {
            let mut v = url.clone();
            if v.set_scheme(scheme).is_err() || v.set_host(Some(host)).is_err() {
                continue;
            }
            if v.set_port(explicit_port).is_err() {
                continue;
            }
            if v != *url && !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

fn keyed(ctx: &Ctx, urls: impl IntoIterator<Item = Url>) -> Vec<(Url, String)> {
    urls.into_iter()
        .filter_map(|mut u| {
            u.set_fragment(None);
            let key = rfc3986_key(&u, &ctx.rfc3986).ok()?;
            Some((u, key))
        })
        .collect()
}

pub(crate) async fn run(
    store: &Store,
    audit: AuditId,
    config: &CrawlConfig,
    progress: &watch::Sender<Progress>,
    cancel: &CancellationToken,
) -> Result<CrawlSummary, CrawlError> {
    config.validate()?;
    if let Some(render) = &config.render {
        let chromium = render.settings().chromium;
        if !chromium.is_file() {
            return Err(CrawlError::Config(format!(
                "--render: no Chromium at {} (install the chromium package)",
                chromium.display()
            )));
        }
    }
    let started = Instant::now();
    // Before anything of the audit changes: a start host now on a non-public address the
    // user has not allowed leaves the audit as it was.
    let scope = Scope::new(config)?;
    let policy = Arc::new(AddressPolicy::new(config).await?);
    let updated = keep_start_addresses(store, audit, config, &policy).await?;
    let config = updated.as_ref().unwrap_or(config);
    let point = store.prepare_run(audit).await?;
    let audit_row = store.audit(audit).await?;
    let client = crate::fetch::client(config, &policy)?;

    let frontier = load_frontier(store, audit, config, point.next_url_id).await?;
    let agent = config.robots_agent().to_owned();
    let robots = RobotsCache::new(&agent, Duration::from_millis(config.max_crawl_delay_ms));
    let stored_robots = preload_robots(store, audit, &robots).await?;
    let done = store
        .sitemaps_fetched(audit)
        .await?
        .into_iter()
        .map(|(_, url)| url);
    let book = SitemapBook::new(point.next_sitemap_id, done);
    let probes = crate::probe::ProbeMarks::load(store, audit, config).await?;
    let writer = store
        .writer(
            audit,
            WriterOptions {
                elapsed_base_ms: point.elapsed_ms,
                wal_limit_bytes: budget::wal_limit(config),
                ..WriterOptions::default()
            },
        )
        .await?;
    let dust = online_dust(&frontier, config);
    let mut render_error = None;
    let ctx = Arc::new_cyclic(|weak| Ctx {
        renderer: crate::render::renderer(config, weak).unwrap_or_else(|e| {
            render_error = Some(e);
            None
        }),
        dust,
        config: config.clone(),
        client,
        guard: Guard::new(scope, policy),
        rfc3986: Policy::rfc3986(),
        agent,
        gate: HostGate::new(config.requests_per_second),
        writer,
        budget: Budget::new(config, audit_row.stored_bytes, Some(store), cancel),
        frontier: Mutex::new(frontier),
        robots,
        sitemaps: tokio::sync::Mutex::new(book),
        robots_sitemaps: Mutex::new(Vec::new()),
        probes,
        parsing: crate::page::parse_budget(),
    });
    if let Some(e) = render_error {
        return Err(e);
    }
    ctx.queue_robots_sitemaps(stored_robots);
    let mut tally = Tally {
        fetched: audit_row.pages_fetched,
        errors: audit_row.fetch_errors,
        ..Tally::default()
    };
    if point.urls > 0 {
        // A resumed audit: its answers so far, as the store counts them.
        tally.statuses = stored_statuses(&store.audit_summary(audit).await?);
    }
    // URLs processed by earlier runs, as far as the counters say (the queue estimate
    // below is approximate anyway while pages are in flight).
    let processed_before = audit_row.pages_fetched + audit_row.fetch_errors;
    let errors_before = tally.errors;
    let report = |phase: Phase, tally: &Tally, in_flight: usize| {
        let counts = ctx.lock_frontier().counts();
        let elapsed = started.elapsed();
        let done_now = tally.processed;
        progress.send_replace(Progress {
            audit: Some(audit),
            phase,
            fetched: tally.fetched,
            queued: counts
                .admitted
                .saturating_sub(processed_before + tally.processed + in_flight as u64),
            in_flight: in_flight as u64,
            errors: tally.errors,
            blocked: tally.blocked,
            urls: counts.urls,
            sitemaps: tally.sitemaps,
            pages_per_sec: done_now as f64 / elapsed.as_secs_f64().max(1e-3),
            elapsed,
            statuses: tally.statuses,
            latest_problems: tally.problems.iter().cloned().collect(),
        });
    };

    // Everything below watches the budgets' token: a child of the user's.
    let run_token = ctx.budget.token().clone();
    let timer = duration_timer(&ctx, started);

    report(Phase::Discovery, &tally, 0);
    let (outcome, cancelled) = run_phases(
        store,
        audit,
        &ctx,
        &mut tally,
        &run_token,
        &report,
        audit_row.discovery_done,
    )
    .await;
    if let Some(timer) = timer {
        timer.abort();
    }
    if let Some(renderer) = &ctx.renderer {
        renderer.close().await;
    }
    // A budget that stopped the run (or cut a host off) finishes the audit with what it
    // fetched; only the user's cancel leaves it cancelled.
    let budget_stop = ctx.budget.stop();
    let cancelled = cancelled && budget_stop.is_none();
    report(Phase::Finishing, &tally, 0);

    let RunEnd {
        status,
        failure,
        summary,
        stop,
    } = finish_run(store, audit, config, &ctx, outcome, cancelled, budget_stop).await?;

    let elapsed = started.elapsed();
    let fetched = tally.processed;
    report(Phase::Done, &tally, 0);
    Ok(CrawlSummary {
        audit,
        status,
        fetched,
        errors: tally.errors - errors_before,
        blocked: tally.blocked,
        urls: summary.audit.urls_found,
        queued: summary.states.queued,
        elapsed,
        pages_per_sec: fetched as f64 / elapsed.as_secs_f64().max(1e-3),
        address_refused: ctx.guard.address_refused(),
        scope_refused: ctx.guard.scope_refused(),
        failure,
        stop,
        dust: ctx.dust.as_ref().map(OnlineDust::counts),
    })
}

/// Keeps with the audit the addresses this run found its own hosts at: its resumes, and
/// the audits started like it, must find them there. The configuration with them, when
/// they changed.
async fn keep_start_addresses(
    store: &Store,
    audit: AuditId,
    config: &CrawlConfig,
    policy: &AddressPolicy,
) -> Result<Option<CrawlConfig>, CrawlError> {
    let Some(start_addresses) = policy.start_addresses(&config.start_addresses) else {
        return Ok(None);
    };
    let updated = CrawlConfig {
        start_addresses,
        ..config.clone()
    };
    let json = serde_json::to_string(&updated).map_err(|e| CrawlError::Config(e.to_string()))?;
    store.replace_audit_config(audit, &json).await?;
    Ok(Some(updated))
}

/// The frontier with every URL earlier runs stored.
async fn load_frontier(
    store: &Store,
    audit: AuditId,
    config: &CrawlConfig,
    next_url_id: UrlId,
) -> Result<Frontier, CrawlError> {
    let mut frontier = Frontier::new(config, next_url_id)?;
    let mut after = 0;
    loop {
        let page = store.known_urls(audit, after, RELOAD_PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.id;
        for known in &page {
            frontier.load(known);
        }
    }
    Ok(frontier)
}

/// Loads every robots.txt an earlier run stored into `robots`; returns their origins
/// with their `Sitemap:` lines. Those are read (again skipped if their sitemaps were): a
/// run killed between storing a robots.txt and reading its sitemaps reads them now.
async fn preload_robots(
    store: &Store,
    audit: AuditId,
    robots: &RobotsCache,
) -> Result<Vec<(Vec<String>, Url)>, CrawlError> {
    let mut stored_robots = Vec::new();
    for record in store.robots(audit).await? {
        if let Ok(url) = Url::parse(&record.origin) {
            stored_robots.push((record.sitemaps.clone(), url));
        }
        robots.preload(record);
    }
    Ok(stored_robots)
}

/// DUST learned during the crawl, when the configuration asks for it, starting from the
/// confirmed rules it carries.
fn online_dust(frontier: &Frontier, config: &CrawlConfig) -> Option<OnlineDust> {
    frontier
        .dust_policy()
        .filter(|_| config.learn_dust)
        .map(|policy| {
            let earlier = config
                .prediction_rules()
                .iter()
                .flat_map(|r| r.confirmed().cloned().collect::<Vec<_>>())
                .collect();
            OnlineDust::new(policy, earlier)
        })
}

/// The task that ends the run when its duration budget (`--max-duration`) is spent.
fn duration_timer(ctx: &Arc<Ctx>, started: Instant) -> Option<tokio::task::JoinHandle<()>> {
    ctx.config.max_duration().map(|limit| {
        let ctx = Arc::clone(ctx);
        let deadline = tokio::time::Instant::from_std(started + limit);
        tokio::spawn(async move {
            tokio::time::sleep_until(deadline).await;
            ctx.budget.hit(
                StopReason::MaxDuration,
                format!(
                    "the run's budget of {} was spent (--max-duration)",
                    duration_text(limit)
                ),
            );
        })
    })
}

/// The run's phases: discovery (unless an earlier run did it), the crawl of the frontier,
/// then the URL-variant probes. Returns how they ended and whether the run was
/// cancelled.
async fn run_phases(
    store: &Store,
    audit: AuditId,
    ctx: &Arc<Ctx>,
    tally: &mut Tally,
    run_token: &CancellationToken,
    report: &impl Fn(Phase, &Tally, usize),
    discovery_done: bool,
) -> (Result<(), CrawlError>, bool) {
    let mut outcome = Ok(());
    if !discovery_done {
        // A budget or a cancel ends discovery at once, requests in flight included (a
        // robots.txt or sitemap that never answers does not hold the run past its
        // budget); discovery is not marked done, so the next run does it again.
        outcome = tokio::select! {
            result = discover(ctx, tally, run_token) => result,
            () = run_token.cancelled() => Ok(()),
        };
        if outcome.is_ok() && !run_token.is_cancelled() {
            outcome = ctx.writer.flush().await.map_err(CrawlError::from);
            if outcome.is_ok() {
                outcome = record_log_hits(store, audit, ctx).await;
            }
            if outcome.is_ok() {
                outcome = store
                    .mark_discovery_done(audit)
                    .await
                    .map_err(CrawlError::from);
            }
        }
    }
    let mut cancelled = run_token.is_cancelled();
    if outcome.is_ok() && !cancelled {
        report(Phase::Crawling, tally, 0);
        match crawl(ctx, tally, run_token, report).await {
            Ok(was_cancelled) => cancelled = was_cancelled,
            Err(e) => outcome = Err(e),
        }
    }
    // URL-variant probes (probe.rs), once the frontier has drained: admitted, then fetched.
    if outcome.is_ok() && !cancelled && ctx.budget.stop().is_none() {
        outcome = match crate::probe::admit(store, audit, ctx).await {
            Ok(true) => crawl(ctx, tally, run_token, report)
                .await
                .map(|c| cancelled = c),
            other => other.map(drop),
        };
        if outcome.is_ok() && !cancelled && ctx.budget.stop().is_none() {
            outcome = crate::probe::finish(store, audit, ctx).await;
        }
    }
    (outcome, cancelled)
}

/// How a run ended, as the store now records it.
struct RunEnd {
    status: AuditStatus,
    failure: Option<String>,
    summary: store::AuditSummary,
    stop: Option<AuditStop>,
}

/// Ends the run in the store: closes the writer, decides the audit's status, requeues
/// the URLs claimed and not stored, records the redirect chains, the learned rules, the
/// stop and the status. Returns `outcome`'s error once all that is recorded.
async fn finish_run(
    store: &Store,
    audit: AuditId,
    config: &CrawlConfig,
    ctx: &Ctx,
    mut outcome: Result<(), CrawlError>,
    cancelled: bool,
    budget_stop: Option<AuditStop>,
) -> Result<RunEnd, CrawlError> {
    let closed = ctx.writer.close().await;
    if outcome.is_ok()
        && let Err(e) = closed
    {
        outcome = Err(e.into());
    }

    let (status, failure) = match &outcome {
        Err(e) => (AuditStatus::Failed, Some(e.to_string())),
        Ok(()) if cancelled => (AuditStatus::Cancelled, None),
        Ok(()) => match unreachable(store, audit, config).await? {
            // Nothing answered 2xx: an audit of nothing is a failure, not a finished
            // audit with no findings.
            Some(why) => (AuditStatus::Failed, Some(why)),
            None => (AuditStatus::Finished, None),
        },
    };
    if status != AuditStatus::Finished || budget_stop.is_some() {
        // Claimed URLs whose results were not stored go back to the queue now, so the
        // audit's numbers are right before it is resumed.
        store.requeue_interrupted(audit).await?;
    }
    if status != AuditStatus::Failed {
        let edges = store.redirect_edges(audit).await?;
        let chains = redirects::problem_chains(&edges, config.max_redirects);
        store.replace_redirect_chains(audit, &chains).await?;
    }
    if let Some(dust) = &ctx.dust {
        keep_learned_rules(store, audit, config, dust).await?;
    }
    let summary = store.audit_summary(audit).await?;
    let stop = match budget_stop {
        Some(mut stop) => {
            stop.detail = format!(
                "{}; {} pages fetched, {} URLs left queued",
                stop.detail, summary.audit.pages_fetched, summary.states.queued
            );
            Some(stop)
        }
        None if status == AuditStatus::Finished => limit_stop(config, &summary),
        None => None,
    };
    store
        .record_run_end(audit, stop.as_ref(), ctx.budget.bytes())
        .await?;
    store
        .set_audit_status(audit, status, failure.as_deref())
        .await?;
    outcome?;
    Ok(RunEnd {
        status,
        failure,
        summary,
        stop,
    })
}

/// Keeps the rules the run learned (and those it dropped, marked rejected) in the
/// audit's stored configuration: a resumed run predicts with them, and the analysis
/// measures and reports them as it does rules carried from an earlier audit.
async fn keep_learned_rules(
    store: &Store,
    audit: AuditId,
    config: &CrawlConfig,
    dust: &OnlineDust,
) -> Result<(), CrawlError> {
    let learned = dust.rules();
    if learned.is_empty() {
        return Ok(());
    }
    let mut stored = config.clone();
    let rules = stored
        .learned_during_crawl
        .get_or_insert_with(|| rules::LearnedRules {
            policy: dust.policy().clone(),
            rules: Vec::new(),
        });
    for rule in learned {
        match rules.rules.iter_mut().find(|r| r.id == rule.id) {
            Some(r) => r.status = rule.status,
            None => rules.rules.push(rule),
        }
    }
    let json = serde_json::to_string(&stored).map_err(|e| CrawlError::Config(e.to_string()))?;
    store.replace_audit_config(audit, &json).await?;
    Ok(())
}

/// The limit a finished crawl ran into, if URLs were left uncrawled because of one:
/// `max_urls` first, then `max_depth`.
fn limit_stop(config: &CrawlConfig, summary: &store::AuditSummary) -> Option<AuditStop> {
    let skipped = |kind: ReasonKind| {
        summary
            .skipped_by_reason
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(0, |(_, n)| *n)
    };
    let urls = skipped(ReasonKind::MaxUrls);
    if urls > 0 {
        return Some(AuditStop {
            reason: StopReason::MaxUrls,
            detail: format!(
                "the audit holds its maximum of {} URLs (--max-urls); {urls} more URLs found were not crawled",
                config.max_urls
            ),
        });
    }
    let deep = skipped(ReasonKind::MaxDepth);
    (deep > 0).then(|| AuditStop {
        reason: StopReason::MaxDepth,
        detail: format!(
            "{deep} URLs deeper than {} link hops were not crawled (--max-depth)",
            config.max_depth
        ),
    })
}

/// `2h 5m`, `90 s`: a duration as people write it.
fn duration_text(d: Duration) -> String {
    let secs = d.as_secs();
    match secs {
        0..120 => format!("{secs} s"),
        120..7200 => format!("{}m {}s", secs / 60, secs % 60),
        _ => format!("{}h {}m", secs / 3600, secs % 3600 / 60),
    }
}

/// Why the site could not be audited, when no URL answered 2xx: what each start URL
/// got (an error or a status).
async fn unreachable(
    store: &Store,
    audit: AuditId,
    config: &CrawlConfig,
) -> Result<Option<String>, CrawlError> {
    if store.audit_summary(audit).await?.status_classes.success > 0 {
        return Ok(None);
    }
    let mut answers = Vec::new();
    // A list audit names what its first listed URLs got.
    let starts: Vec<&String> = match &config.list {
        Some(list) if !list.urls.is_empty() => list.urls.iter().take(5).map(|u| &u.url).collect(),
        _ => config.start_urls.iter().collect(),
    };
    for start in starts {
        let Ok(key) = canon::equivalence_key(start, &Policy::rfc3986()) else {
            answers.push(format!("{start}: not a valid http(s) URL"));
            continue;
        };
        let fetch = match store.url_by_rfc3986(audit, &key).await? {
            Some(row) => store.fetch(audit, row.id).await?,
            None => None,
        };
        answers.push(match fetch {
            Some(f) => match (f.status, f.error_message, f.error_kind) {
                (Some(s), _, _) => format!("{start} answered {s}"),
                (None, Some(m), _) => format!("{start}: {m}"),
                (None, None, Some(k)) => format!("{start}: {k}"),
                (None, None, None) => format!("{start}: no response"),
            },
            None => format!("{start} was not requested"),
        });
    }
    Ok(Some(format!(
        "the site could not be audited: no page answered 2xx ({})",
        answers.join("; ")
    )))
}

/// Stores the access-log requests of a list audit's URLs (once they are stored).
async fn record_log_hits(store: &Store, audit: AuditId, ctx: &Ctx) -> Result<(), CrawlError> {
    let Some(list) = ctx.config.list.as_ref().filter(|l| l.has_log_hits()) else {
        return Ok(());
    };
    let records: Vec<store::LogHitRecord> = list
        .urls
        .iter()
        .filter(|u| u.requests() > 0)
        .filter_map(|u| {
            let mut url = Url::parse(&u.url).ok()?;
            url.set_fragment(None);
            Some(store::LogHitRecord {
                url_rfc3986: rfc3986_key(&url, &ctx.rfc3986).ok()?,
                verified_bot_requests: u.verified_bot_requests,
                unverified_bot_requests: u.unverified_bot_requests,
                fake_bot_requests: u.fake_bot_requests,
                other_requests: u.other_requests,
            })
        })
        .collect();
    store.record_log_hits(audit, &records).await?;
    Ok(())
}

/// Listed URLs admitted (and handed to the writer) per batch.
const LIST_BATCH: usize = 5_000;

/// A list audit's listed URLs, admitted as start URLs.
async fn admit_listed(ctx: &Ctx, list: &crate::ListMode) -> Result<(), CrawlError> {
    for chunk in list.urls.chunks(LIST_BATCH) {
        let urls = chunk.iter().filter_map(|u| Url::parse(&u.url).ok());
        let (_, new, _) = ctx.admit_loose(&keyed(ctx, urls), 0, FoundVia::Start);
        ctx.writer.urls(new).await?;
    }
    Ok(())
}

/// Start URLs and their variants, robots.txt of the start origins, sitemaps. A list
/// audit admits its listed URLs as start URLs and, unless it follows them, reads only
/// the sitemaps it was given.
async fn discover(
    ctx: &Ctx,
    tally: &mut Tally,
    cancel: &CancellationToken,
) -> Result<(), CrawlError> {
    if let Some(list) = &ctx.config.list {
        admit_listed(ctx, list).await?;
        if list.list_only() {
            let seeds = ctx
                .config
                .sitemaps
                .iter()
                .map(|s| (s.clone(), SitemapSource::User))
                .collect();
            tally.sitemaps += sitemaps::read_all(ctx, seeds, cancel).await?;
            return Ok(());
        }
    }
    let starts: Vec<Url> = ctx
        .config
        .start_urls
        .iter()
        .filter_map(|s| Url::parse(s).ok())
        .collect();
    let (_, new, _) = ctx.admit_loose(&keyed(ctx, starts.clone()), 0, FoundVia::Start);
    ctx.writer.urls(new).await?;
    let all_variants: Vec<Url> = starts.iter().flat_map(variants).collect();
    let (_, new, _) = ctx.admit_loose(&keyed(ctx, all_variants), 0, FoundVia::Variant);
    ctx.writer.urls(new).await?;

    let mut seeds: Vec<(String, SitemapSource)> = Vec::new();
    for start in &starts {
        let rules = ctx.robots_for(start).await;
        seeds.extend(
            rules
                .record
                .sitemaps
                .iter()
                .map(|s| (s.clone(), SitemapSource::Robots)),
        );
        if ctx.config.default_sitemap
            && let Ok(default) = start.join("/sitemap.xml")
        {
            seeds.push((default.to_string(), SitemapSource::Default));
        }
    }
    seeds.extend(
        ctx.config
            .sitemaps
            .iter()
            .map(|s| (s.clone(), SitemapSource::User)),
    );
    tally.sitemaps += sitemaps::read_all(ctx, seeds, cancel).await?;
    Ok(())
}

/// The fetch loop. Returns whether it stopped because of `cancel`.
async fn crawl(
    ctx: &Arc<Ctx>,
    tally: &mut Tally,
    cancel: &CancellationToken,
    report: &impl Fn(Phase, &Tally, usize),
) -> Result<bool, CrawlError> {
    let concurrency = ctx.config.concurrency.max(1);
    let claim_size = u32::try_from((concurrency * 4).clamp(16, 256)).unwrap_or(64);
    let mut tasks: JoinSet<PageRecord> = JoinSet::new();
    // Each task's URL id and URL (its host for the slow-host cut-off, the URL for the
    // latest problems).
    let mut running: HashMap<tokio::task::Id, (UrlId, String)> = HashMap::new();
    let mut slow = SlowHosts::new(&ctx.config);
    let mut ready: VecDeque<Claimed> = VecDeque::new();
    // Sitemaps named by robots.txt files fetched during the crawl: one read at a time,
    // beside the page tasks.
    let mut sitemap_reads: JoinSet<Result<u64, CrawlError>> = JoinSet::new();
    // Set when a claim came back empty; cleared by every stored result (which may have
    // queued new URLs).
    let mut drained = false;
    let mut last_report = Instant::now();
    let result = loop {
        if cancel.is_cancelled() {
            break Ok(true);
        }
        if sitemap_reads.is_empty() {
            let seeds = ctx.take_robots_sitemaps();
            if !seeds.is_empty() {
                let task_ctx = Arc::clone(ctx);
                let token = cancel.clone();
                sitemap_reads
                    .spawn(async move { sitemaps::read_all(&task_ctx, seeds, &token).await });
            }
        }
        while tasks.len() < concurrency {
            if ready.is_empty() && !drained {
                match ctx.writer.claim(claim_size).await {
                    Ok(batch) if batch.is_empty() => drained = true,
                    Ok(batch) => ready.extend(batch),
                    Err(e) => return Err(e.into()),
                }
            }
            let Some(claimed) = ready.pop_front() else {
                break;
            };
            if slow.is_cut(budget::host_of(&claimed.url)) {
                // Left `fetching`: queued again when the run ends.
                continue;
            }
            let task_ctx = Arc::clone(ctx);
            let id = claimed.id;
            let url = claimed.url.clone();
            let handle = tasks.spawn(async move { page::process(&task_ctx, &claimed).await });
            running.insert(handle.id(), (id, url));
        }
        if tasks.is_empty() && sitemap_reads.is_empty() {
            break Ok(false);
        }
        let joined = tokio::select! {
            () = cancel.cancelled() => break Ok(true),
            Some(read) = sitemap_reads.join_next(), if !sitemap_reads.is_empty() => {
                match read {
                    Ok(Ok(n)) => tally.sitemaps += n,
                    Ok(Err(e)) => break Err(e),
                    Err(error) => {
                        let record = ErrorRecord {
                            url_id: None,
                            phase: "sitemap".into(),
                            kind: "panic".into(),
                            message: error.to_string(),
                        };
                        if let Err(e) = ctx.error(record).await {
                            break Err(e.into());
                        }
                    }
                }
                // The sitemaps may have queued URLs.
                drained = false;
                continue;
            }
            joined = tasks.join_next_with_id(), if !tasks.is_empty() => joined,
        };
        let (record, url) = match joined {
            None => continue,
            Some(Ok((task, record))) => {
                let url = running.remove(&task).map(|(_, url)| url);
                if let Some(url) = &url
                    && let Some(fetch) = &record.fetch
                    && let Some(detail) = slow.record(budget::host_of(url), fetch.total_ms)
                {
                    ctx.budget.note(StopReason::SlowHost, detail);
                }
                (record, url.unwrap_or_default())
            }
            Some(Err(error)) => {
                let Some((url_id, url)) = running.remove(&error.id()) else {
                    continue;
                };
                (panicked(url_id, &error), url)
            }
        };
        tally.count(&record, &url);
        ctx.budget.add_page_bytes(budget::page(&record));
        if let Err(e) = ctx.writer.page(record).await {
            break Err(e.into());
        }
        if ctx.budget.wants_calibration() {
            // Everything counted is in the database file once the writer committed it
            // and checkpointed the log.
            if let Err(e) = ctx.writer.checkpoint().await {
                break Err(e.into());
            }
            ctx.budget.calibrate();
        }
        drained = false;
        if last_report.elapsed() >= Duration::from_millis(50) {
            report(Phase::Crawling, tally, tasks.len());
            last_report = Instant::now();
        }
    };
    // After a cancel, pages already in flight get a moment to finish and be stored (so a
    // resumed audit does not request them again); whatever is still running then (or after
    // a store failure) is abandoned: its URLs stay `fetching` and are queued again.
    if matches!(result, Ok(true)) {
        let grace = tokio::time::Instant::now() + CANCEL_GRACE;
        while let Ok(Some(Ok((task, record)))) =
            tokio::time::timeout_at(grace, tasks.join_next_with_id()).await
        {
            let url = running
                .remove(&task)
                .map(|(_, url)| url)
                .unwrap_or_default();
            tally.count(&record, &url);
            ctx.budget.add_page_bytes(budget::page(&record));
            if ctx.writer.page(record).await.is_err() {
                break;
            }
        }
    }
    tasks.shutdown().await;
    sitemap_reads.shutdown().await;
    report(Phase::Crawling, tally, 0);
    result
}

/// The record of a URL whose processing panicked: the audit goes on without it.
fn panicked(url_id: UrlId, error: &tokio::task::JoinError) -> PageRecord {
    let mut record = PageRecord::new(url_id, UrlState::Failed);
    record.reason = Some(ReasonKind::Panic.into());
    record.fetch = Some(FetchRecord {
        fetched_at: store::now_ms(),
        error_kind: Some(store::FetchErrorKind::Panic.as_str().into()),
        error_message: Some(error.to_string()),
        ..FetchRecord::default()
    });
    record.errors.push(ErrorRecord {
        url_id: Some(url_id),
        phase: "crawl".into(),
        kind: "panic".into(),
        message: error.to_string(),
    });
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_cover_scheme_and_www_and_keep_an_explicit_port() {
        let url = Url::parse("https://example.test:8443/start?x=1").unwrap();
        let v: Vec<String> = variants(&url).iter().map(|u| u.to_string()).collect();
        assert_eq!(
            v,
            vec![
                "http://example.test:8443/start?x=1",
                "http://www.example.test:8443/start?x=1",
                "https://www.example.test:8443/start?x=1",
            ]
        );
        let url = Url::parse("http://www.example.test/").unwrap();
        let v: Vec<String> = variants(&url).iter().map(|u| u.to_string()).collect();
        assert_eq!(
            v,
            vec![
                "http://example.test/",
                "https://www.example.test/",
                "https://example.test/"
            ]
        );
        assert!(
            variants(&Url::parse("http://127.0.0.1:9/").unwrap())
                .iter()
                .all(|u| u.host_str() == Some("127.0.0.1"))
        );
    }
}
