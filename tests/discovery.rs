//! How the crawl finds URLs beyond followed `<a>` links, on the fixture: nofollow links
//! are followed by default (`--no-follow-nofollow` restores the old behaviour), and the
//! URLs a page declares (shortlink, og:url, JSON-LD) are crawled, stored with their
//! kind, clustered with their page, and never a link finding.

use std::collections::HashMap;
use std::time::Duration;

use fixture::FixtureConfig;
use fixture::answers::{self, SiteVariant};
use store::{FoundVia, ReasonKind, UrlState};

use crate::util::{Site, Snapshot, audit_id, path, read_csv, run};

const START: &str = "https://example.test/";

/// `dustpan audit` of the fixture (with `extra` options) into the site's database.
fn audit(site: &Site, extra: &[&str]) -> store::AuditId {
    let mut options = vec![
        "-q",
        "--include-subdomains",
        "--sitemap",
        "https://blog.example.test/sitemap.xml",
        "--trap-budget",
        "40",
        "--max-response-bytes",
        "2000000",
        // Every duplicate fetched (the crawl's own DUST rules would spare some).
        "--no-dust-learning",
    ];
    options.extend_from_slice(extra);
    let out = run(&site.audit_args(START, &options));
    assert_eq!(
        out.code, 0,
        "dustpan audit failed:\n{}{}",
        out.stdout, out.stderr
    );
    audit_id(&out.stdout)
}

/// `dustpan report ID`'s output.
fn report(site: &Site, id: store::AuditId) -> String {
    let out = run(&[
        "report".to_owned(),
        id.0.to_string(),
        "--db".to_owned(),
        path(&site.db),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
}

/// The fixture's news posts, and the URLs around each (print view, og:url, shortlink,
/// JSON-LD url), as the answers state them.
struct Post {
    url: &'static str,
    print: String,
    og: String,
    shortlink: String,
    json_ld: String,
}

fn posts() -> Vec<Post> {
    answers::news_posts(SiteVariant::Before)
        .into_iter()
        .map(|(url, _)| Post {
            url,
            print: format!("{url}{}", answers::PRINT_QUERY),
            og: format!("{url}{}", answers::SHARE_QUERY),
            shortlink: format!(
                "https://example.test/?p={}",
                answers::shortlink_id(url).unwrap()
            ),
            json_ld: url.replacen("https://", "http://", 1),
        })
        .collect()
}

#[test]
fn nofollow_and_declared_urls_are_crawled_clustered_and_no_link_finding() {
    let site = Site::start(FixtureConfig {
        hostile: false,
        slow_delay: Duration::from_millis(50),
        ..FixtureConfig::default()
    });
    let facts = answers::site(SiteVariant::Before);
    let posts = posts();
    let prints = facts
        .urls
        .iter()
        .filter(|f| f.url.ends_with(answers::PRINT_QUERY))
        .count();
    assert_eq!(prints, posts.len());

    // The default: nofollow links are followed.
    let id = audit(&site, &[]);
    let store = site.store();
    let snap = site.rt.block_on(Snapshot::load_full(&store, id));
    let out = site.server.requests();
    let requests = |url: &str| out.iter().filter(|r| r.url() == url).count();
    for p in &posts {
        let row = snap.url(&p.print);
        assert_eq!(
            (row.state, row.found_via),
            (UrlState::Done, FoundVia::Link),
            "{}",
            p.print
        );
        assert_eq!(requests(&p.print), 1, "{}", p.print);
        let post_links = &snap.links[&snap.url(p.url).id];
        let link_to = |url: &str| {
            let to = snap.url(url).id;
            post_links
                .iter()
                .find(|l| l.to == Some(to))
                .unwrap_or_else(|| panic!("{} has no link to {url}", p.url))
        };
        let print = link_to(&p.print);
        assert!(print.nofollow && print.tag == "a", "{print:?}");
        // The declared URLs: fetched once, stored as links tagged with their kind.
        for (url, tag) in [
            (&p.og, "og_url"),
            (&p.shortlink, "shortlink"),
            (&p.json_ld, "structured_data"),
        ] {
            assert_eq!(snap.url(url).state, UrlState::Done, "{url}");
            assert_eq!(requests(url), 1, "{url}");
            let l = link_to(url);
            assert_eq!((l.tag.as_str(), l.nofollow), (tag, false), "{url}");
        }
    }

    // The report counts the duplicates reached only through nofollow links.
    let text = report(&site, id);
    // The print views and the blog's reply-to-comment pages (rel=nofollow reply links).
    let replies = facts
        .urls
        .iter()
        .filter(|f| f.url.contains("?replytocom=") && f.duplicate_of.is_some())
        .count();
    let line = format!(
        "  {} duplicate URLs were reached only through nofollow links",
        prints + replies
    );
    assert!(text.lines().any(|l| l == line), "no {line:?} in:\n{text}");

    // The exports: each URL in its post's cluster, where it came from, no link finding.
    let dir = tempfile::tempdir().unwrap();
    let export = run(&[
        "export".to_owned(),
        id.0.to_string(),
        "--db".to_owned(),
        path(&site.db),
        "--out".to_owned(),
        path(dir.path()),
    ]);
    assert_eq!(export.code, 0, "{}", export.stderr);
    let clusters = read_csv(&dir.path().join("clusters.csv"));
    let member: HashMap<&str, &HashMap<String, String>> = clusters
        .iter()
        .map(|r| (r["Address"].as_str(), r))
        .collect();
    let pages = read_csv(&dir.path().join("pages.csv"));
    let found_via: HashMap<&str, &str> = pages
        .iter()
        .map(|r| (r["Address"].as_str(), r["Found Via"].as_str()))
        .collect();
    for p in &posts {
        for (url, via, nofollow_only) in [
            (p.print.as_str(), "nofollow link", "yes"),
            (p.og.as_str(), "og:url", ""),
            (p.shortlink.as_str(), "shortlink", ""),
            (p.json_ld.as_str(), "structured data", ""),
        ] {
            let m = member
                .get(url)
                .unwrap_or_else(|| panic!("{url} is in no cluster"));
            assert_eq!(m["Preferred URL"], p.url, "{url}");
            assert_eq!(m["Reached Only Via Nofollow"], nofollow_only, "{url}");
            assert_eq!(found_via.get(url).copied(), Some(via), "{url}");
        }
    }
    assert_eq!(found_via.get(START).copied(), Some("start"));
    let findings = read_csv(&dir.path().join("findings.csv"));
    for f in &findings {
        if !(f["Finding"].starts_with("LINK-") || f["Finding"] == "CANON-LINKED") {
            continue;
        }
        for p in &posts {
            for url in [&p.og, &p.shortlink, &p.json_ld] {
                let named = f["Addresses"].lines().any(|a| a == url.as_str())
                    || f["Key"].contains(url.as_str());
                assert!(!named, "{} names the declared {url}: {f:?}", f["Finding"]);
            }
        }
    }
    let non_preferred = read_csv(&dir.path().join("links_to_non_preferred.csv"));
    for p in &posts {
        for url in [&p.og, &p.shortlink, &p.json_ld] {
            assert!(
                !non_preferred.iter().any(|r| r["Destination"] == *url),
                "{url} in links_to_non_preferred.csv"
            );
        }
    }
    site.rt.block_on(store.close());

    // --no-follow-nofollow: the print views are recorded, not fetched.
    let before = site.server.requests().len();
    let id = audit(&site, &["--no-follow-nofollow"]);
    let store = site.store();
    let snap = site.rt.block_on(Snapshot::load(&store, id));
    let out = site.server.requests().split_off(before);
    for p in &posts {
        let row = snap.url(&p.print);
        assert_eq!(row.state, UrlState::Skipped, "{}", p.print);
        assert_eq!(
            row.reason.as_ref().map(|r| r.kind),
            Some(ReasonKind::Nofollow),
            "{}",
            p.print
        );
        assert!(
            !out.iter().any(|r| r.url() == p.print),
            "{} requested",
            p.print
        );
        // Declarations are no nofollow links: still crawled.
        assert_eq!(snap.url(&p.shortlink).state, UrlState::Done);
    }
    let text = report(&site, id);
    assert!(!text.contains("reached only through nofollow"), "{text}");
    site.rt.block_on(store.close());
}
