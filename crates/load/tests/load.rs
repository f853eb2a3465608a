//! Loading stored audits: rows become the analysis input, and stored data this version
//! cannot read is an error naming the audit, never a silent gap.

#![allow(clippy::unwrap_used)]

use store::{
    AuditId, FoundVia, NewUrl, ReasonKind, SitemapRecord, SitemapSource, Store, UrlReason,
    UrlState, WriterOptions,
};

fn url(id: i64, state: UrlState, reason: Option<UrlReason>) -> NewUrl {
    NewUrl {
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
    }
}

fn sitemap(issues_json: &str) -> SitemapRecord {
    SitemapRecord {
        id: 1,
        url: "https://example.test/sitemap.xml".into(),
        kind: "urlset".into(),
        parent_id: None,
        found_via: SitemapSource::Default,
        fetched_at: 1,
        status: Some(200),
        body_bytes: 0,
        gzip: false,
        issues_json: issues_json.into(),
        error: None,
        new_urls: vec![],
        requeue: vec![],
        entries: vec![],
    }
}

async fn audit(store: &Store, urls: Vec<NewUrl>, issues_json: &str) -> AuditId {
    let audit = store.create_audit(&[], "{}").await.unwrap();
    let writer = store.writer(audit, WriterOptions::default()).await.unwrap();
    writer.urls(urls).await.unwrap();
    writer.sitemap(sitemap(issues_json)).await.unwrap();
    writer.close().await.unwrap();
    audit
}

#[tokio::test]
async fn reasons_and_sitemap_issues_load_typed() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("a.sqlite")).await.unwrap();
    let trap = UrlReason::with_detail(ReasonKind::TrapPattern, "over 5 URLs like /cal/#");
    let id = audit(
        &store,
        vec![
            url(1, UrlState::Queued, None),
            url(2, UrlState::Skipped, Some(trap)),
            url(3, UrlState::Skipped, Some(ReasonKind::OutOfScope.into())),
        ],
        include_str!("../../store/tests/data/sitemap_issues_v1.json"),
    )
    .await;
    let input = load::load(&store, id).await.unwrap();
    let reasons: Vec<Option<audit::UrlReason>> =
        input.urls.iter().map(|u| u.reason.clone()).collect();
    assert_eq!(
        reasons,
        [
            None,
            Some(audit::UrlReason {
                kind: audit::ReasonKind::TrapPattern,
                detail: Some("over 5 URLs like /cal/#".into()),
            }),
            Some(audit::ReasonKind::OutOfScope.into()),
        ]
    );
    assert_eq!(input.sitemaps[0].issues.len(), 1);
    assert_eq!(input.sitemaps[0].issues[0].kind, "cross_host");
}

#[test]
fn the_analysis_names_every_stored_reason_with_the_same_word() {
    for kind in store::ReasonKind::ALL {
        assert_eq!(
            audit::ReasonKind::parse(kind.as_str()).map(audit::ReasonKind::as_str),
            Some(kind.as_str())
        );
    }
    assert_eq!(
        store::ReasonKind::ALL.len(),
        audit::ReasonKind::ALL.len(),
        "the two lists name the same kinds"
    );
}

#[tokio::test]
async fn unreadable_sitemap_issues_are_an_error_naming_the_audit() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("a.sqlite")).await.unwrap();
    let id = audit(&store, vec![url(1, UrlState::Queued, None)], "not json").await;
    let error = load::load(&store, id).await.unwrap_err();
    assert!(
        matches!(
            error,
            load::LoadError::Corrupt {
                audit,
                what: "sitemap issues",
                ..
            } if audit == id.0
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains(&format!("audit {}", id.0)));
}

#[tokio::test]
async fn an_id_that_does_not_fit_is_an_error_naming_the_audit() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("a.sqlite")).await.unwrap();
    let big = i64::from(u32::MAX) + 1;
    let id = audit(
        &store,
        vec![
            url(1, UrlState::Queued, None),
            url(big, UrlState::Queued, None),
        ],
        "[]",
    )
    .await;
    let error = load::load(&store, id).await.unwrap_err();
    assert!(
        matches!(
            &error,
            load::LoadError::IdOutOfRange { audit, id: bad } if *audit == id.0 && *bad == big
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn text_blocks_load_spilled_to_a_file_and_read_back_as_stored() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("a.sqlite")).await.unwrap();
    let audit = store.create_audit(&[], "{}").await.unwrap();
    let writer = store.writer(audit, WriterOptions::default()).await.unwrap();
    writer
        .urls((1..=3).map(|i| url(i, UrlState::Queued, None)).collect())
        .await
        .unwrap();
    let stored: Vec<Vec<u8>> = (1..=3u8).map(|i| vec![i; 1000 * i as usize]).collect();
    for (i, blocks) in (1..=3).zip(&stored) {
        let mut page = store::PageRecord::new(i, UrlState::Done);
        page.fetch = Some(store::FetchRecord {
            status: Some(200),
            blocks: Some(blocks.clone()),
            ..Default::default()
        });
        writer.page(page).await.unwrap();
    }
    writer.close().await.unwrap();

    let input = load::load(&store, audit).await.unwrap();
    assert_eq!(input.fetches.len(), 3);
    for (f, want) in input.fetches.iter().zip(&stored) {
        let blocks = f.blocks.as_ref().unwrap();
        // Held in a temporary file, not in the analysis's memory.
        assert!(blocks.is_spilled(), "{blocks:?}");
        assert_eq!(&*blocks.bytes().unwrap(), want.as_slice());
    }
}
