//! The summary of an audit's latest analysis (table `analysis_summary`, one row per
//! audit, deleted with it): its counts, so that listing audits needs no analysis; the
//! name of the policy it ran under, which the desktop app opens the audit with again;
//! and, beside them, the app's overview of that analysis.
//!
//! Every analysis that records itself replaces the row, under whatever policy it ran:
//! the default one for `dustpan audit`, `report` and `diff`, the audit's own policy in
//! the app. The table's migration comment says "under the default policy": that holds
//! for the command-line program only (an applied migration is never edited).

use serde::Serialize;
use sqlx::Row;
use sqlx::sqlite::SqliteRow;
use std::collections::HashMap;

use crate::error::SqlContext;
use crate::{Audit, AuditId, Store, StoreError};

/// What an analysis of an audit found, in numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalysisSummary {
    /// When the analysis ran (ms since the epoch).
    pub analysed_at: i64,
    /// The normalization policy's name (`seo`, ...).
    pub policy: String,
    /// Findings of severity error.
    pub errors: u64,
    /// Findings of severity warning.
    pub warnings: u64,
    /// Findings of severity notice.
    pub notices: u64,
    /// Clusters of two or more URLs.
    pub clusters: u64,
    /// URLs in those clusters.
    pub clustered_urls: u64,
}

/// An audit's row with the summary of its latest analysis, if it was ever analysed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditListing {
    /// The audit's row.
    pub audit: Audit,
    /// Its analysis summary; `None` when it was never analysed.
    pub analysis: Option<AnalysisSummary>,
}

const COLUMNS: &str =
    "audit_id, analysed_at, policy, errors, warnings, notices, clusters, clustered_urls";

fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

fn signed(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn from_row(row: &SqliteRow) -> (AuditId, AnalysisSummary) {
    (
        AuditId(row.get(0)),
        AnalysisSummary {
            analysed_at: row.get(1),
            policy: row.get(2),
            errors: count(row.get(3)),
            warnings: count(row.get(4)),
            notices: count(row.get(5)),
            clusters: count(row.get(6)),
            clustered_urls: count(row.get(7)),
        },
    )
}

impl Store {
    /// Stores (replacing any earlier one) the summary of an analysis of `audit`.
    pub async fn save_analysis_summary(
        &self,
        audit: AuditId,
        summary: &AnalysisSummary,
    ) -> Result<(), StoreError> {
        self.audit(audit).await?;
        sqlx::query(
            "INSERT OR REPLACE INTO analysis_summary
             (audit_id, analysed_at, policy, errors, warnings, notices, clusters, clustered_urls)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(audit.0)
        .bind(summary.analysed_at)
        .bind(&summary.policy)
        .bind(signed(summary.errors))
        .bind(signed(summary.warnings))
        .bind(signed(summary.notices))
        .bind(signed(summary.clusters))
        .bind(signed(summary.clustered_urls))
        .execute(self.pool())
        .await
        .ctx("storing an analysis summary")?;
        Ok(())
    }

    /// The summary of the latest stored analysis of `audit`; `None` when it was never
    /// analysed.
    pub async fn analysis_summary(
        &self,
        audit: AuditId,
    ) -> Result<Option<AnalysisSummary>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM analysis_summary WHERE audit_id = ?");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(audit.0)
            .fetch_optional(self.pool())
            .await
            .ctx("reading an analysis summary")?;
        Ok(row.as_ref().map(|r| from_row(r).1))
    }

    /// Every audit, newest first, each with its analysis summary if it has one.
    pub async fn list_audits_with_summary(&self) -> Result<Vec<AuditListing>, StoreError> {
        let audits = self.list_audits().await?;
        let sql = format!("SELECT {COLUMNS} FROM analysis_summary");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .fetch_all(self.pool())
            .await
            .ctx("reading analysis summaries")?;
        let mut by_audit: HashMap<AuditId, AnalysisSummary> = rows.iter().map(from_row).collect();
        Ok(audits
            .into_iter()
            .map(|audit| AuditListing {
                analysis: by_audit.remove(&audit.id),
                audit,
            })
            .collect())
    }

    /// Keeps the desktop app's overview (JSON) beside audit `audit`'s summary, if that
    /// summary was made under `policy` (a summary saved since under another policy
    /// has replaced the row, and the overview would not match it).
    pub async fn save_overview(
        &self,
        audit: AuditId,
        policy: &str,
        overview_json: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE analysis_summary SET overview = ? WHERE audit_id = ? AND policy = ?")
            .bind(crate::versioned::wrap(
                crate::versioned::OVERVIEW,
                overview_json,
            ))
            .bind(audit.0)
            .bind(policy)
            .execute(self.pool())
            .await
            .ctx("storing an overview")?;
        Ok(())
    }

    /// Audit `audit`'s stored overview (JSON in format version
    /// [`OVERVIEW_VERSION`](crate::OVERVIEW_VERSION) or older), with the summary it
    /// belongs to, if there is one. An overview stored by a newer Dustpan is
    /// [`StoreError::UnsupportedVersion`].
    pub async fn stored_overview(
        &self,
        audit: AuditId,
    ) -> Result<Option<(AnalysisSummary, String)>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS}, overview FROM analysis_summary
             WHERE audit_id = ? AND overview IS NOT NULL"
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(audit.0)
            .fetch_optional(self.pool())
            .await
            .ctx("reading a stored overview")?;
        row.map(|r| {
            let text: String = r.get(8);
            let (_, json) = crate::versioned::unwrap(crate::versioned::OVERVIEW, audit, &text)?;
            Ok((from_row(&r).1, json))
        })
        .transpose()
    }
}
