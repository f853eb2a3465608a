//! Audits: creating, listing, summarising and preparing a (resumed) run.

use serde::Serialize;
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

use crate::error::SqlContext;
use crate::{
    AuditId, AuditStatus, AuditStop, ReasonKind, SitemapId, StopReason, Store, StoreError, UrlId,
    now_ms,
};

/// An audit's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Audit {
    /// Its id.
    pub id: AuditId,
    /// When it was created (ms since the epoch).
    pub started_at: i64,
    /// When its last run ended (ms since the epoch).
    pub finished_at: Option<i64>,
    /// Where it is in its life.
    pub status: AuditStatus,
    /// The start URLs as given.
    pub start_urls: Vec<String>,
    /// The crawl configuration, as JSON (the crawl crate owns its shape), in format
    /// version `config_version`.
    pub config_json: String,
    /// The format version of `config_json`: [`AUDIT_CONFIG_VERSION`](crate::AUDIT_CONFIG_VERSION)
    /// or older (1 for configurations stored before versions).
    pub config_version: u32,
    /// Discovery (robots.txt, sitemaps, start URL variants) has completed.
    pub discovery_done: bool,
    /// Why it failed.
    pub failure: Option<String>,
    /// URLs recorded (fetched or not).
    pub urls_found: u64,
    /// Pages fetched: the URLs whose request got an HTTP response, whatever its status
    /// (a fetch row with a status; see [`FetchRecord::answered`](crate::FetchRecord::answered)).
    /// Requests that got none (timeouts, refused connections) are not counted; nor are
    /// URLs blocked by robots.txt or skipped. Kept up to date by the writer at every
    /// commit: every screen and summary shows this number.
    pub pages_fetched: u64,
    /// Fetches that ended without a usable response.
    pub fetch_errors: u64,
    /// Wall-clock time spent crawling, over all runs, in ms.
    pub elapsed_ms: u64,
    /// Why the crawl ended before covering everything it found (a limit or a budget),
    /// and where; `None` for a complete crawl.
    pub stop: Option<AuditStop>,
    /// Bytes the crawl handed to the database for this audit, over all runs (what the
    /// storage budget counts).
    pub stored_bytes: u64,
}

impl Audit {
    /// Whether a new run can continue the audit: it did not finish, or it finished
    /// because a per-run budget stopped it (its duration, a slow host), which a resumed
    /// run starts afresh. Any other finished audit is complete.
    pub fn resumable(&self) -> bool {
        self.status != AuditStatus::Finished
            || self.stop.as_ref().is_some_and(|s| s.reason.resumable())
    }
}

/// What [`Store::prepare_run`] found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResumePoint {
    /// The next free URL id: the crawler allocates ids from here.
    pub next_url_id: UrlId,
    /// The next free sitemap id.
    pub next_sitemap_id: SitemapId,
    /// URLs that were `fetching` (the previous run stopped before storing them) and are
    /// queued again.
    pub requeued: u64,
    /// URLs stored so far.
    pub urls: u64,
    /// Time already spent crawling, in ms.
    pub elapsed_ms: u64,
}

/// URLs by frontier state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StateCounts {
    /// Waiting to be fetched.
    pub queued: u64,
    /// Being fetched (or interrupted).
    pub fetching: u64,
    /// Fetched.
    pub done: u64,
    /// Disallowed by robots.txt.
    pub blocked: u64,
    /// Fetch failed.
    pub failed: u64,
    /// Not fetched: out of scope or over a limit.
    pub skipped: u64,
}

/// Fetched pages by HTTP status class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StatusClasses {
    /// 1xx and anything outside 100-599.
    pub other: u64,
    /// 2xx.
    pub success: u64,
    /// 3xx.
    pub redirect: u64,
    /// 4xx.
    pub client_error: u64,
    /// 5xx.
    pub server_error: u64,
    /// No response (timeout, connection refused or dropped, ...).
    pub no_response: u64,
}

/// The numbers a terminal summary shows for one audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditSummary {
    /// The audit's row.
    pub audit: Audit,
    /// URLs by state.
    pub states: StateCounts,
    /// Fetches by status class.
    pub status_classes: StatusClasses,
    /// Redirect hops (HTTP and meta refresh).
    pub redirects: u64,
    /// Redirect chains with a loop or too many hops.
    pub redirect_problems: u64,
    /// Pages that declare at least one canonical.
    pub pages_with_canonical: u64,
    /// Canonical declarations.
    pub canonicals: u64,
    /// Sitemaps fetched.
    pub sitemaps: u64,
    /// Distinct URLs listed in sitemaps.
    pub sitemap_urls: u64,
    /// Skipped URLs by kind of reason, most first (ties in the kinds' order).
    pub skipped_by_reason: Vec<(ReasonKind, u64)>,
    /// Recorded errors: fetch errors plus robots / sitemap / processing errors.
    pub errors: u64,
    /// Links recorded.
    pub links: u64,
}

const AUDIT_COLUMNS: &str =
    "id, started_at, finished_at, status, start_urls, config, discovery_done,
     failure, urls_found, pages_fetched, fetch_errors, elapsed_ms,
     stop_reason, stop_detail, stored_bytes";

fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

fn audit_from_row(row: &SqliteRow) -> Result<Audit, StoreError> {
    let id = AuditId(row.get(0));
    let status: String = row.get(3);
    let start_urls: String = row.get(4);
    let config: String = row.get(5);
    let (config_version, config_json) =
        crate::versioned::unwrap(crate::versioned::AUDIT_CONFIG, id, &config)?;
    Ok(Audit {
        id,
        started_at: row.get(1),
        finished_at: row.get(2),
        status: AuditStatus::parse(&status).ok_or_else(|| StoreError::Corrupt {
            audit: id,
            field: "audits.status",
            detail: status.clone(),
        })?,
        start_urls: serde_json::from_str(&start_urls).map_err(|e| StoreError::Corrupt {
            audit: id,
            field: "audits.start_urls",
            detail: e.to_string(),
        })?,
        config_json,
        config_version,
        discovery_done: row.get(6),
        failure: row.get(7),
        urls_found: count(row.get(8)),
        pages_fetched: count(row.get(9)),
        fetch_errors: count(row.get(10)),
        elapsed_ms: count(row.get(11)),
        stop: stop_from_columns(id, row.get(12), row.get(13))?,
        stored_bytes: count(row.get(14)),
    })
}

fn stop_from_columns(
    id: AuditId,
    reason: Option<String>,
    detail: Option<String>,
) -> Result<Option<AuditStop>, StoreError> {
    let Some(reason) = reason else {
        return Ok(None);
    };
    let reason = StopReason::parse(&reason).ok_or_else(|| StoreError::Corrupt {
        audit: id,
        field: "audits.stop_reason",
        detail: reason.clone(),
    })?;
    Ok(Some(AuditStop {
        reason,
        detail: detail.unwrap_or_default(),
    }))
}

impl Store {
    /// Creates an audit in state `running` and returns its id.
    pub async fn create_audit(
        &self,
        start_urls: &[String],
        config_json: &str,
    ) -> Result<AuditId, StoreError> {
        let start_urls = serde_json::to_string(start_urls).unwrap_or_else(|_| "[]".to_owned());
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO audits (started_at, status, start_urls, config) VALUES (?, 'running', ?, ?)
             RETURNING id",
        )
        .bind(now_ms())
        .bind(start_urls)
        .bind(crate::versioned::wrap(
            crate::versioned::AUDIT_CONFIG,
            config_json,
        ))
        .fetch_one(self.pool())
        .await
        .ctx("creating an audit")?;
        Ok(AuditId(id))
    }

    /// Replaces an audit's stored configuration (a run that learned rules keeps them
    /// for its resumes and for the audits started like it).
    pub async fn replace_audit_config(
        &self,
        id: AuditId,
        config_json: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE audits SET config = ? WHERE id = ?")
            .bind(crate::versioned::wrap(
                crate::versioned::AUDIT_CONFIG,
                config_json,
            ))
            .bind(id.0)
            .execute(self.pool())
            .await
            .ctx("storing an audit's configuration")?;
        Ok(())
    }

    /// One audit's row.
    pub async fn audit(&self, id: AuditId) -> Result<Audit, StoreError> {
        let sql = format!("SELECT {AUDIT_COLUMNS} FROM audits WHERE id = ?");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id.0)
            .fetch_optional(self.pool())
            .await
            .ctx("reading an audit")?
            .ok_or(StoreError::AuditNotFound(id))?;
        audit_from_row(&row)
    }

    /// Every audit in the file, newest first, with its counters.
    pub async fn list_audits(&self) -> Result<Vec<Audit>, StoreError> {
        let sql = format!("SELECT {AUDIT_COLUMNS} FROM audits ORDER BY id DESC");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .fetch_all(self.pool())
            .await
            .ctx("listing audits")?;
        rows.iter().map(audit_from_row).collect()
    }

    /// Sets an audit's status; a status other than `running` also stamps `finished_at`.
    pub async fn set_audit_status(
        &self,
        id: AuditId,
        status: AuditStatus,
        failure: Option<&str>,
    ) -> Result<(), StoreError> {
        let finished = (status != AuditStatus::Running).then(now_ms);
        let done =
            sqlx::query("UPDATE audits SET status = ?, failure = ?, finished_at = ? WHERE id = ?")
                .bind(status.as_str())
                .bind(failure)
                .bind(finished)
                .bind(id.0)
                .execute(self.pool())
                .await
                .ctx("setting an audit's status")?;
        if done.rows_affected() == 0 {
            return Err(StoreError::AuditNotFound(id));
        }
        Ok(())
    }

    /// Records how a run of `id` ended: why the crawl stopped short (`None`: it did not;
    /// replaces what an earlier run recorded) and the bytes this run handed to the
    /// database (added to [`Audit::stored_bytes`]).
    pub async fn record_run_end(
        &self,
        id: AuditId,
        stop: Option<&AuditStop>,
        stored_bytes: u64,
    ) -> Result<(), StoreError> {
        let done = sqlx::query(
            "UPDATE audits SET stop_reason = ?, stop_detail = ?, stored_bytes = stored_bytes + ?
             WHERE id = ?",
        )
        .bind(stop.map(|s| s.reason.as_str()))
        .bind(stop.map(|s| s.detail.as_str()))
        .bind(i64::try_from(stored_bytes).unwrap_or(i64::MAX))
        .bind(id.0)
        .execute(self.pool())
        .await
        .ctx("recording how a run ended")?;
        if done.rows_affected() == 0 {
            return Err(StoreError::AuditNotFound(id));
        }
        Ok(())
    }

    /// Records that discovery (robots.txt, sitemaps, start URL variants) has completed, so
    /// a resumed run skips it.
    pub async fn mark_discovery_done(&self, id: AuditId) -> Result<(), StoreError> {
        sqlx::query("UPDATE audits SET discovery_done = 1 WHERE id = ?")
            .bind(id.0)
            .execute(self.pool())
            .await
            .ctx("marking discovery done")?;
        Ok(())
    }

    /// Gets an audit ready for a run (first or resumed): sets it `running`, puts URLs left
    /// `fetching` by an interrupted run back in the queue, and returns where ids continue.
    pub async fn prepare_run(&self, id: AuditId) -> Result<ResumePoint, StoreError> {
        let audit = self.audit(id).await?;
        let mut tx = self.pool().begin().await.ctx("starting a transaction")?;
        let requeued = sqlx::query(
            "UPDATE urls SET state = 'queued' WHERE audit_id = ? AND state = 'fetching'",
        )
        .bind(id.0)
        .execute(&mut *tx)
        .await
        .ctx("re-queueing interrupted fetches")?
        .rows_affected();
        sqlx::query(
            "UPDATE audits SET status = 'running', failure = NULL, finished_at = NULL WHERE id = ?",
        )
        .bind(id.0)
        .execute(&mut *tx)
        .await
        .ctx("marking an audit running")?;
        let row = sqlx::query(
            "SELECT (SELECT COALESCE(MAX(id), 0) FROM urls WHERE audit_id = ?1),
                    (SELECT COUNT(*) FROM urls WHERE audit_id = ?1),
                    (SELECT COALESCE(MAX(id), 0) FROM sitemaps WHERE audit_id = ?1)",
        )
        .bind(id.0)
        .fetch_one(&mut *tx)
        .await
        .ctx("reading an audit's high-water marks")?;
        tx.commit().await.ctx("committing a run's preparation")?;
        Ok(ResumePoint {
            next_url_id: row.get::<i64, _>(0) + 1,
            urls: count(row.get(1)),
            next_sitemap_id: row.get::<i64, _>(2) + 1,
            requeued,
            elapsed_ms: audit.elapsed_ms,
        })
    }

    /// Puts URLs left `fetching` by a stopped run back in the queue; returns how many.
    pub async fn requeue_interrupted(&self, id: AuditId) -> Result<u64, StoreError> {
        Ok(sqlx::query(
            "UPDATE urls SET state = 'queued' WHERE audit_id = ? AND state = 'fetching'",
        )
        .bind(id.0)
        .execute(self.pool())
        .await
        .ctx("re-queueing interrupted fetches")?
        .rows_affected())
    }

    /// The numbers a terminal summary shows for `id`.
    pub async fn audit_summary(&self, id: AuditId) -> Result<AuditSummary, StoreError> {
        let audit = self.audit(id).await?;
        let pool = self.pool();

        let mut states = StateCounts::default();
        let rows =
            sqlx::query("SELECT state, COUNT(*) FROM urls WHERE audit_id = ? GROUP BY state")
                .bind(id.0)
                .fetch_all(pool)
                .await
                .ctx("counting URLs by state")?;
        for row in &rows {
            let n = count(row.get(1));
            match row.get::<String, _>(0).as_str() {
                "queued" => states.queued = n,
                "fetching" => states.fetching = n,
                "done" => states.done = n,
                "blocked" => states.blocked = n,
                "failed" => states.failed = n,
                _ => states.skipped = n,
            }
        }

        let mut status_classes = StatusClasses::default();
        let rows = sqlx::query(
            "SELECT CASE WHEN status IS NULL THEN -1 ELSE status / 100 END AS class, COUNT(*)
             FROM fetches WHERE audit_id = ? GROUP BY class",
        )
        .bind(id.0)
        .fetch_all(pool)
        .await
        .ctx("counting fetches by status class")?;
        for row in &rows {
            let n = count(row.get(1));
            match row.get::<i64, _>(0) {
                -1 => status_classes.no_response += n,
                2 => status_classes.success += n,
                3 => status_classes.redirect += n,
                4 => status_classes.client_error += n,
                5 => status_classes.server_error += n,
                _ => status_classes.other += n,
            }
        }

        let row = sqlx::query(
            "SELECT (SELECT COUNT(*) FROM redirects WHERE audit_id = ?1),
                    (SELECT COUNT(*) FROM redirect_chains WHERE audit_id = ?1),
                    (SELECT COUNT(DISTINCT page_url_id) FROM canonicals WHERE audit_id = ?1),
                    (SELECT COUNT(*) FROM canonicals WHERE audit_id = ?1),
                    (SELECT COUNT(*) FROM sitemaps WHERE audit_id = ?1),
                    (SELECT COUNT(DISTINCT url_id) FROM sitemap_entries WHERE audit_id = ?1),
                    (SELECT COUNT(*) FROM fetches WHERE audit_id = ?1 AND error_kind IS NOT NULL)
                      + (SELECT COUNT(*) FROM errors WHERE audit_id = ?1),
                    (SELECT COUNT(*) FROM links WHERE audit_id = ?1)",
        )
        .bind(id.0)
        .fetch_one(pool)
        .await
        .ctx("summarising an audit")?;

        let rows = sqlx::query(
            "SELECT COALESCE(reason_kind, 'other') AS r, COUNT(*) AS n FROM urls
             WHERE audit_id = ? AND state = 'skipped' GROUP BY r",
        )
        .bind(id.0)
        .fetch_all(pool)
        .await
        .ctx("counting skipped URLs by reason")?;
        let mut skipped_by_reason = rows
            .iter()
            .map(|r| {
                let kind: String = r.get(0);
                let kind = ReasonKind::parse(&kind).ok_or_else(|| StoreError::Corrupt {
                    audit: id,
                    field: "urls.reason_kind",
                    detail: kind.clone(),
                })?;
                Ok((kind, count(r.get(1))))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let order = |k: ReasonKind| ReasonKind::ALL.iter().position(|&a| a == k);
        skipped_by_reason.sort_by_key(|&(k, n)| (std::cmp::Reverse(n), order(k)));

        Ok(AuditSummary {
            audit,
            states,
            status_classes,
            redirects: count(row.get(0)),
            redirect_problems: count(row.get(1)),
            pages_with_canonical: count(row.get(2)),
            canonicals: count(row.get(3)),
            sitemaps: count(row.get(4)),
            sitemap_urls: count(row.get(5)),
            errors: count(row.get(6)),
            links: count(row.get(7)),
            skipped_by_reason,
        })
    }
}
