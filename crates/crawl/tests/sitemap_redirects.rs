//! Sitemap locations that redirect, and the conventional `/sitemap.xml` the crawler
//! guesses: crawls of loopback sites (127.0.0.1:0 only) into temporary SQLite files, then
//! the audit's findings on what was stored.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use crawl::{CancellationToken, CrawlConfig, CrawlSummary, Progress};
use store::{AuditStatus, SitemapRow, Store, UrlState};
use support::{Reply, Request, Server};
use tokio::sync::watch;

/// A config for `http://example.test:PORT/` with `example.test`, its `www.` twin and the
/// out-of-scope `other.test` all pointed at the server.
fn config(port: u16) -> CrawlConfig {
    CrawlConfig {
        start_urls: vec![format!("http://example.test:{port}/")],
        resolve: vec![
            format!("example.test:{port}:127.0.0.1"),
            format!("www.example.test:{port}:127.0.0.1"),
            format!("other.test:{port}:127.0.0.1"),
        ],
        connect_timeout_ms: 2_000,
        read_timeout_ms: 2_000,
        total_timeout_ms: 5_000,
        ..CrawlConfig::default()
    }
}

struct Crawled {
    _dir: tempfile::TempDir,
    store: Store,
    summary: CrawlSummary,
    origin: String,
}

impl Crawled {
    async fn sitemaps(&self) -> Vec<SitemapRow> {
        self.store.sitemaps(self.summary.audit).await.unwrap()
    }

    async fn sitemap(&self, path: &str) -> SitemapRow {
        let url = format!("{}{path}", self.origin);
        self.sitemaps()
            .await
            .into_iter()
            .find(|s| s.url == url)
            .unwrap_or_else(|| panic!("no sitemap {url}"))
    }

    /// The URLs a sitemap's entries resolved to.
    async fn entry_urls(&self, sitemap: &SitemapRow) -> Vec<String> {
        let urls = self.store.urls(self.summary.audit).await.unwrap();
        let entries = self
            .store
            .sitemap_entries(self.summary.audit, sitemap.id)
            .await
            .unwrap();
        entries
            .iter()
            .map(|e| {
                let id = e.url_id.expect("entry resolved");
                urls.iter().find(|u| u.id == id).unwrap().url.clone()
            })
            .collect()
    }

    async fn state(&self, path: &str) -> Option<UrlState> {
        let url = format!("{}{path}", self.origin);
        self.store
            .urls(self.summary.audit)
            .await
            .unwrap()
            .into_iter()
            .find(|u| u.url == url)
            .map(|u| u.state)
    }

    /// The audit's findings on what the crawl stored.
    async fn findings(&self) -> Vec<audit::Finding> {
        let input = load::load(&self.store, self.summary.audit).await.unwrap();
        audit::analyse(&input, &audit::AnalysisConfig::default()).findings
    }

    /// Findings about sitemap files (not about the pages they list): the SITEMAP-*
    /// findings naming a sitemap URL of the audit.
    async fn sitemap_file_findings(&self) -> Vec<audit::Finding> {
        let sitemaps: Vec<String> = self.sitemaps().await.into_iter().map(|s| s.url).collect();
        self.findings()
            .await
            .into_iter()
            .filter(|f| {
                f.id.code().starts_with("SITEMAP-") && f.urls.iter().any(|u| sitemaps.contains(u))
            })
            .collect()
    }
}

async fn crawl(config: &CrawlConfig, origin: String) -> Crawled {
    crawl_ending(config, origin, AuditStatus::Finished).await
}

/// A crawl that ends with `status`.
async fn crawl_ending(config: &CrawlConfig, origin: String, status: AuditStatus) -> Crawled {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("audit.sqlite")).await.unwrap();
    let (progress, _rx) = watch::channel(Progress::default());
    let summary = crawl::start_audit(&store, config, &progress, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(summary.status, status, "{:?}", summary.failure);
    Crawled {
        _dir: dir,
        store,
        summary,
        origin,
    }
}

fn urlset(locs: &[String]) -> Reply {
    let mut xml = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#,
    );
    for loc in locs {
        xml.push_str(&format!("<url><loc>{loc}</loc></url>"));
    }
    xml.push_str("</urlset>");
    Reply::bytes("application/xml", xml.into_bytes())
}

/// A small site on `example.test` (its `www.` twin redirects to it): `/` links to `/a`
/// and `/b`; robots.txt carries `robots_extra`; `special` answers first.
fn site(
    port: u16,
    robots_extra: String,
    special: impl Fn(&str, &str) -> Option<Reply> + Send + Sync + 'static,
) -> impl Fn(&Request) -> Reply + Send + Sync + 'static {
    let origin = format!("http://example.test:{port}");
    move |r: &Request| {
        if let Some(reply) = special(&r.host, &r.path) {
            return reply;
        }
        if r.host == "www.example.test" {
            return Reply::status(301, &[("Location", &format!("{origin}{}", r.path))]);
        }
        if r.host != "example.test" {
            return Reply::not_found();
        }
        match r.path.as_str() {
            "/robots.txt" => Reply::bytes(
                "text/plain",
                format!("User-agent: *\nDisallow: /private\n{robots_extra}").into_bytes(),
            ),
            "/" => Reply::html(
                r#"<html><head><title>Home</title></head><body>
                <a href="/a">A</a> <a href="/b">B</a></body></html>"#,
            ),
            "/a" | "/b" => Reply::html(r#"<html><body><a href="/">home</a></body></html>"#),
            _ => Reply::not_found(),
        }
    }
}

fn is_serious(f: &audit::Finding) -> bool {
    matches!(
        f.severity,
        audit::Severity::Error | audit::Severity::Warning
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guessed_sitemap_that_redirects_is_read_at_its_target() {
    let server = Server::start(|port| {
        let origin = format!("http://example.test:{port}");
        let body = [
            format!("{origin}/"),
            format!("{origin}/a"),
            format!("{origin}/b"),
        ];
        site(port, String::new(), move |host, path| {
            (host == "example.test").then_some(())?;
            match path {
                // What a blog CMS does out of the box.
                "/sitemap.xml" => Some(Reply::status(302, &[("Location", "/wp-sitemap.xml")])),
                "/wp-sitemap.xml" => Some(urlset(&body)),
                _ => None,
            }
        })
    })
    .await;
    let port = server.port();
    let crawled = crawl(&config(port), format!("http://example.test:{port}")).await;
    let origin = &crawled.origin;

    let sitemap = crawled.sitemap("/sitemap.xml").await;
    assert_eq!(
        (
            sitemap.status,
            sitemap.kind.as_str(),
            sitemap.error.as_deref(),
            sitemap.found_via.as_str()
        ),
        (Some(200), "urlset", None, "default"),
        "{sitemap:?}"
    );
    // The redirect is recorded with its status and where it led.
    assert!(
        sitemap.issues_json.contains("redirected")
            && sitemap.issues_json.contains("302")
            && sitemap
                .issues_json
                .contains(&format!("{origin}/wp-sitemap.xml")),
        "{}",
        sitemap.issues_json
    );
    assert_eq!(
        crawled.entry_urls(&sitemap).await,
        [
            format!("{origin}/"),
            format!("{origin}/a"),
            format!("{origin}/b")
        ]
    );
    assert_eq!(crawled.state("/b").await, Some(UrlState::Done));
    assert_eq!(server.count("example.test", "/wp-sitemap.xml"), 1);

    let about_sitemaps = crawled.sitemap_file_findings().await;
    assert!(
        !about_sitemaps.iter().any(is_serious),
        "{about_sitemaps:#?}"
    );
    let notice: Vec<_> = about_sitemaps
        .iter()
        .filter(|f| f.id.code() == "SITEMAP-LOCATION-REDIRECT")
        .collect();
    assert_eq!(notice.len(), 1, "{about_sitemaps:#?}");
    assert_eq!(notice[0].severity, audit::Severity::Notice);
    assert_eq!(
        notice[0].urls,
        [
            format!("{origin}/sitemap.xml"),
            format!("{origin}/wp-sitemap.xml")
        ]
    );
    // The pages the sitemap lists are listed: none is "missing from the sitemaps".
    let findings = crawled.findings().await;
    assert!(
        !findings.iter().any(|f| f.id.code() == "SITEMAP-MISSING"),
        "{findings:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declared_sitemap_redirecting_within_scope_is_followed_through_hops() {
    // robots.txt names the sitemap on the www twin, which redirects to the bare host,
    // where it moved once more.
    let server = Server::start(|port| {
        let origin = format!("http://example.test:{port}");
        let body = [format!("{origin}/"), format!("{origin}/a")];
        site(
            port,
            format!("Sitemap: http://www.example.test:{port}/old-sitemap.xml\n"),
            move |host, path| {
                (host == "example.test").then_some(())?;
                match path {
                    "/old-sitemap.xml" => {
                        Some(Reply::status(301, &[("Location", "/sitemaps/main.xml")]))
                    }
                    "/sitemaps/main.xml" => Some(urlset(&body)),
                    _ => None,
                }
            },
        )
    })
    .await;
    let port = server.port();
    let crawled = crawl(&config(port), format!("http://example.test:{port}")).await;
    let origin = &crawled.origin;
    let sitemap = crawled
        .sitemaps()
        .await
        .into_iter()
        .find(|s| s.url == format!("http://www.example.test:{port}/old-sitemap.xml"))
        .unwrap();
    assert_eq!(
        (
            sitemap.status,
            sitemap.kind.as_str(),
            sitemap.error.as_deref()
        ),
        (Some(200), "urlset", None),
        "{sitemap:?}"
    );
    assert!(
        sitemap
            .issues_json
            .contains(&format!("{origin}/sitemaps/main.xml")),
        "{}",
        sitemap.issues_json
    );
    assert_eq!(
        crawled.entry_urls(&sitemap).await,
        [format!("{origin}/"), format!("{origin}/a")]
    );
    let about_sitemaps = crawled.sitemap_file_findings().await;
    assert!(
        !about_sitemaps.iter().any(is_serious),
        "{about_sitemaps:#?}"
    );
    assert!(
        about_sitemaps
            .iter()
            .any(|f| f.id.code() == "SITEMAP-LOCATION-REDIRECT"
                && f.severity == audit::Severity::Notice),
        "{about_sitemaps:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guessed_sitemap_redirecting_to_a_declared_one_reads_it_once() {
    // WordPress: robots.txt names wp-sitemap.xml and /sitemap.xml redirects to it.
    let server = Server::start(|port| {
        let origin = format!("http://example.test:{port}");
        let body = [format!("{origin}/"), format!("{origin}/a")];
        site(
            port,
            format!("Sitemap: {origin}/wp-sitemap.xml\n"),
            move |host, path| {
                (host == "example.test").then_some(())?;
                match path {
                    "/sitemap.xml" => Some(Reply::status(301, &[("Location", "/wp-sitemap.xml")])),
                    "/wp-sitemap.xml" => Some(urlset(&body)),
                    _ => None,
                }
            },
        )
    })
    .await;
    let port = server.port();
    let crawled = crawl(&config(port), format!("http://example.test:{port}")).await;
    assert_eq!(server.count("example.test", "/wp-sitemap.xml"), 1);
    let declared = crawled.sitemap("/wp-sitemap.xml").await;
    assert_eq!((declared.status, declared.entries), (Some(200), 2));
    let guessed = crawled.sitemap("/sitemap.xml").await;
    assert_eq!(guessed.entries, 0, "{guessed:?}");
    assert!(guessed.issues_json.contains("redirected"), "{guessed:?}");
    let about_sitemaps = crawled.sitemap_file_findings().await;
    assert!(about_sitemaps.is_empty(), "{about_sitemaps:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guessed_sitemap_that_is_missing_or_not_a_sitemap_is_no_error() {
    for (name, reply) in [
        ("404", Reply::not_found as fn() -> Reply),
        ("410", || Reply::status(410, &[])),
        ("no answer", || Reply::Close),
        ("HTML page", || {
            Reply::html("<!DOCTYPE html><html><body><form>Log in</form></body></html>")
        }),
    ] {
        let server = Server::start(|port| {
            site(port, String::new(), move |host, path| {
                (host == "example.test" && path == "/sitemap.xml").then(reply)
            })
        })
        .await;
        let port = server.port();
        let crawled = crawl(&config(port), format!("http://example.test:{port}")).await;
        // The crawler still records what it found there.
        let guessed = crawled.sitemap("/sitemap.xml").await;
        assert_eq!(guessed.found_via, "default", "{name}");
        let about_sitemaps = crawled.sitemap_file_findings().await;
        assert!(
            !about_sitemaps.iter().any(is_serious),
            "{name}: {about_sitemaps:#?}"
        );
        if name != "HTML page" {
            // Nothing there: the site simply has no sitemap at that address.
            assert!(about_sitemaps.is_empty(), "{name}: {about_sitemaps:#?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_that_does_not_answer_has_no_sitemap_finding() {
    // A port nothing listens on.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let origin = format!("http://127.0.0.1:{port}");
    let config = CrawlConfig {
        start_urls: vec![format!("{origin}/")],
        connect_timeout_ms: 2_000,
        read_timeout_ms: 2_000,
        total_timeout_ms: 5_000,
        ..CrawlConfig::default()
    };
    // Nothing answered: the audit failed (and says why), and no finding blames a
    // sitemap the crawler only guessed.
    let crawled = crawl_ending(&config, origin, AuditStatus::Failed).await;
    assert!(
        crawled
            .summary
            .failure
            .as_deref()
            .is_some_and(|f| f.contains("could not be audited")),
        "{:?}",
        crawled.summary.failure
    );
    let guessed = crawled.sitemap("/sitemap.xml").await;
    assert_eq!(guessed.status, None);
    let findings = crawled.findings().await;
    assert!(
        !findings.iter().any(|f| f.id.code().starts_with("SITEMAP-")),
        "{findings:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declared_sitemap_that_is_missing_keeps_its_error() {
    let server = Server::start(|port| {
        let origin = format!("http://example.test:{port}");
        // /declared.xml and /sitemap.xml both answer 404.
        site(port, format!("Sitemap: {origin}/declared.xml\n"), |_, _| {
            None
        })
    })
    .await;
    let port = server.port();
    let crawled = crawl(&config(port), format!("http://example.test:{port}")).await;
    let origin = &crawled.origin;
    let about_sitemaps = crawled.sitemap_file_findings().await;
    let invalid: Vec<_> = about_sitemaps
        .iter()
        .filter(|f| f.id.code() == "SITEMAP-INVALID")
        .collect();
    assert_eq!(invalid.len(), 1, "{about_sitemaps:#?}");
    assert_eq!(invalid[0].severity, audit::Severity::Error);
    assert_eq!(invalid[0].urls, [format!("{origin}/declared.xml")]);
    assert!(
        invalid[0].evidence.iter().any(|e| e.contains("404")),
        "{:?}",
        invalid[0].evidence
    );
    // The guessed /sitemap.xml (404 too) is nothing.
    assert_eq!(about_sitemaps.len(), 1, "{about_sitemaps:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_out_of_scope_is_not_followed() {
    let server = Server::start(|port| {
        let origin = format!("http://example.test:{port}");
        let other = format!("http://other.test:{port}");
        let body = [format!("{origin}/"), format!("{origin}/a")];
        site(
            port,
            format!("Sitemap: {origin}/declared.xml\n"),
            move |host, path| match (host, path) {
                ("example.test", "/sitemap.xml") => Some(Reply::status(
                    302,
                    &[("Location", &format!("{other}/guessed.xml"))],
                )),
                ("example.test", "/declared.xml") => Some(Reply::status(
                    301,
                    &[("Location", &format!("{other}/declared.xml"))],
                )),
                ("other.test", _) => Some(urlset(&body)),
                _ => None,
            },
        )
    })
    .await;
    let port = server.port();
    let crawled = crawl(&config(port), format!("http://example.test:{port}")).await;
    assert!(
        !server.log().iter().any(|r| r.host == "other.test"),
        "{:?}",
        server.log()
    );
    for path in ["/sitemap.xml", "/declared.xml"] {
        let sitemap = crawled.sitemap(path).await;
        assert_eq!(sitemap.entries, 0, "{sitemap:?}");
        assert!(
            matches!(sitemap.status, Some(301 | 302)),
            "{path}: {sitemap:?}"
        );
        let error = sitemap.error.clone().unwrap_or_default();
        assert!(
            error.contains("other.test") && error.contains("scope"),
            "{path}: {sitemap:?}"
        );
    }
    let about_sitemaps = crawled.sitemap_file_findings().await;
    // The declared sitemap cannot be read: today's error. The guessed one is at most a
    // notice.
    let serious: Vec<_> = about_sitemaps.iter().filter(|f| is_serious(f)).collect();
    assert_eq!(serious.len(), 1, "{about_sitemaps:#?}");
    assert_eq!(serious[0].id.code(), "SITEMAP-INVALID");
    assert_eq!(
        serious[0].urls[0],
        format!("{}/declared.xml", crawled.origin)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirect_loops_and_long_chains_stop() {
    let server = Server::start(|port| {
        let origin = format!("http://example.test:{port}");
        site(
            port,
            format!("Sitemap: {origin}/loop.xml\nSitemap: {origin}/chain/0.xml\n"),
            move |host, path| {
                (host == "example.test").then_some(())?;
                if path == "/loop.xml" {
                    return Some(Reply::status(302, &[("Location", "/loop2.xml")]));
                }
                if path == "/loop2.xml" {
                    return Some(Reply::status(302, &[("Location", "/loop.xml")]));
                }
                let n: u32 = path
                    .strip_prefix("/chain/")?
                    .strip_suffix(".xml")?
                    .parse()
                    .ok()?;
                Some(Reply::status(
                    301,
                    &[("Location", &format!("/chain/{}.xml", n + 1))],
                ))
            },
        )
    })
    .await;
    let port = server.port();
    let crawled = crawl(&config(port), format!("http://example.test:{port}")).await;
    let looped = crawled.sitemap("/loop.xml").await;
    assert!(
        looped.error.as_deref().is_some_and(|e| e.contains("loop")),
        "{looped:?}"
    );
    assert_eq!(server.count("example.test", "/loop.xml"), 1);
    let chain = crawled.sitemap("/chain/0.xml").await;
    assert!(
        chain
            .error
            .as_deref()
            .is_some_and(|e| e.contains("redirects")),
        "{chain:?}"
    );
    // The first request and at most 5 redirects.
    let requested = server
        .log()
        .iter()
        .filter(|r| r.path.starts_with("/chain/"))
        .count();
    assert_eq!(requested, 6);
    // Both are declared: both cannot be read, as before.
    let invalid = crawled
        .sitemap_file_findings()
        .await
        .into_iter()
        .filter(|f| f.id.code() == "SITEMAP-INVALID")
        .count();
    assert_eq!(invalid, 2);
}
