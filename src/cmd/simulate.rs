//! `dustpan simulate`: an audit's fix plan applied to its stored graph, analysed again,
//! and what the plan would create.

use super::db::DbArgs;
use crate::terminal::safe;
use anyhow::{Context, Result, bail};
use audit::simulate::{ProblemKind, Simulation};
use std::process::ExitCode;
use store::AuditId;

/// Simulate the audit's fix plan before deploying it: the stored crawl with the
/// redirect map answered, the canonicals set, the internal links and sitemap lines
/// changed, analysed again. Reports the redirect chains and loops, redirects to an
/// error or to a non-preferred URL, canonicals to a redirect, pages left without
/// internal links, pages taken out of the index whose content no indexable page keeps,
/// and clusters left unresolved that the plan would create.
///
/// Exits 0 when the plan is clean, 1 when it would create a problem, 2 on an error.
#[derive(clap::Args)]
pub struct Args {
    /// The audit id (see `dustpan audits`); the newest audit when absent.
    pub audit: Option<i64>,
    /// Simulate this plan instead of Dustpan's own: a folder written by `dustpan
    /// export` (its redirect_map.csv, canonicals_to_set.csv and sitemap_changes.csv,
    /// each optional), perhaps edited.
    #[arg(long, value_name = "DIR")]
    pub plan: Option<std::path::PathBuf>,
    /// The plan is a migration's redirect map (a folder written by `dustpan migrate
    /// --out`, perhaps edited), and AUDIT the new site's audit: its redirects only are
    /// applied, a page the new site serves must not be redirected, and only the
    /// clusters of the map's sources are checked.
    #[arg(long, requires = "plan")]
    pub migration: bool,
    /// Print the simulation as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArgs,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let (id, sim) = runtime.block_on(load_and_simulate(&args))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&sim)?);
    } else {
        print(id, &sim, args.migration);
    }
    Ok(if sim.clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The audit to simulate: the id given, or the newest.
pub async fn audit_id(store: &store::Store, audit: Option<i64>, db: &DbArgs) -> Result<AuditId> {
    Ok(match audit {
        Some(id) => AuditId(id),
        None => match store.list_audits().await?.first() {
            Some(a) => a.id,
            None => bail!(
                "no audits in {}; run `dustpan audit URL` first",
                db.path()?.display()
            ),
        },
    })
}

async fn load_and_simulate(args: &Args) -> Result<(AuditId, Simulation)> {
    let store = args.db.open().await?;
    let id = audit_id(&store, args.audit, &args.db).await?;
    let explicit = match &args.plan {
        Some(dir) => Some(view::verify::read_plan(dir)?),
        None => None,
    };
    let sim = match explicit {
        Some(fixes) if args.migration => {
            view::migrate::simulate_map_stored(&store, id, fixes).await
        }
        explicit => view::fixplan::simulate_stored(&store, id, None, explicit).await,
    };
    store.close().await;
    Ok((id, sim.context("the simulation stopped")?))
}

fn print(id: AuditId, sim: &Simulation, migration: bool) {
    let a = &sim.applied;
    println!(
        "Audit {} with {} applied: {} redirects, {} canonicals, {} links, {} sitemap lines.",
        id.0,
        if migration {
            "the migration's redirect map"
        } else {
            "its fix plan"
        },
        a.redirects,
        a.canonicals,
        a.links,
        a.sitemap_lines
    );
    if a.sitemap_lines_skipped > 0 {
        println!(
            "{} sitemap lines name a sitemap the audit did not read and were not applied.",
            a.sitemap_lines_skipped
        );
    }
    println!(
        "Findings: {} resolved, {} remaining, {} new.",
        sim.findings.resolved.len(),
        sim.findings.persisting.len(),
        sim.findings.new.len()
    );
    if !sim.findings.new.is_empty() {
        println!("New findings on the simulated site (by key):");
        for key in &sim.findings.new {
            println!("  {}", safe(key));
        }
    }
    print_verdict(sim);
}

/// What the plan would create, by kind, each problem, and the verdict: clean or not
/// (`dustpan migrate` prints its map's the same way).
pub fn print_verdict(sim: &Simulation) {
    println!("What the plan would create:");
    for kind in ProblemKind::ALL {
        let n = sim.count(kind);
        println!("  {:<52} {n}", kind.words());
    }
    for kind in ProblemKind::ALL {
        let problems: Vec<_> = sim.problems.iter().filter(|p| p.kind == kind).collect();
        if problems.is_empty() {
            continue;
        }
        println!("\n{} ({}):", kind.words(), kind.as_str());
        for p in problems {
            println!("  {}\n    {}", safe(&p.url), safe(&p.detail));
        }
    }
    if sim.clean() {
        println!("\nclean: the plan creates no problem");
    } else {
        println!(
            "\nnot clean: the plan would create {} problem{}",
            sim.problems.len(),
            if sim.problems.len() == 1 { "" } else { "s" }
        );
    }
}
