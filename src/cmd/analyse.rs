//! `dustpan analyse`: an audit's clusters and preferred URLs by one of three engines:
//! the built-in analysis, Apache DataFusion embedded, or an Apache Ballista cluster.

use super::report::Target;
use anyhow::{Context, Result, bail};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Which engine computes the clusters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// The built-in analysis: the whole audit in this process's memory.
    Builtin,
    /// Apache DataFusion plans over the audit's Parquet files, in this process, in a
    /// bounded memory pool that spills to disk.
    Datafusion,
    /// The same plans on an Apache Ballista cluster (`--scheduler HOST:PORT`).
    Ballista,
}

/// Cluster an audit and print how many clusters, clustered URLs and merges by kind
/// each engine finds; `--members FILE` writes every clustered URL with its cluster's
/// preferred URL (CSV, sorted by URL) to compare engines URL by URL, and, for the
/// built-in analysis, the evidence kinds on its way to the preferred URL.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// The engine.
    #[arg(long, value_enum, default_value = "builtin")]
    engine: Engine,
    /// The Ballista scheduler (`HOST:PORT`) for `--engine ballista`.
    #[arg(long, value_name = "HOST:PORT")]
    scheduler: Option<String>,
    /// The audit's Parquet files (`dustpan export --parquet DIR`); written there first
    /// when the folder holds none. Defaults to a temporary folder.
    #[arg(long, value_name = "DIR")]
    parquet: Option<PathBuf>,
    /// Where the plans write their intermediate tables (emptied first). Defaults to a
    /// temporary folder; a Ballista cluster's executors must be able to write it.
    #[arg(long, value_name = "DIR")]
    work: Option<PathBuf>,
    /// DataFusion's memory pool for `--engine datafusion`, in MiB: beyond it, sorts,
    /// joins and aggregations spill to disk.
    #[arg(long, value_name = "MIB", default_value_t = 512)]
    memory_mib: usize,
    /// Write `url,preferred_url,evidence` for every clustered URL to this CSV file
    /// (`evidence`: the built-in analysis's kinds, `;`-separated: redirect, canonical,
    /// canonical_near for a canonical whose content is near-identical, same_key, dust,
    /// identical_content).
    #[arg(long, value_name = "FILE")]
    members: Option<PathBuf>,
}

/// What one engine found.
struct Outcome {
    urls: u64,
    clusters: u64,
    clustered_urls: u64,
    /// `(kind, merges)` in the analysis's order.
    merges: Vec<(&'static str, u64)>,
    /// `(url, preferred url, evidence kinds)`.
    members: Vec<(String, String, String)>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let started = Instant::now();
    let outcome = match args.engine {
        Engine::Builtin => runtime.block_on(builtin(&args.target))?,
        Engine::Datafusion | Engine::Ballista => runtime.block_on(planned(&args))?,
    };
    let wall = started.elapsed();
    println!("engine          {:?}", args.engine);
    println!("urls            {}", outcome.urls);
    println!("clusters        {}", outcome.clusters);
    println!("clustered urls  {}", outcome.clustered_urls);
    for (kind, n) in &outcome.merges {
        println!("merges {kind:<18} {n}");
    }
    println!("wall ms         {}", wall.as_millis());
    if let Some(path) = &args.members {
        write_members(path, &outcome.members)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn write_members(path: &Path, members: &[(String, String, String)]) -> Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut out = csv::Writer::from_writer(std::io::BufWriter::new(file));
    out.write_record(["url", "preferred_url", "evidence"])?;
    for (u, p, e) in members {
        out.write_record([u, p, e])?;
    }
    out.flush()
        .with_context(|| format!("cannot write {}", path.display()))?;
    let mut inner = out
        .into_inner()
        .map_err(|e| anyhow::anyhow!("cannot write {}: {}", path.display(), e.error()))?;
    inner.flush()?;
    Ok(())
}

async fn builtin(target: &Target) -> Result<Outcome> {
    let report = target.report().await?;
    let (input, analysis) = (report.input, report.analysis);
    let mut members: Vec<(String, String, String)> = analysis
        .clusters
        .iter()
        .flat_map(|c| {
            c.members.iter().map(|m| {
                let kinds: Vec<&str> = m.evidence.iter().map(|e| evidence_kind(&e.kind)).collect();
                (m.url.clone(), c.preferred_url.clone(), kinds.join(";"))
            })
        })
        .collect();
    members.sort();
    let m = analysis.stats.merges;
    Ok(Outcome {
        urls: input.urls.len() as u64,
        clusters: analysis.clusters.len() as u64,
        clustered_urls: members.len() as u64,
        merges: vec![
            ("redirect", u64::from(m.redirect)),
            ("canonical", u64::from(m.canonical)),
            ("same_key", u64::from(m.same_key)),
            ("dust", u64::from(m.dust)),
            ("identical_content", u64::from(m.identical_content)),
        ],
        members,
    })
}

/// One evidence kind as the members file names it.
fn evidence_kind(kind: &audit::EvidenceKind) -> &'static str {
    use audit::{CanonicalContent, EvidenceKind};
    match kind {
        EvidenceKind::Redirect { .. } => "redirect",
        EvidenceKind::Canonical {
            content: CanonicalContent::Near { .. },
            ..
        } => "canonical_near",
        EvidenceKind::Canonical { .. } => "canonical",
        EvidenceKind::SameKey { .. } => "same_key",
        EvidenceKind::Dust { .. } => "dust",
        EvidenceKind::IdenticalContent { .. } => "identical_content",
    }
}

#[cfg(not(feature = "dataflow"))]
async fn planned(args: &Args) -> Result<Outcome> {
    bail!(
        "--engine {:?} needs a dustpan built with the `dataflow` feature \
         (`cargo build --release --features dataflow`, or `ballista` for a cluster)",
        args.engine
    )
}

#[cfg(feature = "dataflow")]
async fn planned(args: &Args) -> Result<Outcome> {
    let temp = tempdir()?;
    let input = match &args.parquet {
        Some(dir) => dir.clone(),
        None => temp.join("parquet"),
    };
    if !input.join("urls.parquet").is_file() {
        let report = args.target.report().await?;
        super::parquet::write(&args.target, report, &input).await?;
    }
    let work = match &args.work {
        Some(w) => w.clone(),
        None => temp.join("work"),
    };
    let ctx = match args.engine {
        Engine::Ballista => ballista_context(args.scheduler.as_deref()).await?,
        _ => {
            let partitions = std::thread::available_parallelism().map_or(2, |n| n.get());
            dataflow::embedded(
                args.memory_mib.saturating_mul(1024 * 1024),
                &temp.join("spill"),
                partitions,
            )?
        }
    };
    let input = std::path::absolute(&input)?;
    let work = std::path::absolute(&work)?;
    let params = dataflow::Params::default();
    let clustering = dataflow::cluster(&ctx, &input, &work, &params)
        .await
        .with_context(|| format!("cannot cluster the files in {}", input.display()))?;
    let members = dataflow::read_members(&ctx, &clustering)
        .await?
        .into_iter()
        .map(|(u, p)| (u, p, String::new()))
        .collect();
    let m = clustering.merges;
    let outcome = Outcome {
        urls: clustering.urls,
        clusters: clustering.clusters,
        clustered_urls: clustering.clustered_urls,
        merges: vec![
            ("redirect", m.redirect),
            ("canonical", m.canonical),
            ("same_key", m.same_key),
            ("identical_content", m.identical_content),
        ],
        members,
    };
    // The work folder, when given, keeps the plans' tables for inspection.
    let _ = std::fs::remove_dir_all(&temp);
    Ok(outcome)
}

/// A fresh folder under the system's temporary directory.
#[cfg(feature = "dataflow")]
fn tempdir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "dustpan-analyse-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

#[cfg(feature = "ballista")]
async fn ballista_context(
    scheduler: Option<&str>,
) -> Result<dataflow::datafusion::prelude::SessionContext> {
    let Some(s) = scheduler else {
        bail!("--engine ballista needs --scheduler HOST:PORT");
    };
    dataflow::ballista(s)
        .await
        .with_context(|| format!("cannot reach the Ballista scheduler at {s}"))
}

#[cfg(all(feature = "dataflow", not(feature = "ballista")))]
async fn ballista_context(
    _scheduler: Option<&str>,
) -> Result<dataflow::datafusion::prelude::SessionContext> {
    bail!(
        "--engine ballista needs a dustpan built with the `ballista` feature \
         (`cargo build --release --features ballista`)"
    )
}
