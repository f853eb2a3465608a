//! The analysis input built from what the store returns for one audit.
//!
//! [`StoreRows::read`] is the one place the analysis touches the store: it runs the
//! bulk reads (`Store::urls`, `all_fetches`, ...) for one audit; everything after it,
//! [`StoreRows::into_input`] included, is pure.

use crate::input::{
    AuditInput, CanonicalRow, FetchRow, HreflangRow, LinkRow, RedirectChainRow, RedirectRow,
    SitemapEntryRow, SitemapIssue, SitemapRow, UrlRow,
};
use serde::de::DeserializeOwned;

/// Everything the store holds about one audit, as its read functions return it.
#[derive(Debug, Default)]
pub struct StoreRows {
    /// `Store::urls`.
    pub urls: Vec<store::UrlRow>,
    /// `Store::all_fetches`.
    pub fetches: Vec<(store::UrlId, store::FetchRecord)>,
    /// `Store::all_redirects`.
    pub redirects: Vec<(store::UrlId, store::RedirectRecord)>,
    /// `Store::all_canonicals`.
    pub canonicals: Vec<(store::UrlId, u32, store::CanonicalRecord)>,
    /// `Store::all_link_edges`.
    pub links: Vec<store::LinkEdge>,
    /// `Store::all_hreflang`.
    pub hreflang: Vec<(store::UrlId, store::HreflangRecord)>,
    /// `Store::sitemaps`.
    pub sitemaps: Vec<store::SitemapRow>,
    /// `Store::all_sitemap_entries`.
    pub sitemap_entries: Vec<(store::SitemapId, store::SitemapEntryRecord)>,
    /// `Store::robots_blocked`.
    pub robots_blocks: Vec<store::UrlId>,
    /// `Store::redirect_chains`.
    pub redirect_chains: Vec<store::ChainRecord>,
}

impl StoreRows {
    /// Reads everything the analysis needs for one audit (the reads run concurrently).
    pub async fn read(store: &store::Store, id: store::AuditId) -> Result<Self, store::StoreError> {
        let (urls, fetches, redirects, canonicals, links) = tokio::try_join!(
            store.urls(id),
            store.all_fetches(id),
            store.all_redirects(id),
            store.all_canonicals(id),
            store.all_link_edges(id),
        )?;
        let (hreflang, sitemaps, sitemap_entries, robots_blocks, redirect_chains) = tokio::try_join!(
            store.all_hreflang(id),
            store.sitemaps(id),
            store.all_sitemap_entries(id),
            store.robots_blocked(id),
            store.redirect_chains(id),
        )?;
        Ok(StoreRows {
            urls,
            fetches,
            redirects,
            canonicals,
            links,
            hreflang,
            sitemaps,
            sitemap_entries,
            robots_blocks,
            redirect_chains,
        })
    }
}

/// Reads one audit from the store and builds the analysis input.
pub async fn load(
    store: &store::Store,
    id: store::AuditId,
) -> Result<AuditInput, store::StoreError> {
    Ok(StoreRows::read(store, id).await?.into_input())
}

/// A stored DUST validation sample as the analysis reads it.
pub fn validation_fetch(r: &store::ValidationRecord) -> crate::ValidationFetch {
    crate::ValidationFetch {
        rule_id: r.rule_id.clone(),
        candidate: crate::ValidationCandidate {
            url: r.url.clone(),
            rewritten: r.rewritten.clone(),
            text_hash: r.url_text_hash,
            simhash: r.url_simhash,
        },
        status: r.status,
        text_hash: r.text_hash,
        simhash: r.simhash,
    }
}

/// Audit `id`'s stored DUST validation samples, for [`crate::AnalysisConfig::validations`].
pub async fn stored_validations(
    store: &store::Store,
    id: store::AuditId,
) -> Result<Vec<crate::ValidationFetch>, store::StoreError> {
    Ok(store
        .validations(id)
        .await?
        .iter()
        .map(validation_fetch)
        .collect())
}

/// A store id as the analysis's `u32` (ids are numbered per audit from 1).
fn id(v: i64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// The store and the analysis spell their enums the same (`meta_refresh`, ...).
fn same<T: DeserializeOwned + Default>(text: &str) -> T {
    serde_json::from_value(serde_json::Value::String(text.to_owned())).unwrap_or_default()
}

impl StoreRows {
    /// Converts the rows into the analysis input.
    pub fn into_input(self) -> AuditInput {
        AuditInput {
            urls: self
                .urls
                .into_iter()
                .map(|u| UrlRow {
                    id: id(u.id),
                    url: u.url,
                    url_rfc3986: u.url_rfc3986,
                    url_seo: u.url_seo,
                    host: u.host,
                    depth: u.depth,
                    found_via: same(u.found_via.as_str()),
                    state: same(u.state.as_str()),
                    reason: u.reason,
                })
                .collect(),
            fetches: self
                .fetches
                .into_iter()
                .map(|(url_id, f)| FetchRow {
                    url_id: id(url_id),
                    status: f.status,
                    content_type: f.content_type,
                    redirect_to: f.redirect_to.map(id),
                    title: f.title,
                    noindex: f.noindex,
                    nofollow: f.nofollow,
                    text_hash: f.text_hash,
                    simhash: f.simhash,
                    word_count: f.word_count,
                    truncated: f.truncated,
                    error_kind: f.error_kind,
                })
                .collect(),
            redirects: self
                .redirects
                .into_iter()
                .map(|(from, r)| RedirectRow {
                    from: id(from),
                    to: r.to.map(id),
                    status: r.status,
                    kind: same(r.kind.as_str()),
                    hop_index: r.hop_index,
                })
                .collect(),
            canonicals: self
                .canonicals
                .into_iter()
                .map(|(page, position, c)| CanonicalRow {
                    page: id(page),
                    position,
                    target: c.target.map(id),
                    href_raw: c.href_raw,
                    source: same(c.source.as_str()),
                    in_head: c.in_head,
                })
                .collect(),
            links: self
                .links
                .into_iter()
                .map(|l| LinkRow {
                    from: id(l.from),
                    to: l.to.map(id),
                    nofollow: l.nofollow,
                    anchor_text: None,
                })
                .collect(),
            hreflang: self
                .hreflang
                .into_iter()
                .map(|(page, h)| HreflangRow {
                    page: id(page),
                    lang: h.lang,
                    target: h.target.map(id),
                    source: same(h.source.as_str()),
                })
                .collect(),
            sitemaps: self
                .sitemaps
                .into_iter()
                .map(|s| SitemapRow {
                    id: id(s.id),
                    url: s.url,
                    kind: s.kind,
                    status: s.status,
                    error: s.error,
                    issues: serde_json::from_str::<Vec<SitemapIssue>>(&s.issues_json)
                        .unwrap_or_default(),
                })
                .collect(),
            sitemap_entries: self
                .sitemap_entries
                .into_iter()
                .map(|(sitemap, e)| SitemapEntryRow {
                    sitemap_id: id(sitemap),
                    url_id: e.url_id.map(id),
                    loc_raw: e.loc_raw,
                })
                .collect(),
            robots_blocks: self.robots_blocks.into_iter().map(id).collect(),
            redirect_chains: self
                .redirect_chains
                .into_iter()
                .map(|c| RedirectChainRow {
                    start: id(c.start),
                    final_url: c.last.map(id),
                    hops: c.hops,
                    problem: same(c.problem.as_str()),
                })
                .collect(),
        }
    }
}
