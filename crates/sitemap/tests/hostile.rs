//! Hostile and broken input: entity bombs, XXE, malformed XML, bad encodings, non-sitemaps.

mod common;

use std::time::{Duration, Instant};

use common::*;
use sitemap::{IssueKind, Limits, ParseError, SitemapKind};

const BILLION_LAUGHS: &str = r#"<?xml version="1.0"?>
<!DOCTYPE urlset [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
  <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
  <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
  <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
  <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/&lol9;</loc></url>
  <url><loc>&lol9;</loc></url>
  <url><loc>https://example.com/ok</loc></url>
</urlset>"#;

#[test]
fn billion_laughs_is_never_expanded() {
    let started = Instant::now();
    let p = parse(BILLION_LAUGHS.as_bytes());
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        kinds(&p),
        [
            IssueKind::EntityDeclaration,
            IssueKind::UnresolvedEntity,
            IssueKind::UnresolvedEntity,
            IssueKind::InvalidLoc,
        ],
        "{:?}",
        p.issues
    );
    // The reference is kept literally: nothing grew.
    assert_eq!(
        locs(&p),
        ["https://example.com/&lol9;", "https://example.com/ok"]
    );
    assert_eq!(p.issues[0].position.map(|p| p.line), Some(2));
    assert!(p.complete);
}

#[test]
fn external_entities_are_not_fetched() {
    let body = r#"<?xml version="1.0"?>
<!DOCTYPE urlset [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/&xxe;</loc></url></urlset>"#;
    let p = parse(body.as_bytes());
    assert_eq!(
        kinds(&p),
        [IssueKind::EntityDeclaration, IssueKind::UnresolvedEntity]
    );
    assert!(p.issues[0].message.contains("external"));
    assert_eq!(locs(&p), ["https://example.com/&xxe;"]);
}

#[test]
fn malformed_xml_keeps_entries_so_far() {
    let body = urlset(
        "<url><loc>https://example.com/a</loc></url>\
         <url><loc>https://example.com/b</loc></url>\
         <url><loc>https://example.com/c</lox></url>\
         <url><loc>https://example.com/d</loc></url>",
    );
    let p = parse(body.as_bytes());
    assert_eq!(locs(&p), ["https://example.com/a", "https://example.com/b"]);
    assert_eq!(kinds(&p), [IssueKind::MalformedXml]);
    assert!(!p.complete);
    let pos = p.issues[0].position.expect("position");
    assert!(pos.byte > 0 && pos.byte <= body.len() as u64);
}

#[test]
fn truncated_xml_keeps_entries_so_far() {
    let body = big_urlset(100);
    let cut = body.len() / 2;
    let p = parse(&body.as_bytes()[..cut]);
    assert!(!p.complete);
    assert_eq!(kinds(&p), [IssueKind::MalformedXml], "{:?}", p.issues);
    assert!(
        p.issues[0].message.contains("truncated"),
        "{}",
        p.issues[0].message
    );
    assert!(p.entries.len() > 10 && p.entries.len() < 100);
    // Entries are only reported once closed: the cut one is not half-read.
    assert!(p.entries.iter().all(|e| e.loc.contains("?ref=sitemap")));
}

#[test]
fn invalid_utf8_in_xml_stops_with_a_finding() {
    let mut body =
        urlset("<url><loc>https://example.com/a</loc></url><url><loc>https://example.com/")
            .into_bytes();
    body.truncate(body.len() - "</urlset>".len());
    body.extend_from_slice(
        b"caf\xe9</loc></url><url><loc>https://example.com/z</loc></url></urlset>",
    );
    let p = parse(&body);
    assert_eq!(locs(&p), ["https://example.com/a"]);
    assert_eq!(kinds(&p), [IssueKind::InvalidUtf8]);
    assert!(!p.complete);
}

#[test]
fn declared_non_utf8_encoding_is_recorded() {
    let body = r#"<?xml version="1.0" encoding="ISO-8859-1"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/a</loc></url></urlset>"#;
    let p = parse(body.as_bytes());
    assert_eq!(kinds(&p), [IssueKind::UnsupportedEncoding]);
    assert_eq!(locs(&p), ["https://example.com/a"]);
}

#[test]
fn utf16_is_recorded() {
    let mut body = vec![0xff, 0xfe];
    for c in "<urlset/>".encode_utf16() {
        body.extend(c.to_le_bytes());
    }
    let p = parse(&body);
    assert_eq!(p.kind, SitemapKind::Unknown);
    assert_eq!(kinds(&p), [IssueKind::UnsupportedEncoding]);
    assert!(!p.complete);
}

#[test]
fn html_page_is_not_a_sitemap() {
    let body = "<!DOCTYPE html>\n<html lang=\"en\"><head><title>404</title></head><body>Not found</body></html>";
    let p = parse(body.as_bytes());
    assert_eq!(p.kind, SitemapKind::Unknown);
    assert_eq!(kinds(&p), [IssueKind::NotASitemap]);
    assert!(p.issues[0].message.contains("HTML"));
    assert!(!p.complete);
}

#[test]
fn content_after_the_root_and_second_roots() {
    let p = parse(
        format!(
            "{}<urlset/>",
            urlset("<url><loc>https://example.com/a</loc></url>")
        )
        .as_bytes(),
    );
    assert_eq!(locs(&p), ["https://example.com/a"]);
    assert_eq!(kinds(&p), [IssueKind::MalformedXml]);
    let p = parse(
        format!(
            "{}garbage",
            urlset("<url><loc>https://example.com/a</loc></url>")
        )
        .as_bytes(),
    );
    assert_eq!(kinds(&p), [IssueKind::MalformedXml]);
    let p = parse(
        format!(
            "{}\n<!-- generated -->\n",
            urlset("<url><loc>https://example.com/a</loc></url>")
        )
        .as_bytes(),
    );
    assert!(p.issues.is_empty() && p.complete);
}

#[test]
fn empty_bodies_are_errors() {
    for body in [&b""[..], b"   \r\n\t ", b"\xef\xbb\xbf"] {
        let err = sitemap::parse(body, &sm_url(), &Limits::default()).expect_err("empty");
        assert!(matches!(err, ParseError::Empty), "{err:?}");
    }
    let p = parse(b"<?xml version=\"1.0\"?><!-- nothing -->");
    assert_eq!(kinds(&p), [IssueKind::NotASitemap]);
}

#[test]
fn deep_nesting_and_huge_text_stay_bounded() {
    let nested = |depth: usize| {
        urlset(&format!(
            "<url><loc>https://example.com/a</loc></url><url>{}{}</url>",
            "<x>".repeat(depth),
            "</x>".repeat(depth)
        ))
    };
    let p = parse(nested(1_000).as_bytes());
    assert_eq!(locs(&p), ["https://example.com/a"]);
    assert_eq!(
        kinds(&p),
        [IssueKind::UnexpectedElement, IssueKind::MissingLoc]
    );
    assert!(p.complete);
    // Past quick-xml's nesting limit the document is rejected, entries so far kept.
    let p = parse(nested(100_000).as_bytes());
    assert_eq!(locs(&p), ["https://example.com/a"]);
    assert_eq!(
        kinds(&p),
        [IssueKind::UnexpectedElement, IssueKind::MalformedXml]
    );
    assert!(!p.complete);

    let huge = format!("https://example.com/{}", "a".repeat(200_000));
    let p = parse(urlset(&format!("<url><loc>{huge}</loc></url>")).as_bytes());
    assert_eq!(kinds(&p), [IssueKind::LocTooLong]);
    assert!(p.entries.is_empty());
    assert!(p.issues[0].loc.as_ref().is_some_and(|l| l.len() <= 256));
}

#[test]
fn read_errors_mid_stream_are_findings() {
    struct Failing<'a>(&'a [u8]);
    impl std::io::Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("connection reset"));
            }
            let n = self.0.len().min(buf.len()).min(100);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let body = big_urlset(10);
    let p = sitemap::parse_reader(Failing(body.as_bytes()), &sm_url(), &Limits::default())
        .expect("a finding");
    assert_eq!(kinds(&p), [IssueKind::Io]);
    assert_eq!(p.entries.len(), 10);
    assert!(!p.complete);

    let err =
        sitemap::parse_reader(Failing(b""), &sm_url(), &Limits::default()).expect_err("no content");
    assert!(matches!(err, ParseError::Io(_)));
}
