//! Plain-text sitemaps.

mod common;

use common::*;
use sitemap::{IssueKind, Limits, SitemapKind};

#[test]
fn one_url_per_line() {
    let p =
        parse(b"https://example.com/\nhttps://example.com/a?x=1&y=2\n\n   \nhttps://example.com/b");
    assert_eq!(p.kind, SitemapKind::Text);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(
        locs(&p),
        [
            "https://example.com/",
            "https://example.com/a?x=1&y=2",
            "https://example.com/b"
        ]
    );
    assert_eq!(p.entries[2].position.line, 5);
    assert_eq!(p.urls_seen, 3);
    assert!(p.complete);
}

#[test]
fn crlf_bom_and_surrounding_whitespace() {
    let mut body = vec![0xef, 0xbb, 0xbf];
    body.extend_from_slice(b"  https://example.com/a  \r\n\thttps://example.com/b\r\n\r\n");
    let p = parse(&body);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(locs(&p), ["https://example.com/a", "https://example.com/b"]);
    assert_eq!(p.entries[1].position.line, 2);
    assert_eq!(p.uncompressed_bytes, body.len() as u64);
}

#[test]
fn bad_lines_are_recorded_and_skipped() {
    let mut body = b"https://example.com/a\n/relative\nnot a url\n".to_vec();
    body.extend_from_slice(b"https://example.com/caf\xe9\n");
    body.extend_from_slice(b"https://other.example/x\n");
    let p = parse(&body);
    assert_eq!(
        kinds(&p),
        [
            IssueKind::InvalidLoc,
            IssueKind::InvalidLoc,
            IssueKind::InvalidUtf8,
            IssueKind::CrossHost
        ]
    );
    assert_eq!(
        locs(&p),
        ["https://example.com/a", "https://other.example/x"]
    );
    assert_eq!(p.issues[2].position.map(|p| p.line), Some(4));
    assert!(p.complete, "an invalid line does not stop a text sitemap");
}

#[test]
fn overlong_lines() {
    let long = format!("https://example.com/{}", "a".repeat(3_000));
    let huge = format!("https://example.com/{}", "b".repeat(100_000));
    let body = format!("{long}\n{huge}\nhttps://example.com/ok\n");
    let p = parse(body.as_bytes());
    assert_eq!(kinds(&p), [IssueKind::LocTooLong, IssueKind::LocTooLong]);
    assert_eq!(locs(&p), [long.as_str(), "https://example.com/ok"]);
}

#[test]
fn too_many_lines() {
    let body: String = (0..12)
        .map(|i| format!("https://example.com/{i}\n"))
        .collect();
    let limits = Limits {
        max_urls: 10,
        ..Limits::default()
    };
    let p = parse_limits(body.as_bytes(), &limits);
    assert_eq!(p.entries.len(), 12);
    assert_eq!(kinds(&p), [IssueKind::TooManyUrls]);
}

#[test]
fn a_body_that_is_no_url_list_is_not_a_sitemap_and_only_an_excerpt_is_kept() {
    let secret = "SECRET-TOKEN-0123456789";
    let mut body = format!(
        "User-agent: *\nDisallow: /{secret}\n\u{1b}[31m{}\n",
        "x".repeat(500)
    );
    for i in 0..100 {
        body += &format!("line {i} {secret}\n");
    }
    body += "https://example.com/after\n";
    let p = parse(body.as_bytes());
    assert_eq!(kinds(&p), [IssueKind::NotASitemap]);
    assert!(!p.complete);
    assert!(p.entries.is_empty());
    let message = &p.issues[0].message;
    assert!(message.contains("User-agent: *"), "{message}");
    assert!(message.len() < 200, "{message}");
    assert!(!message.contains(secret), "{message}");
    assert_eq!(p.issues[0].loc, None);
    // A list of URLs with a bad line further down is still a text sitemap.
    let p = parse(b"https://example.com/a\nnot a url\nhttps://example.com/b\n");
    assert_eq!(kinds(&p), [IssueKind::InvalidLoc]);
    assert_eq!(locs(&p), ["https://example.com/a", "https://example.com/b"]);
}
