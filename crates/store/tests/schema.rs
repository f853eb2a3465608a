//! The schema against the vocabulary and the migrations against their record:
//! - every CHECK-constrained word column of a freshly migrated database allows exactly
//!   the words of its enum (a variant added to one and not the other fails here);
//! - every migration's checksum (sqlx's SHA-384 of the file) is the one recorded in
//!   `tests/data/migration_checksums.txt`: a migration already applied to users' files
//!   must never change (sqlx refuses to open a database whose applied migration
//!   differs), and a new one is recorded when it is added.

#![allow(clippy::unwrap_used)]

mod support;

use std::collections::BTreeMap;

use sqlx::Row;
use store::{
    AuditStatus, ChainProblem, DeclarationSource, FoundVia, HopKind, LinkRegion, ProbePhase,
    ProbeRule, ReasonKind, RobotsVerdict, SitemapSource, StopReason, Store, UrlState, Words,
};

fn words<T: Words>() -> Vec<&'static str> {
    T::ALL.iter().map(|w| w.as_str()).collect()
}

/// Every word column with a CHECK constraint, as `table.column`, and its enum's words.
fn vocabulary() -> BTreeMap<&'static str, Vec<&'static str>> {
    BTreeMap::from([
        ("audits.status", words::<AuditStatus>()),
        ("audits.stop_reason", words::<StopReason>()),
        ("audits.probe_phase", words::<ProbePhase>()),
        ("urls.found_via", words::<FoundVia>()),
        ("urls.state", words::<UrlState>()),
        ("urls.reason_kind", words::<ReasonKind>()),
        ("redirects.kind", words::<HopKind>()),
        ("redirect_chains.problem", words::<ChainProblem>()),
        ("canonicals.source", words::<DeclarationSource>()),
        ("hreflang.source", words::<DeclarationSource>()),
        ("links.region", words::<LinkRegion>()),
        ("rendered_links.region", words::<LinkRegion>()),
        ("sitemaps.found_via", words::<SitemapSource>()),
        ("robots.verdict", words::<RobotsVerdict>()),
        ("probes.rule", words::<ProbeRule>()),
    ])
}

/// The `CHECK (column IN ('a', 'b', ...))` constraints of one `CREATE TABLE` statement,
/// as column and words.
fn word_checks(sql: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut rest = sql;
    while let Some(at) = rest.find("CHECK") {
        rest = &rest[at + "CHECK".len()..];
        let inner = rest.trim_start();
        let Some(inner) = inner.strip_prefix('(') else {
            continue;
        };
        let inner = inner.trim_start();
        let column: String = inner
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let after = inner[column.len()..].trim_start();
        // Only word lists: `CHECK (n >= 0)` and the like are not vocabulary.
        let Some(after) = after.strip_prefix("IN") else {
            continue;
        };
        let Some(list) = after.trim_start().strip_prefix('(') else {
            continue;
        };
        let list = &list[..list.find(')').expect("a CHECK's list closes")];
        let values = list
            .split(',')
            .map(|v| {
                let v = v.trim();
                v.strip_prefix('\'')
                    .and_then(|v| v.strip_suffix('\''))
                    .unwrap_or_else(|| panic!("{v} in {column}'s CHECK is no quoted word"))
                    .to_owned()
            })
            .collect();
        out.push((column, values));
    }
    out
}

/// `table.column` → the words its CHECK allows, read from a freshly migrated database.
async fn checked_columns(dir: &std::path::Path) -> BTreeMap<String, Vec<String>> {
    let path = dir.join("schema.sqlite");
    Store::open(&path).await.unwrap().close().await;
    let pool = support::raw_pool(&path).await;
    let tables = sqlx::query("SELECT name, sql FROM sqlite_master WHERE type = 'table'")
        .fetch_all(&pool)
        .await
        .unwrap();
    let mut out = BTreeMap::new();
    for t in tables {
        let (name, sql): (String, Option<String>) = (t.get(0), t.get(1));
        for (column, values) in word_checks(&sql.unwrap_or_default()) {
            let key = format!("{name}.{column}");
            assert!(
                out.insert(key.clone(), values).is_none(),
                "{key} has two CHECKs"
            );
        }
    }
    out
}

#[tokio::test]
async fn every_checked_word_column_allows_exactly_its_enums_words() {
    let dir = tempfile::tempdir().unwrap();
    let schema = checked_columns(dir.path()).await;
    let vocabulary = vocabulary();
    let mut problems = Vec::new();
    for (column, allowed) in &schema {
        let Some(words) = vocabulary.get(column.as_str()) else {
            problems.push(format!(
                "{column} has a CHECK on words {allowed:?} but no enum in this test"
            ));
            continue;
        };
        let mut allowed = allowed.clone();
        let mut words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        allowed.sort();
        words.sort();
        if allowed != words {
            let only_sql: Vec<_> = allowed.iter().filter(|w| !words.contains(w)).collect();
            let only_enum: Vec<_> = words.iter().filter(|w| !allowed.contains(w)).collect();
            problems.push(format!(
                "{column}: only in the CHECK {only_sql:?}, only in the enum {only_enum:?}"
            ));
        }
    }
    for column in vocabulary.keys() {
        if !schema.contains_key(*column) {
            problems.push(format!("{column} has no CHECK in the schema"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn a_check_is_read_word_by_word() {
    let sql = "CREATE TABLE t (a TEXT NOT NULL CHECK (a IN ('x', 'y_z')),
               n INTEGER CHECK (n >= 0), b TEXT CHECK(b IN ('w')))";
    assert_eq!(
        word_checks(sql),
        [
            ("a".to_owned(), vec!["x".to_owned(), "y_z".to_owned()]),
            ("b".to_owned(), vec!["w".to_owned()]),
        ]
    );
}

/// The recorded checksums: `version sha384-hex description` per line.
const RECORDED: &str = include_str!("data/migration_checksums.txt");

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn no_applied_migration_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("migrated.sqlite");
    Store::open(&path).await.unwrap().close().await;
    let pool = support::raw_pool(&path).await;
    // What the store applied: sqlx records each migration's checksum as it runs it.
    let applied: Vec<String> =
        sqlx::query("SELECT version, checksum, description FROM _sqlx_migrations ORDER BY version")
            .fetch_all(&pool)
            .await
            .unwrap()
            .iter()
            .map(|r| {
                let (version, checksum, description): (i64, Vec<u8>, String) =
                    (r.get(0), r.get(1), r.get(2));
                format!("{version} {} {description}", hex(&checksum))
            })
            .collect();
    let recorded: Vec<&str> = RECORDED
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    let mut problems = Vec::new();
    for line in &recorded {
        let version = line.split(' ').next().unwrap_or_default();
        match applied
            .iter()
            .find(|a| a.split(' ').next() == Some(version))
        {
            None => problems.push(format!("migration {version} is recorded but gone")),
            Some(a) if a != line => problems.push(format!(
                "migration {version} changed: it is applied to users' databases, which \
                 would no longer open; add a new migration instead\n  recorded {line}\n  \
                 now      {a}"
            )),
            Some(_) => {}
        }
    }
    for a in &applied {
        if !recorded.contains(&a.as_str()) && !problems.iter().any(|p| p.contains(a)) {
            let version = a.split(' ').next().unwrap_or_default();
            if !recorded
                .iter()
                .any(|l| l.split(' ').next() == Some(version))
            {
                problems.push(format!(
                    "migration {version} is new: record it in \
                     crates/store/tests/data/migration_checksums.txt:\n{a}"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
