//! Tests on small hand-built audits: a builder for `AuditInput`s and a `check` helper
//! that compares the findings (id and URLs) with an expected listing.

mod clusters;
mod dust;
mod findings;
mod fixes;
mod hreflang;
mod links;
mod main_content;
mod metadata;
mod migrate;
mod rendered_app;
mod rendered_content;
mod seeds;
mod wording;

use crate::*;
use std::collections::HashMap;
use xxhash_rust::xxh3::xxh3_64;

/// A SimHash for a "text": unrelated texts get unrelated hashes (about 32 bits apart).
pub(crate) fn sim(text: u64) -> u64 {
    xxh3_64(&text.to_le_bytes())
}

/// Builds an `AuditInput` by URL text.
#[derive(Default)]
pub(crate) struct B {
    pub input: AuditInput,
    ids: HashMap<String, UrlId>,
    sitemaps: HashMap<String, SitemapId>,
}

impl B {
    pub fn new() -> B {
        B::default()
    }

    /// The URL's id, registering it (state `done`) if new.
    pub fn id(&mut self, url: &str) -> UrlId {
        if let Some(&id) = self.ids.get(url) {
            return id;
        }
        let id = self.input.urls.len() as UrlId + 1;
        self.input.urls.push(UrlRow {
            id,
            url: url.to_owned(),
            url_rfc3986: canon::equivalence_key(url, &canon::Policy::rfc3986())
                .unwrap_or_else(|_| url.to_owned()),
            ..UrlRow::default()
        });
        self.ids.insert(url.to_owned(), id);
        id
    }

    fn row(&mut self, url: &str) -> &mut UrlRow {
        let id = self.id(url);
        &mut self.input.urls[id as usize - 1]
    }

    fn fetch(&mut self, url: &str) -> &mut FetchRow {
        let id = self.id(url);
        if let Some(at) = self.input.fetches.iter().position(|f| f.url_id == id) {
            return &mut self.input.fetches[at];
        }
        self.input.fetches.push(FetchRow {
            url_id: id,
            ..FetchRow::default()
        });
        self.input.fetches.last_mut().unwrap()
    }

    /// A 200 page with 200 words of text number `text`.
    pub fn page(&mut self, url: &str, text: u64) -> &mut Self {
        self.page_sim(url, text, sim(text))
    }

    /// A 200 page with text `text` and an explicit SimHash.
    pub fn page_sim(&mut self, url: &str, text: u64, simhash: u64) -> &mut Self {
        let f = self.fetch(url);
        f.status = Some(200);
        f.content_type = Some("text/html; charset=utf-8".into());
        f.text_hash = Some(text);
        f.simhash = Some(simhash);
        f.word_count = Some(200);
        self
    }

    /// A 200 page serving `html`, fingerprinted by the real extractor as the crawl does.
    /// `url` rendered to `html`: its rendered title, h1, words, text and blocks.
    pub fn rendered_html(&mut self, url: &str, html: &str) -> &mut Self {
        let page = extract::extract(html.as_bytes(), Some("text/html; charset=utf-8"));
        let url_id = self.id(url);
        self.input.renders.push(RenderedPage {
            url_id,
            title: page.title,
            h1: page.h1,
            word_count: Some(page.word_count as u32),
            text_hash: Some(page.text_hash),
            blocks: Some(extract::blocks::encode(&page.blocks).into()),
            ..RenderedPage::default()
        });
        self
    }

    pub fn page_html(&mut self, url: &str, html: &str) -> &mut Self {
        let page = extract::extract(html.as_bytes(), Some("text/html; charset=utf-8"));
        let f = self.fetch(url);
        f.status = Some(200);
        f.content_type = Some("text/html; charset=utf-8".into());
        f.text_hash = Some(page.text_hash);
        f.simhash = Some(page.simhash);
        f.word_count = Some(page.word_count as u32);
        f.title = page.title;
        f.h1 = page.h1;
        f.blocks = Some(extract::blocks::encode(&page.blocks).into());
        self
    }

    /// The page's title, first `<h1>` and meta description (an empty text: none).
    pub fn texts(&mut self, url: &str, title: &str, h1: &str, description: &str) -> &mut Self {
        let some = |t: &str| (!t.is_empty()).then(|| t.to_owned());
        let f = self.fetch(url);
        f.title = some(title);
        f.h1 = some(h1);
        f.meta_description = some(description);
        self
    }

    /// A fetched URL answering `status` with no text.
    pub fn status(&mut self, url: &str, status: u16) -> &mut Self {
        let f = self.fetch(url);
        f.status = Some(status);
        f.word_count = Some(0);
        self
    }

    /// `from` answers `status` redirecting to `to`.
    pub fn redirect(&mut self, from: &str, to: &str, status: u16) -> &mut Self {
        self.status(from, status);
        let (f, t) = (self.id(from), self.id(to));
        self.fetch(from).redirect_to = Some(t);
        self.input.redirects.push(RedirectRow {
            from: f,
            to: Some(t),
            status,
            kind: HopKind::Http,
            hop_index: 0,
        });
        self
    }

    /// `from` answers `status` with a Location that does not resolve.
    pub fn unresolved(&mut self, from: &str, status: u16) -> &mut Self {
        self.status(from, status);
        let f = self.id(from);
        self.input.redirects.push(RedirectRow {
            from: f,
            to: None,
            status,
            kind: HopKind::Http,
            hop_index: 0,
        });
        self
    }

    /// The crawler recorded `start`'s redirect chain as a loop or as too long, after
    /// `hops` hops.
    pub fn chain_problem(&mut self, start: &str, problem: ChainProblem, hops: u32) -> &mut Self {
        let s = self.id(start);
        self.input.redirect_chains.push(RedirectChainRow {
            start: s,
            final_url: None,
            hops,
            problem,
        });
        self
    }

    /// A fetch of `url` that got no response (`error_kind`: timeout, connect, ...).
    pub fn no_response(&mut self, url: &str, error_kind: &str) -> &mut Self {
        let f = self.fetch(url);
        f.status = None;
        f.error_kind = Some(error_kind.to_owned());
        self
    }

    /// The robots.txt of `origin` answered `status` with `bytes` bytes.
    pub fn robots(&mut self, origin: &str, status: Option<u16>, bytes: u64) -> &mut Self {
        self.input.robots.push(RobotsRow {
            origin: origin.to_owned(),
            status,
            bytes,
        });
        self
    }

    /// `from` is a 200 page whose meta refresh goes to `to`.
    pub fn meta_refresh(&mut self, from: &str, to: &str) -> &mut Self {
        self.status(from, 200);
        let (f, t) = (self.id(from), self.id(to));
        self.input.redirects.push(RedirectRow {
            from: f,
            to: Some(t),
            status: 200,
            kind: HopKind::MetaRefresh,
            hop_index: 0,
        });
        self
    }

    /// `<link rel=canonical href=href>` in the head of `page`.
    pub fn canonical(&mut self, page: &str, href: &str) -> &mut Self {
        self.declare(page, href, href, DeclarationSource::LinkElement, true)
    }

    /// A canonical declaration with every detail.
    pub fn declare(
        &mut self,
        page: &str,
        target: &str,
        href_raw: &str,
        source: DeclarationSource,
        in_head: bool,
    ) -> &mut Self {
        let p = self.id(page);
        let t = (!target.is_empty()).then(|| self.id(target));
        let position = self.input.canonicals.iter().filter(|c| c.page == p).count() as u32;
        self.input.canonicals.push(CanonicalRow {
            page: p,
            position,
            target: t,
            href_raw: href_raw.to_owned(),
            source,
            in_head,
        });
        self
    }

    /// A link from `from` to `to`.
    pub fn link(&mut self, from: &str, to: &str) -> &mut Self {
        let (f, t) = (self.id(from), self.id(to));
        self.input.links.push(LinkRow {
            from: f,
            to: Some(t),
            ..LinkRow::default()
        });
        self
    }

    /// `Link: <href>; rel="canonical"` in the HTTP response of `page`.
    pub fn header_canonical(&mut self, page: &str, href: &str) -> &mut Self {
        self.declare(page, href, href, DeclarationSource::HttpHeader, true)
    }

    /// A link from `from` to `to` in one region of the page (navigation, footer, ...),
    /// with anchor text.
    pub fn link_in(&mut self, from: &str, to: &str, region: LinkRegion, text: &str) -> &mut Self {
        let (f, t) = (self.id(from), self.id(to));
        self.input.links.push(LinkRow {
            from: f,
            to: Some(t),
            region: Some(region),
            ..LinkRow::default()
        });
        self.input.anchors.push(AnchorRow {
            from: f,
            to: t,
            text: text.to_owned(),
        });
        self
    }

    /// An hreflang alternate `lang` → `href` declared on `page`.
    pub fn hreflang(&mut self, page: &str, lang: &str, href: &str) -> &mut Self {
        let (p, t) = (self.id(page), self.id(href));
        self.input.hreflang.push(HreflangRow {
            page: p,
            lang: lang.to_owned(),
            target: Some(t),
            ..HreflangRow::default()
        });
        self
    }

    /// A link from `from` to `to` with anchor text.
    pub fn anchor(&mut self, from: &str, to: &str, text: &str) -> &mut Self {
        let (f, t) = (self.id(from), self.id(to));
        self.input.links.push(LinkRow {
            from: f,
            to: Some(t),
            ..LinkRow::default()
        });
        self.input.anchors.push(AnchorRow {
            from: f,
            to: t,
            text: text.to_owned(),
        });
        self
    }

    /// The sitemap's id, registering it (a `urlset` answering 200, declared in
    /// robots.txt) if new.
    fn sitemap_id(&mut self, sitemap: &str) -> SitemapId {
        if let Some(&s) = self.sitemaps.get(sitemap) {
            return s;
        }
        let s = self.input.sitemaps.len() as SitemapId + 1;
        self.input.sitemaps.push(SitemapRow {
            id: s,
            url: sitemap.to_owned(),
            kind: "urlset".into(),
            status: Some(200),
            ..SitemapRow::default()
        });
        self.sitemaps.insert(sitemap.to_owned(), s);
        s
    }

    /// The row of the sitemap at `sitemap` (registered as by [`B::listed`] if new), to
    /// set its status, error, issues or how it was found.
    pub fn sitemap(&mut self, sitemap: &str) -> &mut SitemapRow {
        let s = self.sitemap_id(sitemap);
        &mut self.input.sitemaps[s as usize - 1]
    }

    /// The sitemap at `sitemap` recorded the issue `kind` (the sitemap crate's code).
    pub fn sitemap_issue(&mut self, sitemap: &str, kind: &str, detail: &str) -> &mut Self {
        self.sitemap(sitemap).issues.push(SitemapIssue {
            kind: kind.to_owned(),
            detail: detail.to_owned(),
        });
        self
    }

    /// Lists `url` in the sitemap at `sitemap`.
    pub fn listed(&mut self, sitemap: &str, url: &str) -> &mut Self {
        let sm = self.sitemap_id(sitemap);
        let id = self.id(url);
        self.input.sitemap_entries.push(SitemapEntryRow {
            sitemap_id: sm,
            url_id: Some(id),
            loc_raw: url.to_owned(),
        });
        self
    }

    /// robots.txt blocks `url`.
    pub fn blocked(&mut self, url: &str) -> &mut Self {
        let id = self.id(url);
        let row = self.row(url);
        row.state = UrlState::Blocked;
        row.reason = Some(crate::input::ReasonKind::RobotsTxt.into());
        self.input.robots_blocks.push(id);
        self
    }

    /// `url` carries noindex.
    pub fn noindex(&mut self, url: &str) -> &mut Self {
        self.fetch(url).noindex = true;
        self
    }

    /// `url` was skipped for `reason`.
    pub fn skipped(&mut self, url: &str, reason: &str) -> &mut Self {
        let row = self.row(url);
        row.state = UrlState::Skipped;
        // Text that names no kind is kept as the detail of `other`, as the store
        // converts what earlier versions recorded.
        row.reason = Some(reason.parse().unwrap_or_else(|_| crate::input::UrlReason {
            kind: crate::input::ReasonKind::Other,
            detail: Some(reason.to_owned()),
        }));
        self
    }

    /// `url` is a start URL.
    pub fn start(&mut self, url: &str) -> &mut Self {
        self.row(url).found_via = FoundVia::Start;
        self
    }

    /// The crawler probed `variant`, a variant of `page` under `rule`, after the crawl.
    pub fn probe(&mut self, variant: &str, page: &str, rule: ProbeRule) -> &mut Self {
        let (url, base) = (self.id(variant), self.id(page));
        let row = self.row(variant);
        row.found_via = FoundVia::Variant;
        row.depth = 1;
        self.input.probes.push(ProbeRow { url, base, rule });
        self
    }

    pub fn analyse(&self) -> Analysis {
        analyse(&self.input, &AnalysisConfig::default())
    }

    pub fn analyse_with(&self, policy: canon::Policy) -> Analysis {
        analyse(&self.input, &AnalysisConfig::with_policy(policy))
    }

    pub fn analyse_config(&self, config: &AnalysisConfig) -> Analysis {
        analyse(&self.input, config)
    }
}

/// The findings as sorted lines `ID url url ...`.
pub(crate) fn render(a: &Analysis) -> String {
    let mut lines: Vec<String> = a
        .findings
        .iter()
        .map(|f| format!("{} {}", f.id.code(), f.urls.join(" ")))
        .collect();
    lines.sort();
    lines.join("\n")
}

/// Asserts the exact findings (ids and URLs), given as lines in any order.
#[track_caller]
pub(crate) fn check(a: &Analysis, expect: &str) {
    let mut want: Vec<&str> = expect
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    want.sort_unstable();
    let got = render(a);
    assert_eq!(got, want.join("\n"), "\nall findings:\n{:#?}", a.findings);
}

/// The one finding with this id.
#[track_caller]
pub(crate) fn only(a: &Analysis, id: FindingId) -> &Finding {
    let all: Vec<&Finding> = a.findings_with(id).collect();
    assert_eq!(all.len(), 1, "{all:#?}");
    all[0]
}
