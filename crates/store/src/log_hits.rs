//! Requests an access log holds for the URLs of a list audit (table `log_hits`): from
//! search-engine bots whose address a DNS check verified, did not verify, or found fake,
//! and from everything else.

use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::error::SqlContext;
use crate::{AuditId, Store, StoreError, UrlId};

/// The requests a log holds for one URL, by its frontier identity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogHitRecord {
    /// The URL's `rfc3986` form (`urls.url_rfc3986`).
    pub url_rfc3986: String,
    /// Requests from search-engine bots whose address the DNS check verified.
    pub verified_bot_requests: u64,
    /// Requests from search-engine bots by user agent, not verified.
    pub unverified_bot_requests: u64,
    /// Requests with a bot's user agent from an address that failed the check.
    pub fake_bot_requests: u64,
    /// Every other request.
    pub other_requests: u64,
}

/// The requests a log holds for one stored URL.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogHits {
    /// The URL.
    pub url_id: UrlId,
    /// Requests from search-engine bots whose address the DNS check verified.
    pub verified_bot_requests: u64,
    /// Requests from search-engine bots by user agent, not verified (all of them in an
    /// audit stored before the check).
    pub unverified_bot_requests: u64,
    /// Requests with a bot's user agent from an address that failed the check.
    pub fake_bot_requests: u64,
    /// Every other request.
    pub other_requests: u64,
}

fn to_db(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Store {
    /// Stores the log's requests of `audit`'s URLs (a URL given again replaces its
    /// counts); records whose URL the audit does not hold are left out. Returns the rows
    /// stored.
    pub async fn record_log_hits(
        &self,
        audit: AuditId,
        records: &[LogHitRecord],
    ) -> Result<u64, StoreError> {
        let mut tx = self.pool().begin().await.ctx("starting a transaction")?;
        let mut stored = 0;
        for r in records {
            stored += sqlx::query(
                "INSERT OR REPLACE INTO log_hits (audit_id, url_id, verified_bot_requests, \
                 unverified_bot_requests, fake_bot_requests, other_requests) \
                 SELECT audit_id, id, ?, ?, ?, ? FROM urls WHERE audit_id = ? AND url_rfc3986 = ?",
            )
            .bind(to_db(r.verified_bot_requests))
            .bind(to_db(r.unverified_bot_requests))
            .bind(to_db(r.fake_bot_requests))
            .bind(to_db(r.other_requests))
            .bind(audit.0)
            .bind(&r.url_rfc3986)
            .execute(&mut *tx)
            .await
            .ctx("storing a URL's log requests")?
            .rows_affected();
        }
        tx.commit().await.ctx("committing log requests")?;
        Ok(stored)
    }

    /// The log's requests of `audit`'s URLs, by URL id (empty unless the audit listed an
    /// access log).
    pub async fn log_hits(&self, audit: AuditId) -> Result<Vec<LogHits>, StoreError> {
        let rows = sqlx::query(
            "SELECT url_id, verified_bot_requests, unverified_bot_requests, fake_bot_requests, \
             other_requests FROM log_hits WHERE audit_id = ? ORDER BY url_id",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading log requests")?;
        Ok(rows
            .iter()
            .map(|r| {
                let count = |i: usize| u64::try_from(r.get::<i64, _>(i)).unwrap_or(0);
                LogHits {
                    url_id: r.get(0),
                    verified_bot_requests: count(1),
                    unverified_bot_requests: count(2),
                    fake_bot_requests: count(3),
                    other_requests: count(4),
                }
            })
            .collect())
    }
}
