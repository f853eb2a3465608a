//! Synthetic audits for benchmarks: a generated site of any size as analysis input
//! (pages, redirects, canonicals, parameter variants, near duplicates, 404s, links),
//! the same site a month later, and writing an input into a real store through its
//! writer. Deterministic: the same seed gives the same site.

use audit::{
    AuditInput, CanonicalRow, DeclarationSource, FetchRow, FoundVia, HopKind, LinkRow, RedirectRow,
    SitemapEntryRow, SitemapRow, UrlRow, UrlState,
};
use std::collections::HashMap;

/// The benchmark size: `$DUSTPAN_BENCH_URLS`, else 100,000.
pub fn size() -> usize {
    std::env::var("DUSTPAN_BENCH_URLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

/// xorshift64*: the same site on every run.
pub struct Rng(pub u64);

impl Rng {
    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// One synthetic URL, before ids are given.
#[derive(Clone)]
pub struct Node {
    /// The URL.
    pub url: String,
    /// The status code it answers.
    pub status: u16,
    /// Its text hash, when it has content.
    pub text: Option<u64>,
    /// The node it redirects to.
    pub redirect: Option<usize>,
    /// The node its canonical names.
    pub canonical: Option<usize>,
    /// Whether a sitemap lists it.
    pub in_sitemap: bool,
    /// The nodes it links to.
    pub links: Vec<usize>,
}

/// A node with no redirect, canonical, sitemap entry or link.
pub fn node(url: String, status: u16, text: Option<u64>) -> Node {
    Node {
        url,
        status,
        text,
        redirect: None,
        canonical: None,
        in_sitemap: false,
        links: Vec::new(),
    }
}

/// A site of about `n` URLs: self-canonical pages in the sitemap with five links each,
/// http→https redirects, www duplicates, tracking-parameter variants with canonicals,
/// near duplicates, 404s.
pub fn site(n: usize, rng: &mut Rng) -> Vec<Node> {
    let mut nodes: Vec<Node> = Vec::with_capacity(n);
    let mut pages = Vec::new();
    let mut k = 0u64;
    while nodes.len() < n {
        k += 1;
        let path = format!("/c{}/item-{k}", k % 97);
        let text = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let p = nodes.len();
        let mut page = node(format!("https://example.com{path}"), 200, Some(text));
        page.canonical = Some(p);
        page.in_sitemap = true;
        nodes.push(page);
        pages.push(p);
        match rng.below(100) {
            0..=9 => {
                let mut r = node(format!("http://example.com{path}"), 301, None);
                r.redirect = Some(p);
                nodes.push(r);
            }
            10..=14 => nodes.push(node(
                format!("https://www.example.com{path}"),
                200,
                Some(text),
            )),
            15..=19 => {
                let mut v = node(
                    format!("https://example.com{path}?utm_source=x"),
                    200,
                    Some(text),
                );
                v.canonical = Some(p);
                nodes.push(v);
            }
            20..=22 => nodes.push(node(
                format!("https://example.com/near{path}"),
                200,
                Some(text ^ 1),
            )),
            23 => nodes.push(node(format!("https://example.com/gone-{k}"), 404, None)),
            _ => {}
        }
    }
    let targets: Vec<usize> = (0..nodes.len()).collect();
    for &p in &pages {
        for _ in 0..5 {
            let to = targets[rng.below(targets.len() as u64) as usize];
            nodes[p].links.push(to);
        }
    }
    nodes
}

/// The same site a month later: 1% of pages gone, 1% new, 1% answering 404, 1% without
/// their canonical.
pub fn later(old: &[Node], rng: &mut Rng) -> Vec<Node> {
    let mut nodes = old.to_vec();
    let mut gone = vec![false; nodes.len()];
    for i in 0..nodes.len() {
        if nodes[i].status != 200 || nodes[i].canonical != Some(i) {
            continue;
        }
        match rng.below(100) {
            0 => gone[i] = true,
            1 => {
                nodes[i].status = 404;
                nodes[i].text = None;
                nodes[i].canonical = None;
            }
            2 => nodes[i].canonical = None,
            _ => {}
        }
    }
    let added = old.len() / 100;
    for k in 0..added {
        let i = nodes.len();
        let mut page = node(
            format!("https://example.com/new/item-{k}"),
            200,
            Some((k as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93)),
        );
        page.canonical = Some(i);
        page.in_sitemap = true;
        nodes.push(page);
        gone.push(false);
        let from = rng.below(old.len() as u64) as usize;
        nodes[from].links.push(i);
    }
    // Drop the gone pages and everything pointing at them.
    let keep: Vec<usize> = (0..nodes.len()).filter(|&i| !gone[i]).collect();
    let mut index = vec![usize::MAX; nodes.len()];
    for (new, &old) in keep.iter().enumerate() {
        index[old] = new;
    }
    let map = |i: usize| (index[i] != usize::MAX).then_some(index[i]);
    keep.iter()
        .map(|&i| {
            let mut n = nodes[i].clone();
            n.redirect = n.redirect.and_then(map);
            if n.redirect.is_none() && n.status == 301 {
                n.status = 404;
            }
            n.canonical = n.canonical.and_then(map);
            n.links = n.links.iter().filter_map(|&l| map(l)).collect();
            n
        })
        .collect()
}

/// The nodes as an audit's rows, node `i` getting id `ids[i]`.
pub fn input(nodes: &[Node], ids: &[u32]) -> AuditInput {
    let mut input = AuditInput {
        sitemaps: vec![SitemapRow {
            id: 1,
            url: "https://example.com/sitemap.xml".into(),
            kind: "urlset".into(),
            status: Some(200),
            ..SitemapRow::default()
        }],
        ..AuditInput::default()
    };
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    order.sort_by_key(|&i| ids[i]);
    for i in order {
        let n = &nodes[i];
        let id = ids[i];
        input.urls.push(UrlRow {
            id,
            url: n.url.clone(),
            url_rfc3986: n.url.clone(),
            depth: 1,
            found_via: FoundVia::Link,
            found_from: None,
            state: UrlState::Done,
            reason: None,
        });
        input.fetches.push(FetchRow {
            url_id: id,
            status: Some(n.status),
            content_type: Some("text/html".into()),
            redirect_to: n.redirect.map(|r| ids[r]),
            text_hash: n.text,
            simhash: n.text,
            word_count: Some(if n.text.is_some() { 400 } else { 0 }),
            blocks: n.text.map(|t| text_blocks(t).into()),
            ..FetchRow::default()
        });
        if let Some(r) = n.redirect {
            input.redirects.push(RedirectRow {
                from: id,
                to: Some(ids[r]),
                status: n.status,
                kind: HopKind::Http,
                hop_index: 0,
            });
        }
        if let Some(c) = n.canonical {
            input.canonicals.push(CanonicalRow {
                page: id,
                position: 0,
                target: Some(ids[c]),
                href_raw: nodes[c].url.clone(),
                source: DeclarationSource::LinkElement,
                in_head: true,
            });
        }
        if n.in_sitemap {
            input.sitemap_entries.push(SitemapEntryRow {
                sitemap_id: 1,
                url_id: Some(id),
                loc_raw: n.url.clone(),
            });
        }
        for &to in &n.links {
            input.links.push(LinkRow {
                from: id,
                to: Some(ids[to]),
                ..LinkRow::default()
            });
        }
    }
    input
}

fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stored text blocks of a page of 400 words with text `text`, as the extractor
/// writes them: a site template of 20 blocks of 10 words (the same on every page) and
/// four main-content blocks of 50 words (a near duplicate, `text ^ 1`, shares three).
pub fn text_blocks(text: u64) -> Vec<u8> {
    let block = |seed: u64, words: u32| extract::TextBlock {
        hash: mix(seed),
        words,
        // The extractor keeps one shingle in `SHINGLE_SAMPLE`, by value.
        shingles: (0..u64::from(words - 2))
            .map(|k| mix(seed ^ (k << 40)) as u32)
            .filter(|s| s % extract::blocks::SHINGLE_SAMPLE == 0)
            .collect(),
    };
    let mut blocks: Vec<extract::TextBlock> = (1..=20u64).map(|t| block(t, 10)).collect();
    for j in 0..3u64 {
        blocks.push(block(mix(text >> 1) ^ j, 50));
    }
    blocks.push(block(mix(text) ^ 3, 50));
    extract::blocks::encode(&blocks)
}

/// Ids in crawl order 1..=n, or shuffled (another crawl order).
pub fn ids(n: usize, rng: Option<&mut Rng>) -> Vec<u32> {
    let mut ids: Vec<u32> = (1..=n as u32).collect();
    if let Some(rng) = rng {
        for i in (1..n).rev() {
            ids.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }
    ids
}

/// Writes an audit's rows into the store through its writer; returns the audit's id.
pub async fn write(store: &store::Store, input: &AuditInput) -> store::AuditId {
    use store::{
        CanonicalRecord, FetchRecord, LinkRecord, NewUrl, PageRecord, RedirectRecord,
        SitemapEntryRecord, SitemapRecord, SitemapSource, WriterOptions,
    };
    let audit = store
        .create_audit(&["https://example.com/".into()], "{}")
        .await
        .expect("creates an audit");
    store.prepare_run(audit).await.expect("prepares the run");
    let writer = store
        .writer(audit, WriterOptions::default())
        .await
        .expect("starts the writer");
    let urls: Vec<NewUrl> = input
        .urls
        .iter()
        .map(|u| NewUrl {
            id: i64::from(u.id),
            url: u.url.clone(),
            url_rfc3986: u.url_rfc3986.clone(),
            url_seo: None,
            host: u.url.split('/').nth(2).unwrap_or_default().to_owned(),
            depth: u.depth,
            redirect_depth: 0,
            found_from: None,
            found_via: store::FoundVia::Link,
            // Fetched URLs become `done` with their page; the rest keep their state.
            state: match u.state {
                audit::UrlState::Blocked => store::UrlState::Blocked,
                audit::UrlState::Failed => store::UrlState::Failed,
                audit::UrlState::Skipped => store::UrlState::Skipped,
                _ => store::UrlState::Queued,
            },
            reason: u.reason.clone(),
        })
        .collect();
    for chunk in urls.chunks(10_000) {
        writer.urls(chunk.to_vec()).await.expect("writes URLs");
    }
    let mut links: HashMap<u32, Vec<LinkRecord>> = HashMap::new();
    for l in &input.links {
        links.entry(l.from).or_default().push(LinkRecord {
            to: l.to.map(i64::from),
            href_raw: String::new(),
            anchor_text: None,
            nofollow: false,
            tag: "a".into(),
            error: None,
            region: l.region,
        });
    }
    let mut canonicals: HashMap<u32, Vec<CanonicalRecord>> = HashMap::new();
    for c in &input.canonicals {
        canonicals.entry(c.page).or_default().push(CanonicalRecord {
            target: c.target.map(i64::from),
            href_raw: c.href_raw.clone(),
            source: store::DeclarationSource::LinkElement,
            in_head: true,
            error: None,
        });
    }
    let redirects: HashMap<u32, &RedirectRow> =
        input.redirects.iter().map(|r| (r.from, r)).collect();
    for f in &input.fetches {
        let mut page = PageRecord::new(i64::from(f.url_id), store::UrlState::Done);
        page.fetch = Some(FetchRecord {
            status: f.status,
            content_type: f.content_type.as_deref().map(str::to_owned),
            redirect_to: f.redirect_to.map(i64::from),
            text_hash: f.text_hash,
            simhash: f.simhash,
            word_count: f.word_count,
            h1: f.h1.clone(),
            blocks: f
                .blocks
                .as_ref()
                .and_then(|b| b.bytes().ok())
                .map(std::borrow::Cow::into_owned),
            attempts: 1,
            ..FetchRecord::default()
        });
        page.redirect = redirects.get(&f.url_id).map(|r| RedirectRecord {
            to: r.to.map(i64::from),
            status: r.status,
            location_raw: String::new(),
            hop_index: 0,
            kind: store::HopKind::Http,
            error: None,
        });
        page.links = links.remove(&f.url_id).unwrap_or_default();
        page.canonicals = canonicals.remove(&f.url_id).unwrap_or_default();
        writer.page(page).await.expect("writes a page");
    }
    writer
        .sitemap(SitemapRecord {
            id: 1,
            url: "https://example.com/sitemap.xml".into(),
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
            entries: input
                .sitemap_entries
                .iter()
                .map(|e| SitemapEntryRecord {
                    url_id: e.url_id.map(i64::from),
                    loc_raw: e.loc_raw.clone(),
                    lastmod: None,
                    changefreq: None,
                    priority: None,
                })
                .collect(),
        })
        .await
        .expect("writes the sitemap");
    writer.close().await.expect("closes the writer");
    store
        .set_audit_status(audit, store::AuditStatus::Finished, None)
        .await
        .expect("finishes the audit");
    audit
}

/// A store holding a synthetic site of about `n` URLs as a finished audit, for
/// benchmarks that read it back; `make` builds the site when it must be written.
///
/// With `$DUSTPAN_BENCH_DB` set to a file path, a finished audit already in that file
/// with `n` to `n + 15` URLs is reused (writing a million-URL audit takes minutes;
/// reading it back is what is measured), and a missing one is written there.
/// Otherwise the store lives in `dir`. Returns the store, the audit and the seconds
/// spent writing (`None` when reused).
pub async fn stored(
    dir: &std::path::Path,
    n: usize,
    make: impl FnOnce() -> AuditInput,
) -> (store::Store, store::AuditId, Option<f64>) {
    let path = std::env::var_os("DUSTPAN_BENCH_DB")
        .map_or_else(|| dir.join("bench.sqlite"), std::path::PathBuf::from);
    let store = store::Store::open(&path).await.expect("opens the store");
    let existing = store.list_audits().await.expect("lists audits");
    let fits = |a: &&store::Audit| {
        a.status == store::AuditStatus::Finished
            && (n as u64..n as u64 + 16).contains(&a.urls_found)
    };
    if let Some(a) = existing.iter().find(fits) {
        return (store, a.id, None);
    }
    let input = make();
    let t = std::time::Instant::now();
    let id = write(&store, &input).await;
    (store, id, Some(t.elapsed().as_secs_f64()))
}
