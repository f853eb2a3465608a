//! URLs a page declares (shortlink, alternates, amphtml, og:url, structured data, the
//! `Link:` header) are crawled like links and stored as links tagged with their kind;
//! nofollow links are followed unless the configuration says not to.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use crawl::CrawlConfig;
use store::{ReasonKind, UrlState};
use support::{Reply, Request, Server, crawl, urls};

fn config(server: &Server) -> CrawlConfig {
    let port = server.port();
    CrawlConfig {
        start_urls: vec![format!("http://example.test:{port}/")],
        resolve: vec![format!("example.test:{port}:127.0.0.1")],
        default_sitemap: false,
        connect_timeout_ms: 2_000,
        read_timeout_ms: 2_000,
        total_timeout_ms: 5_000,
        ..CrawlConfig::default()
    }
}

fn site(port: u16) -> impl Fn(&Request) -> Reply + Send + Sync + 'static {
    let origin = format!("http://example.test:{port}");
    move |r: &Request| {
        match r.path.as_str() {
        "/robots.txt" => Reply::bytes("text/plain", b"User-agent: *\nDisallow: /private\n".to_vec()),
        "/" => Reply::Full {
            status: 200,
            headers: vec![
                ("Content-Type".into(), "text/html".into()),
                (
                    "Link".into(),
                    "</header-next>; rel=next, </>; rel=canonical, </fr/>; rel=alternate; hreflang=fr"
                        .into(),
                ),
            ],
            body: format!(
                r#"<html><head>
                <link rel="shortlink" href="/?p=7">
                <link rel="alternate" type="application/rss+xml" href="/feed/">
                <link rel="amphtml" href="/amp/">
                <meta property="og:url" content="{origin}/?utm_source=share">
                <script type="application/ld+json">{{"@id": "{origin}/#website",
                  "url": "{origin}/ld", "publisher": {{"url": "/private/logo"}}}}</script>
                </head><body>
                <a href="/nf" rel="nofollow">nofollow</a>
                <a href="/amp/">AMP, linked too</a>
                </body></html>"#
            )
            .into_bytes(),
        },
        "/nf" | "/feed/" | "/amp/" | "/ld" | "/header-next" | "/fr/" => {
            Reply::html("<html><body>page</body></html>")
        }
        _ if r.path == "/?p=7" => Reply::status(301, &[("Location", "/")]),
        _ if r.path == "/?utm_source=share" => Reply::html(format!(
            r#"<html><head><link rel="canonical" href="{origin}/"></head></html>"#
        )),
        _ => Reply::not_found(),
    }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_urls_are_crawled_and_stored_with_their_kind() {
    let server = Server::start(site).await;
    let config = config(&server);
    assert!(
        config.follow_nofollow,
        "nofollow links are followed by default"
    );
    let origin = format!("http://example.test:{}", server.port());
    let (_dir, store, summary) = crawl(&config).await;
    let urls = urls(&store, &summary).await;
    let at = |path: &str| {
        urls.get(&format!("{origin}{path}"))
            .unwrap_or_else(|| panic!("no URL {path}"))
    };
    // Every declared URL is fetched, once, and so is the nofollow link's target.
    for path in [
        "/?p=7",
        "/feed/",
        "/amp/",
        "/?utm_source=share",
        "/ld",
        "/header-next",
        "/nf",
    ] {
        assert_eq!(at(path).state, UrlState::Done, "{path}");
        assert_eq!(server.count("example.test", path), 1, "{path}");
    }
    // robots.txt applies to declared URLs as to links.
    assert_eq!(at("/private/logo").state, UrlState::Blocked);
    assert_eq!(server.count("example.test", "/private/logo"), 0);

    // Stored as links of the home page, tagged with their kind, after its anchors.
    let home = at("/").id;
    let links = store.links_from(summary.audit, home).await.unwrap();
    let got: Vec<(&str, &str, bool)> = links
        .iter()
        .map(|l| (l.tag.as_str(), l.href_raw.as_str(), l.nofollow))
        .collect();
    let og = format!("{origin}/?utm_source=share");
    let ld = format!("{origin}/ld");
    let website = format!("{origin}/#website");
    assert_eq!(
        got,
        [
            ("a", "/nf", true),
            ("a", "/amp/", false),
            ("shortlink", "/?p=7", false),
            ("alternate", "/feed/", false),
            ("amphtml", "/amp/", false),
            ("og_url", og.as_str(), false),
            ("structured_data", website.as_str(), false),
            ("structured_data", ld.as_str(), false),
            ("structured_data", "/private/logo", false),
            ("link_header", "/header-next", false),
        ]
    );
    // The URL already known from the <a> is not queued again: one URL row per URL.
    assert_eq!(
        links
            .iter()
            .filter(|l| l.href_raw == "/amp/")
            .map(|l| l.to)
            .collect::<Vec<_>>(),
        [Some(at("/amp/").id); 2]
    );
    // The JSON-LD @id of the page itself is the page (its fragment dropped).
    assert_eq!(links[6].to, Some(home));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nofollow_links_are_not_crawled_when_the_configuration_says_so() {
    let server = Server::start(site).await;
    let config = CrawlConfig {
        follow_nofollow: false,
        ..config(&server)
    };
    let origin = format!("http://example.test:{}", server.port());
    let (_dir, store, summary) = crawl(&config).await;
    let urls = urls(&store, &summary).await;
    let nf = &urls[&format!("{origin}/nf")];
    assert_eq!(nf.state, UrlState::Skipped);
    assert_eq!(
        nf.reason.as_ref().map(|r| r.kind),
        Some(ReasonKind::Nofollow)
    );
    assert_eq!(server.count("example.test", "/nf"), 0);
    // Declared URLs carry no nofollow: still crawled.
    assert_eq!(urls[&format!("{origin}/?p=7")].state, UrlState::Done);
}

/// A page whose robots meta tag says nofollow, linking to `/behind`, with a
/// rel=nofollow link to `/hinted` on the home page.
fn nofollow_page_site(_port: u16) -> impl Fn(&Request) -> Reply + Send + Sync + 'static {
    |r: &Request| match r.path.as_str() {
        "/" => Reply::html(
            r#"<html><body><a href="/search?q=a">search</a>
            <a href="/hinted" rel="nofollow">hinted</a></body></html>"#,
        ),
        "/search?q=a" => Reply::html(
            r#"<html><head><meta name="robots" content="noindex,nofollow"></head>
            <body><a href="/behind">next</a></body></html>"#,
        ),
        "/hinted" | "/behind" => Reply::html("<html><body>page</body></html>"),
        _ => Reply::not_found(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nofollow_page_keeps_its_links_uncrawled_unless_asked() {
    let server = Server::start(nofollow_page_site).await;
    let origin = format!("http://example.test:{}", server.port());

    // By default the rel=nofollow link (a hint) is followed and the page-level
    // directive (a rule) is obeyed.
    let (_dir, store, summary) = crawl(&config(&server)).await;
    let found = urls(&store, &summary).await;
    assert_eq!(found[&format!("{origin}/hinted")].state, UrlState::Done);
    let behind = &found[&format!("{origin}/behind")];
    assert_eq!(behind.state, UrlState::Skipped);
    assert_eq!(
        behind.reason.as_ref().map(|r| r.kind),
        Some(ReasonKind::Nofollow)
    );
    assert_eq!(server.count("example.test", "/behind"), 0);

    let config = CrawlConfig {
        follow_nofollow_pages: true,
        ..config(&server)
    };
    let (_dir, store, summary) = crawl(&config).await;
    let found = urls(&store, &summary).await;
    assert_eq!(found[&format!("{origin}/behind")].state, UrlState::Done);
    assert_eq!(server.count("example.test", "/behind"), 1);
}
