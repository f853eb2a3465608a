//! `dustpan export`: an audit's tables and fix files as CSV, every link, and the
//! client-ready Excel workbook and HTML report.

use super::report::Target;
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;

/// Export an audit as CSV files (RFC 4180, UTF-8, spreadsheet-safe): pages, clusters
/// (one row per member, with why it is in and its fix), findings, redirects (one row
/// per chain), canonicals, sitemap entries, internal links to non-preferred URLs, and
/// the fix files (redirect map as CSV, nginx and Apache; canonicals to set; sitemap
/// changes), every link (all_inlinks.csv, all_outlinks.csv); with --xlsx an Excel
/// workbook (a sheet per table), with --html a self-contained HTML report of the
/// overview and the issues for a client; with --parquet the audit's tables as Parquet.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("output").required(true).multiple(true).args(["out", "xlsx", "html", "parquet"])))]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// The folder to write into (created if missing).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write an Excel workbook with one sheet per table to FILE.
    #[arg(long, value_name = "FILE")]
    xlsx: Option<PathBuf>,
    /// Write a self-contained HTML report of the overview and the issues to FILE (no
    /// script; every crawled string escaped).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Write the audit's tables as Parquet files into this folder (see docs/scale.md
    /// for their schema).
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
    // One analysis for every output: the files from it first, the Parquet tables last,
    // since they stream from the store once the analysis is dropped.
    let report = runtime.block_on(args.target.report())?;
    let id = report.audit.id;
    let report = if args.out.is_some() || args.xlsx.is_some() || args.html.is_some() {
        let open =
            view::OpenAudit::from_parts(report.audit, report.input, report.analysis, report.policy);
        write_files(&args, &open)?;
        let (audit, input, analysis, policy) = open.into_parts();
        super::report::Report {
            audit,
            input,
            analysis,
            policy,
        }
    } else {
        report
    };
    if let Some(dir) = &args.parquet {
        for w in runtime.block_on(super::parquet::write(&args.target, report, dir))? {
            println!("{:>8} rows  {}", w.rows, w.path.display());
        }
    }
    eprintln!("exported audit {}", id.0);
    Ok(ExitCode::SUCCESS)
}

/// The report's CSV files, workbook and HTML summary, those `args` asks for.
fn write_files(args: &Args, open: &view::OpenAudit) -> Result<()> {
    let id = store::AuditId(open.id());
    if let Some(out) = &args.out {
        // The same files the desktop app's "Export full report" writes.
        let options = view::workflow::ExportOptions {
            include_existing_redirects: args.include_existing_redirects,
        };
        let written =
            view::workflow::export_report_with(open.input(), open.analysis(), out, options)
                .with_context(|| format!("cannot export audit {} to {}", id.0, out.display()))?;
        for w in written {
            match w.rows {
                Some(rows) => println!("{rows:>8} rows  {}", w.path.display()),
                None => println!("          {}", w.path.display()),
            }
        }
        let (path, rows) = open.export_external(out)?;
        println!("{rows:>8} rows  {path}");
    }
    if let Some(path) = &args.xlsx {
        let sheets = open.export_workbook(path)?;
        let rows: usize = sheets.iter().map(|s| s.rows).sum();
        println!(
            "{rows:>8} rows  {} ({} sheets)",
            path.display(),
            sheets.len()
        );
        for s in sheets.iter().filter(|s| s.cut > 0) {
            eprintln!(
                "sheet {}: {} rows left out at Excel's row limit (the CSV export has them)",
                s.name, s.cut
            );
        }
    }
    if let Some(path) = &args.html {
        open.export_html(path)?;
        println!("          {}", path.display());
    }
    Ok(())
}
