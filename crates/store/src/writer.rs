//! The batched writer: one task per running audit owns a connection, turns records into
//! multi-row INSERTs and commits many of them per transaction.
//!
//! Records are sent through a bounded channel (so a slow disk slows the crawl down instead
//! of filling memory). The task keeps a transaction open while records arrive and commits
//! it when [`WriterOptions::batch_records`] records are in it, when
//! [`WriterOptions::batch_interval`] has passed since it began, on [`Writer::flush`], and on
//! [`Writer::close`]. Frontier claims go through the same task, so a claim sees every URL
//! written before it, committed or not.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use sqlx::pool::PoolConnection;
use sqlx::sqlite::SqliteArguments;
use sqlx::{AssertSqlSafe, Row, Sqlite, SqlitePool};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::error::SqlContext;
use crate::{
    AuditId, CanonicalRecord, Claimed, ErrorRecord, FetchRecord, HreflangRecord, LinkRecord,
    NewUrl, PageRecord, RedirectRecord, Requeue, RobotsRecord, SitemapEntryRecord, SitemapId,
    SitemapRecord, StoreError, UrlId, UrlReason, UrlState, now_ms,
};

/// How the writer batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterOptions {
    /// Commit once this many records are in the open transaction.
    pub batch_records: usize,
    /// Commit at the latest this long after the transaction began.
    pub batch_interval: Duration,
    /// Records that may wait in the channel before senders wait.
    pub channel_capacity: usize,
    /// Crawl time of earlier runs, in ms: the writer stores `elapsed_base_ms` plus the time
    /// since it started in `audits.elapsed_ms` at each commit.
    pub elapsed_base_ms: u64,
    /// Bytes the write-ahead log may hold before a commit checkpoints it into the
    /// database file; the log is then cut back to this size, so the database file and
    /// its WAL together stay near what the audit stored (a storage budget counts both).
    pub wal_limit_bytes: u64,
}

impl Default for WriterOptions {
    fn default() -> Self {
        Self {
            batch_records: 500,
            batch_interval: Duration::from_millis(200),
            channel_capacity: 1024,
            elapsed_base_ms: 0,
            wal_limit_bytes: WAL_LIMIT_BYTES,
        }
    }
}

/// The default [`WriterOptions::wal_limit_bytes`]: 10,000 pages of 4 KiB.
const WAL_LIMIT_BYTES: u64 = 10_000 * 4096;

/// The smallest [`WriterOptions::wal_limit_bytes`] a writer uses: checkpoints more often
/// than every 32 pages cost more than they save.
pub const WAL_LIMIT_MIN_BYTES: u64 = 32 * 4096;

/// The writer connection's page cache, in KiB.
const WRITER_CACHE_KIB: u32 = 64 * 1024;

/// What a writer did, returned by [`Writer::close`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriterStats {
    /// Transactions committed.
    pub commits: u64,
    /// Records written.
    pub records: u64,
    /// URL rows inserted.
    pub urls_inserted: u64,
    /// New URLs that were already stored under another id and were mapped onto it.
    pub urls_merged: u64,
}

enum Command {
    Page(Box<PageRecord>),
    Urls(Vec<NewUrl>),
    Probes(Box<crate::ProbeBatch>),
    Sitemap(Box<SitemapRecord>),
    SitemapParent {
        url: String,
        parent: SitemapId,
    },
    Robots(RobotsRecord),
    Error(ErrorRecord),
    Claim {
        max: u32,
        reply: oneshot::Sender<Vec<Claimed>>,
    },
    Flush {
        reply: oneshot::Sender<()>,
    },
    Checkpoint {
        reply: oneshot::Sender<()>,
    },
    Close,
}

/// The handle of a running writer task. Dropping it without [`Writer::close`] commits what
/// was sent (the task drains the channel) but does not report errors.
#[derive(Debug)]
pub struct Writer {
    tx: mpsc::Sender<Command>,
    task: std::sync::Mutex<Option<JoinHandle<Result<WriterStats, StoreError>>>>,
    /// The error the task stopped on, set before it drops its receiver.
    cause: Cause,
}

/// Why the writer task stopped, for the callers whose sends it can no longer answer.
type Cause = std::sync::Arc<std::sync::Mutex<Option<String>>>;

impl Writer {
    pub(crate) async fn start(
        pool: &SqlitePool,
        audit: AuditId,
        options: WriterOptions,
    ) -> Result<Self, StoreError> {
        let mut conn = pool
            .acquire()
            .await
            .ctx("acquiring the writer's connection")?;
        // Rows for an audit that does not exist would be orphans (the writer's connection
        // does not check foreign keys, below).
        let exists: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM audits WHERE id = ?)")
            .bind(audit.0)
            .fetch_one(&mut *conn)
            .await
            .ctx("looking up the audit to write")?;
        if !exists {
            return Err(StoreError::AuditNotFound(audit));
        }
        // Its large page cache goes with it: closed when the writer ends, never handed
        // back to the pool to sit in memory under the reads that follow a crawl.
        conn.close_on_drop();
        // Checkpoint the WAL every ~40 MB written by default instead of every ~4 MB: the
        // index pages a crawl rewrites again and again are copied to the database once per
        // checkpoint. A smaller limit (a small storage budget) checkpoints sooner, and the
        // log is cut back to the limit once checkpointed (`journal_size_limit`) instead of
        // keeping the size it once reached.
        let wal_limit = options.wal_limit_bytes.max(WAL_LIMIT_MIN_BYTES);
        for (pragma, value) in [
            ("wal_autocheckpoint", wal_limit / 4096),
            ("journal_size_limit", wal_limit),
        ] {
            sqlx::query(AssertSqlSafe(format!("PRAGMA {pragma} = {value}")))
                .execute(&mut *conn)
                .await
                .ctx("setting the writer's WAL checkpoint interval")?;
        }
        // A larger page cache for the writer: the random-order indexes of large audits
        // (links by target, URLs by key) are read back from the file on every insert
        // once they outgrow the default 16 MiB.
        sqlx::query(AssertSqlSafe(format!(
            "PRAGMA cache_size = -{WRITER_CACHE_KIB}"
        )))
        .execute(&mut *conn)
        .await
        .ctx("setting the writer's page cache size")?;
        // No foreign-key checks on the writer's own connection (closed when the writer
        // ends, so no other statement runs without them): every link, fetch and
        // canonical row would otherwise look its URLs up in `urls` once more (SQLite's
        // share of a 20,000-page crawl's CPU samples went from 22.3 % to 20.0 % without
        // them). The writer keeps the references itself: a URL's row is written before
        // (or in the same batch as) every row naming it, and an id the crawler gave a
        // URL already stored is mapped onto the stored one.
        sqlx::query("PRAGMA foreign_keys = OFF")
            .execute(&mut *conn)
            .await
            .ctx("turning off the writer's foreign-key checks")?;
        let (tx, rx) = mpsc::channel(options.channel_capacity.max(1));
        let cause = Cause::default();
        let task = tokio::spawn(run(conn, audit, options, rx, cause.clone()));
        Ok(Self {
            tx,
            task: std::sync::Mutex::new(Some(task)),
            cause,
        })
    }

    /// The error for a writer that stopped, with the error it stopped on. Waits until
    /// the task has let go of its channel (by then it has recorded its error).
    async fn stopped(&self) -> StoreError {
        self.tx.closed().await;
        let cause = self
            .cause
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        StoreError::WriterClosed {
            cause: cause.unwrap_or_else(|| "it panicked".to_owned()),
        }
    }

    async fn send(&self, command: Command) -> Result<(), StoreError> {
        match self.tx.send(command).await {
            Ok(()) => Ok(()),
            Err(_) => Err(self.stopped().await),
        }
    }

    /// Queues everything learned from one frontier URL.
    pub async fn page(&self, record: PageRecord) -> Result<(), StoreError> {
        self.send(Command::Page(Box::new(record))).await
    }

    /// Queues URLs found outside a page (start URLs and their variants).
    pub async fn urls(&self, urls: Vec<NewUrl>) -> Result<(), StoreError> {
        self.send(Command::Urls(urls)).await
    }

    /// Queues URL-variant probes with their variant URLs (new ones, and known ones to put
    /// back in the queue), written in one transaction.
    pub async fn probes(&self, batch: crate::ProbeBatch) -> Result<(), StoreError> {
        self.send(Command::Probes(Box::new(batch))).await
    }

    /// Queues a fetched sitemap with its entries.
    pub async fn sitemap(&self, record: SitemapRecord) -> Result<(), StoreError> {
        self.send(Command::Sitemap(Box::new(record))).await
    }

    /// Records `parent` (a sitemap index) as the parent of the sitemap stored under `url`,
    /// when that sitemap has no parent yet and `parent` does not descend from it (an index
    /// may list a sitemap that was read before it, such as `/sitemap.xml`).
    pub async fn sitemap_parent(&self, url: String, parent: SitemapId) -> Result<(), StoreError> {
        self.send(Command::SitemapParent { url, parent }).await
    }

    /// Queues a robots.txt fetch (replacing an earlier one for the same origin).
    pub async fn robots(&self, record: RobotsRecord) -> Result<(), StoreError> {
        self.send(Command::Robots(record)).await
    }

    /// Queues an error that is not a page's fetch result.
    pub async fn error(&self, record: ErrorRecord) -> Result<(), StoreError> {
        self.send(Command::Error(record)).await
    }

    /// Takes up to `max` queued URLs (lowest depth, then oldest first), marks them
    /// `fetching` and returns them. Empty when the frontier is empty.
    pub async fn claim(&self, max: u32) -> Result<Vec<Claimed>, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.send(Command::Claim { max, reply }).await?;
        match answer.await {
            Ok(claimed) => Ok(claimed),
            Err(_) => Err(self.stopped().await),
        }
    }

    /// Commits everything sent so far.
    pub async fn flush(&self) -> Result<(), StoreError> {
        let (reply, answer) = oneshot::channel();
        self.send(Command::Flush { reply }).await?;
        match answer.await {
            Ok(()) => Ok(()),
            Err(_) => Err(self.stopped().await),
        }
    }

    /// Commits everything sent so far and moves the write-ahead log into the database
    /// file, truncating the log, so that the file's size is what is stored. A checkpoint
    /// that another connection's read keeps from completing leaves the log as it is
    /// (everything is committed either way).
    pub async fn checkpoint(&self) -> Result<(), StoreError> {
        let (reply, answer) = oneshot::channel();
        self.send(Command::Checkpoint { reply }).await?;
        match answer.await {
            Ok(()) => Ok(()),
            Err(_) => Err(self.stopped().await),
        }
    }

    /// Commits everything sent so far, stops the task and reports its result (the first
    /// error it met, if any). Later calls, and sends after it, fail with
    /// [`StoreError::WriterClosed`].
    pub async fn close(&self) -> Result<WriterStats, StoreError> {
        // If the task already stopped, the send fails and the join below has its error.
        let _ = self.tx.send(Command::Close).await;
        let task = self
            .task
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        match task {
            Some(task) => task.await.unwrap_or_else(|_| {
                Err(StoreError::WriterClosed {
                    cause: "it panicked".to_owned(),
                })
            }),
            None => Err(self.stopped().await),
        }
    }
}

type Query = sqlx::query::Query<'static, Sqlite, SqliteArguments>;

/// Rows per multi-row statement; remainders use the smaller sizes.
const CHUNKS: [usize; 5] = [256, 64, 16, 4, 1];
/// Buffered rows that trigger writing the buffers (inside the open transaction).
const FLUSH_ROWS: usize = 4096;

/// A row type written by multi-row INSERT.
trait BatchRow {
    /// `INSERT INTO t (cols)`.
    const HEAD: &'static str;
    /// One `(?, ?, ...)` group.
    const GROUP: &'static str;
    /// What is being written, for errors.
    const CONTEXT: &'static str;
    /// Binds this row's values in `GROUP` order (moving its strings into the query).
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query;
}

fn multi_row_sql(head: &str, group: &str, rows: usize, tail: &str) -> String {
    let mut sql = String::with_capacity(head.len() + (group.len() + 1) * rows + tail.len() + 8);
    sql.push_str(head);
    sql.push_str(" VALUES ");
    for i in 0..rows {
        if i > 0 {
            sql.push(',');
        }
        sql.push_str(group);
    }
    sql.push_str(tail);
    sql
}

fn chunk_len(remaining: usize) -> usize {
    CHUNKS.into_iter().find(|&n| n <= remaining).unwrap_or(1)
}

fn opt_u64(value: Option<u64>) -> Option<i64> {
    value.map(|v| i64::try_from(v).unwrap_or(i64::MAX))
}

/// Stores a 64-bit fingerprint bit for bit in an INTEGER column.
fn fingerprint(value: Option<u64>) -> Option<i64> {
    value.map(|v| i64::from_ne_bytes(v.to_ne_bytes()))
}

/// Maps ids the crawler allocated for URLs that turned out to be stored already.
#[derive(Default)]
struct IdMap(HashMap<UrlId, UrlId>);

impl IdMap {
    fn get(&self, id: UrlId) -> UrlId {
        if self.0.is_empty() {
            id
        } else {
            self.0.get(&id).copied().unwrap_or(id)
        }
    }

    fn opt(&self, id: Option<UrlId>) -> Option<UrlId> {
        id.map(|id| self.get(id))
    }
}

impl BatchRow for NewUrl {
    const HEAD: &'static str = "INSERT INTO urls (audit_id, id, url, url_rfc3986, url_seo, host, depth, \
         redirect_depth, found_from, found_via, state, reason_kind, reason)";
    const GROUP: &'static str = "(?,?,?,?,?,?,?,?,?,?,?,?,?)";
    const CONTEXT: &'static str = "storing URLs";
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query {
        q.bind(audit)
            .bind(self.id)
            .bind(self.url)
            .bind(self.url_rfc3986)
            .bind(self.url_seo)
            .bind(self.host)
            .bind(self.depth)
            .bind(self.redirect_depth)
            .bind(ids.opt(self.found_from))
            .bind(self.found_via.as_str())
            .bind(self.state.as_str())
            .bind(self.reason.as_ref().map(|r| r.kind.as_str()))
            .bind(self.reason.and_then(|r| r.detail))
    }
}

struct FetchRow(UrlId, FetchRecord);

impl BatchRow for FetchRow {
    const HEAD: &'static str = "INSERT INTO fetches (audit_id, url_id, fetched_at, status, content_type, \
         content_length, body_bytes, truncated, ttfb_ms, total_ms, attempts, redirect_to, title, \
         meta_robots, x_robots_tag, noindex, nofollow, text_hash, simhash, word_count, charset, \
         error_kind, error_message, h1, blocks, meta_description)";
    const GROUP: &'static str = "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    const CONTEXT: &'static str = "storing fetches";
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query {
        let f = self.1;
        q.bind(audit)
            .bind(ids.get(self.0))
            .bind(f.fetched_at)
            .bind(f.status)
            .bind(f.content_type)
            .bind(opt_u64(f.content_length))
            .bind(opt_u64(Some(f.body_bytes)))
            .bind(f.truncated)
            .bind(opt_u64(f.ttfb_ms))
            .bind(opt_u64(Some(f.total_ms)))
            .bind(f.attempts)
            .bind(ids.opt(f.redirect_to))
            .bind(f.title)
            .bind(f.meta_robots)
            .bind(f.x_robots_tag)
            .bind(f.noindex)
            .bind(f.nofollow)
            .bind(fingerprint(f.text_hash))
            .bind(fingerprint(f.simhash))
            .bind(f.word_count)
            .bind(f.charset)
            .bind(f.error_kind)
            .bind(f.error_message)
            .bind(f.h1)
            .bind(f.blocks)
            .bind(f.meta_description)
    }
}

struct RedirectRow(UrlId, RedirectRecord);

impl BatchRow for RedirectRow {
    const HEAD: &'static str = "INSERT OR REPLACE INTO redirects (audit_id, from_url_id, to_url_id, status, \
         location_raw, hop_index, kind, error)";
    const GROUP: &'static str = "(?,?,?,?,?,?,?,?)";
    const CONTEXT: &'static str = "storing redirects";
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query {
        let r = self.1;
        q.bind(audit)
            .bind(ids.get(self.0))
            .bind(ids.opt(r.to))
            .bind(r.status)
            .bind(r.location_raw)
            .bind(r.hop_index)
            .bind(r.kind.as_str())
            .bind(r.error)
    }
}

struct LinkRow(UrlId, u32, LinkRecord);

impl BatchRow for LinkRow {
    // OR IGNORE, not OR REPLACE: a page's links are written once, in the transaction that
    // marks it done, so the two never differ, and a multi-row statement that cannot abort
    // needs no statement journal (SQLite would otherwise copy every page the statement
    // touches, which was a sixth of the writer's time on large crawls).
    const HEAD: &'static str = "INSERT OR IGNORE INTO links (audit_id, from_url_id, position, to_url_id, \
         href_raw, anchor_text, nofollow, tag, error, region)";
    const GROUP: &'static str = "(?,?,?,?,?,?,?,?,?,?)";
    const CONTEXT: &'static str = "storing links";
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query {
        let l = self.2;
        q.bind(audit)
            .bind(ids.get(self.0))
            .bind(self.1)
            .bind(ids.opt(l.to))
            .bind(l.href_raw)
            .bind(l.anchor_text)
            .bind(l.nofollow)
            .bind(l.tag)
            .bind(l.error)
            .bind(l.region.map(crate::LinkRegion::as_str))
    }
}

struct CanonicalRow(UrlId, u32, CanonicalRecord);

impl BatchRow for CanonicalRow {
    const HEAD: &'static str = "INSERT OR REPLACE INTO canonicals (audit_id, page_url_id, position, \
         target_url_id, href_raw, source, in_head, error)";
    const GROUP: &'static str = "(?,?,?,?,?,?,?,?)";
    const CONTEXT: &'static str = "storing canonicals";
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query {
        let c = self.2;
        q.bind(audit)
            .bind(ids.get(self.0))
            .bind(self.1)
            .bind(ids.opt(c.target))
            .bind(c.href_raw)
            .bind(c.source.as_str())
            .bind(c.in_head)
            .bind(c.error)
    }
}

struct HreflangRow(UrlId, u32, HreflangRecord);

impl BatchRow for HreflangRow {
    const HEAD: &'static str = "INSERT OR REPLACE INTO hreflang (audit_id, page_url_id, position, lang, \
         target_url_id, href_raw, source)";
    const GROUP: &'static str = "(?,?,?,?,?,?,?)";
    const CONTEXT: &'static str = "storing hreflang";
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query {
        let h = self.2;
        q.bind(audit)
            .bind(ids.get(self.0))
            .bind(self.1)
            .bind(h.lang)
            .bind(ids.opt(h.target))
            .bind(h.href_raw)
            .bind(h.source.as_str())
    }
}

struct EntryRow(SitemapId, u32, SitemapEntryRecord);

impl BatchRow for EntryRow {
    // OR IGNORE: see `LinkRow` (a sitemap's entries are written once, with the sitemap).
    const HEAD: &'static str = "INSERT OR IGNORE INTO sitemap_entries (audit_id, sitemap_id, position, url_id, \
         loc_raw, lastmod, changefreq, priority)";
    const GROUP: &'static str = "(?,?,?,?,?,?,?,?)";
    const CONTEXT: &'static str = "storing sitemap entries";
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query {
        let e = self.2;
        q.bind(audit)
            .bind(self.0)
            .bind(self.1)
            .bind(ids.opt(e.url_id))
            .bind(e.loc_raw)
            .bind(e.lastmod)
            .bind(e.changefreq)
            .bind(e.priority)
    }
}

impl BatchRow for ErrorRecord {
    const HEAD: &'static str = "INSERT INTO errors (audit_id, url_id, at, phase, kind, message)";
    const GROUP: &'static str = "(?,?,?,?,?,?)";
    const CONTEXT: &'static str = "storing errors";
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query {
        q.bind(audit)
            .bind(ids.opt(self.url_id))
            .bind(now_ms())
            .bind(self.phase)
            .bind(self.kind)
            .bind(self.message)
    }
}

struct BlockRow(UrlId, String);

/// A rendered page and the number of its links (written as their own rows).
struct RenderRow(UrlId, crate::RenderRecord, u32);

impl BatchRow for RenderRow {
    const HEAD: &'static str = "INSERT OR REPLACE INTO renders (audit_id, url_id, outcome, message, \
         render_ms, requests, refused, final_url, title, h1, meta_robots, noindex, nofollow, \
         canonical_href, canonical_url_id, hreflang, text_hash, word_count, blocks, links)";
    const GROUP: &'static str = "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    const CONTEXT: &'static str = "storing rendered pages";
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query {
        let r = self.1;
        q.bind(audit)
            .bind(ids.get(self.0))
            .bind(r.outcome)
            .bind(r.message)
            .bind(opt_u64(Some(r.render_ms)))
            .bind(r.requests)
            .bind(r.refused)
            .bind(r.final_url)
            .bind(r.title)
            .bind(r.h1)
            .bind(r.meta_robots)
            .bind(r.noindex)
            .bind(r.nofollow)
            .bind(r.canonical_href)
            .bind(ids.opt(r.canonical_target))
            .bind(r.hreflang)
            .bind(fingerprint(r.text_hash))
            .bind(r.word_count)
            .bind(r.blocks)
            .bind(self.2)
    }
}

struct RenderedLinkRow(UrlId, u32, crate::RenderedLinkRecord);

impl BatchRow for RenderedLinkRow {
    // OR IGNORE: see `LinkRow`.
    const HEAD: &'static str = "INSERT OR IGNORE INTO rendered_links (audit_id, from_url_id, position, \
         to_url_id, href_raw, anchor_text, region, js_only)";
    const GROUP: &'static str = "(?,?,?,?,?,?,?,?)";
    const CONTEXT: &'static str = "storing rendered links";
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query {
        let l = self.2;
        q.bind(audit)
            .bind(ids.get(self.0))
            .bind(self.1)
            .bind(ids.opt(l.to))
            .bind(l.href_raw)
            .bind(l.anchor_text)
            .bind(l.region.map(crate::LinkRegion::as_str))
            .bind(l.js_only)
    }
}

impl BatchRow for crate::ProbeRecord {
    const HEAD: &'static str = "INSERT OR IGNORE INTO probes (audit_id, url_id, base_url_id, rule)";
    const GROUP: &'static str = "(?,?,?,?)";
    const CONTEXT: &'static str = "storing probes";
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query {
        q.bind(audit)
            .bind(ids.get(self.url_id))
            .bind(ids.get(self.base_url_id))
            .bind(self.rule.as_str())
    }
}

impl BatchRow for BlockRow {
    const HEAD: &'static str = "INSERT OR REPLACE INTO robots_blocks (audit_id, url_id, origin)";
    const GROUP: &'static str = "(?,?,?)";
    const CONTEXT: &'static str = "storing robots.txt blocks";
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query {
        q.bind(audit).bind(ids.get(self.0)).bind(self.1)
    }
}

/// A response's bounded headers.
struct HeadersRow(UrlId, crate::ResponseHeaders);

impl BatchRow for HeadersRow {
    const HEAD: &'static str =
        "INSERT OR REPLACE INTO response_headers (audit_id, url_id, headers, omitted)";
    const GROUP: &'static str = "(?,?,?,?)";
    const CONTEXT: &'static str = "storing response headers";
    fn bind(self, q: Query, audit: i64, ids: &IdMap) -> Query {
        q.bind(audit)
            .bind(ids.get(self.0))
            .bind(self.1.text)
            .bind(self.1.omitted)
    }
}

/// Writes `rows` with multi-row INSERTs, then empties it.
async fn insert_rows<T: BatchRow>(
    conn: &mut PoolConnection<Sqlite>,
    rows: &mut Vec<T>,
    audit: i64,
    ids: &IdMap,
) -> Result<(), StoreError> {
    let mut rest = rows.drain(..);
    while !rest.as_slice().is_empty() {
        let n = chunk_len(rest.len());
        let mut q = sqlx::query(AssertSqlSafe(multi_row_sql(T::HEAD, T::GROUP, n, "")));
        for row in rest.by_ref().take(n) {
            q = row.bind(q, audit, ids);
        }
        q.execute(&mut **conn).await.ctx(T::CONTEXT)?;
    }
    Ok(())
}

/// Rows waiting for the next write of the buffers.
#[derive(Default)]
struct Buffers {
    urls: Vec<NewUrl>,
    fetches: Vec<FetchRow>,
    redirects: Vec<RedirectRow>,
    links: Vec<LinkRow>,
    canonicals: Vec<CanonicalRow>,
    hreflang: Vec<HreflangRow>,
    entries: Vec<EntryRow>,
    errors: Vec<ErrorRecord>,
    blocks: Vec<BlockRow>,
    done: Vec<UrlId>,
    states: Vec<(UrlId, UrlState, Option<UrlReason>)>,
    requeue: Vec<Requeue>,
    probes: Vec<crate::ProbeRecord>,
    renders: Vec<RenderRow>,
    rendered_links: Vec<RenderedLinkRow>,
    headers: Vec<HeadersRow>,
}

impl Buffers {
    fn rows(&self) -> usize {
        self.urls.len()
            + self.fetches.len()
            + self.redirects.len()
            + self.links.len()
            + self.canonicals.len()
            + self.hreflang.len()
            + self.entries.len()
            + self.errors.len()
            + self.blocks.len()
            + self.done.len()
            + self.states.len()
            + self.requeue.len()
            + self.probes.len()
            + self.renders.len()
            + self.rendered_links.len()
            + self.headers.len()
    }
}

struct State {
    audit: i64,
    options: WriterOptions,
    started: Instant,
    in_tx: bool,
    deadline: Option<tokio::time::Instant>,
    records_in_tx: usize,
    buffers: Buffers,
    /// Re-queues whose URL row is not written yet (see `write_requeues`).
    early_requeues: Vec<Requeue>,
    ids: IdMap,
    stats: WriterStats,
    // counter deltas for the audits row, applied at commit
    new_urls: u64,
    new_fetches: u64,
    new_errors: u64,
}

async fn run(
    mut conn: PoolConnection<Sqlite>,
    audit: AuditId,
    options: WriterOptions,
    mut rx: mpsc::Receiver<Command>,
    cause: Cause,
) -> Result<WriterStats, StoreError> {
    let mut state = State {
        audit: audit.0,
        options,
        started: Instant::now(),
        in_tx: false,
        deadline: None,
        records_in_tx: 0,
        buffers: Buffers::default(),
        early_requeues: Vec::new(),
        ids: IdMap::default(),
        stats: WriterStats::default(),
        new_urls: 0,
        new_fetches: 0,
        new_errors: 0,
    };
    let result = state.serve(&mut conn, &mut rx).await;
    if result.is_err() && state.in_tx {
        // Best effort: the connection is dropped right after, which also rolls back.
        let _ = sqlx::query("ROLLBACK").execute(&mut *conn).await;
    }
    let stopped = match &result {
        Err(error) => {
            tracing::error!(audit = audit.0, %error, "store writer stopped");
            error.to_string()
        }
        Ok(_) => "it was closed".to_owned(),
    };
    *cause
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(stopped);
    result
}

/// After the last commit: moves the WAL into the database file and truncates it (the
/// writer's larger checkpoint interval would otherwise leave up to ~40 MB behind), and
/// gives the connection back to the pool with the default cache and interval. Everything
/// is committed already, so a failure here (another connection reading) only leaves the
/// WAL for a later checkpoint.
async fn finish(conn: &mut PoolConnection<Sqlite>) {
    for pragma in [
        "PRAGMA wal_checkpoint(TRUNCATE)",
        "PRAGMA wal_autocheckpoint = 1000",
        "PRAGMA journal_size_limit = -1",
        "PRAGMA cache_size = -16384",
    ] {
        if let Err(error) = sqlx::query(pragma).execute(&mut **conn).await {
            tracing::warn!(%error, pragma, "store writer: closing");
        }
    }
}

impl State {
    async fn serve(
        &mut self,
        conn: &mut PoolConnection<Sqlite>,
        rx: &mut mpsc::Receiver<Command>,
    ) -> Result<WriterStats, StoreError> {
        loop {
            let command = match self.deadline {
                Some(deadline) => match tokio::time::timeout_at(deadline, rx.recv()).await {
                    Ok(command) => command,
                    Err(_) => {
                        self.commit(conn).await?;
                        continue;
                    }
                },
                None => rx.recv().await,
            };
            let Some(command) = command else {
                self.commit(conn).await?;
                finish(conn).await;
                return Ok(self.stats);
            };
            match command {
                Command::Claim { max, reply } => {
                    // A claim must see the URLs and re-queues sent before it; the other
                    // rows wait for the next write of the buffers (the crawl loop waits
                    // for the claim).
                    self.begin(conn).await?;
                    self.write_urls(conn).await?;
                    self.write_requeues(conn).await?;
                    let claimed = self.claim(conn, max).await?;
                    // A fetcher that went away leaves its URLs `fetching`: the next run
                    // re-queues them.
                    let _ = reply.send(claimed);
                }
                Command::Flush { reply } => {
                    self.commit(conn).await?;
                    let _ = reply.send(());
                }
                Command::Checkpoint { reply } => {
                    self.commit(conn).await?;
                    if let Err(error) = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                        .execute(&mut **conn)
                        .await
                    {
                        tracing::debug!(%error, "store writer: checkpoint");
                    }
                    let _ = reply.send(());
                }
                Command::Close => {
                    self.commit(conn).await?;
                    finish(conn).await;
                    return Ok(self.stats);
                }
                other => {
                    self.begin(conn).await?;
                    self.apply(conn, other).await?;
                    self.records_in_tx += 1;
                    self.stats.records += 1;
                    if self.records_in_tx >= self.options.batch_records {
                        self.commit(conn).await?;
                    } else if self.buffers.rows() >= FLUSH_ROWS {
                        self.write_buffers(conn).await?;
                    }
                }
            }
        }
    }

    async fn begin(&mut self, conn: &mut PoolConnection<Sqlite>) -> Result<(), StoreError> {
        if !self.in_tx {
            sqlx::query("BEGIN IMMEDIATE")
                .execute(&mut **conn)
                .await
                .ctx("starting a write transaction")?;
            self.in_tx = true;
            self.deadline = Some(tokio::time::Instant::now() + self.options.batch_interval);
        }
        Ok(())
    }

    async fn commit(&mut self, conn: &mut PoolConnection<Sqlite>) -> Result<(), StoreError> {
        if !self.in_tx {
            return Ok(());
        }
        self.write_buffers(conn).await?;
        let elapsed = self
            .options
            .elapsed_base_ms
            .saturating_add(u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX));
        sqlx::query(
            "UPDATE audits SET urls_found = urls_found + ?, pages_fetched = pages_fetched + ?,
             fetch_errors = fetch_errors + ?, elapsed_ms = ? WHERE id = ?",
        )
        .bind(opt_u64(Some(self.new_urls)))
        .bind(opt_u64(Some(self.new_fetches)))
        .bind(opt_u64(Some(self.new_errors)))
        .bind(opt_u64(Some(elapsed)))
        .bind(self.audit)
        .execute(&mut **conn)
        .await
        .ctx("updating audit counters")?;
        sqlx::query("COMMIT")
            .execute(&mut **conn)
            .await
            .ctx("committing a batch")?;
        self.in_tx = false;
        self.deadline = None;
        self.records_in_tx = 0;
        self.ids.0.clear();
        self.new_urls = 0;
        self.new_fetches = 0;
        self.new_errors = 0;
        self.stats.commits += 1;
        Ok(())
    }

    async fn apply(
        &mut self,
        conn: &mut PoolConnection<Sqlite>,
        command: Command,
    ) -> Result<(), StoreError> {
        let b = &mut self.buffers;
        match command {
            Command::Page(page) => {
                let page = *page;
                let id = page.url_id;
                b.urls.extend(page.new_urls);
                b.requeue.extend(page.requeue);
                if page.state == UrlState::Done && page.reason.is_none() {
                    b.done.push(id);
                } else {
                    b.states.push((id, page.state, page.reason));
                }
                if let Some(origin) = page.blocked_by {
                    b.blocks.push(BlockRow(id, origin));
                }
                if let Some(mut fetch) = page.fetch {
                    if let Some(headers) = fetch.headers.take() {
                        b.headers.push(HeadersRow(id, headers));
                    }
                    if fetch.answered() {
                        self.new_fetches += 1;
                    }
                    if fetch.error_kind.is_some() {
                        self.new_errors += 1;
                    }
                    b.fetches.push(FetchRow(id, fetch));
                }
                if let Some(redirect) = page.redirect {
                    b.redirects.push(RedirectRow(id, redirect));
                }
                b.links.extend(
                    page.links
                        .into_iter()
                        .zip(0u32..)
                        .map(|(l, i)| LinkRow(id, i, l)),
                );
                b.canonicals.extend(
                    page.canonicals
                        .into_iter()
                        .zip(0u32..)
                        .map(|(c, i)| CanonicalRow(id, i, c)),
                );
                b.hreflang.extend(
                    page.hreflang
                        .into_iter()
                        .zip(0u32..)
                        .map(|(h, i)| HreflangRow(id, i, h)),
                );
                b.errors.extend(page.errors);
                if let Some(mut rendered) = page.rendered {
                    let links = std::mem::take(&mut rendered.links);
                    let count = u32::try_from(links.len()).unwrap_or(u32::MAX);
                    b.rendered_links.extend(
                        links
                            .into_iter()
                            .zip(0u32..)
                            .map(|(l, i)| RenderedLinkRow(id, i, l)),
                    );
                    b.renders.push(RenderRow(id, *rendered, count));
                }
            }
            Command::Urls(urls) => b.urls.extend(urls),
            Command::Probes(batch) => {
                let batch = *batch;
                b.urls.extend(batch.urls);
                b.requeue.extend(batch.requeue);
                b.probes.extend(batch.probes);
            }
            Command::Sitemap(sitemap) => {
                let s = *sitemap;
                sqlx::query(
                    "INSERT OR REPLACE INTO sitemaps (audit_id, id, url, kind, parent_id, found_via,
                     fetched_at, status, body_bytes, gzip, entries, issues, error)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                )
                .bind(self.audit)
                .bind(s.id)
                .bind(s.url)
                .bind(s.kind)
                .bind(s.parent_id)
                .bind(s.found_via.as_str())
                .bind(s.fetched_at)
                .bind(s.status)
                .bind(opt_u64(Some(s.body_bytes)))
                .bind(s.gzip)
                .bind(opt_u64(Some(s.entries.len() as u64)))
                .bind(crate::versioned::wrap(
                    crate::versioned::SITEMAP_ISSUES,
                    &s.issues_json,
                ))
                .bind(s.error)
                .execute(&mut **conn)
                .await
                .ctx("storing a sitemap")?;
                b.urls.extend(s.new_urls);
                b.requeue.extend(s.requeue);
                b.entries.extend(
                    s.entries
                        .into_iter()
                        .zip(0u32..)
                        .map(|(e, i)| EntryRow(s.id, i, e)),
                );
            }
            Command::SitemapParent { url, parent } => {
                sqlx::query(
                    "UPDATE sitemaps SET parent_id = ?1
                     WHERE audit_id = ?2 AND url = ?3 AND parent_id IS NULL
                       AND id NOT IN (
                           WITH RECURSIVE up (id) AS (
                               SELECT ?1
                               UNION
                               SELECT s.parent_id FROM sitemaps s JOIN up ON s.id = up.id
                               WHERE s.audit_id = ?2 AND s.parent_id IS NOT NULL)
                           SELECT id FROM up)",
                )
                .bind(parent)
                .bind(self.audit)
                .bind(url)
                .execute(&mut **conn)
                .await
                .ctx("storing a sitemap's parent")?;
            }
            Command::Robots(r) => {
                sqlx::query(
                    "INSERT OR REPLACE INTO robots (audit_id, origin, fetched_at, status, body,
                     crawl_delay, sitemaps, verdict, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                )
                .bind(self.audit)
                .bind(r.origin)
                .bind(r.fetched_at)
                .bind(r.status)
                .bind(r.body)
                .bind(r.crawl_delay)
                .bind(serde_json::to_string(&r.sitemaps).unwrap_or_else(|_| "[]".to_owned()))
                .bind(r.verdict.as_str())
                .bind(r.error)
                .execute(&mut **conn)
                .await
                .ctx("storing a robots.txt fetch")?;
            }
            Command::Error(e) => b.errors.push(e),
            Command::Claim { .. }
            | Command::Flush { .. }
            | Command::Checkpoint { .. }
            | Command::Close => {}
        }
        Ok(())
    }

    /// Writes every buffered row inside the open transaction: URLs first, so that the ids
    /// of URLs found to be stored already are known before the rows that point at them.
    async fn write_buffers(&mut self, conn: &mut PoolConnection<Sqlite>) -> Result<(), StoreError> {
        self.write_urls(conn).await?;
        let audit = self.audit;
        let ids = &self.ids;
        let b = &mut self.buffers;
        insert_rows(conn, &mut b.fetches, audit, ids).await?;
        insert_rows(conn, &mut b.redirects, audit, ids).await?;
        insert_rows(conn, &mut b.links, audit, ids).await?;
        insert_rows(conn, &mut b.canonicals, audit, ids).await?;
        insert_rows(conn, &mut b.hreflang, audit, ids).await?;
        insert_rows(conn, &mut b.entries, audit, ids).await?;
        insert_rows(conn, &mut b.errors, audit, ids).await?;
        insert_rows(conn, &mut b.blocks, audit, ids).await?;
        insert_rows(conn, &mut b.probes, audit, ids).await?;
        insert_rows(conn, &mut b.renders, audit, ids).await?;
        insert_rows(conn, &mut b.rendered_links, audit, ids).await?;
        insert_rows(conn, &mut b.headers, audit, ids).await?;

        let mut rest = &b.done[..];
        while !rest.is_empty() {
            let n = chunk_len(rest.len());
            let (chunk, tail) = rest.split_at(n);
            let mut sql = String::from(
                "UPDATE urls SET state = 'done', reason_kind = NULL, reason = NULL
                 WHERE audit_id = ? AND id IN (?",
            );
            sql.push_str(&",?".repeat(n - 1));
            sql.push(')');
            let mut q = sqlx::query(AssertSqlSafe(sql)).bind(audit);
            for &id in chunk {
                q = q.bind(ids.get(id));
            }
            q.execute(&mut **conn).await.ctx("marking URLs done")?;
            rest = tail;
        }
        b.done.clear();
        for (id, state, reason) in b.states.drain(..) {
            sqlx::query(
                "UPDATE urls SET state = ?, reason_kind = ?, reason = ? WHERE audit_id = ? AND id = ?",
            )
            .bind(state.as_str())
            .bind(reason.as_ref().map(|r| r.kind.as_str()))
            .bind(reason.and_then(|r| r.detail))
                .bind(audit)
                .bind(ids.get(id))
                .execute(&mut **conn)
                .await
                .ctx("updating URL states")?;
        }
        self.write_requeues(conn).await
    }

    /// Puts the buffered re-queued URLs back in the queue. A re-queue can arrive before
    /// the row it re-queues: the page that found the URL first (a link, not followed)
    /// and the page that found it again (a redirect hop) are fetched at once, and their
    /// records reach the writer in either order. Such a re-queue waits in
    /// `early_requeues` and is applied once the row is written.
    async fn write_requeues(
        &mut self,
        conn: &mut PoolConnection<Sqlite>,
    ) -> Result<(), StoreError> {
        let audit = self.audit;
        let mut pending: Vec<Requeue> = self.buffers.requeue.drain(..).collect();
        pending.append(&mut self.early_requeues);
        for r in pending {
            let id = self.ids.get(r.id);
            let updated = sqlx::query(
                "UPDATE urls SET state = 'queued', reason_kind = NULL, reason = NULL, depth = ?
                 WHERE audit_id = ? AND id = ? AND state = 'skipped'",
            )
            .bind(r.depth)
            .bind(audit)
            .bind(id)
            .execute(&mut **conn)
            .await
            .ctx("re-queueing URLs")?
            .rows_affected();
            if updated == 0 {
                let stored: bool = sqlx::query_scalar(
                    "SELECT EXISTS (SELECT 1 FROM urls WHERE audit_id = ? AND id = ?)",
                )
                .bind(audit)
                .bind(id)
                .fetch_one(&mut **conn)
                .await
                .ctx("re-queueing URLs")?;
                if !stored {
                    self.early_requeues.push(r);
                }
            }
        }
        Ok(())
    }

    /// Inserts the buffered URLs; a URL already stored under another id (the crawler's set
    /// of known URLs is bounded) is mapped onto the stored id.
    async fn write_urls(&mut self, conn: &mut PoolConnection<Sqlite>) -> Result<(), StoreError> {
        let mut rest = &self.buffers.urls[..];
        let mut merged: Vec<(UrlId, &str)> = Vec::new();
        while !rest.is_empty() {
            let n = chunk_len(rest.len());
            let (chunk, tail) = rest.split_at(n);
            let sql = multi_row_sql(
                NewUrl::HEAD,
                NewUrl::GROUP,
                n,
                " ON CONFLICT (audit_id, url_rfc3986) DO NOTHING RETURNING id",
            );
            let mut q = sqlx::query(AssertSqlSafe(sql));
            for row in chunk {
                q = row.clone().bind(q, self.audit, &self.ids);
            }
            let inserted: HashSet<UrlId> = q
                .fetch_all(&mut **conn)
                .await
                .ctx(NewUrl::CONTEXT)?
                .iter()
                .map(|row| row.get::<i64, _>(0))
                .collect();
            self.new_urls += inserted.len() as u64;
            self.stats.urls_inserted += inserted.len() as u64;
            merged.extend(
                chunk
                    .iter()
                    .filter(|u| !inserted.contains(&u.id))
                    .map(|u| (u.id, u.url_rfc3986.as_str())),
            );
            rest = tail;
        }
        for (id, key) in merged {
            let stored: i64 =
                sqlx::query_scalar("SELECT id FROM urls WHERE audit_id = ? AND url_rfc3986 = ?")
                    .bind(self.audit)
                    .bind(key.to_owned())
                    .fetch_one(&mut **conn)
                    .await
                    .ctx("looking up a known URL")?;
            self.ids.0.insert(id, stored);
            self.stats.urls_merged += 1;
        }
        self.buffers.urls.clear();
        Ok(())
    }

    async fn claim(
        &mut self,
        conn: &mut PoolConnection<Sqlite>,
        max: u32,
    ) -> Result<Vec<Claimed>, StoreError> {
        let rows = sqlx::query(
            "UPDATE urls SET state = 'fetching'
             WHERE audit_id = ?1 AND id IN (
                 SELECT id FROM urls WHERE audit_id = ?1 AND state = 'queued'
                 ORDER BY depth, id LIMIT ?2)
             RETURNING id, url, depth, redirect_depth",
        )
        .bind(self.audit)
        .bind(max)
        .fetch_all(&mut **conn)
        .await
        .ctx("claiming frontier URLs")?;
        let mut claimed: Vec<Claimed> = rows
            .iter()
            .map(|row| Claimed {
                id: row.get(0),
                url: row.get(1),
                depth: row.get(2),
                redirect_depth: row.get(3),
            })
            .collect();
        claimed.sort_by_key(|c| (c.depth, c.id));
        Ok(claimed)
    }
}
