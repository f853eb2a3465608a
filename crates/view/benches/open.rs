//! Speed of the desktop app's reads over a generated audit of 100,000 URLs written into
//! a real SQLite file through the store's writer: opening it (load + analyse +
//! overview), the first page of the pages table, a page sorted by a column, a page with a
//! search. `cargo bench -p view` prints one-shot figures of a cold open first (what the
//! user waits for), then criterion's. `DUSTPAN_BENCH_URLS=N` changes the size.

use audit::{
    AuditInput, CanonicalRow, DeclarationSource, FetchRow, FoundVia, HopKind, LinkRow, RedirectRow,
    SitemapEntryRow, SitemapRow, UrlRow, UrlState,
};
use criterion::Criterion;
use std::collections::HashMap;
use std::hint::black_box;
use std::time::Instant;
use view::{AnalysisPolicy, OpenAudit, SortSpec, TableName, TableQuery};

/// xorshift64*: the same site on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One synthetic URL, before ids are given.
#[derive(Clone)]
struct Node {
    url: String,
    status: u16,
    text: Option<u64>,
    redirect: Option<usize>,
    canonical: Option<usize>,
    in_sitemap: bool,
    links: Vec<usize>,
}

fn node(url: String, status: u16, text: Option<u64>) -> Node {
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
fn site(n: usize, rng: &mut Rng) -> Vec<Node> {
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

/// The nodes as an audit's rows, node `i` getting id `ids[i]`.
fn input(nodes: &[Node], ids: &[u32]) -> AuditInput {
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
        let host = n.url.split('/').nth(2).unwrap_or_default();
        input.urls.push(UrlRow {
            id,
            url: n.url.clone(),
            url_rfc3986: n.url.clone(),
            url_seo: None,
            host: host.to_owned(),
            depth: 1,
            found_via: FoundVia::Link,
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

/// Writes an audit's rows into the store through its writer; returns the audit's id.
async fn write(store: &store::Store, input: &AuditInput) -> store::AuditId {
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
            host: u.host.clone(),
            depth: u.depth,
            redirect_depth: 0,
            found_from: None,
            found_via: store::FoundVia::Link,
            state: store::UrlState::Queued,
            reason: None,
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
            content_type: f.content_type.clone(),
            redirect_to: f.redirect_to.map(i64::from),
            text_hash: f.text_hash,
            simhash: f.simhash,
            word_count: f.word_count,
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

fn size() -> usize {
    std::env::var("DUSTPAN_BENCH_URLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

fn query(table: TableName, sort: Option<(&str, bool)>, search: Option<&str>) -> TableQuery {
    TableQuery {
        table,
        sort: sort.map(|(c, d)| SortSpec {
            column: c.into(),
            descending: d,
        }),
        search: search.map(str::to_owned),
        filters: vec![],
        offset: 0,
        limit: 200,
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let n = size();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let nodes = site(n, &mut rng);
    let ids: Vec<u32> = (1..=nodes.len() as u32).collect();
    let data = input(&nodes, &ids);
    drop(nodes);
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("bench.sqlite");
    let store = rt
        .block_on(store::Store::open(&path))
        .expect("opens the store");
    let t = Instant::now();
    let id = rt.block_on(write(&store, &data)).0;
    println!(
        "wrote an audit of {} URLs, {} links in {:.1} s",
        data.urls.len(),
        data.links.len(),
        t.elapsed().as_secs_f64()
    );
    drop(data);
    let policy = AnalysisPolicy::default();

    // One-shot figures: what a user waits for on a cold open, step by step.
    {
        let a = store::AuditId(id);
        let s = &store;
        macro_rules! timed {
            ($name:literal, $read:expr) => {{
                let t = Instant::now();
                let n = rt.block_on($read).expect($name).len();
                println!("  {}: {n} rows in {:.0} ms", $name, ms(t));
            }};
        }
        timed!("urls", s.urls(a));
        timed!("all_fetches", s.all_fetches(a));
        timed!("all_redirects", s.all_redirects(a));
        timed!("all_canonicals", s.all_canonicals(a));
        timed!("all_link_edges", s.all_link_edges(a));
        timed!("all_sitemap_entries", s.all_sitemap_entries(a));
    }
    let t = Instant::now();
    let rows = rt
        .block_on(audit::load(&store, store::AuditId(id)))
        .expect("loads the audit");
    println!("load from SQLite: {:.0} ms", ms(t));
    let t = Instant::now();
    let analysis = audit::analyse(
        &rows,
        &audit::AnalysisConfig::with_policy(policy.policy.clone()),
    );
    println!("analyse: {:.0} ms", ms(t));
    let row = rt
        .block_on(store.audit(store::AuditId(id)))
        .expect("the audit row");
    let t = Instant::now();
    drop(OpenAudit::from_parts(
        row,
        rows,
        analysis,
        policy.name.clone(),
    ));
    println!("overview: {:.0} ms", ms(t));
    let t = Instant::now();
    let open = rt
        .block_on(OpenAudit::open(&store, id, &policy))
        .expect("opens the audit");
    println!("open (load + analyse + overview): {:.0} ms", ms(t));
    let t = Instant::now();
    let page = open
        .query_table(&query(TableName::Pages, None, None))
        .expect("a page");
    println!(
        "first page of pages (builds the table, {} rows): {:.0} ms",
        page.total,
        ms(t)
    );
    let t = Instant::now();
    open.query_table(&query(TableName::Pages, Some(("title1", true)), None))
        .expect("a page");
    println!("first sort by Title 1: {:.0} ms", ms(t));
    let t = Instant::now();
    open.query_table(&query(TableName::Pages, None, Some("item-77")))
        .expect("a page");
    println!("first search (builds the search text): {:.0} ms", ms(t));
    for name in TableName::ALL {
        let t = Instant::now();
        let p = open.query_table(&query(name, None, None)).expect("a page");
        println!(
            "  first page of {name:?} ({} rows): {:.0} ms",
            p.total,
            ms(t)
        );
    }

    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("view");
    g.sample_size(10);
    g.bench_function("open 100k (load + analyse + overview)", |b| {
        b.iter(|| {
            black_box(
                rt.block_on(OpenAudit::open(&store, id, &policy))
                    .expect("opens"),
            )
        })
    });
    g.finish();
    let mut g = c.benchmark_group("view pages table");
    g.bench_function("page of 200", |b| {
        let q = query(TableName::Pages, None, None);
        b.iter(|| black_box(open.query_table(&q).expect("a page")))
    });
    g.bench_function("page of 200 at offset 50,000", |b| {
        let mut q = query(TableName::Pages, Some(("statusCode", false)), None);
        q.offset = 50_000;
        b.iter(|| black_box(open.query_table(&q).expect("a page")))
    });
    g.bench_function("sorted by title, descending", |b| {
        let q = query(TableName::Pages, Some(("title1", true)), None);
        b.iter(|| black_box(open.query_table(&q).expect("a page")))
    });
    g.bench_function("sorted by address, searched", |b| {
        let q = query(TableName::Pages, Some(("address", false)), Some("item-77"));
        b.iter(|| black_box(open.query_table(&q).expect("a page")))
    });
    g.bench_function("cluster detail", |b| {
        b.iter(|| black_box(open.cluster_detail(0).expect("a cluster")))
    });
    g.finish();
    c.final_summary();
}
