//! Dustpan's store: one SQLite file holds many audits, their persisted crawl frontier and
//! everything the crawl found. This is the only crate that contains SQL.
//!
//! * [`Store::open`] creates the file if needed, switches on WAL, foreign keys, a busy
//!   timeout and `synchronous = NORMAL`, then applies the embedded migrations
//!   (`migrations/` at the repository root).
//! * Crawl results go through one [`Writer`] per running audit: a task that owns a
//!   connection and commits batches of many rows per transaction. It also hands frontier
//!   URLs to fetchers ([`Writer::claim`]), so the frontier is simply the `urls` rows in state
//!   `queued`, ordered by depth then id.
//! * A crawl killed at any point resumes from the file: [`Store::prepare_run`] puts the URLs
//!   that were `fetching` back in the queue; `done` URLs are never fetched again.
//!
//! ```no_run
//! # async fn demo() -> Result<(), store::StoreError> {
//! let store = store::Store::open(std::path::Path::new("audits.sqlite")).await?;
//! for audit in store.list_audits().await? {
//!     println!("{} {} {} pages", audit.id, audit.status, audit.pages_fetched);
//! }
//! # Ok(())
//! # }
//! ```

mod audit;
mod bulk;
mod delete;
mod error;
mod headers;
mod lease;
mod log_hits;
mod model;
mod probes;
mod read;
mod renders;
mod summary;
mod validation;
mod versioned;
mod writer;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::ConnectOptions as _;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, SqlitePool};

pub use audit::{Audit, AuditSummary, ResumePoint, StateCounts, StatusClasses};
pub use bulk::{
    CanonicalDecl, FetchFacts, HreflangDecl, LinkAnchor, LinkEdge, RedirectHop, RenderFacts,
    SitemapListing, UrlFacts,
};
use error::SqlContext;
pub use error::StoreError;
pub use headers::{CUT_MARKER, MAX_HEADERS, MAX_HEADERS_BYTES, MAX_VALUE_BYTES, ResponseHeaders};
pub use lease::{
    LEASE_TIMEOUT, LEASE_TIMEOUT_ENV, Lease, LeaseHolder, heartbeat_interval, lease_timeout, utc,
};
pub use log_hits::{LogHitRecord, LogHits};
pub use model::*;
pub use probes::{ProbeBatch, ProbeCandidate, ProbePhase, ProbeRecord};
pub use read::{FetchFingerprint, SitemapRow, UrlRow};
pub use renders::{RenderRecord, RenderRow, RenderedLinkRecord, RenderedLinkRow};
pub use summary::{AnalysisSummary, AuditListing};
pub use validation::ValidationRecord;
pub use versioned::{AUDIT_CONFIG_VERSION, OVERVIEW_VERSION, SITEMAP_ISSUES_VERSION};
pub use writer::{WAL_LIMIT_MIN_BYTES, Writer, WriterOptions, WriterStats};

/// How long a statement waits for another connection's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Milliseconds since the Unix epoch, the store's time unit.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Rows a query's connection thread may run ahead of its reader.
const ROW_BUFFER: usize = 4096;

/// An open database file. Cheap to clone (it is a connection pool).
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if missing) the database at `path` and brings its schema up to date.
    pub async fn open(path: &Path) -> Result<Self, StoreError> {
        let open_err = |source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        };
        let options = SqliteConnectOptions::from_str("sqlite:")
            .map_err(open_err)?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT)
            .pragma("temp_store", "memory")
            // 4 MiB of page cache per connection: reads are mostly sequential scans
            // (the writer sets its own, larger cache on its connection).
            .pragma("cache_size", "-4096")
            // Rows cross from the connection's thread in batches this large: bulk reads
            // of millions of rows would otherwise wake the reader once every 50 rows.
            .row_buffer_size(ROW_BUFFER)
            // A statement that waits on the writer's transaction is expected during a
            // crawl: slow statements are for debugging, not warnings on the terminal.
            .log_slow_statements(log::LevelFilter::Debug, std::time::Duration::from_secs(1));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .min_connections(0)
            .connect_with(options)
            .await
            .map_err(open_err)?;
        sqlx::migrate!("../../migrations")
            .run(&pool)
            .await
            .map_err(|source| StoreError::Migrate {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(Self {
            pool,
            path: path.to_path_buf(),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes the database takes on disk: its file and its write-ahead log (`-wal`), as
    /// the file system reports them now (0 for a file that cannot be read).
    pub fn disk_bytes(&self) -> u64 {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        [self.path.as_os_str(), wal.as_os_str()]
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum()
    }

    /// Closes every connection (waits for them to be returned).
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Starts a batched writer for `audit` (see [`Writer`]).
    pub async fn writer(
        &self,
        audit: AuditId,
        options: WriterOptions,
    ) -> Result<Writer, StoreError> {
        Writer::start(&self.pool, audit, options).await
    }

    /// The URLs stored for `audit` with an id greater than `after`, in id order, at most
    /// `limit` of them: a resumed crawl pages through them to rebuild its set of known URLs.
    pub async fn known_urls(
        &self,
        audit: AuditId,
        after: UrlId,
        limit: u32,
    ) -> Result<Vec<KnownUrl>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, url_rfc3986, state, reason_kind, reason, found_via FROM urls
             WHERE audit_id = ? AND id > ? ORDER BY id LIMIT ?",
        )
        .bind(audit.0)
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await
        .ctx("reading known URLs")?;
        rows.iter()
            .map(|row| {
                let state: String = row.get(2);
                let via: String = row.get(5);
                Ok(KnownUrl {
                    id: row.get(0),
                    url_rfc3986: row.get(1),
                    state: UrlState::parse(&state).ok_or_else(|| StoreError::Corrupt {
                        audit,
                        field: "urls.state",
                        detail: state.clone(),
                    })?,
                    reason: model::reason_from_columns(audit, row.get(3), row.get(4))?,
                    found_via: FoundVia::parse(&via).ok_or_else(|| StoreError::Corrupt {
                        audit,
                        field: "urls.found_via",
                        detail: via.clone(),
                    })?,
                })
            })
            .collect()
    }

    /// The robots.txt files already fetched for `audit`.
    pub async fn robots(&self, audit: AuditId) -> Result<Vec<RobotsRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT origin, fetched_at, status, body, crawl_delay, sitemaps, verdict, error
             FROM robots WHERE audit_id = ? ORDER BY origin",
        )
        .bind(audit.0)
        .fetch_all(&self.pool)
        .await
        .ctx("reading robots.txt fetches")?;
        rows.iter()
            .map(|row| {
                let sitemaps: String = row.get(5);
                let verdict: String = row.get(6);
                Ok(RobotsRecord {
                    origin: row.get(0),
                    fetched_at: row.get(1),
                    status: row
                        .get::<Option<i64>, _>(2)
                        .and_then(|s| u16::try_from(s).ok()),
                    body: row.get(3),
                    crawl_delay: row.get(4),
                    sitemaps: serde_json::from_str(&sitemaps).map_err(|e| StoreError::Corrupt {
                        audit,
                        field: "robots.sitemaps",
                        detail: e.to_string(),
                    })?,
                    verdict: RobotsVerdict::parse(&verdict).ok_or_else(|| StoreError::Corrupt {
                        audit,
                        field: "robots.verdict",
                        detail: verdict.clone(),
                    })?,
                    error: row.get(7),
                })
            })
            .collect()
    }

    /// The URLs of the sitemaps already fetched for `audit`, with their ids.
    pub async fn sitemaps_fetched(
        &self,
        audit: AuditId,
    ) -> Result<Vec<(SitemapId, String)>, StoreError> {
        let rows = sqlx::query("SELECT id, url FROM sitemaps WHERE audit_id = ? ORDER BY id")
            .bind(audit.0)
            .fetch_all(&self.pool)
            .await
            .ctx("reading sitemaps")?;
        Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
    }

    /// Every redirect hop of `audit` whose target resolved, for walking chains.
    pub async fn redirect_edges(&self, audit: AuditId) -> Result<Vec<RedirectEdge>, StoreError> {
        let rows = sqlx::query(
            "SELECT from_url_id, to_url_id FROM redirects
             WHERE audit_id = ? AND to_url_id IS NOT NULL ORDER BY from_url_id",
        )
        .bind(audit.0)
        .fetch_all(&self.pool)
        .await
        .ctx("reading redirects")?;
        Ok(rows
            .iter()
            .map(|row| RedirectEdge {
                from: row.get(0),
                to: row.get(1),
            })
            .collect())
    }

    /// Replaces the redirect-chain problems stored for `audit`.
    pub async fn replace_redirect_chains(
        &self,
        audit: AuditId,
        chains: &[ChainRecord],
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await.ctx("starting a transaction")?;
        sqlx::query("DELETE FROM redirect_chains WHERE audit_id = ?")
            .bind(audit.0)
            .execute(&mut *tx)
            .await
            .ctx("clearing redirect chains")?;
        for chain in chains {
            sqlx::query(
                "INSERT INTO redirect_chains (audit_id, start_url_id, final_url_id, hops, problem)
                 VALUES (?, ?, ?, ?, ?)",
            )
            .bind(audit.0)
            .bind(chain.start)
            .bind(chain.last)
            .bind(chain.hops)
            .bind(chain.problem.as_str())
            .execute(&mut *tx)
            .await
            .ctx("storing redirect chains")?;
        }
        tx.commit().await.ctx("committing redirect chains")
    }

    /// The redirect-chain problems stored for `audit`.
    pub async fn redirect_chains(&self, audit: AuditId) -> Result<Vec<ChainRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT start_url_id, final_url_id, hops, problem FROM redirect_chains
             WHERE audit_id = ? ORDER BY start_url_id",
        )
        .bind(audit.0)
        .fetch_all(&self.pool)
        .await
        .ctx("reading redirect chains")?;
        rows.iter()
            .map(|row| {
                let problem: String = row.get(3);
                Ok(ChainRecord {
                    start: row.get(0),
                    last: row.get(1),
                    hops: row.get(2),
                    problem: ChainProblem::parse(&problem).ok_or_else(|| StoreError::Corrupt {
                        audit,
                        field: "redirect_chains.problem",
                        detail: problem.clone(),
                    })?,
                })
            })
            .collect()
    }

    /// The pool, for this crate's modules.
    fn pool(&self) -> &SqlitePool {
        &self.pool
    }
}
