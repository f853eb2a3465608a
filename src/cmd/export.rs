//! `dustpan export`: an audit's tables and fix files as CSV.

use super::report::Target;
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;

/// Export an audit as CSV files (RFC 4180, UTF-8, spreadsheet-safe): pages, clusters
/// (one row per member, with why it is in and its fix), findings, redirects (one row
/// per chain), canonicals, sitemap entries, internal links to non-preferred URLs, and
/// the fix files (redirect map as CSV, nginx and Apache; canonicals to set; sitemap
/// changes).
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// The folder to write into (created if missing).
    #[arg(long, value_name = "DIR", required_unless_present = "parquet")]
    out: Option<PathBuf>,
    /// Also (or only) write the audit's tables as Parquet files into this folder (see
    /// docs/scale.md for their schema).
    #[arg(long, value_name = "DIR")]
    parquet: Option<PathBuf>,
    /// Also write the redirects the site already answers into the server redirect
    /// files (nginx, Apache, Netlify, Vercel, Cloudflare, WordPress); by default they
    /// hold only the redirects that are new or change what the site answers, and
    /// redirect_map.csv marks each redirect new, changed or existing.
    #[arg(long)]
    include_existing_redirects: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    if let Some(dir) = &args.parquet {
        for w in runtime.block_on(super::parquet::write(&args.target, dir))? {
            println!("{:>8} rows  {}", w.rows, w.path.display());
        }
    }
    let Some(out) = args.out else {
        return Ok(ExitCode::SUCCESS);
    };
    let (id, input, analysis) = runtime.block_on(args.target.analyse())?;
    // The same files the desktop app's "Export full report" writes.
    let options = view::workflow::ExportOptions {
        include_existing_redirects: args.include_existing_redirects,
    };
    let written = view::workflow::export_report_with(&input, &analysis, &out, options)
        .with_context(|| format!("cannot export audit {} to {}", id.0, out.display()))?;
    for w in written {
        match w.rows {
            Some(rows) => println!("{rows:>8} rows  {}", w.path.display()),
            None => println!("          {}", w.path.display()),
        }
    }
    eprintln!("exported audit {}", id.0);
    Ok(ExitCode::SUCCESS)
}
