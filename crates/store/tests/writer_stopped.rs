//! A writer that stopped on an error says which error to every later caller.
#![allow(clippy::unwrap_used)]

use store::{
    AuditId, FetchRecord, FoundVia, NewUrl, PageRecord, Store, StoreError, UrlState, WriterOptions,
};

#[tokio::test]
async fn a_writer_for_an_audit_that_does_not_exist_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("a.sqlite")).await.unwrap();
    let refused = store.writer(AuditId(404), WriterOptions::default()).await;
    assert!(
        matches!(refused, Err(StoreError::AuditNotFound(AuditId(404)))),
        "{:?}",
        refused.err()
    );
}

#[tokio::test]
async fn a_stopped_writer_names_the_error_it_stopped_on() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("a.sqlite")).await.unwrap();
    let audit = store.create_audit(&[], "{}").await.unwrap();
    let writer = store.writer(audit, WriterOptions::default()).await.unwrap();
    let url = "https://example.test/".to_owned();
    writer
        .urls(vec![NewUrl {
            id: 1,
            url: url.clone(),
            url_rfc3986: url.clone(),
            url_seo: Some(url),
            host: "example.test".into(),
            depth: 0,
            redirect_depth: 0,
            found_from: None,
            found_via: FoundVia::Start,
            state: UrlState::Queued,
            reason: None,
        }])
        .await
        .unwrap();
    // One page stored twice: its second fetch row breaks the table's primary key.
    for _ in 0..2 {
        let mut page = PageRecord::new(1, UrlState::Done);
        page.fetch = Some(FetchRecord {
            status: Some(200),
            attempts: 1,
            ..FetchRecord::default()
        });
        writer.page(page).await.unwrap();
    }
    let cause = |e: StoreError| match e {
        StoreError::WriterClosed { cause } => cause,
        e => panic!("{e}"),
    };
    let flushed = cause(writer.flush().await.unwrap_err());
    assert!(
        flushed.starts_with("database error while storing fetches: ")
            && flushed.contains("UNIQUE constraint failed"),
        "{flushed}"
    );
    assert_eq!(cause(writer.urls(Vec::new()).await.unwrap_err()), flushed);
    assert_eq!(cause(writer.claim(1).await.unwrap_err()), flushed);
    // Closing reports the error itself; closing again, that the writer stopped on it.
    assert_eq!(writer.close().await.unwrap_err().to_string(), flushed);
    assert_eq!(
        writer.close().await.unwrap_err().to_string(),
        format!("the store writer has stopped: {flushed}")
    );
}
