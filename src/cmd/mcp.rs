//! `dustpan mcp`: the audits as a Model Context Protocol server for AI assistants.

use super::db::DbArgs;
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;

/// Serve the audits of the database to an AI assistant over the Model Context Protocol
/// (JSON-RPC on standard input and output; register it with the client as the command
/// `dustpan mcp`). Read-only unless --allow-crawl: its tools list audits, read an audit's overview, issues,
/// findings, clusters, URLs and tables, compare two audits and normalize URLs. Logs go
/// to standard error. See docs/mcp.md.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    /// Also offer the tools that start, follow and cancel audits (start_audit,
    /// audit_progress, cancel_audit). Their crawls take the new-audit form's options and
    /// never reach a non-public address without an explicit resolve override.
    #[arg(long)]
    allow_crawl: bool,
    /// With --allow-crawl: also trust this certificate authority (PEM) in the audits
    /// it starts (repeatable).
    #[arg(long = "ca-cert", value_name = "FILE", requires = "allow_crawl")]
    ca_certs: Vec<PathBuf>,
}

/// Runs the server until the client closes standard input.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = args.db.open().await?;
        let crawl = if args.allow_crawl {
            let mut ca_pems = Vec::new();
            for path in &args.ca_certs {
                let pem = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                ca_pems.push(pem);
            }
            Some(mcp::CrawlAccess { ca_pems })
        } else {
            None
        };
        mcp::serve_stdio(store, crawl).await?;
        Ok(ExitCode::SUCCESS)
    })
}
