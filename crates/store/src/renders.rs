//! Rendered pages: what a page's DOM says once Chromium ran its scripts (`renders`,
//! `rendered_links`), written with the page's record and read back beside the raw
//! fetch row, for the analysis and the app.

use serde::Serialize;
use sqlx::Row;

use crate::error::SqlContext;
use crate::{AuditId, LinkRegion, Store, StoreError, UrlId};

/// A link of the rendered DOM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RenderedLinkRecord {
    /// The target (None when the href did not resolve to an http(s) URL).
    pub to: Option<UrlId>,
    /// The href as written in the rendered DOM.
    pub href_raw: String,
    /// The anchor text (trimmed, capped).
    pub anchor_text: Option<String>,
    /// Where in the page it sits.
    pub region: Option<LinkRegion>,
    /// Not among the raw page's links: found only after JavaScript ran.
    pub js_only: bool,
}

/// One page rendered in Chromium, as written by the crawl.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RenderRecord {
    /// `rendered`, `unsettled`, `timeout` or `failed` (`render::Outcome`).
    pub outcome: String,
    /// Why it did not settle or failed.
    pub message: Option<String>,
    /// Wall time spent rendering.
    pub render_ms: u64,
    /// Requests the page made.
    pub requests: u32,
    /// Of them, refused by the audit's scope and address policy.
    pub refused: u32,
    /// `location.href` when the DOM was read.
    pub final_url: Option<String>,
    /// The rendered `<title>`.
    pub title: Option<String>,
    /// The rendered first `<h1>`.
    pub h1: Option<String>,
    /// The rendered meta robots, as `name: content; ...`.
    pub meta_robots: Option<String>,
    /// The rendered meta robots say noindex (for our agent or Google's / Bing's).
    pub noindex: bool,
    /// ... nofollow.
    pub nofollow: bool,
    /// The first canonical link element in the rendered `<head>`.
    pub canonical_href: Option<String>,
    /// Its target.
    pub canonical_target: Option<UrlId>,
    /// The rendered hreflang alternates, as a JSON array of `[lang, href]`.
    pub hreflang: Option<String>,
    /// Hash of the rendered visible text.
    pub text_hash: Option<u64>,
    /// Words of the rendered visible text.
    pub word_count: Option<u32>,
    /// The rendered text blocks (`extract::blocks`).
    pub blocks: Option<Vec<u8>>,
    /// The rendered DOM's links (a, area) in document order.
    pub links: Vec<RenderedLinkRecord>,
}

/// A stored rendered page with its URL.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RenderRow {
    /// The page.
    pub url_id: UrlId,
    /// Its URL.
    pub url: String,
    /// `rendered`, `unsettled`, `timeout` or `failed`.
    pub outcome: String,
    /// Why it did not settle or failed.
    pub message: Option<String>,
    /// Wall time spent rendering.
    pub render_ms: u64,
    /// Requests the page made.
    pub requests: u32,
    /// Of them, refused.
    pub refused: u32,
    /// `location.href` when the DOM was read.
    pub final_url: Option<String>,
    /// Rendered title.
    pub title: Option<String>,
    /// Rendered first h1.
    pub h1: Option<String>,
    /// Rendered meta robots.
    pub meta_robots: Option<String>,
    /// Rendered noindex.
    pub noindex: bool,
    /// Rendered nofollow.
    pub nofollow: bool,
    /// Rendered canonical href.
    pub canonical_href: Option<String>,
    /// Its target.
    pub canonical_target: Option<UrlId>,
    /// The target's URL.
    pub canonical_url: Option<String>,
    /// Rendered hreflang, JSON `[[lang, href], ...]`.
    pub hreflang: Option<String>,
    /// Rendered text hash.
    pub text_hash: Option<u64>,
    /// Rendered word count.
    pub word_count: Option<u32>,
    /// Rendered text blocks.
    #[serde(skip)]
    pub blocks: Option<Vec<u8>>,
    /// Links in the rendered DOM.
    pub links: u32,
    /// Of them, found only after JavaScript ran.
    pub js_only_links: u32,
}

/// A stored rendered link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RenderedLinkRow {
    /// The page it is on.
    pub from: UrlId,
    /// The link.
    #[serde(flatten)]
    pub link: RenderedLinkRecord,
}

fn fingerprint(value: Option<i64>) -> Option<u64> {
    value.map(|v| u64::from_ne_bytes(v.to_ne_bytes()))
}

impl Store {
    /// Every rendered page of `audit`, in URL id order (empty for an audit that did not
    /// render).
    pub async fn renders(&self, audit: AuditId) -> Result<Vec<RenderRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT r.url_id, u.url, r.outcome, r.message, r.render_ms, r.requests, r.refused,
                    r.final_url, r.title, r.h1, r.meta_robots, r.noindex, r.nofollow,
                    r.canonical_href, r.canonical_url_id, c.url, r.hreflang, r.text_hash,
                    r.word_count, r.blocks, r.links,
                    (SELECT count(*) FROM rendered_links l
                      WHERE l.audit_id = r.audit_id AND l.from_url_id = r.url_id AND l.js_only)
             FROM renders r
             JOIN urls u ON u.audit_id = r.audit_id AND u.id = r.url_id
             LEFT JOIN urls c ON c.audit_id = r.audit_id AND c.id = r.canonical_url_id
             WHERE r.audit_id = ? ORDER BY r.url_id",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading rendered pages")?;
        Ok(rows
            .iter()
            .map(|r| RenderRow {
                url_id: r.get(0),
                url: r.get(1),
                outcome: r.get(2),
                message: r.get(3),
                render_ms: u64::try_from(r.get::<i64, _>(4)).unwrap_or(0),
                requests: r.get(5),
                refused: r.get(6),
                final_url: r.get(7),
                title: r.get(8),
                h1: r.get(9),
                meta_robots: r.get(10),
                noindex: r.get(11),
                nofollow: r.get(12),
                canonical_href: r.get(13),
                canonical_target: r.get(14),
                canonical_url: r.get(15),
                hreflang: r.get(16),
                text_hash: fingerprint(r.get(17)),
                word_count: r.get(18),
                blocks: r.get(19),
                links: r.get(20),
                js_only_links: r.get(21),
            })
            .collect())
    }

    /// Every link of the rendered DOMs of `audit` (all of them, or only those found
    /// only after JavaScript ran), by page and position.
    pub async fn rendered_links(
        &self,
        audit: AuditId,
        js_only: bool,
    ) -> Result<Vec<RenderedLinkRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT from_url_id, to_url_id, href_raw, anchor_text, region, js_only
             FROM rendered_links WHERE audit_id = ? AND (js_only OR NOT ?)
             ORDER BY from_url_id, position",
        )
        .bind(audit.0)
        .bind(js_only)
        .fetch_all(self.pool())
        .await
        .ctx("reading rendered links")?;
        Ok(rows
            .iter()
            .map(|r| RenderedLinkRow {
                from: r.get(0),
                link: RenderedLinkRecord {
                    to: r.get(1),
                    href_raw: r.get(2),
                    anchor_text: r.get(3),
                    // The column's CHECK constraint admits only the words parse reads.
                    region: r
                        .get::<Option<String>, _>(4)
                        .as_deref()
                        .and_then(LinkRegion::parse),
                    js_only: r.get(5),
                },
            })
            .collect())
    }
}
