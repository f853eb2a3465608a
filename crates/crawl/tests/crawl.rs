//! Crawls of loopback sites (127.0.0.1:0 only) into temporary SQLite files.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crawl::{CancellationToken, CrawlConfig, Progress};
use store::{
    AuditStatus, ChainProblem, DeclarationSource, HopKind, ReasonKind, Store, UrlRow, UrlState,
};
use support::{Reply, Request, Server, crawl, urls};
use tokio::sync::watch;

/// A config for `http://example.test:PORT/` with both hosts pointed at the server.
fn config(server: &Server) -> CrawlConfig {
    let port = server.port();
    CrawlConfig {
        start_urls: vec![format!("http://example.test:{port}/")],
        resolve: vec![
            format!("example.test:{port}:127.0.0.1"),
            format!("www.example.test:{port}:127.0.0.1"),
        ],
        connect_timeout_ms: 2_000,
        read_timeout_ms: 2_000,
        total_timeout_ms: 5_000,
        ..CrawlConfig::default()
    }
}

/// Every page URL was requested at most once. (robots.txt is left out: the www host's
/// robots.txt redirects to the bare host's, which is then requested a second time on
/// behalf of the other origin, as RFC 9309 says.)
fn assert_each_requested_once(server: &Server) {
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    for r in server.log().into_iter().filter(|r| r.path != "/robots.txt") {
        *seen.entry((r.host, r.path)).or_default() += 1;
    }
    let twice: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "requested more than once: {twice:?}");
}

fn site(port: u16) -> impl Fn(&Request) -> Reply + Send + Sync + 'static {
    let origin = format!("http://example.test:{port}");
    move |r: &Request| {
        if r.host == "www.example.test" {
            return Reply::status(301, &[("Location", &format!("{origin}{}", r.path))]);
        }
        match r.path.as_str() {
            "/robots.txt" => Reply::bytes(
                "text/plain",
                b"User-agent: *\nDisallow: /private\n".to_vec(),
            ),
            "/" => Reply::html(format!(
                r#"<html><head><title>Home</title></head><body>
                <a href="/a">A</a> <a href="/a#frag">A again</a> <a href="/A">A upper</a>
                <a href="/a?x=1">A query</a> <a href="b">B</a> <a href="/private/x">secret</a>
                <a href="/redir1">redirect</a> <a href="/loop1">loop</a> <a href="/refresh">refresh</a>
                <a href="mailto:someone@example.test">mail</a> <a href="javascript:void(0)">js</a>
                <a href="http://other.test/ext">elsewhere</a>
                <a href="//www.example.test:{port}/a">www</a>
                <a href="/nofollowed" rel="nofollow">nf</a>
                </body></html>"#
            )),
            "/a" => Reply::html(
                r#"<html><head><link rel="canonical" href="/b"></head><body><a href="/">home</a><a href="/a/">slash</a></body></html>"#,
            ),
            "/b" => Reply::Full {
                status: 200,
                headers: vec![
                    ("Content-Type".into(), "text/html".into()),
                    ("Link".into(), format!("<{origin}/b>; rel=\"canonical\"")),
                    ("X-Robots-Tag".into(), "noindex".into()),
                ],
                body: b"<html><body>b</body></html>".to_vec(),
            },
            "/a/" | "/A" | "/a?x=1" | "/final" => Reply::html("<html><body>page</body></html>"),
            "/redir1" => Reply::status(301, &[("Location", "/redir2")]),
            "/redir2" => Reply::status(302, &[("Location", &format!("{origin}/final"))]),
            "/loop1" => Reply::status(301, &[("Location", "/loop2")]),
            "/loop2" => Reply::status(301, &[("Location", "/loop1")]),
            "/refresh" => Reply::html(
                r#"<html><head><meta http-equiv="refresh" content="0; url=/final"></head></html>"#,
            ),
            _ => Reply::not_found(),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_is_crawled_once_with_redirects_canonicals_and_robots() {
    let server = Server::start(site).await;
    let config = config(&server);
    let port = server.port();
    let (_dir, store, summary) = crawl(&config).await;
    assert_eq!(summary.status, AuditStatus::Finished);
    assert_each_requested_once(&server);
    assert!(
        server
            .log()
            .iter()
            .all(|r| r.user_agent.starts_with("Dustpan/"))
    );

    let origin = format!("http://example.test:{port}");
    let urls = urls(&store, &summary).await;
    let at = |path: &str| {
        urls.get(&format!("{origin}{path}"))
            .unwrap_or_else(|| panic!("no URL {path}"))
    };

    // SEO variants are distinct URLs, each fetched; the fragment is not.
    for path in ["/", "/a", "/a/", "/A", "/a?x=1", "/b", "/final"] {
        assert_eq!(at(path).state, UrlState::Done, "{path}");
    }
    assert!(!urls.keys().any(|u| u.contains('#')));
    assert_eq!(
        at("/a").url_seo,
        at("/A")
            .url_seo
            .as_ref()
            .map(|s| s.to_lowercase())
            .filter(|_| false)
            .or(at("/a").url_seo.clone())
    );

    // robots.txt: blocked, recorded, never requested.
    assert_eq!(at("/private/x").state, UrlState::Blocked);
    assert_eq!(server.count("example.test", "/private/x"), 0);

    // Out of scope: recorded, not requested. A nofollow link is followed (by default).
    let ext = urls
        .get("http://other.test/ext")
        .expect("external URL recorded");
    assert_eq!(
        (ext.state, ext.reason.as_ref().map(|r| r.kind)),
        (UrlState::Skipped, Some(ReasonKind::OutOfScope))
    );
    assert_eq!(at("/nofollowed").state, UrlState::Done);

    // Redirects hop by hop.
    let hop1 = store
        .redirect_from(summary.audit, at("/redir1").id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (hop1.status, hop1.location_raw.as_str(), hop1.hop_index),
        (301, "/redir2", 0)
    );
    assert_eq!(hop1.to, Some(at("/redir2").id));
    let hop2 = store
        .redirect_from(summary.audit, at("/redir2").id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (hop2.status, hop2.hop_index, hop2.to),
        (302, 1, Some(at("/final").id))
    );
    assert_eq!(at("/redir2").redirect_depth, 1);
    let refresh = store
        .redirect_from(summary.audit, at("/refresh").id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (refresh.kind, refresh.to),
        (HopKind::MetaRefresh, Some(at("/final").id))
    );
    // The www variant redirects to the bare host.
    let www = urls
        .get(&format!("http://www.example.test:{port}/"))
        .expect("www variant");
    let hop = store
        .redirect_from(summary.audit, www.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(hop.to, Some(at("/").id));

    // The loop is detected.
    let chains = store.redirect_chains(summary.audit).await.unwrap();
    let lp = chains
        .iter()
        .find(|c| c.problem == ChainProblem::Loop)
        .expect("a loop");
    assert_eq!(lp.start, at("/loop1").id);

    // Canonicals from the element and from the Link header.
    let a = store
        .canonicals_of(summary.audit, at("/a").id)
        .await
        .unwrap();
    assert_eq!(
        (a[0].source, a[0].target, a[0].in_head),
        (DeclarationSource::LinkElement, Some(at("/b").id), true)
    );
    let b = store
        .canonicals_of(summary.audit, at("/b").id)
        .await
        .unwrap();
    assert_eq!(
        (b[0].source, b[0].target),
        (DeclarationSource::HttpHeader, Some(at("/b").id))
    );
    let b_fetch = store
        .fetch(summary.audit, at("/b").id)
        .await
        .unwrap()
        .unwrap();
    assert!(b_fetch.noindex);
    assert_eq!(b_fetch.x_robots_tag.as_deref(), Some("noindex"));

    // Links, including the ones that are not web URLs.
    let links = store.links_from(summary.audit, at("/").id).await.unwrap();
    let mail = links
        .iter()
        .find(|l| l.href_raw.starts_with("mailto:"))
        .unwrap();
    assert_eq!(
        (mail.to, mail.error.as_deref()),
        (None, Some("unsupported_scheme"))
    );
    assert_eq!(links[0].to, links[1].to, "/a and /a#frag are one URL");

    let summary_row = store.audit_summary(summary.audit).await.unwrap();
    assert!(summary_row.redirects >= 6);
    assert_eq!(summary_row.states.queued, 0);
    assert_eq!(summary_row.states.fetching, 0);
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_responses_end_in_recorded_results() {
    // 64 MiB of zeros gzip to ~64 KiB: a bomb for anyone who decompresses without a cap.
    let bomb = Arc::new(gzip(&vec![0u8; 64 << 20]));
    let retried = Arc::new(AtomicUsize::new(0));
    let retried_in_site = Arc::clone(&retried);
    let server = Server::start(move |port| {
        move |r: &Request| match r.path.as_str() {
            _ if r.host != "example.test" => {
                Reply::status(301, &[("Location", &format!("http://example.test:{port}{}", r.path))])
            }
            "/robots.txt" => Reply::not_found(),
            "/" => Reply::html(
                r#"<a href="/hang">1</a><a href="/drop">2</a><a href="/bomb">3</a><a href="/big">4</a>
                   <a href="/latin">5</a><a href="/busy">6</a><a href="/gone">7</a><a href="/cal/1">8</a>
                   <a href="/x/y/x/y/x/y">9</a>"#,
            ),
            "/hang" => Reply::Hang,
            "/drop" => Reply::DropMidBody {
                declared: 10_000,
                sent: b"<html><body>half".to_vec(),
            },
            "/bomb" => Reply::Full {
                status: 200,
                headers: vec![
                    ("Content-Type".into(), "text/html".into()),
                    ("Content-Encoding".into(), "gzip".into()),
                ],
                body: bomb.to_vec(),
            },
            "/big" => Reply::Stream {
                headers: vec![("Content-Type".into(), "text/html".into())],
                chunk: b"<p>lorem ipsum dolor sit amet</p>\n".repeat(1000),
                total: 50 << 20,
            },
            "/latin" => Reply::bytes(
                "text/html",
                b"<html><head><title>caf\xe9 \xff\xfe</title></head><body><a href=\"/a\">\xc3\x28</a></body></html>".to_vec(),
            ),
            "/busy" => {
                if retried_in_site.fetch_add(1, Ordering::SeqCst) == 0 {
                    Reply::status(503, &[("Retry-After", "1")])
                } else {
                    Reply::html("<p>ok now</p>")
                }
            }
            path if path.starts_with("/cal/") => {
                let n: u32 = path[5..].parse().unwrap_or(0);
                Reply::html(format!(r#"<a href="/cal/{}">next month</a>"#, n + 1))
            }
            "/a" => Reply::html("<p>a</p>"),
            _ => Reply::not_found(),
        }
    })
    .await;
    let config = CrawlConfig {
        read_timeout_ms: 700,
        total_timeout_ms: 30_000,
        trap_pattern_budget: 5,
        // Under the default 10 MiB so the debug-build test stays quick; the cap works the
        // same way at any size.
        max_response_bytes: 2 << 20,
        // Counts requests per path: URL-variant probes would add theirs.
        probe_variants: false,
        ..config(&server)
    };
    let started = std::time::Instant::now();
    let (_dir, store, summary) = crawl(&config).await;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(25),
        "no hang: {:?}",
        started.elapsed()
    );
    assert_eq!(summary.status, AuditStatus::Finished);
    assert_eq!(server.count("example.test", "/hang"), 1);
    assert_eq!(server.count("example.test", "/bomb"), 1);
    let origin = format!("http://example.test:{}", server.port());
    let urls = urls(&store, &summary).await;
    let at = |path: &str| {
        urls.get(&format!("{origin}{path}"))
            .unwrap_or_else(|| panic!("no URL {path}"))
    };
    let fetch = |path: &'static str| {
        let store = store.clone();
        let id = at(path).id;
        async move { store.fetch(summary.audit, id).await.unwrap().unwrap() }
    };

    let hang = fetch("/hang").await;
    assert_eq!(
        (at("/hang").state, hang.error_kind.as_deref()),
        (UrlState::Failed, Some("timeout"))
    );
    assert_eq!(hang.status, Some(200), "the head arrived before the stall");

    let dropped = fetch("/drop").await;
    assert_eq!(at("/drop").state, UrlState::Failed);
    assert_eq!(
        dropped.error_kind.as_deref(),
        Some("dropped"),
        "{:?}",
        dropped.error_message
    );

    let bomb = fetch("/bomb").await;
    assert!(bomb.truncated);
    assert_eq!(
        bomb.body_bytes, config.max_response_bytes,
        "stopped at the cap after decompression"
    );

    let big = fetch("/big").await;
    assert!(big.truncated);
    assert_eq!(big.body_bytes, config.max_response_bytes);
    assert_eq!(big.content_length, Some(50 << 20));
    assert!(
        big.word_count.unwrap() > 100_000,
        "the part read is still analysed"
    );

    let latin = fetch("/latin").await;
    assert_eq!(at("/latin").state, UrlState::Done);
    assert!(latin.title.unwrap().starts_with("caf"));
    assert_eq!(
        at("/a").state,
        UrlState::Done,
        "links of a badly encoded page are followed"
    );

    let busy = fetch("/busy").await;
    assert_eq!((busy.status, busy.attempts), (Some(200), 2));
    assert_eq!(retried.load(Ordering::SeqCst), 2);

    assert_eq!(fetch("/gone").await.status, Some(404));

    // The calendar trap stops after the budget, recorded as a trap.
    let trapped: Vec<&UrlRow> = urls
        .values()
        .filter(|u| {
            u.reason.as_ref().is_some_and(|r| {
                r.kind == ReasonKind::TrapPattern
                    && r.detail.as_deref() == Some("over 5 URLs like /cal/#")
            })
        })
        .collect();
    assert_eq!(trapped.len(), 1);
    assert_eq!(
        server
            .log()
            .iter()
            .filter(|r| r.path.starts_with("/cal/"))
            .count(),
        5
    );
    assert_eq!(
        at("/x/y/x/y/x/y").reason,
        Some(store::UrlReason::with_detail(
            ReasonKind::TrapRepeatedSegment,
            "path repeats segment \"x\""
        ))
    );
}

/// A site of `pages` pages, each linking to the next ten.
fn chain_site(pages: u32) -> impl FnOnce(u16) -> Box<dyn Fn(&Request) -> Reply + Send + Sync> {
    move |_port| {
        Box::new(move |r: &Request| {
            if r.path == "/robots.txt" {
                return Reply::not_found();
            }
            let n: u32 = match r.path.as_str() {
                "/" => 0,
                p => match p.strip_prefix("/p/").and_then(|n| n.parse().ok()) {
                    Some(n) if n < pages => n,
                    _ => return Reply::not_found(),
                },
            };
            let links: String = (n + 1..(n + 11).min(pages))
                .map(|m| format!(r#"<a href="/p/{m}">{m}</a>"#))
                .collect();
            Reply::html(format!(
                "<html><head><title>{n}</title></head><body>{links}</body></html>"
            ))
        })
    }
}

async fn done_paths(store: &Store, audit: store::AuditId) -> Vec<String> {
    store
        .urls(audit)
        .await
        .unwrap()
        .into_iter()
        .filter(|u| u.state == UrlState::Done)
        .map(|u| u.url)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_audit_resumes_without_refetching() {
    let server = Server::start(chain_site(300)).await;
    let config = CrawlConfig {
        concurrency: 2,
        requests_per_second: 400.0,
        ..config(&server)
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("audit.sqlite")).await.unwrap();
    let (progress, mut watcher) = watch::channel(Progress::default());
    let cancel = CancellationToken::new();
    let canceller = cancel.clone();
    tokio::spawn(async move {
        while watcher.changed().await.is_ok() {
            if watcher.borrow().fetched >= 60 {
                canceller.cancel();
                return;
            }
        }
    });
    let first = crawl::start_audit(&store, &config, &progress, &cancel)
        .await
        .unwrap();
    assert_eq!(first.status, AuditStatus::Cancelled);
    assert!(first.queued > 0);
    let done_before = done_paths(&store, first.audit).await;
    assert!(done_before.len() >= 50, "{} done", done_before.len());

    let second = crawl::resume_audit(&store, first.audit, &progress, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(second.status, AuditStatus::Finished);
    assert_each_requested_once(&server);
    let all_done = done_paths(&store, first.audit).await;
    assert!(
        done_before.iter().all(|u| all_done.contains(u)),
        "nothing stored was lost"
    );
    // 300 pages + the 4 scheme / www variants (the https ones fail: no TLS here).
    let pages: Vec<_> = all_done
        .iter()
        .filter(|u| u.contains("example.test"))
        .collect();
    assert!(pages.len() >= 300, "{} pages done", pages.len());
    assert!(matches!(
        crawl::resume_audit(&store, first.audit, &progress, &CancellationToken::new()).await,
        Err(crawl::CrawlError::AlreadyFinished(_))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_audit_resumes_from_the_database() {
    let server = Server::start(chain_site(300)).await;
    let config = CrawlConfig {
        concurrency: 4,
        requests_per_second: 400.0,
        ..config(&server)
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.sqlite");

    // Run the crawl on its own runtime and drop that runtime mid-crawl: every task dies
    // wherever it is, as with kill -9 (the SQLite file only has what was committed).
    let kill_path = path.clone();
    let kill_config = config.clone();
    let audit = tokio::task::spawn_blocking(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (progress, mut watcher) = watch::channel(Progress::default());
        let audit = runtime.block_on(async {
            let store = Store::open(&kill_path).await.unwrap();
            let audit = crawl::create_audit(&store, &kill_config).await.unwrap();
            let crawl_store = store.clone();
            tokio::spawn(async move {
                let _ = crawl::run(
                    &crawl_store,
                    audit,
                    &kill_config,
                    &progress,
                    &CancellationToken::new(),
                )
                .await;
            });
            while watcher.changed().await.is_ok() {
                if watcher.borrow().fetched >= 80 {
                    break;
                }
            }
            // Let a commit or two land, then kill.
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            audit
        });
        runtime.shutdown_background();
        audit
    })
    .await
    .unwrap();

    let store = Store::open(&path).await.unwrap();
    let before = store.audit(audit).await.unwrap();
    assert_eq!(before.status, AuditStatus::Running, "killed, not finished");
    let done_before = done_paths(&store, audit).await;
    assert!(!done_before.is_empty(), "committed pages survive the kill");
    let requests_before = server.log().len();

    let (progress, _rx) = watch::channel(Progress::default());
    let resumed = crawl::resume_audit(&store, audit, &progress, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(resumed.status, AuditStatus::Finished);
    let after = server.log();
    for url in &done_before {
        let path = url
            .split_once(".test:")
            .map(|(_, rest)| &rest[rest.find('/').unwrap_or(0)..])
            .unwrap();
        let host = if url.contains("www.") {
            "www.example.test"
        } else {
            "example.test"
        };
        assert!(
            !after[requests_before..]
                .iter()
                .any(|r| r.path == path && r.host == host),
            "{url} was done before the kill and fetched again"
        );
    }
    let all_done = done_paths(&store, audit).await;
    assert!(done_before.iter().all(|u| all_done.contains(u)));
    assert!(all_done.len() >= 300);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sitemaps_gzip_and_index_are_read_and_their_urls_crawled() {
    let server = Server::start(|port| {
        let origin = format!("http://example.test:{port}");
        let index = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
            <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
              <sitemap><loc>{origin}/sm1.xml.gz</loc></sitemap>
              <sitemap><loc>{origin}/sm2.txt</loc></sitemap>
            </sitemapindex>"#
        );
        let urlset = gzip(
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?>
                <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
                  <url><loc>{origin}/s/1</loc><lastmod>2024-05-01</lastmod><priority>0.8</priority></url>
                  <url><loc>{origin}/private/s</loc></url>
                  <url><loc>http://other.test/z</loc></url>
                </urlset>"#
            )
            .as_bytes(),
        );
        let text = format!("{origin}/s/2\n{origin}/\n");
        move |r: &Request| {
            if r.host != "example.test" {
                return Reply::not_found();
            }
            match r.path.as_str() {
                "/robots.txt" => Reply::bytes(
                    "text/plain",
                    format!("User-agent: *\nDisallow: /private\nSitemap: {origin}/sitemap_index.xml\n").into_bytes(),
                ),
                "/sitemap_index.xml" => Reply::bytes("application/xml", index.clone().into_bytes()),
                "/sm1.xml.gz" => Reply::bytes("application/gzip", urlset.clone()),
                "/sm2.txt" => Reply::bytes("text/plain", text.clone().into_bytes()),
                "/" | "/s/1" | "/s/2" => Reply::html("<p>page</p>"),
                _ => Reply::not_found(),
            }
        }
    })
    .await;
    let (_dir, store, summary) = crawl(&config(&server)).await;
    assert_eq!(summary.status, AuditStatus::Finished);
    assert_each_requested_once(&server);
    let origin = format!("http://example.test:{}", server.port());
    let sitemaps = store.sitemaps(summary.audit).await.unwrap();
    let by_url = |path: &str| {
        sitemaps
            .iter()
            .find(|s| s.url == format!("{origin}{path}"))
            .unwrap_or_else(|| panic!("no sitemap {path}"))
    };
    let index = by_url("/sitemap_index.xml");
    assert_eq!(
        (index.kind.as_str(), index.found_via.as_str()),
        ("sitemapindex", "robots")
    );
    let gz = by_url("/sm1.xml.gz");
    assert_eq!(
        (gz.kind.as_str(), gz.gzip, gz.parent_id, gz.entries),
        ("urlset", true, Some(index.id), 3)
    );
    assert!(gz.issues_json.contains("cross_host"), "{}", gz.issues_json);
    let text = by_url("/sm2.txt");
    assert_eq!(
        (text.kind.as_str(), text.entries, text.parent_id),
        ("text", 2, Some(index.id))
    );
    let default = by_url("/sitemap.xml");
    assert_eq!(
        (default.status, default.error.as_deref()),
        (Some(404), Some("status 404"))
    );

    let entries = store.sitemap_entries(summary.audit, gz.id).await.unwrap();
    assert_eq!(
        (entries[0].lastmod.as_deref(), entries[0].priority),
        (Some("2024-05-01"), Some(0.800000011920929))
    );
    let urls = urls(&store, &summary).await;
    let s1 = &urls[&format!("{origin}/s/1")];
    assert_eq!(
        (s1.state, s1.found_via, s1.depth),
        (UrlState::Done, store::FoundVia::Sitemap, 1)
    );
    assert_eq!(entries[0].url_id, Some(s1.id));
    assert_eq!(urls[&format!("{origin}/s/2")].state, UrlState::Done);
    assert_eq!(
        urls[&format!("{origin}/private/s")].state,
        UrlState::Blocked
    );
    assert_eq!(
        urls["http://other.test/z"].reason.as_ref().map(|r| r.kind),
        Some(ReasonKind::OutOfScope)
    );
    let summary_row = store.audit_summary(summary.audit).await.unwrap();
    assert_eq!(summary_row.sitemaps, 4);
    assert_eq!(summary_row.sitemap_urls, 5);
}

/// A host name that does not resolve is recorded as a DNS failure (`dns`), not as a
/// connection that could not be made. The `.invalid` name (RFC 6761) is answered by the
/// crawl's own resolver without any lookup, so nothing leaves the machine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_that_does_not_resolve_is_a_dns_failure() {
    let server = Server::start(|_port| {
        move |req: &Request| match req.path.as_str() {
            "/" => Reply::html("<p>home</p>"),
            _ => Reply::not_found(),
        }
    })
    .await;
    let port = server.port();
    let mut config = CrawlConfig {
        probe_variants: false,
        ..config(&server)
    };
    let missing = format!("http://nowhere.invalid:{port}/");
    config.start_urls.push(missing.clone());
    let (_dir, store, summary) = crawl(&config).await;
    assert_eq!(summary.status, AuditStatus::Finished);
    let urls = urls(&store, &summary).await;
    let row = urls.get(&missing).expect("the start URL is recorded");
    assert_eq!(row.state, UrlState::Failed);
    assert_eq!(
        row.reason.as_ref().map(|r| r.kind),
        Some(ReasonKind::Dns),
        "the URL's reason says the same"
    );
    let fetch = store.fetch(summary.audit, row.id).await.unwrap().unwrap();
    assert_eq!(
        fetch.error_kind.as_deref(),
        Some("dns"),
        "{:?}",
        fetch.error_message
    );
    assert!(
        fetch
            .error_message
            .as_deref()
            .is_some_and(|m| m.contains("nowhere.invalid: the name does not resolve")),
        "{:?}",
        fetch.error_message
    );
}
