//! Databases as older versions of the store left them, for the tests of stored formats:
//! every migration before a given one applied, with the migrator's records of them.

#![allow(clippy::unwrap_used, dead_code)]

use std::path::{Path, PathBuf};

use sqlx::sqlite::{SqliteConnectOptions, SqlitePool};
use sqlx::{AssertSqlSafe, Row};
use store::Store;

/// A pool on the SQLite file `path` (created if missing), without the store's migrations.
pub async fn raw_pool(path: &Path) -> SqlitePool {
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true);
    SqlitePool::connect_with(options).await.unwrap()
}

/// Runs `sql` (several statements), panicking with the statement on an error.
pub async fn exec(pool: &SqlitePool, sql: &str) {
    sqlx::raw_sql(AssertSqlSafe(sql.to_owned()))
        .execute(pool)
        .await
        .unwrap_or_else(|e| panic!("{e}: {sql}"));
}

/// `dir/old.sqlite` as the migrations before `version` (a migration file's timestamp)
/// left it, with the migrator's records of them copied from a database the store made,
/// so that opening it with the store runs `version` and the later ones only. Returns
/// its path and a raw pool on it, for the test to write rows the old way.
pub async fn database_before(dir: &Path, version: &str) -> (PathBuf, SqlitePool) {
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
    .bind(version.parse::<i64>().unwrap())
    .fetch_all(&reference)
    .await
    .unwrap();

    let path = dir.join("old.sqlite");
    let pool = raw_pool(&path).await;
    let migrations = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations");
    let mut files: Vec<_> = std::fs::read_dir(&migrations)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap() < version)
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
    (path, pool)
}
