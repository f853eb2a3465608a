//! `<sitemapindex>` files.

mod common;

use common::*;
use sitemap::{IssueKind, Limits, SitemapKind};

#[test]
fn lists_child_sitemaps() {
    let body = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="{NS}">
  <sitemap><loc>https://example.com/sitemap-posts.xml.gz</loc><lastmod>2024-04-30T08:00:00Z</lastmod></sitemap>
  <sitemap><loc> https://example.com/sitemaps/pages.xml </loc></sitemap>
</sitemapindex>"#
    );
    let p = parse(body.as_bytes());
    assert_eq!(p.kind, SitemapKind::Index);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert!(p.entries.is_empty());
    let children: Vec<_> = p
        .sitemaps
        .iter()
        .map(|s| (s.loc.as_str(), s.lastmod.as_deref()))
        .collect();
    assert_eq!(
        children,
        [
            (
                "https://example.com/sitemap-posts.xml.gz",
                Some("2024-04-30T08:00:00Z")
            ),
            // A child in a subdirectory is fine for an index (no path rule).
            ("https://example.com/sitemaps/pages.xml", None)
        ]
    );
    assert_eq!(p.sitemaps[0].position.line, 3);
}

#[test]
fn nested_index_and_urls_in_an_index_are_recorded() {
    let body = format!(
        r#"<sitemapindex xmlns="{NS}">
  <sitemap><loc>https://example.com/a.xml</loc></sitemap>
  <sitemapindex><sitemap><loc>https://example.com/nested.xml</loc></sitemap></sitemapindex>
  <url><loc>https://example.com/page</loc></url>
  <sitemap><loc>https://other.example/b.xml</loc><lastmod>yesterday</lastmod><priority>0.5</priority></sitemap>
  <sitemap><lastmod>2024-01-01</lastmod></sitemap>
</sitemapindex>"#
    );
    let p = parse(body.as_bytes());
    assert_eq!(
        kinds(&p),
        [
            IssueKind::NestedIndex,
            IssueKind::UnexpectedElement,
            IssueKind::UnexpectedElement,
            IssueKind::CrossHost,
            IssueKind::InvalidLastmod,
            IssueKind::MissingLoc,
        ],
        "{:?}",
        p.issues
    );
    assert_eq!(p.issues[0].kind.code(), "nested_sitemapindex");
    let children: Vec<_> = p.sitemaps.iter().map(|s| s.loc.as_str()).collect();
    assert_eq!(
        children,
        ["https://example.com/a.xml", "https://other.example/b.xml"]
    );
    assert!(p.entries.is_empty());
    assert!(p.complete);
}

#[test]
fn too_many_sitemaps() {
    let mut body = format!(r#"<sitemapindex xmlns="{NS}">"#);
    for i in 0..12 {
        body.push_str(&format!(
            "<sitemap><loc>https://example.com/s{i}.xml</loc></sitemap>"
        ));
    }
    body.push_str("</sitemapindex>");
    let limits = Limits {
        max_urls: 10,
        ..Limits::default()
    };
    let p = parse_limits(body.as_bytes(), &limits);
    assert_eq!(p.sitemaps.len(), 12);
    assert_eq!(kinds(&p), [IssueKind::TooManySitemaps]);
}

#[test]
fn empty_index() {
    let p = parse(format!(r#"<sitemapindex xmlns="{NS}"></sitemapindex>"#).as_bytes());
    assert_eq!(p.kind, SitemapKind::Index);
    assert_eq!(kinds(&p), [IssueKind::NoEntries]);
}
