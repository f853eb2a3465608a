//! Hostile sites against an internal service. Loopback servers only (127.0.0.1:0): the
//! audited site tries every route to make the crawler request another port of the
//! machine (the "internal service", standing in for an admin panel or a cloud metadata
//! endpoint) and store its answer: a robots.txt `Sitemap:` line, a sitemap index's child,
//! a robots.txt redirect, links / redirects / canonicals / hreflang / sitemap entries,
//! a host name mapped to the internal port, DUST validation samples. The internal service
//! must receive no request, nothing of its answer may be stored, and what was refused
//! must read the same whether the port is open or closed (no port scan by report).
//! A site audited on loopback on purpose, and a cross-host sitemap on an allowed host,
//! still work.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::path::Path;

use crawl::{CancellationToken, CrawlConfig, CrawlSummary, Progress};
use store::{AuditStatus, ReasonKind, SitemapRow, Store, UrlRow, UrlState};
use support::{Reply, Request, Server};
use tokio::sync::watch;

/// What the internal service answers, on every path: a text sitemap, a robots.txt and a
/// page at once, so that whatever reads it would store some of it.
const SECRET: &str = "INTERNAL-SERVICE-SECRET";

fn secret_body() -> Vec<u8> {
    format!(
        "User-agent: *\nDisallow: /{SECRET}-path\nSitemap: http://{SECRET}.test/s.xml\n\
         http://{SECRET}.test/a\n<html><title>{SECRET}</title><a href=\"/{SECRET}\">x</a></html>\n"
    )
    .into_bytes()
}

/// The internal service: answers everything with [`SECRET`].
async fn internal_service() -> Server {
    Server::start(|_| |_: &Request| Reply::bytes("text/plain", secret_body())).await
}

/// A port nothing listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn timeouts(config: CrawlConfig) -> CrawlConfig {
    CrawlConfig {
        connect_timeout_ms: 2_000,
        read_timeout_ms: 2_000,
        total_timeout_ms: 5_000,
        ..config
    }
}

struct Crawled {
    dir: tempfile::TempDir,
    store: Store,
    summary: CrawlSummary,
}

async fn crawl(config: &CrawlConfig) -> Crawled {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("audit.sqlite")).await.unwrap();
    let (progress, _rx) = watch::channel(Progress::default());
    let summary = crawl::start_audit(&store, config, &progress, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(summary.status, AuditStatus::Finished);
    Crawled {
        dir,
        store,
        summary,
    }
}

fn file_contains(path: &Path, needle: &[u8]) -> bool {
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    bytes.windows(needle.len()).any(|w| w == needle)
}

impl Crawled {
    async fn urls(&self) -> Vec<UrlRow> {
        self.store.urls(self.summary.audit).await.unwrap()
    }

    async fn url(&self, url: &str) -> UrlRow {
        self.urls()
            .await
            .into_iter()
            .find(|u| u.url == url)
            .unwrap_or_else(|| panic!("no URL {url}"))
    }

    async fn sitemaps(&self) -> Vec<SitemapRow> {
        self.store.sitemaps(self.summary.audit).await.unwrap()
    }

    async fn sitemap(&self, url: &str) -> SitemapRow {
        let all = self.sitemaps().await;
        all.iter()
            .find(|s| s.url == url)
            .cloned()
            .unwrap_or_else(|| panic!("no sitemap {url}: {all:#?}"))
    }

    async fn findings(&self) -> Vec<audit::Finding> {
        let input = load::load(&self.store, self.summary.audit).await.unwrap();
        audit::analyse(&input, &audit::AnalysisConfig::default()).findings
    }

    /// Prints what was refused toward the internal service's port (see it with
    /// `--nocapture`): the figures of this suite.
    async fn figures(&self, route: &str, internal: u16) {
        let port = format!(":{internal}/");
        let urls = self
            .urls()
            .await
            .into_iter()
            .filter(|u| u.url.contains(&port) && u.state == UrlState::Skipped)
            .count();
        let sitemaps = self
            .sitemaps()
            .await
            .into_iter()
            .filter(|s| s.url.contains(&port) && s.status.is_none())
            .count();
        let robots = self
            .store
            .robots(self.summary.audit)
            .await
            .unwrap()
            .into_iter()
            .filter(|r| r.error.as_deref().is_some_and(|e| e.contains(&port)))
            .count();
        eprintln!(
            "{route}: refused toward the internal port: {urls} URLs (skipped), {sitemaps} \
             sitemaps (unread), {robots} robots.txt redirects; summary: scope_refused {}, \
             address_refused {}",
            self.summary.scope_refused, self.summary.address_refused
        );
    }

    /// Nothing the internal service said is in the database (its files, WAL included),
    /// the stored records or the findings.
    async fn assert_nothing_of(&self, needle: &str) {
        let robots = self.store.robots(self.summary.audit).await.unwrap();
        let text = format!(
            "{robots:?}\n{:?}\n{:?}\n{:?}\n{:?}",
            self.sitemaps().await,
            self.urls().await,
            self.store.errors(self.summary.audit).await.unwrap(),
            self.findings().await
        );
        assert!(!text.contains(needle), "{needle} stored: {text}");
        for entry in std::fs::read_dir(self.dir.path()).unwrap() {
            let path = entry.unwrap().path();
            assert!(
                !file_contains(&path, needle.as_bytes()),
                "{needle} in {}",
                path.display()
            );
        }
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

fn sitemap_index(locs: &[String]) -> Reply {
    let mut xml = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#,
    );
    for loc in locs {
        xml.push_str(&format!("<sitemap><loc>{loc}</loc></sitemap>"));
    }
    xml.push_str("</sitemapindex>");
    Reply::bytes("application/xml", xml.into_bytes())
}

/// A small site at `origin`: `/` links to `/a`, `/a` back; robots.txt carries
/// `robots_extra`; `special` answers first.
fn site(
    origin: String,
    robots_extra: String,
    special: impl Fn(&str) -> Option<Reply> + Send + Sync + 'static,
) -> impl Fn(&Request) -> Reply + Send + Sync + 'static {
    move |r: &Request| {
        if let Some(reply) = special(&r.path) {
            return reply;
        }
        match r.path.as_str() {
            "/robots.txt" => Reply::bytes(
                "text/plain",
                format!("User-agent: *\nDisallow: /private\n{robots_extra}").into_bytes(),
            ),
            "/" => Reply::html(format!(
                r#"<html><head><title>Home</title></head><body><a href="{origin}/a">A</a></body></html>"#
            )),
            "/a" => Reply::html(r#"<html><body><a href="/">home</a></body></html>"#),
            _ => Reply::not_found(),
        }
    }
}

/// The site audited on loopback on purpose: `http://127.0.0.1:PORT/`.
fn loopback_config(port: u16) -> CrawlConfig {
    timeouts(CrawlConfig::for_url(&format!("http://127.0.0.1:{port}/")))
}

/// The site under a name (`http://example.test:PORT/`, mapped to 127.0.0.1 by
/// `--resolve`), with `more` overrides.
fn named_config(port: u16, more: &[String]) -> CrawlConfig {
    let mut resolve = vec![format!("example.test:{port}:127.0.0.1")];
    resolve.extend(more.iter().cloned());
    timeouts(CrawlConfig {
        resolve,
        ..CrawlConfig::for_url(&format!("http://example.test:{port}/"))
    })
}

fn assert_untouched(internal: &Server) {
    assert!(
        internal.log().is_empty(),
        "the internal service was requested: {:?}",
        internal.log()
    );
}

/// The sitemap was not requested: no status, an error, and an issue saying why.
fn assert_refused(row: &SitemapRow, reason: &str) {
    assert_eq!((row.status, row.entries), (None, 0), "{row:?}");
    assert!(
        row.error.as_deref().is_some_and(|e| e.contains(reason)),
        "{row:?}"
    );
    assert!(row.issues_json.contains(reason), "{row:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_txt_sitemap_lines_on_another_port_are_not_requested() {
    let internal = internal_service().await;
    let int = internal.port();
    let server = Server::start(|port| {
        site(
            format!("http://127.0.0.1:{port}"),
            format!(
                "Sitemap: http://127.0.0.1:{int}/declared.xml\n\
                 Sitemap: http://[::1]:{int}/v6.xml\n\
                 Sitemap: http://127.0.0.1:{port}/own.xml\n"
            ),
            move |path| {
                (path == "/own.xml").then(|| urlset(&[format!("http://127.0.0.1:{port}/a")]))
            },
        )
    })
    .await;
    let port = server.port();
    let crawled = crawl(&loopback_config(port)).await;
    assert_untouched(&internal);
    crawled.figures("robots.txt Sitemap: lines", int).await;
    crawled.assert_nothing_of(SECRET).await;

    assert_refused(
        &crawled
            .sitemap(&format!("http://127.0.0.1:{int}/declared.xml"))
            .await,
        "out_of_scope",
    );
    // Another address of the machine, not the audit's: the address policy.
    assert_refused(
        &crawled.sitemap(&format!("http://[::1]:{int}/v6.xml")).await,
        "address_refused",
    );
    // The site itself, audited on loopback on purpose, works.
    let own = crawled
        .sitemap(&format!("http://127.0.0.1:{port}/own.xml"))
        .await;
    assert_eq!((own.status, own.entries), (Some(200), 1), "{own:?}");
    let a = crawled.url(&format!("http://127.0.0.1:{port}/a")).await;
    assert_eq!(a.state, UrlState::Done);
    assert!(
        crawled.summary.address_refused >= 1,
        "{:?}",
        crawled.summary
    );
    assert!(crawled.summary.scope_refused >= 1, "{:?}", crawled.summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sitemap_naming_a_host_that_resolves_to_loopback_is_refused_on_its_address() {
    // `localhost` is resolved by the system (to 127.0.0.1 and perhaps ::1): not one of
    // the audit's own addresses, whatever the name.
    let internal = internal_service().await;
    let int = internal.port();
    let server = Server::start(|port| {
        site(
            format!("http://127.0.0.1:{port}"),
            format!("Sitemap: http://localhost:{int}/by-name.xml\n"),
            |_| None,
        )
    })
    .await;
    let crawled = crawl(&loopback_config(server.port())).await;
    assert_untouched(&internal);
    crawled
        .figures("robots.txt Sitemap: line by name (DNS)", int)
        .await;
    crawled.assert_nothing_of(SECRET).await;
    let row = crawled
        .sitemap(&format!("http://localhost:{int}/by-name.xml"))
        .await;
    assert_refused(&row, "address_refused");
    assert_eq!(crawled.summary.address_refused, 1, "{:?}", crawled.summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sitemap_index_child_on_another_port_is_not_requested() {
    let internal = internal_service().await;
    let int = internal.port();
    let server = Server::start(|port| {
        let origin = format!("http://127.0.0.1:{port}");
        site(origin.clone(), String::new(), move |path| match path {
            "/sitemap.xml" => Some(sitemap_index(&[
                format!("{origin}/pages.xml"),
                format!("http://127.0.0.1:{int}/child.xml"),
                format!("http://localhost:{int}/child-by-name.xml"),
            ])),
            "/pages.xml" => Some(urlset(&[format!("{origin}/a")])),
            _ => None,
        })
    })
    .await;
    let port = server.port();
    let crawled = crawl(&loopback_config(port)).await;
    assert_untouched(&internal);
    crawled.figures("sitemap index children", int).await;
    crawled.assert_nothing_of(SECRET).await;
    let index = crawled
        .sitemap(&format!("http://127.0.0.1:{port}/sitemap.xml"))
        .await;
    assert_eq!(index.kind, "sitemapindex");
    let child = crawled
        .sitemap(&format!("http://127.0.0.1:{int}/child.xml"))
        .await;
    assert_refused(&child, "out_of_scope");
    assert_eq!(child.parent_id, Some(index.id));
    let by_name = crawled
        .sitemap(&format!("http://localhost:{int}/child-by-name.xml"))
        .await;
    assert_refused(&by_name, "out_of_scope");
    let pages = crawled
        .sitemap(&format!("http://127.0.0.1:{port}/pages.xml"))
        .await;
    assert_eq!((pages.status, pages.entries), (Some(200), 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_robots_txt_redirect_to_another_port_is_not_followed() {
    let internal = internal_service().await;
    let int = internal.port();
    let server = Server::start(|port| {
        site(
            format!("http://127.0.0.1:{port}"),
            String::new(),
            move |path| {
                (path == "/robots.txt").then(|| {
                    Reply::status(
                        301,
                        &[("Location", &format!("http://127.0.0.1:{int}/robots.txt"))],
                    )
                })
            },
        )
    })
    .await;
    let port = server.port();
    let crawled = crawl(&loopback_config(port)).await;
    assert_untouched(&internal);
    crawled.figures("robots.txt redirect", int).await;
    crawled.assert_nothing_of(SECRET).await;
    let robots = crawled.store.robots(crawled.summary.audit).await.unwrap();
    let own = robots
        .iter()
        .find(|r| r.origin == format!("http://127.0.0.1:{port}"))
        .unwrap();
    assert_eq!(
        (own.status, own.body.as_deref()),
        (Some(301), None),
        "{own:?}"
    );
    assert!(
        own.error.as_deref().is_some_and(|e| e.contains("scope")),
        "{own:?}"
    );
    // No rules: the site is crawled.
    let a = crawled.url(&format!("http://127.0.0.1:{port}/a")).await;
    assert_eq!(a.state, UrlState::Done);
    assert!(crawled.summary.scope_refused >= 1, "{:?}", crawled.summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_redirects_declarations_and_entries_to_another_port_are_out_of_scope() {
    let internal = internal_service().await;
    let int = internal.port();
    let other = format!("http://127.0.0.1:{int}");
    let server = Server::start(|port| {
        let origin = format!("http://127.0.0.1:{port}");
        let other = other.clone();
        site(origin.clone(), String::new(), move |path| match path {
            "/" => Some(Reply::html(format!(
                r#"<html><head><title>Home</title>
                <link rel="canonical" href="{other}/canonical">
                <link rel="alternate" hreflang="de" href="{other}/de">
                </head><body>
                <a href="{origin}/a">A</a> <a href="{other}/linked">internal</a>
                <a href="/go">redirect</a> <a href="/refresh">refresh</a>
                </body></html>"#
            ))),
            "/go" => Some(Reply::status(
                302,
                &[("Location", &format!("{other}/redirected"))],
            )),
            "/refresh" => Some(Reply::html(format!(
                r#"<html><head><meta http-equiv="refresh" content="0; url={other}/refreshed"></head></html>"#
            ))),
            "/sitemap.xml" => Some(urlset(&[
                format!("{origin}/a"),
                format!("{other}/listed"),
            ])),
            _ => None,
        })
    })
    .await;
    let port = server.port();
    let crawled = crawl(&loopback_config(port)).await;
    assert_untouched(&internal);
    crawled
        .figures("links, redirects, declarations, entries", int)
        .await;
    crawled.assert_nothing_of(SECRET).await;
    for path in [
        "/canonical",
        "/de",
        "/linked",
        "/redirected",
        "/refreshed",
        "/listed",
    ] {
        let row = crawled.url(&format!("{other}{path}")).await;
        assert_eq!(
            (row.state, row.reason.as_ref().map(|r| r.kind)),
            (UrlState::Skipped, Some(ReasonKind::OutOfScope)),
            "{path}"
        );
    }
    let a = crawled.url(&format!("http://127.0.0.1:{port}/a")).await;
    assert_eq!(a.state, UrlState::Done);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_name_mapped_to_the_internal_port_is_not_requested() {
    // The tester's --resolve puts `internal.test` on the internal port: the site links
    // to it and declares a sitemap there, and a sitemap on its own host's other port.
    let internal = internal_service().await;
    let int = internal.port();
    let server = Server::start(|port| {
        site(
            format!("http://example.test:{port}"),
            format!(
                "Sitemap: http://internal.test:{int}/declared.xml\n\
                 Sitemap: http://example.test:{int}/same-host.xml\n"
            ),
            move |path| {
                (path == "/").then(|| {
                    Reply::html(format!(
                        r#"<html><body><a href="/a">A</a>
                        <a href="http://internal.test:{int}/linked">internal</a>
                        <a href="http://example.test:{int}/other-port">other port</a></body></html>"#
                    ))
                })
            },
        )
    })
    .await;
    let port = server.port();
    let config = named_config(port, &[format!("internal.test:{int}:127.0.0.1")]);
    let crawled = crawl(&config).await;
    assert_untouched(&internal);
    crawled
        .figures("a name mapped to the internal port", int)
        .await;
    crawled.assert_nothing_of(SECRET).await;
    for url in [
        format!("http://internal.test:{int}/linked"),
        format!("http://example.test:{int}/other-port"),
    ] {
        let row = crawled.url(&url).await;
        assert_eq!(
            (row.state, row.reason.as_ref().map(|r| r.kind)),
            (UrlState::Skipped, Some(ReasonKind::OutOfScope)),
            "{url}"
        );
    }
    assert_refused(
        &crawled
            .sitemap(&format!("http://internal.test:{int}/declared.xml"))
            .await,
        "address_refused",
    );
    assert_refused(
        &crawled
            .sitemap(&format!("http://example.test:{int}/same-host.xml"))
            .await,
        "out_of_scope",
    );
    let a = crawled.url(&format!("http://example.test:{port}/a")).await;
    assert_eq!(a.state, UrlState::Done);
}

/// The rows and findings of one audit of the site whose robots.txt names sitemaps on
/// `target`'s port, with that port written as `PORT`.
async fn refused_report(target: u16) -> String {
    let server = Server::start(move |port| {
        site(
            format!("http://127.0.0.1:{port}"),
            format!(
                "Sitemap: http://127.0.0.1:{target}/s.xml\n\
                 Sitemap: http://localhost:{target}/s.xml\n"
            ),
            |_| None,
        )
    })
    .await;
    let crawled = crawl(&loopback_config(server.port())).await;
    let mut text = String::new();
    for s in crawled.sitemaps().await {
        if s.url.contains(&format!(":{target}/")) {
            text.push_str(&format!(
                "{} {:?} {:?} {} {}\n",
                s.url, s.status, s.error, s.issues_json, s.entries
            ));
        }
    }
    for f in crawled.findings().await {
        if f.urls.iter().any(|u| u.contains(&format!(":{target}/"))) {
            text.push_str(&format!("{f:?}\n"));
        }
    }
    text.replace(&target.to_string(), "PORT")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_sitemap_reads_the_same_whether_the_port_is_open_or_closed() {
    let internal = internal_service().await;
    let open = refused_report(internal.port()).await;
    let closed = refused_report(closed_port()).await;
    assert_untouched(&internal);
    assert!(!open.is_empty());
    assert_eq!(
        open, closed,
        "the report tells an open port from a closed one"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cross_host_sitemap_on_an_allowed_host_is_read_for_its_in_scope_urls() {
    // robots.txt names a sitemap on a CDN host (mapped by the tester to the site's own
    // address): it is read, its in-scope URLs crawled, the others recorded out of scope.
    let server = Server::start(|port| {
        let origin = format!("http://example.test:{port}");
        let cdn = format!("http://cdn.test:{port}");
        let handler = site(
            origin.clone(),
            format!("Sitemap: {cdn}/sitemaps/main.xml\n"),
            |_| None,
        );
        move |r: &Request| {
            if r.host == "cdn.test" {
                return match r.path.as_str() {
                    "/sitemaps/main.xml" => urlset(&[
                        format!("{origin}/a"),
                        format!("{origin}/listed"),
                        format!("{cdn}/asset"),
                    ]),
                    _ => Reply::not_found(),
                };
            }
            handler(r)
        }
    })
    .await;
    let port = server.port();
    let config = named_config(port, &[format!("cdn.test:{port}:127.0.0.1")]);
    let crawled = crawl(&config).await;
    let row = crawled
        .sitemap(&format!("http://cdn.test:{port}/sitemaps/main.xml"))
        .await;
    assert_eq!(
        (row.status, row.entries, row.error.as_deref()),
        (Some(200), 3, None),
        "{row:?}"
    );
    let listed = crawled
        .url(&format!("http://example.test:{port}/listed"))
        .await;
    assert_eq!(listed.state, UrlState::Done);
    let asset = crawled.url(&format!("http://cdn.test:{port}/asset")).await;
    assert_eq!(
        (asset.state, asset.reason.as_ref().map(|r| r.kind)),
        (UrlState::Skipped, Some(ReasonKind::OutOfScope))
    );
    let cdn: Vec<_> = server
        .log()
        .into_iter()
        .filter(|r| r.host == "cdn.test")
        .map(|r| r.path)
        .collect();
    assert_eq!(cdn, ["/sitemaps/main.xml"]);
    assert_eq!(crawled.summary.address_refused, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dust_samples_on_another_port_are_refused() {
    let internal = internal_service().await;
    let int = internal.port();
    let server =
        Server::start(|port| site(format!("http://127.0.0.1:{port}"), String::new(), |_| None))
            .await;
    let port = server.port();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("sample.sqlite"))
        .await
        .unwrap();
    let config = loopback_config(port);
    let audit = crawl::create_audit(&store, &config).await.unwrap();
    let urls = vec![
        format!("http://127.0.0.1:{port}/a"),
        format!("http://127.0.0.1:{int}/a"),
        format!("http://localhost:{int}/a"),
    ];
    let got = crawl::fetch_samples(&store, audit, &config, &urls)
        .await
        .unwrap();
    let seen: Vec<(Option<u16>, Option<&str>)> = got
        .iter()
        .map(|s| (s.status, s.error_kind.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [
            (Some(200), None),
            (None, Some("out_of_scope")),
            (None, Some("out_of_scope")),
        ]
    );
    assert_untouched(&internal);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_port_puts_every_port_of_the_audited_host_in_scope() {
    let second =
        Server::start(|port| site(format!("http://127.0.0.1:{port}"), String::new(), |_| None))
            .await;
    let two = second.port();
    let server = Server::start(|port| {
        site(format!("http://127.0.0.1:{port}"), String::new(), move |path| {
            (path == "/").then(|| {
                Reply::html(format!(
                    r#"<html><body><a href="/a">A</a> <a href="http://127.0.0.1:{two}/a">two</a></body></html>"#
                ))
            })
        })
    })
    .await;
    let port = server.port();
    let crawled = crawl(&CrawlConfig {
        any_port: true,
        ..loopback_config(port)
    })
    .await;
    let row = crawled.url(&format!("http://127.0.0.1:{two}/a")).await;
    assert_eq!(row.state, UrlState::Done);
    assert_eq!(second.count("127.0.0.1", "/a"), 1);
}
