//! DUST validation samples: rewritten URLs fetched after a crawl to test a learned rule
//! (table `dust_validations`).

use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::error::SqlContext;
use crate::{AuditId, Store, StoreError};

/// One validation sample: what a rule predicted and what the server answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidationRecord {
    /// The rule's stable id.
    pub rule_id: String,
    /// The crawled page the rule rewrote.
    pub url: String,
    /// The rewritten URL, fetched for the test.
    pub rewritten: String,
    /// `url`'s text hash.
    pub url_text_hash: u64,
    /// `url`'s SimHash.
    pub url_simhash: Option<u64>,
    /// When the rewritten URL was requested (ms since the epoch).
    pub fetched_at: i64,
    /// Its HTTP status (`None`: no response).
    pub status: Option<u16>,
    /// Its text hash (HTML 2xx only).
    pub text_hash: Option<u64>,
    /// Its SimHash.
    pub simhash: Option<u64>,
    /// Why nothing usable came back (`timeout`, `robots_txt`, `out_of_scope`, ...).
    pub error_kind: Option<String>,
}

fn to_db(v: u64) -> i64 {
    i64::from_ne_bytes(v.to_ne_bytes())
}

fn from_db(v: i64) -> u64 {
    u64::from_ne_bytes(v.to_ne_bytes())
}

impl Store {
    /// Stores validation samples of `audit` (a sample fetched again replaces the old).
    pub async fn add_validations(
        &self,
        audit: AuditId,
        records: &[ValidationRecord],
    ) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.ctx("starting a transaction")?;
        for r in records {
            sqlx::query(
                "INSERT OR REPLACE INTO dust_validations (audit_id, rule_id, url, rewritten, \
                 url_text_hash, url_simhash, fetched_at, status, text_hash, simhash, error_kind) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(audit.0)
            .bind(&r.rule_id)
            .bind(&r.url)
            .bind(&r.rewritten)
            .bind(to_db(r.url_text_hash))
            .bind(r.url_simhash.map(to_db))
            .bind(r.fetched_at)
            .bind(r.status.map(i64::from))
            .bind(r.text_hash.map(to_db))
            .bind(r.simhash.map(to_db))
            .bind(&r.error_kind)
            .execute(&mut *tx)
            .await
            .ctx("storing a DUST validation sample")?;
        }
        tx.commit()
            .await
            .ctx("committing DUST validation samples")?;
        Ok(())
    }

    /// The validation samples of `audit`, by rule then rewritten URL.
    pub async fn validations(&self, audit: AuditId) -> Result<Vec<ValidationRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT rule_id, url, rewritten, url_text_hash, url_simhash, fetched_at, status, \
             text_hash, simhash, error_kind FROM dust_validations WHERE audit_id = ? \
             ORDER BY rule_id, rewritten",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading DUST validation samples")?;
        Ok(rows
            .iter()
            .map(|r| ValidationRecord {
                rule_id: r.get(0),
                url: r.get(1),
                rewritten: r.get(2),
                url_text_hash: from_db(r.get(3)),
                url_simhash: r.get::<Option<i64>, _>(4).map(from_db),
                fetched_at: r.get(5),
                status: r
                    .get::<Option<i64>, _>(6)
                    .and_then(|s| u16::try_from(s).ok()),
                text_hash: r.get::<Option<i64>, _>(7).map(from_db),
                simhash: r.get::<Option<i64>, _>(8).map(from_db),
                error_kind: r.get(9),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn samples_round_trip_and_go_with_their_audit() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("v.sqlite")).await.unwrap();
        let audit = store
            .create_audit(&["http://a.test/".into()], "{}")
            .await
            .unwrap();
        let record = ValidationRecord {
            rule_id: "replace:/story?id=>/story_".into(),
            url: "http://a.test/story?id=1".into(),
            rewritten: "http://a.test/story_1".into(),
            url_text_hash: u64::MAX - 3,
            url_simhash: Some(1 << 63),
            fetched_at: 5,
            status: Some(200),
            text_hash: Some(u64::MAX - 3),
            simhash: None,
            error_kind: None,
        };
        let failed = ValidationRecord {
            rewritten: "http://a.test/story_2".into(),
            status: None,
            text_hash: None,
            error_kind: Some("timeout".into()),
            ..record.clone()
        };
        store
            .add_validations(audit, &[record.clone(), failed.clone()])
            .await
            .unwrap();
        store
            .add_validations(audit, std::slice::from_ref(&record))
            .await
            .unwrap();
        assert_eq!(
            store.validations(audit).await.unwrap(),
            vec![record, failed]
        );
        let other = store
            .create_audit(&["http://b.test/".into()], "{}")
            .await
            .unwrap();
        assert!(store.validations(other).await.unwrap().is_empty());
    }
}
