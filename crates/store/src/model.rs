//! The rows the crawler writes (through the [`Writer`](crate::Writer)) and the enums that
//! name their states. The words the store shares with the crawl and the analysis are
//! the `vocab` crate's, re-exported here; the store's own are made by the same macro.

use std::fmt;

use serde::{Deserialize, Serialize};
use vocab::words;

pub use vocab::{
    ChainProblem, DeclarationSource, FetchErrorKind, FoundVia, HopKind, LinkKind, LinkRegion,
    ProbeRule, ReasonKind, UnknownReason, UnknownWord, UrlReason, UrlState, Words,
};

/// An audit's id in one database file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AuditId(pub i64);

impl fmt::Display for AuditId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A URL's id within its audit (`urls.id`). The crawler allocates them (see
/// [`ResumePoint::next_url_id`](crate::ResumePoint)); the writer maps the rare id of a URL
/// that turned out to be known already onto the stored one.
pub type UrlId = i64;

/// A sitemap's id within its audit (`sitemaps.id`), allocated by the crawler.
pub type SitemapId = i64;

words! {
    /// Where an audit is in its life.
    pub enum AuditStatus {
        /// Crawling (or killed while crawling: resume it).
        Running = "running",
        /// The crawl ran to its end.
        Finished = "finished",
        /// Stopped by the user; can be resumed.
        Cancelled = "cancelled",
        /// Stopped by an error (see the audit's `failure`); can be resumed.
        Failed = "failed",
    }
}

words! {
    /// How a sitemap was found.
    pub enum SitemapSource {
        /// A `Sitemap:` line in robots.txt.
        Robots = "robots",
        /// The conventional `/sitemap.xml` of a start origin.
        Default = "default",
        /// Given by the user.
        User = "user",
        /// Listed in a sitemap index.
        Index = "index",
    }
}

words! {
    /// What a robots.txt fetch means for its origin.
    pub enum RobotsVerdict {
        /// No usable file (4xx): everything is allowed.
        AllowAll = "allow_all",
        /// Server error or unreachable: everything is disallowed, as the robots.txt RFC says.
        DisallowAll = "disallow_all",
        /// The file's rules apply.
        Rules = "rules",
    }
}

words! {
    /// Why an audit's crawl ended before it covered everything it found
    /// (`audits.stop_reason`, a CHECK-constrained column; where it stopped is
    /// [`AuditStop::detail`]).
    pub enum StopReason {
        /// The audit held its maximum number of URLs: further URLs found were skipped.
        MaxUrls = "max_urls",
        /// URLs deeper than the maximum number of link hops were found and skipped.
        MaxDepth = "max_depth",
        /// The audit's storage budget was spent: the crawl stopped.
        MaxDbBytes = "max_db_bytes",
        /// The run's duration budget was spent: the crawl stopped (a resume continues).
        MaxDuration = "max_duration",
        /// A host answered too slowly: its remaining URLs were left queued (a resume
        /// tries them again).
        SlowHost = "slow_host",
    }
}

impl StopReason {
    /// A budget stopped the crawl while URLs were still queued (rather than a limit
    /// that left URLs unadmitted).
    pub fn is_budget(self) -> bool {
        matches!(self, Self::MaxDbBytes | Self::MaxDuration | Self::SlowHost)
    }

    /// A resumed run can continue the audit (the budget is per run, or the host may
    /// answer faster later).
    pub fn resumable(self) -> bool {
        matches!(self, Self::MaxDuration | Self::SlowHost)
    }
}

/// Why and where an audit's crawl stopped short.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditStop {
    /// Which limit or budget.
    pub reason: StopReason,
    /// Where, for people: `after 500 URLs; 1,234 more were found and not crawled`.
    pub detail: String,
}

impl fmt::Display for AuditStop {
    /// `reason (detail)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.reason, self.detail)
    }
}

/// The reason from its stored columns (`reason_kind`, `reason`); `None` when no kind is
/// stored.
pub(crate) fn reason_from_columns(
    audit: AuditId,
    kind: Option<String>,
    detail: Option<String>,
) -> Result<Option<UrlReason>, crate::StoreError> {
    let Some(kind) = kind else {
        return Ok(None);
    };
    let kind = ReasonKind::parse(&kind).ok_or_else(|| crate::StoreError::Corrupt {
        audit,
        field: "urls.reason_kind",
        detail: kind.clone(),
    })?;
    Ok(Some(UrlReason { kind, detail }))
}

/// A URL seen for the first time (as far as the crawler knows).
#[derive(Debug, Clone, PartialEq)]
pub struct NewUrl {
    /// Its id, allocated by the crawler.
    pub id: UrlId,
    /// The absolute URL as first found: what is requested.
    pub url: String,
    /// The `rfc3986` canonical form (the frontier's identity; UNIQUE per audit).
    pub url_rfc3986: String,
    /// Its canonical form under the audit's policy, if it could be formed.
    pub url_seo: Option<String>,
    /// The host (lower case).
    pub host: String,
    /// Link hops from a start URL.
    pub depth: u32,
    /// Redirect hops that led here.
    pub redirect_depth: u32,
    /// The URL whose page (or redirect) found it.
    pub found_from: Option<UrlId>,
    /// How it was found.
    pub found_via: FoundVia,
    /// `Queued`, or `Skipped` with a reason.
    pub state: UrlState,
    /// Why it is skipped.
    pub reason: Option<UrlReason>,
}

/// The result of requesting one URL (one request, or a few with Retry-After).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FetchRecord {
    /// When the request started (ms since the epoch).
    pub fetched_at: i64,
    /// The HTTP status, if a response arrived.
    pub status: Option<u16>,
    /// The Content-Type header.
    pub content_type: Option<String>,
    /// The Content-Length header.
    pub content_length: Option<u64>,
    /// Body bytes read (after decompression).
    pub body_bytes: u64,
    /// The body hit the byte cap and the rest was not read.
    pub truncated: bool,
    /// Time to the response head, in ms.
    pub ttfb_ms: Option<u64>,
    /// Time to the end of the body (or the error), in ms.
    pub total_ms: u64,
    /// Requests made (more than 1 after 429/503 retries).
    pub attempts: u32,
    /// The hop target (3xx Location or meta refresh), already in `urls`.
    pub redirect_to: Option<UrlId>,
    /// The HTML title.
    pub title: Option<String>,
    /// The first `<meta name="description">` in `<head>`, whitespace-collapsed.
    pub meta_description: Option<String>,
    /// The meta robots directives, as written.
    pub meta_robots: Option<String>,
    /// The X-Robots-Tag header(s), as sent.
    pub x_robots_tag: Option<String>,
    /// Meta robots or X-Robots-Tag says noindex.
    pub noindex: bool,
    /// Meta robots or X-Robots-Tag says nofollow.
    pub nofollow: bool,
    /// Exact-content fingerprint of the page's text.
    pub text_hash: Option<u64>,
    /// Near-duplicate fingerprint of the page's text.
    pub simhash: Option<u64>,
    /// Words in the page's text.
    pub word_count: Option<u32>,
    /// The page's first `<h1>`.
    pub h1: Option<String>,
    /// The page's text blocks outside site chrome, in `extract::blocks`' stored format.
    pub blocks: Option<Vec<u8>>,
    /// The charset used to decode the page.
    pub charset: Option<String>,
    /// What went wrong (`timeout`, `connect`, `body`, ...), if anything.
    pub error_kind: Option<String>,
    /// The error's message.
    pub error_message: Option<String>,
    /// The response's headers, bounded (stored in their own table: a fetch read back
    /// from the store has `None`; see [`Store::response_headers`](crate::Store::response_headers)).
    pub headers: Option<crate::ResponseHeaders>,
}

impl FetchRecord {
    /// An HTTP response arrived (whatever its status): the fetch counts as a page
    /// fetched ([`Audit::pages_fetched`](crate::Audit::pages_fetched)). Requests that
    /// ended without one (timeout, refused connection, ...) do not.
    pub fn answered(&self) -> bool {
        self.status.is_some()
    }
}

/// One redirect hop: the response of `from` sent the client to `to`.
#[derive(Debug, Clone, PartialEq)]
pub struct RedirectRecord {
    /// The target, already in `urls` (None when the Location did not resolve).
    pub to: Option<UrlId>,
    /// The response status (the page's status for a meta refresh).
    pub status: u16,
    /// The Location header or meta refresh URL as sent.
    pub location_raw: String,
    /// The hop's position in its chain.
    pub hop_index: u32,
    /// HTTP or meta refresh.
    pub kind: HopKind,
    /// Why `to` is None.
    pub error: Option<String>,
}

/// A link found in a page.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkRecord {
    /// The target (None when the href did not resolve to an http(s) URL).
    pub to: Option<UrlId>,
    /// The href as written.
    pub href_raw: String,
    /// The anchor text (trimmed, capped).
    pub anchor_text: Option<String>,
    /// rel=nofollow (or the page is nofollow).
    pub nofollow: bool,
    /// The element: `a`, `area`, `link`, ...
    pub tag: String,
    /// Why `to` is None (a canon error kind).
    pub error: Option<String>,
    /// Where in the page it sits; `None` for a `<link>` element.
    pub region: Option<LinkRegion>,
}

/// A rel=canonical declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct CanonicalRecord {
    /// The target (None when the href did not resolve).
    pub target: Option<UrlId>,
    /// The href as written.
    pub href_raw: String,
    /// Link element or HTTP header.
    pub source: DeclarationSource,
    /// The element is in the document head (always true for the header).
    pub in_head: bool,
    /// Why `target` is None.
    pub error: Option<String>,
}

/// An hreflang alternate.
#[derive(Debug, Clone, PartialEq)]
pub struct HreflangRecord {
    /// The language tag as written (`en-gb`, `x-default`, ...).
    pub lang: String,
    /// The target (None when the href did not resolve).
    pub target: Option<UrlId>,
    /// The href as written.
    pub href_raw: String,
    /// Link element or HTTP header.
    pub source: DeclarationSource,
}

/// A problem that is not a page's own fetch result.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorRecord {
    /// The URL concerned, if any.
    pub url_id: Option<UrlId>,
    /// `robots`, `sitemap`, `fetch`, `extract`, `crawl`.
    pub phase: String,
    /// A short machine-readable kind.
    pub kind: String,
    /// A human-readable message.
    pub message: String,
}

/// Everything learned from processing one frontier URL.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRecord {
    /// The URL that was processed (a claimed frontier URL).
    pub url_id: UrlId,
    /// Its new state: `Done`, `Failed` or `Blocked`.
    pub state: UrlState,
    /// Why it failed, is blocked or (re-checked on the way out) skipped.
    pub reason: Option<UrlReason>,
    /// For `Blocked`: the robots.txt origin whose rules blocked it.
    pub blocked_by: Option<String>,
    /// URLs first seen here (link, canonical, redirect targets ...), written before the
    /// rows below that point at them.
    pub new_urls: Vec<NewUrl>,
    /// Known URLs found again at a depth that now admits them (skipped for depth before).
    pub requeue: Vec<Requeue>,
    /// The fetch, unless the URL was blocked.
    pub fetch: Option<FetchRecord>,
    /// The hop, if the response redirected (3xx or meta refresh).
    pub redirect: Option<RedirectRecord>,
    /// Links in document order.
    pub links: Vec<LinkRecord>,
    /// Canonical declarations (header first, then elements in document order).
    pub canonicals: Vec<CanonicalRecord>,
    /// hreflang alternates.
    pub hreflang: Vec<HreflangRecord>,
    /// Other problems met while processing the page.
    pub errors: Vec<ErrorRecord>,
    /// The page rendered in Chromium (audits with rendering on).
    pub rendered: Option<Box<crate::RenderRecord>>,
}

impl PageRecord {
    /// An empty record for `url_id` with the given final state.
    pub fn new(url_id: UrlId, state: UrlState) -> Self {
        Self {
            url_id,
            state,
            reason: None,
            blocked_by: None,
            new_urls: Vec::new(),
            requeue: Vec::new(),
            fetch: None,
            redirect: None,
            links: Vec::new(),
            canonicals: Vec::new(),
            hreflang: Vec::new(),
            errors: Vec::new(),
            rendered: None,
        }
    }
}

/// A skipped URL to put (back) into the frontier at a shallower depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Requeue {
    /// The URL.
    pub id: UrlId,
    /// Its new depth.
    pub depth: u32,
}

/// A sitemap entry (`<url>` in a urlset, or a line of a text sitemap).
#[derive(Debug, Clone, PartialEq)]
pub struct SitemapEntryRecord {
    /// The URL, already in `urls` (None when loc did not resolve).
    pub url_id: Option<UrlId>,
    /// `<loc>` as written.
    pub loc_raw: String,
    /// `<lastmod>` as written.
    pub lastmod: Option<String>,
    /// `<changefreq>` as written.
    pub changefreq: Option<String>,
    /// `<priority>`.
    pub priority: Option<f64>,
}

/// One fetched sitemap with its entries.
#[derive(Debug, Clone, PartialEq)]
pub struct SitemapRecord {
    /// Its id, allocated by the crawler.
    pub id: SitemapId,
    /// The sitemap's URL.
    pub url: String,
    /// `urlset`, `sitemapindex`, `text`, `rss`, `atom` or `unknown`.
    pub kind: String,
    /// The index that listed it.
    pub parent_id: Option<SitemapId>,
    /// How it was found.
    pub found_via: SitemapSource,
    /// When it was requested (ms since the epoch).
    pub fetched_at: i64,
    /// The HTTP status, if a response arrived.
    pub status: Option<u16>,
    /// Bytes read (compressed size for .gz).
    pub body_bytes: u64,
    /// The body was gzip-compressed.
    pub gzip: bool,
    /// The parser's issues, as a JSON array.
    pub issues_json: String,
    /// A fetch error or a fatal parse error.
    pub error: Option<String>,
    /// URLs first seen in this sitemap.
    pub new_urls: Vec<NewUrl>,
    /// Known URLs to re-queue at the sitemap depth.
    pub requeue: Vec<Requeue>,
    /// The entries, in document order.
    pub entries: Vec<SitemapEntryRecord>,
}

/// One robots.txt fetch.
#[derive(Debug, Clone, PartialEq)]
pub struct RobotsRecord {
    /// `scheme://host[:port]`.
    pub origin: String,
    /// When it was requested (ms since the epoch).
    pub fetched_at: i64,
    /// The HTTP status, if a response arrived.
    pub status: Option<u16>,
    /// The body (capped), kept so that a resumed audit need not fetch it again.
    pub body: Option<String>,
    /// Its Crawl-delay for our user agent, in seconds.
    pub crawl_delay: Option<f64>,
    /// Its Sitemap lines.
    pub sitemaps: Vec<String>,
    /// What it means for the origin.
    pub verdict: RobotsVerdict,
    /// Why there is no usable file.
    pub error: Option<String>,
}

/// A redirect chain that went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainRecord {
    /// The first URL of the chain.
    pub start: UrlId,
    /// The last URL reached (None for a loop).
    pub last: Option<UrlId>,
    /// Hops followed.
    pub hops: u32,
    /// What is wrong.
    pub problem: ChainProblem,
}

/// A frontier URL handed to a fetcher by [`Writer::claim`](crate::Writer::claim).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    /// Its id.
    pub id: UrlId,
    /// The URL to request.
    pub url: String,
    /// Its link depth.
    pub depth: u32,
    /// Redirect hops that led to it.
    pub redirect_depth: u32,
}

/// A stored redirect hop, for walking chains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RedirectEdge {
    /// The redirecting URL.
    pub from: UrlId,
    /// Where it sent the client.
    pub to: UrlId,
}

/// A URL already stored for an audit, as a resumed crawl reloads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownUrl {
    /// Its id.
    pub id: UrlId,
    /// Its `rfc3986` form.
    pub url_rfc3986: String,
    /// Its state.
    pub state: UrlState,
    /// Why it is skipped, if it is.
    pub reason: Option<UrlReason>,
    /// How it was first found.
    pub found_via: FoundVia,
}
