//! Budgets and limits that stop or bound a crawl, each recorded: per-page caps on links
//! and anchor text, the storage budget on link-heavy pages, the duration budget on drip
//! pages, the slow-host cut-off; and the limits that used to drop things silently: two
//! `Location` headers, a robots.txt over 512 KiB, a sitemap index nested too deep.
//! Loopback servers only.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::time::Duration;

use crawl::{CancellationToken, CrawlConfig, CrawlSummary, Progress};
use store::{AuditStatus, StopReason, Store, UrlState};
use support::{Reply, Request, Server};
use tokio::sync::watch;

struct Crawled {
    dir: tempfile::TempDir,
    store: Store,
    summary: CrawlSummary,
}

impl Crawled {
    async fn errors(&self, kind: &str) -> Vec<(Option<i64>, String, String, String)> {
        self.store
            .errors(self.summary.audit)
            .await
            .unwrap()
            .into_iter()
            .filter(|e| e.2 == kind)
            .collect()
    }

    /// The database file and its WAL, in bytes.
    fn file_bytes(&self) -> u64 {
        ["audit.sqlite", "audit.sqlite-wal"]
            .iter()
            .filter_map(|f| std::fs::metadata(self.dir.path().join(f)).ok())
            .map(|m| m.len())
            .sum()
    }
}

fn config(port: u16) -> CrawlConfig {
    CrawlConfig {
        connect_timeout_ms: 2_000,
        read_timeout_ms: 5_000,
        total_timeout_ms: 10_000,
        default_sitemap: false,
        ..CrawlConfig::for_url(&format!("http://127.0.0.1:{port}/"))
    }
}

async fn crawl(config: &CrawlConfig) -> Crawled {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("audit.sqlite")).await.unwrap();
    let (progress, _rx) = watch::channel(Progress::default());
    let summary = crawl::start_audit(&store, config, &progress, &CancellationToken::new())
        .await
        .unwrap();
    Crawled {
        dir,
        store,
        summary,
    }
}

/// A page of `links` links to `/p/N` (from `first` on), each with `anchor` characters of
/// anchor text.
fn link_page(first: usize, links: usize, anchor: usize) -> String {
    let text = "x".repeat(anchor);
    let mut html = String::from("<html><head><title>t</title></head><body>");
    for i in first..first + links {
        html.push_str(&format!("<a href=\"/p/{i}\">{i} {text}</a>\n"));
    }
    html.push_str("</body></html>");
    html
}

#[tokio::test]
async fn one_hostile_page_stores_a_bounded_number_of_links_and_anchor_text() {
    // 10,000 links with 300 characters of anchor text each: the extractor keeps them
    // all; the crawler stores 5,000 links and 100,000 characters of anchor text.
    let page = link_page(0, 10_000, 300);
    let server = Server::start(move |_| {
        move |r: &Request| match r.path.as_str() {
            "/" => Reply::html(page.clone()),
            _ => Reply::not_found(),
        }
    })
    .await;
    let c = crawl(&CrawlConfig {
        max_depth: 0,
        ..config(server.port())
    })
    .await;
    assert_eq!(c.summary.status, AuditStatus::Finished);
    let root = c.store.urls(c.summary.audit).await.unwrap()[0].id;
    let links = c.store.links_from(c.summary.audit, root).await.unwrap();
    assert_eq!(links.len(), 5_000);
    let capped = c.errors("links_capped").await;
    assert_eq!(capped.len(), 1, "{capped:?}");
    assert!(
        capped[0].3.starts_with("5000 links not stored, "),
        "{}",
        capped[0].3
    );
    let bytes = c.file_bytes();
    let stored = c.store.audit(c.summary.audit).await.unwrap().stored_bytes;
    eprintln!("one hostile page: database {bytes} bytes, counted {stored} bytes");
    assert!(bytes < 3_000_000, "{bytes} bytes");
}

#[tokio::test]
async fn the_storage_budget_stops_the_crawl_and_keeps_what_it_fetched() {
    // Every page links to 200 new pages with 150-character anchors: ~70 KB a page.
    let server = Server::start(move |_| {
        move |r: &Request| {
            let n: usize = match r.path.as_str() {
                "/" => 0,
                p => match p.strip_prefix("/p/").and_then(|n| n.parse().ok()) {
                    Some(n) => n,
                    None => return Reply::not_found(),
                },
            };
            Reply::html(link_page(n * 200 + 1, 200, 150))
        }
    })
    .await;
    let budget = 4_000_000;
    let c = crawl(&CrawlConfig {
        max_db_bytes: budget,
        concurrency: 4,
        ..config(server.port())
    })
    .await;
    assert_eq!(c.summary.status, AuditStatus::Finished);
    let stop = c.summary.stop.clone().expect("a stop");
    assert_eq!(stop.reason, StopReason::MaxDbBytes);
    assert!(stop.detail.contains("over the budget of 4.0 MB"), "{stop}");
    assert!(stop.detail.contains("URLs left queued"), "{stop}");
    let row = c.store.audit(c.summary.audit).await.unwrap();
    assert_eq!(row.stop, Some(stop));
    // Stopped before the budget, the pages in flight and the log's room kept.
    assert!(row.stored_bytes > budget / 4 * 3, "{}", row.stored_bytes);
    // Everything fetched is kept; the rest is queued, not lost.
    let summary = c.store.audit_summary(c.summary.audit).await.unwrap();
    assert!(row.pages_fetched >= 20, "{}", row.pages_fetched);
    assert!(summary.states.queued > 1_000, "{:?}", summary.states);
    assert_eq!(summary.states.fetching, 0);
    // Stopped within a few pages of the budget, and the count is close to the file's
    // growth.
    let bytes = c.file_bytes();
    eprintln!(
        "storage budget {budget}: counted {}, database {bytes} bytes, {} pages",
        row.stored_bytes, row.pages_fetched
    );
    assert!(
        row.stored_bytes < budget + 1_000_000,
        "{}",
        row.stored_bytes
    );
    assert!(
        bytes < 2 * row.stored_bytes && row.stored_bytes < 2 * bytes,
        "counted {} vs file {bytes}",
        row.stored_bytes
    );
    // Not resumable: the budget is the audit's.
    let (progress, _rx) = watch::channel(Progress::default());
    let resumed = crawl::resume_audit(
        &c.store,
        c.summary.audit,
        &progress,
        &CancellationToken::new(),
    )
    .await;
    assert!(
        matches!(resumed, Err(crawl::CrawlError::AlreadyFinished(_))),
        "{resumed:?}"
    );
}

/// The storage budget holds on disk: the database file and its write-ahead log, sampled
/// every few milliseconds while the crawl runs, never grow more than a few percent past
/// the budget, and the crawl spends most of it.
#[tokio::test]
async fn the_storage_budget_holds_on_disk_with_the_write_ahead_log() {
    let server = Server::start(move |_| {
        move |r: &Request| {
            let n: usize = match r.path.as_str() {
                "/" => 0,
                p => match p.strip_prefix("/p/").and_then(|n| n.parse().ok()) {
                    Some(n) => n,
                    None => return Reply::not_found(),
                },
            };
            Reply::html(link_page(n * 200 + 1, 200, 150))
        }
    })
    .await;
    let budget: u64 = 8_000_000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.sqlite");
    let store = Store::open(&path).await.unwrap();
    let disk_bytes = {
        let path = path.clone();
        move || {
            ["", "-wal"]
                .iter()
                .filter_map(|suffix| std::fs::metadata(format!("{}{suffix}", path.display())).ok())
                .map(|m| m.len())
                .sum::<u64>()
        }
    };
    let before = disk_bytes();
    // Samples the file and its WAL until the crawl ends.
    let done = CancellationToken::new();
    let sampler = tokio::spawn({
        let (disk_bytes, done) = (disk_bytes.clone(), done.clone());
        async move {
            let mut peak = 0;
            while !done.is_cancelled() {
                peak = peak.max(disk_bytes());
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            peak.max(disk_bytes())
        }
    });
    let (progress, _rx) = watch::channel(Progress::default());
    let summary = crawl::start_audit(
        &store,
        &CrawlConfig {
            max_db_bytes: budget,
            concurrency: 4,
            ..config(server.port())
        },
        &progress,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    done.cancel();
    let peak = sampler.await.unwrap() - before;
    let after = disk_bytes() - before;
    let row = store.audit(summary.audit).await.unwrap();
    eprintln!(
        "storage budget {budget}: peak growth of file and WAL {peak} bytes, {after} after the \
         run, {} counted, {} pages",
        row.stored_bytes, row.pages_fetched
    );
    assert_eq!(summary.stop.map(|s| s.reason), Some(StopReason::MaxDbBytes));
    assert!(
        peak <= budget + budget / 20,
        "the file and its WAL grew by {peak} bytes, over {budget} + 5 %"
    );
    assert!(after <= peak);
    assert!(
        after >= budget * 3 / 4,
        "only {after} bytes of {budget} used"
    );
    // The audit's count covers what the file grew by (but the audit's last row updates).
    assert!(
        row.stored_bytes >= after / 100 * 99,
        "{} < {after}",
        row.stored_bytes
    );
}

/// Drip pages: each sends its body in 10 pieces 100 ms apart (a second a page) and links
/// to ten more.
fn drip_site(interval: Duration) -> impl Fn(&Request) -> Reply + Send + Sync + 'static {
    move |r: &Request| {
        let n: usize = match r.path.as_str() {
            "/" => 0,
            p => match p.strip_prefix("/p/").and_then(|n| n.parse().ok()) {
                Some(n) => n,
                None => return Reply::not_found(),
            },
        };
        Reply::Drip {
            body: link_page(n * 10 + 1, 10, 10).into_bytes(),
            steps: 10,
            interval,
        }
    }
}

#[tokio::test]
async fn the_duration_budget_stops_a_drip_site_and_a_resume_continues() {
    let server = Server::start(|_| drip_site(Duration::from_millis(100))).await;
    let config = CrawlConfig {
        max_duration_ms: 2_500,
        concurrency: 2,
        slow_host_ms: 0,
        ..config(server.port())
    };
    let started = std::time::Instant::now();
    let c = crawl(&config).await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(8), "{took:?}");
    assert_eq!(c.summary.status, AuditStatus::Finished);
    let stop = c.summary.stop.clone().expect("a stop");
    assert_eq!(stop.reason, StopReason::MaxDuration);
    assert!(
        stop.detail.starts_with("the run's budget of 2 s was spent"),
        "{stop}"
    );
    let first = c.store.audit(c.summary.audit).await.unwrap();
    assert!(first.pages_fetched >= 2, "{}", first.pages_fetched);
    assert_eq!(
        c.store
            .audit_summary(c.summary.audit)
            .await
            .unwrap()
            .states
            .fetching,
        0
    );

    // The budget is per run: a resume fetches more, and stops again.
    let (progress, _rx) = watch::channel(Progress::default());
    let again = crawl::resume_audit(
        &c.store,
        c.summary.audit,
        &progress,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(again.stop.map(|s| s.reason), Some(StopReason::MaxDuration));
    let second = c.store.audit(c.summary.audit).await.unwrap();
    assert!(second.pages_fetched > first.pages_fetched);
}

#[tokio::test]
async fn a_slow_host_is_cut_off_and_its_urls_stay_queued() {
    // 300 ms a page against a cut-off of 100 ms over 3 requests.
    let server = Server::start(|_| drip_site(Duration::from_millis(30))).await;
    let c = crawl(&CrawlConfig {
        slow_host_ms: 100,
        slow_host_window: 3,
        concurrency: 2,
        ..config(server.port())
    })
    .await;
    assert_eq!(c.summary.status, AuditStatus::Finished);
    let stop = c.summary.stop.clone().expect("a stop");
    assert_eq!(stop.reason, StopReason::SlowHost);
    assert!(
        stop.detail.starts_with(&format!(
            "host 127.0.0.1:{}: median response 0.",
            server.port()
        )),
        "{stop}"
    );
    let pages = server
        .log()
        .iter()
        .filter(|r| r.path != "/robots.txt")
        .count();
    assert!(pages <= 6, "{pages} pages requested");
    let summary = c.store.audit_summary(c.summary.audit).await.unwrap();
    assert!(summary.states.queued >= 10, "{:?}", summary.states);
    assert_eq!(summary.states.fetching, 0);
}

#[tokio::test]
async fn two_location_headers_are_an_error_row_not_a_url() {
    let server = Server::start(|_| {
        |r: &Request| match r.path.as_str() {
            "/" => Reply::html("<a href=\"/moved\">m</a>"),
            "/moved" => Reply::status(302, &[("Location", "/a"), ("Location", "/b")]),
            _ => Reply::html("<p>x</p>"),
        }
    })
    .await;
    let c = crawl(&config(server.port())).await;
    let errors = c.errors("multiple_locations").await;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].3.contains("2 Location headers (\"/a\", \"/b\")"),
        "{errors:?}"
    );
    assert!(
        server.log().iter().all(|r| !r.path.contains(',')
            && !r.path.contains("%20")
            && r.path != "/a"
            && r.path != "/b"),
        "{:?}",
        server.log()
    );
    let moved = c
        .store
        .urls(c.summary.audit)
        .await
        .unwrap()
        .into_iter()
        .find(|u| u.url.ends_with("/moved"))
        .unwrap();
    assert_eq!(moved.state, UrlState::Done);
    assert!(
        c.store
            .redirect_from(c.summary.audit, moved.id)
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn a_robots_txt_over_512_kib_is_an_issue_row_and_a_finding() {
    let mut robots = String::from("User-agent: *\nDisallow: /early\n");
    while robots.len() < 600 * 1024 {
        robots.push_str("# padding padding padding padding padding padding padding\n");
    }
    robots.push_str("Disallow: /late\n");
    let server = Server::start(move |_| {
        move |r: &Request| match r.path.as_str() {
            "/robots.txt" => Reply::bytes("text/plain", robots.clone().into_bytes()),
            "/" => Reply::html("<a href=\"/early\">e</a><a href=\"/late\">l</a>"),
            _ => Reply::html("<p>x</p>"),
        }
    })
    .await;
    let c = crawl(&config(server.port())).await;
    let rows = c.errors("too_large").await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].1, "robots");
    assert!(rows[0].3.contains("larger than 512 KiB"), "{rows:?}");
    // The first 512 KiB apply; the rest is not read.
    assert_eq!(server.count("127.0.0.1", "/early"), 0);
    assert_eq!(server.count("127.0.0.1", "/late"), 1);
    let input = load::load(&c.store, c.summary.audit).await.unwrap();
    let findings = audit::analyse(&input, &audit::AnalysisConfig::default()).findings;
    let f: Vec<_> = findings
        .iter()
        .filter(|f| f.id == audit::FindingId::RobotsTooLarge)
        .collect();
    assert_eq!(f.len(), 1, "{findings:#?}");
    assert_eq!(
        f[0].urls,
        [format!("http://127.0.0.1:{}/robots.txt", server.port())]
    );
}

#[tokio::test]
async fn a_sitemap_index_nested_too_deep_is_an_issue_row() {
    let server = Server::start(move |port| {
        move |r: &Request| {
            let index = |child: &str| {
                Reply::bytes(
                    "application/xml",
                    format!(
                        "<?xml version=\"1.0\"?><sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                         <sitemap><loc>http://127.0.0.1:{port}/{child}</loc></sitemap></sitemapindex>"
                    )
                    .into_bytes(),
                )
            };
            match r.path.as_str() {
                "/sitemap.xml" => index("s1.xml"),
                "/s1.xml" => index("s2.xml"),
                "/s2.xml" => index("s3.xml"),
                "/s3.xml" => index("s4.xml"),
                "/" => Reply::html("<p>home</p>"),
                _ => Reply::not_found(),
            }
        }
    })
    .await;
    let c = crawl(&CrawlConfig {
        default_sitemap: true,
        ..config(server.port())
    })
    .await;
    assert_eq!(server.count("127.0.0.1", "/s3.xml"), 1);
    assert_eq!(server.count("127.0.0.1", "/s4.xml"), 0);
    let rows = c.errors("index_too_deep").await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0].3.contains("/s3.xml: sitemap index nested more than 3 levels deep: its 1 child sitemaps were not read (first: http://127.0.0.1:"), "{rows:?}");
    let s3 = c
        .store
        .sitemaps(c.summary.audit)
        .await
        .unwrap()
        .into_iter()
        .find(|s| s.url.ends_with("/s3.xml"))
        .unwrap();
    assert!(
        s3.issues_json.contains("index_too_deep"),
        "{}",
        s3.issues_json
    );
}

#[tokio::test]
async fn a_crawl_capped_by_max_urls_records_where_it_stopped() {
    let server = Server::start(|_| drip_site(Duration::ZERO)).await;
    let c = crawl(&CrawlConfig {
        max_urls: 15,
        ..config(server.port())
    })
    .await;
    let stop = c.summary.stop.clone().expect("a stop");
    assert_eq!(stop.reason, StopReason::MaxUrls);
    assert!(
        stop.detail
            .starts_with("the audit holds its maximum of 15 URLs (--max-urls); "),
        "{stop}"
    );
    // A complete crawl records no stop.
    let c = crawl(&CrawlConfig {
        max_depth: 1,
        ..config(server.port())
    })
    .await;
    let stop = c.summary.stop.clone().expect("a stop");
    assert_eq!(stop.reason, StopReason::MaxDepth);
    assert!(
        stop.detail
            .starts_with("100 URLs deeper than 1 link hops were not crawled"),
        "{stop}"
    );
}

#[tokio::test]
async fn the_duration_budget_cancels_a_discovery_request_in_flight() {
    // robots.txt sends its head, then nothing: discovery waits on it.
    let server = Server::start(|_| {
        |r: &Request| match r.path.as_str() {
            "/robots.txt" => Reply::Hang,
            _ => Reply::html("<p>x</p>"),
        }
    })
    .await;
    let config = CrawlConfig {
        max_duration_ms: 1_000,
        read_timeout_ms: 60_000,
        total_timeout_ms: 60_000,
        ..config(server.port())
    };
    let started = std::time::Instant::now();
    let c = crawl(&config).await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "the run took {took:?}");
    let stop = c.summary.stop.clone().expect("a stop");
    assert_eq!(stop.reason, StopReason::MaxDuration);
    // Discovery is done again by the next run.
    let row = c.store.audit(c.summary.audit).await.unwrap();
    assert!(!row.discovery_done);
}

/// A site whose sitemaps list many more URLs than the audit may hold: the entries past
/// the limit are counted in their sitemap's issues, not stored as entries and URLs.
#[tokio::test]
async fn sitemap_entries_past_max_urls_are_counted_not_stored() {
    const SITEMAPS: usize = 5;
    const ENTRIES: usize = 2_000;
    let server = Server::start(|port| {
        move |r: &Request| {
            let base = format!("http://127.0.0.1:{port}");
            match r.path.as_str() {
                "/robots.txt" => Reply::bytes(
                    "text/plain",
                    format!("Sitemap: {base}/index.xml\n").into_bytes(),
                ),
                "/index.xml" => {
                    let children: String = (0..SITEMAPS)
                        .map(|i| format!("<sitemap><loc>{base}/s{i}.xml</loc></sitemap>"))
                        .collect();
                    Reply::bytes(
                        "application/xml",
                        format!("<?xml version=\"1.0\"?><sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{children}</sitemapindex>").into_bytes(),
                    )
                }
                p if p.starts_with("/s") && p.ends_with(".xml") => {
                    let i = &p[2..p.len() - 4];
                    // The home page is listed too: its entry is kept in every sitemap.
                    let mut locs = format!("<url><loc>{base}/</loc></url>");
                    for n in 0..ENTRIES {
                        locs.push_str(&format!("<url><loc>{base}/p/{i}-{n}</loc></url>"));
                    }
                    Reply::bytes(
                        "application/xml",
                        format!("<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{locs}</urlset>").into_bytes(),
                    )
                }
                _ => Reply::html("<p>x</p>"),
            }
        }
    })
    .await;
    let c = crawl(&CrawlConfig {
        max_urls: 100,
        probe_variants: false,
        ..config(server.port())
    })
    .await;
    let urls = c.store.urls(c.summary.audit).await.unwrap();
    assert!(urls.len() < ENTRIES, "{} URL rows", urls.len());
    let sitemaps = c.store.sitemaps(c.summary.audit).await.unwrap();
    let mut stored = 0;
    let mut counted = 0;
    for s in &sitemaps {
        let entries = c
            .store
            .sitemap_entries(c.summary.audit, s.id)
            .await
            .unwrap();
        stored += entries.len();
        if s.issues_json.contains("entries_not_stored") {
            counted += 1;
            assert!(
                entries.iter().all(|e| e.url_id.is_some()),
                "kept entries are those of known URLs"
            );
            assert!(
                entries
                    .iter()
                    .any(|e| e.loc_raw.ends_with(":/") || e.loc_raw.ends_with('/')),
                "the home page's entry is kept"
            );
        }
    }
    assert!(counted >= SITEMAPS - 1, "{sitemaps:#?}");
    assert!(stored < 2 * ENTRIES + SITEMAPS, "{stored} entries stored");

    // No URL limit to speak of, and a storage budget the sitemaps alone would spend:
    // they get their share of it, the pages the rest.
    let c = crawl(&CrawlConfig {
        max_urls: 1_000_000,
        max_db_bytes: 1_000_000,
        probe_variants: false,
        ..config(server.port())
    })
    .await;
    let sitemaps = c.store.sitemaps(c.summary.audit).await.unwrap();
    let counted = sitemaps
        .iter()
        .filter(|s| s.issues_json.contains("share (40 %) of the storage budget"))
        .count();
    assert!(counted >= SITEMAPS - 2, "{sitemaps:#?}");
    assert!(
        c.summary.fetched > 100,
        "{} pages fetched, {:?}, file {} bytes, counted {}",
        c.summary.fetched,
        c.summary.stop,
        c.file_bytes(),
        c.store.audit(c.summary.audit).await.unwrap().stored_bytes
    );
}

/// The port of the site a child process crawls in
/// [`pages_in_flight_fit_the_memory_budget`].
const MEMORY_CHILD: &str = "DUSTPAN_MEMORY_TEST_PORT";

/// The budget docs/performance.md states for pages in flight: `--concurrency` bodies at the
/// response cap, plus the parse of at most 16 MiB of HTML at once, plus the process.
const MEMORY_BUDGET_MIB: u64 = 320;

/// Eight pages of 11 MiB each (cut at the 10 MiB response cap), each a hostile mix of
/// links and short paragraphs, crawled 8 at a time: the crawling process's peak resident
/// memory (VmHWM, read by the process itself, without the server's) stays within the
/// stated budget.
#[test]
fn pages_in_flight_fit_the_memory_budget() {
    if let Ok(port) = std::env::var(MEMORY_CHILD) {
        return crawl_for_peak_memory(port.parse().unwrap());
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(Server::start(|_| {
        |r: &Request| match r.path.as_str() {
            "/" => Reply::html(
                (0..8)
                    .map(|i| format!("<a href=\"/big/{i}\">page {i}</a>\n"))
                    .collect::<String>(),
            ),
            p if p.starts_with("/big/") => Reply::Stream {
                headers: vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
                chunk: b"<div class=\"card\"><p>The quick brown fox jumps over the lazy dog \
                         while auditors count pages.</p><a href=\"/deep/1\">one</a> \
                         <a href=\"/deep/2?x=1\">two</a><span>3</span></div>\n"
                    .to_vec(),
                total: 11 << 20,
            },
            _ => Reply::not_found(),
        }
    }));
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "pages_in_flight_fit_the_memory_budget",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(MEMORY_CHILD, server.port().to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let peak_kib: u64 = stdout
        .lines()
        .find_map(|l| l.split("peak resident KiB: ").nth(1))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak in:\n{stdout}"));
    eprintln!(
        "8 pages of 10 MiB at concurrency 8: peak resident {} MiB (budget {MEMORY_BUDGET_MIB} MiB)",
        peak_kib / 1024
    );
    assert!(
        peak_kib / 1024 <= MEMORY_BUDGET_MIB,
        "peak resident {} MiB over {MEMORY_BUDGET_MIB} MiB",
        peak_kib / 1024
    );
    assert!(
        server
            .log()
            .iter()
            .filter(|r| r.path.starts_with("/big/"))
            .count()
            >= 8,
        "every large page requested"
    );
}

/// The child's side: crawls the parent's site and prints its own peak resident memory.
fn crawl_for_peak_memory(port: u16) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let c = crawl(&CrawlConfig {
            concurrency: 8,
            max_depth: 1,
            probe_variants: false,
            ..config(port)
        })
        .await;
        assert_eq!(c.summary.status, AuditStatus::Finished);
    });
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let peak = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .map(|v| v.trim().trim_end_matches("kB").trim().to_owned())
        .unwrap();
    println!("peak resident KiB: {peak}");
}
