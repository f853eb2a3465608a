//! Whole-audit reads for the analysis: every row of a table for one audit in one
//! query, lean where the table is large (links carry no text here).

use sqlx::Row;

use crate::error::SqlContext;
use crate::read::{corrupt, fetch_record, status};
use crate::{
    AuditId, CanonicalRecord, DeclarationSource, FetchRecord, HopKind, HreflangRecord,
    RedirectRecord, SitemapEntryRecord, SitemapId, Store, StoreError, UrlId,
};

/// Links read per query by [`Store::all_link_edges`].
const LINK_PAGE: i64 = 100_000;

/// A link between two pages, without its text (the analysis needs only the graph).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkEdge {
    /// The page the link is in.
    pub from: UrlId,
    /// The URL it points at, when its href resolved to an http(s) URL.
    pub to: Option<UrlId>,
    /// It carries rel=nofollow.
    pub nofollow: bool,
}

impl Store {
    /// Every fetch of `audit`, by URL id.
    pub async fn all_fetches(
        &self,
        audit: AuditId,
    ) -> Result<Vec<(UrlId, FetchRecord)>, StoreError> {
        let rows = sqlx::query(
            "SELECT fetched_at, status, content_type, content_length, body_bytes, truncated, ttfb_ms,
                    total_ms, attempts, redirect_to, title, meta_robots, x_robots_tag, noindex,
                    nofollow, text_hash, simhash, word_count, charset, error_kind, error_message,
                    url_id
             FROM fetches WHERE audit_id = ? ORDER BY url_id",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading fetches")?;
        Ok(rows.iter().map(|r| (r.get(21), fetch_record(r))).collect())
    }

    /// Every redirect hop of `audit`, by source URL id.
    pub async fn all_redirects(
        &self,
        audit: AuditId,
    ) -> Result<Vec<(UrlId, RedirectRecord)>, StoreError> {
        let rows = sqlx::query(
            "SELECT from_url_id, to_url_id, status, location_raw, hop_index, kind, error
             FROM redirects WHERE audit_id = ? ORDER BY from_url_id",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading redirects")?;
        rows.iter()
            .map(|r| {
                let kind: String = r.get(5);
                Ok((
                    r.get(0),
                    RedirectRecord {
                        to: r.get(1),
                        status: status(r.get(2)).unwrap_or(0),
                        location_raw: r.get(3),
                        hop_index: r.get(4),
                        kind: HopKind::parse(&kind)
                            .ok_or_else(|| corrupt(audit, "redirects.kind", &kind))?,
                        error: r.get(6),
                    },
                ))
            })
            .collect()
    }

    /// Every canonical declaration of `audit`: `(page, position, declaration)`.
    pub async fn all_canonicals(
        &self,
        audit: AuditId,
    ) -> Result<Vec<(UrlId, u32, CanonicalRecord)>, StoreError> {
        let rows = sqlx::query(
            "SELECT page_url_id, position, target_url_id, href_raw, source, in_head, error
             FROM canonicals WHERE audit_id = ? ORDER BY page_url_id, position",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading canonicals")?;
        rows.iter()
            .map(|r| {
                let source: String = r.get(4);
                Ok((
                    r.get(0),
                    r.get(1),
                    CanonicalRecord {
                        target: r.get(2),
                        href_raw: r.get(3),
                        source: DeclarationSource::parse(&source)
                            .ok_or_else(|| corrupt(audit, "canonicals.source", &source))?,
                        in_head: r.get(5),
                        error: r.get(6),
                    },
                ))
            })
            .collect()
    }

    /// Every link of `audit`, as graph edges.
    ///
    /// Read in pages of 100,000 rows (keyset on the primary key), so that the
    /// decoded database rows of a large audit (millions of links, a few hundred bytes
    /// each) are never all in memory at once: only the edges are kept.
    pub async fn all_link_edges(&self, audit: AuditId) -> Result<Vec<LinkEdge>, StoreError> {
        let mut out = Vec::new();
        let mut after: (i64, i64) = (-1, -1);
        loop {
            let rows = sqlx::query(
                "SELECT from_url_id, to_url_id, nofollow, position FROM links
                 WHERE audit_id = ? AND (from_url_id, position) > (?, ?)
                 ORDER BY from_url_id, position LIMIT ?",
            )
            .bind(audit.0)
            .bind(after.0)
            .bind(after.1)
            .bind(LINK_PAGE)
            .fetch_all(self.pool())
            .await
            .ctx("reading links")?;
            let Some(last) = rows.last() else { break };
            after = (last.get(0), last.get(3));
            out.extend(rows.iter().map(|r| LinkEdge {
                from: r.get(0),
                to: r.get(1),
                nofollow: r.get(2),
            }));
            if rows.len() < LINK_PAGE as usize {
                break;
            }
        }
        out.shrink_to_fit();
        Ok(out)
    }

    /// Every hreflang alternate of `audit`, by page.
    pub async fn all_hreflang(
        &self,
        audit: AuditId,
    ) -> Result<Vec<(UrlId, HreflangRecord)>, StoreError> {
        let rows = sqlx::query(
            "SELECT page_url_id, lang, target_url_id, href_raw, source FROM hreflang
             WHERE audit_id = ? ORDER BY page_url_id, position",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading hreflang")?;
        rows.iter()
            .map(|r| {
                let source: String = r.get(4);
                Ok((
                    r.get(0),
                    HreflangRecord {
                        lang: r.get(1),
                        target: r.get(2),
                        href_raw: r.get(3),
                        source: DeclarationSource::parse(&source)
                            .ok_or_else(|| corrupt(audit, "hreflang.source", &source))?,
                    },
                ))
            })
            .collect()
    }

    /// Every sitemap entry of `audit`, by sitemap, in document order.
    pub async fn all_sitemap_entries(
        &self,
        audit: AuditId,
    ) -> Result<Vec<(SitemapId, SitemapEntryRecord)>, StoreError> {
        let rows = sqlx::query(
            "SELECT sitemap_id, url_id, loc_raw, lastmod, changefreq, priority FROM sitemap_entries
             WHERE audit_id = ? ORDER BY sitemap_id, position",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading sitemap entries")?;
        Ok(rows
            .iter()
            .map(|r| {
                (
                    r.get(0),
                    SitemapEntryRecord {
                        url_id: r.get(1),
                        loc_raw: r.get(2),
                        lastmod: r.get(3),
                        changefreq: r.get(4),
                        priority: r.get(5),
                    },
                )
            })
            .collect())
    }

    /// The URLs robots.txt kept the crawler from requesting.
    pub async fn robots_blocked(&self, audit: AuditId) -> Result<Vec<UrlId>, StoreError> {
        let rows =
            sqlx::query("SELECT url_id FROM robots_blocks WHERE audit_id = ? ORDER BY url_id")
                .bind(audit.0)
                .fetch_all(self.pool())
                .await
                .ctx("reading robots blocks")?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }
}
