//! `dustpan mcp`: the audits as a Model Context Protocol server for AI assistants.

use super::db::DbArgs;
use anyhow::{Context, Result};
use std::process::ExitCode;

/// Serve the audits of the database to an AI assistant over the Model Context Protocol
/// (JSON-RPC on standard input and output; register it with the client as the command
/// `dustpan mcp`). Read-only: its tools list audits, read an audit's overview, issues,
/// findings, clusters, URLs and tables, compare two audits and normalize URLs. Logs go
/// to standard error.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
}

/// Runs the server until the client closes standard input.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = args.db.open().await?;
        mcp::serve_stdio(store).await?;
        Ok(ExitCode::SUCCESS)
    })
}
