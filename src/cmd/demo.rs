//! `dustpan demo`: audit the built-in fixture site, served on loopback.

use super::audit::{after_crawl, crawl_with_progress, exit_code, load_rules, print_summary};
use super::db::DbArgs;
use anyhow::{Context, Result};
use crawl::CrawlConfig;
use std::process::ExitCode;

/// Start the built-in problem site on 127.0.0.1 (host and scheme variants, duplicate
/// pages, wrong canonicals, redirect chains, bad sitemap entries, a crawler trap, ...)
/// and audit it, so you can see a real audit without choosing a site. Nothing leaves
/// this machine: every request goes to the loopback server.
#[derive(clap::Args)]
pub struct Args {
    /// Serve the "after" version of the site (some problems fixed, one new), to compare
    /// two audits.
    #[arg(long)]
    after: bool,
    /// Delay of the site's deliberately slow page, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    slow_ms: u64,
    /// Learned DUST rules from an earlier audit (`dustpan report --save-rules FILE`):
    /// predicted duplicates are skipped, a verification sample is fetched.
    #[arg(long, value_name = "FILE")]
    rules: Option<std::path::PathBuf>,
    /// Do not learn DUST rules during the crawl (which URLs they spare depends on the
    /// order pages arrive in; without them every run fetches the same URLs).
    #[arg(long)]
    no_dust_learning: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    db: DbArgs,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = args.db.open().await?;
        let site = fixture::FixtureServer::start(fixture::FixtureConfig {
            variant: if args.after {
                fixture::SiteVariant::After
            } else {
                fixture::SiteVariant::Before
            },
            slow_delay: std::time::Duration::from_millis(args.slow_ms),
            hostile: false,
            log_requests: false,
            ..fixture::FixtureConfig::default()
        })
        .await
        .context("cannot start the fixture site on 127.0.0.1")?;
        let mut config = demo_config(&site);
        if let Some(path) = &args.rules {
            config.learned_rules = Some(load_rules(path)?);
        }
        if args.no_dust_learning {
            config.learn_dust = false;
        }
        eprintln!(
            "Fixture site on {} (served as {}); auditing it into {}",
            site.addr(),
            site.base_url(),
            args.db.path()?.display()
        );
        let summary = crawl_with_progress(args.quiet, |tx, cancel| {
            let store = store.clone();
            async move { crawl::start_audit(&store, &config, &tx, &cancel).await }
        })
        .await?;
        print_summary(&store, &summary).await?;
        let finished = after_crawl(&store, &summary).await?;
        site.shutdown().await;
        // A first run ends with what the audit found, and where to read all of it.
        if let Some(f) = finished {
            println!();
            super::report::print(summary.audit, &f.input, &f.analysis, 5);
            let db = args.db.path()?;
            println!(
                "\nThe whole report: dustpan report {id} --db {db}; CSV files: dustpan export {id} --db {db} --out DIR;\nin the desktop app: DUSTPAN_DB={db} bash scripts/run.sh",
                id = summary.audit.0,
                db = db.display()
            );
        }
        Ok(exit_code(&summary))
    })
}

/// The crawl configuration for the fixture: its host names mapped to its loopback
/// port, its private CA trusted.
pub fn demo_config(site: &fixture::FixtureServer) -> CrawlConfig {
    let port = site.port();
    let mut config = CrawlConfig::for_url(&site.base_url());
    config.include_subdomains = true;
    config.resolve = fixture::HOSTS
        .iter()
        .map(|h| format!("{h}:{port}:127.0.0.1"))
        .collect();
    config.extra_root_certs_pem = vec![site.ca_pem().to_owned()];
    config
}
