//! `dustpan verify`: a fix plan checked on the live site after deployment.

use super::db::DbArgs;
use crate::terminal::safe;
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;
use store::AuditId;
use view::verify::{Verdict, Verification};

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

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let report = runtime.block_on(verify(&args))?;
    if args.json {
        // Through a JSON value: every object's keys in alphabetical order, as this
        // document has always been printed.
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::to_value(&report)?)?
        );
    } else {
        print(&report);
    }
    Ok(if report.all_done() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

async fn verify(args: &Args) -> Result<Verification> {
    let plan = view::verify::read_plan(&args.plan)?;
    let store = args.db.open().await?;
    let id = AuditId(args.audit);
    let report = match args.audit_of {
        Some(v) => view::verify::judge_stored(&store, id, AuditId(v), &plan).await,
        None => {
            let mut redirected = view::verify::Redirected {
                resolves: args.resolves.clone(),
                ca_pems: Vec::new(),
            };
            for ca in &args.ca_certs {
                redirected.ca_pems.push(
                    std::fs::read_to_string(ca)
                        .with_context(|| format!("cannot read {}", ca.display()))?,
                );
            }
            view::verify::verify(&store, id, &plan, &redirected).await
        }
    };
    store.close().await;
    Ok(report?)
}

fn print(report: &Verification) {
    println!(
        "Plan of audit {} verified on the live site (stored as audit {}):",
        report.audit, report.verification
    );
    for v in Verdict::ALL {
        let n = report.count(v);
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
