//! Store tests against real SQLite files in temporary directories.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::path::PathBuf;

use store::{
    AuditId, AuditStatus, CanonicalRecord, ChainProblem, ChainRecord, DeclarationSource,
    FetchRecord, FoundVia, HopKind, LinkRecord, NewUrl, PageRecord, ReasonKind, RedirectRecord,
    RobotsRecord, RobotsVerdict, SitemapEntryRecord, SitemapRecord, SitemapSource, Store, UrlId,
    UrlState, WriterOptions,
};

fn db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("audits.sqlite");
    (dir, path)
}

fn new_url(id: UrlId, path: &str, depth: u32, via: FoundVia) -> NewUrl {
    let url = format!("https://example.test{path}");
    NewUrl {
        id,
        url: url.clone(),
        url_rfc3986: url.clone(),
        url_seo: Some(url),
        host: "example.test".into(),
        depth,
        redirect_depth: 0,
        found_from: None,
        found_via: via,
        state: UrlState::Queued,
        reason: None,
    }
}

fn link(to: UrlId, href: &str) -> LinkRecord {
    LinkRecord {
        to: Some(to),
        href_raw: href.into(),
        anchor_text: Some("text".into()),
        nofollow: false,
        tag: "a".into(),
        error: None,
        region: Some(store::LinkRegion::Navigation),
    }
}

#[tokio::test]
async fn migrations_apply_to_a_fresh_file_and_reopen() {
    let (_dir, path) = db();
    let store = Store::open(&path).await.expect("open fresh");
    assert!(path.exists());
    assert!(store.list_audits().await.unwrap().is_empty());
    let id = store
        .create_audit(&["https://example.test/".into()], r#"{"max_urls":10}"#)
        .await
        .unwrap();
    store.close().await;

    // Re-open: migrations are already applied, the audit is still there.
    let store = Store::open(&path).await.expect("reopen");
    let audits = store.list_audits().await.unwrap();
    assert_eq!(audits.len(), 1);
    assert_eq!(audits[0].id, id);
    assert_eq!(audits[0].status, AuditStatus::Running);
    assert_eq!(
        audits[0].start_urls,
        vec!["https://example.test/".to_string()]
    );
    assert_eq!(audits[0].config_json, r#"{"max_urls":10}"#);
    assert!(matches!(
        store.audit(AuditId(99)).await,
        Err(store::StoreError::AuditNotFound(AuditId(99)))
    ));
}

#[tokio::test]
async fn a_crawl_round_trips_through_the_writer() {
    let (_dir, path) = db();
    let store = Store::open(&path).await.unwrap();
    let audit = store
        .create_audit(&["https://example.test/".into()], "{}")
        .await
        .unwrap();
    let start = store.prepare_run(audit).await.unwrap();
    assert_eq!(start.next_url_id, 1);
    let writer = store.writer(audit, WriterOptions::default()).await.unwrap();

    writer
        .urls(vec![new_url(1, "/", 0, FoundVia::Start)])
        .await
        .unwrap();
    writer
        .robots(RobotsRecord {
            origin: "https://example.test".into(),
            fetched_at: 1,
            status: Some(200),
            body: Some("User-agent: *\nDisallow: /private\n".into()),
            crawl_delay: Some(0.5),
            sitemaps: vec!["https://example.test/sitemap.xml".into()],
            verdict: RobotsVerdict::Rules,
            error: None,
        })
        .await
        .unwrap();

    let claimed = writer.claim(10).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].url, "https://example.test/");
    assert!(
        writer.claim(10).await.unwrap().is_empty(),
        "claimed URLs are not handed out twice"
    );

    let mut page = PageRecord::new(1, UrlState::Done);
    page.new_urls = vec![
        new_url(2, "/a", 1, FoundVia::Link),
        new_url(3, "/old", 1, FoundVia::Link),
        new_url(4, "/private", 1, FoundVia::Link),
    ];
    page.fetch = Some(FetchRecord {
        fetched_at: 10,
        status: Some(200),
        content_type: Some("text/html".into()),
        body_bytes: 1234,
        total_ms: 5,
        attempts: 1,
        title: Some("Home".into()),
        text_hash: Some(u64::MAX - 7),
        simhash: Some(1 << 63),
        word_count: Some(300),
        ..FetchRecord::default()
    });
    page.links = vec![link(2, "/a"), link(3, "old"), link(2, "a#x")];
    page.canonicals = vec![
        CanonicalRecord {
            target: Some(1),
            href_raw: "https://example.test/".into(),
            source: DeclarationSource::HttpHeader,
            in_head: true,
            error: None,
        },
        CanonicalRecord {
            target: Some(2),
            href_raw: "/a".into(),
            source: DeclarationSource::LinkElement,
            in_head: false,
            error: None,
        },
    ];
    writer.page(page).await.unwrap();

    let claimed = writer.claim(10).await.unwrap();
    assert_eq!(
        claimed.iter().map(|c| c.id).collect::<Vec<_>>(),
        vec![2, 3, 4]
    );

    let mut redirect = PageRecord::new(3, UrlState::Done);
    redirect.new_urls = vec![NewUrl {
        redirect_depth: 1,
        found_from: Some(3),
        ..new_url(5, "/new", 1, FoundVia::Redirect)
    }];
    redirect.fetch = Some(FetchRecord {
        status: Some(301),
        redirect_to: Some(5),
        attempts: 1,
        ..FetchRecord::default()
    });
    redirect.redirect = Some(RedirectRecord {
        to: Some(5),
        status: 301,
        location_raw: "/new".into(),
        hop_index: 0,
        kind: HopKind::Http,
        error: None,
    });
    writer.page(redirect).await.unwrap();

    let mut blocked = PageRecord::new(4, UrlState::Blocked);
    blocked.reason = Some(ReasonKind::RobotsTxt.into());
    blocked.blocked_by = Some("https://example.test".into());
    writer.page(blocked).await.unwrap();

    let mut failed = PageRecord::new(2, UrlState::Failed);
    failed.reason = Some(ReasonKind::Timeout.into());
    failed.fetch = Some(FetchRecord {
        error_kind: Some("timeout".into()),
        error_message: Some("read timed out".into()),
        attempts: 1,
        ..FetchRecord::default()
    });
    writer.page(failed).await.unwrap();

    writer
        .sitemap(SitemapRecord {
            id: 1,
            url: "https://example.test/sitemap.xml".into(),
            kind: "urlset".into(),
            parent_id: None,
            found_via: SitemapSource::Robots,
            fetched_at: 3,
            status: Some(200),
            body_bytes: 100,
            gzip: false,
            issues_json: "[]".into(),
            error: None,
            new_urls: vec![new_url(6, "/from-sitemap", 1, FoundVia::Sitemap)],
            requeue: vec![],
            entries: vec![
                SitemapEntryRecord {
                    url_id: Some(6),
                    loc_raw: "https://example.test/from-sitemap".into(),
                    lastmod: Some("2024-01-01".into()),
                    changefreq: None,
                    priority: Some(0.5),
                },
                SitemapEntryRecord {
                    url_id: Some(1),
                    loc_raw: "https://example.test/".into(),
                    lastmod: None,
                    changefreq: None,
                    priority: None,
                },
            ],
        })
        .await
        .unwrap();
    let stats = writer.close().await.unwrap();
    assert!(stats.commits >= 1);
    assert_eq!(stats.urls_inserted, 6);

    // Read back.
    let fetch = store.fetch(audit, 1).await.unwrap().expect("fetch of /");
    assert_eq!(fetch.status, Some(200));
    assert_eq!(
        fetch.text_hash,
        Some(u64::MAX - 7),
        "64-bit fingerprints survive"
    );
    assert_eq!(fetch.simhash, Some(1 << 63));
    assert_eq!(fetch.title.as_deref(), Some("Home"));
    let links = store.links_from(audit, 1).await.unwrap();
    assert_eq!(
        links.iter().map(|l| l.to).collect::<Vec<_>>(),
        vec![Some(2), Some(3), Some(2)]
    );
    assert_eq!(links[1].href_raw, "old");
    let canonicals = store.canonicals_of(audit, 1).await.unwrap();
    assert_eq!(canonicals.len(), 2);
    assert_eq!(canonicals[0].source, DeclarationSource::HttpHeader);
    assert!(!canonicals[1].in_head);
    let hop = store.redirect_from(audit, 3).await.unwrap().expect("hop");
    assert_eq!(
        (hop.to, hop.status, hop.kind),
        (Some(5), 301, HopKind::Http)
    );
    let urls = store.urls(audit).await.unwrap();
    let url = |id: i64| urls.iter().find(|u| u.id == id);
    let new = url(5).expect("redirect target");
    assert_eq!(
        (new.state, new.found_via, new.redirect_depth),
        (UrlState::Queued, FoundVia::Redirect, 1)
    );
    assert_eq!(url(4).unwrap().state, UrlState::Blocked);
    assert_eq!(
        url(4).unwrap().reason,
        Some(ReasonKind::RobotsTxt.into()),
        "the reason reads back typed"
    );
    assert_eq!(
        url(2).unwrap().reason.as_ref().map(|r| r.kind),
        Some(ReasonKind::Timeout)
    );
    let robots = store.robots(audit).await.unwrap();
    assert_eq!(robots[0].crawl_delay, Some(0.5));
    assert_eq!(
        robots[0].sitemaps,
        vec!["https://example.test/sitemap.xml".to_string()]
    );
    let sitemaps = store.sitemaps(audit).await.unwrap();
    assert_eq!(sitemaps[0].entries, 2);
    assert_eq!(
        store.sitemap_entries(audit, 1).await.unwrap()[0]
            .lastmod
            .as_deref(),
        Some("2024-01-01")
    );

    let summary = store.audit_summary(audit).await.unwrap();
    assert_eq!(summary.states.done, 2);
    assert_eq!(summary.states.blocked, 1);
    assert_eq!(summary.states.failed, 1);
    assert_eq!(summary.states.queued, 2);
    assert_eq!(summary.status_classes.success, 1);
    assert_eq!(summary.status_classes.redirect, 1);
    assert_eq!(summary.status_classes.no_response, 1);
    assert_eq!(summary.redirects, 1);
    assert_eq!(summary.canonicals, 2);
    assert_eq!(summary.pages_with_canonical, 1);
    assert_eq!(summary.sitemaps, 1);
    assert_eq!(summary.sitemap_urls, 2);
    assert_eq!(summary.errors, 1);
    assert_eq!(summary.links, 3);
    assert_eq!(summary.audit.urls_found, 6);
    // The timeout got no response: two pages fetched, as the fetches table says.
    assert_eq!(summary.audit.pages_fetched, 2);
    assert_eq!(
        summary.audit.pages_fetched,
        summary.status_classes.success
            + summary.status_classes.redirect
            + summary.status_classes.client_error
            + summary.status_classes.server_error
            + summary.status_classes.other
    );
    assert_eq!(summary.audit.fetch_errors, 1);

    store
        .replace_redirect_chains(
            audit,
            &[ChainRecord {
                start: 3,
                last: None,
                hops: 2,
                problem: ChainProblem::Loop,
            }],
        )
        .await
        .unwrap();
    assert_eq!(store.redirect_chains(audit).await.unwrap().len(), 1);
    store
        .set_audit_status(audit, AuditStatus::Finished, None)
        .await
        .unwrap();
    let listed = store.list_audits().await.unwrap();
    assert_eq!(listed[0].status, AuditStatus::Finished);
    assert!(listed[0].finished_at.is_some());
}

#[tokio::test]
async fn a_url_known_under_another_id_is_merged() {
    let (_dir, path) = db();
    let store = Store::open(&path).await.unwrap();
    let audit = store.create_audit(&[], "{}").await.unwrap();
    let writer = store.writer(audit, WriterOptions::default()).await.unwrap();
    writer
        .urls(vec![
            new_url(1, "/", 0, FoundVia::Start),
            new_url(2, "/a", 1, FoundVia::Link),
        ])
        .await
        .unwrap();
    writer.flush().await.unwrap();
    let claimed = writer.claim(1).await.unwrap();
    assert_eq!(claimed[0].id, 1);
    // The crawler no longer remembered /a and gave it id 7: links to 7 must land on 2.
    let mut page = PageRecord::new(1, UrlState::Done);
    page.new_urls = vec![
        new_url(7, "/a", 1, FoundVia::Link),
        new_url(8, "/a", 1, FoundVia::Link),
    ];
    page.links = vec![link(7, "/a"), link(8, "/a")];
    writer.page(page).await.unwrap();
    let stats = writer.close().await.unwrap();
    assert_eq!(stats.urls_merged, 2);
    let links = store.links_from(audit, 1).await.unwrap();
    assert_eq!(
        links.iter().map(|l| l.to).collect::<Vec<_>>(),
        vec![Some(2), Some(2)]
    );
    assert_eq!(store.urls(audit).await.unwrap().len(), 2);
}

/// Two pages fetched at once: the first finds /contact as a link it does not follow
/// (skipped), the second as its redirect target (re-queued). When the second page's
/// record reaches the writer first, its re-queue waits for the row and still lands.
#[tokio::test]
async fn a_requeue_that_arrives_before_its_url_row_still_queues_it() {
    let (_dir, path) = db();
    let store = Store::open(&path).await.unwrap();
    let audit = store.create_audit(&[], "{}").await.unwrap();
    let writer = store.writer(audit, WriterOptions::default()).await.unwrap();
    writer
        .urls(vec![
            new_url(1, "/shoes", 0, FoundVia::Start),
            new_url(2, "/old-contact", 0, FoundVia::Start),
        ])
        .await
        .unwrap();
    let claimed = writer.claim(10).await.unwrap();
    assert_eq!(claimed.len(), 2);

    let mut hop = PageRecord::new(2, UrlState::Done);
    hop.requeue = vec![store::Requeue { id: 3, depth: 1 }];
    writer.page(hop).await.unwrap();
    assert!(
        writer.claim(10).await.unwrap().is_empty(),
        "no row to claim yet"
    );

    let mut linking = PageRecord::new(1, UrlState::Done);
    linking.new_urls = vec![NewUrl {
        state: UrlState::Skipped,
        reason: Some(ReasonKind::NotFollowed.into()),
        ..new_url(3, "/contact", 1, FoundVia::Link)
    }];
    linking.links = vec![link(3, "/contact")];
    writer.page(linking).await.unwrap();
    let claimed = writer.claim(10).await.unwrap();
    assert_eq!(
        claimed.iter().map(|c| (c.id, c.depth)).collect::<Vec<_>>(),
        vec![(3, 1)]
    );
    writer.close().await.unwrap();
}

#[tokio::test]
async fn resume_requeues_fetching_and_keeps_done() {
    let (_dir, path) = db();
    let store = Store::open(&path).await.unwrap();
    let audit = store.create_audit(&[], "{}").await.unwrap();
    let writer = store.writer(audit, WriterOptions::default()).await.unwrap();
    writer
        .urls(
            (1..=5)
                .map(|i| new_url(i, &format!("/{i}"), 0, FoundVia::Start))
                .collect(),
        )
        .await
        .unwrap();
    let claimed = writer.claim(3).await.unwrap();
    assert_eq!(claimed.len(), 3);
    let mut page = PageRecord::new(claimed[0].id, UrlState::Done);
    page.fetch = Some(FetchRecord {
        status: Some(200),
        attempts: 1,
        ..FetchRecord::default()
    });
    writer.page(page).await.unwrap();
    writer.close().await.unwrap();
    store
        .set_audit_status(audit, AuditStatus::Cancelled, None)
        .await
        .unwrap();
    store.close().await;

    let store = Store::open(&path).await.unwrap();
    let point = store.prepare_run(audit).await.unwrap();
    assert_eq!(
        point.requeued, 2,
        "the two unfinished fetches go back to the queue"
    );
    assert_eq!(point.next_url_id, 6);
    assert_eq!(point.urls, 5);
    assert_eq!(
        store.audit(audit).await.unwrap().status,
        AuditStatus::Running
    );
    let writer = store.writer(audit, WriterOptions::default()).await.unwrap();
    let again = writer.claim(10).await.unwrap();
    assert_eq!(
        again.iter().map(|c| c.id).collect::<Vec<_>>(),
        vec![2, 3, 4, 5]
    );
    writer.close().await.unwrap();
    let known = store.known_urls(audit, 0, 2).await.unwrap();
    assert_eq!(known.len(), 2);
    assert_eq!(known[0].state, UrlState::Done);
    assert_eq!(store.known_urls(audit, 2, 100).await.unwrap().len(), 3);
}

#[test]
fn an_uncommitted_batch_is_lost_but_committed_ones_survive_a_kill() {
    let (_dir, path) = db();
    let audit;
    {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        audit = runtime.block_on(async {
            let store = Store::open(&path).await.unwrap();
            let audit = store.create_audit(&[], "{}").await.unwrap();
            let writer = store
                .writer(
                    audit,
                    WriterOptions {
                        batch_interval: std::time::Duration::from_secs(3600),
                        batch_records: 1_000_000,
                        ..WriterOptions::default()
                    },
                )
                .await
                .unwrap();
            writer
                .urls(vec![new_url(1, "/kept", 0, FoundVia::Start)])
                .await
                .unwrap();
            writer.flush().await.unwrap();
            writer
                .urls(vec![new_url(2, "/lost", 0, FoundVia::Start)])
                .await
                .unwrap();
            // Make sure the second record is inside the open transaction.
            let _ = writer.claim(1).await.unwrap();
            std::mem::forget(writer);
            audit
        });
        // Dropping the runtime kills every task mid-transaction, as kill -9 would.
        runtime.shutdown_background();
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let store = Store::open(&path).await.unwrap();
        let point = store.prepare_run(audit).await.unwrap();
        let urls = store.urls(audit).await.unwrap();
        assert_eq!(urls.len(), 1);
        assert_eq!(urls[0].url, "https://example.test/kept");
        assert_eq!(
            urls[0].state,
            UrlState::Queued,
            "the uncommitted claim is gone"
        );
        assert_eq!(point.next_url_id, 2);
    });
}

fn sitemap(id: i64, path: &str, kind: &str, parent: Option<i64>) -> SitemapRecord {
    SitemapRecord {
        id,
        url: format!("https://example.test{path}"),
        kind: kind.into(),
        parent_id: parent,
        found_via: if parent.is_some() {
            SitemapSource::Index
        } else {
            SitemapSource::Default
        },
        fetched_at: 1,
        status: Some(200),
        body_bytes: 10,
        gzip: false,
        issues_json: "[]".into(),
        error: None,
        new_urls: vec![],
        requeue: vec![],
        entries: vec![],
    }
}

#[tokio::test]
async fn an_index_listing_a_sitemap_read_before_it_becomes_its_parent() {
    let (_dir, path) = db();
    let store = Store::open(&path).await.unwrap();
    let audit = store.create_audit(&[], "{}").await.unwrap();
    let writer = store.writer(audit, WriterOptions::default()).await.unwrap();
    // /sitemap.xml read as the default seed, then the index that lists it.
    writer
        .sitemap(sitemap(1, "/sitemap.xml", "urlset", None))
        .await
        .unwrap();
    writer
        .sitemap(sitemap(2, "/index.xml", "sitemapindex", None))
        .await
        .unwrap();
    writer
        .sitemap(sitemap(3, "/nested.xml", "sitemapindex", Some(2)))
        .await
        .unwrap();
    writer
        .sitemap_parent("https://example.test/sitemap.xml".into(), 2)
        .await
        .unwrap();
    // A second index listing it does not replace the first parent.
    writer
        .sitemap_parent("https://example.test/sitemap.xml".into(), 3)
        .await
        .unwrap();
    // /nested.xml (listed by /index.xml) lists /index.xml back: no cycle is stored.
    writer
        .sitemap_parent("https://example.test/index.xml".into(), 3)
        .await
        .unwrap();
    // A sitemap never stored: nothing happens.
    writer
        .sitemap_parent("https://example.test/missing.xml".into(), 2)
        .await
        .unwrap();
    writer.close().await.unwrap();
    let parents: Vec<(String, Option<i64>)> = store
        .sitemaps(audit)
        .await
        .unwrap()
        .into_iter()
        .map(|s| (s.url, s.parent_id))
        .collect();
    assert_eq!(
        parents,
        [
            ("https://example.test/sitemap.xml".to_owned(), Some(2)),
            ("https://example.test/index.xml".to_owned(), None),
            ("https://example.test/nested.xml".to_owned(), Some(2)),
        ]
    );
}
