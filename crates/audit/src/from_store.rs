//! The analysis input read from the store for one audit.
//!
//! [`load`] is the one place the analysis touches the store: it runs the store's lean
//! bulk reads (`Store::scan_urls`, `scan_fetches`, ...) concurrently and converts each
//! record straight into its input row, so no table is ever held twice.

use crate::input::{
    AnchorRow, AuditInput, CanonicalRow, DeclarationSource, FetchRow, FoundVia, HopKind,
    HreflangRow, LinkRow, RedirectChainRow, RedirectRow, SitemapEntryRow, SitemapIssue, SitemapRow,
    SitemapSource, UrlRow, UrlState,
};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// Reads one audit from the store and builds the analysis input.
pub async fn load(
    store: &store::Store,
    audit: store::AuditId,
) -> Result<AuditInput, store::StoreError> {
    let mut input = AuditInput::default();
    let mut content_types: FxHashMap<String, Arc<str>> = FxHashMap::default();
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
    } = &mut input;
    tokio::try_join!(
        store.scan_urls(audit, |u| urls.push(url_row(u))),
        store.scan_fetches(audit, |f| fetches.push(fetch_row(f, &mut content_types))),
        store.scan_redirects(audit, |r| redirects.push(RedirectRow {
            from: id(r.from),
            to: r.to.map(id),
            status: r.status,
            kind: hop_kind(r.kind),
            hop_index: r.hop_index,
        })),
        store.scan_canonicals(audit, |c| canonicals.push(CanonicalRow {
            page: id(c.page),
            position: c.position,
            target: c.target.map(id),
            href_raw: c.href_raw,
            source: source(c.source),
            in_head: c.in_head,
        })),
        store.scan_links(audit, |l| links.push(LinkRow {
            from: id(l.from),
            to: l.to.map(id),
            nofollow: l.nofollow,
        })),
        store.scan_hreflang(audit, |h| hreflang.push(HreflangRow {
            page: id(h.page),
            lang: h.lang,
            target: h.target.map(id),
            source: source(h.source),
        })),
        store.scan_sitemap_entries(audit, |e| sitemap_entries.push(SitemapEntryRow {
            sitemap_id: id(e.sitemap_id),
            url_id: e.url_id.map(id),
            loc_raw: e.loc_raw,
        })),
        async {
            *anchors = store
                .anchors_to_failures(audit)
                .await?
                .into_iter()
                .map(|a| AnchorRow {
                    from: id(a.from),
                    to: id(a.to),
                    text: a.text,
                })
                .collect();
            *sitemaps = store
                .sitemaps(audit)
                .await?
                .into_iter()
                .map(sitemap_row)
                .collect();
            *robots_blocks = store
                .robots_blocked(audit)
                .await?
                .into_iter()
                .map(id)
                .collect();
            *redirect_chains = store
                .redirect_chains(audit)
                .await?
                .into_iter()
                .map(|c| RedirectChainRow {
                    start: id(c.start),
                    final_url: c.last.map(id),
                    hops: c.hops,
                    problem: match c.problem {
                        store::ChainProblem::Loop => crate::ChainProblem::Loop,
                        store::ChainProblem::TooLong => crate::ChainProblem::TooLong,
                    },
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
    links.shrink_to_fit();
    Ok(input)
}

fn url_row(u: store::UrlFacts) -> UrlRow {
    UrlRow {
        id: id(u.id),
        // Held once when it is its own rfc3986 form (see `UrlRow::found_url`).
        url: if u.url == u.url_rfc3986 {
            String::new()
        } else {
            u.url
        },
        url_rfc3986: u.url_rfc3986,
        depth: u.depth,
        found_via: match u.found_via {
            store::FoundVia::Start => FoundVia::Start,
            store::FoundVia::Variant => FoundVia::Variant,
            store::FoundVia::Link => FoundVia::Link,
            store::FoundVia::Redirect => FoundVia::Redirect,
            store::FoundVia::MetaRefresh => FoundVia::MetaRefresh,
            store::FoundVia::Canonical => FoundVia::Canonical,
            store::FoundVia::Hreflang => FoundVia::Hreflang,
            store::FoundVia::Sitemap => FoundVia::Sitemap,
        },
        state: match u.state {
            store::UrlState::Queued => UrlState::Queued,
            store::UrlState::Fetching => UrlState::Fetching,
            store::UrlState::Done => UrlState::Done,
            store::UrlState::Blocked => UrlState::Blocked,
            store::UrlState::Failed => UrlState::Failed,
            store::UrlState::Skipped => UrlState::Skipped,
        },
        reason: u.reason,
    }
}

fn fetch_row(f: store::FetchFacts, content_types: &mut FxHashMap<String, Arc<str>>) -> FetchRow {
    FetchRow {
        url_id: id(f.url_id),
        status: f.status,
        content_type: f.content_type.map(|c| {
            content_types
                .entry(c)
                .or_insert_with_key(|c| Arc::from(c.as_str()))
                .clone()
        }),
        redirect_to: f.redirect_to.map(id),
        title: f.title,
        noindex: f.noindex,
        nofollow: f.nofollow,
        text_hash: f.text_hash.map(bits),
        simhash: f.simhash.map(bits),
        word_count: f.word_count,
        truncated: f.truncated,
        error_kind: f.error_kind,
        h1: f.h1,
        blocks: f.blocks,
    }
}

fn sitemap_row(s: store::SitemapRow) -> SitemapRow {
    SitemapRow {
        id: id(s.id),
        url: s.url,
        kind: s.kind,
        status: s.status,
        error: s.error,
        issues: serde_json::from_str::<Vec<SitemapIssue>>(&s.issues_json).unwrap_or_default(),
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

fn hop_kind(k: store::HopKind) -> HopKind {
    match k {
        store::HopKind::Http => HopKind::Http,
        store::HopKind::MetaRefresh => HopKind::MetaRefresh,
    }
}

fn source(s: store::DeclarationSource) -> DeclarationSource {
    match s {
        store::DeclarationSource::LinkElement => DeclarationSource::LinkElement,
        store::DeclarationSource::HttpHeader => DeclarationSource::HttpHeader,
    }
}

/// A fingerprint stored bit-for-bit as a signed integer.
fn bits(v: i64) -> u64 {
    u64::from_ne_bytes(v.to_ne_bytes())
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
