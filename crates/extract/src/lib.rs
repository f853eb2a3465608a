//! Turns one fetched HTML document into what an SEO audit needs.
//!
//! Pure functions: no I/O, no network, no global state. The entry point is [`extract`]
//! (or [`extract_with`] for custom [`Limits`]); [`parse_robots_directives`],
//! [`parse_link_header`] and [`parse_refresh`] parse the HTTP headers that carry the
//! same information (`X-Robots-Tag`, `Link`, `Refresh`).
//!
//! ```
//! let html = br#"<!doctype html><html lang="en"><head>
//!   <title> Blue   widgets </title>
//!   <link rel="Canonical" href="https://shop.example/widgets/blue">
//!   <meta name="robots" content="noindex, follow">
//! </head><body>
//!   <p>Our <a href="/widgets/red" rel="nofollow">red widgets</a> are nice too.</p>
//! </body></html>"#;
//! let page = extract::extract(html, Some("text/html; charset=utf-8"));
//! assert_eq!(page.title.as_deref(), Some("Blue widgets"));
//! assert_eq!(page.lang.as_deref(), Some("en"));
//! assert_eq!(page.canonicals[0].href, "https://shop.example/widgets/blue");
//! assert!(page.canonicals[0].in_head);
//! assert!(page.meta_robots[0].directives.noindex);
//! assert_eq!(page.links[0].href, "/widgets/red");
//! assert_eq!(page.links[0].text, "red widgets");
//! assert!(page.links[0].nofollow);
//! assert_eq!(page.word_count, 6);
//!
//! let robots = extract::parse_robots_directives("googlebot: noindex");
//! assert_eq!(robots.user_agent.as_deref(), Some("googlebot"));
//! assert!(robots.noindex);
//!
//! let header = extract::parse_link_header(r#"<https://shop.example/a>; rel="canonical""#);
//! assert!(header[0].has_rel("canonical"));
//! ```
//!
//! # Declared URLs
//!
//! Besides links, a page declares URLs that search engines discover and crawl
//! ([`Page::declared`], each with its [`DeclaredKind`]): `<link rel=shortlink>`,
//! `<link rel=alternate>` without `hreflang` (feeds, media, other formats; not
//! `alternate stylesheet`), `<link rel=amphtml>`, `<meta property=og:url>`, and the
//! string values of `@id` and `url` keys anywhere in a `<script type=application/ld+json>`
//! block that look like http(s) URLs (absolute, or starting with `/`; blocks over
//! [`MAX_JSON_LD_BYTES`] are not read, at most [`MAX_STRUCTURED_DATA_URLS`] distinct
//! URLs are kept per page). [`declared_in_link_header`] reads the same from an HTTP
//! `Link:` header (rel `shortlink`, `alternate` without `hreflang`, `amphtml`, `next`,
//! `prev`).
//!
//! ```
//! let html = br#"<html><head>
//!   <link rel="shortlink" href="/?p=31">
//!   <meta property="og:url" content="https://shop.example/post?utm_source=share">
//!   <script type="application/ld+json">{"@id": "https://shop.example/post#article",
//!     "publisher": {"url": "https://shop.example/"}}</script>
//! </head></html>"#;
//! let page = extract::extract(html, None);
//! let found: Vec<(&str, &str)> =
//!     page.declared.iter().map(|d| (d.kind.as_str(), d.href.as_str())).collect();
//! assert_eq!(found, [
//!     ("shortlink", "/?p=31"),
//!     ("og_url", "https://shop.example/post?utm_source=share"),
//!     ("structured_data", "https://shop.example/post#article"),
//!     ("structured_data", "https://shop.example/"),
//! ]);
//! ```
//!
//! # Parsing
//!
//! The document is parsed with html5ever, a complete HTML5 tree builder, with scripting
//! enabled as in a browser (so `<noscript>` content is text, not markup). Everything is
//! read from the tree the parser built, which is what browsers and search engines see:
//! a `<link rel=canonical>` written after a body-only element (an `<img>`, a stray text
//! node, ...) in `<head>` is moved into `<body>` by the parser and reported with
//! `in_head: false`. Contents of `<template>` are not part of the document and are
//! ignored. SVG `<a>` elements are not reported as links.
//!
//! # Character encoding
//!
//! In this order, first match wins (the HTML Standard's encoding sniffing): a byte order
//! mark; the Content-Type header's `charset`; a `<meta charset>` or
//! `<meta http-equiv=content-type>` found by the HTML Standard's prescan of the first
//! 1024 bytes; windows-1252. Labels unknown to the Encoding Standard are ignored. The
//! bytes are decoded with encoding_rs: malformed sequences become U+FFFD, never an error.
//! A BOM wins over the header, as in browsers (the HTML Standard puts the BOM first).
//!
//! # Content fingerprints
//!
//! The *visible text* is the text of the `<body>` (more exactly: of the tree outside
//! `<head>`), leaving out `<script>`, `<style>`, `<noscript>`, `<template>`, `<iframe>`,
//! `<noembed>`, `<noframes>`, `<title>` and SVG `<title>`/`<desc>`/`<script>`/`<style>`.
//! The edges of block-level elements (`p`, `div`, `li`, `td`, `br`, headings, ...) count as
//! whitespace; inline elements (`b`, `span`, `a`, ...) do not, so `<b>Wo</b>rd` is "word".
//!
//! * `text_hash` is xxh3-64 of the *normalized* visible text: runs of Unicode whitespace
//!   collapsed to one space, trimmed, lowercased (Unicode lowercase). Two pages whose
//!   text differs only in whitespace, markup or letter case get the same hash.
//! * Words are maximal runs of alphanumeric characters of the normalized text (so
//!   punctuation separates words and is ignored); each character of a script written
//!   without spaces (CJK ideographs, kana, Thai, Lao, Khmer, Myanmar) is a word of its own.
//!   `word_count` counts them.
//! * `simhash` is a 64-bit SimHash (Charikar 2002) whose features are the word
//!   3-shingles: each word is hashed with xxh3-64 of its UTF-8 bytes, each shingle with
//!   xxh3-64 of the 24 little-endian bytes of its three word hashes; every shingle
//!   occurrence adds +1 to the 64 counters whose bit is set in its hash and -1 to the
//!   others; bit *i* of the SimHash is set when counter *i* is positive. A text of one or
//!   two words uses the word hashes as features instead; an empty text has SimHash 0.
//!   Compare with [`simhash_distance`] (Hamming distance; near-duplicates are within a
//!   few bits, unrelated pages around 32) or [`similarity`].
//!
//! All hashes are xxh3 with seed 0 on explicitly ordered bytes, so they are stable across
//! runs, platforms and Rust versions and can be stored. A page with `word_count == 0`
//! has the hash of the empty text: callers should not treat such pages as duplicates
//! on content alone.
//!
//! # Bounds
//!
//! Hostile input never panics and stays linear in memory. What is kept is bounded by
//! [`Limits`] (defaults in brackets): the input is cut at `max_input_bytes` \[64 MiB\];
//! at most `max_links` \[10,000\] links; at most `max_link_elements` \[1,000\] each of
//! canonicals, hreflang alternates, next/prev links and each kind of declared URL; at most `max_metas` \[100\] each
//! of meta robots and meta refresh; anchor texts, the title and the meta description
//! are cut at `max_text_chars` \[1,000 characters\]; attribute values (hrefs, contents,
//! hreflang, base, lang) at `max_value_bytes` \[8 KiB\]. Against the HTML tree builder's
//! quadratic corners, start tags of ordinary elements (not `a`, `title`, `link`, `meta`,
//! void or raw-text elements) are ignored where the tree is already `max_depth` \[512\]
//! deep (their content is kept, one level up; Blink caps the tree depth at 512 too), and
//! tree building stops after `max_nodes` \[1,000,000\] nodes. Whatever is dropped or cut is
//! counted in [`Page::dropped`]. The fingerprints cover all the text that is in the tree.

pub mod blocks;
mod charset;
mod dom;
mod fingerprint;
mod link_header;
mod parse;
mod refresh;
mod robots;

use html5ever::{LocalName, local_name};
use serde::{Deserialize, Serialize};

pub use charset::{CharsetSource, PRESCAN_BYTES, charset_from_content_type};
/// encoding_rs's encoding type, re-exported: [`charset_from_content_type`] returns one.
pub use encoding_rs::Encoding;
pub use fingerprint::{fingerprint_text, normalize_text, simhash_distance, similarity};
pub use link_header::{LinkHeaderEntry, MAX_LINK_HEADER_ENTRIES, parse_link_header};

/// JSON-LD blocks larger than this (bytes of their text) are not read for declared URLs.
pub const MAX_JSON_LD_BYTES: usize = 256 * 1024;
/// Structured-data URLs kept per page (distinct hrefs, over all its JSON-LD blocks).
pub const MAX_STRUCTURED_DATA_URLS: usize = 50;
pub use refresh::{Refresh, parse_refresh};
pub use robots::{RobotsDirectives, parse_robots_directives, parse_robots_scopes};

pub use blocks::TextBlock;
use dom::{DOCUMENT, Data, Dom, Kind, NONE, NodeId};
use fingerprint::Fingerprinter;

/// Everything extracted from one HTML document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page {
    /// Text of the first `<title>`, whitespace-collapsed; `None` when there is none.
    pub title: Option<String>,
    /// `content` of the first `<meta name=description content>` in `<head>`,
    /// whitespace-collapsed and cut like the title; `None` when there is none.
    #[serde(default)]
    pub meta_description: Option<String>,
    /// `href` of the first `<base href>`, as written (surrounding whitespace removed).
    pub base_href: Option<String>,
    /// The `lang` attribute of `<html>`, as written.
    pub lang: Option<String>,
    /// Name of the encoding used to decode the body (Encoding Standard name, e.g.
    /// `UTF-8`, `windows-1251`, `Shift_JIS`).
    pub charset: String,
    /// Where that encoding came from.
    pub charset_source: CharsetSource,
    /// Every `<a href>` and `<area href>`, in document order.
    pub links: Vec<Link>,
    /// Every `<link rel=canonical href>`, in document order.
    pub canonicals: Vec<Canonical>,
    /// Every `<link rel=alternate hreflang href>`, in document order.
    pub hreflangs: Vec<Hreflang>,
    /// Every `<link rel=next|prev href>`, in document order.
    pub pagination: Vec<Pagination>,
    /// URLs the page declares for discovery (shortlink, alternates without hreflang,
    /// amphtml, og:url, structured data), in document order (see the crate docs).
    #[serde(default)]
    pub declared: Vec<DeclaredUrl>,
    /// Every `<meta name=robots|googlebot|googlebot-news|bingbot>`, in document order.
    pub meta_robots: Vec<MetaRobots>,
    /// Every `<meta http-equiv=refresh>`, in document order.
    pub meta_refresh: Vec<MetaRefresh>,
    /// xxh3-64 of the normalized visible text (see the crate docs).
    pub text_hash: u64,
    /// 64-bit SimHash of the visible text's word 3-shingles (see the crate docs).
    pub simhash: u64,
    /// Number of words of the visible text.
    pub word_count: u64,
    /// Text of the first `<h1>`, whitespace-collapsed; `None` when there is none.
    pub h1: Option<String>,
    /// The visible text outside site chrome, cut into blocks (see [`blocks`]): what an
    /// analysis of the whole site separates into template and main content.
    pub blocks: Vec<TextBlock>,
    /// What the [`Limits`] made the extractor drop or cut.
    pub dropped: Dropped,
}

/// Which element a link comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkTag {
    /// `<a href>`.
    A,
    /// `<area href>` (in an image map).
    Area,
}

/// Where in the page a link sits (one of the words the store and the analysis share).
pub use vocab::LinkRegion;

/// One hyperlink.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// The `href` as written: unresolved, surrounding whitespace and control characters
    /// removed. `javascript:`, `mailto:`, `#frag` and empty hrefs are kept.
    pub href: String,
    /// The anchor text: visible text inside the link, whitespace-collapsed; for a link
    /// without text, the `alt` of the images inside it; for `<area>`, its `alt`.
    pub text: String,
    /// The element.
    pub tag: LinkTag,
    /// `rel` holds `nofollow`.
    pub nofollow: bool,
    /// `rel` holds `sponsored`.
    pub sponsored: bool,
    /// `rel` holds `ugc`.
    pub ugc: bool,
    /// Where in the page it sits.
    #[serde(default)]
    pub region: LinkRegion,
}

/// One `<link rel=canonical>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Canonical {
    /// The `href` as written (trimmed, unresolved). Elements without `href` are skipped.
    pub href: String,
    /// Whether the parser placed it inside `<head>` (search engines ignore it elsewhere).
    pub in_head: bool,
}

/// One `<link rel=alternate hreflang=.. href=..>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hreflang {
    /// The `hreflang` value as written (trimmed), e.g. `de-AT` or `x-default`.
    pub hreflang: String,
    /// The `href` as written (trimmed, unresolved).
    pub href: String,
    /// Whether the parser placed it inside `<head>`.
    pub in_head: bool,
}

/// Direction of a pagination link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageDirection {
    /// `rel=next`.
    Next,
    /// `rel=prev` (or the non-standard `previous`).
    Prev,
}

/// One `<link rel=next|prev href>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pagination {
    /// Next or previous.
    pub direction: PageDirection,
    /// The `href` as written (trimmed, unresolved).
    pub href: String,
    /// Whether the parser placed it inside `<head>`.
    pub in_head: bool,
}

/// What kind of declaration a [`DeclaredUrl`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeclaredKind {
    /// `<link rel=shortlink>`.
    Shortlink,
    /// `<link rel=alternate>` without `hreflang`: a feed, a media or format alternate.
    Alternate,
    /// `<link rel=amphtml>`.
    Amphtml,
    /// `<meta property=og:url>`.
    OgUrl,
    /// An `@id` or `url` value in a JSON-LD block.
    StructuredData,
    /// An HTTP `Link:` header (shortlink, alternate without hreflang, amphtml, next, prev).
    LinkHeader,
}

impl DeclaredKind {
    /// Every kind.
    pub const ALL: [DeclaredKind; 6] = [
        DeclaredKind::Shortlink,
        DeclaredKind::Alternate,
        DeclaredKind::Amphtml,
        DeclaredKind::OgUrl,
        DeclaredKind::StructuredData,
        DeclaredKind::LinkHeader,
    ];

    /// `shortlink`, `alternate`, `amphtml`, `og_url`, `structured_data`, `link_header`:
    /// the stored word (a link's tag).
    pub fn as_str(self) -> &'static str {
        match self {
            DeclaredKind::Shortlink => "shortlink",
            DeclaredKind::Alternate => "alternate",
            DeclaredKind::Amphtml => "amphtml",
            DeclaredKind::OgUrl => "og_url",
            DeclaredKind::StructuredData => "structured_data",
            DeclaredKind::LinkHeader => "link_header",
        }
    }

    /// The kind of a stored word.
    pub fn parse(word: &str) -> Option<DeclaredKind> {
        DeclaredKind::ALL.into_iter().find(|k| k.as_str() == word)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One URL a page declares for discovery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeclaredUrl {
    /// The URL as written (trimmed, unresolved).
    pub href: String,
    /// Where it is declared.
    pub kind: DeclaredKind,
    /// Whether the parser placed the declaring element inside `<head>` (true for a header).
    pub in_head: bool,
}

/// The URLs an HTTP `Link:` header value declares for discovery: entries with rel
/// `shortlink`, `alternate` (without `hreflang`, not `stylesheet`), `amphtml`, `next` or
/// `prev`, as [`DeclaredKind::LinkHeader`], at most `max_link_elements` of them.
pub fn declared_in_link_header(value: &str, limits: &Limits) -> Vec<DeclaredUrl> {
    parse_link_header(value)
        .into_iter()
        .filter(LinkHeaderEntry::declares_url)
        .take(limits.max_link_elements)
        .map(|e| DeclaredUrl {
            href: e.url,
            kind: DeclaredKind::LinkHeader,
            in_head: true,
        })
        .collect()
}

/// One robots `<meta>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaRobots {
    /// The `name`, lowercased: `robots`, `googlebot`, `googlebot-news` or `bingbot`.
    pub name: String,
    /// The `content` as written, surrounding whitespace removed (empty when missing).
    pub content: String,
    /// `content` parsed; its `user_agent` is `None` for `robots`, else the name.
    pub directives: RobotsDirectives,
    /// Whether the parser placed it inside `<head>`.
    pub in_head: bool,
}

/// One `<meta http-equiv=refresh>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaRefresh {
    /// The `content` as written, surrounding whitespace removed (empty when missing).
    pub content: String,
    /// `content` parsed; `None` when invalid (browsers then ignore the element).
    pub refresh: Option<Refresh>,
    /// Whether the parser placed it inside `<head>`.
    pub in_head: bool,
}

/// Bounds on what one document may cost; see the crate docs for the defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Bytes of the body parsed; the rest is ignored (clamped to 1 GiB).
    pub max_input_bytes: usize,
    /// Links kept.
    pub max_links: usize,
    /// Canonicals, hreflang alternates, next/prev links and each kind of declared URL
    /// kept, each.
    pub max_link_elements: usize,
    /// Meta robots and meta refresh elements kept, each.
    pub max_metas: usize,
    /// Characters of an anchor text, of the title or of the meta description.
    pub max_text_chars: usize,
    /// Bytes of an attribute value (cut at a character boundary).
    pub max_value_bytes: usize,
    /// Tree depth past which the start tags of ordinary elements (not `a`, `title`,
    /// `link`, `meta`, void or raw-text elements, ...) are ignored: their content stays,
    /// one level up. Keeps deeply nested documents linear-time.
    pub max_depth: u32,
    /// Nodes the parser may create; once spent, the rest of the document is ignored
    /// (clamped to 16..=2^30).
    pub max_nodes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_input_bytes: 64 << 20,
            max_links: 10_000,
            max_link_elements: 1_000,
            max_metas: 100,
            max_text_chars: 1_000,
            max_value_bytes: 8 << 10,
            max_depth: 512,
            max_nodes: 1_000_000,
        }
    }
}

/// Counts of what [`Limits`] dropped or cut (all zero for ordinary pages).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dropped {
    /// Bytes of the body past `max_input_bytes`, not parsed.
    pub input_bytes: u64,
    /// Links past `max_links`.
    pub links: u64,
    /// Canonicals past `max_link_elements`.
    pub canonicals: u64,
    /// Hreflang alternates past `max_link_elements`.
    pub hreflangs: u64,
    /// Next/prev links past `max_link_elements`.
    pub pagination: u64,
    /// Declared URLs past `max_link_elements` of their kind (or past
    /// [`MAX_STRUCTURED_DATA_URLS`] for structured data).
    #[serde(default)]
    pub declared: u64,
    /// JSON-LD blocks over [`MAX_JSON_LD_BYTES`], not read.
    #[serde(default)]
    pub large_json_ld: u64,
    /// Robots metas past `max_metas`.
    pub meta_robots: u64,
    /// Refresh metas past `max_metas`.
    pub meta_refresh: u64,
    /// Anchor texts, titles and meta descriptions cut at `max_text_chars`.
    pub truncated_texts: u64,
    /// Attribute values cut at `max_value_bytes`.
    pub truncated_values: u64,
    /// Start tags ignored because the tree was `max_depth` deep.
    pub deep_start_tags: u64,
    /// Tokens ignored because `max_nodes` nodes existed already.
    pub tokens_after_node_budget: u64,
}

/// Extracts a [`Page`] from an HTML body with the default [`Limits`].
///
/// `content_type` is the HTTP Content-Type header value, if any (only its `charset`
/// is used). Never panics, whatever the bytes.
pub fn extract(body: &[u8], content_type: Option<&str>) -> Page {
    extract_with(body, content_type, &Limits::default())
}

/// Extracts a [`Page`] from an HTML body with the given [`Limits`].
pub fn extract_with(body: &[u8], content_type: Option<&str>, limits: &Limits) -> Page {
    let max_input = limits.max_input_bytes.min(1 << 30);
    let cut = body.len().saturating_sub(max_input);
    let body = &body[..body.len() - cut];
    let (encoding, charset_source, bom_len) = charset::sniff(body, content_type);
    let (text, _) = encoding.decode_without_bom_handling(&body[bom_len..]);
    let max_nodes = limits.max_nodes.clamp(16, 1 << 30);
    let (dom, guard) = parse::parse(&text, limits.max_depth, max_nodes);
    drop(text);
    let mut walker = Walker::new(&dom, limits);
    walker.page.dropped.deep_start_tags = guard.deep_start_tags;
    walker.page.dropped.tokens_after_node_budget = guard.tokens_after_budget;
    walker.page.charset = encoding.name().to_owned();
    walker.page.charset_source = charset_source;
    walker.page.dropped.input_bytes = cut as u64;
    walker.walk();
    walker.finish()
}

/// A bounded, whitespace-collapsing text accumulator.
struct TextBuf {
    s: String,
    pending_space: bool,
    chars: usize,
    truncated: bool,
}

impl TextBuf {
    fn new() -> TextBuf {
        TextBuf {
            s: String::new(),
            pending_space: false,
            chars: 0,
            truncated: false,
        }
    }

    fn push(&mut self, text: &str, max: usize) {
        for c in text.chars() {
            if c.is_whitespace() {
                self.pending_space = true;
                continue;
            }
            if self.truncated {
                return;
            }
            let need = usize::from(self.pending_space && !self.s.is_empty()) + 1;
            if self.chars + need > max {
                self.truncated = true;
                return;
            }
            if self.pending_space && !self.s.is_empty() {
                self.s.push(' ');
                self.chars += 1;
            }
            self.pending_space = false;
            self.s.push(c);
            self.chars += 1;
        }
    }

    fn space(&mut self) {
        self.pending_space = true;
    }
}

/// A link being collected (its text arrives while walking its subtree).
struct OpenAnchor {
    node: NodeId,
    index: Option<usize>,
    text: TextBuf,
    alt: TextBuf,
}

struct Walker<'a> {
    dom: &'a Dom,
    limits: &'a Limits,
    page: Page,
    fp: Fingerprinter,
    head_depth: u32,
    title_node: NodeId,
    title: TextBuf,
    anchors: Vec<OpenAnchor>,
    /// Open `<nav>`, `<aside>` and chrome `<header>`/`<footer>` elements.
    chrome_depth: u32,
    /// Open `<main>` and `<article>` elements.
    content_depth: u32,
    /// For each open `<header>`/`<footer>`: whether it counts as chrome.
    banners: Vec<bool>,
    /// The regions open around the current node, innermost last, with the node that
    /// opened each.
    regions: Vec<(NodeId, LinkRegion)>,
    /// The first `<h1>` while its text is collected.
    h1_node: NodeId,
    h1: TextBuf,
    /// Declared URLs kept, by [`DeclaredKind`].
    declared: [usize; DeclaredKind::ALL.len()],
}

fn is_url_trim(c: char) -> bool {
    c <= ' '
}

/// A JSON-LD string that reads as an http(s) URL: absolute with that scheme, or starting
/// with `/` (root- or protocol-relative), without whitespace.
fn looks_like_http_url(s: &str) -> bool {
    let starts = |prefix: &str| {
        s.get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
    };
    !s.is_empty()
        && !s.chars().any(char::is_whitespace)
        && (starts("http://") || starts("https://") || s.starts_with('/'))
}

fn has_token(list: &str, token: &str) -> bool {
    list.split_ascii_whitespace()
        .any(|t| t.eq_ignore_ascii_case(token))
}

impl<'a> Walker<'a> {
    fn new(dom: &'a Dom, limits: &'a Limits) -> Walker<'a> {
        Walker {
            dom,
            limits,
            page: Page {
                title: None,
                meta_description: None,
                base_href: None,
                lang: None,
                charset: String::new(),
                charset_source: CharsetSource::Default,
                links: Vec::new(),
                canonicals: Vec::new(),
                hreflangs: Vec::new(),
                pagination: Vec::new(),
                declared: Vec::new(),
                meta_robots: Vec::new(),
                meta_refresh: Vec::new(),
                text_hash: 0,
                simhash: 0,
                word_count: 0,
                h1: None,
                blocks: Vec::new(),
                dropped: Dropped::default(),
            },
            fp: Fingerprinter::new(),
            head_depth: 0,
            title_node: NONE,
            title: TextBuf::new(),
            anchors: Vec::new(),
            chrome_depth: 0,
            content_depth: 0,
            regions: Vec::new(),
            banners: Vec::new(),
            h1_node: NONE,
            h1: TextBuf::new(),
            declared: [0; DeclaredKind::ALL.len()],
        }
    }

    /// Pre-order walk over the tree with parent links: no recursion, no depth limit.
    fn walk(&mut self) {
        let nodes = &self.dom.nodes;
        let mut node = nodes[DOCUMENT as usize].first_child;
        while node != NONE {
            let descend = self.enter(node);
            let first = nodes[node as usize].first_child;
            if descend && first != NONE {
                node = first;
                continue;
            }
            loop {
                self.leave(node);
                let next = nodes[node as usize].next;
                if next != NONE {
                    node = next;
                    break;
                }
                node = nodes[node as usize].parent;
                if node == DOCUMENT || node == NONE {
                    node = NONE;
                    break;
                }
            }
        }
    }

    /// A value kept for the page: trimmed like a URL and cut at `max_value_bytes`.
    fn value(&mut self, raw: &str) -> String {
        let v = raw.trim_matches(is_url_trim);
        let max = self.limits.max_value_bytes;
        if v.len() <= max {
            return v.to_owned();
        }
        self.page.dropped.truncated_values += 1;
        let mut end = max;
        while !v.is_char_boundary(end) {
            end -= 1;
        }
        v[..end].to_owned()
    }

    fn attr(&self, node: NodeId, name: &LocalName) -> Option<&'a str> {
        self.dom.attr(node, name)
    }

    fn enter(&mut self, node: NodeId) -> bool {
        let (kind, text) = match &self.dom.nodes[node as usize].data {
            Data::Element { kind, .. } => (*kind, None),
            Data::Text(t) => (Kind::Other, Some(&**t)),
            Data::Document | Data::Other => return false,
        };
        if let Some(text) = text {
            self.text(text);
            return false;
        }
        match kind {
            Kind::Html => {
                if self.page.lang.is_none()
                    && let Some(lang) = self.attr(node, &local_name!("lang"))
                {
                    self.page.lang = Some(self.value(lang));
                }
                true
            }
            Kind::Head => {
                self.head_depth += 1;
                true
            }
            Kind::Title => {
                if self.page.title.is_none() && self.title_node == NONE {
                    self.title_node = node;
                    true
                } else {
                    false
                }
            }
            Kind::Base => {
                if self.page.base_href.is_none()
                    && let Some(href) = self.attr(node, &local_name!("href"))
                {
                    self.page.base_href = Some(self.value(href));
                }
                false
            }
            Kind::A => {
                if let Some(href) = self.attr(node, &local_name!("href")) {
                    let index = self.add_link(node, href, LinkTag::A);
                    self.anchors.push(OpenAnchor {
                        node,
                        index,
                        text: TextBuf::new(),
                        alt: TextBuf::new(),
                    });
                }
                true
            }
            Kind::Area => {
                if let Some(href) = self.attr(node, &local_name!("href"))
                    && let Some(i) = self.add_link(node, href, LinkTag::Area)
                {
                    let mut alt = TextBuf::new();
                    alt.push(
                        self.attr(node, &local_name!("alt")).unwrap_or(""),
                        self.limits.max_text_chars,
                    );
                    self.set_link_text(i, alt);
                }
                false
            }
            Kind::Img => {
                if !self.anchors.is_empty()
                    && let Some(alt) = self.attr(node, &local_name!("alt"))
                {
                    let max = self.limits.max_text_chars;
                    for a in &mut self.anchors {
                        a.alt.space();
                        a.alt.push(alt, max);
                    }
                }
                false
            }
            Kind::Link => {
                self.link_element(node);
                false
            }
            Kind::Meta => {
                self.meta(node);
                false
            }
            Kind::Hidden => false,
            Kind::Script => {
                self.script(node);
                false
            }
            Kind::Block => {
                // A CMS widget (`<section class="widget …">`) is the sidebar's, whatever
                // element holds it (blocks keep their class only when it names a widget).
                if self.in_open_region() && self.attr(node, &local_name!("class")).is_some() {
                    self.regions.push((node, LinkRegion::Sidebar));
                }
                self.boundary();
                true
            }
            Kind::Chrome => {
                self.chrome_depth += 1;
                // A `<nav>` inside the page's footer (its link list) is the footer's.
                let region = match self.regions.last() {
                    Some(&(_, LinkRegion::Footer)) => LinkRegion::Footer,
                    _ if self.is(node, &local_name!("nav")) => LinkRegion::Navigation,
                    _ => LinkRegion::Sidebar,
                };
                self.regions.push((node, region));
                self.boundary();
                true
            }
            Kind::Banner => {
                let chrome = self.content_depth == 0;
                self.banners.push(chrome);
                self.chrome_depth += u32::from(chrome);
                if chrome {
                    let region = if self.is(node, &local_name!("footer")) {
                        LinkRegion::Footer
                    } else {
                        LinkRegion::Header
                    };
                    self.regions.push((node, region));
                }
                self.boundary();
                true
            }
            Kind::Content => {
                self.content_depth += 1;
                // An `<article>` inside the page's footer, header, sidebar or navigation
                // (a "latest comments" list) is still that region's.
                let region = match self.regions.last() {
                    Some(&(_, r)) if r != LinkRegion::Main => r,
                    _ => LinkRegion::Main,
                };
                self.regions.push((node, region));
                self.boundary();
                true
            }
            Kind::H1 => {
                if self.page.h1.is_none() && self.h1_node == NONE {
                    self.h1_node = node;
                }
                self.boundary();
                true
            }
            Kind::Other => true,
        }
    }

    fn leave(&mut self, node: NodeId) {
        let kind = match &self.dom.nodes[node as usize].data {
            Data::Element { kind, .. } => *kind,
            _ => return,
        };
        match kind {
            Kind::Head => self.head_depth = self.head_depth.saturating_sub(1),
            Kind::Title if node == self.title_node => {
                let title = std::mem::replace(&mut self.title, TextBuf::new());
                if title.truncated {
                    self.page.dropped.truncated_texts += 1;
                }
                self.page.title = Some(title.s);
            }
            Kind::A if self.anchors.last().is_some_and(|a| a.node == node) => {
                if let Some(a) = self.anchors.pop()
                    && let Some(i) = a.index
                {
                    let text = if a.text.s.is_empty() { a.alt } else { a.text };
                    self.set_link_text(i, text);
                }
            }
            Kind::Block => {
                self.close_region(node);
                self.boundary();
            }
            Kind::Chrome => {
                self.chrome_depth = self.chrome_depth.saturating_sub(1);
                self.close_region(node);
                self.boundary();
            }
            Kind::Banner => {
                let chrome = self.banners.pop().unwrap_or(false);
                self.chrome_depth = self.chrome_depth.saturating_sub(u32::from(chrome));
                self.close_region(node);
                self.boundary();
            }
            Kind::Content => {
                self.content_depth = self.content_depth.saturating_sub(1);
                self.close_region(node);
                self.boundary();
            }
            Kind::H1 => {
                if node == self.h1_node {
                    let h1 = std::mem::replace(&mut self.h1, TextBuf::new());
                    if h1.truncated {
                        self.page.dropped.truncated_texts += 1;
                    }
                    self.page.h1 = Some(h1.s);
                    self.h1_node = NONE;
                }
                self.boundary();
            }
            _ => {}
        }
    }

    /// Whether the element `node` has the (HTML namespace) local name.
    fn is(&self, node: NodeId, name: &LocalName) -> bool {
        matches!(&self.dom.nodes[node as usize].data, Data::Element { name: q, .. } if q.local == *name)
    }

    /// Whether the current node is outside `<main>`, `<article>` and the page's own
    /// header, footer, navigation and sidebars (a widget inside the content is content).
    fn in_open_region(&self) -> bool {
        self.regions.is_empty()
    }

    /// Closes the region `node` opened, if it opened one.
    fn close_region(&mut self, node: NodeId) {
        if self.regions.last().is_some_and(|&(n, _)| n == node) {
            self.regions.pop();
        }
    }

    fn boundary(&mut self) {
        self.fp.boundary(self.chrome_depth > 0);
        for a in &mut self.anchors {
            a.text.space();
        }
    }

    fn text(&mut self, text: &str) {
        if self.title_node != NONE && self.page.title.is_none() {
            // Inside the first <title> (its subtree is only entered while collecting it).
            self.title.push(text, self.limits.max_text_chars);
            return;
        }
        if self.head_depth > 0 {
            return;
        }
        self.fp.push(text);
        let max = self.limits.max_text_chars;
        if self.h1_node != NONE {
            self.h1.push(text, max);
        }
        for a in &mut self.anchors {
            a.text.push(text, max);
        }
    }

    fn add_link(&mut self, node: NodeId, href: &str, tag: LinkTag) -> Option<usize> {
        if self.page.links.len() >= self.limits.max_links {
            self.page.dropped.links += 1;
            return None;
        }
        let rel = self.attr(node, &local_name!("rel")).unwrap_or("");
        let href = self.value(href);
        self.page.links.push(Link {
            href,
            text: String::new(),
            tag,
            nofollow: has_token(rel, "nofollow"),
            sponsored: has_token(rel, "sponsored"),
            ugc: has_token(rel, "ugc"),
            region: self.regions.last().map_or(LinkRegion::Body, |&(_, r)| r),
        });
        Some(self.page.links.len() - 1)
    }

    fn set_link_text(&mut self, index: usize, text: TextBuf) {
        if text.truncated {
            self.page.dropped.truncated_texts += 1;
        }
        if let Some(link) = self.page.links.get_mut(index) {
            link.text = text.s;
        }
    }

    fn link_element(&mut self, node: NodeId) {
        let Some(rel) = self.attr(node, &local_name!("rel")) else {
            return;
        };
        let Some(href) = self.attr(node, &local_name!("href")) else {
            return;
        };
        let in_head = self.head_depth > 0;
        let max = self.limits.max_link_elements;
        let mut canonical = false;
        let mut alternate = false;
        let mut stylesheet = false;
        let mut shortlink = false;
        let mut amphtml = false;
        let mut direction = None;
        for token in rel.split_ascii_whitespace() {
            if token.eq_ignore_ascii_case("canonical") {
                canonical = true;
            } else if token.eq_ignore_ascii_case("alternate") {
                alternate = true;
            } else if token.eq_ignore_ascii_case("stylesheet") {
                stylesheet = true;
            } else if token.eq_ignore_ascii_case("shortlink") {
                shortlink = true;
            } else if token.eq_ignore_ascii_case("amphtml") {
                amphtml = true;
            } else if token.eq_ignore_ascii_case("next") {
                direction = Some(PageDirection::Next);
            } else if token.eq_ignore_ascii_case("prev") || token.eq_ignore_ascii_case("previous") {
                direction = Some(PageDirection::Prev);
            }
        }
        if canonical {
            if self.page.canonicals.len() < max {
                let href = self.value(href);
                self.page.canonicals.push(Canonical { href, in_head });
            } else {
                self.page.dropped.canonicals += 1;
            }
        }
        let hreflang = self.attr(node, &local_name!("hreflang"));
        if alternate && let Some(lang) = hreflang {
            if self.page.hreflangs.len() < max {
                let href = self.value(href);
                let hreflang = self.value(lang);
                self.page.hreflangs.push(Hreflang {
                    hreflang,
                    href,
                    in_head,
                });
            } else {
                self.page.dropped.hreflangs += 1;
            }
        }
        if shortlink {
            self.declare(DeclaredKind::Shortlink, href, in_head);
        }
        if alternate && hreflang.is_none() && !stylesheet {
            self.declare(DeclaredKind::Alternate, href, in_head);
        }
        if amphtml {
            self.declare(DeclaredKind::Amphtml, href, in_head);
        }
        if let Some(direction) = direction {
            if self.page.pagination.len() < max {
                let href = self.value(href);
                self.page.pagination.push(Pagination {
                    direction,
                    href,
                    in_head,
                });
            } else {
                self.page.dropped.pagination += 1;
            }
        }
    }

    /// Keeps a declared URL, within `max_link_elements` of its kind.
    fn declare(&mut self, kind: DeclaredKind, href: &str, in_head: bool) {
        let kept = &mut self.declared[kind.index()];
        if *kept >= self.limits.max_link_elements {
            self.page.dropped.declared += 1;
            return;
        }
        *kept += 1;
        let href = self.value(href);
        self.page.declared.push(DeclaredUrl {
            href,
            kind,
            in_head,
        });
    }

    /// A `<script>`: the URLs of a JSON-LD block (see the crate docs).
    fn script(&mut self, node: NodeId) {
        let json_ld = self.attr(node, &local_name!("type")).is_some_and(|t| {
            t.trim_matches(is_url_trim)
                .split(';')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json"))
        });
        if !json_ld {
            return;
        }
        let nodes = &self.dom.nodes;
        let mut texts: Vec<&str> = Vec::new();
        let mut bytes = 0usize;
        let mut child = nodes[node as usize].first_child;
        while child != NONE {
            if let Data::Text(t) = &nodes[child as usize].data {
                bytes += t.len();
                texts.push(t);
            }
            child = nodes[child as usize].next;
        }
        if bytes > MAX_JSON_LD_BYTES {
            self.page.dropped.large_json_ld += 1;
            return;
        }
        let joined;
        let text = match texts.as_slice() {
            [] => return,
            [one] => *one,
            many => {
                joined = many.concat();
                joined.as_str()
            }
        };
        // Invalid JSON (or nesting past serde_json's depth limit) declares nothing.
        let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
            return;
        };
        let in_head = self.head_depth > 0;
        let mut stack = vec![&value];
        let mut found: Vec<&str> = Vec::new();
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::Object(map) => {
                    for (key, v) in map {
                        if key == "@id" || key == "url" {
                            match v {
                                serde_json::Value::String(s) => found.push(s),
                                serde_json::Value::Array(items) => {
                                    found.extend(items.iter().filter_map(|i| i.as_str()));
                                }
                                _ => {}
                            }
                        }
                        if v.is_object() || v.is_array() {
                            stack.push(v);
                        }
                    }
                }
                serde_json::Value::Array(items) => {
                    stack.extend(items.iter().rev().filter(|i| i.is_object() || i.is_array()));
                }
                _ => {}
            }
        }
        for href in found {
            let href = href.trim_matches(is_url_trim);
            if !looks_like_http_url(href)
                || self
                    .page
                    .declared
                    .iter()
                    .any(|d| d.kind == DeclaredKind::StructuredData && d.href == href)
            {
                continue;
            }
            if self.declared[DeclaredKind::StructuredData.index()] >= MAX_STRUCTURED_DATA_URLS {
                self.page.dropped.declared += 1;
                continue;
            }
            self.declare(DeclaredKind::StructuredData, href, in_head);
        }
    }

    fn meta(&mut self, node: NodeId) {
        let in_head = self.head_depth > 0;
        let max = self.limits.max_metas;
        let content = self.attr(node, &local_name!("content"));
        if let Some(property) = self.attr(node, &local_name!("property"))
            && property
                .trim_matches(is_url_trim)
                .eq_ignore_ascii_case("og:url")
            && let Some(url) = content
            && !url.trim_matches(is_url_trim).is_empty()
        {
            self.declare(DeclaredKind::OgUrl, url, in_head);
        }
        if let Some(name) = self.attr(node, &local_name!("name")) {
            let name = name.trim_matches(is_url_trim).to_ascii_lowercase();
            if name == "description"
                && in_head
                && self.page.meta_description.is_none()
                && let Some(content) = content
            {
                let mut text = TextBuf::new();
                text.push(content, self.limits.max_text_chars);
                if text.truncated {
                    self.page.dropped.truncated_texts += 1;
                }
                self.page.meta_description = Some(text.s);
            }
            if matches!(
                name.as_str(),
                "robots" | "googlebot" | "googlebot-news" | "bingbot"
            ) {
                if self.page.meta_robots.len() >= max {
                    self.page.dropped.meta_robots += 1;
                    return;
                }
                let content = self.value(content.unwrap_or(""));
                let mut directives = parse_robots_directives(&content);
                if name != "robots" && directives.user_agent.is_none() {
                    directives.user_agent = Some(name.clone());
                }
                self.page.meta_robots.push(MetaRobots {
                    name,
                    content,
                    directives,
                    in_head,
                });
                return;
            }
        }
        if let Some(equiv) = self.attr(node, &local_name!("http-equiv"))
            && equiv
                .trim_matches(is_url_trim)
                .eq_ignore_ascii_case("refresh")
        {
            if self.page.meta_refresh.len() >= max {
                self.page.dropped.meta_refresh += 1;
                return;
            }
            let content = self.value(content.unwrap_or(""));
            let refresh = parse_refresh(&content);
            self.page.meta_refresh.push(MetaRefresh {
                content,
                refresh,
                in_head,
            });
        }
    }

    fn finish(mut self) -> Page {
        // Links still open at the end (cannot happen with a well-formed tree walk, but be safe).
        while let Some(a) = self.anchors.pop() {
            if let Some(i) = a.index {
                let text = if a.text.s.is_empty() { a.alt } else { a.text };
                self.set_link_text(i, text);
            }
        }
        let ((text_hash, simhash, word_count), blocks) = self.fp.finish_with_blocks();
        self.page.blocks = blocks;
        self.page.text_hash = text_hash;
        self.page.simhash = simhash;
        self.page.word_count = word_count;
        self.page
    }
}
