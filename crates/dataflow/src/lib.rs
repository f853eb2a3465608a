//! Dustpan's clustering as Apache DataFusion plans over an audit's Parquet files (the
//! tables `columnar` writes), embedded in one process or, with the `ballista` feature,
//! on an Apache Ballista cluster.
//!
//! The plans mirror the built-in analysis (`crates/audit`): per-URL facts (equivalence
//! key, status, whether it serves, its content fingerprints), the evidence edges by kind
//! in the analysis's order (redirects to the final target of their chain, canonicals
//! whose content agrees, the same key confirmed by content, identical text or main
//! content), connected components by iterative label propagation, and the preferred URL
//! of each cluster by the analysis's preference order. Every intermediate table is
//! written as Parquet into a work folder, so the plans hold no table in memory: the
//! embedded engine's memory is DataFusion's memory pool, which spills to disk.
//!
//! `docs/scale.md` lists the schema, the evidence kinds that differ from the built-in
//! analysis and how to run on a cluster.
//!
//! Everything here needs the `engine` feature (DataFusion); without it the crate is
//! empty, so that building the whole workspace does not compile DataFusion.
#![cfg(feature = "engine")]

mod sql;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::execution::disk_manager::{DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::memory_pool::FairSpillPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

pub use datafusion;

/// Rounds of label propagation at most (each at least halves the distance a label still
/// has to travel once pointer jumping starts; a real audit converges in tens).
pub const MAX_ROUNDS: u32 = 200;
/// Hops a redirect chain is followed at most; a longer one is a loop.
pub const MAX_HOPS: u32 = 32;

/// The tables the plans read, each `NAME.parquet` in the input folder.
pub const INPUT_TABLES: &[&str] = &[
    "urls",
    "fetches",
    "links",
    "canonicals",
    "redirects",
    "sitemap_entries",
    "robots_blocks",
    "renders",
    "content",
];

/// Why the plans failed.
#[derive(Debug, thiserror::Error)]
pub enum DataflowError {
    /// DataFusion (or Ballista) refused or failed a plan.
    #[error(transparent)]
    DataFusion(#[from] datafusion::error::DataFusionError),
    /// A table the plans read is missing from the input folder.
    #[error("{path} is missing: export the audit with `dustpan export --parquet` first")]
    Missing {
        /// The missing file.
        path: PathBuf,
    },
    /// The work folder could not be prepared.
    #[error("cannot prepare {path}: {source}")]
    Io {
        /// The folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Label propagation did not settle.
    #[error("label propagation did not settle in {rounds} rounds")]
    NoConvergence {
        /// Rounds run.
        rounds: u32,
    },
    /// A path is not UTF-8 (DataFusion takes paths as text).
    #[error("{0} is not a UTF-8 path")]
    Path(PathBuf),
}

/// The analysis settings the plans read (`audit::AnalysisConfig`'s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Words a page needs for its content to count as evidence.
    pub min_words: u32,
    /// SimHash distance at most for near-identical pages without text blocks.
    pub near_distance: u32,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            min_words: 20,
            near_distance: 3,
        }
    }
}

/// Merges by evidence kind, in the analysis's order (each counts the merges that joined
/// two clusters, as the analysis's `EdgeCounts`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MergeCounts {
    /// Redirects.
    pub redirect: u64,
    /// rel=canonical.
    pub canonical: u64,
    /// Same equivalence key, confirmed by content.
    pub same_key: u64,
    /// Identical text or main content.
    pub identical_content: u64,
}

/// What the plans computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clustering {
    /// URLs in the audit.
    pub urls: u64,
    /// Clusters of two or more URLs.
    pub clusters: u64,
    /// URLs in those clusters.
    pub clustered_urls: u64,
    /// Merges by kind.
    pub merges: MergeCounts,
    /// Rounds of label propagation run, over all kinds.
    pub rounds: u32,
    /// The Parquet folder holding `(url, preferred_url)` for every clustered URL.
    pub members: PathBuf,
}

/// An embedded DataFusion context whose memory is a pool of `memory_limit` bytes that
/// spills to `spill_dir`, running `partitions` partitions at a time.
pub fn embedded(
    memory_limit: usize,
    spill_dir: &Path,
    partitions: usize,
) -> Result<SessionContext, DataflowError> {
    std::fs::create_dir_all(spill_dir).map_err(|source| DataflowError::Io {
        path: spill_dir.to_path_buf(),
        source,
    })?;
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_pool(Arc::new(FairSpillPool::new(memory_limit)))
        .with_disk_manager_builder(
            DiskManagerBuilder::default()
                .with_mode(DiskManagerMode::Directories(vec![spill_dir.to_path_buf()])),
        )
        .build_arc()?;
    let config = SessionConfig::new().with_target_partitions(partitions.max(1));
    Ok(SessionContext::new_with_config_rt(config, runtime))
}

/// A context whose plans run on the Ballista scheduler at `scheduler` (`HOST:PORT`).
/// The scheduler's executors must read the input folder and write the work folder at
/// the same paths (one machine, a shared file system, or object storage URLs).
///
/// The jobs are planned by Ballista's static distributed planner, not its adaptive
/// one: when a stage of a `UNION ALL` comes out empty, the adaptive planner of
/// Ballista 55 replaces that branch with an empty plan while the stage above it runs,
/// the tasks of that stage then report different numbers of operator metrics, the
/// scheduler rejects their status updates and the job never finishes (nor frees its
/// executors' slots).
#[cfg(feature = "ballista")]
pub async fn ballista(scheduler: &str) -> Result<SessionContext, DataflowError> {
    use ballista::prelude::{SessionConfigExt as _, SessionContextExt as _};
    let url = if scheduler.starts_with("df://") {
        scheduler.to_owned()
    } else {
        format!("df://{scheduler}")
    };
    let ctx = SessionContext::remote(&url).await?;
    {
        let state = ctx.state_ref();
        let mut state = state.write();
        let config = state
            .config()
            .clone()
            .with_ballista_adaptive_query_planner(false);
        *state.config_mut() = config;
    }
    Ok(ctx)
}

fn text(p: &Path) -> Result<String, DataflowError> {
    p.to_str()
        .map(str::to_owned)
        .ok_or_else(|| DataflowError::Path(p.to_path_buf()))
}

/// Runs the plans on `ctx` over the Parquet files in `input`, writing intermediate
/// tables into `work` (emptied first).
pub async fn cluster(
    ctx: &SessionContext,
    input: &Path,
    work: &Path,
    params: &Params,
) -> Result<Clustering, DataflowError> {
    for t in INPUT_TABLES {
        let path = input.join(format!("{t}.parquet"));
        if !path.is_file() {
            return Err(DataflowError::Missing { path });
        }
        ctx.register_parquet(*t, text(&path)?, ParquetReadOptions::default())
            .await?;
    }
    if work.exists() {
        std::fs::remove_dir_all(work).map_err(|source| DataflowError::Io {
            path: work.to_path_buf(),
            source,
        })?;
    }
    std::fs::create_dir_all(work).map_err(|source| DataflowError::Io {
        path: work.to_path_buf(),
        source,
    })?;
    let mut plan = Plan { ctx, work, n: 0 };

    plan.table("hops", &sql::hops()).await?;
    // Redirect chains, followed one hop per round.
    plan.table("chain_0", &sql::chain_start()).await?;
    let mut prev = "chain_0".to_owned();
    for r in 1..=MAX_HOPS {
        let name = format!("chain_{r}");
        plan.table(&name, &sql::chain_step(&prev)).await?;
        prev = name;
        if plan
            .count(&format!("SELECT count(*) FROM {prev} WHERE state = 0"))
            .await?
            == 0
        {
            break;
        }
    }
    plan.table("chains", &format!("SELECT * FROM {prev}"))
        .await?;
    plan.table("texts", &sql::texts()).await?;
    plan.table("facts", &sql::facts(params)).await?;
    plan.table("eff_canon", &sql::eff_canon()).await?;

    // Made-up URLs: variant probes and what only they led to.
    plan.table("made_up_0", &sql::made_up_start()).await?;
    let mut prev = "made_up_0".to_owned();
    let mut size = plan.count(&format!("SELECT count(*) FROM {prev}")).await?;
    for r in 1..=MAX_HOPS {
        let name = format!("made_up_{r}");
        plan.table(&name, &sql::made_up_step(&prev)).await?;
        prev = name;
        let now = plan.count(&format!("SELECT count(*) FROM {prev}")).await?;
        if now == size {
            break;
        }
        size = now;
    }
    plan.table("made_up", &format!("SELECT * FROM {prev}"))
        .await?;

    // Evidence by kind, strongest first; components after each kind.
    let kinds: [(&str, String); 4] = [
        ("redirect", sql::redirect_edges()),
        ("canonical", sql::canonical_edges(params)),
        ("same_key", sql::same_key_edges(params)),
        ("identical_content", sql::content_edges(params)),
    ];
    plan.table("labels_0", "SELECT id, id AS label FROM urls")
        .await?;
    let urls = plan.count("SELECT count(*) FROM urls").await?;
    let mut labels = "labels_0".to_owned();
    let mut components = urls;
    let mut merged = [0u64; 4];
    let mut rounds = 0u32;
    let mut edge_tables: Vec<String> = Vec::new();
    for (k, (kind, query)) in kinds.iter().enumerate() {
        let name = format!("edges_{kind}");
        plan.table(&name, query).await?;
        edge_tables.push(format!("SELECT a, b FROM {name}"));
        let edges = format!("edges_upto_{kind}");
        plan.table(&edges, &edge_tables.join(" UNION ALL ")).await?;
        loop {
            rounds += 1;
            if rounds > MAX_ROUNDS {
                return Err(DataflowError::NoConvergence { rounds: MAX_ROUNDS });
            }
            let next = format!("labels_{rounds}");
            plan.table(&next, &sql::propagate(&labels, &edges)).await?;
            let changed = plan
                .count(&format!(
                    "SELECT count(*) FROM {next} n JOIN {labels} o ON o.id = n.id WHERE n.label <> o.label"
                ))
                .await?;
            labels = next;
            if changed == 0 {
                break;
            }
        }
        let now = plan
            .count(&format!("SELECT count(DISTINCT label) FROM {labels}"))
            .await?;
        merged[k] = components - now;
        components = now;
    }

    plan.table("site_scheme", &sql::site_scheme()).await?;
    plan.table("demoted_hosts", &sql::demoted_hosts()).await?;
    plan.table("preference", &sql::preference()).await?;
    let members = plan.table("members", &sql::members(&labels)).await?;
    let clusters = plan
        .count(&format!(
            "SELECT count(*) FROM (SELECT label FROM {labels} GROUP BY label HAVING count(*) >= 2) c"
        ))
        .await?;
    let clustered_urls = plan.count("SELECT count(*) FROM members").await?;
    Ok(Clustering {
        urls,
        clusters,
        clustered_urls,
        merges: MergeCounts {
            redirect: merged[0],
            canonical: merged[1],
            same_key: merged[2],
            identical_content: merged[3],
        },
        rounds,
        members,
    })
}

/// The `(url, preferred_url)` rows of a finished clustering, sorted by URL.
pub async fn read_members(
    ctx: &SessionContext,
    clustering: &Clustering,
) -> Result<Vec<(String, String)>, DataflowError> {
    use datafusion::arrow::array::{Array, AsArray};
    // No clustered URL writes no file, which a read without a schema refuses.
    if clustering.clustered_urls == 0 {
        return Ok(Vec::new());
    }
    let df = ctx
        .read_parquet(text(&clustering.members)?, ParquetReadOptions::default())
        .await?;
    let batches = df
        .sort_by(vec![datafusion::prelude::col("url")])?
        .collect()
        .await?;
    let mut out = Vec::new();
    for b in batches {
        let url = b.column(0).as_string_view_opt().map(|a| {
            (0..a.len())
                .map(|i| a.value(i).to_owned())
                .collect::<Vec<_>>()
        });
        let url = match url {
            Some(u) => u,
            None => strings(b.column(0).as_ref()),
        };
        let preferred = match b.column(1).as_string_view_opt() {
            Some(a) => (0..a.len()).map(|i| a.value(i).to_owned()).collect(),
            None => strings(b.column(1).as_ref()),
        };
        out.extend(url.into_iter().zip(preferred));
    }
    Ok(out)
}

fn strings(a: &dyn datafusion::arrow::array::Array) -> Vec<String> {
    use datafusion::arrow::array::AsArray;
    match a.as_string_opt::<i32>() {
        Some(s) => s.iter().map(|v| v.unwrap_or_default().to_owned()).collect(),
        None => a
            .as_string_opt::<i64>()
            .map(|s| s.iter().map(|v| v.unwrap_or_default().to_owned()).collect())
            .unwrap_or_default(),
    }
}

/// Materialises named tables as Parquet in the work folder.
struct Plan<'a> {
    ctx: &'a SessionContext,
    work: &'a Path,
    n: u32,
}

impl Plan<'_> {
    /// Runs `query`, writes its result to `work/NAME/` and registers it as `name`.
    async fn table(&mut self, name: &str, query: &str) -> Result<PathBuf, DataflowError> {
        self.n += 1;
        let dir = self.work.join(name);
        let df = self.ctx.sql(query).await?;
        // The schema is given when reading back: an empty result writes no file.
        let schema = df.schema().as_arrow().clone();
        std::fs::create_dir_all(&dir).map_err(|source| DataflowError::Io {
            path: dir.clone(),
            source,
        })?;
        df.write_parquet(
            &format!("{}/", text(&dir)?),
            DataFrameWriteOptions::new(),
            None,
        )
        .await?;
        // An empty result writes no file; one empty file with the schema keeps every
        // table a Parquet scan. On Ballista 55 a stage that unites a table without
        // files with others gets tasks of different plans, whose metrics the scheduler
        // rejects, and the job never finishes.
        let empty = std::fs::read_dir(&dir)
            .map_err(|source| DataflowError::Io {
                path: dir.clone(),
                source,
            })?
            .next()
            .is_none();
        if empty {
            let path = dir.join("empty.parquet");
            let file = std::fs::File::create(&path).map_err(|source| DataflowError::Io {
                path: path.clone(),
                source,
            })?;
            datafusion::parquet::arrow::ArrowWriter::try_new(file, Arc::new(schema.clone()), None)
                .and_then(|w| w.close())
                .map_err(|e| DataflowError::DataFusion(e.into()))?;
        }
        self.ctx.deregister_table(name)?;
        self.ctx
            .register_parquet(
                name,
                format!("{}/", text(&dir)?),
                ParquetReadOptions::default().schema(&schema),
            )
            .await?;
        Ok(dir)
    }

    /// The one number a `SELECT count(...)` answers.
    async fn count(&self, query: &str) -> Result<u64, DataflowError> {
        use datafusion::arrow::array::AsArray;
        use datafusion::arrow::datatypes::Int64Type;
        let batches = self.ctx.sql(query).await?.collect().await?;
        Ok(batches
            .iter()
            .find(|b| b.num_rows() > 0)
            .and_then(|b| {
                b.column(0)
                    .as_primitive_opt::<Int64Type>()
                    .map(|a| a.value(0))
            })
            .map_or(0, |v| u64::try_from(v).unwrap_or(0)))
    }
}
