//! `<urlset>` sitemaps: fields, validation, extensions, limits, positions.

mod common;

use std::ops::ControlFlow;

use common::*;
use sitemap::{ChangeFreq, IssueKind, Item, Limits, Position, SitemapKind};

#[test]
fn reads_all_fields() {
    let p = parse(
        urlset(
            "<url><loc>https://example.com/</loc><lastmod>2024-05-01T10:00:00+02:00</lastmod>\
             <changefreq>daily</changefreq><priority>0.8</priority></url>\
             <url><loc>https://example.com/b</loc></url>",
        )
        .as_bytes(),
    );
    assert_eq!(p.kind, SitemapKind::UrlSet);
    assert!(p.complete);
    assert!(!p.compressed);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(locs(&p), ["https://example.com/", "https://example.com/b"]);
    let e = &p.entries[0];
    assert_eq!(e.lastmod.as_deref(), Some("2024-05-01T10:00:00+02:00"));
    assert_eq!(e.changefreq, Some(ChangeFreq::Daily));
    assert_eq!(e.priority, Some(0.8));
    let b = &p.entries[1];
    assert_eq!(
        (b.lastmod.as_deref(), b.changefreq, b.priority),
        (None, None, None)
    );
    assert_eq!(p.urls_seen, 2);
    assert!(p.sitemaps.is_empty());
}

#[test]
fn whitespace_around_values_is_trimmed_silently() {
    let p = parse(
        urlset(
            "<url>\n  <loc>\n    https://example.com/a\n  </loc>\n  <lastmod> 2024-01-01 </lastmod>\n\
             <priority>\t1.0 </priority>\n</url>",
        )
        .as_bytes(),
    );
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(locs(&p), ["https://example.com/a"]);
    assert_eq!(p.entries[0].lastmod.as_deref(), Some("2024-01-01"));
    assert_eq!(p.entries[0].priority, Some(1.0));
}

#[test]
fn escapes_cdata_and_char_refs_are_decoded() {
    let p = parse(
        urlset(
            "<url><loc>https://example.com/?a=1&amp;b=2</loc></url>\
             <url><loc><![CDATA[https://example.com/?c=3&d=4]]></loc></url>\
             <url><loc>https://example.com/caf&#233;/&#x41;</loc></url>",
        )
        .as_bytes(),
    );
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(
        locs(&p),
        [
            "https://example.com/?a=1&b=2",
            "https://example.com/?c=3&d=4",
            "https://example.com/café/A"
        ]
    );
}

#[test]
fn bare_ampersand_is_recorded_but_kept() {
    let p = parse(urlset("<url><loc>https://example.com/?a=1&b=2</loc></url>").as_bytes());
    assert_eq!(locs(&p), ["https://example.com/?a=1&b=2"]);
    assert_eq!(kinds(&p), [IssueKind::UnescapedAmpersand]);
    assert!(p.complete);
}

#[test]
fn invalid_lastmod_changefreq_priority_are_recorded_and_dropped() {
    let p = parse(
        urlset(
            "<url><loc>https://example.com/a</loc><lastmod>2024-13-01</lastmod></url>\
             <url><loc>https://example.com/b</loc><lastmod>01/02/2024</lastmod><priority>1.5</priority></url>\
             <url><loc>https://example.com/c</loc><priority>-0.1</priority><changefreq>sometimes</changefreq></url>\
             <url><loc>https://example.com/d</loc><priority>high</priority><lastmod>2024-01-01T10:00:00</lastmod></url>",
        )
        .as_bytes(),
    );
    assert_eq!(p.entries.len(), 4, "entries are kept");
    assert!(
        p.entries
            .iter()
            .all(|e| e.lastmod.is_none() && e.priority.is_none())
    );
    assert_eq!(
        kinds(&p),
        [
            IssueKind::InvalidLastmod,
            IssueKind::InvalidLastmod,
            IssueKind::InvalidPriority,
            IssueKind::InvalidChangefreq,
            IssueKind::InvalidPriority,
            IssueKind::InvalidLastmod,
            IssueKind::InvalidPriority,
        ]
    );
    let first = &p.issues[0];
    assert_eq!(first.loc.as_deref(), Some("https://example.com/a"));
    assert!(first.message.contains("2024-13-01"), "{}", first.message);
    assert_eq!(first.kind.code(), "invalid_lastmod");
}

#[test]
fn loc_problems() {
    let long = format!("https://example.com/{}", "x".repeat(2_100));
    let p = parse(
        urlset(&format!(
            "<url><loc></loc></url>\
             <url><loc>   </loc></url>\
             <url><lastmod>2024-01-01</lastmod></url>\
             <url><loc>/relative/path</loc></url>\
             <url><loc>ftp://example.com/file</loc></url>\
             <url><loc>https://</loc></url>\
             <url><loc>{long}</loc></url>\
             <url><loc>https://example.com/ok</loc><loc>https://example.com/second</loc></url>"
        ))
        .as_bytes(),
    );
    assert_eq!(
        kinds(&p),
        [
            IssueKind::EmptyLoc,
            IssueKind::EmptyLoc,
            IssueKind::MissingLoc,
            IssueKind::InvalidLoc,
            IssueKind::InvalidLoc,
            IssueKind::InvalidLoc,
            IssueKind::LocTooLong,
            IssueKind::DuplicateElement,
        ]
    );
    assert_eq!(locs(&p), [long.as_str(), "https://example.com/ok"]);
    assert_eq!(p.urls_seen, 8);
    assert_eq!(p.issues[3].loc.as_deref(), Some("/relative/path"));
}

#[test]
fn cross_host_scheme_and_path_are_recorded_not_dropped() {
    let p = sitemap::parse(
        urlset(
            "<url><loc>https://example.com/blog/a</loc></url>\
             <url><loc>https://www.example.com/blog/b</loc></url>\
             <url><loc>http://example.com/blog/c</loc></url>\
             <url><loc>https://example.com/shop/d</loc></url>\
             <url><loc>https://evil.example/blog/e</loc></url>",
        )
        .as_bytes(),
        &url("https://example.com/blog/sitemap.xml"),
        &Limits::default(),
    )
    .expect("parses");
    assert_eq!(p.entries.len(), 5);
    assert_eq!(
        kinds(&p),
        [
            IssueKind::CrossHost,
            IssueKind::CrossScheme,
            IssueKind::OutsidePath,
            IssueKind::CrossHost
        ]
    );
    assert_eq!(
        p.issues[0].loc.as_deref(),
        Some("https://www.example.com/blog/b")
    );
    assert!(p.issues[0].message.contains("www.example.com"));
    assert_eq!(p.issues[3].kind.code(), "cross_host");
}

#[test]
fn hreflang_alternates_and_extensions() {
    let body = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="{NS}" xmlns:xhtml="http://www.w3.org/1999/xhtml"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
  <url>
    <loc>https://example.com/en/</loc>
    <xhtml:link rel="alternate" hreflang="en" href="https://example.com/en/"/>
    <xhtml:link rel="alternate" hreflang="de-CH" href="https://example.ch/de/?a=1&amp;b=2"/>
    <xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/"/>
    <xhtml:link rel="alternate" href="https://example.com/fr/"/>
    <xhtml:link rel="alternate" hreflang="es" href="/es/"/>
    <xhtml:link rel="canonical" href="https://example.com/en/"/>
    <image:image><image:loc>https://example.com/a.jpg</image:loc><image:caption>A &amp; B</image:caption></image:image>
    <image:image><image:loc>https://example.com/b.jpg</image:loc></image:image>
    <video:video><video:title>T</video:title><video:content_loc>https://example.com/v.mp4</video:content_loc></video:video>
    <news:news><news:publication><news:name>N</news:name><news:language>en</news:language></news:publication><news:title>x</news:title></news:news>
  </url>
</urlset>"#
    );
    let p = parse(body.as_bytes());
    assert_eq!(
        kinds(&p),
        [IssueKind::InvalidAlternate, IssueKind::InvalidAlternate],
        "{:?}",
        p.issues
    );
    assert_eq!(locs(&p), ["https://example.com/en/"]);
    let e = &p.entries[0];
    let alts: Vec<_> = e
        .alternates
        .iter()
        .map(|a| (a.hreflang.as_str(), a.href.as_str()))
        .collect();
    assert_eq!(
        alts,
        [
            ("en", "https://example.com/en/"),
            ("de-CH", "https://example.ch/de/?a=1&b=2"),
            ("x-default", "https://example.com/")
        ]
    );
    assert_eq!((e.images, e.videos, e.news), (2, 1, true));
    assert!(p.complete);
}

#[test]
fn wrong_or_missing_namespace_is_recorded_but_parsed() {
    let old = r#"<urlset xmlns="http://www.google.com/schemas/sitemap/0.84"><url><loc>https://example.com/a</loc></url></urlset>"#;
    let p = parse(old.as_bytes());
    assert_eq!(kinds(&p), [IssueKind::WrongNamespace]);
    assert_eq!(locs(&p), ["https://example.com/a"]);

    let none =
        "<urlset><url><loc>https://example.com/a</loc><priority>0.5</priority></url></urlset>";
    let p = parse(none.as_bytes());
    assert_eq!(kinds(&p), [IssueKind::WrongNamespace]);
    assert!(p.issues[0].message.contains("no namespace"));
    assert_eq!(p.entries[0].priority, Some(0.5));

    let prefixed = format!(
        r#"<sm:urlset xmlns:sm="{NS}"><sm:url><sm:loc>https://example.com/p</sm:loc></sm:url></sm:urlset>"#
    );
    let p = parse(prefixed.as_bytes());
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(locs(&p), ["https://example.com/p"]);
}

#[test]
fn bom_and_crlf() {
    let mut body = vec![0xef, 0xbb, 0xbf];
    body.extend(
        urlset("\r\n<url>\r\n<loc>\r\nhttps://example.com/a\r\n</loc>\r\n</url>\r\n<url><loc>https://example.com/b</loc></url>")
            .as_bytes(),
    );
    let p = parse(&body);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(locs(&p), ["https://example.com/a", "https://example.com/b"]);
    assert_eq!(p.entries[0].position.line, 2);
    assert_eq!(p.entries[1].position.line, 7);
    assert_eq!(p.uncompressed_bytes, body.len() as u64);
}

#[test]
fn positions_point_at_the_entry() {
    let body = format!(
        "<?xml version=\"1.0\"?>\n<urlset xmlns=\"{NS}\">\n  <url><loc>https://example.com/a</loc></url>\n  <url><loc>nope</loc></url>\n</urlset>\n"
    );
    let p = parse(body.as_bytes());
    let second_url = body.rfind("<url>").expect("present") as u64;
    assert_eq!(p.entries[0].position.line, 3);
    assert_eq!(
        p.issues[0].position,
        Some(Position {
            line: 4,
            byte: second_url
        })
    );
}

#[test]
fn fifty_thousand_and_one_urls() {
    let body = big_urlset(50_001);
    let p = parse(body.as_bytes());
    assert_eq!(
        p.entries.len(),
        50_001,
        "entries past the limit are still returned"
    );
    assert_eq!(kinds(&p), [IssueKind::TooManyUrls]);
    assert_eq!(p.issues[0].position, Some(p.entries[50_000].position));
    assert!(p.complete);

    let p = parse(big_urlset(50_000).as_bytes());
    assert!(p.issues.is_empty());
}

#[test]
fn hard_entry_cap_stops_parsing() {
    let limits = Limits {
        max_urls: 10,
        max_entries: 25,
        ..Limits::default()
    };
    let p = parse_limits(big_urlset(100).as_bytes(), &limits);
    assert_eq!(p.entries.len(), 25);
    assert_eq!(
        kinds(&p),
        [IssueKind::TooManyUrls, IssueKind::EntryCapReached]
    );
    assert!(!p.complete);
}

#[test]
fn issues_per_kind_are_capped_but_counted() {
    let mut inner = String::new();
    for i in 0..50 {
        inner.push_str(&format!(
            "<url><loc>https://example.com/{i}</loc><lastmod>bad</lastmod></url>"
        ));
    }
    let limits = Limits {
        max_issues_per_kind: 5,
        ..Limits::default()
    };
    let p = parse_limits(urlset(&inner).as_bytes(), &limits);
    assert_eq!(p.issues.len(), 5);
    assert_eq!(p.suppressed_issues, 45);
    assert_eq!(p.entries.len(), 50);
}

#[test]
fn empty_urlset_is_a_finding() {
    let p = parse(urlset("").as_bytes());
    assert_eq!(kinds(&p), [IssueKind::NoEntries]);
    let p = parse(format!(r#"<urlset xmlns="{NS}"/>"#).as_bytes());
    assert_eq!(kinds(&p), [IssueKind::NoEntries]);
    assert!(p.complete);
}

#[test]
fn unexpected_elements_are_recorded() {
    let p = parse(
        urlset(
            "<sitemap><loc>https://example.com/s.xml</loc></sitemap>\
             <url><loc>https://example.com/a</loc><title>x</title></url>",
        )
        .as_bytes(),
    );
    assert_eq!(
        kinds(&p),
        [IssueKind::UnexpectedElement, IssueKind::UnexpectedElement]
    );
    assert_eq!(locs(&p), ["https://example.com/a"]);
}

#[test]
fn streaming_callback_sees_items_in_order_and_can_stop() {
    let body = big_urlset(1_000);
    let mut seen = Vec::new();
    let summary = sitemap::parse_with(body.as_bytes(), &sm_url(), &Limits::default(), |item| {
        seen.push(item);
        if seen.len() == 11 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .expect("parses");
    assert!(matches!(seen[0], Item::Kind(SitemapKind::UrlSet)));
    assert!(seen[1..].iter().all(|i| matches!(i, Item::Url(_))));
    assert_eq!(seen.len(), 11);
    assert_eq!(summary.urls_seen, 10);
    assert!(!summary.complete);
    assert!(summary.uncompressed_bytes < body.len() as u64);
}

#[test]
fn stray_text_and_comments_inside_loc() {
    let p = parse(urlset("<url><loc>https://example.com/<!-- c -->a</loc></url>").as_bytes());
    assert_eq!(locs(&p), ["https://example.com/a"]);
}

#[test]
fn bare_ampersand_outside_loc_is_recorded_too() {
    let body = format!(
        r#"<urlset xmlns="{NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
<url><loc>https://example.com/a</loc><image:image><image:loc>https://example.com/a.jpg</image:loc><image:caption>Salt & pepper</image:caption></image:image></url>
</urlset>"#
    );
    let p = parse(body.as_bytes());
    assert_eq!(kinds(&p), [IssueKind::UnescapedAmpersand]);
    assert_eq!(p.issues[0].position.map(|p| p.line), Some(2));
    assert_eq!(locs(&p), ["https://example.com/a"]);
    assert_eq!(p.entries[0].images, 1);
}
