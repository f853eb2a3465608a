//! `dustpan audits`: the audits in a database.

use super::db::DbArgs;
use super::output::{Format, print_json, print_jsonl};
use anyhow::{Context, Result};
use audit::{Analysis, AuditInput};
use std::process::ExitCode;
use store::{AuditId, Store};

/// List the audits in the database, newest first: date, status, URLs and pages, the
/// findings (errors/warnings/notices) and clusters of its latest analysis (`-` when it
/// was never analysed), and the start URLs of its stored configuration (what `--resume`
/// and `--like` request), marked `[resolve: ...]` and `[N extra CA]` when the
/// configuration sends requests to other addresses or trusts more certificate
/// authorities, `[not run: ...]` when it cannot be run, and `[stopped: ...]` when its
/// crawl stopped at a limit or a budget. `--format json` prints the list the desktop
/// app shows (docs/json.md).
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    /// text, json (one document) or jsonl (one audit a line).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = args.db.open().await?;
        if args.format != Format::Text {
            // A `running` audit may run in another process.
            let audits = view::list_audits(&store, &|_| true).await?;
            if args.format == Format::Jsonl {
                print_jsonl(&audits)?;
            } else {
                print_json(&view::output::AuditsDocument {
                    schema_version: view::output::SCHEMA_VERSION,
                    audits,
                })?;
            }
            return Ok(ExitCode::SUCCESS);
        }
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
                configured(&a)
            );
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// The start URLs of an audit's stored configuration, with what else it carries that
/// decides where its requests go, or why it is not run.
fn configured(audit: &store::Audit) -> String {
    // A stored configuration is data: its control and format characters escaped.
    crate::terminal::safe(&configured_raw(audit)).into_owned()
}

fn configured_raw(audit: &store::Audit) -> String {
    let config = match crawl::stored_config(audit) {
        Ok(config) => config,
        Err(e) => return format!("{} [not run: {e}]", audit.start_urls.join(" ")),
    };
    let mut line = config.start_urls.join(" ");
    if let Err(e) = view::runs::check_stored_config(audit, &config) {
        line.push_str(&format!(" [not run: {e}]"));
    }
    if !config.resolve.is_empty() {
        line.push_str(&format!(" [resolve: {}]", config.resolve.join(" ")));
    }
    let cas = view::runs::certificate_count(&config.extra_root_certs_pem);
    if cas > 0 {
        line.push_str(&format!(" [{cas} extra CA]"));
    }
    // A crawl that stopped at a limit or a budget is not a whole site.
    if let Some(stop) = &audit.stop {
        line.push_str(&format!(" [stopped: {stop}]"));
    }
    line
}

/// Stores the summary of an analysis under the audit's own policy (named `policy`), so
/// `dustpan audits` can list its findings, with the overview the desktop app shows at
/// once when it opens the audit.
pub async fn record_analysis(
    store: &Store,
    id: AuditId,
    input: &AuditInput,
    analysis: &Analysis,
    policy: &str,
) -> Result<()> {
    view::record_analysis(store, id, input, analysis, policy)
        .await
        .with_context(|| format!("cannot store the analysis summary of audit {}", id.0))
}

/// `YYYY-MM-DD HH:MM:SS` for milliseconds since the Unix epoch (UTC).
pub fn utc(ms: i64) -> String {
    store::utc(ms)
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
