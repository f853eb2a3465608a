//! The requests an access log holds per URL of a list audit (`log_hits`), against a real
//! SQLite file: stored by URL identity, read back by id, deleted with the audit; a
//! database written before the DNS check of bots reads its bot requests as unverified.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;

use sqlx::AssertSqlSafe;
use store::{AuditId, FoundVia, LogHitRecord, LogHits, NewUrl, Store, UrlState, WriterOptions};
use support::{exec, raw_pool};

fn new_url(id: i64, path: &str) -> NewUrl {
    let url = format!("https://example.test{path}");
    NewUrl {
        id,
        url: url.clone(),
        url_rfc3986: url,
        url_seo: None,
        host: "example.test".into(),
        depth: 0,
        redirect_depth: 0,
        found_from: None,
        found_via: FoundVia::Start,
        state: UrlState::Queued,
        reason: None,
    }
}

#[tokio::test]
async fn log_hits_are_stored_by_url_and_go_with_their_audit() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("audits.sqlite"))
        .await
        .unwrap();
    let audit = store
        .create_audit(&["https://example.test/".into()], "{}")
        .await
        .unwrap();
    store.prepare_run(audit).await.unwrap();
    let writer = store.writer(audit, WriterOptions::default()).await.unwrap();
    writer
        .urls(vec![new_url(1, "/a"), new_url(2, "/b")])
        .await
        .unwrap();
    writer.close().await.unwrap();

    let hit = |path: &str, verified, unverified, fake, other| LogHitRecord {
        url_rfc3986: format!("https://example.test{path}"),
        verified_bot_requests: verified,
        unverified_bot_requests: unverified,
        fake_bot_requests: fake,
        other_requests: other,
    };
    // A URL the audit does not hold is left out.
    let stored = store
        .record_log_hits(
            audit,
            &[
                hit("/a", 2, 1, 5, 1),
                hit("/b", 0, 0, 0, 7),
                hit("/c", 9, 9, 9, 9),
            ],
        )
        .await
        .unwrap();
    assert_eq!(stored, 2);
    // Stored again (a resumed discovery): replaced, not added.
    store
        .record_log_hits(audit, &[hit("/a", 3, 1, 6, 1)])
        .await
        .unwrap();
    assert_eq!(
        store.log_hits(audit).await.unwrap(),
        [
            LogHits {
                url_id: 1,
                verified_bot_requests: 3,
                unverified_bot_requests: 1,
                fake_bot_requests: 6,
                other_requests: 1
            },
            LogHits {
                url_id: 2,
                other_requests: 7,
                ..LogHits::default()
            },
        ]
    );
    store.delete_audit(audit).await.unwrap();
    assert!(store.log_hits(audit).await.unwrap().is_empty());
}

/// The migration that split bot requests by the DNS check.
const VERIFIED_BOTS: &str = "20261127090000";

/// A database as the migrations before [`VERIFIED_BOTS`] left it (with the migrator's
/// records of them, copied from a database the store made), holding a list audit of an
/// access log whose bot requests were told by user agent only.
async fn database_before_the_check(dir: &Path) -> std::path::PathBuf {
    let (path, pool) = support::database_before(dir, VERIFIED_BOTS).await;
    exec(
        &pool,
        "INSERT INTO audits (id, started_at, status, start_urls, config, pages_fetched)
             VALUES (1, 1, 'finished', '[\"https://example.test/\"]', '{}', 1);
         INSERT INTO urls (audit_id, id, url, url_rfc3986, host, depth, found_via, state)
             VALUES (1, 1, 'https://example.test/a', 'https://example.test/a',
                     'example.test', 0, 'start', 'done');
         INSERT INTO log_hits (audit_id, url_id, bot_requests, other_requests)
             VALUES (1, 1, 4, 2);",
    )
    .await;
    pool.close().await;
    path
}

#[tokio::test]
async fn bot_requests_stored_before_the_dns_check_read_as_unverified() {
    let dir = tempfile::tempdir().unwrap();
    let path = database_before_the_check(dir.path()).await;
    let store = Store::open(&path).await.unwrap();
    assert_eq!(
        store.log_hits(AuditId(1)).await.unwrap(),
        [LogHits {
            url_id: 1,
            verified_bot_requests: 0,
            unverified_bot_requests: 4,
            fake_bot_requests: 0,
            other_requests: 2
        }]
    );
    store.close().await;
    // The new columns keep their constraint, the renamed one its own.
    let pool = raw_pool(&path).await;
    for column in ["fake_bot_requests", "unverified_bot_requests"] {
        let negative = sqlx::query(AssertSqlSafe(format!(
            "UPDATE log_hits SET {column} = -1 WHERE audit_id = 1 AND url_id = 1"
        )))
        .execute(&pool)
        .await;
        assert!(negative.is_err(), "{column}: {negative:?}");
    }
}
