//! The tables: each one's columns (the documented schema) and how a buffer of rows
//! becomes Arrow arrays.

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, Int32Array, Int64Array, StringArray};
use arrow_schema::{DataType, Field};

use crate::{ColumnarError, TableFile, Written};

/// One exported table: its file name (without `.parquet`) and its columns as
/// `(name, type, nullable, meaning)`.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    /// The table (and file) name.
    pub name: &'static str,
    /// What one row is.
    pub row: &'static str,
    /// `(column, Arrow type, nullable, meaning)`.
    pub columns: &'static [(&'static str, DataTypeName, bool, &'static str)],
}

/// The Arrow types the tables use, by name (for the documented schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataTypeName {
    /// 64-bit signed integer.
    Int64,
    /// 32-bit signed integer.
    Int32,
    /// UTF-8 text.
    Utf8,
    /// true / false.
    Boolean,
}

impl DataTypeName {
    fn arrow(self) -> DataType {
        match self {
            DataTypeName::Int64 => DataType::Int64,
            DataTypeName::Int32 => DataType::Int32,
            DataTypeName::Utf8 => DataType::Utf8,
            DataTypeName::Boolean => DataType::Boolean,
        }
    }

    /// The type's name as Arrow writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            DataTypeName::Int64 => "Int64",
            DataTypeName::Int32 => "Int32",
            DataTypeName::Utf8 => "Utf8",
            DataTypeName::Boolean => "Boolean",
        }
    }
}

use DataTypeName::{Boolean, Int32, Int64, Utf8};

/// Every table an export writes, in the order it writes them.
pub const TABLES: &[Table] = &[
    Table {
        name: "urls",
        row: "one URL the audit found",
        columns: &[
            ("id", Int64, false, "the URL's id within the audit"),
            (
                "url",
                Utf8,
                false,
                "the absolute URL as first found (what was requested)",
            ),
            (
                "url_rfc3986",
                Utf8,
                false,
                "its RFC 3986 normal form: the crawl's identity",
            ),
            (
                "key",
                Utf8,
                true,
                "its equivalence key under the audit's normalization policy; null when none can be formed",
            ),
            ("depth", Int32, false, "link hops from a start URL"),
            (
                "found_via",
                Utf8,
                false,
                "start, variant, link, redirect, meta_refresh, canonical, hreflang or sitemap",
            ),
            (
                "state",
                Utf8,
                false,
                "queued, fetching, done, blocked, failed or skipped",
            ),
            (
                "reason",
                Utf8,
                true,
                "why it was skipped, blocked or failed",
            ),
            (
                "found_from",
                Int64,
                true,
                "the id of the page (or redirect source) that found it",
            ),
            (
                "comments_of",
                Utf8,
                true,
                "for a page of paginated comments (/comment-page-2/, ?cpage=2), the URL without its page number: the post it belongs to",
            ),
        ],
    },
    Table {
        name: "fetches",
        row: "one fetched URL's response",
        columns: &[
            ("url_id", Int64, false, "the fetched URL (urls.id)"),
            (
                "status",
                Int32,
                true,
                "HTTP status; null when no response arrived",
            ),
            ("content_type", Utf8, true, "the Content-Type header"),
            (
                "redirect_to",
                Int64,
                true,
                "the hop target of a 3xx or meta refresh (urls.id)",
            ),
            ("title", Utf8, true, "the page title"),
            ("h1", Utf8, true, "the first h1"),
            (
                "noindex",
                Boolean,
                false,
                "meta robots or X-Robots-Tag say noindex",
            ),
            (
                "nofollow",
                Boolean,
                false,
                "meta robots or X-Robots-Tag say nofollow",
            ),
            (
                "text_hash",
                Int64,
                true,
                "xxh3-64 of the visible text (the bits as a signed integer)",
            ),
            (
                "simhash",
                Int64,
                true,
                "64-bit SimHash of the visible text (the bits as a signed integer)",
            ),
            ("word_count", Int32, true, "words of visible text"),
            ("truncated", Boolean, false, "the body hit the byte cap"),
            ("error_kind", Utf8, true, "why no usable response arrived"),
            (
                "total_ms",
                Int64,
                true,
                "time to the end of the body, in ms",
            ),
            (
                "body_bytes",
                Int64,
                false,
                "body bytes read, after decompression",
            ),
        ],
    },
    Table {
        name: "links",
        row: "one link between two pages, as a pair of ids",
        columns: &[
            ("from_url_id", Int64, false, "the page the link is in"),
            (
                "to_url_id",
                Int64,
                true,
                "the URL it points at; null when its href did not resolve to an http(s) URL",
            ),
            ("nofollow", Boolean, false, "it carries rel=nofollow"),
            (
                "region",
                Utf8,
                true,
                "where in the page it sits (content, navigation, ...)",
            ),
            (
                "tag",
                Utf8,
                false,
                "the element or declaration it comes from",
            ),
        ],
    },
    Table {
        name: "canonicals",
        row: "one rel=canonical declaration",
        columns: &[
            ("page_url_id", Int64, false, "the declaring page"),
            (
                "position",
                Int32,
                false,
                "order of declaration (headers first)",
            ),
            (
                "target_url_id",
                Int64,
                true,
                "the target; null when its href did not resolve",
            ),
            ("source", Utf8, false, "link_element or http_header"),
            ("in_head", Boolean, false, "the element sits in head"),
        ],
    },
    Table {
        name: "redirects",
        row: "one redirect hop",
        columns: &[
            ("from_url_id", Int64, false, "the redirecting URL"),
            (
                "to_url_id",
                Int64,
                true,
                "the hop target; null when Location did not resolve",
            ),
            (
                "status",
                Int32,
                false,
                "301, 302, ...; the page status for a meta refresh",
            ),
            ("kind", Utf8, false, "http or meta_refresh"),
            (
                "hop_index",
                Int32,
                false,
                "position in the chain the crawler followed",
            ),
        ],
    },
    Table {
        name: "sitemap_entries",
        row: "one URL listed in a sitemap",
        columns: &[
            ("sitemap_id", Int64, false, "the listing sitemap"),
            (
                "url_id",
                Int64,
                true,
                "the listed URL; null when loc did not resolve",
            ),
            (
                "loc_raw",
                Utf8,
                false,
                "the loc as written when it did not resolve (empty otherwise)",
            ),
        ],
    },
    Table {
        name: "robots_blocks",
        row: "one URL robots.txt kept the crawler from requesting",
        columns: &[("url_id", Int64, false, "the blocked URL")],
    },
    Table {
        name: "probes",
        row: "one URL variant requested after the crawl",
        columns: &[
            ("url_id", Int64, false, "the variant"),
            ("base_url_id", Int64, false, "the page it varies"),
            (
                "rule",
                Utf8,
                false,
                "how the variant was made (host_www, scheme, trailing_slash, ...)",
            ),
        ],
    },
    Table {
        name: "log_hits",
        row: "one URL's requests in the imported access logs",
        columns: &[
            ("url_id", Int64, false, "the requested URL"),
            (
                "verified_bot_requests",
                Int64,
                false,
                "requests from search-engine bots verified by DNS",
            ),
            (
                "unverified_bot_requests",
                Int64,
                false,
                "requests with a bot's user agent, not verified",
            ),
            (
                "fake_bot_requests",
                Int64,
                false,
                "requests with a bot's user agent from an address that failed the check",
            ),
            ("other_requests", Int64, false, "every other request"),
        ],
    },
    Table {
        name: "renders",
        row: "one page rendered in a browser (audits with rendering on)",
        columns: &[
            ("url_id", Int64, false, "the page"),
            (
                "outcome",
                Utf8,
                false,
                "rendered, unsettled (both read the DOM), timeout or failed",
            ),
            ("title", Utf8, true, "the rendered title"),
            ("h1", Utf8, true, "the rendered first h1"),
            (
                "noindex",
                Boolean,
                false,
                "the rendered meta robots say noindex",
            ),
            (
                "names_canonical",
                Boolean,
                false,
                "the rendered head names a canonical",
            ),
            (
                "canonical_url_id",
                Int64,
                true,
                "its target (urls.id); null when none or it did not resolve",
            ),
            ("word_count", Int32, true, "words of rendered visible text"),
            (
                "text_hash",
                Int64,
                true,
                "xxh3-64 of the rendered visible text (the bits as a signed integer)",
            ),
        ],
    },
    Table {
        name: "content",
        row: "one page with stored text blocks, as the analysis reads it",
        columns: &[
            ("url_id", Int64, false, "the page"),
            (
                "main_hash",
                Int64,
                false,
                "hash of its main content, the site's template removed (the bits as a signed integer)",
            ),
            ("main_words", Int32, false, "words of main content"),
        ],
    },
];

fn open<T>(
    dir: &Path,
    name: &'static str,
    build: fn(&[T]) -> Vec<ArrayRef>,
) -> Result<TableFile<T>, ColumnarError> {
    let table = TABLES
        .iter()
        .find(|t| t.name == name)
        .map_or(&[][..], |t| t.columns);
    let fields = table
        .iter()
        .map(|&(n, ty, nullable, _)| Field::new(n, ty.arrow(), nullable))
        .collect();
    TableFile::create(dir, name, fields, build)
}

fn i64s(v: impl Iterator<Item = i64>) -> ArrayRef {
    Arc::new(Int64Array::from_iter_values(v))
}
fn opt_i64s(v: impl Iterator<Item = Option<i64>>) -> ArrayRef {
    Arc::new(Int64Array::from_iter(v))
}
fn i32s(v: impl Iterator<Item = i32>) -> ArrayRef {
    Arc::new(Int32Array::from_iter_values(v))
}
fn opt_i32s(v: impl Iterator<Item = Option<i32>>) -> ArrayRef {
    Arc::new(Int32Array::from_iter(v))
}
fn strs<'a>(v: impl Iterator<Item = &'a str>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(v))
}
fn opt_strs<'a>(v: impl Iterator<Item = Option<&'a str>>) -> ArrayRef {
    Arc::new(StringArray::from_iter(v))
}
fn bools(v: impl Iterator<Item = bool>) -> ArrayRef {
    Arc::new(BooleanArray::from_iter(v.map(Some)))
}
fn int32(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}
fn int64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A URL row with its key.
pub(crate) struct KeyedUrl {
    facts: store::UrlFacts,
    key: Option<String>,
    comments_of: Option<String>,
}

pub(crate) async fn urls(
    store: &store::Store,
    audit: store::AuditId,
    policy: &canon::Policy,
    dir: &Path,
) -> Result<Written, ColumnarError> {
    let mut file = open(dir, "urls", |rows: &[KeyedUrl]| {
        vec![
            i64s(rows.iter().map(|r| r.facts.id)),
            strs(rows.iter().map(|r| r.facts.url.as_str())),
            strs(rows.iter().map(|r| r.facts.url_rfc3986.as_str())),
            opt_strs(rows.iter().map(|r| r.key.as_deref())),
            i32s(rows.iter().map(|r| int32(r.facts.depth))),
            strs(rows.iter().map(|r| r.facts.found_via.as_str())),
            strs(rows.iter().map(|r| r.facts.state.as_str())),
            opt_strs(rows.iter().map(|r| r.facts.reason.map(|k| k.as_str()))),
            opt_i64s(rows.iter().map(|r| r.facts.found_from)),
            opt_strs(rows.iter().map(|r| r.comments_of.as_deref())),
        ]
    })?;
    store
        .scan_urls(audit, |facts| {
            // The analysis's key: from the URL as found, else from its rfc3986 form.
            let key = canon::equivalence_key(&facts.url, policy)
                .or_else(|_| canon::equivalence_key(&facts.url_rfc3986, policy))
                .ok();
            let url = &facts.url_rfc3986;
            let comments_of = rules::url::comment_page(url)
                .then(|| rules::url::without_page_number(url))
                .flatten();
            file.push(KeyedUrl {
                facts,
                key,
                comments_of,
            });
        })
        .await?;
    file.finish()
}

pub(crate) async fn fetches(
    store: &store::Store,
    audit: store::AuditId,
    dir: &Path,
) -> Result<Written, ColumnarError> {
    let mut file = open(dir, "fetches", |rows: &[store::FetchFacts]| {
        vec![
            i64s(rows.iter().map(|r| r.url_id)),
            opt_i32s(rows.iter().map(|r| r.status.map(i32::from))),
            opt_strs(rows.iter().map(|r| r.content_type.as_deref())),
            opt_i64s(rows.iter().map(|r| r.redirect_to)),
            opt_strs(rows.iter().map(|r| r.title.as_deref())),
            opt_strs(rows.iter().map(|r| r.h1.as_deref())),
            bools(rows.iter().map(|r| r.noindex)),
            bools(rows.iter().map(|r| r.nofollow)),
            opt_i64s(rows.iter().map(|r| r.text_hash)),
            opt_i64s(rows.iter().map(|r| r.simhash)),
            opt_i32s(rows.iter().map(|r| r.word_count.map(int32))),
            bools(rows.iter().map(|r| r.truncated)),
            opt_strs(rows.iter().map(|r| r.error_kind.as_deref())),
            opt_i64s(rows.iter().map(|r| r.total_ms.map(int64))),
            i64s(rows.iter().map(|r| int64(r.body_bytes))),
        ]
    })?;
    store
        .scan_fetches(audit, |mut f| {
            // The text blocks stay in the store: the content table carries what the
            // analysis derives from them.
            f.blocks = None;
            file.push(f);
        })
        .await?;
    file.finish()
}

pub(crate) async fn links(
    store: &store::Store,
    audit: store::AuditId,
    dir: &Path,
) -> Result<Written, ColumnarError> {
    let mut file = open(dir, "links", |rows: &[store::LinkEdge]| {
        vec![
            i64s(rows.iter().map(|r| r.from)),
            opt_i64s(rows.iter().map(|r| r.to)),
            bools(rows.iter().map(|r| r.nofollow)),
            opt_strs(rows.iter().map(|r| r.region.map(|x| x.as_str()))),
            strs(rows.iter().map(|r| r.tag.as_str())),
        ]
    })?;
    store.scan_links(audit, |l| file.push(l)).await?;
    file.finish()
}

pub(crate) async fn canonicals(
    store: &store::Store,
    audit: store::AuditId,
    dir: &Path,
) -> Result<Written, ColumnarError> {
    let mut file = open(dir, "canonicals", |rows: &[store::CanonicalDecl]| {
        vec![
            i64s(rows.iter().map(|r| r.page)),
            i32s(rows.iter().map(|r| int32(r.position))),
            opt_i64s(rows.iter().map(|r| r.target)),
            strs(rows.iter().map(|r| r.source.as_str())),
            bools(rows.iter().map(|r| r.in_head)),
        ]
    })?;
    store.scan_canonicals(audit, |c| file.push(c)).await?;
    file.finish()
}

pub(crate) async fn redirects(
    store: &store::Store,
    audit: store::AuditId,
    dir: &Path,
) -> Result<Written, ColumnarError> {
    let mut file = open(dir, "redirects", |rows: &[store::RedirectHop]| {
        vec![
            i64s(rows.iter().map(|r| r.from)),
            opt_i64s(rows.iter().map(|r| r.to)),
            i32s(rows.iter().map(|r| i32::from(r.status))),
            strs(rows.iter().map(|r| r.kind.as_str())),
            i32s(rows.iter().map(|r| int32(r.hop_index))),
        ]
    })?;
    store.scan_redirects(audit, |h| file.push(h)).await?;
    file.finish()
}

pub(crate) async fn sitemap_entries(
    store: &store::Store,
    audit: store::AuditId,
    dir: &Path,
) -> Result<Written, ColumnarError> {
    let mut file = open(
        dir,
        "sitemap_entries",
        |rows: &[store::SitemapListing]| {
            vec![
                i64s(rows.iter().map(|r| r.sitemap_id)),
                opt_i64s(rows.iter().map(|r| r.url_id)),
                strs(rows.iter().map(|r| r.loc_raw.as_str())),
            ]
        },
    )?;
    store.scan_sitemap_entries(audit, |e| file.push(e)).await?;
    file.finish()
}

pub(crate) async fn robots_blocks(
    store: &store::Store,
    audit: store::AuditId,
    dir: &Path,
) -> Result<Written, ColumnarError> {
    let mut file = open(dir, "robots_blocks", |rows: &[i64]| {
        vec![i64s(rows.iter().copied())]
    })?;
    for id in store.robots_blocked(audit).await? {
        file.push(id);
    }
    file.finish()
}

pub(crate) async fn probes(
    store: &store::Store,
    audit: store::AuditId,
    dir: &Path,
) -> Result<Written, ColumnarError> {
    let mut file = open(dir, "probes", |rows: &[store::ProbeRecord]| {
        vec![
            i64s(rows.iter().map(|r| r.url_id)),
            i64s(rows.iter().map(|r| r.base_url_id)),
            strs(rows.iter().map(|r| r.rule.as_str())),
        ]
    })?;
    // Probes are a few per page pattern, not per page: one read.
    for p in store.probes(audit).await? {
        file.push(p);
    }
    file.finish()
}

pub(crate) async fn log_hits(
    store: &store::Store,
    audit: store::AuditId,
    dir: &Path,
) -> Result<Written, ColumnarError> {
    let mut file = open(dir, "log_hits", |rows: &[store::LogHits]| {
        vec![
            i64s(rows.iter().map(|r| r.url_id)),
            i64s(rows.iter().map(|r| int64(r.verified_bot_requests))),
            i64s(rows.iter().map(|r| int64(r.unverified_bot_requests))),
            i64s(rows.iter().map(|r| int64(r.fake_bot_requests))),
            i64s(rows.iter().map(|r| int64(r.other_requests))),
        ]
    })?;
    for h in store.log_hits(audit).await? {
        file.push(h);
    }
    file.finish()
}

pub(crate) async fn renders(
    store: &store::Store,
    audit: store::AuditId,
    dir: &Path,
) -> Result<Written, ColumnarError> {
    let mut file = open(dir, "renders", |rows: &[store::RenderFacts]| {
        vec![
            i64s(rows.iter().map(|r| r.url_id)),
            strs(rows.iter().map(|r| r.outcome.as_str())),
            opt_strs(rows.iter().map(|r| r.title.as_deref())),
            opt_strs(rows.iter().map(|r| r.h1.as_deref())),
            bools(rows.iter().map(|r| r.noindex)),
            bools(rows.iter().map(|r| r.names_canonical)),
            opt_i64s(rows.iter().map(|r| r.canonical_url_id)),
            opt_i32s(rows.iter().map(|r| r.word_count.map(int32))),
            opt_i64s(rows.iter().map(|r| r.text_hash)),
        ]
    })?;
    store.scan_renders(audit, |r| file.push(r)).await?;
    file.finish()
}

pub(crate) fn content(analysis: &audit::Analysis, dir: &Path) -> Result<Written, ColumnarError> {
    let mut file = open(dir, "content", |rows: &[(i64, u64, u32)]| {
        vec![
            i64s(rows.iter().map(|r| r.0)),
            i64s(rows.iter().map(|r| r.1 as i64)),
            i32s(rows.iter().map(|r| int32(r.2))),
        ]
    })?;
    let mut words = analysis.main_words.iter().peekable();
    for &(id, hash) in &analysis.main_hashes {
        while words.next_if(|w| w.0 < id).is_some() {}
        let w = words.next_if(|w| w.0 == id).map_or(0, |w| w.1);
        file.push((i64::from(id), hash, w));
    }
    file.finish()
}
