//! `dustpan export`: an audit's tables and fix files as CSV.

use super::report::Target;
use anyhow::{Context, Result};
use audit::export::{Table, fix_files, write_table};
use std::fs::File;
use std::io::BufWriter;
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
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let (id, input, analysis) = runtime.block_on(args.target.analyse())?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    for table in Table::ALL {
        let path = args.out.join(table.file_name());
        let file =
            File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
        let rows = write_table(table, &input, &analysis, BufWriter::new(file))
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("{rows:>8} rows  {}", path.display());
    }
    for (name, contents) in fix_files(&analysis) {
        let path = args.out.join(name);
        std::fs::write(&path, contents)
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("          {}", path.display());
    }
    eprintln!("exported audit {}", id.0);
    Ok(ExitCode::SUCCESS)
}
