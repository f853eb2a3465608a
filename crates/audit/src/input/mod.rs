//! The audit's input: plain rows mirroring the crawl schema (`migrations/*.sql`).
//!
//! The store fills these from SQLite; tests build them by hand or from JSON. Every
//! field that the schema lets be absent has a serde default, so a fixture only writes
//! what matters to it.

mod links;

pub use links::Links;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
/// The words the analysis shares with the store and the crawl (one definition, in
/// `vocab`): the rows below hold them as stored.
pub use vocab::{
    ChainProblem, DeclarationSource, FetchErrorKind, FoundVia, HopKind, LinkKind, LinkRegion,
    ProbeRule, ReasonKind, UnknownReason, UrlReason, UrlState,
};

/// A URL's id: the store's per-audit `urls.id`.
///
/// Ids are numbered per audit from 1, so they fit `u32` (an audit of more than four
/// billion URLs is beyond one machine); the store's loader converts its `i64` with
/// `u32::try_from`. Ids are only used to join rows: findings and clusters name URLs by
/// their text, so two audits can be compared.
pub type UrlId = u32;

/// A sitemap's id: the store's per-audit `sitemaps.id` (see [`UrlId`] for the width).
pub type SitemapId = u32;

/// Everything the crawl stored about one audit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AuditInput {
    /// Every URL seen (`urls`).
    pub urls: Vec<UrlRow>,
    /// One row per fetched URL (`fetches`).
    pub fetches: Vec<FetchRow>,
    /// Redirect hops, one per redirecting URL (`redirects`).
    pub redirects: Vec<RedirectRow>,
    /// rel=canonical declarations (`canonicals`).
    pub canonicals: Vec<CanonicalRow>,
    /// Links found in pages (`links`), packed and, from the loader, spilled to disk.
    pub links: Links,
    /// Anchor texts of links (see [`AnchorRow`] for which).
    pub anchors: Vec<AnchorRow>,
    /// hreflang alternates (`hreflang`).
    pub hreflang: Vec<HreflangRow>,
    /// Sitemaps fetched (`sitemaps`).
    pub sitemaps: Vec<SitemapRow>,
    /// URLs listed in sitemaps (`sitemap_entries`).
    pub sitemap_entries: Vec<SitemapEntryRow>,
    /// URLs robots.txt kept the crawler from requesting (`robots_blocks.url_id`).
    pub robots_blocks: Vec<UrlId>,
    /// Redirect chains the crawler found to loop or to be too long (`redirect_chains`).
    pub redirect_chains: Vec<RedirectChainRow>,
    /// The robots.txt files read (`robots`), one per origin.
    pub robots: Vec<RobotsRow>,
    /// URL-variant probes (`probes`): variants of crawled pages no page links to,
    /// requested after the crawl.
    pub probes: Vec<ProbeRow>,
    /// Pages rendered in Chromium (`renders`), for audits with rendering on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub renders: Vec<RenderedPage>,
    /// Links found only in rendered pages (`rendered_links` with `js_only`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub js_links: Vec<JsLinkRow>,
}

impl AuditInput {
    /// The URLs Dustpan made up rather than found on the site: the URL-variant probes
    /// no page, sitemap or redirect named (admitted as a `variant` below a start URL),
    /// and every URL first found through one of them (a probe's redirect target, a link
    /// of a probe's page). They are evidence about the server's rules, stated by the
    /// `VARIANT-*` findings and `url_variants.csv`; the site's errors, its status
    /// counts, its links and the findings about its pages leave them out.
    pub fn made_up_urls(&self) -> rustc_hash::FxHashSet<UrlId> {
        let mut out: rustc_hash::FxHashSet<UrlId> = self
            .urls
            .iter()
            .filter(|u| u.is_probe())
            .map(|u| u.id)
            .collect();
        if out.is_empty() {
            return out;
        }
        // A URL's finder was admitted before it: one pass in admission order reaches
        // every descendant; the loop repeats for rows out of order.
        loop {
            let before = out.len();
            for u in &self.urls {
                if let Some(from) = u.found_from
                    && out.contains(&from)
                    && !matches!(u.found_via, FoundVia::Start | FoundVia::Sitemap)
                {
                    out.insert(u.id);
                }
            }
            if out.len() == before {
                return out;
            }
        }
    }
}

/// One origin's robots.txt as the crawler read it (`robots`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RobotsRow {
    /// `scheme://host[:port]`.
    pub origin: String,
    /// The HTTP status; `None` when no response arrived.
    pub status: Option<u16>,
    /// Bytes of the file read (the crawler reads up to 512 KiB).
    pub bytes: u64,
}

/// One row of `urls`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct UrlRow {
    /// The URL's id.
    pub id: UrlId,
    /// The absolute URL as first found; empty when it is its own rfc3986 form (read it
    /// through [`UrlRow::found_url`]).
    pub url: String,
    /// Its `canon` rfc3986 form (the frontier's identity). Empty means "compute it".
    pub url_rfc3986: String,
    /// Link hops from a start URL.
    pub depth: u32,
    /// How it was first found.
    pub found_via: FoundVia,
    /// The page (or redirect source) that first found it, when recorded.
    pub found_from: Option<UrlId>,
    /// Its frontier state.
    pub state: UrlState,
    /// Why it was skipped, blocked or failed.
    pub reason: Option<UrlReason>,
}

impl UrlRow {
    /// Whether the URL is a URL-variant probe's alone: requested after the crawl,
    /// found by nothing else (a start URL's own variants are at depth 0).
    pub fn is_probe(&self) -> bool {
        self.found_via == FoundVia::Variant && self.depth > 0
    }

    /// The URL as first found: `url`, or `url_rfc3986` where `url` is empty (the store's
    /// loader leaves it empty when the two are the same, to hold each URL once).
    pub fn found_url(&self) -> &str {
        if self.url.is_empty() {
            &self.url_rfc3986
        } else {
            &self.url
        }
    }
}

/// One row of `fetches`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FetchRow {
    /// The fetched URL.
    pub url_id: UrlId,
    /// The HTTP status; `None` when no response arrived.
    pub status: Option<u16>,
    /// The Content-Type header (shared: a site serves a handful of distinct ones).
    pub content_type: Option<Arc<str>>,
    /// The hop target (3xx Location or meta refresh), if it resolved.
    pub redirect_to: Option<UrlId>,
    /// The page title.
    pub title: Option<String>,
    /// meta robots or X-Robots-Tag say noindex.
    pub noindex: bool,
    /// meta robots or X-Robots-Tag say nofollow.
    pub nofollow: bool,
    /// xxh3-64 of the normalized visible text (stored bit-for-bit as a signed integer).
    pub text_hash: Option<u64>,
    /// 64-bit SimHash of the visible text's word 3-shingles.
    pub simhash: Option<u64>,
    /// Words of visible text.
    pub word_count: Option<u32>,
    /// The body hit the byte cap.
    pub truncated: bool,
    /// Why no usable response arrived (timeout, connect, ...).
    pub error_kind: Option<String>,
    /// The first `<h1>`.
    pub h1: Option<String>,
    /// The text blocks outside site chrome, in `extract::blocks`' stored format: the
    /// analysis learns the template from them and keeps each page's main content.
    /// The loader spills them to a temporary file ([`crate::Spill`]).
    pub blocks: Option<crate::StoredBlocks>,
    /// The first `<meta name="description">` in `<head>`.
    pub meta_description: Option<String>,
    /// The page's robots metas as stored: `name: content`, `; `-separated (shared: a
    /// site uses a handful of distinct ones).
    pub meta_robots: Option<Arc<str>>,
    /// The X-Robots-Tag header(s), as sent (shared like `meta_robots`).
    pub x_robots_tag: Option<Arc<str>>,
    /// Time to the end of the body (or the error), in ms.
    pub response_ms: Option<u32>,
    /// Body bytes read (after decompression).
    pub body_bytes: u64,
}

/// One row of `redirects`: one hop.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RedirectRow {
    /// The redirecting URL.
    pub from: UrlId,
    /// The hop target; `None` when Location did not resolve.
    pub to: Option<UrlId>,
    /// 301, 302, ...; the page status for a meta refresh.
    pub status: u16,
    /// HTTP or meta refresh.
    pub kind: HopKind,
    /// Position in the chain the crawler followed.
    pub hop_index: u32,
}

fn yes() -> bool {
    true
}

/// One row of `canonicals`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CanonicalRow {
    /// The declaring page.
    pub page: UrlId,
    /// Order of declaration (headers first).
    #[serde(default)]
    pub position: u32,
    /// The target; `None` when href did not resolve.
    #[serde(default)]
    pub target: Option<UrlId>,
    /// The href as written; empty where it is exactly the target's URL as found (the
    /// store's loader holds each URL once), which the analysis then reads in its place.
    #[serde(default)]
    pub href_raw: String,
    /// Link element or HTTP header.
    #[serde(default)]
    pub source: DeclarationSource,
    /// The element sits in `<head>` (always true for a header).
    #[serde(default = "yes")]
    pub in_head: bool,
}

/// One row of `links`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LinkRow {
    /// The linking page.
    pub from: UrlId,
    /// The target; `None` when href did not resolve to an http(s) URL.
    pub to: Option<UrlId>,
    /// rel=nofollow on the link.
    pub nofollow: bool,
    /// Where in the page it sits, when recorded.
    #[serde(default)]
    pub region: Option<LinkRegion>,
    /// What the link comes from (`links.tag`).
    pub kind: LinkKind,
}

/// The anchor text of one link (`links.anchor_text`). Only the links a finding quotes
/// (those to URLs that redirect, answer 4xx/5xx or nothing, or are canonicalised) are
/// loaded from the store.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AnchorRow {
    /// The linking page.
    pub from: UrlId,
    /// The target.
    pub to: UrlId,
    /// The anchor text.
    pub text: String,
}

/// One row of `hreflang`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HreflangRow {
    /// The declaring page.
    pub page: UrlId,
    /// The language-region code.
    pub lang: String,
    /// The alternate; `None` when href did not resolve.
    pub target: Option<UrlId>,
    /// Link element or HTTP header.
    pub source: DeclarationSource,
}

/// One issue a sitemap's parser recorded (`sitemaps.issues`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SitemapIssue {
    /// The sitemap crate's issue code (`malformed_xml`, `too_many_urls`, ...).
    pub kind: String,
    /// What the parser said.
    pub detail: String,
}

/// One row of `sitemaps`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SitemapRow {
    /// The sitemap's id.
    pub id: SitemapId,
    /// Its URL.
    pub url: String,
    /// urlset, sitemapindex, text, rss, atom, unknown.
    pub kind: String,
    /// The HTTP status; `None` when no response arrived (or unknown).
    pub status: Option<u16>,
    /// Why the sitemap could not be read, if it could not.
    pub error: Option<String>,
    /// What its parser recorded, after the redirects the crawler followed to it (kind
    /// `redirected`, detail `"{status} to {url}"`, one per hop).
    pub issues: Vec<SitemapIssue>,
    /// How the crawler came to it.
    pub found_via: SitemapSource,
}

/// How the crawler came to a sitemap (`sitemaps.found_via` and `parent_id`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SitemapSource {
    /// A `Sitemap:` line in robots.txt (and the default: a row that does not say is
    /// judged as declared).
    #[default]
    Robots,
    /// Given by the user.
    User,
    /// Listed in a sitemap index.
    Index,
    /// The conventional `/sitemap.xml` of a start origin, guessed by the crawler and
    /// declared nowhere (no robots.txt line, no index, not the user).
    Guessed,
}

/// One row of `sitemap_entries`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SitemapEntryRow {
    /// The listing sitemap.
    pub sitemap_id: SitemapId,
    /// The listed URL; `None` when loc did not resolve.
    pub url_id: Option<UrlId>,
    /// The `<loc>` as written. Only read when `url_id` is `None` (the store's loader
    /// leaves it empty otherwise).
    pub loc_raw: String,
}

/// One row of `redirect_chains`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RedirectChainRow {
    /// The chain's first URL.
    pub start: UrlId,
    /// The last URL reached (`None` for a loop).
    pub final_url: Option<UrlId>,
    /// Hops followed.
    pub hops: u32,
    /// Loop or too long.
    pub problem: ChainProblem,
}

/// One URL-variant probe (`probes`): `url` is the variant, `base` the page it varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProbeRow {
    /// The variant.
    pub url: UrlId,
    /// The crawled page it is a variant of.
    pub base: UrlId,
    /// How the variant was made.
    pub rule: ProbeRule,
}

/// How a page's rendering ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RenderOutcome {
    /// Loaded and settled within its budget.
    #[default]
    Rendered,
    /// Still loading or making requests at the deadline; the DOM was read then.
    Unsettled,
    /// Its script never yielded within the budget: no DOM.
    Timeout,
    /// The renderer failed (a crash): no DOM.
    Failed,
}

impl RenderOutcome {
    /// The outcome of its stored word (`render::Outcome::as_str`); an unknown word is a
    /// failure.
    pub fn parse(word: &str) -> RenderOutcome {
        match word {
            "rendered" => RenderOutcome::Rendered,
            "unsettled" => RenderOutcome::Unsettled,
            "timeout" => RenderOutcome::Timeout,
            _ => RenderOutcome::Failed,
        }
    }

    /// Its stored word, as [`RenderOutcome::parse`] reads it.
    pub fn as_str(self) -> &'static str {
        match self {
            RenderOutcome::Rendered => "rendered",
            RenderOutcome::Unsettled => "unsettled",
            RenderOutcome::Timeout => "timeout",
            RenderOutcome::Failed => "failed",
        }
    }

    /// Whether a DOM was read.
    pub fn has_dom(self) -> bool {
        matches!(self, RenderOutcome::Rendered | RenderOutcome::Unsettled)
    }
}

/// One page rendered in Chromium (`renders`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RenderedPage {
    /// The page.
    pub url_id: UrlId,
    /// How its rendering ended.
    pub outcome: RenderOutcome,
    /// Why it did not settle or failed.
    pub message: Option<String>,
    /// The rendered title.
    pub title: Option<String>,
    /// The rendered first heading.
    pub h1: Option<String>,
    /// The rendered meta robots say noindex.
    pub noindex: bool,
    /// The rendered page's robots metas as stored.
    pub meta_robots: Option<String>,
    /// The rendered canonical's target, when it resolved.
    pub canonical: Option<UrlId>,
    /// The rendered canonical as written (`None`: the rendered head names none).
    pub canonical_href: Option<String>,
    /// Words of the rendered visible text.
    pub word_count: Option<u32>,
    /// xxh3-64 of the rendered visible text, normalized as the raw page's.
    pub text_hash: Option<u64>,
    /// The rendered DOM's text blocks outside site chrome, in `extract::blocks`' stored
    /// format: the main content of a rendered page is learned from them (spilled by
    /// the loader like the served page's).
    pub blocks: Option<crate::StoredBlocks>,
}

/// A link found only in a rendered page (`rendered_links` with `js_only`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsLinkRow {
    /// The page.
    pub from: UrlId,
    /// The linked URL.
    pub to: UrlId,
}
