//! `dustpan migrate`: every page of an old site's audit mapped to its best URL on the
//! new site's audit, and the redirect map that moves them.

use super::db::DbArgs;
use crate::terminal::safe;
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;
use store::AuditId;
use view::migrate::{MatchBasis, MigrationReport};

/// Map a site migration: each page of the old audit matched to its best URL on the new
/// one by identical or near-identical main content, title and h1, then the URL (same
/// path on a new domain, same last segment), with a confidence per row. Old pages
/// nothing matched are listed with their inlinks and access-log requests, most first:
/// what to redirect first. The redirect map is then simulated on the new audit as
/// `dustpan simulate` simulates a plan: each target must answer 2xx in one hop and be
/// its cluster's preferred URL, and no page the new site serves may be redirected.
/// `--out` writes `migration.csv` and the redirect map for every server
/// (`redirect_map.csv`, nginx, Apache, Netlify, Vercel, Cloudflare, WordPress), which
/// `dustpan verify NEW --plan DIR` checks once deployed.
///
/// Exits 0 when every old page is kept or mapped and the map simulates clean, 1
/// otherwise, 2 on an error.
#[derive(clap::Args)]
pub struct Args {
    /// The old site's audit id (see `dustpan audits`).
    pub old: i64,
    /// The new site's audit id.
    pub new: i64,
    /// Write migration.csv and the redirect map's files into this folder.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the mapping as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArgs,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let report = runtime.block_on(load_and_map(&args))?;
    if let Some(dir) = &args.out {
        view::migrate::write_migration(&report.migration, dir)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print(&args, &report);
    }
    Ok(if report.complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

async fn load_and_map(args: &Args) -> Result<MigrationReport> {
    let store = args.db.open().await?;
    let m = view::migrate::map_stored(&store, AuditId(args.old), AuditId(args.new)).await;
    store.close().await;
    Ok(m?)
}

/// Rows shown per part in the terminal; the CSV holds them all.
const SHOWN: usize = 20;

fn print(args: &Args, report: &MigrationReport) {
    let m = &report.migration;
    println!(
        "Audit {} mapped onto audit {}: {} old pages, {} kept at their URL, {} mapped, {} unmatched.",
        args.old,
        args.new,
        m.rows.len(),
        m.kept(),
        m.mapped(),
        m.unmatched()
    );
    let mapped: Vec<_> = m
        .rows
        .iter()
        .filter(|r| !matches!(r.basis, MatchBasis::SameUrl | MatchBasis::Unmatched))
        .collect();
    if !mapped.is_empty() {
        println!("\nMapped, least sure first (confidence, basis):");
        for r in mapped.iter().take(SHOWN) {
            println!(
                "  {:>3}  {}\n       -> {}  ({})",
                r.confidence,
                safe(&r.old_url),
                safe(r.new_url.as_deref().unwrap_or("")),
                r.basis.words()
            );
        }
        if mapped.len() > SHOWN {
            println!("  ... and {} more", mapped.len() - SHOWN);
        }
    }
    let unmatched: Vec<_> = m
        .rows
        .iter()
        .filter(|r| r.basis == MatchBasis::Unmatched)
        .collect();
    if !unmatched.is_empty() {
        println!("\nUnmatched, most linked and requested first (inlinks, log requests):");
        for r in unmatched.iter().take(SHOWN) {
            println!(
                "  {:>5} {:>7}  {}",
                r.inlinks,
                r.log_requests,
                safe(&r.old_url)
            );
        }
        if unmatched.len() > SHOWN {
            println!("  ... and {} more", unmatched.len() - SHOWN);
        }
    }
    println!(
        "\nThe redirect map ({} redirects) simulated on audit {}:",
        report.simulation.applied.redirects, args.new
    );
    super::simulate::print_verdict(&report.simulation);
    if args.out.is_none() {
        println!("\n--out DIR writes migration.csv and the redirect map for every server.");
    }
}
