//! RSS 2.0 and Atom feeds used as sitemaps.

mod common;

use common::*;
use sitemap::SitemapKind;

#[test]
fn rss_items() {
    let body = r#"<?xml version="1.0"?>
<rss version="2.0"><channel>
  <title>Blog</title><link>https://example.com/</link>
  <item><title>A</title><link>https://example.com/a</link><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item>
  <item><title>B</title><link> https://example.com/b </link></item>
</channel></rss>"#;
    let p = parse(body.as_bytes());
    assert_eq!(p.kind, SitemapKind::Rss);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(locs(&p), ["https://example.com/a", "https://example.com/b"]);
}

#[test]
fn atom_entries() {
    let body = r#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Blog</title><link href="https://example.com/"/><updated>2024-05-01T00:00:00Z</updated>
  <entry>
    <link rel="edit" href="https://example.com/edit/1"/>
    <link rel="alternate" type="text/html" href="https://example.com/posts/1"/>
    <updated>2024-05-01T12:00:00Z</updated>
  </entry>
  <entry><link href="https://example.com/posts/2"/><updated>May 1st</updated></entry>
</feed>"#;
    let p = parse(body.as_bytes());
    assert_eq!(p.kind, SitemapKind::Atom);
    assert_eq!(
        locs(&p),
        ["https://example.com/posts/1", "https://example.com/posts/2"]
    );
    assert_eq!(
        p.entries[0].lastmod.as_deref(),
        Some("2024-05-01T12:00:00Z")
    );
    assert_eq!(codes(&p), ["invalid_lastmod"]);
}
