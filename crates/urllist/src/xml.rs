//! XML sitemaps, sitemap indexes and feeds, read by the [`sitemap`] crate's streaming
//! parser.

use std::io::Read;
use std::ops::ControlFlow;

use sitemap::{IssueKind, Item, Limits, SitemapKind};
use url::Url;

use crate::input::Counted;
use crate::{Collector, Format, MAX_CHILD_SITEMAPS, Options, RejectKind, to_url};

/// Issues that leave an entry out, or stop the reading: each is a rejected entry.
const REJECTING: &[IssueKind] = &[
    IssueKind::MissingLoc,
    IssueKind::EmptyLoc,
    IssueKind::InvalidLoc,
    IssueKind::InvalidUtf8,
    IssueKind::MalformedXml,
    IssueKind::NotASitemap,
    IssueKind::Oversized,
    IssueKind::UnsupportedEncoding,
    IssueKind::Decompression,
    IssueKind::Io,
    IssueKind::EntryCapReached,
];

/// Reads an XML sitemap, index or feed into `out`.
pub(crate) fn read(reader: impl Read, options: &Options, out: &mut Collector) {
    let (counted, count) = Counted::new(reader, u64::MAX, false);
    // A local file has no URL: the parser's same-host checks are left out.
    let Ok(base) = Url::parse("file:///list.xml") else {
        return;
    };
    let limits = Limits {
        max_uncompressed_bytes: options.max_sitemap_bytes,
        max_urls: u64::MAX,
        ..Limits::default()
    };
    let mut seen_sitemaps = std::collections::HashSet::new();
    let result = sitemap::parse_with(counted, &base, &limits, |item| {
        match item {
            Item::Kind(SitemapKind::Index) => out.list.format = Format::SitemapIndex,
            Item::Kind(_) => {}
            Item::Url(entry) => match to_url(&entry.loc, None) {
                Ok(url) => out.url(&url, entry.position.line),
                Err((kind, reason)) => {
                    out.reject(entry.position.line, kind, reason, entry.loc.as_bytes());
                }
            },
            Item::Sitemap(child)
                if seen_sitemaps.len() < MAX_CHILD_SITEMAPS
                    && seen_sitemaps.insert(child.loc.clone()) =>
            {
                out.list.sitemaps.push(child.loc);
            }
            Item::Sitemap(_) => {}
            Item::Issue(issue) if REJECTING.contains(&issue.kind) => out.reject(
                issue.position.map_or(0, |p| p.line),
                RejectKind::Sitemap,
                format!("{}: {}", issue.kind.code(), issue.message),
                issue.loc.as_deref().unwrap_or("").as_bytes(),
            ),
            Item::Issue(_) => {}
            _ => {}
        }
        ControlFlow::Continue(())
    });
    if let Err(e) = result {
        // Nothing could be read (an empty file is an empty list).
        if !matches!(e, sitemap::ParseError::Empty) {
            out.reject(1, RejectKind::Unreadable, e.to_string(), b"");
        }
    }
    out.list.lines = count.lines();
}
