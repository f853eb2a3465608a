//! Reading back what a crawl stored, row by row (for reports, the analysis and tests).

use serde::Serialize;
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

use crate::error::SqlContext;
use crate::{
    AuditId, CanonicalRecord, DeclarationSource, FetchRecord, FoundVia, HopKind, LinkRecord,
    RedirectRecord, SitemapEntryRecord, SitemapId, Store, StoreError, UrlId, UrlReason, UrlState,
};

/// A stored URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UrlRow {
    /// Its id within the audit.
    pub id: UrlId,
    /// The absolute URL as first found.
    pub url: String,
    /// Its `rfc3986` form.
    pub url_rfc3986: String,
    /// Its form under the audit's policy.
    pub url_seo: Option<String>,
    /// Its host.
    pub host: String,
    /// Link hops from a start URL.
    pub depth: u32,
    /// Redirect hops that led here.
    pub redirect_depth: u32,
    /// The URL that found it.
    pub found_from: Option<UrlId>,
    /// How it was found.
    pub found_via: FoundVia,
    /// Its frontier state.
    pub state: UrlState,
    /// Why it is skipped, blocked or failed.
    pub reason: Option<UrlReason>,
}

/// A stored sitemap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SitemapRow {
    /// Its id within the audit.
    pub id: SitemapId,
    /// Its URL.
    pub url: String,
    /// `urlset`, `sitemapindex`, `text`, `rss`, `atom` or `unknown`.
    pub kind: String,
    /// The index that listed it.
    pub parent_id: Option<SitemapId>,
    /// How it was found (`robots`, `default`, `user`, `index`).
    pub found_via: String,
    /// The HTTP status, if a response arrived.
    pub status: Option<u16>,
    /// It was gzip-compressed.
    pub gzip: bool,
    /// Entries stored.
    pub entries: u64,
    /// The parser's issues (a JSON array of `{kind, detail}`, in the format version
    /// [`SITEMAP_ISSUES_VERSION`](crate::SITEMAP_ISSUES_VERSION) or an older one).
    pub issues_json: String,
    /// A fetch or fatal parse error.
    pub error: Option<String>,
}

const URL_COLUMNS: &str = "id, url, url_rfc3986, url_seo, host, depth, redirect_depth, found_from, found_via, state, reason_kind, reason";

pub(crate) fn corrupt(audit: AuditId, field: &'static str, detail: &str) -> StoreError {
    StoreError::Corrupt {
        audit,
        field,
        detail: detail.to_owned(),
    }
}

fn url_row(audit: AuditId, row: &SqliteRow) -> Result<UrlRow, StoreError> {
    let via: String = row.get(8);
    let state: String = row.get(9);
    Ok(UrlRow {
        id: row.get(0),
        url: row.get(1),
        url_rfc3986: row.get(2),
        url_seo: row.get(3),
        host: row.get(4),
        depth: row.get(5),
        redirect_depth: row.get(6),
        found_from: row.get(7),
        found_via: FoundVia::parse(&via).ok_or_else(|| corrupt(audit, "urls.found_via", &via))?,
        state: UrlState::parse(&state).ok_or_else(|| corrupt(audit, "urls.state", &state))?,
        reason: crate::model::reason_from_columns(audit, row.get(10), row.get(11))?,
    })
}

pub(crate) fn status(value: Option<i64>) -> Option<u16> {
    value.and_then(|s| u16::try_from(s).ok())
}

fn unsigned(value: Option<i64>) -> Option<u64> {
    value.and_then(|v| u64::try_from(v).ok())
}

/// A requested URL and what its answer looked like: an audit's stored fetch
/// ([`Store::fetch_fingerprints`]) or a sample request made to check a rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FetchFingerprint {
    /// The URL requested (as given).
    pub url: String,
    /// When it was requested (ms since the epoch).
    pub fetched_at: i64,
    /// The HTTP status (`None`: not requested or no response).
    pub status: Option<u16>,
    /// The visible text's hash, for an HTML 2xx answer.
    pub text_hash: Option<u64>,
    /// Its SimHash.
    pub simhash: Option<u64>,
    /// Why there is no usable answer: the fetch error's kind (`timeout`, `connect`, ...)
    /// or, for a sample never requested, `invalid_url`, `out_of_scope`,
    /// `address_refused` or `robots_txt`.
    pub error_kind: Option<String>,
    /// Where the page's `<a>` and `<area>` links lead, resolved, for an HTML 2xx answer.
    pub links: Vec<String>,
    /// Where the answer sends the client, resolved: the `Location` of a 3xx answer, the
    /// target of an HTML page's meta refresh.
    pub location: Option<String>,
    /// The URL the page's first canonical link element in `<head>` names, resolved, for
    /// an HTML 2xx answer: the site's own word on which page it is.
    pub canonical: Option<String>,
}

/// A `fetches` row read with the column order of [`Store::fetch`].
pub(crate) fn fetch_record(r: &SqliteRow) -> FetchRecord {
    FetchRecord {
        fetched_at: r.get(0),
        status: status(r.get(1)),
        content_type: r.get(2),
        content_length: unsigned(r.get(3)),
        body_bytes: unsigned(r.get(4)).unwrap_or(0),
        truncated: r.get(5),
        ttfb_ms: unsigned(r.get(6)),
        total_ms: unsigned(r.get(7)).unwrap_or(0),
        attempts: r.get(8),
        redirect_to: r.get(9),
        title: r.get(10),
        meta_robots: r.get(11),
        x_robots_tag: r.get(12),
        noindex: r.get(13),
        nofollow: r.get(14),
        text_hash: fingerprint(r.get(15)),
        simhash: fingerprint(r.get(16)),
        word_count: r.get(17),
        charset: r.get(18),
        error_kind: r.get(19),
        error_message: r.get(20),
        h1: r.get(21),
        blocks: r.get(22),
        meta_description: r.get(23),
        headers: None,
    }
}

fn fingerprint(value: Option<i64>) -> Option<u64> {
    value.map(|v| u64::from_ne_bytes(v.to_ne_bytes()))
}

impl Store {
    /// Every URL of `audit`, in id order.
    pub async fn urls(&self, audit: AuditId) -> Result<Vec<UrlRow>, StoreError> {
        let sql = format!("SELECT {URL_COLUMNS} FROM urls WHERE audit_id = ? ORDER BY id");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(audit.0)
            .fetch_all(self.pool())
            .await
            .ctx("reading URLs")?;
        rows.iter().map(|row| url_row(audit, row)).collect()
    }

    /// Every fetched URL of `audit` with what its answer looked like: the URL, when it
    /// was fetched, its status, its visible text's hash and SimHash and where its links
    /// lead (for comparing pages without fetching them again).
    pub async fn fetch_fingerprints(
        &self,
        audit: AuditId,
    ) -> Result<Vec<FetchFingerprint>, StoreError> {
        let rows = sqlx::query(
            "SELECT u.url, f.fetched_at, f.status, f.text_hash, f.simhash, f.error_kind, u.id,
                    t.url,
                    (SELECT cu.url FROM canonicals c
                     JOIN urls cu ON cu.audit_id = c.audit_id AND cu.id = c.target_url_id
                     WHERE c.audit_id = f.audit_id AND c.page_url_id = u.id
                       AND c.source = 'link_element' AND c.in_head = 1
                     ORDER BY c.position LIMIT 1)
             FROM fetches f JOIN urls u ON u.audit_id = f.audit_id AND u.id = f.url_id
             LEFT JOIN urls t ON t.audit_id = f.audit_id AND t.id = f.redirect_to
             WHERE f.audit_id = ? ORDER BY u.id",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading fetch fingerprints")?;
        let mut out: Vec<FetchFingerprint> = Vec::with_capacity(rows.len());
        let mut index: std::collections::HashMap<i64, usize> =
            std::collections::HashMap::with_capacity(rows.len());
        for r in &rows {
            index.insert(r.get(6), out.len());
            out.push(FetchFingerprint {
                url: r.get(0),
                fetched_at: r.get(1),
                status: status(r.get(2)),
                text_hash: fingerprint(r.get(3)),
                simhash: fingerprint(r.get(4)),
                error_kind: r.get(5),
                links: Vec::new(),
                location: r.get(7),
                canonical: r.get(8),
            });
        }
        let links = sqlx::query(
            "SELECT l.from_url_id, u.url FROM links l
             JOIN urls u ON u.audit_id = l.audit_id AND u.id = l.to_url_id
             WHERE l.audit_id = ? AND l.tag IN ('a', 'area') ORDER BY l.from_url_id, l.position",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading links")?;
        for r in &links {
            if let Some(&i) = index.get(&r.get::<i64, _>(0)) {
                out[i].links.push(r.get(1));
            }
        }
        Ok(out)
    }

    /// One URL by its `rfc3986` form.
    pub async fn url_by_rfc3986(
        &self,
        audit: AuditId,
        key: &str,
    ) -> Result<Option<UrlRow>, StoreError> {
        let sql = format!("SELECT {URL_COLUMNS} FROM urls WHERE audit_id = ? AND url_rfc3986 = ?");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(audit.0)
            .bind(key.to_owned())
            .fetch_optional(self.pool())
            .await
            .ctx("reading a URL")?;
        row.map(|row| url_row(audit, &row)).transpose()
    }

    /// The fetch of one URL, if it was fetched.
    pub async fn fetch(
        &self,
        audit: AuditId,
        url_id: UrlId,
    ) -> Result<Option<FetchRecord>, StoreError> {
        let row = sqlx::query(
            "SELECT fetched_at, status, content_type, content_length, body_bytes, truncated, ttfb_ms,
                    total_ms, attempts, redirect_to, title, meta_robots, x_robots_tag, noindex,
                    nofollow, text_hash, simhash, word_count, charset, error_kind, error_message, h1, blocks,
                    meta_description
             FROM fetches WHERE audit_id = ? AND url_id = ?",
        )
        .bind(audit.0)
        .bind(url_id)
        .fetch_optional(self.pool())
        .await
        .ctx("reading a fetch")?;
        Ok(row.as_ref().map(fetch_record))
    }

    /// The links of one page, in document order.
    pub async fn links_from(
        &self,
        audit: AuditId,
        url_id: UrlId,
    ) -> Result<Vec<LinkRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT to_url_id, href_raw, anchor_text, nofollow, tag, error, region FROM links
             WHERE audit_id = ? AND from_url_id = ? ORDER BY position",
        )
        .bind(audit.0)
        .bind(url_id)
        .fetch_all(self.pool())
        .await
        .ctx("reading links")?;
        Ok(rows
            .iter()
            .map(|r| LinkRecord {
                to: r.get(0),
                href_raw: r.get(1),
                anchor_text: r.get(2),
                nofollow: r.get(3),
                tag: r.get(4),
                error: r.get(5),
                // The column's CHECK constraint admits only the words parse reads.
                region: r
                    .get::<Option<String>, _>(6)
                    .as_deref()
                    .and_then(crate::LinkRegion::parse),
            })
            .collect())
    }

    /// The canonical declarations of one page, in order.
    pub async fn canonicals_of(
        &self,
        audit: AuditId,
        url_id: UrlId,
    ) -> Result<Vec<CanonicalRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT target_url_id, href_raw, source, in_head, error FROM canonicals
             WHERE audit_id = ? AND page_url_id = ? ORDER BY position",
        )
        .bind(audit.0)
        .bind(url_id)
        .fetch_all(self.pool())
        .await
        .ctx("reading canonicals")?;
        rows.iter()
            .map(|r| {
                let source: String = r.get(2);
                Ok(CanonicalRecord {
                    target: r.get(0),
                    href_raw: r.get(1),
                    source: DeclarationSource::parse(&source)
                        .ok_or_else(|| corrupt(audit, "canonicals.source", &source))?,
                    in_head: r.get(3),
                    error: r.get(4),
                })
            })
            .collect()
    }

    /// The redirect hop out of one URL, if it redirected.
    pub async fn redirect_from(
        &self,
        audit: AuditId,
        url_id: UrlId,
    ) -> Result<Option<RedirectRecord>, StoreError> {
        let row = sqlx::query(
            "SELECT to_url_id, status, location_raw, hop_index, kind, error FROM redirects
             WHERE audit_id = ? AND from_url_id = ?",
        )
        .bind(audit.0)
        .bind(url_id)
        .fetch_optional(self.pool())
        .await
        .ctx("reading a redirect")?;
        row.map(|r| {
            let kind: String = r.get(4);
            Ok(RedirectRecord {
                to: r.get(0),
                status: status(r.get(1)).unwrap_or(0),
                location_raw: r.get(2),
                hop_index: r.get(3),
                kind: HopKind::parse(&kind)
                    .ok_or_else(|| corrupt(audit, "redirects.kind", &kind))?,
                error: r.get(5),
            })
        })
        .transpose()
    }

    /// The sitemaps of `audit`, in id order.
    pub async fn sitemaps(&self, audit: AuditId) -> Result<Vec<SitemapRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, url, kind, parent_id, found_via, status, gzip, entries, issues, error
             FROM sitemaps WHERE audit_id = ? ORDER BY id",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading sitemaps")?;
        rows.iter()
            .map(|r| {
                let issues: String = r.get(8);
                let (_, issues_json) =
                    crate::versioned::unwrap(crate::versioned::SITEMAP_ISSUES, audit, &issues)?;
                Ok(SitemapRow {
                    id: r.get(0),
                    url: r.get(1),
                    kind: r.get(2),
                    parent_id: r.get(3),
                    found_via: r.get(4),
                    status: status(r.get(5)),
                    gzip: r.get(6),
                    entries: unsigned(r.get(7)).unwrap_or(0),
                    issues_json,
                    error: r.get(9),
                })
            })
            .collect()
    }

    /// The entries of one sitemap, in document order.
    pub async fn sitemap_entries(
        &self,
        audit: AuditId,
        sitemap: SitemapId,
    ) -> Result<Vec<SitemapEntryRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT url_id, loc_raw, lastmod, changefreq, priority FROM sitemap_entries
             WHERE audit_id = ? AND sitemap_id = ? ORDER BY position",
        )
        .bind(audit.0)
        .bind(sitemap)
        .fetch_all(self.pool())
        .await
        .ctx("reading sitemap entries")?;
        Ok(rows
            .iter()
            .map(|r| SitemapEntryRecord {
                url_id: r.get(0),
                loc_raw: r.get(1),
                lastmod: r.get(2),
                changefreq: r.get(3),
                priority: r.get(4),
            })
            .collect())
    }

    /// Errors recorded for `audit` outside fetch results, oldest first:
    /// `(url id, phase, kind, message)`.
    pub async fn errors(
        &self,
        audit: AuditId,
    ) -> Result<Vec<(Option<UrlId>, String, String, String)>, StoreError> {
        let rows = sqlx::query(
            "SELECT url_id, phase, kind, message FROM errors WHERE audit_id = ? ORDER BY id",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading errors")?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect())
    }
}
