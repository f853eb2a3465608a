//! Streaming, bounded parsing of the sitemaps a crawler downloads.
//!
//! Give it the downloaded body (plain or gzip-compressed: detected by the gzip magic
//! bytes, not the file name) and the sitemap's own URL; it tells what kind of sitemap it
//! is (from the root element, not the extension), returns its entries, and records every
//! protocol violation as an [`Issue`] with a stable [`code`](IssueKind::code). A bad
//! sitemap is a finding, not a crash: only input with no content at all is an error
//! ([`ParseError`]).
//!
//! Formats: XML `<urlset>` (with `xhtml:link` hreflang alternates and the image, video
//! and news extensions), XML `<sitemapindex>`, plain text (one URL per line), and RSS 2.0
//! and Atom feeds used as sitemaps.
//!
//! Memory stays bounded whatever the input:
//! - decompression is streamed and stops after [`Limits::max_uncompressed_bytes`]
//!   (a gzip bomb costs at most that much inflating, never more);
//! - XML is read with quick-xml's pull reader, event by event, with no DOM and no
//!   copy of the whole body; entity declarations are never expanded;
//! - [`parse_with`] hands each entry to a callback as soon as it is complete, so a
//!   caller that stores entries elsewhere holds one entry at a time.
//!
//! ```
//! use sitemap::{Limits, IssueKind, SitemapKind, Url};
//!
//! let body = br#"<?xml version="1.0" encoding="UTF-8"?>
//! <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
//!   <url><loc>https://example.com/</loc><lastmod>2024-05-01</lastmod></url>
//!   <url><loc> https://example.com/about </loc><priority>1.5</priority></url>
//!   <url><loc>https://cdn.example.net/page</loc></url>
//! </urlset>"#;
//! let sitemap_url = Url::parse("https://example.com/sitemap.xml").unwrap();
//! let parsed = sitemap::parse(body, &sitemap_url, &Limits::default()).unwrap();
//!
//! assert_eq!(parsed.kind, SitemapKind::UrlSet);
//! let locs: Vec<_> = parsed.entries.iter().map(|e| e.loc.as_str()).collect();
//! assert_eq!(locs, ["https://example.com/", "https://example.com/about", "https://cdn.example.net/page"]);
//! let codes: Vec<_> = parsed.issues.iter().map(|i| i.kind.code()).collect();
//! assert_eq!(codes, ["invalid_priority", "cross_host"]);
//! assert!(parsed.complete);
//! ```
//!
//! The streaming flavour, for huge sitemaps:
//!
//! ```
//! use std::ops::ControlFlow;
//! use sitemap::{Item, Limits, Url};
//!
//! let body = "https://example.com/a\nhttps://example.com/b\n";
//! let sitemap_url = Url::parse("https://example.com/sitemap.txt").unwrap();
//! let mut count = 0;
//! let summary = sitemap::parse_with(body.as_bytes(), &sitemap_url, &Limits::default(), |item| {
//!     if let Item::Url(entry) = item {
//!         count += 1;
//!         println!("{}", entry.loc);
//!     }
//!     ControlFlow::Continue(())
//! })
//! .unwrap();
//! assert_eq!((count, summary.urls_seen), (2, 2));
//! ```

use std::collections::HashMap;
use std::io::{self, Read};
use std::ops::ControlFlow;

mod input;
mod issue;
mod text;
mod validate;
mod xml;

pub use issue::{Issue, IssueKind, Position};
pub use url::Url;
pub use validate::is_w3c_datetime;
pub use xml::SITEMAP_NS;

use input::{Opened, ReadFailure};
use validate::{Base, trim_xml};

/// The sitemap protocol's maximum number of URLs (or child sitemaps) in one file.
pub const PROTOCOL_MAX_URLS: u64 = 50_000;
/// The sitemap protocol's maximum uncompressed size: 50 MiB (52,428,800 bytes).
pub const PROTOCOL_MAX_BYTES: u64 = 50 * 1024 * 1024;
/// The sitemap protocol's maximum `<loc>` length, in characters.
pub const PROTOCOL_MAX_LOC_LEN: usize = 2_048;
/// Default hard cap on the entries one file may yield (see [`Limits::max_entries`]).
pub const DEFAULT_MAX_ENTRIES: u64 = 1_000_000;

/// Limits applied while parsing. [`Limits::default`] is the sitemap protocol's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Maximum uncompressed content to read, in bytes. Past it parsing stops with an
    /// [`IssueKind::Oversized`] issue, after reading at most one byte more.
    /// Default: [`PROTOCOL_MAX_BYTES`].
    pub max_uncompressed_bytes: u64,
    /// URLs (or child sitemaps) allowed by the protocol in one file; the entries past it
    /// are still returned, and one [`IssueKind::TooManyUrls`] (or
    /// [`IssueKind::TooManySitemaps`]) issue is recorded. Default: [`PROTOCOL_MAX_URLS`].
    pub max_urls: u64,
    /// Hard cap on the entries (URLs plus child sitemaps) returned from one file: on
    /// reaching it parsing stops with [`IssueKind::EntryCapReached`]. Default:
    /// [`DEFAULT_MAX_ENTRIES`] (20 times the protocol's limit).
    pub max_entries: u64,
    /// Maximum `<loc>` length in characters before [`IssueKind::LocTooLong`].
    /// Default: [`PROTOCOL_MAX_LOC_LEN`].
    pub max_loc_len: usize,
    /// Issues of one kind reported individually; further ones are only counted (in
    /// [`Summary::suppressed_issues`]) so a broken million-line file cannot flood
    /// memory. Default: 1,000.
    pub max_issues_per_kind: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_uncompressed_bytes: PROTOCOL_MAX_BYTES,
            max_urls: PROTOCOL_MAX_URLS,
            max_entries: DEFAULT_MAX_ENTRIES,
            max_loc_len: PROTOCOL_MAX_LOC_LEN,
            max_issues_per_kind: 1_000,
        }
    }
}

/// What kind of sitemap the content is, from its root element (or its first byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SitemapKind {
    /// An XML `<urlset>`: page URLs.
    UrlSet,
    /// An XML `<sitemapindex>`: child sitemap URLs.
    Index,
    /// Plain text, one URL per line.
    Text,
    /// An RSS 2.0 feed (`<rss>`): each item's `<link>` is a URL.
    Rss,
    /// An Atom feed (`<feed>`): each entry's `<link href>` is a URL.
    Atom,
    /// Not a sitemap (e.g. an HTML page), or not readable far enough to tell.
    Unknown,
}

impl SitemapKind {
    /// A stable lowercase name: `urlset`, `sitemapindex`, `text`, `rss`, `atom`, `unknown`.
    pub const fn as_str(self) -> &'static str {
        match self {
            SitemapKind::UrlSet => "urlset",
            SitemapKind::Index => "sitemapindex",
            SitemapKind::Text => "text",
            SitemapKind::Rss => "rss",
            SitemapKind::Atom => "atom",
            SitemapKind::Unknown => "unknown",
        }
    }
}

/// A `<changefreq>` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeFreq {
    /// `always`
    Always,
    /// `hourly`
    Hourly,
    /// `daily`
    Daily,
    /// `weekly`
    Weekly,
    /// `monthly`
    Monthly,
    /// `yearly`
    Yearly,
    /// `never`
    Never,
}

impl ChangeFreq {
    /// Every value, from most to least frequent.
    pub const ALL: &'static [ChangeFreq] = &[
        ChangeFreq::Always,
        ChangeFreq::Hourly,
        ChangeFreq::Daily,
        ChangeFreq::Weekly,
        ChangeFreq::Monthly,
        ChangeFreq::Yearly,
        ChangeFreq::Never,
    ];

    /// The protocol's spelling (`daily`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            ChangeFreq::Always => "always",
            ChangeFreq::Hourly => "hourly",
            ChangeFreq::Daily => "daily",
            ChangeFreq::Weekly => "weekly",
            ChangeFreq::Monthly => "monthly",
            ChangeFreq::Yearly => "yearly",
            ChangeFreq::Never => "never",
        }
    }
}

/// An `<xhtml:link rel="alternate" hreflang="..." href="..."/>` of a URL entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternate {
    /// The `hreflang` value as written (trimmed), e.g. `de-CH` or `x-default`.
    pub hreflang: String,
    /// The absolute `href` (trimmed).
    pub href: String,
}

/// One page URL from a `<urlset>`, a text sitemap or a feed.
#[derive(Debug, Clone, PartialEq)]
pub struct UrlEntry {
    /// The URL as written, with surrounding whitespace trimmed and XML escapes decoded.
    /// Always an absolute http(s) URL with a host; not normalized otherwise.
    pub loc: String,
    /// `<lastmod>` (or an Atom entry's `<updated>`), only when it is a valid W3C datetime.
    pub lastmod: Option<String>,
    /// `<changefreq>`, when valid.
    pub changefreq: Option<ChangeFreq>,
    /// `<priority>`, when a number from 0.0 to 1.0.
    pub priority: Option<f32>,
    /// hreflang alternates (`xhtml:link rel="alternate"`), in document order.
    pub alternates: Vec<Alternate>,
    /// Number of `image:image` extension elements.
    pub images: u32,
    /// Number of `video:video` extension elements.
    pub videos: u32,
    /// Whether a `news:news` extension element is present.
    pub news: bool,
    /// Where the entry starts (its `<url>` tag, or its text line).
    pub position: Position,
}

/// One child sitemap from a `<sitemapindex>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SitemapRef {
    /// The child sitemap's URL (trimmed, escapes decoded; an absolute http(s) URL).
    pub loc: String,
    /// `<lastmod>`, only when it is a valid W3C datetime.
    pub lastmod: Option<String>,
    /// Where the `<sitemap>` element starts.
    pub position: Position,
}

/// One result of the streaming parser, in document order.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Item {
    /// The sitemap's kind, sent once, before any entry.
    Kind(SitemapKind),
    /// A page URL (from a `<urlset>`, a text sitemap or a feed).
    Url(UrlEntry),
    /// A child sitemap (from a `<sitemapindex>`).
    Sitemap(SitemapRef),
    /// A finding.
    Issue(Issue),
}

/// Totals of one parse, returned by [`parse_with`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The detected kind.
    pub kind: SitemapKind,
    /// Whether the input was gzip-compressed.
    pub compressed: bool,
    /// Uncompressed bytes read: the content's size when parsing went to the end, never
    /// more than [`Limits::max_uncompressed_bytes`] + 1.
    pub uncompressed_bytes: u64,
    /// `<url>` elements (or non-blank text lines, or feed items) seen, valid or not.
    pub urls_seen: u64,
    /// `<sitemap>` elements seen in an index, valid or not.
    pub sitemaps_seen: u64,
    /// Issues found, including suppressed ones.
    pub issues: u64,
    /// Issues counted but not reported because their kind passed
    /// [`Limits::max_issues_per_kind`].
    pub suppressed_issues: u64,
    /// Whether the whole content was read: `false` after a fatal issue or when the
    /// callback stopped the parse.
    pub complete: bool,
}

/// Everything found in one sitemap, returned by [`parse`] and [`parse_reader`].
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The detected kind.
    pub kind: SitemapKind,
    /// Whether the input was gzip-compressed.
    pub compressed: bool,
    /// Page URLs, in document order (entries whose `<loc>` is unusable are left out and
    /// recorded as issues).
    pub entries: Vec<UrlEntry>,
    /// Child sitemaps of an index, in document order.
    pub sitemaps: Vec<SitemapRef>,
    /// Findings, in document order (at most [`Limits::max_issues_per_kind`] per kind).
    pub issues: Vec<Issue>,
    /// Uncompressed bytes read (see [`Summary::uncompressed_bytes`]).
    pub uncompressed_bytes: u64,
    /// `<url>` elements (or lines, or feed items) seen, valid or not.
    pub urls_seen: u64,
    /// `<sitemap>` elements seen in an index, valid or not.
    pub sitemaps_seen: u64,
    /// Issues not listed in `issues` because their kind passed the per-kind limit.
    pub suppressed_issues: u64,
    /// Whether the whole content was read (no fatal issue).
    pub complete: bool,
}

impl Parsed {
    /// The issues of one kind.
    pub fn issues_of(&self, kind: IssueKind) -> impl Iterator<Item = &Issue> {
        self.issues.iter().filter(move |i| i.kind == kind)
    }

    /// Whether at least one issue of this kind was recorded.
    pub fn has_issue(&self, kind: IssueKind) -> bool {
        self.issues.iter().any(|i| i.kind == kind)
    }
}

/// Why no parsing could happen at all. Everything else is an [`Issue`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The body is empty, or only whitespace (after decompression).
    #[error("the sitemap is empty")]
    Empty,
    /// The body starts with the gzip magic bytes but does not decompress.
    #[error("the sitemap is not valid gzip: {0}")]
    Decompress(#[source] io::Error),
    /// Reading the input failed before any content was read.
    #[error("reading the sitemap failed: {0}")]
    Io(#[source] io::Error),
}

/// Parses a downloaded sitemap body held in memory.
///
/// `sitemap_url` is where the sitemap was fetched from (after redirects): `<loc>`s are
/// checked against its host, scheme, port and directory (no such checks when it is not
/// an http(s) URL).
///
/// # Errors
/// [`ParseError`] only when there is no content to parse; see [`parse_with`].
pub fn parse(body: &[u8], sitemap_url: &Url, limits: &Limits) -> Result<Parsed, ParseError> {
    parse_reader(body, sitemap_url, limits)
}

/// Parses a sitemap from a reader (e.g. a file or a response body), collecting the results.
///
/// # Errors
/// [`ParseError`] only when there is no content to parse; see [`parse_with`].
pub fn parse_reader<R: Read>(
    reader: R,
    sitemap_url: &Url,
    limits: &Limits,
) -> Result<Parsed, ParseError> {
    let mut entries = Vec::new();
    let mut sitemaps = Vec::new();
    let mut issues = Vec::new();
    let summary = parse_with(reader, sitemap_url, limits, |item| {
        match item {
            Item::Url(e) => entries.push(e),
            Item::Sitemap(s) => sitemaps.push(s),
            Item::Issue(i) => issues.push(i),
            Item::Kind(_) => {}
        }
        ControlFlow::Continue(())
    })?;
    Ok(Parsed {
        kind: summary.kind,
        compressed: summary.compressed,
        entries,
        sitemaps,
        issues,
        uncompressed_bytes: summary.uncompressed_bytes,
        urls_seen: summary.urls_seen,
        sitemaps_seen: summary.sitemaps_seen,
        suppressed_issues: summary.suppressed_issues,
        complete: summary.complete,
    })
}

/// Parses a sitemap from a reader, handing each [`Item`] to `on_item` as soon as it is
/// complete; return [`ControlFlow::Break`] to stop early. Memory is bounded by the
/// largest single XML event (itself bounded by [`Limits::max_uncompressed_bytes`]),
/// not by the number of entries.
///
/// # Errors
/// [`ParseError::Empty`] when the (decompressed) content is empty or only whitespace;
/// [`ParseError::Decompress`] / [`ParseError::Io`] when the very first read fails. Any
/// failure after content was seen is an issue instead, and the items before it stand.
pub fn parse_with<R, F>(
    reader: R,
    sitemap_url: &Url,
    limits: &Limits,
    on_item: F,
) -> Result<Summary, ParseError>
where
    R: Read,
    F: FnMut(Item) -> ControlFlow<()>,
{
    let opened = input::open(reader, limits.max_uncompressed_bytes).map_err(ParseError::Io)?;
    let mut sink = Sink::new(on_item, limits, Base::new(sitemap_url));
    match opened {
        Opened::Empty => Err(ParseError::Empty),
        Opened::Failed {
            source,
            compressed,
            error,
        } => match source.classify(&error) {
            ReadFailure::Oversized { limit } => {
                sink.compressed = compressed;
                let _ = sink.kind(SitemapKind::Unknown);
                let _ = sink.fatal(
                    IssueKind::Oversized,
                    oversized_message(limit),
                    Some(source.position()),
                    None,
                );
                Ok(sink.summary(source.uncompressed_bytes(), false))
            }
            ReadFailure::Decompression(_) => Err(ParseError::Decompress(error)),
            ReadFailure::Io(_) => Err(ParseError::Io(error)),
        },
        Opened::Ready {
            mut source,
            compressed,
            first,
        } => {
            sink.compressed = compressed;
            let complete = match first {
                b'<' => xml::parse(&mut source, &mut sink),
                0xfe | 0xff => {
                    let _ = sink.kind(SitemapKind::Unknown);
                    let _ = sink.fatal(
                        IssueKind::UnsupportedEncoding,
                        "the content starts with a UTF-16 byte order mark; sitemaps must be UTF-8"
                            .to_owned(),
                        Some(source.position()),
                        None,
                    );
                    false
                }
                _ => text::parse(&mut source, &mut sink),
            };
            if complete && sink.urls == 0 && sink.sitemaps == 0 {
                let _ = sink.issue(
                    IssueKind::NoEntries,
                    "the sitemap lists no URLs".to_owned(),
                    None,
                    None,
                );
            }
            Ok(sink.summary(source.uncompressed_bytes(), complete))
        }
    }
}

fn oversized_message(limit: u64) -> String {
    format!("the uncompressed content is larger than {limit} bytes; parsing stopped there")
}

/// Shorthand for the flow of the internal parsers.
pub(crate) type Flow = ControlFlow<()>;

/// An entry as read, before validation.
#[derive(Debug, Default)]
pub(crate) struct RawEntry {
    pub(crate) position: Position,
    pub(crate) loc: Option<String>,
    /// The loc was cut at the field-size cap while reading.
    pub(crate) loc_truncated: bool,
    pub(crate) lastmod: Option<String>,
    pub(crate) changefreq: Option<String>,
    pub(crate) priority: Option<String>,
    pub(crate) alternates: Vec<Alternate>,
    pub(crate) images: u32,
    pub(crate) videos: u32,
    pub(crate) news: bool,
}

/// Receives what the format parsers find: counts, validates and forwards to the callback.
pub(crate) struct Sink<'l, F> {
    on_item: F,
    pub(crate) limits: &'l Limits,
    pub(crate) base: Base,
    kind: SitemapKind,
    compressed: bool,
    counts: HashMap<IssueKind, u64>,
    pub(crate) urls: u64,
    pub(crate) sitemaps: u64,
    emitted: u64,
    issues: u64,
    suppressed: u64,
}

impl<'l, F: FnMut(Item) -> ControlFlow<()>> Sink<'l, F> {
    fn new(on_item: F, limits: &'l Limits, base: Base) -> Self {
        Sink {
            on_item,
            limits,
            base,
            kind: SitemapKind::Unknown,
            compressed: false,
            counts: HashMap::new(),
            urls: 0,
            sitemaps: 0,
            emitted: 0,
            issues: 0,
            suppressed: 0,
        }
    }

    fn summary(&self, uncompressed_bytes: u64, complete: bool) -> Summary {
        Summary {
            kind: self.kind,
            compressed: self.compressed,
            uncompressed_bytes,
            urls_seen: self.urls,
            sitemaps_seen: self.sitemaps,
            issues: self.issues,
            suppressed_issues: self.suppressed,
            complete,
        }
    }

    /// Records the detected kind and tells the callback.
    pub(crate) fn kind(&mut self, kind: SitemapKind) -> Flow {
        self.kind = kind;
        (self.on_item)(Item::Kind(kind))
    }

    /// Records a non-fatal issue (subject to the per-kind limit).
    pub(crate) fn issue(
        &mut self,
        kind: IssueKind,
        message: String,
        position: Option<Position>,
        loc: Option<&str>,
    ) -> Flow {
        self.issues += 1;
        let count = self.counts.entry(kind).or_default();
        *count += 1;
        if *count > self.limits.max_issues_per_kind {
            self.suppressed += 1;
            return ControlFlow::Continue(());
        }
        (self.on_item)(Item::Issue(Issue {
            kind,
            message,
            position,
            loc: loc.map(str::to_owned),
        }))
    }

    /// Records an issue that ends parsing (never suppressed) and returns `Break`.
    pub(crate) fn fatal(
        &mut self,
        kind: IssueKind,
        message: String,
        position: Option<Position>,
        loc: Option<&str>,
    ) -> Flow {
        self.issues += 1;
        *self.counts.entry(kind).or_default() += 1;
        let _ = (self.on_item)(Item::Issue(Issue {
            kind,
            message,
            position,
            loc: loc.map(str::to_owned),
        }));
        ControlFlow::Break(())
    }

    /// Records a read failure as the matching fatal issue.
    pub(crate) fn read_failure(&mut self, failure: ReadFailure, position: Position) -> Flow {
        let (kind, message) = match failure {
            ReadFailure::Oversized { limit } => (IssueKind::Oversized, oversized_message(limit)),
            ReadFailure::Decompression(e) => (
                IssueKind::Decompression,
                format!("the gzip stream is corrupt or truncated: {e}"),
            ),
            ReadFailure::Io(e) => (IssueKind::Io, format!("reading the sitemap failed: {e}")),
        };
        self.fatal(kind, message, Some(position), None)
    }

    /// Checks the hard cap before emitting one more entry.
    fn reserve_entry(&mut self, position: Position) -> Flow {
        if self.emitted >= self.limits.max_entries {
            return self.fatal(
                IssueKind::EntryCapReached,
                format!(
                    "more than {} entries in one file; parsing stopped there",
                    self.limits.max_entries
                ),
                Some(position),
                None,
            );
        }
        self.emitted += 1;
        ControlFlow::Continue(())
    }

    /// Validates the trimmed loc of an entry; `None` when the entry must be dropped.
    fn check_loc(
        &mut self,
        loc: Option<String>,
        truncated: bool,
        position: Position,
        path_rule: bool,
        element: &str,
    ) -> ControlFlow<(), Option<String>> {
        let Some(raw) = loc else {
            self.issue(
                IssueKind::MissingLoc,
                format!("<{element}> has no <loc>; entry skipped"),
                Some(position),
                None,
            )?;
            return ControlFlow::Continue(None);
        };
        let loc = trim_xml(&raw);
        if loc.is_empty() {
            self.issue(
                IssueKind::EmptyLoc,
                format!("<{element}> has an empty <loc>; entry skipped"),
                Some(position),
                None,
            )?;
            return ControlFlow::Continue(None);
        }
        if truncated {
            self.issue(
                IssueKind::LocTooLong,
                format!(
                    "<loc> is longer than {} bytes; entry skipped",
                    xml::MAX_FIELD_BYTES
                ),
                Some(position),
                Some(&loc[..loc.floor_char_boundary(256)]),
            )?;
            return ControlFlow::Continue(None);
        }
        let check = validate::check_loc(loc, &self.base, self.limits.max_loc_len, path_rule);
        for (kind, message) in check.issues {
            self.issue(kind, message, Some(position), Some(loc))?;
        }
        if !check.keep {
            return ControlFlow::Continue(None);
        }
        let kept = if loc.len() == raw.len() {
            raw
        } else {
            loc.to_owned()
        };
        ControlFlow::Continue(Some(kept))
    }

    /// Validates a `<lastmod>`; invalid values are recorded and dropped.
    fn check_lastmod(
        &mut self,
        lastmod: Option<String>,
        position: Position,
        loc: Option<&str>,
    ) -> ControlFlow<(), Option<String>> {
        let Some(raw) = lastmod else {
            return ControlFlow::Continue(None);
        };
        let value = trim_xml(&raw);
        if is_w3c_datetime(value) {
            return ControlFlow::Continue(Some(value.to_owned()));
        }
        self.issue(
            IssueKind::InvalidLastmod,
            format!("<lastmod> {value:?} is not a W3C datetime"),
            Some(position),
            loc,
        )?;
        ControlFlow::Continue(None)
    }

    /// Validates and forwards a page URL entry.
    pub(crate) fn url(&mut self, raw: RawEntry, element: &str, path_rule: bool) -> Flow {
        let position = raw.position;
        self.urls += 1;
        if self.urls == self.limits.max_urls.saturating_add(1) {
            self.issue(
                IssueKind::TooManyUrls,
                format!(
                    "more than {} URLs in one sitemap file; split it (entries past the limit are still listed)",
                    self.limits.max_urls
                ),
                Some(position),
                None,
            )?;
        }
        let loc = self.check_loc(raw.loc, raw.loc_truncated, position, path_rule, element)?;
        let loc_ref = loc.as_deref();
        let lastmod = self.check_lastmod(raw.lastmod, position, loc_ref)?;
        let changefreq = match raw.changefreq {
            None => None,
            Some(v) => {
                let v = trim_xml(&v);
                let parsed = validate::parse_changefreq(v);
                if parsed.is_none() {
                    self.issue(
                        IssueKind::InvalidChangefreq,
                        format!(
                            "<changefreq> {v:?} is not one of always, hourly, daily, weekly, monthly, yearly, never"
                        ),
                        Some(position),
                        loc_ref,
                    )?;
                }
                parsed
            }
        };
        let priority = match raw.priority {
            None => None,
            Some(v) => {
                let v = trim_xml(&v);
                let parsed = validate::parse_priority(v);
                if parsed.is_none() {
                    self.issue(
                        IssueKind::InvalidPriority,
                        format!("<priority> {v:?} is not a number from 0.0 to 1.0"),
                        Some(position),
                        loc_ref,
                    )?;
                }
                parsed
            }
        };
        let Some(loc) = loc else {
            return ControlFlow::Continue(());
        };
        self.reserve_entry(position)?;
        (self.on_item)(Item::Url(UrlEntry {
            loc,
            lastmod,
            changefreq,
            priority,
            alternates: raw.alternates,
            images: raw.images,
            videos: raw.videos,
            news: raw.news,
            position,
        }))
    }

    /// Validates and forwards a child sitemap of an index.
    pub(crate) fn sitemap(&mut self, raw: RawEntry) -> Flow {
        let position = raw.position;
        self.sitemaps += 1;
        if self.sitemaps == self.limits.max_urls.saturating_add(1) {
            self.issue(
                IssueKind::TooManySitemaps,
                format!(
                    "more than {} sitemaps in one index; split it (entries past the limit are still listed)",
                    self.limits.max_urls
                ),
                Some(position),
                None,
            )?;
        }
        let loc = self.check_loc(raw.loc, raw.loc_truncated, position, false, "sitemap")?;
        let lastmod = self.check_lastmod(raw.lastmod, position, loc.as_deref())?;
        let Some(loc) = loc else {
            return ControlFlow::Continue(());
        };
        self.reserve_entry(position)?;
        (self.on_item)(Item::Sitemap(SitemapRef {
            loc,
            lastmod,
            position,
        }))
    }
}
