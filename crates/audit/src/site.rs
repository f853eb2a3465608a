//! The crawl as dense arrays: every URL row gets an index (its position in
//! `AuditInput::urls`), and every per-URL fact is a `Vec` indexed by it. Rows that name
//! unknown ids are ignored (a malformed row never fails an analysis).

use crate::config::AnalysisConfig;
use crate::input::{
    AuditInput, DeclarationSource, HopKind, ReasonKind, UrlId, UrlReason, UrlState,
};
use crate::main_content::MainContent;
use crate::urlparts::{split, strip_www};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// "No index".
pub(crate) const NONE: u32 = u32::MAX;

/// One redirect hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hop {
    /// Target index, or [`NONE`] when Location did not resolve.
    pub to: u32,
    /// The status (301, 302, ...; the page's for a meta refresh).
    pub status: u16,
    /// HTTP or meta refresh.
    pub kind: HopKind,
}

/// Where following a URL's redirects ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Chain {
    /// The URL does not redirect.
    NoHop,
    /// It ends at `to` (a URL that does not redirect) after `hops` hops.
    Final { to: u32, hops: u32 },
    /// The hop out of `last` did not resolve, after `hops` hops.
    Unresolved { last: u32, hops: u32 },
    /// It loops (or runs into a loop).
    Loop,
}

/// Fingerprints of a page with a real amount of text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Content {
    pub text_hash: u64,
    pub simhash: Option<u64>,
    /// Main content hash and words (the template removed), when blocks were stored.
    pub main: Option<(u64, u32)>,
}

/// A page's text as the content evidence reads it (see [`Site::text`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PageText<'a> {
    /// The title.
    pub title: Option<&'a str>,
    /// The first `<h1>`.
    pub h1: Option<&'a str>,
    /// Words of visible text.
    pub word_count: Option<u32>,
    /// xxh3-64 of the normalized visible text.
    pub text_hash: Option<u64>,
    /// 64-bit SimHash of the visible text's word 3-shingles.
    pub simhash: Option<u64>,
    /// The text blocks outside site chrome (`extract::blocks`' stored format).
    pub blocks: Option<&'a crate::StoredBlocks>,
}

/// What two pages called identical have in common: every report words the claim by it,
/// so "identical text" is said only where the whole visible text is the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sameness {
    /// The whole visible text is the same.
    Text,
    /// The main content is the same once the site's template (blocks that recur by
    /// position across the host) is left out; the rest of the page may differ.
    #[default]
    MainContent,
}

impl Sameness {
    /// The claim as reports word it: "identical text" or "identical main content".
    pub fn claim(self) -> &'static str {
        match self {
            Sameness::Text => "identical text",
            Sameness::MainContent => "identical main content",
        }
    }
}

/// How two pages' contents compare.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Agreement {
    /// The same visible text, or the same main content (template removed, at least
    /// `min_words` words, not titled apart): strong evidence. Says which.
    Identical(Sameness),
    /// Main contents at least `near_similarity` similar: weak evidence, never a merge.
    Near(f64),
    /// Between near and different: neither merged nor reported (the similarity).
    Unclear(f64),
    /// Less similar than `different_similarity`: different pages (the similarity).
    Different(f64),
    /// One of them has no content to compare.
    Unknown,
}

/// Titles of error pages served with 200 ("soft 404s"), lowercase: a title containing
/// one reads like an error page (the DataFusion plans read the same list).
pub const SOFT_404_TITLES: &[&str] = &[
    "not found",
    "404 error",
    "error 404",
    "404 -",
    "- 404",
    "404 |",
    "| 404",
    "no results",
    "nothing found",
    "page unavailable",
];

/// Whether a title reads like an error page.
pub(crate) fn soft_404_title(title: &str) -> bool {
    let t = title.trim().to_lowercase();
    t == "404" || SOFT_404_TITLES.iter().any(|p| t.contains(p))
}

/// Headings that make up a whole text block of an error page, as a client-rendered app
/// writes its "not found" view ("404 - Not Found", "Page not found"): compared by the
/// block hash the extractor stores (words only, lower-cased), so punctuation and letter
/// case do not matter.
pub const SOFT_404_HEADINGS: &[&str] = &[
    "404",
    "not found",
    "404 not found",
    "page not found",
    "404 page not found",
    "error 404",
    "404 error",
    "nothing found",
    "page unavailable",
];

/// The block hashes of [`SOFT_404_HEADINGS`], hashed by the extractor itself.
fn soft_404_heading_hashes() -> &'static [u64] {
    static HASHES: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    HASHES.get_or_init(|| {
        SOFT_404_HEADINGS
            .iter()
            .filter_map(|h| {
                let html = format!("<h1>{h}</h1>");
                extract::extract(html.as_bytes(), Some("text/html"))
                    .blocks
                    .first()
                    .map(|b| b.hash)
            })
            .collect()
    })
}

/// The words of the first block of `blocks` that is an error page's heading (see
/// [`SOFT_404_HEADINGS`]), if one is.
fn soft_404_heading_words(blocks: &crate::StoredBlocks) -> Option<u32> {
    let bytes = blocks.bytes().ok()?;
    let reader = extract::blocks::BlockReader::new(&bytes).ok()?;
    let headings = soft_404_heading_hashes();
    reader
        .map_while(Result::ok)
        .find(|b| headings.contains(&b.hash))
        .map(|b| b.words)
}

/// Hamming distance of two SimHashes.
pub(crate) fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// The dense view of one audit.
pub(crate) struct Site<'a> {
    pub input: &'a AuditInput,
    pub cfg: &'a AnalysisConfig,
    pub n: usize,
    /// `Some(first id)` when the rows' ids are consecutive (the store's case): the
    /// index of an id is then `id - first`, with no map.
    dense_from: Option<UrlId>,
    index: FxHashMap<UrlId, u32>,
    /// rfc3986 forms computed for rows that left `url_rfc3986` empty.
    computed_urls: FxHashMap<u32, String>,
    /// Fetch row per URL, or [`NONE`].
    fetch: Vec<u32>,
    /// The redirect hop out of each URL.
    pub hops: Vec<Option<Hop>>,
    /// Resolved redirect chains.
    pub chains: Vec<Chain>,
    /// Whether some hop leads to the URL.
    pub hop_target: Vec<bool>,
    /// Canonical rows of each page, in declaration order (CSR over `canon_rows`).
    canon_start: Vec<u32>,
    canon_rows: Vec<u32>,
    /// The page's one effective canonical target (element in head or header, resolved,
    /// all declarations agreeing), or [`NONE`].
    pub eff_canon: Vec<u32>,
    /// Pages other than itself whose effective canonical is the URL.
    pub canon_in: Vec<u32>,
    /// Distinct internal pages linking to the URL (CSR over `in_src`). Links only: URLs
    /// a page declares (shortlink, og:url, ...) are not links (see
    /// [`LinkKind`](crate::input::LinkKind)).
    in_start: Vec<u32>,
    in_src: Vec<u32>,
    /// Whether a declaration of another internal page (shortlink, og:url, structured
    /// data, ...) reaches the URL.
    pub declared_in: Vec<bool>,
    /// Sitemap entries listing the URL.
    pub sitemap_count: Vec<u32>,
    /// hreflang declarations of other pages pointing at the URL.
    pub hreflang_in: Vec<u32>,
    /// robots.txt blocked it.
    pub blocked: Vec<bool>,
    /// Dustpan made it up (a URL-variant probe, or found only through one, see
    /// [`AuditInput::made_up_urls`]): its links are no links of the site.
    pub made_up: Vec<bool>,
    /// Out of the audit's scope (another site).
    pub external: Vec<bool>,
    /// The site prefers this scheme, as shown by its redirects.
    pub preferred_scheme: Option<&'static str>,
    /// Hosts the site redirects away from more than to.
    pub demoted_hosts: Vec<String>,
    /// Host-changing redirect votes, `(from host, to host, count)`.
    pub host_votes: Vec<(String, String, u32)>,
    /// Whether the sitemaps list anything at all.
    pub has_sitemap_entries: bool,
    /// Every page's main content (the site's template removed).
    pub main: MainContent<'a>,
    /// The rendered pages (audits with rendering on).
    pub(crate) rendering: crate::rendered::Rendering,
}

impl<'a> Site<'a> {
    pub(crate) fn new(input: &'a AuditInput, cfg: &'a AnalysisConfig) -> Site<'a> {
        let n = input.urls.len();
        let first = input.urls.first().map_or(0, |r| r.id);
        let dense = input
            .urls
            .iter()
            .enumerate()
            .all(|(i, r)| u64::from(r.id) == u64::from(first) + i as u64);
        let mut index = FxHashMap::default();
        if !dense {
            index.reserve(n);
            for (i, row) in input.urls.iter().enumerate() {
                index.entry(row.id).or_insert(i as u32);
            }
        }
        let computed_urls = input
            .urls
            .iter()
            .enumerate()
            .filter(|(_, row)| row.url_rfc3986.is_empty())
            .map(|(i, row)| {
                let url = canon::equivalence_key(row.found_url(), &canon::Policy::rfc3986())
                    .unwrap_or_else(|_| row.found_url().to_owned());
                (i as u32, url)
            })
            .collect();
        let mut site = Site {
            input,
            cfg,
            n,
            dense_from: dense.then_some(first),
            index,
            computed_urls,
            fetch: vec![NONE; n],
            hops: vec![None; n],
            chains: vec![Chain::NoHop; n],
            hop_target: vec![false; n],
            canon_start: Vec::new(),
            canon_rows: Vec::new(),
            eff_canon: vec![NONE; n],
            canon_in: vec![0; n],
            in_start: Vec::new(),
            in_src: Vec::new(),
            declared_in: vec![false; n],
            sitemap_count: vec![0; n],
            hreflang_in: vec![0; n],
            blocked: vec![false; n],
            made_up: vec![false; n],
            external: vec![false; n],
            preferred_scheme: None,
            demoted_hosts: Vec::new(),
            host_votes: Vec::new(),
            has_sitemap_entries: false,
            main: MainContent::default(),
            rendering: crate::rendered::Rendering::default(),
        };
        for (i, row) in input.urls.iter().enumerate() {
            site.external[i] = row.state == UrlState::Skipped
                && row.reason.as_ref().map(|r| r.kind) == Some(ReasonKind::OutOfScope);
            site.blocked[i] = row.state == UrlState::Blocked;
        }
        for id in input.made_up_urls() {
            if let Some(i) = site.idx(id) {
                site.made_up[i as usize] = true;
            }
        }
        for &id in &input.robots_blocks {
            if let Some(i) = site.idx(id) {
                site.blocked[i as usize] = true;
            }
        }
        for (r, f) in input.fetches.iter().enumerate() {
            if let Some(i) = site.idx(f.url_id) {
                site.fetch[i as usize] = r as u32;
            }
        }
        site.load_hops();
        site.resolve_chains();
        let rendering =
            crate::rendered::Rendering::new(site.n, &input.renders, &input.js_links, |id| {
                site.idx(id)
            });
        site.rendering = rendering;
        site.load_canonicals();
        site.load_links();
        for e in &input.sitemap_entries {
            if let Some(i) = e.url_id.and_then(|id| site.idx(id)) {
                site.sitemap_count[i as usize] += 1;
                site.has_sitemap_entries = true;
            }
        }
        for h in &input.hreflang {
            if let (Some(p), Some(t)) = (site.idx(h.page), h.target.and_then(|t| site.idx(t)))
                && p != t
            {
                site.hreflang_in[t as usize] += 1;
            }
        }
        site.site_preferences();
        site.main = crate::main_content::learn(site.n, |i| {
            site.serves(i).then(|| {
                let text = site.text(i);
                (
                    site.url(i),
                    text.and_then(|t| t.text_hash),
                    text.and_then(|t| t.blocks),
                )
            })
        });
        site
    }

    /// The index of a URL id.
    pub(crate) fn idx(&self, id: UrlId) -> Option<u32> {
        match self.dense_from {
            Some(first) => id.checked_sub(first).filter(|&i| (i as usize) < self.n),
            None => self.index.get(&id).copied(),
        }
    }

    /// The URL's id.
    /// Whether the URL is a URL-variant probe's alone (requested after the crawl, found
    /// by nothing else): the site's own URL patterns are not learned from it.
    pub(crate) fn probe(&self, i: u32) -> bool {
        let row = &self.input.urls[i as usize];
        row.found_via == crate::input::FoundVia::Variant && row.depth > 0
    }

    pub(crate) fn id(&self, i: u32) -> UrlId {
        self.input.urls[i as usize].id
    }

    /// The URL's text (its rfc3986 form).
    pub(crate) fn url(&self, i: u32) -> &str {
        let row = &self.input.urls[i as usize];
        if row.url_rfc3986.is_empty() {
            self.computed_urls
                .get(&i)
                .map_or(row.found_url(), String::as_str)
        } else {
            &row.url_rfc3986
        }
    }

    /// A canonical declaration's href as written: `href_raw`, or the target's URL where
    /// the store's loader left `href_raw` empty because the two are the same.
    pub(crate) fn href(&self, c: &'a crate::input::CanonicalRow) -> &'a str {
        if c.href_raw.is_empty()
            && let Some(t) = c.target.and_then(|t| self.idx(t))
        {
            return self.input.urls[t as usize].found_url();
        }
        &c.href_raw
    }

    /// The URL's text, owned.
    pub(crate) fn url_string(&self, i: u32) -> String {
        self.url(i).to_owned()
    }

    /// The URL's fetch row.
    pub(crate) fn fetch(&self, i: u32) -> Option<&'a crate::input::FetchRow> {
        let r = self.fetch[i as usize];
        (r != NONE).then(|| &self.input.fetches[r as usize])
    }

    /// The HTTP status, if it was fetched and answered.
    pub(crate) fn status(&self, i: u32) -> Option<u16> {
        self.fetch(i).and_then(|f| f.status)
    }

    /// It answered 2xx.
    pub(crate) fn ok(&self, i: u32) -> bool {
        self.status(i).is_some_and(|s| (200..300).contains(&s))
    }

    /// It answered 2xx without a hop (a meta refresh page answers 200 but is a redirect).
    pub(crate) fn serves(&self, i: u32) -> bool {
        self.ok(i) && self.hops[i as usize].is_none()
    }

    /// It answered 2xx and may be indexed (no noindex, not blocked).
    pub(crate) fn indexable(&self, i: u32) -> bool {
        self.serves(i) && !self.noindex(i) && !self.blocked[i as usize]
    }

    /// It was fetched as an HTML page (by its Content-Type; without one, when text was
    /// read from it).
    pub(crate) fn html(&self, i: u32) -> bool {
        self.fetch(i).is_some_and(|f| match &f.content_type {
            Some(ct) => ct.to_ascii_lowercase().contains("html"),
            None => f.text_hash.is_some(),
        })
    }

    /// meta robots / X-Robots-Tag noindex, in the raw HTML or in the rendered DOM (a
    /// search engine may skip rendering a page whose raw HTML says noindex, and obeys
    /// one a script adds).
    pub(crate) fn noindex(&self, i: u32) -> bool {
        self.fetch(i).is_some_and(|f| f.noindex) || self.rendered_dom(i).is_some_and(|r| r.noindex)
    }

    /// The rendered page of URL `i`, if it was rendered (audits with rendering on).
    pub(crate) fn rendered(&self, i: u32) -> Option<&'a crate::input::RenderedPage> {
        self.rendering.page(&self.input.renders, i)
    }

    /// The rendered page of URL `i` when its DOM was read.
    pub(crate) fn rendered_dom(&self, i: u32) -> Option<&'a crate::input::RenderedPage> {
        self.rendered(i).filter(|r| r.outcome.has_dom())
    }

    /// Where page `i`'s canonical was read, when it was rendered.
    pub(crate) fn canonical_from(&self, i: u32) -> Option<crate::rendered::CanonicalFrom> {
        self.rendered(i)?;
        Some(
            self.rendering
                .canonical_from(i, self.rendered_dom(i).is_some()),
        )
    }

    /// It was fetched and answered 4xx/5xx, or no response arrived.
    pub(crate) fn error(&self, i: u32) -> bool {
        match self.fetch(i) {
            Some(f) => match f.status {
                Some(s) => s >= 400,
                None => true,
            },
            None => self.input.urls[i as usize].state == UrlState::Failed,
        }
    }

    /// A short description of a URL's response, for evidence lines.
    pub(crate) fn describe(&self, i: u32) -> String {
        match self.fetch(i) {
            Some(f) => match (f.status, &f.error_kind) {
                (Some(s), _) => format!("answers {s}"),
                (None, Some(e)) => format!("no response ({e})"),
                (None, None) => "no response".to_owned(),
            },
            None if self.blocked[i as usize] => "blocked by robots.txt".to_owned(),
            None => "not fetched".to_owned(),
        }
    }

    /// The text of page `i` the content evidence reads: where the page was rendered and
    /// its DOM read, the rendered page's (what a search engine indexes; a page whose
    /// served HTML is an empty shell gets its content from its script), else the served
    /// HTML's. The choice is made here only: fingerprints, main content and titles all
    /// come from one version of a page.
    pub(crate) fn text(&self, i: u32) -> Option<PageText<'a>> {
        let f = self.fetch(i)?;
        if let Some(r) = self.rendered_dom(i) {
            return Some(PageText {
                title: r.title.as_deref(),
                h1: r.h1.as_deref(),
                word_count: r.word_count,
                text_hash: r.text_hash,
                // The rendered text's SimHash is not stored; the served one stands for
                // it only when the two texts are the same.
                simhash: f.simhash.filter(|_| r.text_hash == f.text_hash),
                blocks: r.blocks.as_ref(),
            });
        }
        Some(PageText {
            title: f.title.as_deref(),
            h1: f.h1.as_deref(),
            word_count: f.word_count,
            text_hash: f.text_hash,
            simhash: f.simhash,
            blocks: f.blocks.as_ref(),
        })
    }

    /// Whether page `i` reads like an error page (a "soft 404" when it answers 200): its
    /// title does ([`soft_404_title`]), or, where it was rendered, its rendered first
    /// heading does, or its rendered main content is an error heading
    /// ([`SOFT_404_HEADINGS`]) and nothing more (the site's template left out, no more
    /// words than the heading's). A client-rendered app keeps its shell's title on every
    /// route, its "not found" view included, and may put the site's name in the first
    /// heading, so the rendered content is where it says so. The one place the analysis
    /// decides it: clusters, content evidence and the duplicate titles all ask here.
    pub(crate) fn soft_404(&self, i: u32) -> bool {
        let Some(t) = self.text(i) else {
            return false;
        };
        if t.title.is_some_and(soft_404_title) {
            return true;
        }
        self.rendered_dom(i).is_some_and(|r| {
            r.h1.as_deref().is_some_and(soft_404_title)
                || r.blocks
                    .as_ref()
                    .and_then(soft_404_heading_words)
                    .zip(self.main.words(i))
                    .is_some_and(|(heading, main)| main <= heading)
        })
    }

    /// Fingerprints, for a 2xx page with at least `min_words` words of text whose title
    /// does not read like an error page (a soft 404 shares its text with every other).
    pub(crate) fn content(&self, i: u32) -> Option<Content> {
        let t = self.text(i)?;
        if !self.serves(i) || t.word_count.unwrap_or(0) < self.cfg.min_words || self.soft_404(i) {
            return None;
        }
        Some(Content {
            text_hash: t.text_hash?,
            simhash: t.simhash,
            main: self.main.get(i),
        })
    }

    /// How the contents of two pages compare (see [`Agreement`]).
    pub(crate) fn agreement(&self, a: u32, b: u32) -> Agreement {
        let (Some(x), Some(y)) = (self.content(a), self.content(b)) else {
            return Agreement::Unknown;
        };
        if x.text_hash == y.text_hash {
            return Agreement::Identical(Sameness::Text);
        }
        if let (Some((ha, wa)), Some((hb, wb))) = (x.main, y.main) {
            let min = self.cfg.min_words;
            if ha == hb && wa >= min && wb >= min && !self.titled_apart(a, b) {
                return Agreement::Identical(Sameness::MainContent);
            }
            if let Some(s) = self.main.similarity(a, b) {
                return if s >= self.cfg.near_similarity {
                    Agreement::Near(s)
                } else if s < self.cfg.different_similarity {
                    Agreement::Different(s)
                } else {
                    Agreement::Unclear(s)
                };
            }
        }
        match (x.simhash, y.simhash) {
            (Some(p), Some(q)) => {
                let d = distance(p, q);
                let s = 1.0 - f64::from(d) / 64.0;
                if d <= self.cfg.near_distance {
                    Agreement::Near(s)
                } else if d > self.cfg.different_distance {
                    Agreement::Different(s)
                } else {
                    Agreement::Unclear(s)
                }
            }
            _ => Agreement::Unknown,
        }
    }

    /// Both titles and both first `<h1>`s are present and differ: two pages that name
    /// themselves differently are never one page on content alone.
    pub(crate) fn titled_apart(&self, a: u32, b: u32) -> bool {
        let (Some(ta), Some(tb)) = (self.text(a), self.text(b)) else {
            return false;
        };
        let differ = |x: Option<&str>, y: Option<&str>| match (x, y) {
            (Some(x), Some(y)) => x.trim() != y.trim(),
            _ => false,
        };
        differ(ta.title, tb.title) && differ(ta.h1, tb.h1)
    }

    /// Pages linking to the URL (distinct, internal, other than itself).
    pub(crate) fn linked_from(&self, i: u32) -> &[u32] {
        if self.in_start.is_empty() {
            return &[];
        }
        let (a, b) = (self.in_start[i as usize], self.in_start[i as usize + 1]);
        &self.in_src[a as usize..b as usize]
    }

    /// Number of internal pages linking to the URL.
    pub(crate) fn inlinks(&self, i: u32) -> u32 {
        self.linked_from(i).len() as u32
    }

    /// Whether crawled pages lead to the URL: a link, or a declaration of another page
    /// (a URL that only a shortlink or an og:url reaches is discovered, not an orphan).
    pub(crate) fn reached(&self, i: u32) -> bool {
        self.inlinks(i) > 0 || self.declared_in[i as usize]
    }

    /// The page's canonical declarations.
    pub(crate) fn canonicals(
        &self,
        i: u32,
    ) -> impl Iterator<Item = &'a crate::input::CanonicalRow> + '_ {
        let (a, b) = if self.canon_start.is_empty() {
            (0, 0)
        } else {
            (
                self.canon_start[i as usize],
                self.canon_start[i as usize + 1],
            )
        };
        self.canon_rows[a as usize..b as usize]
            .iter()
            .map(|&r| &self.input.canonicals[r as usize])
    }

    fn load_hops(&mut self) {
        for r in &self.input.redirects {
            let Some(from) = self.idx(r.from) else {
                continue;
            };
            let to = r.to.and_then(|t| self.idx(t)).unwrap_or(NONE);
            self.hops[from as usize] = Some(Hop {
                to,
                status: r.status,
                kind: r.kind,
            });
        }
        for f in &self.input.fetches {
            let Some(from) = self.idx(f.url_id) else {
                continue;
            };
            if self.hops[from as usize].is_some() {
                continue;
            }
            if let Some(to) = f.redirect_to.and_then(|t| self.idx(t)) {
                let status = f.status.unwrap_or(0);
                let kind = if (300..400).contains(&status) {
                    HopKind::Http
                } else {
                    HopKind::MetaRefresh
                };
                self.hops[from as usize] = Some(Hop { to, status, kind });
            }
        }
        for h in self.hops.iter().flatten() {
            if h.to != NONE {
                self.hop_target[h.to as usize] = true;
            }
        }
    }

    /// Follows every chain once (iteratively, memoised): O(n).
    fn resolve_chains(&mut self) {
        const TODO: u8 = 0;
        const OPEN: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![TODO; self.n];
        let mut path = Vec::new();
        for s in 0..self.n {
            if state[s] == DONE || self.hops[s].is_none() {
                continue;
            }
            path.clear();
            let mut cur = s as u32;
            let mut tail = loop {
                let c = cur as usize;
                if state[c] == DONE {
                    break match self.chains[c] {
                        Chain::NoHop => Chain::Final { to: cur, hops: 0 },
                        other => other,
                    };
                }
                if state[c] == OPEN {
                    break Chain::Loop;
                }
                let Some(hop) = self.hops[c] else {
                    state[c] = DONE;
                    break Chain::Final { to: cur, hops: 0 };
                };
                if hop.to == NONE {
                    state[c] = DONE;
                    self.chains[c] = Chain::Unresolved { last: cur, hops: 1 };
                    break self.chains[c];
                }
                state[c] = OPEN;
                path.push(cur);
                cur = hop.to;
            };
            for &p in path.iter().rev() {
                tail = match tail {
                    Chain::NoHop => Chain::Final { to: cur, hops: 1 },
                    Chain::Final { to, hops } => Chain::Final { to, hops: hops + 1 },
                    Chain::Unresolved { last, hops } => Chain::Unresolved {
                        last,
                        hops: hops + 1,
                    },
                    Chain::Loop => Chain::Loop,
                };
                self.chains[p as usize] = tail;
                state[p as usize] = DONE;
            }
        }
    }

    fn load_canonicals(&mut self) {
        let input = self.input;
        let mut rows: Vec<(u32, u32, u32)> = input
            .canonicals
            .iter()
            .enumerate()
            .filter_map(|(r, c)| self.idx(c.page).map(|p| (p, c.position, r as u32)))
            .collect();
        rows.sort_unstable();
        self.canon_start = vec![0; self.n + 1];
        for &(p, _, _) in &rows {
            self.canon_start[p as usize + 1] += 1;
        }
        for i in 0..self.n {
            self.canon_start[i + 1] += self.canon_start[i];
        }
        self.canon_rows = rows.iter().map(|&(_, _, r)| r).collect();
        for i in 0..self.n as u32 {
            let mut target = NONE;
            let mut conflict = false;
            for c in self.canonicals(i) {
                if c.source == DeclarationSource::LinkElement && !c.in_head {
                    continue;
                }
                let Some(t) = c.target.and_then(|t| self.idx(t)) else {
                    continue;
                };
                if target == NONE {
                    target = t;
                } else if target != t {
                    conflict = true;
                }
            }
            // Where the page was rendered, the canonical of its rendered DOM (what the
            // search engine indexes): the one place the analysis chooses between them.
            let raw = (!conflict && target != NONE).then_some(target);
            let dom = self.rendered_dom(i).map(|p| {
                (
                    p.canonical_href.is_some(),
                    p.canonical.and_then(|t| self.idx(t)),
                )
            });
            let from_header = self
                .canonicals(i)
                .any(|c| c.source == DeclarationSource::HttpHeader);
            let target = self
                .rendering
                .choose(i, raw, dom, from_header)
                .unwrap_or(NONE);
            if target != NONE {
                self.eff_canon[i as usize] = target;
                if target != i {
                    self.canon_in[target as usize] += 1;
                }
            }
        }
    }

    /// The inlink index: each URL's distinct internal linking pages, sorted. Two passes
    /// over the links (count, then place), so the index is the only copy held: four
    /// bytes a link until each URL's sources are sorted and deduplicated in place.
    fn load_links(&mut self) {
        let mut start = vec![0u32; self.n + 1];
        for l in &self.input.links {
            if let Some((_, t)) = self.inlink(&l) {
                start[t as usize + 1] += 1;
            } else if l.kind.is_declared()
                && let (Some(f), Some(t)) = (self.idx(l.from), l.to.and_then(|t| self.idx(t)))
                && self.internal_pair((f, t))
            {
                self.declared_in[t as usize] = true;
            }
        }
        for i in 0..self.n {
            start[i + 1] += start[i];
        }
        let mut src = vec![0u32; start[self.n] as usize];
        let mut next = start.clone();
        for l in &self.input.links {
            if let Some((f, t)) = self.inlink(&l) {
                src[next[t as usize] as usize] = f;
                next[t as usize] += 1;
            }
        }
        drop(next);
        // Each URL's sources sorted and deduplicated, moved down over the duplicates.
        let mut kept = 0usize;
        for t in 0..self.n {
            let (a, b) = (start[t] as usize, start[t + 1] as usize);
            src[a..b].sort_unstable();
            start[t] = kept as u32;
            let mut last = None;
            for k in a..b {
                if last != Some(src[k]) {
                    last = Some(src[k]);
                    src[kept] = src[k];
                    kept += 1;
                }
            }
        }
        start[self.n] = kept as u32;
        src.truncate(kept);
        src.shrink_to_fit();
        self.in_start = start;
        self.in_src = src;
    }

    /// A link's (source, target) indexes when it is an internal link of the site's own
    /// pages (see [`Site::internal_pair`]) and no URL a page declares (shortlink,
    /// og:url, ...).
    fn inlink(&self, l: &crate::input::LinkRow) -> Option<(u32, u32)> {
        if l.kind.is_declared() {
            return None;
        }
        let pair = (self.idx(l.from)?, self.idx(l.to?)?);
        self.internal_pair(pair).then_some(pair)
    }

    /// Whether a link (source, target indexes) joins two internal URLs, from a page the
    /// site serves (not one Dustpan made up), and is no link to itself.
    fn internal_pair(&self, (f, t): (u32, u32)) -> bool {
        f != t
            && !self.external[f as usize]
            && !self.external[t as usize]
            && !self.made_up[f as usize]
    }

    /// The site's preferred scheme and hosts, from its redirects.
    fn site_preferences(&mut self) {
        let (mut https, mut http) = (0u32, 0u32);
        let mut votes: FxHashMap<(String, String), u32> = FxHashMap::default();
        for (i, hop) in self.hops.iter().enumerate() {
            let Some(hop) = hop else { continue };
            if hop.to == NONE || hop.kind != HopKind::Http {
                continue;
            }
            let (a, b) = (split(self.url(i as u32)), split(self.url(hop.to)));
            if !a.scheme.eq_ignore_ascii_case(b.scheme) && a.host.eq_ignore_ascii_case(b.host) {
                match b.scheme {
                    "https" => https += 1,
                    "http" => http += 1,
                    _ => {}
                }
            }
            if !a.host.eq_ignore_ascii_case(b.host) && !self.external[hop.to as usize] {
                *votes
                    .entry((a.host.to_ascii_lowercase(), b.host.to_ascii_lowercase()))
                    .or_default() += 1;
            }
        }
        self.preferred_scheme = match https.cmp(&http) {
            std::cmp::Ordering::Greater => Some("https"),
            std::cmp::Ordering::Less => Some("http"),
            std::cmp::Ordering::Equal => None,
        };
        let mut balance: FxHashMap<&str, i64> = FxHashMap::default();
        for ((from, to), c) in &votes {
            *balance.entry(from).or_default() -= i64::from(*c);
            *balance.entry(to).or_default() += i64::from(*c);
        }
        let mut demoted: Vec<String> = balance
            .into_iter()
            .filter(|&(_, b)| b < 0)
            .map(|(h, _)| h.to_owned())
            .collect();
        demoted.sort();
        self.demoted_hosts = demoted;
        let mut host_votes: Vec<(String, String, u32)> =
            votes.into_iter().map(|((a, b), c)| (a, b, c)).collect();
        host_votes.sort();
        self.host_votes = host_votes;
    }

    /// The URL uses the site's preferred scheme (https when the redirects show none).
    pub(crate) fn scheme_ok(&self, i: u32) -> bool {
        let preferred = self.preferred_scheme.unwrap_or("https");
        split(self.url(i)).scheme.eq_ignore_ascii_case(preferred)
    }

    /// The URL's host is not one the site redirects away from.
    pub(crate) fn host_ok(&self, i: u32) -> bool {
        let host = split(self.url(i)).host;
        !self
            .demoted_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Two URLs are on the same site (hosts equal once a leading `www.` is dropped).
    pub(crate) fn same_site(&self, a: u32, b: u32) -> bool {
        strip_www(split(self.url(a)).host).eq_ignore_ascii_case(strip_www(split(self.url(b)).host))
    }

    /// Why the URL was skipped, blocked or failed, if it was.
    pub(crate) fn reason(&self, i: u32) -> Option<&'a UrlReason> {
        self.input.urls[i as usize].reason.as_ref()
    }

    /// The comment page of its own that page `i` names canonical (`/post/` naming
    /// `/post/comment-page-3/`, as a CMS that splits comments into pages, newest first,
    /// writes it): not the site's choice of another URL but a side effect of a setting,
    /// so the post, not its comment page, is the page.
    pub(crate) fn own_comment_page_canonical(&self, i: u32) -> Option<u32> {
        let t = self.eff_canon[i as usize];
        if t == NONE || t == i {
            return None;
        }
        let (target, page) = (self.url(t), self.url(i));
        // `/post/comment-page-2/` belongs to `/post/` and to `/post` alike.
        let of_page = |post: String| {
            post == page || (!page.contains('?') && post.strip_suffix('/') == Some(page))
        };
        (crate::urlparts::comment_page(target)
            && crate::urlparts::without_page_number(target).is_some_and(of_page))
        .then_some(t)
    }
}
