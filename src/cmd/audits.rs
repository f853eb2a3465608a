//! `dustpan audits`: the audits in a database.

use super::db::DbArgs;
use anyhow::{Context, Result};
use audit::{Analysis, AuditInput};
use std::process::ExitCode;
use store::{AuditId, Store};

/// List the audits in the database, newest first: date, status, URLs and pages, and
/// the findings (errors/warnings/notices) and clusters of its latest analysis (`-` when
/// it was never analysed).
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = args.db.open().await?;
        let audits = store.list_audits_with_summary().await?;
        if audits.is_empty() {
            eprintln!("no audits in {}", args.db.path()?.display());
            return Ok(ExitCode::SUCCESS);
        }
        println!(
            "{:>5}  {:<19}  {:<9}  {:>8}  {:>8}  {:>7}  {:>16}  {:>8}  start URL",
            "id",
            "started (UTC)",
            "status",
            "URLs",
            "fetched",
            "failed",
            "findings E/W/N",
            "clusters"
        );
        for listing in audits {
            let a = listing.audit;
            let (findings, clusters) = match &listing.analysis {
                Some(s) => (
                    format!("{}/{}/{}", s.errors, s.warnings, s.notices),
                    s.clusters.to_string(),
                ),
                None => ("-".to_owned(), "-".to_owned()),
            };
            println!(
                "{:>5}  {:<19}  {:<9}  {:>8}  {:>8}  {:>7}  {:>16}  {:>8}  {}",
                a.id.0,
                utc(a.started_at),
                // The app's word for it; a running audit may run in another process.
                view::AuditStatus::of(a.status, true).as_str(),
                a.urls_found,
                a.pages_fetched,
                a.fetch_errors,
                findings,
                clusters,
                a.start_urls.join(" ")
            );
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// Stores the summary of an analysis under the default policy, so `dustpan audits` can
/// list its findings, with the overview the desktop app shows at once when it opens the
/// audit.
pub async fn record_analysis(
    store: &Store,
    id: AuditId,
    input: &AuditInput,
    analysis: &Analysis,
) -> Result<()> {
    view::record_analysis(store, id, input, analysis, view::workflow::DEFAULT_POLICY)
        .await
        .with_context(|| format!("cannot store the analysis summary of audit {}", id.0))
}

/// `YYYY-MM-DD HH:MM:SS` for milliseconds since the Unix epoch (UTC).
pub fn utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_dates() {
        assert_eq!(super::utc(0), "1970-01-01 00:00:00");
        assert_eq!(super::utc(1_795_000_000_000), "2026-11-18 11:06:40");
        assert_eq!(super::utc(951_782_400_000), "2000-02-29 00:00:00");
    }
}
