//! `dustpan audit` against the fixture's hostile endpoints (`/hostile/`): gzip bombs, entity
//! expansion, a 50 MiB page, a dropped connection, a response that never comes, a drip-fed
//! body, invalid UTF-8 and an endless redirect chain. Each ends in a recorded error or
//! issue, the audit finishes, and the process stays bounded in time and memory.

use std::time::Duration;

use fixture::FixtureConfig;
use store::{AuditStatus, ChainProblem, UrlState};

use crate::util::{Site, Snapshot, audit_id, run_watched};

const HOSTILE: &str = "https://example.test/hostile/";
/// `--timeout`, in seconds.
const TIMEOUT_S: u64 = 2;
/// The default `max_response_bytes` (10 MiB) and `max_sitemap_bytes` (50 MiB).
const MAX_PAGE: u64 = 10 * 1024 * 1024;
const MAX_SITEMAP: u64 = 50 * 1024 * 1024;
/// Peak resident memory allowed to the audit process.
const MAX_RSS_MIB: u64 = 300;

fn h(path: &str) -> String {
    format!("https://example.test/hostile/{path}")
}

#[test]
fn hostile_endpoints_end_in_recorded_errors_within_bounds() {
    let site = Site::start(FixtureConfig {
        hostile: true,
        slow_delay: Duration::from_millis(10),
        ..FixtureConfig::default()
    });
    let timeout = TIMEOUT_S.to_string();
    let index = h("sitemap_index.xml");
    // The hostile sitemaps through --sitemap, the hostile pages through the start URL;
    // --include keeps the crawl there (the main site's sitemaps, read through robots.txt,
    // still are, and their entries recorded as out of scope).
    let args = site.audit_args(
        HOSTILE,
        &[
            "-q",
            "--sitemap",
            &index,
            "--include",
            r"^https://example\.test/hostile/",
            "--timeout",
            &timeout,
        ],
    );
    let run = run_watched(&args, Duration::from_secs(90));
    let out = &run.output;
    eprintln!(
        "hostile: {:?}, peak RSS {} MiB",
        run.elapsed,
        run.peak_rss_kib / 1024
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        run.peak_rss_kib > 0 && run.peak_rss_kib / 1024 < MAX_RSS_MIB,
        "peak RSS {} MiB",
        run.peak_rss_kib / 1024
    );
    assert!(run.elapsed < Duration::from_secs(30), "{:?}", run.elapsed);

    let store = site.store();
    let snap = site
        .rt
        .block_on(Snapshot::load_full(&store, audit_id(&out.stdout)));
    assert_eq!(snap.audit.status, AuditStatus::Finished);

    let request_count = |url: &str| site.requests_for(url);

    // The hostile sitemap index and its four children, each read once.
    let (index_row, _) = snap.sitemap(&index);
    assert_eq!(
        (index_row.kind.as_str(), index_row.found_via.as_str()),
        ("sitemapindex", "user")
    );
    let issues = |url: &str| -> Vec<String> {
        let (row, _) = snap.sitemap(url);
        assert_eq!(row.status, Some(200), "{url}");
        assert_eq!(row.error, None, "{url}");
        assert_eq!(row.parent_id, Some(index_row.id), "{url}");
        let v: serde_json::Value = serde_json::from_str(&row.issues_json).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| i["kind"].as_str().unwrap().to_owned())
            .collect()
    };
    let locs = |url: &str| -> Vec<String> {
        snap.sitemap(url)
            .1
            .iter()
            .map(|e| e.loc_raw.clone())
            .collect()
    };
    // The gzip bomb (application/gzip): inflation stops at the sitemap limit.
    let bomb = h("bomb-sitemap.xml.gz");
    assert!(snap.sitemap(&bomb).0.gzip);
    assert!(
        issues(&bomb).contains(&"oversized".to_owned()),
        "{:?}",
        issues(&bomb)
    );
    assert_eq!(locs(&bomb), ["https://example.test/"]);
    // The same bytes as Content-Encoding: gzip: the decoded body is capped.
    let encoded = h("bomb-encoded.xml");
    let kinds = issues(&encoded);
    assert!(kinds.contains(&"truncated".to_owned()), "{kinds:?}");
    assert!(
        snap.sitemap(&encoded)
            .0
            .issues_json
            .contains(&format!("body over {MAX_SITEMAP} bytes")),
        "{}",
        snap.sitemap(&encoded).0.issues_json
    );
    assert_eq!(locs(&encoded), ["https://example.test/"]);
    // Billion laughs and an external entity: declared entities are never expanded.
    for (url, reference) in [
        (h("entity-expansion.xml"), "&lol9;"),
        (h("xxe-sitemap.xml"), "&xxe;"),
    ] {
        let kinds = issues(&url);
        assert!(
            kinds.contains(&"entity_declaration".to_owned()),
            "{url}: {kinds:?}"
        );
        assert_eq!(
            locs(&url),
            [format!("https://example.test/{reference}")],
            "{url}"
        );
    }
    for u in &snap.urls {
        assert!(
            u.url.len() < 200 && !u.url.contains("lollol") && !u.url.contains("root:"),
            "{}",
            u.url
        );
    }
    for (_, entries) in &snap.sitemaps {
        for e in entries {
            assert!(
                !e.loc_raw.contains("root:") && e.loc_raw.len() < 200,
                "{e:?}"
            );
        }
    }
    for url in [
        &index,
        &bomb,
        &encoded,
        &h("entity-expansion.xml"),
        &h("xxe-sitemap.xml"),
    ] {
        // Read once as a sitemap, fetched once as a page linked from /hostile/.
        assert_eq!(request_count(url), 2, "{url}");
    }

    // The 50 MiB page, with and without Content-Length: read up to the page limit.
    for (url, length) in [
        (
            h("huge-page"),
            Some(FixtureConfig::default().hostile_page_bytes),
        ),
        (h("huge-page-chunked"), None),
    ] {
        let f = snap.fetch(&url);
        assert_eq!(f.status, Some(200), "{url}");
        assert!(f.truncated, "{url}");
        assert_eq!(f.body_bytes, MAX_PAGE, "{url}");
        assert_eq!(f.content_length, length, "{url}");
        assert_eq!(f.title.as_deref(), Some("Huge page | Example Outfitters"));
        assert_eq!(snap.url(&url).state, UrlState::Done);
    }

    // Dropped mid-body, never answered, drip-fed: failed with the cause, tried once.
    let timeout_ms = TIMEOUT_S * 1000;
    for (path, kind, status) in [
        ("drop-mid-body", "dropped", Some(200)),
        ("hang", "timeout", None),
        ("slow-body", "timeout", Some(200)),
    ] {
        let url = h(path);
        let row = snap.url(&url);
        assert_eq!(row.state, UrlState::Failed, "{url}");
        assert_eq!(
            row.reason.as_ref().map(|r| r.kind.as_str()),
            Some(kind),
            "{url}"
        );
        let f = snap.fetch(&url);
        assert_eq!(f.error_kind.as_deref(), Some(kind), "{url}: {f:?}");
        assert!(f.error_message.is_some(), "{url}");
        assert_eq!(f.status, status, "{url}");
        assert_eq!(f.attempts, 1, "{url}");
        assert_eq!(request_count(&url), 1, "{url}: no retries");
        if kind == "timeout" {
            assert!(
                (timeout_ms - 50..timeout_ms + 3_000).contains(&f.total_ms),
                "{url}: gave up after {} ms",
                f.total_ms
            );
        }
    }
    let dropped = snap.fetch(&h("drop-mid-body"));
    assert!(
        dropped.body_bytes > 0 && dropped.body_bytes < 1_000_000,
        "{dropped:?}"
    );
    let st = &snap.summary.states;
    assert_eq!(st.failed, 3, "{st:?}");
    assert_eq!(snap.audit.fetch_errors, 3);

    // Invalid UTF-8: decoded lossily.
    let broken = snap.fetch(&h("invalid-utf8"));
    assert_eq!(
        broken.title.as_deref(),
        Some("Broken \u{FFFD}\u{FFFD} bytes | Example Outfitters")
    );

    // The endless redirect chain stops at --max-redirects (10): eleven 302 hops stored,
    // the twelfth URL recorded and never requested, the chain flagged too long.
    let max_redirects = 10;
    for n in 0..=max_redirects {
        let url = h(&format!("redirect/{n}"));
        assert_eq!(snap.fetch(&url).status, Some(302), "{url}");
        let hop = &snap.redirects[&snap.url(&url).id];
        assert_eq!(hop.hop_index, n, "{url}");
        assert_eq!(hop.location_raw, format!("/hostile/redirect/{}", n + 1));
        assert_eq!(request_count(&url), 1, "{url}");
    }
    let past = snap.url(&h(&format!("redirect/{}", max_redirects + 1)));
    assert_eq!(
        (past.state, past.reason.as_ref().map(|r| r.kind.as_str())),
        (UrlState::Skipped, Some("redirect_limit"))
    );
    assert_eq!(request_count(&past.url), 0);
    assert_eq!(
        snap.chains,
        vec![store::ChainRecord {
            start: snap.url(&h("redirect/0")).id,
            last: Some(past.id),
            hops: max_redirects + 1,
            problem: ChainProblem::TooLong,
        }]
    );
    let redirect_requests = site
        .server
        .requests()
        .iter()
        .filter(|r| r.target.starts_with("/hostile/redirect/"))
        .count();
    assert_eq!(redirect_requests as u32, max_redirects + 1);
}
