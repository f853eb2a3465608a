//! `dustpan verify`: a fix plan checked on the live site after deployment.

use super::db::DbArgs;
use crate::terminal::safe;
use anyhow::{Context, Result, bail};
use audit::verify::{Check, Verdict, audited_origins, judge, plan_requests};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use store::AuditId;

/// The plan in `path`: a folder written by `dustpan export` (its redirect_map.csv,
/// canonicals_to_set.csv and sitemap_changes.csv, each optional), or one
/// redirect_map.csv.
pub fn read_plan(path: &Path) -> Result<audit::FixFiles> {
    let read = |p: &Path| -> Result<Option<String>> {
        match std::fs::read_to_string(p) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", p.display())),
        }
    };
    let (redirects, canonicals, sitemap) = if path.is_dir() {
        let files = [
            "redirect_map.csv",
            "canonicals_to_set.csv",
            "sitemap_changes.csv",
        ]
        .map(|f| read(&path.join(f)));
        let [r, c, s] = files;
        let (r, c, s) = (r?, c?, s?);
        if r.is_none() && c.is_none() && s.is_none() {
            anyhow::bail!(
                "{} holds no redirect_map.csv, canonicals_to_set.csv or sitemap_changes.csv",
                path.display()
            );
        }
        (r, c, s)
    } else {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        (Some(text), None, None)
    };
    audit::simulate::read_fix_files(
        redirects.as_deref(),
        canonicals.as_deref(),
        sitemap.as_deref(),
    )
    .with_context(|| format!("cannot read the plan in {}", path.display()))
}

/// Verify a deployed fix plan on the live site: each planned redirect, canonical and
/// sitemap line is requested (a list audit of the plan's URLs and sitemaps, with the
/// audit's crawl configuration: its scope, address policy, robots.txt, rate and limits;
/// only URLs on the origins the audit crawled) and marked done, missing, wrong (another
/// target or status, a chain, another canonical) or harmful (now an error). The list
/// audit is stored, so `dustpan diff` compares it with the audit and with later
/// verifications, and `--audit-of` judges a stored one again.
///
/// Exits 0 when every checked line is done, 1 when one is not, 2 on an error.
#[derive(clap::Args)]
pub struct Args {
    /// The audit the plan was made from (see `dustpan audits`).
    pub audit: i64,
    /// The plan: a folder written by `dustpan export` (its redirect_map.csv,
    /// canonicals_to_set.csv and sitemap_changes.csv), or one redirect_map.csv.
    #[arg(long, value_name = "PATH")]
    pub plan: PathBuf,
    /// Send requests for HOST to ADDRESS instead of where the audit sent them, as curl's
    /// --resolve: `host:port:address` (repeatable); checks a staging server before the
    /// live one.
    #[arg(long = "resolve", value_name = "HOST:PORT:ADDR")]
    pub resolves: Vec<String>,
    /// Trust this PEM certificate authority too (repeatable).
    #[arg(long = "ca-cert", value_name = "FILE")]
    pub ca_certs: Vec<PathBuf>,
    /// Judge the stored verification audit ID again instead of requesting anything.
    #[arg(long, value_name = "ID", conflicts_with_all = ["resolves", "ca_certs"])]
    pub audit_of: Option<i64>,
    /// Print the checks as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArgs,
}

/// What a verification found.
struct Report {
    /// The audit the plan was made from.
    audit: i64,
    /// The stored list audit of the live answers.
    verification: i64,
    /// Lines left out: not on one of the audit's origins.
    outside_scope: u32,
    checks: Vec<Check>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let report = runtime.block_on(verify(&args))?;
    if args.json {
        let json = serde_json::json!({
            "audit": report.audit,
            "verification": report.verification,
            "outside_scope": report.outside_scope,
            "checks": report.checks,
        });
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        print(&report);
    }
    let all_done = report
        .checks
        .iter()
        .all(|c| matches!(c.verdict, Verdict::Done | Verdict::NotChecked));
    Ok(if all_done {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

async fn verify(args: &Args) -> Result<Report> {
    let plan = read_plan(&args.plan)?;
    let store = args.db.open().await?;
    let id = AuditId(args.audit);
    let row = store.audit(id).await?;
    let policy = view::AnalysisPolicy::of_audit(&row)?;
    let original = view::workflow::load(&store, id, policy.policy.clone()).await?;
    let requests = plan_requests(&plan, &audited_origins(&original.input));
    let verification = match args.audit_of {
        Some(v) => AuditId(v),
        None => {
            if requests.urls.is_empty() && requests.sitemaps.is_empty() {
                bail!(
                    "the plan names no URL on the origins audit {} crawled",
                    id.0
                );
            }
            let mut config = crawl::stored_config(&row)?;
            for r in &args.resolves {
                let host = r.split(':').next().unwrap_or("").to_owned();
                config
                    .resolve
                    .retain(|old| old.split(':').next() != Some(host.as_str()));
                config.resolve.push(r.clone());
            }
            for ca in &args.ca_certs {
                config.extra_root_certs_pem.push(
                    std::fs::read_to_string(ca)
                        .with_context(|| format!("cannot read {}", ca.display()))?,
                );
            }
            config.sitemaps = requests.sitemaps.clone();
            config.probe_variants = false;
            config.learn_dust = false;
            config.learned_rules = None;
            config.learned_during_crawl = None;
            config.follow_canonicals = false;
            config.follow_hreflang = false;
            config.default_sitemap = false;
            let site = config.list.as_ref().and_then(|l| l.site.clone());
            config.set_list(crawl::ListMode {
                urls: requests
                    .urls
                    .iter()
                    .map(|u| crawl::ListedUrl {
                        url: u.clone(),
                        ..crawl::ListedUrl::default()
                    })
                    .collect(),
                site,
                ..crawl::ListMode::default()
            });
            let (progress, _watch) = tokio::sync::watch::channel(crawl::Progress::default());
            let cancel = crawl::CancellationToken::new();
            let summary = crawl::start_audit(&store, &config, &progress, &cancel).await?;
            view::workflow::finish_audit(&store, summary.audit).await?;
            summary.audit
        }
    };
    let live = view::workflow::load(&store, verification, policy.policy).await?;
    store.close().await;
    Ok(Report {
        audit: id.0,
        verification: verification.0,
        outside_scope: requests.outside,
        checks: judge(&plan, &live.input),
    })
}

fn print(report: &Report) {
    println!(
        "Plan of audit {} verified on the live site (stored as audit {}):",
        report.audit, report.verification
    );
    for v in Verdict::ALL {
        let n = report.checks.iter().filter(|c| c.verdict == v).count();
        println!("  {:<12} {n}", v.as_str());
    }
    if report.outside_scope > 0 {
        println!(
            "  {} lines name a URL outside the audit's origins and were not requested.",
            report.outside_scope
        );
    }
    for c in report
        .checks
        .iter()
        .filter(|c| !matches!(c.verdict, Verdict::Done | Verdict::NotChecked))
    {
        println!(
            "\n{} {} {}\n  planned: {}\n  found:   {}",
            c.verdict.as_str(),
            c.kind.as_str(),
            safe(&c.url),
            safe(&c.planned),
            safe(&c.found)
        );
    }
}
