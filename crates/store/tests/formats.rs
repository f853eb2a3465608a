//! Stored formats across versions: a database written before skip reasons had kinds and
//! before JSON columns had versions opens, is converted, and reads back; JSON blobs
//! captured from an audit of the fixture in that format (`tests/data/*_v1.json`) load
//! unchanged; a format version from the future is refused with an error naming the
//! audit.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;

use sqlx::Row;
use store::{
    AuditId, FetchRecord, FoundVia, NewUrl, PageRecord, ReasonKind, SitemapRecord, SitemapSource,
    Store, StoreError, UrlReason, UrlState, WriterOptions,
};
use support::{exec, raw_pool};

/// The migration that gave skip reasons their kinds: the test database is built with
/// every migration before it.
const REASON_KINDS: &str = "20261125090000";

const CONFIG_V1: &str = include_str!("data/audit_config_v1.json");
const OVERVIEW_V1: &str = include_str!("data/overview_v1.json");
const ISSUES_V1: &str = include_str!("data/sitemap_issues_v1.json");

/// A database as the migrations before [`REASON_KINDS`] left it (with the migrator's
/// records of them, copied from a database the store made), holding one audit written
/// the old way.
async fn old_database(dir: &Path) -> std::path::PathBuf {
    let (path, pool) = support::database_before(dir, REASON_KINDS).await;

    exec(
        &pool,
        &format!(
            "INSERT INTO audits (id, started_at, status, start_urls, config, pages_fetched)
             VALUES (1, 1, 'finished', '[\"https://example.test/\"]', '{}', 3)",
            CONFIG_V1.trim().replace('\'', "''")
        ),
    )
    .await;
    let reasons = [
        (1, "done", None),
        (2, "skipped", Some("max_depth")),
        (
            3,
            "skipped",
            Some("trap: over 40 URLs like /calendar?month=#"),
        ),
        (4, "skipped", Some("trap: path repeats segment \"a\"")),
        (5, "blocked", Some("robots_txt")),
        (6, "failed", Some("timeout")),
        (7, "failed", Some("too_many_retries")),
        (8, "skipped", Some("dust_duplicate")),
    ];
    for (id, state, reason) in reasons {
        sqlx::query(
            "INSERT INTO urls (audit_id, id, url, url_rfc3986, host, depth, found_via, state, reason)
             VALUES (1, ?, ?, ?, 'example.test', 1, 'link', ?, ?)",
        )
        .bind(id)
        .bind(format!("https://example.test/{id}"))
        .bind(format!("https://example.test/{id}"))
        .bind(state)
        .bind(reason)
        .execute(&pool)
        .await
        .unwrap();
    }
    exec(
        &pool,
        "INSERT INTO fetches (audit_id, url_id, fetched_at, status) VALUES (1, 1, 1, 200);
         INSERT INTO fetches (audit_id, url_id, fetched_at, status, error_kind)
             VALUES (1, 6, 1, NULL, 'timeout');
         INSERT INTO fetches (audit_id, url_id, fetched_at, status, error_kind)
             VALUES (1, 7, 1, NULL, 'too_many_retries');",
    )
    .await;
    sqlx::query(
        "INSERT INTO sitemaps (audit_id, id, url, kind, found_via, fetched_at, issues)
         VALUES (1, 1, 'https://example.test/sitemap.xml', 'urlset', 'default', 1, ?)",
    )
    .bind(ISSUES_V1.trim())
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO analysis_summary (audit_id, analysed_at, policy, errors, warnings, notices,
         clusters, clustered_urls, overview) VALUES (1, 2, 'seo', 0, 0, 0, 0, 0, ?)",
    )
    .bind(OVERVIEW_V1.trim())
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;
    path
}

#[tokio::test]
async fn a_database_of_the_previous_format_opens_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = old_database(dir.path()).await;
    let store = Store::open(&path).await.unwrap();
    let audit = AuditId(1);

    // Free-text reasons became kinds, the detail kept where the word does not say it.
    let urls = store.urls(audit).await.unwrap();
    let reasons: Vec<Option<UrlReason>> = urls.iter().map(|u| u.reason.clone()).collect();
    assert_eq!(
        reasons,
        [
            None,
            Some(ReasonKind::MaxDepth.into()),
            Some(UrlReason::with_detail(
                ReasonKind::TrapPattern,
                "over 40 URLs like /calendar?month=#"
            )),
            Some(UrlReason::with_detail(
                ReasonKind::TrapRepeatedSegment,
                "path repeats segment \"a\""
            )),
            Some(ReasonKind::RobotsTxt.into()),
            Some(ReasonKind::Timeout.into()),
            Some(UrlReason::with_detail(
                ReasonKind::Other,
                "too_many_retries"
            )),
            Some(ReasonKind::DustDuplicate.into()),
        ]
    );
    let mut scanned = Vec::new();
    store
        .scan_urls(audit, |u| scanned.push((u.reason, u.reason_detail)))
        .await
        .unwrap();
    assert_eq!(
        scanned[2],
        (
            Some(ReasonKind::TrapPattern),
            Some("over 40 URLs like /calendar?month=#".to_owned())
        )
    );
    let summary = store.audit_summary(audit).await.unwrap();
    assert_eq!(
        summary.skipped_by_reason,
        [
            (ReasonKind::MaxDepth, 1),
            (ReasonKind::TrapRepeatedSegment, 1),
            (ReasonKind::TrapPattern, 1),
            (ReasonKind::DustDuplicate, 1),
        ]
    );

    // Pages fetched: the fetches that got a response (the old counter said 3).
    assert_eq!(summary.audit.pages_fetched, 1);

    // The JSON captured from an audit before versions reads back as it was, version 1.
    let row = store.audit(audit).await.unwrap();
    assert_eq!(row.config_json, CONFIG_V1.trim());
    assert_eq!(row.config_version, 1);
    assert_eq!(
        store.sitemaps(audit).await.unwrap()[0].issues_json,
        ISSUES_V1.trim()
    );
    let (_, overview) = store.stored_overview(audit).await.unwrap().unwrap();
    assert_eq!(overview, OVERVIEW_V1.trim());
}

#[tokio::test]
async fn json_columns_are_written_with_their_version_and_a_newer_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.sqlite");
    let store = Store::open(&path).await.unwrap();
    let audit = store
        .create_audit(&["https://example.test/".into()], CONFIG_V1.trim())
        .await
        .unwrap();
    let writer = store.writer(audit, WriterOptions::default()).await.unwrap();
    writer
        .sitemap(SitemapRecord {
            id: 1,
            url: "https://example.test/sitemap.xml".into(),
            kind: "urlset".into(),
            parent_id: None,
            found_via: SitemapSource::Default,
            fetched_at: 1,
            status: Some(200),
            body_bytes: 0,
            gzip: false,
            issues_json: ISSUES_V1.trim().into(),
            error: None,
            new_urls: vec![],
            requeue: vec![],
            entries: vec![],
        })
        .await
        .unwrap();
    writer.close().await.unwrap();
    store
        .save_analysis_summary(
            audit,
            &store::AnalysisSummary {
                analysed_at: 1,
                policy: "seo".into(),
                errors: 0,
                warnings: 0,
                notices: 0,
                clusters: 0,
                clustered_urls: 0,
            },
        )
        .await
        .unwrap();
    store
        .save_overview(audit, "seo", OVERVIEW_V1.trim())
        .await
        .unwrap();

    let pool = raw_pool(&path).await;
    let stored: (String, String, String) = {
        let row = sqlx::query(
            "SELECT a.config, s.issues, o.overview FROM audits a, sitemaps s, analysis_summary o
             WHERE a.id = ?1 AND s.audit_id = ?1 AND o.audit_id = ?1",
        )
        .bind(audit.0)
        .fetch_one(&pool)
        .await
        .unwrap();
        (row.get(0), row.get(1), row.get(2))
    };
    assert_eq!(
        stored.0,
        format!(r#"{{"version":1,"data":{}}}"#, CONFIG_V1.trim())
    );
    assert!(
        stored.1.starts_with(r#"{"version":1,"data":["#),
        "{}",
        stored.1
    );
    assert!(
        stored.2.starts_with(r#"{"version":1,"data":{"#),
        "{}",
        stored.2
    );
    // Read back: the data, as given.
    assert_eq!(
        store.audit(audit).await.unwrap().config_json,
        CONFIG_V1.trim()
    );
    assert_eq!(
        store.sitemaps(audit).await.unwrap()[0].issues_json,
        ISSUES_V1.trim()
    );

    // A newer Dustpan's formats are refused, naming the audit and the column.
    exec(
        &pool,
        r#"UPDATE audits SET config = '{"version":2,"data":{}}';
           UPDATE sitemaps SET issues = '{"version":2,"data":[]}';
           UPDATE analysis_summary SET overview = '{"version":3,"data":{}}';"#,
    )
    .await;
    let unsupported = |e: StoreError, column: &str, v: u64| match e {
        StoreError::UnsupportedVersion {
            audit: a,
            field,
            version,
            supported: 1,
        } => a == audit && field == column && version == v,
        _ => false,
    };
    assert!(unsupported(
        store.audit(audit).await.unwrap_err(),
        "audits.config",
        2
    ));
    assert!(unsupported(
        store.sitemaps(audit).await.unwrap_err(),
        "sitemaps.issues",
        2
    ));
    assert!(unsupported(
        store.stored_overview(audit).await.unwrap_err(),
        "analysis_summary.overview",
        3
    ));
}

#[tokio::test]
async fn reasons_are_stored_as_a_checked_kind_and_a_detail() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.sqlite");
    let store = Store::open(&path).await.unwrap();
    let audit = store.create_audit(&[], "{}").await.unwrap();
    store.prepare_run(audit).await.unwrap();
    let writer = store.writer(audit, WriterOptions::default()).await.unwrap();
    let url = |id: i64, state, reason| NewUrl {
        id,
        url: format!("https://example.test/{id}"),
        url_rfc3986: format!("https://example.test/{id}"),
        url_seo: None,
        host: "example.test".into(),
        depth: 1,
        redirect_depth: 0,
        found_from: None,
        found_via: FoundVia::Link,
        state,
        reason,
    };
    let trap = UrlReason::with_detail(ReasonKind::TrapPattern, "over 2 URLs like /cal/#");
    writer
        .urls(vec![
            url(1, UrlState::Queued, None),
            url(2, UrlState::Skipped, Some(trap.clone())),
            url(3, UrlState::Queued, None),
        ])
        .await
        .unwrap();
    let claimed = writer.claim(10).await.unwrap();
    assert_eq!(claimed.len(), 2);
    let mut page = PageRecord::new(1, UrlState::Failed);
    page.reason = Some(UrlReason::with_detail(ReasonKind::Panic, "boom"));
    page.fetch = Some(FetchRecord {
        error_kind: Some("panic".into()),
        ..FetchRecord::default()
    });
    writer.page(page).await.unwrap();
    let mut page = PageRecord::new(3, UrlState::Done);
    page.fetch = Some(FetchRecord {
        status: Some(404),
        ..FetchRecord::default()
    });
    writer.page(page).await.unwrap();
    writer.close().await.unwrap();

    let urls = store.urls(audit).await.unwrap();
    assert_eq!(
        urls[0].reason,
        Some(UrlReason::with_detail(ReasonKind::Panic, "boom"))
    );
    assert_eq!(urls[1].reason.as_ref(), Some(&trap));
    assert_eq!(
        urls[1].reason.as_ref().unwrap().to_string(),
        "trap_pattern: over 2 URLs like /cal/#"
    );
    assert_eq!(urls[2].reason, None);
    let known = store.known_urls(audit, 0, 10).await.unwrap();
    assert_eq!(known[1].reason.as_ref(), Some(&trap));
    // A 404 is a page fetched; a panic without a response is not.
    assert_eq!(store.audit(audit).await.unwrap().pages_fetched, 1);

    // The column takes only the listed words.
    let pool = raw_pool(&path).await;
    let refused = sqlx::query("UPDATE urls SET reason_kind = 'trap: over 2' WHERE id = 2")
        .execute(&pool)
        .await;
    assert!(refused.is_err(), "{refused:?}");
    for kind in ReasonKind::ALL {
        sqlx::query("UPDATE urls SET reason_kind = ? WHERE id = 2")
            .bind(kind.as_str())
            .execute(&pool)
            .await
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(ReasonKind::parse(kind.as_str()), Some(kind));
    }
}
