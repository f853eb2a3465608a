//! gzip-compressed sitemaps and gzip bombs.

mod common;

use std::io::Read;
use std::time::{Duration, Instant};

use common::*;
use flate2::read::MultiGzDecoder;
use sitemap::{IssueKind, Limits, ParseError, SitemapKind};

#[test]
fn gzipped_urlset_is_detected_by_magic_bytes() {
    let plain = big_urlset(100);
    let gz = gzip(plain.as_bytes());
    // The sitemap URL has no .gz extension: detection is by content.
    let p = sitemap::parse(&gz, &sm_url(), &Limits::default()).expect("parses");
    assert!(p.compressed);
    assert_eq!(p.kind, SitemapKind::UrlSet);
    assert_eq!(p.entries.len(), 100);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(p.uncompressed_bytes, plain.len() as u64);
    assert_eq!(p, {
        let mut q = parse(plain.as_bytes());
        q.compressed = true;
        q
    });
}

#[test]
fn gzipped_text_and_index() {
    let p = parse(&gzip(b"https://example.com/a\nhttps://example.com/b\n"));
    assert_eq!(
        (p.kind, p.entries.len(), p.compressed),
        (SitemapKind::Text, 2, true)
    );
    let index = format!(
        r#"<sitemapindex xmlns="{NS}"><sitemap><loc>https://example.com/s1.xml.gz</loc></sitemap></sitemapindex>"#
    );
    let p = parse(&gzip(index.as_bytes()));
    assert_eq!((p.kind, p.sitemaps.len()), (SitemapKind::Index, 1));
}

#[test]
fn gzip_with_bom_and_multiple_members() {
    let mut first = vec![0xef, 0xbb, 0xbf];
    first.extend_from_slice(b"https://example.com/a\n");
    let mut gz = gzip(&first);
    gz.extend(gzip(b"https://example.com/b\n"));
    let p = parse(&gz);
    assert_eq!(locs(&p), ["https://example.com/a", "https://example.com/b"]);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
}

#[test]
fn corrupt_and_truncated_gzip() {
    // Not gzip beyond the magic: nothing can be read.
    let err = sitemap::parse(&[0x1f, 0x8b, 0, 0, 0], &sm_url(), &Limits::default())
        .expect_err("unreadable");
    assert!(matches!(err, ParseError::Decompress(_)), "{err:?}");

    // Truncated after some content: the entries before the cut are kept.
    let plain = big_urlset(2_000);
    let gz = gzip(plain.as_bytes());
    let p = parse(&gz[..gz.len() / 2]);
    assert!(!p.complete);
    assert!(p.has_issue(IssueKind::Decompression), "{:?}", p.issues);
    assert!(!p.entries.is_empty() && p.entries.len() < 2_000);

    // Empty gzip member: no content at all.
    let err = sitemap::parse(&gzip(b""), &sm_url(), &Limits::default()).expect_err("empty");
    assert!(matches!(err, ParseError::Empty));
}

#[test]
fn bomb_helper_builds_valid_gzip() {
    let mut bomb = GzipBomb::new(b"https://example.com/\n", &[b'\n'; 4096], 100);
    let (total, inflated) = (bomb.total, bomb.inflated);
    let mut compressed = Vec::new();
    bomb.read_to_end(&mut compressed).expect("in memory");
    assert_eq!(compressed.len() as u64, total);
    let mut out = Vec::new();
    MultiGzDecoder::new(&compressed[..])
        .read_to_end(&mut out)
        .expect("valid gzip, CRC and size included");
    assert_eq!(out.len() as u64, inflated);
    assert!(out.starts_with(b"https://example.com/\n\n\n"));
}

#[test]
fn gzip_bomb_of_one_gib_of_zeros_stops_at_the_limit() {
    let mut bomb = GzipBomb::zeros_1gib();
    assert_eq!(bomb.inflated, 1 << 30);
    let limits = Limits::default();
    let started = Instant::now();
    let p = sitemap::parse_reader(&mut bomb, &sm_url(), &limits).expect("a finding, not an error");
    let elapsed = started.elapsed();
    assert!(p.compressed);
    assert!(!p.complete);
    assert_eq!(p.uncompressed_bytes, limits.max_uncompressed_bytes + 1);
    let oversized: Vec<_> = p.issues_of(IssueKind::Oversized).collect();
    assert_eq!(oversized.len(), 1, "{:?}", p.issues);
    assert!(oversized[0].message.contains("52428800"));
    // Streaming: only a small part of the ~1 MB of compressed input was pulled.
    assert!(
        bomb.served < bomb.total / 10,
        "{} of {}",
        bomb.served,
        bomb.total
    );
    assert!(elapsed < Duration::from_secs(120), "took {elapsed:?}");
}

#[test]
fn gzip_bomb_of_xml_keeps_the_entries_before_the_limit() {
    let head = format!(r#"<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="{NS}">"#);
    let entry = "<url><loc>https://example.com/p</loc></url>";
    let chunk = entry.repeat(20_000);
    let mut bomb = GzipBomb::new(head.as_bytes(), chunk.as_bytes(), 10_000);
    let limits = Limits {
        max_uncompressed_bytes: 4 << 20,
        ..Limits::default()
    };
    let p = sitemap::parse_reader(&mut bomb, &sm_url(), &limits).expect("parses");
    let max_entries = (limits.max_uncompressed_bytes as usize - head.len()) / entry.len();
    assert_eq!(p.entries.len(), max_entries);
    assert_eq!(p.urls_seen, max_entries as u64);
    assert_eq!(
        kinds(&p),
        [IssueKind::TooManyUrls, IssueKind::Oversized],
        "{:?}",
        p.issues
    );
    assert_eq!(p.uncompressed_bytes, limits.max_uncompressed_bytes + 1);
    assert!(bomb.served < bomb.total / 10);
}

#[test]
fn plain_oversized_body() {
    let body = big_urlset(1_000);
    let limits = Limits {
        max_uncompressed_bytes: 10_000,
        ..Limits::default()
    };
    let p = parse_limits(body.as_bytes(), &limits);
    assert!(!p.complete);
    assert_eq!(p.uncompressed_bytes, 10_001);
    assert!(!p.entries.is_empty());
    assert_eq!(kinds(&p), [IssueKind::Oversized]);
    let limit = Limits {
        max_uncompressed_bytes: 1,
        ..Limits::default()
    };
    let p = parse_limits(b"https://example.com/", &limit);
    assert_eq!(kinds(&p), [IssueKind::Oversized]);
    assert_eq!(p.kind, SitemapKind::Unknown);
}
