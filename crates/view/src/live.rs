//! One URL as the store holds it while its audit is being crawled, for the detail pane
//! opened from the progress panel's latest errors: a few point reads, no load of the
//! whole audit and no analysis (those come when the crawl ends).

use crate::error::ViewError;
use crate::table::column_key;
use crate::types::{CanonicalView, DetailField, HopView, LinkView, UrlDetail};
use std::collections::{HashMap, HashSet};
use store::{AuditId, FetchRecord, FoundVia, HopKind, Store, UrlId, UrlRow, UrlState};

/// The most outlinks a live detail lists (each one costs two point reads).
pub const LIVE_LINKS: usize = 200;

/// Redirect hops followed from the URL before the walk stops.
const MAX_HOPS: usize = 50;

/// URLs by id, read once each.
struct Urls<'a> {
    store: &'a Store,
    audit: AuditId,
    known: HashMap<UrlId, String>,
}

impl Urls<'_> {
    /// The URL of `id` (its rfc3986 form); empty when the store has no such URL.
    async fn get(&mut self, id: UrlId) -> Result<String, ViewError> {
        if let Some(url) = self.known.get(&id) {
            return Ok(url.clone());
        }
        let url = self
            .store
            .known_urls(self.audit, id - 1, 1)
            .await?
            .into_iter()
            .find(|k| k.id == id)
            .map(|k| k.url_rfc3986)
            .unwrap_or_default();
        self.known.insert(id, url.clone());
        Ok(url)
    }

    /// The detail's fields, in the Pages table's words: address, status, crawl state and
    /// reason, the fetch's columns, depth and how the URL was found.
    async fn fields(
        &mut self,
        row: &UrlRow,
        fetch: Option<&FetchRecord>,
        status: Option<u16>,
    ) -> Result<Vec<DetailField>, ViewError> {
        let mut fields: Vec<(&str, String)> = vec![
            ("Address", row.url.clone()),
            (
                "Status Code",
                status.map(|s| s.to_string()).unwrap_or_default(),
            ),
            ("Crawl State", row.state.as_str().to_owned()),
        ];
        if let Some(reason) = &row.reason {
            let text = match &reason.detail {
                Some(detail) => format!("{}: {detail}", reason.kind.as_str()),
                None => reason.kind.as_str().to_owned(),
            };
            fields.push(("Reason", text));
        }
        if let Some(f) = fetch {
            if let Some(kind) = &f.error_kind {
                let text = match &f.error_message {
                    Some(message) => format!("{kind}: {message}"),
                    None => kind.clone(),
                };
                fields.push(("Fetch Error", text));
            }
            fields.extend([
                ("Content Type", f.content_type.clone().unwrap_or_default()),
                ("Title 1", f.title.clone().unwrap_or_default()),
                (
                    "Meta Description 1",
                    f.meta_description.clone().unwrap_or_default(),
                ),
                ("H1-1", f.h1.clone().unwrap_or_default()),
                ("Meta Robots 1", f.meta_robots.clone().unwrap_or_default()),
                ("X-Robots-Tag 1", f.x_robots_tag.clone().unwrap_or_default()),
                ("Size (bytes)", f.body_bytes.to_string()),
                (
                    "Word Count",
                    f.word_count.map(|n| n.to_string()).unwrap_or_default(),
                ),
                ("Response Time", seconds(f.total_ms)),
            ]);
            if let Some(to) = f.redirect_to {
                fields.push(("Redirect URL", self.get(to).await?));
            }
        }
        fields.extend([
            ("Crawl Depth", row.depth.to_string()),
            ("Found Via", found_via_words(row.found_via).to_owned()),
        ]);
        Ok(fields
            .into_iter()
            .map(|(label, value)| DetailField {
                key: column_key(label),
                label: label.to_owned(),
                value,
            })
            .collect())
    }

    /// The canonicals URL `id` declares.
    async fn canonicals(&mut self, id: UrlId) -> Result<Vec<CanonicalView>, ViewError> {
        let mut canonicals = Vec::new();
        for c in self.store.canonicals_of(self.audit, id).await? {
            let target = match c.target {
                Some(t) => Some(self.get(t).await?),
                None => None,
            };
            canonicals.push(CanonicalView {
                source: match c.source {
                    store::DeclarationSource::LinkElement => "link element",
                    store::DeclarationSource::HttpHeader => "HTTP header",
                }
                .to_owned(),
                href: c.href_raw,
                target,
                in_head: c.in_head,
            });
        }
        Ok(canonicals)
    }

    /// The page the URL was first found on, with that link's anchor where it is a link.
    async fn found_on(
        &mut self,
        row: &UrlRow,
        status: Option<u16>,
    ) -> Result<Vec<LinkView>, ViewError> {
        let mut inlinks = Vec::new();
        if let Some(from) = row.found_from {
            let link = self
                .store
                .links_from(self.audit, from)
                .await?
                .into_iter()
                .find(|l| l.to == Some(row.id));
            inlinks.push(LinkView {
                url: self.get(from).await?,
                anchor: link.as_ref().and_then(|l| l.anchor_text.clone()),
                region: link
                    .as_ref()
                    .and_then(|l| l.region)
                    .map(|r| r.as_str().to_owned()),
                kind: match &link {
                    Some(l) => link_kind(&l.tag, l.nofollow),
                    None => found_via_words(row.found_via),
                }
                .to_owned(),
                nofollow: link.as_ref().is_some_and(|l| l.nofollow),
                status,
                external: false,
            });
        }
        Ok(inlinks)
    }

    /// The first [`LIVE_LINKS`] links of URL `id`, and how many it has.
    async fn outlinks(&mut self, id: UrlId) -> Result<(Vec<LinkView>, u32), ViewError> {
        let links = self.store.links_from(self.audit, id).await?;
        let outlinks_total = links.len() as u32;
        let mut outlinks = Vec::new();
        for l in links.into_iter().take(LIVE_LINKS) {
            let (target, target_status) = match l.to {
                Some(to) => (
                    self.get(to).await?,
                    self.store
                        .fetch(self.audit, to)
                        .await?
                        .and_then(|f| f.status),
                ),
                None => (l.href_raw.clone(), None),
            };
            outlinks.push(LinkView {
                url: target,
                anchor: l.anchor_text.clone(),
                region: l.region.map(|r| r.as_str().to_owned()),
                kind: link_kind(&l.tag, l.nofollow).to_owned(),
                nofollow: l.nofollow,
                status: target_status,
                external: false,
            });
        }
        Ok((outlinks, outlinks_total))
    }

    /// The redirect hops from URL `id`, up to a loop or [`MAX_HOPS`].
    async fn hops(&mut self, id: UrlId) -> Result<Vec<HopView>, ViewError> {
        let mut hops = Vec::new();
        let mut seen = HashSet::from([id]);
        let mut at = id;
        while let Some(r) = self.store.redirect_from(self.audit, at).await? {
            let to = match r.to {
                Some(t) => Some(self.get(t).await?),
                None => None,
            };
            hops.push(HopView {
                from: self.get(at).await?,
                to,
                status: r.status,
                kind: match r.kind {
                    HopKind::Http => "HTTP",
                    HopKind::MetaRefresh => "meta refresh",
                }
                .to_owned(),
            });
            match r.to {
                // A loop ends the walk at the URL it comes back to; long chains are capped.
                Some(to) if seen.insert(to) && hops.len() < MAX_HOPS => at = to,
                _ => break,
            }
        }
        Ok(hops)
    }
}

/// What a link's stored tag says it is, in the words of [`LinkView::kind`].
fn link_kind(tag: &str, nofollow: bool) -> &'static str {
    serde_json::from_value::<audit::LinkKind>(serde_json::Value::String(tag.to_owned()))
        .unwrap_or(audit::LinkKind::Other)
        .found_via_words(nofollow)
}

/// How a URL was first found, in words.
fn found_via_words(via: FoundVia) -> &'static str {
    match via {
        FoundVia::Start => "start URL",
        FoundVia::Variant => "variant",
        FoundVia::Link => "link",
        FoundVia::Redirect => "redirect",
        FoundVia::MetaRefresh => "meta refresh",
        FoundVia::Canonical => "canonical",
        FoundVia::Hreflang => "hreflang",
        FoundVia::Sitemap => "sitemap",
    }
}

/// The robots directives of the URL: its meta robots and `X-Robots-Tag`, and a
/// robots.txt that blocked it.
fn robots(row: &UrlRow, fetch: Option<&FetchRecord>) -> Vec<String> {
    let mut robots = Vec::new();
    if let Some(f) = fetch {
        if let Some(m) = &f.meta_robots {
            robots.push(format!("meta robots: {m}"));
        }
        if let Some(x) = &f.x_robots_tag {
            robots.push(format!("X-Robots-Tag: {x}"));
        }
    }
    if row.state == UrlState::Blocked {
        robots.push("robots.txt: disallowed for the crawler's user agent".to_owned());
    }
    robots
}

/// Milliseconds as seconds with three decimals, as the Pages table's `Response Time`.
fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// URL `url` (as found or in its rfc3986 form) of audit `audit` as the store holds it
/// now: its fetch, canonicals, robots directives, outlinks (the first [`LIVE_LINKS`])
/// and redirect hops, and as its inlink the page it was first found on. Marked
/// [`UrlDetail::live`].
pub async fn live_url_detail(store: &Store, audit: i64, url: &str) -> Result<UrlDetail, ViewError> {
    let audit = AuditId(audit);
    let not_found = || ViewError::NoSuchUrl(url.to_owned());
    let key = canon::equivalence_key(url, &canon::Policy::rfc3986()).map_err(|_| not_found())?;
    let row = store
        .url_by_rfc3986(audit, &key)
        .await?
        .ok_or_else(not_found)?;
    let mut urls = Urls {
        store,
        audit,
        known: HashMap::from([(row.id, row.url_rfc3986.clone())]),
    };
    let fetch = store.fetch(audit, row.id).await?;
    let status = fetch.as_ref().and_then(|f| f.status);

    let fields = urls.fields(&row, fetch.as_ref(), status).await?;
    let canonicals = urls.canonicals(row.id).await?;
    let robots = robots(&row, fetch.as_ref());
    let inlinks = urls.found_on(&row, status).await?;
    let (outlinks, outlinks_total) = urls.outlinks(row.id).await?;
    let hops = urls.hops(row.id).await?;

    let mut detail = UrlDetail {
        url: row.url,
        fields,
        canonicals,
        robots,
        inlinks_total: inlinks.len() as u32,
        inlinks,
        outlinks,
        outlinks_total,
        hops,
        cluster: None,
        findings: Vec::new(),
        sitemaps: Vec::new(),
        live: true,
        headers: Vec::new(),
        headers_omitted: 0,
        headers_stored: false,
    };
    crate::url_detail::add_headers(store, audit.0, row.id, &mut detail).await?;
    let own = crawl::OwnHosts::of_audit(&store.audit(audit).await?);
    crate::external::mark(&mut detail.inlinks, &own);
    crate::external::mark(&mut detail.outlinks, &own);
    Ok(detail)
}
