//! Whole-audit reads for the analysis: every row of a table for one audit, lean (only
//! the columns the analysis uses) and fast.
//!
//! A row read through sqlx costs a copy of every value and a hand-over between the
//! connection's thread and the reader, a few microseconds a row: seconds for a
//! million-URL audit. These reads let SQLite pack up to [`CHUNK`] rows into one JSON
//! array (`json_group_array(json_array(...))`, keyset-paged on the table's primary
//! key) and decode each array with serde, so a row costs well under a microsecond and
//! memory holds one chunk's text at a time. Each record type below lists its fields in
//! the order of its query's `json_array`, which is how serde reads an array into a
//! struct.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use sqlx::Row;

use crate::error::SqlContext;
use crate::{
    AuditId, DeclarationSource, FoundVia, HopKind, LinkKind, ReasonKind, SitemapId, Store,
    StoreError, UrlId, UrlState,
};

/// Rows packed into one JSON array (a handful in unit tests, to cross chunk edges).
const CHUNK: i64 = if cfg!(test) { 3 } else { 25_000 };
/// Rows per chunk of the fetches table, whose rows carry text blocks (about 10 KB a row
/// once hex-encoded, and a chunk's text is held three times at once: SQLite's, its copy,
/// and sqlx's): 250 rows keep that under 10 MB at a cost of one more query per 250 pages.
const FETCH_CHUNK: i64 = if cfg!(test) { 3 } else { 250 };

/// A URL as the analysis reads it (`urls`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct UrlFacts {
    /// Its id within the audit.
    pub id: UrlId,
    /// The absolute URL as first found.
    pub url: String,
    /// Its `rfc3986` form.
    pub url_rfc3986: String,
    /// Link hops from a start URL.
    pub depth: u32,
    /// How it was found.
    pub found_via: FoundVia,
    /// Its frontier state.
    pub state: UrlState,
    /// Why it is skipped, blocked or failed.
    pub reason: Option<ReasonKind>,
    /// The reason's detail (a trap's pattern, ...).
    pub reason_detail: Option<String>,
    /// The page (or redirect source) that first found it (`urls.found_from`).
    pub found_from: Option<UrlId>,
}

/// A fetch as the analysis reads it (`fetches`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct FetchFacts {
    /// The fetched URL.
    pub url_id: UrlId,
    /// The HTTP status; `None` when no response arrived.
    pub status: Option<u16>,
    /// The Content-Type header.
    pub content_type: Option<String>,
    /// The hop target (3xx Location or meta refresh).
    pub redirect_to: Option<UrlId>,
    /// The page title.
    pub title: Option<String>,
    /// meta robots or X-Robots-Tag say noindex.
    #[serde(deserialize_with = "flag")]
    pub noindex: bool,
    /// meta robots or X-Robots-Tag say nofollow.
    #[serde(deserialize_with = "flag")]
    pub nofollow: bool,
    /// xxh3-64 of the visible text, stored as a signed integer.
    pub text_hash: Option<i64>,
    /// SimHash of the visible text, stored as a signed integer.
    pub simhash: Option<i64>,
    /// Words of visible text.
    pub word_count: Option<u32>,
    /// The body hit the byte cap.
    #[serde(deserialize_with = "flag")]
    pub truncated: bool,
    /// Why no usable response arrived.
    pub error_kind: Option<String>,
    /// The first `<h1>`.
    pub h1: Option<String>,
    /// The text blocks outside site chrome (`extract::blocks`' format).
    #[serde(deserialize_with = "hex_blob")]
    pub blocks: Option<Vec<u8>>,
    /// The meta description.
    pub meta_description: Option<String>,
    /// The meta robots directives, as stored (`name: content`, `; `-separated).
    pub meta_robots: Option<String>,
    /// The X-Robots-Tag header(s), as sent.
    pub x_robots_tag: Option<String>,
    /// Time to the end of the body (or the error), in ms.
    pub total_ms: Option<u64>,
    /// Body bytes read (after decompression).
    pub body_bytes: u64,
}

/// One redirect hop (`redirects`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct RedirectHop {
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

/// One rel=canonical declaration (`canonicals`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CanonicalDecl {
    /// The declaring page.
    pub page: UrlId,
    /// Order of declaration (headers first).
    pub position: u32,
    /// The target; `None` when href did not resolve.
    pub target: Option<UrlId>,
    /// The href as written.
    pub href_raw: String,
    /// Link element or HTTP header.
    pub source: DeclarationSource,
    /// The element sits in `<head>` (always true for a header).
    #[serde(deserialize_with = "flag")]
    pub in_head: bool,
}

/// A link between two pages, without its text (the analysis needs only the graph).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct LinkEdge {
    /// The page the link is in.
    pub from: UrlId,
    /// The URL it points at, when its href resolved to an http(s) URL.
    pub to: Option<UrlId>,
    /// It carries rel=nofollow.
    #[serde(deserialize_with = "flag")]
    pub nofollow: bool,
    /// Where in the page it sits (`links.region`), when recorded.
    pub region: Option<crate::LinkRegion>,
    /// The element or declaration it comes from (`links.tag`).
    pub tag: LinkKind,
}

/// One hreflang alternate (`hreflang`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HreflangDecl {
    /// The declaring page.
    pub page: UrlId,
    /// The language-region code.
    pub lang: String,
    /// The alternate; `None` when href did not resolve.
    pub target: Option<UrlId>,
    /// Link element or HTTP header.
    pub source: DeclarationSource,
}

/// One URL listed in a sitemap (`sitemap_entries`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SitemapListing {
    /// The listing sitemap.
    pub sitemap_id: SitemapId,
    /// The listed URL; `None` when loc did not resolve.
    pub url_id: Option<UrlId>,
    /// The `<loc>` as written, when it did not resolve (empty otherwise: the URL names
    /// it).
    pub loc_raw: String,
}

/// A rendered page as the analysis reads it (`renders`, without its text blocks).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RenderFacts {
    /// The page.
    pub url_id: UrlId,
    /// `rendered`, `unsettled`, `timeout` or `failed`.
    pub outcome: String,
    /// Rendered title.
    pub title: Option<String>,
    /// Rendered first h1.
    pub h1: Option<String>,
    /// Rendered noindex.
    #[serde(deserialize_with = "flag")]
    pub noindex: bool,
    /// The rendered head names a canonical.
    #[serde(deserialize_with = "flag")]
    pub names_canonical: bool,
    /// Its target, when it resolved.
    pub canonical_url_id: Option<UrlId>,
    /// Rendered word count.
    pub word_count: Option<u32>,
    /// Rendered text hash, stored as a signed integer.
    pub text_hash: Option<i64>,
}

/// The anchor text of one link, for the links [`Store::quoted_anchors`] reads.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct LinkAnchor {
    /// The page the link is in.
    pub from: UrlId,
    /// The URL it points at.
    pub to: UrlId,
    /// Its anchor text (empty when it has none, as an image link).
    pub text: String,
}

/// A stored 0 / 1 as a bool.
fn flag<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(i64::deserialize(d)? != 0)
}

/// A BLOB read through SQLite's `hex()` (JSON cannot hold bytes); `NULL` and the empty
/// string are `None`.
fn hex_blob<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
    let Some(hex) = Option::<String>::deserialize(d)? else {
        return Ok(None);
    };
    if hex.is_empty() {
        return Ok(None);
    }
    let bytes = hex.as_bytes();
    if bytes.len() % 2 != 0 {
        return Err(serde::de::Error::custom("a BLOB's hex text has odd length"));
    }
    let mut out = Vec::with_capacity(bytes.len() / 2);
    for p in bytes.chunks_exact(2) {
        let (hi, lo) = (HEX[usize::from(p[0])], HEX[usize::from(p[1])]);
        if (hi | lo) & 0xF0 != 0 {
            return Err(serde::de::Error::custom(
                "a BLOB's hex text holds a non-hex digit",
            ));
        }
        out.push(hi << 4 | lo);
    }
    Ok(Some(out))
}

/// The value of each hex digit; 0xFF for every other byte.
static HEX: [u8; 256] = {
    let mut t = [0xFFu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// One table read in chunks: the JSON elements and the primary key after
/// `audit_id` (one or two columns, the last one within a parent row).
struct Chunked {
    /// What the store is doing, for errors.
    what: &'static str,
    /// The table.
    table: &'static str,
    /// The `json_array` arguments, in the record's field order.
    elements: &'static str,
    /// The key's leading column.
    key: &'static str,
    /// The key's second column, if the key has two.
    within: Option<&'static str>,
    /// Rows per chunk: [`CHUNK`], or fewer for a table with large rows.
    rows: i64,
}

impl Chunked {
    /// The statement reading one chunk after the key `(?, ?)` (`?` for a one-column
    /// key): its JSON array, its row count, and its last key (a two-column key packed
    /// as `key << 32 | within`: ids and positions fit 32 bits).
    fn sql(&self) -> String {
        let Chunked {
            table,
            elements,
            key,
            ..
        } = self;
        let (after, order, last) = match self.within {
            Some(w) => (
                format!("({key}, {w}) > (?, ?)"),
                format!("{key}, {w}"),
                format!("max(({key} << 32) | {w})"),
            ),
            None => (format!("{key} > ?"), key.to_string(), format!("max({key})")),
        };
        format!(
            "SELECT json_group_array(json_array({elements})), count(*), {last}
             FROM (SELECT * FROM {table} WHERE audit_id = ? AND {after} ORDER BY {order} LIMIT ?)"
        )
    }
}

impl Store {
    /// Reads every row of `spec.table` for `audit` and hands each, decoded, to `each`.
    async fn chunked<T: DeserializeOwned>(
        &self,
        audit: AuditId,
        spec: Chunked,
        mut each: impl FnMut(T),
    ) -> Result<(), StoreError> {
        let sql = spec.sql();
        let mut after: (i64, i64) = (-1, -1);
        loop {
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.clone()))
                .bind(audit.0)
                .bind(after.0);
            if spec.within.is_some() {
                query = query.bind(after.1);
            }
            let row = query
                .bind(spec.rows)
                .fetch_one(self.pool())
                .await
                .ctx(spec.what)?;
            let corrupt = |detail: String| StoreError::Corrupt {
                audit,
                field: spec.table,
                detail,
            };
            let count: i64 = row.try_get(1).map_err(|e| corrupt(e.to_string()))?;
            if count == 0 {
                return Ok(());
            }
            let last: i64 = row.try_get(2).map_err(|e| corrupt(e.to_string()))?;
            after = match spec.within {
                Some(_) => (last >> 32, last & 0xFFFF_FFFF),
                None => (last, 0),
            };
            // Text that is not UTF-8 (written by another program) is an error, not a panic.
            let text: &str = row.try_get(0).map_err(|e| corrupt(e.to_string()))?;
            let records: Vec<T> = serde_json::from_str(text).map_err(|e| corrupt(e.to_string()))?;
            records.into_iter().for_each(&mut each);
            if count < spec.rows {
                return Ok(());
            }
        }
    }

    /// Every URL of `audit`, in id order.
    pub async fn scan_urls(
        &self,
        audit: AuditId,
        each: impl FnMut(UrlFacts),
    ) -> Result<(), StoreError> {
        let spec = Chunked {
            what: "reading URLs",
            table: "urls",
            elements: "id, url, url_rfc3986, depth, found_via, state, reason_kind, reason, found_from",
            key: "id",
            within: None,
            rows: CHUNK,
        };
        self.chunked(audit, spec, each).await
    }

    /// Every fetch of `audit`, in URL id order.
    pub async fn scan_fetches(
        &self,
        audit: AuditId,
        each: impl FnMut(FetchFacts),
    ) -> Result<(), StoreError> {
        let spec = Chunked {
            what: "reading fetches",
            table: "fetches",
            elements: "url_id, status, content_type, redirect_to, title, noindex, nofollow, \
                       text_hash, simhash, word_count, truncated, error_kind, h1, hex(blocks), \
                       meta_description, meta_robots, x_robots_tag, total_ms, body_bytes",
            key: "url_id",
            within: None,
            // Text blocks make fetch rows large (a few KB, hex-encoded twice that):
            // smaller chunks keep one chunk's JSON text small.
            rows: FETCH_CHUNK,
        };
        self.chunked(audit, spec, each).await
    }

    /// Every redirect hop of `audit`, by source URL id.
    pub async fn scan_redirects(
        &self,
        audit: AuditId,
        each: impl FnMut(RedirectHop),
    ) -> Result<(), StoreError> {
        let spec = Chunked {
            what: "reading redirects",
            table: "redirects",
            elements: "from_url_id, to_url_id, status, kind, hop_index",
            key: "from_url_id",
            within: None,
            rows: CHUNK,
        };
        self.chunked(audit, spec, each).await
    }

    /// Every canonical declaration of `audit`, by page and position.
    pub async fn scan_canonicals(
        &self,
        audit: AuditId,
        each: impl FnMut(CanonicalDecl),
    ) -> Result<(), StoreError> {
        let spec = Chunked {
            what: "reading canonicals",
            table: "canonicals",
            elements: "page_url_id, position, target_url_id, href_raw, source, in_head",
            key: "page_url_id",
            within: Some("position"),
            rows: CHUNK,
        };
        self.chunked(audit, spec, each).await
    }

    /// Every link of `audit`, as graph edges, by page and position.
    pub async fn scan_links(
        &self,
        audit: AuditId,
        each: impl FnMut(LinkEdge),
    ) -> Result<(), StoreError> {
        let spec = Chunked {
            what: "reading links",
            table: "links",
            elements: "from_url_id, to_url_id, nofollow, region, tag",
            key: "from_url_id",
            within: Some("position"),
            rows: CHUNK,
        };
        self.chunked(audit, spec, each).await
    }

    /// Every hreflang alternate of `audit`, by page and position.
    pub async fn scan_hreflang(
        &self,
        audit: AuditId,
        each: impl FnMut(HreflangDecl),
    ) -> Result<(), StoreError> {
        let spec = Chunked {
            what: "reading hreflang",
            table: "hreflang",
            elements: "page_url_id, lang, target_url_id, source",
            key: "page_url_id",
            within: Some("position"),
            rows: CHUNK,
        };
        self.chunked(audit, spec, each).await
    }

    /// Every sitemap entry of `audit`, by sitemap, in document order.
    pub async fn scan_sitemap_entries(
        &self,
        audit: AuditId,
        each: impl FnMut(SitemapListing),
    ) -> Result<(), StoreError> {
        let spec = Chunked {
            what: "reading sitemap entries",
            table: "sitemap_entries",
            elements: "sitemap_id, url_id, iif(url_id IS NULL, loc_raw, '')",
            key: "sitemap_id",
            within: Some("position"),
            rows: CHUNK,
        };
        self.chunked(audit, spec, each).await
    }

    /// Every rendered page of `audit`, in URL id order, without its text blocks.
    pub async fn scan_renders(
        &self,
        audit: AuditId,
        each: impl FnMut(RenderFacts),
    ) -> Result<(), StoreError> {
        let spec = Chunked {
            what: "reading rendered pages",
            table: "renders",
            elements: "url_id, outcome, title, h1, noindex, canonical_href IS NOT NULL, \
                       canonical_url_id, word_count, text_hash",
            key: "url_id",
            within: None,
            rows: CHUNK,
        };
        self.chunked(audit, spec, each).await
    }

    /// The anchor text of every link of `audit` whose target a link fix names: it
    /// redirects (3xx), answers 4xx/5xx or nothing, or declares another URL canonical;
    /// and of every link to a URL outside the audit's scope (the External table's).
    /// Findings and the links table quote these; the text of links to plain pages is
    /// never read.
    pub async fn quoted_anchors(&self, audit: AuditId) -> Result<Vec<LinkAnchor>, StoreError> {
        let rows = sqlx::query(
            "SELECT from_url_id, to_url_id, coalesce(anchor_text, '') FROM links
             WHERE audit_id = ? AND to_url_id IN (
                   SELECT url_id FROM fetches
                   WHERE audit_id = ? AND (status IS NULL OR status >= 300)
                   UNION
                   SELECT id FROM urls u WHERE audit_id = ? AND state = 'failed'
                     AND NOT EXISTS (SELECT 1 FROM fetches f
                                     WHERE f.audit_id = u.audit_id AND f.url_id = u.id)
                   UNION
                   SELECT page_url_id FROM canonicals
                   WHERE audit_id = ? AND target_url_id IS NOT NULL
                     AND target_url_id != page_url_id
                   UNION
                   SELECT id FROM urls WHERE audit_id = ? AND state = 'skipped'
                     AND reason_kind = 'out_of_scope')
             ORDER BY from_url_id, position",
        )
        .bind(audit.0)
        .bind(audit.0)
        .bind(audit.0)
        .bind(audit.0)
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading anchors of broken links")?;
        Ok(rows
            .iter()
            .map(|r| LinkAnchor {
                from: r.get(0),
                to: r.get(1),
                text: r.get(2),
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::{
        CanonicalRecord, FetchRecord, LinkRecord, NewUrl, PageRecord, SitemapEntryRecord,
        SitemapRecord, SitemapSource, WriterOptions,
    };

    fn new_url(id: i64) -> NewUrl {
        let url = format!("https://example.test/p{id}");
        NewUrl {
            id,
            url: url.clone(),
            url_rfc3986: url,
            url_seo: None,
            host: "example.test".into(),
            depth: 1,
            redirect_depth: 0,
            found_from: None,
            found_via: FoundVia::Link,
            state: UrlState::Queued,
            reason: None,
        }
    }

    fn link(to: Option<i64>, anchor: Option<&str>, nofollow: bool) -> LinkRecord {
        LinkRecord {
            to,
            href_raw: "x".into(),
            anchor_text: anchor.map(str::to_owned),
            nofollow,
            tag: "a".into(),
            error: None,
            region: Some(crate::LinkRegion::Main),
        }
    }

    /// Eight pages; page 1 has seven links (more than two chunks under one key), page
    /// `i` answers 200 but page 8 answers 404; page 5 declares two canonicals.
    async fn audit(store: &Store) -> AuditId {
        let audit = store
            .create_audit(&["https://example.test/".into()], "{}")
            .await
            .unwrap();
        store.prepare_run(audit).await.unwrap();
        let writer = store.writer(audit, WriterOptions::default()).await.unwrap();
        writer.urls((1..=8).map(new_url).collect()).await.unwrap();
        for i in 1..=8 {
            let mut page = PageRecord::new(i, UrlState::Done);
            page.fetch = Some(FetchRecord {
                status: Some(if i == 8 { 404 } else { 200 }),
                content_type: Some("text/html".into()),
                title: Some(format!("Page \"{i}\", with\ttabs, commas and ünïcode")),
                text_hash: Some(u64::MAX - i as u64),
                simhash: Some(i as u64),
                noindex: i == 3,
                attempts: 1,
                meta_description: Some(format!("About page {i}")),
                meta_robots: (i == 3).then(|| "robots: noindex".to_owned()),
                x_robots_tag: (i == 3).then(|| "noarchive".to_owned()),
                total_ms: 10 + i as u64,
                body_bytes: 1000 * i as u64,
                ..FetchRecord::default()
            });
            page.links = match i {
                1 => (2..=8)
                    .map(|t| link(Some(t), Some(&format!("to {t}")), t == 2))
                    .collect(),
                2 => vec![
                    link(None, None, false),
                    LinkRecord {
                        tag: "og_url".into(),
                        region: None,
                        ..link(Some(8), None, false)
                    },
                ],
                _ => vec![],
            };
            if i == 5 {
                page.canonicals = [1, 2]
                    .map(|t| CanonicalRecord {
                        target: Some(t),
                        href_raw: format!("/p{t}"),
                        source: DeclarationSource::LinkElement,
                        in_head: t == 1,
                        error: None,
                    })
                    .to_vec();
            }
            writer.page(page).await.unwrap();
        }
        writer
            .sitemap(SitemapRecord {
                id: 1,
                url: "https://example.test/sitemap.xml".into(),
                kind: "urlset".into(),
                parent_id: None,
                found_via: SitemapSource::Default,
                fetched_at: 0,
                status: Some(200),
                body_bytes: 0,
                gzip: false,
                issues_json: "[]".into(),
                error: None,
                new_urls: vec![],
                requeue: vec![],
                entries: (1..=5)
                    .map(|i| SitemapEntryRecord {
                        url_id: (i != 5).then_some(i),
                        loc_raw: format!("/p{i}"),
                        lastmod: None,
                        changefreq: None,
                        priority: None,
                    })
                    .collect(),
            })
            .await
            .unwrap();
        writer.close().await.unwrap();
        audit
    }

    #[tokio::test]
    async fn scans_read_every_row_across_chunks_in_key_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.sqlite")).await.unwrap();
        // A second audit first, so the reads must keep to their own audit.
        let other = audit(&store).await;
        let a = audit(&store).await;
        assert_ne!(other, a);

        let mut urls = Vec::new();
        store.scan_urls(a, |u| urls.push(u)).await.unwrap();
        assert_eq!(
            urls.iter().map(|u| u.id).collect::<Vec<_>>(),
            (1..=8).collect::<Vec<_>>()
        );
        assert_eq!(urls[2].url, "https://example.test/p3");
        assert_eq!(urls[2].state, UrlState::Done);
        assert_eq!(urls[2].found_via, FoundVia::Link);

        let mut fetches = Vec::new();
        store.scan_fetches(a, |f| fetches.push(f)).await.unwrap();
        assert_eq!(fetches.len(), 8);
        let f3 = &fetches[2];
        assert_eq!((f3.url_id, f3.status, f3.noindex), (3, Some(200), true));
        assert_eq!(
            f3.title.as_deref(),
            Some("Page \"3\", with\ttabs, commas and ünïcode")
        );
        assert_eq!(f3.text_hash.map(|h| h as u64), Some(u64::MAX - 3));
        assert_eq!(f3.meta_description.as_deref(), Some("About page 3"));
        assert_eq!(f3.meta_robots.as_deref(), Some("robots: noindex"));
        assert_eq!(f3.x_robots_tag.as_deref(), Some("noarchive"));
        assert_eq!((f3.total_ms, f3.body_bytes), (Some(13), 3000));
        assert_eq!(fetches[0].x_robots_tag, None);
        assert_eq!(fetches[7].status, Some(404));

        let mut links = Vec::new();
        store.scan_links(a, |l| links.push(l)).await.unwrap();
        let pairs: Vec<_> = links.iter().map(|l| (l.from, l.to, l.nofollow)).collect();
        let mut expected: Vec<_> = (2..=8).map(|t| (1, Some(t), t == 2)).collect();
        expected.extend([(2, None, false), (2, Some(8), false)]);
        assert_eq!(pairs, expected);
        let tags: Vec<LinkKind> = links.iter().map(|l| l.tag).collect();
        let mut want = vec![LinkKind::A; 8];
        want.push(LinkKind::OgUrl);
        assert_eq!(tags, want);
        // A tag word this version does not know reads as Other.
        let edge: LinkEdge = serde_json::from_str(r#"[1, 2, 0, null, "iframe"]"#).unwrap();
        assert_eq!(edge.tag, LinkKind::Other);

        let mut canonicals = Vec::new();
        store
            .scan_canonicals(a, |c| canonicals.push(c))
            .await
            .unwrap();
        let got: Vec<_> = canonicals
            .iter()
            .map(|c| (c.page, c.position, c.target, c.in_head))
            .collect();
        assert_eq!(got, [(5, 0, Some(1), true), (5, 1, Some(2), false)]);

        let mut entries = Vec::new();
        store
            .scan_sitemap_entries(a, |e| entries.push(e))
            .await
            .unwrap();
        let got: Vec<_> = entries
            .iter()
            .map(|e| (e.url_id, e.loc_raw.as_str()))
            .collect();
        // The loc as written only where it did not resolve.
        assert_eq!(
            got,
            [
                (Some(1), ""),
                (Some(2), ""),
                (Some(3), ""),
                (Some(4), ""),
                (None, "/p5")
            ]
        );

        // Only links to the page declaring other URLs canonical (5) and to the 404 (8)
        // carry their text, including the one without any; links to plain pages do not.
        let anchors = store.quoted_anchors(a).await.unwrap();
        let got: Vec<_> = anchors
            .iter()
            .map(|l| (l.from, l.to, l.text.as_str()))
            .collect();
        assert_eq!(got, [(1, 5, "to 5"), (1, 8, "to 8"), (2, 8, "")]);
    }

    #[tokio::test]
    async fn text_that_is_not_utf8_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.sqlite")).await.unwrap();
        let a = audit(&store).await;
        sqlx::query("UPDATE fetches SET title = CAST(X'C328FF' AS TEXT) WHERE url_id = 4")
            .execute(store.pool())
            .await
            .unwrap();
        let result = store.scan_fetches(a, |_| {}).await;
        assert!(result.is_err(), "{result:?}");
        // The other tables still read.
        let mut urls = 0;
        store.scan_urls(a, |_| urls += 1).await.unwrap();
        assert_eq!(urls, 8);
    }

    #[tokio::test]
    async fn scans_of_an_empty_audit_read_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.sqlite")).await.unwrap();
        let a = store
            .create_audit(&["https://example.test/".into()], "{}")
            .await
            .unwrap();
        let mut n = 0;
        store.scan_urls(a, |_| n += 1).await.unwrap();
        store.scan_links(a, |_| n += 1).await.unwrap();
        store.scan_hreflang(a, |_| n += 1).await.unwrap();
        assert_eq!(n, 0);
    }
}
