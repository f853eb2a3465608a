//! `dustpan audit`: crawl a site and its sitemaps into the audit database.

use super::db::DbArgs;
use anyhow::{Context, Result};
use crawl::{CancellationToken, CrawlConfig, CrawlSummary, Progress};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use store::{AuditId, Store};

/// Crawl a site (and its sitemaps, robots.txt and scheme / www variants) into the
/// audit database, or resume an audit that was cancelled or killed.
///
/// Press Ctrl-C to stop: pages in flight are stored and the audit can be resumed
/// with `--resume ID`.
#[derive(clap::Args)]
pub struct Args {
    /// The start URL (http or https; a bare host name such as example.com is audited
    /// over https). More start URLs with --start.
    #[arg(required_unless_present_any = ["resume", "config", "like"], conflicts_with_all = ["resume", "like"])]
    url: Option<String>,
    /// Resume audit ID where it stopped, with the configuration it started with (so
    /// no other crawl option may be given).
    #[arg(long, value_name = "ID", conflicts_with_all = [
        "config", "starts", "max_urls", "max_depth", "concurrency", "rate", "no_robots",
        "user_agent", "include_subdomains", "includes", "excludes", "sitemaps", "resolves",
        "ca_certs", "timeout", "max_response_bytes", "trap_budget", "facet_budget", "rules",
        "any_port",
    ])]
    resume: Option<i64>,
    /// Start a new audit with the configuration audit ID was started with (for scheduled
    /// re-audits, e.g. from cron), so no other crawl option may be given.
    #[arg(long, value_name = "ID", conflicts_with_all = [
        "resume", "config", "starts", "max_urls", "max_depth", "concurrency", "rate",
        "no_robots", "user_agent", "include_subdomains", "includes", "excludes", "sitemaps",
        "resolves", "ca_certs", "timeout", "max_response_bytes", "trap_budget", "facet_budget",
        "rules", "any_port",
    ])]
    like: Option<i64>,
    /// A crawl configuration file (TOML, or JSON when it ends in .json) with any field
    /// of the crawl configuration; options given on the command line override it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Another start URL (repeatable).
    #[arg(long = "start", value_name = "URL")]
    starts: Vec<String>,
    /// Stop admitting new URLs after this many [default: 50000].
    #[arg(long, value_name = "N")]
    max_urls: Option<u64>,
    /// Most link hops from a start URL [default: 100].
    #[arg(long, value_name = "N")]
    max_depth: Option<u32>,
    /// Requests in flight at once [default: 8].
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    /// Most requests per second to one host [default: no limit beyond --concurrency].
    #[arg(long, value_name = "N")]
    rate: Option<f64>,
    /// Ignore robots.txt (its blocks are then not recorded either).
    #[arg(long)]
    no_robots: bool,
    /// The User-Agent header (its first token is matched against robots.txt).
    #[arg(long, value_name = "UA")]
    user_agent: Option<String>,
    /// Crawl subdomains of the start host too.
    #[arg(long)]
    include_subdomains: bool,
    /// Crawl every port of the start hosts, not only the start URLs' ports (another port
    /// of the same host is out of scope by default).
    #[arg(long)]
    any_port: bool,
    /// Only crawl URLs matching this regular expression (repeatable).
    #[arg(long = "include", value_name = "REGEX")]
    includes: Vec<String>,
    /// Do not crawl URLs matching this regular expression (repeatable).
    #[arg(long = "exclude", value_name = "REGEX")]
    excludes: Vec<String>,
    /// Read this sitemap too (repeatable).
    #[arg(long = "sitemap", value_name = "URL")]
    sitemaps: Vec<String>,
    /// Send requests for HOST to ADDRESS, as curl's --resolve: `host:port:address`
    /// (repeatable). Audits a staging server or a local copy under the real names.
    #[arg(long = "resolve", value_name = "HOST:PORT:ADDR")]
    resolves: Vec<String>,
    /// Trust this PEM certificate authority too (repeatable), for servers with a
    /// private CA.
    #[arg(long = "ca-cert", value_name = "FILE")]
    ca_certs: Vec<PathBuf>,
    /// Give up on a request after this many seconds [default: 60].
    #[arg(long, value_name = "SECS")]
    timeout: Option<u64>,
    /// Read at most this many bytes of a response body [default: 10485760].
    #[arg(long, value_name = "BYTES")]
    max_response_bytes: Option<u64>,
    /// Most URLs admitted per path pattern that differs only in numbers, the crawler
    /// trap guard; raise it for large numbered catalogues (0 = off) [default: 10000].
    #[arg(long, value_name = "N")]
    trap_budget: Option<u64>,
    /// Most URLs with two or more query parameters admitted per path, the guard against
    /// faceted navigation (filters that combine without end); a URL repeating a
    /// parameter with its value is never crawled. Raise it to crawl more filter
    /// combinations (0 = off) [default: 200].
    #[arg(long, value_name = "N")]
    facet_budget: Option<u64>,
    /// Learned DUST rules from an earlier audit (`dustpan report --save-rules FILE`):
    /// URLs they predict to duplicate a URL already queued are skipped, except a
    /// verification sample that is fetched to count wrong predictions.
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    db: DbArgs,
}

impl Args {
    fn crawl_config(&self) -> Result<CrawlConfig> {
        let mut config = match &self.config {
            Some(path) => load_config(path)?,
            None => CrawlConfig::default(),
        };
        if let Some(url) = &self.url {
            config.start_urls = vec![url.clone()];
        }
        config.start_urls.extend(self.starts.iter().cloned());
        if let Some(n) = self.max_urls {
            config.max_urls = n;
        }
        if let Some(n) = self.max_depth {
            config.max_depth = n;
        }
        if let Some(n) = self.concurrency {
            config.concurrency = n.max(1);
        }
        if let Some(r) = self.rate {
            config.requests_per_second = r;
        }
        if self.no_robots {
            config.obey_robots = false;
        }
        if let Some(ua) = &self.user_agent {
            config.user_agent = ua.clone();
        }
        config.include_subdomains |= self.include_subdomains;
        config.any_port |= self.any_port;
        config
            .include_patterns
            .extend(self.includes.iter().cloned());
        config
            .exclude_patterns
            .extend(self.excludes.iter().cloned());
        config.sitemaps.extend(self.sitemaps.iter().cloned());
        config.resolve.extend(self.resolves.iter().cloned());
        for path in &self.ca_certs {
            let pem = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read CA certificate {}", path.display()))?;
            config.extra_root_certs_pem.push(pem);
        }
        if let Some(secs) = self.timeout {
            config.total_timeout_ms = secs.saturating_mul(1000);
        }
        if let Some(n) = self.max_response_bytes {
            config.max_response_bytes = n;
        }
        if let Some(n) = self.trap_budget {
            config.trap_pattern_budget = n;
        }
        if let Some(n) = self.facet_budget {
            config.facet_budget = n;
        }
        if let Some(path) = &self.rules {
            config.learned_rules = Some(load_rules(path)?);
        }
        // A bare host name (`example.com`) is audited as https://example.com (its http
        // variant is requested too).
        let typed = config.start_urls.clone();
        config.normalize_start_urls();
        for (typed, url) in typed.iter().zip(&config.start_urls) {
            if typed.trim() != url {
                eprintln!("auditing {url} (no scheme given; http is tried too)");
            }
        }
        config.validate()?;
        Ok(config)
    }
}

/// Reads learned rules written by `dustpan report --save-rules`.
pub fn load_rules(path: &std::path::Path) -> Result<audit::LearnedRules> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read learned rules {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("invalid learned rules file {}", path.display()))
}

fn load_config(path: &std::path::Path) -> Result<CrawlConfig> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read crawl configuration {}", path.display()))?;
    let config = if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        serde_json::from_str(&text).map_err(anyhow::Error::from)
    } else {
        toml::from_str(&text).map_err(anyhow::Error::from)
    };
    config.with_context(|| format!("invalid crawl configuration {}", path.display()))
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = args.db.open().await?;
        let summary = match (args.resume, args.like) {
            (None, Some(id)) => {
                let id = AuditId(id);
                let config = crawl::audit_config(&store, id)
                    .await
                    .with_context(|| format!("cannot read the configuration of audit {}", id.0))?;
                crawl_with_progress(args.quiet, |tx, cancel| {
                    let store = store.clone();
                    async move { crawl::start_audit(&store, &config, &tx, &cancel).await }
                })
                .await?
            }
            (Some(id), _) => {
                crawl_with_progress(args.quiet, |tx, cancel| {
                    let store = store.clone();
                    async move { crawl::resume_audit(&store, AuditId(id), &tx, &cancel).await }
                })
                .await?
            }
            (None, None) => {
                let config = args.crawl_config()?;
                crawl_with_progress(args.quiet, |tx, cancel| {
                    let store = store.clone();
                    async move { crawl::start_audit(&store, &config, &tx, &cancel).await }
                })
                .await?
            }
        };
        print_summary(&store, &summary).await?;
        after_crawl(&store, &summary).await?;
        Ok(exit_code(&summary))
    })
}

/// After a finished crawl: the workflow's finishing step (DUST rule validation, the
/// analysis and its stored summary), printed.
pub async fn after_crawl(
    store: &Store,
    summary: &CrawlSummary,
) -> Result<Option<view::workflow::Finished>> {
    if summary.status != store::AuditStatus::Finished {
        return Ok(None);
    }
    let finished = view::workflow::finish_audit(store, summary.audit)
        .await
        .with_context(|| format!("cannot finish audit {}", summary.audit.0))?;
    if let Some(check) = &finished.predictions {
        println!(
            "  Learned rules {} fetches saved (predicted duplicates skipped); {} predictions checked by fetching, {} wrong ({:.0}%)",
            check.skipped,
            check.checked,
            check.wrong,
            check.wrong_rate() * 100.0
        );
    }
    for v in &finished.validations {
        println!(
            "  DUST rule     {}: {} samples fetched, {} false positives ({:.0}%), now {}",
            v.rule,
            v.tested,
            v.false_positives,
            v.false_positive_rate * 100.0,
            v.status.as_str()
        );
    }
    Ok(Some(finished))
}

/// The exit code for a finished (0), cancelled (130) or failed (1) audit.
pub fn exit_code(summary: &CrawlSummary) -> ExitCode {
    match summary.status {
        store::AuditStatus::Finished => ExitCode::SUCCESS,
        store::AuditStatus::Cancelled => ExitCode::from(130),
        _ => ExitCode::from(1),
    }
}

/// Runs a crawl with a progress bar on stderr and Ctrl-C wired to a graceful cancel.
pub async fn crawl_with_progress<F, Fut>(quiet: bool, start: F) -> Result<CrawlSummary>
where
    F: FnOnce(tokio::sync::watch::Sender<Progress>, CancellationToken) -> Fut,
    Fut: std::future::Future<Output = Result<CrawlSummary, crawl::CrawlError>> + Send + 'static,
{
    let (tx, mut rx) = tokio::sync::watch::channel(Progress::default());
    let cancel = CancellationToken::new();
    let ctrl_c = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("\nstopping: storing the pages in flight (Ctrl-C again to kill)");
                cancel.cancel();
                if tokio::signal::ctrl_c().await.is_ok() {
                    std::process::exit(130);
                }
            }
        })
    };
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new_spinner()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(Duration::from_millis(120));
    let crawl = tokio::spawn(start(tx, cancel.clone()));
    let drawer = {
        let bar = bar.clone();
        tokio::spawn(async move {
            while rx.changed().await.is_ok() {
                let p = rx.borrow_and_update().clone();
                bar.set_message(format!(
                    "{:?} | fetched {} | queued {} | in flight {} | errors {} | blocked {} | {:.0} pages/s",
                    p.phase, p.fetched, p.queued, p.in_flight, p.errors, p.blocked, p.pages_per_sec
                ));
            }
        })
    };
    let result = crawl.await.context("the crawl task panicked")?;
    drawer.abort();
    ctrl_c.abort();
    bar.finish_and_clear();
    Ok(result?)
}

/// Prints the end-of-audit summary from the database.
pub async fn print_summary(store: &Store, summary: &CrawlSummary) -> Result<()> {
    let s = store.audit_summary(summary.audit).await?;
    let id = summary.audit.0;
    let status = summary.status.as_str();
    println!(
        "Audit {id} {status} in {:.1} s ({:.0} URLs/s this run)",
        summary.elapsed.as_secs_f64(),
        summary.pages_per_sec
    );
    let st = &s.states;
    println!(
        "  URLs          {} recorded: {} done, {} blocked by robots.txt, {} skipped, {} failed, {} queued",
        s.audit.urls_found, st.done, st.blocked, st.skipped, st.failed, st.queued
    );
    println!(
        "  Pages         {} fetched (answered with an HTTP status)",
        s.audit.pages_fetched
    );
    let c = &s.status_classes;
    println!(
        "  Status codes  2xx {}  3xx {}  4xx {}  5xx {}  other {}  no response {}",
        c.success, c.redirect, c.client_error, c.server_error, c.other, c.no_response
    );
    println!(
        "  Redirects     {} hops, {} chains with a loop or too many hops",
        s.redirects, s.redirect_problems
    );
    println!(
        "  Canonicals    {} declarations on {} pages",
        s.canonicals, s.pages_with_canonical
    );
    println!(
        "  Sitemaps      {} read, {} URLs listed",
        s.sitemaps, s.sitemap_urls
    );
    println!("  Links         {}", s.links);
    println!("  Errors        {}", s.errors);
    if summary.scope_refused + summary.address_refused > 0 {
        println!(
            "  Refused       {} requests outside the audit's origins, {} to an address only the audit's own origins may use (this run)",
            summary.scope_refused, summary.address_refused
        );
    }
    if !s.skipped_by_reason.is_empty() {
        let reasons: Vec<String> = s
            .skipped_by_reason
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        println!("  Skipped       {}", reasons.join(", "));
    }
    match summary.status {
        store::AuditStatus::Cancelled => {
            println!("Resume with: dustpan audit --resume {id}");
        }
        store::AuditStatus::Failed => {
            println!(
                "Failed: {}",
                summary.failure.as_deref().unwrap_or("unknown reason")
            );
            println!("Resume with: dustpan audit --resume {id}");
        }
        _ => {}
    }
    Ok(())
}
