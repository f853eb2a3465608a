//! `dustpan delete`: remove an audit from the database.

use super::db::DbArgs;
use anyhow::{Context, Result, bail};
use std::process::ExitCode;
use store::{AuditId, AuditStatus};

/// Delete one audit and everything it stored (URLs, fetches, links, sitemaps, ...), in
/// one transaction.
#[derive(clap::Args)]
pub struct Args {
    /// The audit id (see `dustpan audits`).
    id: i64,
    /// Delete it even if it is marked running (a crawl killed without a chance to say
    /// so stays marked running). An audit a process is crawling (it holds the audit's
    /// lease) is never deleted.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    db: DbArgs,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = args.db.open().await?;
        let id = AuditId(args.id);
        let audit = store
            .audit(id)
            .await
            .with_context(|| format!("no audit {} in the database", id.0))?;
        if let Some(holder) = store.lease_holder(id).await? {
            return Err(store::StoreError::AuditBusy(Box::new(holder)).into());
        }
        if audit.status == AuditStatus::Running && !args.force {
            bail!(
                "audit {} is marked running but no process is crawling it (it was killed): resume it with `dustpan audit --resume {}`, or delete it with --force",
                id.0,
                id.0
            );
        }
        let started = std::time::Instant::now();
        // The store checks the lease again, in the deleting transaction.
        let rows = store
            .delete_audit(id)
            .await
            .with_context(|| format!("cannot delete audit {}", id.0))?;
        store.close().await;
        println!(
            "Deleted audit {} ({rows} rows) in {:.1} s",
            id.0,
            started.elapsed().as_secs_f64()
        );
        Ok(ExitCode::SUCCESS)
    })
}
