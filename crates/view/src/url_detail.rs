//! One URL in full, for the detail pane under the Pages table: its Pages row, canonical
//! and robots directives from every source, inlinks and outlinks with anchor text and
//! region, redirect hops, cluster membership, findings and sitemap entries.

use crate::types::{
    CanonicalView, DETAIL_LINKS, DetailField, HopView, LinkDirection, LinkView, SitemapEntryView,
    UrlDetail,
};
use audit::{AuditInput, DeclarationSource, HopKind, LinkRow, UrlId};
use std::collections::{HashMap, HashSet};

/// Per-URL indexes over an audit's rows, built on the first detail asked for.
pub struct UrlIndex {
    /// (hash of the found URL or of its rfc3986 form, row index in `input.urls`),
    /// sorted: the texts themselves stay in `input.urls`.
    by_url: Vec<(u64, u32)>,
    /// Url id → row index in `input.urls`.
    by_id: HashMap<UrlId, usize>,
    /// Url id → row index in `input.fetches`.
    fetch: HashMap<UrlId, usize>,
    /// Link row indexes by source (outlinks) and by target (inlinks).
    out: LinkRows,
    inl: LinkRows,
    /// (from, to) → anchor text.
    anchors: HashMap<(UrlId, UrlId), usize>,
    /// Redirect row by source.
    redirect: HashMap<UrlId, usize>,
}

impl UrlIndex {
    /// Builds the indexes.
    pub fn new(input: &AuditInput) -> UrlIndex {
        let mut by_url = Vec::with_capacity(input.urls.len() * 2);
        let mut by_id = HashMap::with_capacity(input.urls.len());
        for (i, u) in input.urls.iter().enumerate() {
            by_url.push((url_hash(u.found_url()), i as u32));
            if !u.url_rfc3986.is_empty() && u.url_rfc3986 != u.found_url() {
                by_url.push((url_hash(&u.url_rfc3986), i as u32));
            }
            by_id.insert(u.id, i);
        }
        // Sorted by hash, then by row: among equal hashes the first URL row wins, as a
        // found URL does over another row's rfc3986 form.
        by_url.sort_unstable();
        let row = |id: UrlId| by_id.get(&id).copied();
        let out = LinkRows::new(input.urls.len(), input, |l| row(l.from));
        let inl = LinkRows::new(input.urls.len(), input, |l| l.to.and_then(row));
        UrlIndex {
            by_url,
            by_id,
            fetch: input
                .fetches
                .iter()
                .enumerate()
                .map(|(i, f)| (f.url_id, i))
                .collect(),
            out,
            inl,
            anchors: input
                .anchors
                .iter()
                .enumerate()
                .map(|(i, a)| ((a.from, a.to), i))
                .collect(),
            redirect: input
                .redirects
                .iter()
                .enumerate()
                .map(|(i, r)| (r.from, i))
                .collect(),
        }
    }

    /// The id of `url` (as found, or its rfc3986 form).
    pub fn id_of(&self, input: &AuditInput, url: &str) -> Option<UrlId> {
        let hash = url_hash(url);
        let first = self.by_url.partition_point(|&(h, _)| h < hash);
        let is = |u: &audit::UrlRow| u.found_url() == url || u.url_rfc3986 == url;
        // A found URL first, then an rfc3986 form, as the rows were indexed.
        let rows = || {
            self.by_url[first..]
                .iter()
                .take_while(|&&(h, _)| h == hash)
                .map(|&(_, i)| &input.urls[i as usize])
        };
        rows()
            .find(|u| u.found_url() == url)
            .or_else(|| rows().find(|u| is(u)))
            .map(|u| u.id)
    }

    /// The row of `id` in `input.urls` (and in the Pages table).
    pub fn row_of(&self, id: UrlId) -> Option<usize> {
        self.by_id.get(&id).copied()
    }

    /// The rows of `input.links` that link to `id` (inlinks) or from it (outlinks), in
    /// the order the crawl stored them.
    pub fn link_rows(&self, id: UrlId, direction: LinkDirection) -> &[u32] {
        let Some(row) = self.row_of(id) else {
            return &[];
        };
        match direction {
            LinkDirection::Inlinks => self.inl.of(row),
            LinkDirection::Outlinks => self.out.of(row),
        }
    }

    /// Link row `row` seen from its target (inlinks: the other end is the linking page)
    /// or from its source (outlinks: the other end is the target).
    pub fn link_view(&self, input: &AuditInput, row: u32, direction: LinkDirection) -> LinkView {
        let l = &input.links.get(row as usize).unwrap_or_default();
        let other = match direction {
            LinkDirection::Inlinks => Some(l.from),
            LinkDirection::Outlinks => l.to,
        };
        self.link(input, l, other)
    }

    /// The URL of `id` as first found (empty for an id the audit does not hold).
    pub fn url<'a>(&self, input: &'a AuditInput, id: UrlId) -> &'a str {
        self.by_id
            .get(&id)
            .map_or("", |&i| input.urls[i].found_url())
    }

    /// The status code `id` answered, when fetched.
    pub fn status(&self, input: &AuditInput, id: UrlId) -> Option<u16> {
        self.fetch.get(&id).and_then(|&i| input.fetches[i].status)
    }

    /// The anchor text of a link from `from` to `to`, when the store keeps it.
    pub fn anchor<'a>(&self, input: &'a AuditInput, from: UrlId, to: UrlId) -> Option<&'a str> {
        self.anchors
            .get(&(from, to))
            .map(|&i| input.anchors[i].text.as_str())
    }

    fn link(&self, input: &AuditInput, l: &LinkRow, other: Option<UrlId>) -> LinkView {
        LinkView {
            url: other.map_or_else(String::new, |o| self.url(input, o).to_owned()),
            anchor: l
                .to
                .and_then(|to| self.anchors.get(&(l.from, to)))
                .map(|&i| input.anchors[i].text.clone()),
            region: l.region.map(|r| r.as_str().to_owned()),
            kind: l.kind.found_via_words(l.nofollow).to_owned(),
            nofollow: l.nofollow,
            status: l.to.and_then(|to| self.status(input, to)),
            external: false,
        }
    }
}

/// The hash a URL is looked up by.
fn url_hash(url: &str) -> u64 {
    use std::hash::BuildHasher;
    std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default().hash_one(url)
}

/// Link row indexes grouped by URL row (compressed rows: four bytes a link and four a
/// URL, where a map of vectors took three to four times that at a million pages).
struct LinkRows {
    /// `rows[start[k]..start[k + 1]]` are URL row `k`'s links.
    start: Vec<u32>,
    rows: Vec<u32>,
}

impl LinkRows {
    /// The links of each of `urls` URL rows, as `row_of` files each link (two passes
    /// over the links, in their stored order).
    fn new(urls: usize, input: &AuditInput, row_of: impl Fn(&LinkRow) -> Option<usize>) -> Self {
        let mut start = vec![0u32; urls + 1];
        for l in &input.links {
            if let Some(k) = row_of(&l) {
                start[k + 1] += 1;
            }
        }
        for k in 0..urls {
            start[k + 1] += start[k];
        }
        let mut next = start.clone();
        let mut rows = vec![0u32; start[urls] as usize];
        for (i, l) in input.links.iter().enumerate() {
            if let Some(k) = row_of(&l) {
                rows[next[k] as usize] = i as u32;
                next[k] += 1;
            }
        }
        LinkRows { start, rows }
    }

    /// URL row `k`'s link rows, in their stored order.
    fn of(&self, k: usize) -> &[u32] {
        match (self.start.get(k), self.start.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.rows[a as usize..b as usize],
            _ => &[],
        }
    }
}

fn source(s: DeclarationSource) -> &'static str {
    match s {
        DeclarationSource::LinkElement => "link element",
        DeclarationSource::HttpHeader => "HTTP header",
    }
}

/// Everything but the cluster and the findings (the caller adds those), and the Pages
/// row given as `fields`.
pub fn url_detail(
    input: &AuditInput,
    index: &UrlIndex,
    id: UrlId,
    fields: Vec<DetailField>,
) -> UrlDetail {
    let url = index.url(input, id).to_owned();
    let canonicals = input
        .canonicals
        .iter()
        .filter(|c| c.page == id)
        .map(|c| CanonicalView {
            source: source(c.source).to_owned(),
            href: c.href_raw.clone(),
            target: c.target.map(|t| index.url(input, t).to_owned()),
            in_head: c.in_head,
        })
        .collect();
    let mut robots = Vec::new();
    if let Some(f) = index.fetch.get(&id).map(|&i| &input.fetches[i]) {
        if let Some(m) = &f.meta_robots {
            robots.push(format!("meta robots: {m}"));
        }
        if let Some(x) = &f.x_robots_tag {
            robots.push(format!("X-Robots-Tag: {x}"));
        }
    }
    if input.robots_blocks.contains(&id) {
        robots.push("robots.txt: disallowed for the crawler's user agent".to_owned());
    }
    let links = |direction: LinkDirection| -> (Vec<LinkView>, u32) {
        let rows = index.link_rows(id, direction);
        let views = rows
            .iter()
            .take(DETAIL_LINKS)
            .map(|&i| index.link_view(input, i, direction))
            .collect();
        (views, rows.len() as u32)
    };
    let (inlinks, inlinks_total) = links(LinkDirection::Inlinks);
    let (outlinks, outlinks_total) = links(LinkDirection::Outlinks);
    let mut hops = Vec::new();
    let mut seen = HashSet::from([id]);
    let mut at = id;
    while let Some(&r) = index.redirect.get(&at) {
        let r = &input.redirects[r];
        hops.push(HopView {
            from: index.url(input, r.from).to_owned(),
            to: r.to.map(|t| index.url(input, t).to_owned()),
            status: r.status,
            kind: match r.kind {
                HopKind::Http => "HTTP",
                HopKind::MetaRefresh => "meta refresh",
            }
            .to_owned(),
        });
        match r.to {
            // A loop ends the walk at the URL it comes back to; long chains are capped.
            Some(to) if seen.insert(to) && hops.len() < 50 => at = to,
            _ => break,
        }
    }
    let sitemaps = input
        .sitemap_entries
        .iter()
        .filter(|e| e.url_id == Some(id))
        .filter_map(|e| input.sitemaps.iter().find(|s| s.id == e.sitemap_id))
        .map(|s| SitemapEntryView {
            sitemap: s.url.clone(),
            status: s.status,
        })
        .collect();
    UrlDetail {
        url,
        fields,
        canonicals,
        robots,
        inlinks,
        inlinks_total,
        outlinks,
        outlinks_total,
        hops,
        cluster: None,
        findings: Vec::new(),
        sitemaps,
        live: false,
        headers: Vec::new(),
        headers_omitted: 0,
        headers_stored: false,
    }
}

/// The headers an SEO reads first, in this order; the rest follow in the order sent.
const HEADERS_FIRST: [&str; 5] = [
    "link",
    "x-robots-tag",
    "cache-control",
    "location",
    "content-type",
];

/// `headers` for the detail pane: [`HEADERS_FIRST`] first, then the rest as sent.
pub(crate) fn header_views(headers: &store::ResponseHeaders) -> Vec<crate::types::HeaderView> {
    let mut pairs = headers.pairs();
    // A stable sort keeps the order sent within each group.
    pairs.sort_by_key(|(name, _)| {
        HEADERS_FIRST
            .iter()
            .position(|first| first == name)
            .unwrap_or(HEADERS_FIRST.len())
    });
    pairs
        .into_iter()
        .map(|(name, value)| crate::types::HeaderView {
            name: name.to_owned(),
            value: value.to_owned(),
        })
        .collect()
}

/// Adds the response headers of `url_id` (read from `store`) to `detail`.
pub(crate) async fn add_headers(
    store: &store::Store,
    audit: i64,
    url_id: store::UrlId,
    detail: &mut UrlDetail,
) -> Result<(), crate::ViewError> {
    if let Some(headers) = store
        .response_headers(store::AuditId(audit), url_id)
        .await?
    {
        detail.headers = header_views(&headers);
        detail.headers_omitted = headers.omitted;
        detail.headers_stored = true;
    }
    Ok(())
}
