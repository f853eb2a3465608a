//! The crawl configuration stored with an audit reads back, whether it was stored
//! before format versions (a configuration captured from an audit of the fixture) or
//! by this build.

#![allow(clippy::unwrap_used)]

use store::Store;

const CONFIG_V1: &str = include_str!("../../store/tests/data/audit_config_v1.json");

#[tokio::test]
async fn a_configuration_stored_before_versions_and_one_stored_now_both_read() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("a.sqlite")).await.unwrap();
    let captured: crawl::CrawlConfig = serde_json::from_str(CONFIG_V1).unwrap();
    assert_eq!(captured.start_urls, ["https://example.test/"]);
    // Stored when nofollow links were not followed by default: it still does not.
    assert!(!captured.follow_nofollow);

    // As a database written before versions holds it, then converted by the store.
    let old = store
        .create_audit(&captured.start_urls, CONFIG_V1.trim())
        .await
        .unwrap();
    let row = store.audit(old).await.unwrap();
    assert_eq!(row.config_version, 1);
    assert_eq!(crawl::stored_config(&row).unwrap(), captured);

    // Written by this build.
    let new = crawl::create_audit(&store, &captured).await.unwrap();
    assert_eq!(crawl::audit_config(&store, new).await.unwrap(), captured);
}
