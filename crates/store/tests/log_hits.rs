//! The requests an access log holds per URL of a list audit (`log_hits`), against a real
//! SQLite file: stored by URL identity, read back by id, deleted with the audit.

#![allow(clippy::unwrap_used)]

use store::{FoundVia, LogHitRecord, LogHits, NewUrl, Store, UrlState, WriterOptions};

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

    let hit = |path: &str, bot, other| LogHitRecord {
        url_rfc3986: format!("https://example.test{path}"),
        bot_requests: bot,
        other_requests: other,
    };
    // A URL the audit does not hold is left out.
    let stored = store
        .record_log_hits(audit, &[hit("/a", 3, 1), hit("/b", 0, 7), hit("/c", 9, 9)])
        .await
        .unwrap();
    assert_eq!(stored, 2);
    // Stored again (a resumed discovery): replaced, not added.
    store
        .record_log_hits(audit, &[hit("/a", 4, 1)])
        .await
        .unwrap();
    assert_eq!(
        store.log_hits(audit).await.unwrap(),
        [
            LogHits {
                url_id: 1,
                bot_requests: 4,
                other_requests: 1
            },
            LogHits {
                url_id: 2,
                bot_requests: 0,
                other_requests: 7
            },
        ]
    );
    store.delete_audit(audit).await.unwrap();
    assert!(store.log_hits(audit).await.unwrap().is_empty());
}
