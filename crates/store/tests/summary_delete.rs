//! Analysis summaries and deleting an audit, against real SQLite files.

#![allow(clippy::unwrap_used)]

use store::{
    AnalysisSummary, AuditId, CanonicalRecord, DeclarationSource, FetchRecord, FoundVia,
    LinkRecord, NewUrl, PageRecord, RobotsRecord, RobotsVerdict, SitemapEntryRecord, SitemapRecord,
    SitemapSource, Store, StoreError, UrlState, WriterOptions,
};

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
        found_via: FoundVia::Link,
        state: UrlState::Queued,
        reason: None,
    }
}

/// An audit of `pages` pages linking to each other, with canonicals, robots.txt and a
/// sitemap listing every page.
async fn crawl(store: &Store, pages: i64) -> AuditId {
    let audit = store
        .create_audit(&["https://example.test/".into()], "{}")
        .await
        .unwrap();
    store.prepare_run(audit).await.unwrap();
    let writer = store.writer(audit, WriterOptions::default()).await.unwrap();
    writer
        .urls((1..=pages).map(|i| new_url(i, &format!("/p{i}"))).collect())
        .await
        .unwrap();
    writer
        .robots(RobotsRecord {
            origin: "https://example.test".into(),
            fetched_at: 1,
            status: Some(200),
            body: Some(String::new()),
            crawl_delay: None,
            sitemaps: vec![],
            verdict: RobotsVerdict::AllowAll,
            error: None,
        })
        .await
        .unwrap();
    for i in 1..=pages {
        let mut page = PageRecord::new(i, UrlState::Done);
        page.fetch = Some(FetchRecord {
            status: Some(200),
            attempts: 1,
            ..FetchRecord::default()
        });
        page.links = (1..=pages)
            .filter(|&j| j != i)
            .map(|j| LinkRecord {
                to: Some(j),
                href_raw: format!("/p{j}"),
                anchor_text: None,
                nofollow: false,
                tag: "a".into(),
                error: None,
                region: None,
            })
            .collect();
        page.canonicals = vec![CanonicalRecord {
            target: Some(i),
            href_raw: format!("/p{i}"),
            source: DeclarationSource::LinkElement,
            in_head: true,
            error: None,
        }];
        writer.page(page).await.unwrap();
    }
    writer
        .sitemap(SitemapRecord {
            id: 1,
            url: "https://example.test/sitemap.xml".into(),
            kind: "urlset".into(),
            parent_id: None,
            found_via: SitemapSource::Default,
            fetched_at: 2,
            status: Some(200),
            body_bytes: 10,
            gzip: false,
            issues_json: "[]".into(),
            error: None,
            new_urls: vec![],
            requeue: vec![],
            entries: (1..=pages)
                .map(|i| SitemapEntryRecord {
                    url_id: Some(i),
                    loc_raw: format!("https://example.test/p{i}"),
                    lastmod: None,
                    changefreq: None,
                    priority: None,
                })
                .collect(),
        })
        .await
        .unwrap();
    writer.close().await.unwrap();
    audit
}

fn summary(errors: u64) -> AnalysisSummary {
    AnalysisSummary {
        analysed_at: 1_795_000_000_000,
        policy: "seo".into(),
        errors,
        warnings: 2,
        notices: 3,
        clusters: 4,
        clustered_urls: 9,
    }
}

#[tokio::test]
async fn summaries_are_saved_replaced_and_listed() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("a.sqlite")).await.unwrap();
    let (a, b) = (crawl(&store, 3).await, crawl(&store, 2).await);
    assert_eq!(store.analysis_summary(a).await.unwrap(), None);
    store.save_analysis_summary(a, &summary(1)).await.unwrap();
    store.save_analysis_summary(a, &summary(7)).await.unwrap();
    assert_eq!(store.analysis_summary(a).await.unwrap(), Some(summary(7)));
    let listed = store.list_audits_with_summary().await.unwrap();
    let got: Vec<(AuditId, Option<u64>)> = listed
        .iter()
        .map(|l| (l.audit.id, l.analysis.as_ref().map(|s| s.errors)))
        .collect();
    assert_eq!(got, vec![(b, None), (a, Some(7))]);
    assert!(matches!(
        store.save_analysis_summary(AuditId(99), &summary(0)).await,
        Err(StoreError::AuditNotFound(AuditId(99)))
    ));
}

#[tokio::test]
async fn deleting_an_audit_removes_all_its_rows_and_only_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("a.sqlite")).await.unwrap();
    let (a, b) = (crawl(&store, 4).await, crawl(&store, 3).await);
    store.save_analysis_summary(a, &summary(1)).await.unwrap();
    store.save_analysis_summary(b, &summary(2)).await.unwrap();

    let rows = store.delete_audit(a).await.unwrap();
    // 1 audit, 4 URLs, 4 fetches, 12 links, 4 canonicals, 1 robots.txt, 1 sitemap,
    // 4 entries, 1 summary.
    assert_eq!(rows, 1 + 4 + 4 + 12 + 4 + 1 + 1 + 4 + 1);
    assert!(matches!(
        store.audit(a).await,
        Err(StoreError::AuditNotFound(_))
    ));
    assert!(store.urls(a).await.unwrap().is_empty());
    let mut left = 0;
    store.scan_fetches(a, |_| left += 1).await.unwrap();
    store.scan_canonicals(a, |_| left += 1).await.unwrap();
    store.scan_sitemap_entries(a, |_| left += 1).await.unwrap();
    store.scan_links(a, |_| left += 1).await.unwrap();
    assert_eq!(left, 0);
    assert!(store.sitemaps(a).await.unwrap().is_empty());
    assert!(store.robots(a).await.unwrap().is_empty());
    assert_eq!(store.analysis_summary(a).await.unwrap(), None);

    // The other audit is whole.
    assert_eq!(store.urls(b).await.unwrap().len(), 3);
    let mut links = 0;
    store.scan_links(b, |_| links += 1).await.unwrap();
    assert_eq!(links, 6);
    let mut entries = 0;
    store
        .scan_sitemap_entries(b, |_| entries += 1)
        .await
        .unwrap();
    assert_eq!(entries, 3);
    assert_eq!(store.analysis_summary(b).await.unwrap(), Some(summary(2)));
    assert_eq!(store.list_audits().await.unwrap().len(), 1);

    assert!(matches!(
        store.delete_audit(a).await,
        Err(StoreError::AuditNotFound(_))
    ));
}
