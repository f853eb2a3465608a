//! The requests an access log holds per URL of a list audit (`log_hits`), against a real
//! SQLite file: stored by URL identity, read back by id, deleted with the audit; a
//! database written before the DNS check of bots reads its bot requests as unverified.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use sqlx::sqlite::{SqliteConnectOptions, SqlitePool};
use sqlx::{AssertSqlSafe, Row};
use store::{AuditId, FoundVia, LogHitRecord, LogHits, NewUrl, Store, UrlState, WriterOptions};

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

async fn raw_pool(path: &Path) -> SqlitePool {
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true);
    SqlitePool::connect_with(options).await.unwrap()
}

async fn exec(pool: &SqlitePool, sql: &str) {
    sqlx::raw_sql(AssertSqlSafe(sql.to_owned()))
        .execute(pool)
        .await
        .unwrap_or_else(|e| panic!("{e}: {sql}"));
}

/// A database as the migrations before [`VERIFIED_BOTS`] left it (with the migrator's
/// records of them, copied from a database the store made), holding a list audit of an
/// access log whose bot requests were told by user agent only.
async fn database_before_the_check(dir: &Path) -> std::path::PathBuf {
    let reference = Store::open(&dir.join("reference.sqlite")).await.unwrap();
    reference.close().await;
    let reference = raw_pool(&dir.join("reference.sqlite")).await;
    let ddl: String =
        sqlx::query_scalar("SELECT sql FROM sqlite_master WHERE name = '_sqlx_migrations'")
            .fetch_one(&reference)
            .await
            .unwrap();
    let applied = sqlx::query(
        "SELECT version, description, installed_on, success, checksum, execution_time
         FROM _sqlx_migrations WHERE version < ? ORDER BY version",
    )
    .bind(VERIFIED_BOTS.parse::<i64>().unwrap())
    .fetch_all(&reference)
    .await
    .unwrap();
    let path = dir.join("old.sqlite");
    let pool = raw_pool(&path).await;
    let migrations = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations");
    let mut files: Vec<_> = std::fs::read_dir(&migrations)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap() < VERIFIED_BOTS)
        .collect();
    files.sort();
    assert_eq!(files.len(), applied.len());
    for file in &files {
        exec(&pool, &std::fs::read_to_string(file).unwrap()).await;
    }
    exec(&pool, &ddl).await;
    for row in &applied {
        sqlx::query(
            "INSERT INTO _sqlx_migrations
             (version, description, installed_on, success, checksum, execution_time)
             VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(row.get::<i64, _>(0))
        .bind(row.get::<String, _>(1))
        .bind(row.get::<String, _>(2))
        .bind(row.get::<bool, _>(3))
        .bind(row.get::<Vec<u8>, _>(4))
        .bind(row.get::<i64, _>(5))
        .execute(&pool)
        .await
        .unwrap();
    }
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
