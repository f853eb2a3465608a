//! The analysis input read from the store for one audit.
//!
//! [`load`] is the one place where stored rows become the analysis' input: it runs the
//! store's lean bulk reads (`Store::scan_urls`, `scan_fetches`, ...) concurrently and
//! converts each record straight into its input row, so no table is ever held twice.
//! The analysis itself (`audit`) knows neither the store nor an async runtime. The words
//! both sides use (URL states, reasons, link kinds, ...) are one set of types, `vocab`'s,
//! so they pass through unchanged.

use audit::{
    AnchorRow, AuditInput, CanonicalRow, FetchRow, HreflangRow, LinkRow, RedirectChainRow,
    RedirectRow, RobotsRow, SitemapEntryRow, SitemapIssue, SitemapRow, SitemapSource, Spill,
    UrlRow,
};
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

/// Why a stored audit cannot be read as the analysis input.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// A stored id does not fit the analysis's 32-bit ids (the analysis would otherwise
    /// join rows on a wrong id).
    #[error("audit {audit} holds the id {id}, which does not fit 32 bits")]
    IdOutOfRange {
        /// The audit.
        audit: i64,
        /// The id.
        id: i64,
    },
    /// A stored row holds what this version cannot read.
    #[error("audit {audit} holds unreadable {what}: {detail}")]
    Corrupt {
        /// The audit.
        audit: i64,
        /// What (e.g. `a URL id`, `sitemap issues`).
        what: &'static str,
        /// The value or the parser's message.
        detail: String,
    },
}

/// Problems met while converting rows (the conversions run inside the store's scan
/// callbacks, so they are collected and reported once the scans are done).
#[derive(Default)]
struct Check {
    /// The first id that does not fit `u32` (0: none).
    bad_id: AtomicI64,
    /// The first sitemap whose stored issues do not parse, with the parser's message.
    bad_issues: std::sync::Mutex<Option<(i64, String)>>,
}

impl Check {
    /// A store id as the analysis's `u32` (ids are numbered per audit from 1). An id
    /// that does not fit is remembered and fails the load ([`Check::result`]); the
    /// placeholder returned meanwhile is never seen.
    fn id(&self, v: i64) -> u32 {
        u32::try_from(v).unwrap_or_else(|_| {
            let _ = self
                .bad_id
                .compare_exchange(0, v, Ordering::Relaxed, Ordering::Relaxed);
            u32::MAX
        })
    }

    fn result(self, audit: store::AuditId) -> Result<(), LoadError> {
        let bad = self.bad_id.into_inner();
        if bad != 0 {
            return Err(LoadError::IdOutOfRange {
                audit: audit.0,
                id: bad,
            });
        }
        if let Some((sitemap, detail)) = self
            .bad_issues
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            return Err(LoadError::Corrupt {
                audit: audit.0,
                what: "sitemap issues",
                detail: format!("sitemap {sitemap}: {detail}"),
            });
        }
        Ok(())
    }
}

/// Reads one audit from the store and builds the analysis input.
pub async fn load(store: &store::Store, audit: store::AuditId) -> Result<AuditInput, LoadError> {
    let check = Check::default();
    let ck = &check;
    let mut input = AuditInput {
        // The links, the largest table, are packed to a temporary file too.
        links: audit::Links::spilled(),
        ..AuditInput::default()
    };
    let mut shared: FxHashMap<String, Arc<str>> = FxHashMap::default();
    // Pages' text blocks go to a temporary file, so the analysis does not hold every
    // page's text; without a writable temporary folder they stay in memory.
    let spill = match Spill::new() {
        Ok(spill) => Some(spill),
        Err(e) => {
            tracing::warn!("text blocks held in memory: no temporary file ({e})");
            None
        }
    };
    let AuditInput {
        urls,
        fetches,
        redirects,
        canonicals,
        links,
        anchors,
        hreflang,
        sitemaps,
        sitemap_entries,
        robots_blocks,
        redirect_chains,
        robots,
        probes,
        renders,
        js_links,
    } = &mut input;
    tokio::try_join!(
        store.scan_urls(audit, |u| urls.push(url_row(u, ck))),
        store.scan_fetches(audit, |f| fetches.push(fetch_row(
            f,
            &mut shared,
            spill.as_ref(),
            ck
        ))),
        store.scan_redirects(audit, |r| redirects.push(RedirectRow {
            from: ck.id(r.from),
            to: r.to.map(|v| ck.id(v)),
            status: r.status,
            kind: r.kind,
            hop_index: r.hop_index,
        })),
        store.scan_canonicals(audit, |c| canonicals.push(CanonicalRow {
            page: ck.id(c.page),
            position: c.position,
            target: c.target.map(|v| ck.id(v)),
            href_raw: c.href_raw,
            source: c.source,
            in_head: c.in_head,
        })),
        store.scan_links(audit, |l| links.push(LinkRow {
            from: ck.id(l.from),
            to: l.to.map(|v| ck.id(v)),
            nofollow: l.nofollow,
            region: l.region,
            kind: l.tag,
        })),
        store.scan_hreflang(audit, |h| hreflang.push(HreflangRow {
            page: ck.id(h.page),
            lang: h.lang,
            target: h.target.map(|v| ck.id(v)),
            source: h.source,
        })),
        store.scan_sitemap_entries(audit, |e| sitemap_entries.push(SitemapEntryRow {
            sitemap_id: ck.id(e.sitemap_id),
            url_id: e.url_id.map(|v| ck.id(v)),
            loc_raw: e.loc_raw,
        })),
        async {
            *anchors = store
                .quoted_anchors(audit)
                .await?
                .into_iter()
                .map(|a| AnchorRow {
                    from: ck.id(a.from),
                    to: ck.id(a.to),
                    text: a.text,
                })
                .collect();
            *sitemaps = store
                .sitemaps(audit)
                .await?
                .into_iter()
                .map(|s| sitemap_row(s, ck))
                .collect();
            *robots_blocks = store
                .robots_blocked(audit)
                .await?
                .into_iter()
                .map(|v| ck.id(v))
                .collect();
            *redirect_chains = store
                .redirect_chains(audit)
                .await?
                .into_iter()
                .map(|c| RedirectChainRow {
                    start: ck.id(c.start),
                    final_url: c.last.map(|v| ck.id(v)),
                    hops: c.hops,
                    problem: c.problem,
                })
                .collect();
            *robots = store
                .robots(audit)
                .await?
                .into_iter()
                .map(|r| RobotsRow {
                    bytes: r.body.map_or(0, |b| b.len() as u64),
                    origin: r.origin,
                    status: r.status,
                })
                .collect();
            *renders = store
                .renders(audit)
                .await?
                .into_iter()
                .map(|r| audit::RenderedPage {
                    url_id: ck.id(r.url_id),
                    outcome: audit::RenderOutcome::parse(&r.outcome),
                    message: r.message,
                    title: r.title,
                    h1: r.h1,
                    noindex: r.noindex,
                    meta_robots: r.meta_robots,
                    canonical: r.canonical_target.map(|v| ck.id(v)),
                    canonical_href: r.canonical_href,
                    word_count: r.word_count,
                    text_hash: r.text_hash,
                    blocks: r.blocks.map(|b| keep_blocks(spill.as_ref(), b)),
                })
                .collect();
            *js_links = store
                .rendered_links(audit, true)
                .await?
                .into_iter()
                .filter_map(|l| {
                    Some(audit::JsLinkRow {
                        from: ck.id(l.from),
                        to: ck.id(l.link.to?),
                    })
                })
                .collect();
            *probes = store
                .probes(audit)
                .await?
                .into_iter()
                .map(|p| audit::ProbeRow {
                    url: ck.id(p.url_id),
                    base: ck.id(p.base_url_id),
                    rule: p.rule,
                })
                .collect();
            Ok(())
        },
    )?;
    // An href that is its target's URL exactly is held once (see `CanonicalRow`).
    for c in canonicals.iter_mut() {
        if let Some(t) = c.target
            && let Ok(k) = urls.binary_search_by_key(&t, |u| u.id)
            && urls[k].found_url() == c.href_raw
        {
            c.href_raw = String::new();
        }
    }
    // Large vectors shrink in place (the allocator remaps their pages).
    urls.shrink_to_fit();
    fetches.shrink_to_fit();
    check.result(audit)?;
    Ok(input)
}

fn url_row(u: store::UrlFacts, ck: &Check) -> UrlRow {
    UrlRow {
        id: ck.id(u.id),
        // Held once when it is its own rfc3986 form (see `UrlRow::found_url`).
        url: if u.url == u.url_rfc3986 {
            String::new()
        } else {
            u.url
        },
        url_rfc3986: u.url_rfc3986,
        depth: u.depth,
        found_via: u.found_via,
        found_from: u.found_from.map(|v| ck.id(v)),
        state: u.state,
        reason: u.reason.map(|kind| audit::UrlReason {
            kind,
            detail: u.reason_detail,
        }),
    }
}

/// A fetch row; texts a site repeats on most pages (content types, robots directives)
/// are held once, in `shared`; the text blocks go to `spill` when there is one.
fn fetch_row(
    f: store::FetchFacts,
    shared: &mut FxHashMap<String, Arc<str>>,
    spill: Option<&Arc<Spill>>,
    ck: &Check,
) -> FetchRow {
    let mut share = |text: String| {
        shared
            .entry(text)
            .or_insert_with_key(|t| Arc::from(t.as_str()))
            .clone()
    };
    FetchRow {
        url_id: ck.id(f.url_id),
        status: f.status,
        content_type: f.content_type.map(&mut share),
        meta_robots: f.meta_robots.map(&mut share),
        x_robots_tag: f.x_robots_tag.map(&mut share),
        meta_description: f.meta_description,
        response_ms: f.total_ms.map(|ms| u32::try_from(ms).unwrap_or(u32::MAX)),
        body_bytes: f.body_bytes,
        redirect_to: f.redirect_to.map(|v| ck.id(v)),
        title: f.title,
        noindex: f.noindex,
        nofollow: f.nofollow,
        text_hash: f.text_hash.map(bits),
        simhash: f.simhash.map(bits),
        word_count: f.word_count,
        truncated: f.truncated,
        error_kind: f.error_kind,
        h1: f.h1,
        blocks: f.blocks.map(|b| keep_blocks(spill, b)),
    }
}

/// A page's stored text blocks, in `spill` when there is one, else in memory.
fn keep_blocks(spill: Option<&Arc<Spill>>, blocks: Vec<u8>) -> audit::StoredBlocks {
    match spill {
        Some(spill) => spill.keep(blocks),
        None => blocks.into(),
    }
}

fn sitemap_row(s: store::SitemapRow, ck: &Check) -> SitemapRow {
    SitemapRow {
        id: ck.id(s.id),
        url: s.url,
        kind: s.kind,
        status: s.status,
        error: s.error,
        issues: serde_json::from_str::<Vec<SitemapIssue>>(&s.issues_json).unwrap_or_else(|e| {
            let mut bad = ck
                .bad_issues
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            bad.get_or_insert((s.id, e.to_string()));
            Vec::new()
        }),
        found_via: match s.found_via.as_str() {
            // A guess that an index lists too is declared by the index.
            "default" if s.parent_id.is_some() => SitemapSource::Index,
            "default" => SitemapSource::Guessed,
            "user" => SitemapSource::User,
            "index" => SitemapSource::Index,
            _ => SitemapSource::Robots,
        },
    }
}

/// A fingerprint stored bit-for-bit as a signed integer.
fn bits(v: i64) -> u64 {
    u64::from_ne_bytes(v.to_ne_bytes())
}

/// A stored DUST validation sample as the analysis reads it.
pub fn validation_fetch(r: &store::ValidationRecord) -> audit::ValidationFetch {
    audit::ValidationFetch {
        rule_id: r.rule_id.clone(),
        candidate: audit::ValidationCandidate {
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

/// Audit `id`'s stored DUST validation samples, for [`audit::AnalysisConfig::validations`].
pub async fn stored_validations(
    store: &store::Store,
    id: store::AuditId,
) -> Result<Vec<audit::ValidationFetch>, store::StoreError> {
    Ok(store
        .validations(id)
        .await?
        .iter()
        .map(validation_fetch)
        .collect())
}
