//! Verification verdicts on live answers built by hand: each planned redirect,
//! canonical and sitemap line is done, missing, wrong, harmful or not checked.

use audit::verify::{Verdict, audited_origins, judge, plan_requests};
use audit::{
    AuditInput, CanonicalRow, CanonicalTag, FetchRow, FixFiles, RedirectLine, RedirectRow,
    SitemapChange, SitemapEntryRow, SitemapRow, UrlRow,
};

fn url(id: u32, u: &str) -> UrlRow {
    UrlRow {
        id,
        url: u.into(),
        ..UrlRow::default()
    }
}

fn answer(id: u32, status: u16) -> FetchRow {
    FetchRow {
        url_id: id,
        status: Some(status),
        ..FetchRow::default()
    }
}

fn hop(from: u32, to: u32, status: u16) -> RedirectRow {
    RedirectRow {
        from,
        to: Some(to),
        status,
        ..RedirectRow::default()
    }
}

fn line(source: &str, target: &str) -> RedirectLine {
    RedirectLine {
        source: format!("https://s.test{source}"),
        target: format!("https://s.test{target}"),
        status: 301,
        today: None,
    }
}

const SITEMAP: &str = "https://s.test/sitemap.xml";

/// The live site: /done redirects to /a as planned, /kept still answers 200, /other
/// goes elsewhere, /chain takes two hops, /broken now answers 500, /to-gone redirects
/// to a 404, /temp answers 302; /a carries the planned canonical, /b none, /c another;
/// the sitemap lists /a and /old.
fn live() -> AuditInput {
    let paths = [
        "/done", "/kept", "/other", "/chain", "/broken", "/to-gone", "/temp", "/a", "/b", "/c",
        "/gone", "/mid", "/old",
    ];
    let urls: Vec<UrlRow> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| url(i as u32 + 1, &format!("https://s.test{p}")))
        .collect();
    AuditInput {
        urls,
        fetches: vec![
            answer(1, 301),
            answer(2, 200),
            answer(3, 301),
            answer(4, 301),
            answer(5, 500),
            answer(6, 301),
            answer(7, 302),
            answer(8, 200),
            answer(9, 200),
            answer(10, 200),
            answer(11, 404),
            answer(12, 301),
        ],
        redirects: vec![
            hop(1, 8, 301),
            hop(3, 9, 301),
            hop(4, 12, 301),
            hop(12, 8, 301),
            hop(6, 11, 301),
            hop(7, 8, 302),
        ],
        canonicals: vec![
            CanonicalRow {
                page: 8,
                position: 0,
                target: Some(8),
                href_raw: String::new(),
                source: Default::default(),
                in_head: true,
            },
            CanonicalRow {
                page: 10,
                position: 0,
                target: Some(9),
                href_raw: String::new(),
                source: Default::default(),
                in_head: true,
            },
        ],
        sitemaps: vec![SitemapRow {
            id: 1,
            url: SITEMAP.into(),
            status: Some(200),
            ..SitemapRow::default()
        }],
        sitemap_entries: vec![
            SitemapEntryRow {
                sitemap_id: 1,
                url_id: Some(8),
                loc_raw: String::new(),
            },
            SitemapEntryRow {
                sitemap_id: 1,
                url_id: Some(13),
                loc_raw: String::new(),
            },
        ],
        ..AuditInput::default()
    }
}

fn plan() -> FixFiles {
    let canonical = |page: &str, href: &str| CanonicalTag {
        page: format!("https://s.test{page}"),
        href: format!("https://s.test{href}"),
        present: false,
    };
    let change = |loc: &str, with: Option<&str>| SitemapChange {
        sitemap: SITEMAP.into(),
        loc: format!("https://s.test{loc}"),
        with: with.map(|w| format!("https://s.test{w}")),
    };
    FixFiles {
        redirects: vec![
            line("/done", "/a"),
            line("/kept", "/a"),
            line("/other", "/a"),
            line("/chain", "/a"),
            line("/broken", "/a"),
            line("/to-gone", "/a"),
            line("/temp", "/a"),
            line("/unseen", "/a"),
            RedirectLine {
                source: "https://elsewhere.test/x".into(),
                target: "https://s.test/a".into(),
                status: 301,
                today: None,
            },
        ],
        canonicals: vec![
            canonical("/a", "/a"),
            canonical("/b", "/a"),
            canonical("/c", "/a"),
            canonical("/gone", "/a"),
        ],
        sitemap_add: vec![change("/a", None), change("/b", None)],
        sitemap_remove: vec![change("/old", None), change("/mid", Some("/a"))],
        ..FixFiles::default()
    }
}

#[test]
fn every_line_gets_its_verdict() {
    let checks = judge(&plan(), &live());
    let verdict = |url: &str| {
        let url = if url.starts_with("https://") {
            url.to_owned()
        } else {
            format!("https://s.test{url}")
        };
        checks
            .iter()
            .filter(|c| c.url == url)
            .map(|c| (c.kind.as_str(), c.verdict))
            .collect::<Vec<_>>()
    };
    assert_eq!(verdict("/done"), [("redirect", Verdict::Done)]);
    assert_eq!(verdict("/kept"), [("redirect", Verdict::Missing)]);
    assert_eq!(verdict("/other"), [("redirect", Verdict::Wrong)]);
    assert_eq!(verdict("/chain"), [("redirect", Verdict::Wrong)]);
    assert_eq!(verdict("/broken"), [("redirect", Verdict::Harmful)]);
    assert_eq!(verdict("/to-gone"), [("redirect", Verdict::Harmful)]);
    assert_eq!(verdict("/temp"), [("redirect", Verdict::Wrong)]);
    assert_eq!(verdict("/unseen"), [("redirect", Verdict::NotChecked)]);
    assert_eq!(
        verdict("https://elsewhere.test/x"),
        [("redirect", Verdict::NotChecked)]
    );
    assert_eq!(
        verdict("/a"),
        [("canonical", Verdict::Done), ("sitemap_add", Verdict::Done)]
    );
    assert_eq!(
        verdict("/b"),
        [
            ("canonical", Verdict::Missing),
            ("sitemap_add", Verdict::Missing)
        ]
    );
    assert_eq!(verdict("/c"), [("canonical", Verdict::Wrong)]);
    assert_eq!(verdict("/gone"), [("canonical", Verdict::Harmful)]);
    assert_eq!(verdict("/old"), [("sitemap_remove", Verdict::Missing)]);
    assert_eq!(verdict("/mid"), [("sitemap_replace", Verdict::Done)]);
    let chain = checks.iter().find(|c| c.url.ends_with("/chain")).unwrap();
    assert_eq!(
        chain.found,
        "301 to https://s.test/mid, then 301 to https://s.test/a"
    );
    let gone = checks.iter().find(|c| c.url.ends_with("/to-gone")).unwrap();
    assert_eq!(gone.found, "301 to https://s.test/gone, which answers 404");
}

#[test]
fn only_the_audits_own_origins_are_requested() {
    let requests = plan_requests(&plan(), &audited_origins(&live()));
    assert!(
        requests
            .urls
            .iter()
            .all(|u| u.starts_with("https://s.test/"))
    );
    assert_eq!(requests.outside, 1, "https://elsewhere.test/x");
    assert_eq!(requests.sitemaps, [SITEMAP]);
    // Each URL once, though /a is a redirect target and a canonical page.
    let mut sorted = requests.urls.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), requests.urls.len());
}
