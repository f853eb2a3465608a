//! Deleting an audit and every row it owns.

use sqlx::Row;

use crate::error::SqlContext;
use crate::{AuditId, Store, StoreError};

/// Tables deleted last, in this order: the parents of the others' foreign keys.
const PARENTS: &[&str] = &["sitemaps", "urls"];

impl Store {
    /// Deletes `audit` and its rows in every table keyed by audit (found from the schema,
    /// so tables added by later migrations are covered), in one transaction. Children are
    /// deleted before their parents, table by table, so no cascade runs row by row.
    /// Refused with [`StoreError::AuditBusy`] while a process holds its lease (crawls it).
    /// Returns the number of rows deleted.
    pub async fn delete_audit(&self, audit: AuditId) -> Result<u64, StoreError> {
        let names = sqlx::query(
            "SELECT m.name FROM sqlite_master AS m
             WHERE m.type = 'table' AND m.name <> 'audits'
               AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'audit_id')
             ORDER BY m.name",
        )
        .fetch_all(self.pool())
        .await
        .ctx("listing the tables of an audit")?;
        let mut tables: Vec<String> = names.iter().map(|r| r.get(0)).collect();
        tables.sort_by_key(|t| PARENTS.iter().position(|p| p == t));

        let mut tx = self.pool().begin().await.ctx("starting a transaction")?;
        let found = sqlx::query("SELECT 1 FROM audits WHERE id = ?")
            .bind(audit.0)
            .fetch_optional(&mut *tx)
            .await
            .ctx("finding an audit")?;
        if found.is_none() {
            return Err(StoreError::AuditNotFound(audit));
        }
        // Never under a running crawl: its writer would fail on the missing rows.
        crate::lease::refuse_if_leased(&mut *tx, audit).await?;
        let mut deleted = 0;
        for table in &tables {
            let sql = format!(
                "DELETE FROM \"{}\" WHERE audit_id = ?",
                table.replace('"', "\"\"")
            );
            deleted += sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(audit.0)
                .execute(&mut *tx)
                .await
                .ctx("deleting an audit's rows")?
                .rows_affected();
        }
        deleted += sqlx::query("DELETE FROM audits WHERE id = ?")
            .bind(audit.0)
            .execute(&mut *tx)
            .await
            .ctx("deleting an audit")?
            .rows_affected();
        tx.commit().await.ctx("committing an audit's deletion")?;
        Ok(deleted)
    }
}
