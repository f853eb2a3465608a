//! Time and growth of `audit::analyse` on synthetic crawls of 10k and 100k URLs, and
//! 1M URLs when `DUSTPAN_BENCH_1M=1` is set.
//!
//! `cargo bench -p audit` prints criterion's figures, then one timed run per size with
//! the resident memory before the analysis (the input built) and its peak during the
//! analysis (Linux only), and the growth factor against the previous size. With
//! `DUSTPAN_BENCH_SUMMARY=1` only the timed runs are made, in a fresh process, which
//! gives the cleanest memory figures:
//!
//! ```text
//! DUSTPAN_BENCH_SUMMARY=1 DUSTPAN_BENCH_1M=1 cargo bench -p audit --bench analyse
//! ```
//!
//! With `DUSTPAN_BENCH_STORE=1` the summary reads each site from a real SQLite store
//! instead (written there first through the store's writer; `DUSTPAN_BENCH_DB=FILE`
//! keeps it for the next run): load + analyse, as `dustpan report` does, each size in
//! a fresh process so that the peak memory is the load's and the analysis's alone:
//!
//! ```text
//! DUSTPAN_BENCH_SUMMARY=1 DUSTPAN_BENCH_STORE=1 DUSTPAN_BENCH_1M=1 cargo bench -p audit --bench analyse
//! ```
//!
//! The synthetic site mixes what a crawl meets: self-canonical pages linked five times
//! each and listed in a sitemap, http→https and www redirects, www duplicates answering
//! 200, tracking-parameter variants with and without canonicals, near duplicates,
//! `story?id=N` / `story_N` pairs, an irrelevant `ref` parameter, 404s, two-hop chains
//! and skipped trap URLs.

use audit::{
    AnalysisConfig, AuditInput, CanonicalRow, DeclarationSource, FetchRow, FoundVia, HopKind,
    LinkRow, RedirectRow, SitemapEntryRow, SitemapRow, UrlRow, UrlState, analyse,
};
use criterion::{BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};

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

struct Gen {
    input: AuditInput,
    rng: Rng,
    pages: Vec<u32>,
}

impl Gen {
    fn url(&mut self, url: String, state: UrlState, reason: Option<&str>) -> u32 {
        let id = self.input.urls.len() as u32 + 1;
        self.input.urls.push(UrlRow {
            id,
            url_rfc3986: url.clone(),
            url,
            depth: 2,
            found_via: FoundVia::Link,
            found_from: None,
            state,
            reason: reason.map(|r| r.parse().expect("a skip reason")),
        });
        id
    }

    fn fetch(&mut self, id: u32, status: u16, text: Option<(u64, u64)>) {
        self.input.fetches.push(FetchRow {
            url_id: id,
            status: Some(status),
            content_type: Some("text/html".into()),
            text_hash: text.map(|t| t.0),
            simhash: text.map(|t| t.1),
            word_count: Some(if text.is_some() { 400 } else { 0 }),
            // Text blocks as the extractor stores them (a shared template and four
            // main-content blocks), so the main-content path is measured too.
            blocks: text.map(|t| synthetic::text_blocks(t.1).into()),
            ..FetchRow::default()
        });
    }

    fn page(&mut self, url: String, text: u64, simhash: u64) -> u32 {
        let id = self.url(url, UrlState::Done, None);
        self.fetch(id, 200, Some((text, simhash)));
        id
    }

    fn redirect(&mut self, from: u32, to: u32, status: u16) {
        self.fetch(from, status, None);
        self.input.redirects.push(RedirectRow {
            from,
            to: Some(to),
            status,
            kind: HopKind::Http,
            hop_index: 0,
        });
    }

    fn canonical(&mut self, page: u32, target: u32, href: &str) {
        self.input.canonicals.push(CanonicalRow {
            page,
            position: 0,
            target: Some(target),
            href_raw: href.to_owned(),
            source: DeclarationSource::LinkElement,
            in_head: true,
        });
    }
}

/// A synthetic crawl of about `n` URLs.
fn site(n: usize) -> AuditInput {
    let mut g = Gen {
        input: AuditInput::default(),
        rng: Rng(0x9E37_79B9_7F4A_7C15),
        pages: Vec::new(),
    };
    g.input.sitemaps.push(SitemapRow {
        id: 1,
        url: "https://example.com/sitemap.xml".into(),
        kind: "urlset".into(),
        status: Some(200),
        ..SitemapRow::default()
    });
    let host = "example.com";
    let mut k = 0u64;
    while g.input.urls.len() < n {
        k += 1;
        let path = format!("/c{}/item-{k}", k % 97);
        let url = format!("https://{host}{path}");
        let (text, sim) = (k.wrapping_mul(0x9E37_79B9_7F4A_7C15), g.rng.next());
        let p = g.page(url.clone(), text, sim);
        g.canonical(p, p, &url);
        g.pages.push(p);
        g.input.sitemap_entries.push(SitemapEntryRow {
            sitemap_id: 1,
            url_id: Some(p),
            loc_raw: url.clone(),
        });
        match g.rng.below(100) {
            0..=9 => {
                let h = g.url(format!("http://{host}{path}"), UrlState::Done, None);
                g.redirect(h, p, 301);
            }
            10..=14 => {
                g.page(format!("https://www.{host}{path}"), text, sim);
            }
            15..=19 => {
                let v = g.page(format!("{url}?utm_source=news{}", k % 7), text, sim);
                if k.is_multiple_of(2) {
                    g.canonical(v, p, &url);
                }
            }
            20..=22 => {
                g.page(format!("https://{host}/near{path}"), text ^ 1, sim ^ 1);
            }
            23..=24 => {
                let s = k.wrapping_mul(31);
                g.page(format!("https://{host}/story?id={k}"), s, sim ^ 0xFF00);
                g.page(format!("https://{host}/story_{k}"), s, sim ^ 0xFF00);
            }
            25..=26 => {
                g.page(
                    format!("https://{host}/p/{k}?ref=home"),
                    text ^ 2,
                    sim ^ 0xF0,
                );
                g.page(format!("https://{host}/p/{k}"), text ^ 2, sim ^ 0xF0);
            }
            27 => {
                let e = g.url(format!("https://{host}/gone-{k}"), UrlState::Done, None);
                g.fetch(e, 404, None);
                let from = g.pages[g.rng.below(g.pages.len() as u64) as usize];
                g.input.links.push(LinkRow {
                    from,
                    to: Some(e),
                    ..LinkRow::default()
                });
            }
            28 => {
                let a = g.url(format!("https://{host}/old-{k}"), UrlState::Done, None);
                let b = g.url(format!("https://{host}/older-{k}"), UrlState::Done, None);
                g.redirect(a, b, 301);
                g.redirect(b, p, 301);
            }
            29 => {
                g.url(
                    format!("https://{host}/cal/{}/{k}", k % 12),
                    UrlState::Skipped,
                    Some("trap: over 1000 URLs like /cal/#/#"),
                );
            }
            _ => {}
        }
    }
    // Five internal links into every page.
    let pages = g.pages.clone();
    for &to in &pages {
        for _ in 0..5 {
            let from = pages[g.rng.below(pages.len() as u64) as usize];
            g.input.links.push(LinkRow {
                from,
                to: Some(to),
                ..LinkRow::default()
            });
        }
    }
    g.input
}

/// Resets the peak resident set size (Linux), so the next reading covers what follows.
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Peak resident set size in MiB (Linux), if known.
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn sizes() -> Vec<usize> {
    let mut sizes = vec![10_000, 100_000];
    if std::env::var_os("DUSTPAN_BENCH_1M").is_some() {
        sizes.push(1_000_000);
    }
    sizes
}

fn bench(c: &mut Criterion) {
    let cfg = AnalysisConfig::default();
    let mut group = c.benchmark_group("analyse");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for n in sizes() {
        let input = site(n);
        group.throughput(Throughput::Elements(input.urls.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &input, |b, input| {
            b.iter(|| black_box(analyse(black_box(input), &cfg)));
        });
    }
    group.finish();
}

/// Current resident set size in MiB (Linux), if known.
fn rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// One timed run per size: time, memory (resident before the analysis, with the input
/// built, and the peak during it), growth against the previous size.
fn summary() {
    let cfg = AnalysisConfig::default();
    println!(
        "\n{:>9} {:>9} {:>7} {:>9} {:>9} {:>9} {:>11} {:>10} {:>10}",
        "urls", "links", "secs", "urls/sec", "clusters", "findings", "growth", "rss before", "peak"
    );
    let mut previous: Option<(usize, f64)> = None;
    for n in sizes() {
        let input = site(n);
        let before = rss_mib();
        reset_peak();
        let start = Instant::now();
        let a = analyse(&input, &cfg);
        let secs = start.elapsed().as_secs_f64();
        let peak = peak_mib();
        let mib = |m: Option<f64>| m.map_or_else(|| "n/a".to_owned(), |m| format!("{m:.0} MiB"));
        let growth = previous.map_or_else(String::new, |(pn, ps)| {
            format!(
                "{:.1}x/{:.0}x",
                secs / ps,
                input.urls.len() as f64 / pn as f64
            )
        });
        println!(
            "{:>9} {:>9} {:>7.2} {:>9.0} {:>9} {:>9} {:>11} {:>10} {:>10}",
            input.urls.len(),
            input.links.len(),
            secs,
            input.urls.len() as f64 / secs,
            a.clusters.len(),
            a.findings.len(),
            growth,
            mib(before),
            mib(peak)
        );
        previous = Some((input.urls.len(), secs));
        if std::env::var_os("DUSTPAN_BENCH_IDS").is_some() {
            let mut by_id: std::collections::BTreeMap<&str, u32> =
                std::collections::BTreeMap::new();
            for f in &a.findings {
                *by_id.entry(f.id.code()).or_default() += 1;
            }
            println!("          findings by id: {by_id:?}");
        }
        drop(a);
    }
}

/// `DUSTPAN_BENCH_STORE=1`: load + analyse from a real store, one size per process.
fn store_summary() {
    if let Ok(n) = std::env::var("DUSTPAN_BENCH_ONE_SIZE") {
        let n: usize = n.parse().expect("a size");
        return store_run(n);
    }
    println!(
        "\n{:>9} {:>9} {:>7} {:>7} {:>7} {:>9} {:>9} {:>11} {:>10}",
        "urls", "links", "load s", "anal. s", "total s", "clusters", "findings", "urls/s", "peak"
    );
    let exe = std::env::current_exe().expect("the bench executable");
    for n in sizes() {
        // A fresh process per size: its peak is this size's load and analysis only.
        let status = std::process::Command::new(&exe)
            .args(std::env::args().skip(1))
            .env("DUSTPAN_BENCH_ONE_SIZE", n.to_string())
            .status()
            .expect("runs the bench for one size");
        assert!(status.success(), "the run for {n} URLs failed");
    }
}

/// One size of [`store_summary`], in this process.
fn store_run(n: usize) {
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (store, id, written) = rt.block_on(synthetic::stored(dir.path(), n, || site(n)));
    if written.is_some() {
        // The writer's memory stays with this process: measure in a fresh one.
        let db = std::env::var_os("DUSTPAN_BENCH_DB")
            .unwrap_or_else(|| dir.path().join("bench.sqlite").into_os_string());
        let exe = std::env::current_exe().expect("the bench executable");
        let status = std::process::Command::new(exe)
            .args(std::env::args().skip(1))
            .env("DUSTPAN_BENCH_DB", db)
            .status()
            .expect("re-runs the bench");
        assert!(status.success(), "the measuring run failed");
        return;
    }
    reset_peak();
    let start = Instant::now();
    let input = rt
        .block_on(load::load(&store, id))
        .expect("loads the audit");
    let load = start.elapsed().as_secs_f64();
    let a = analyse(&input, &AnalysisConfig::default());
    let total = start.elapsed().as_secs_f64();
    let mib = peak_mib().map_or_else(|| "n/a".to_owned(), |m| format!("{m:.0} MiB"));
    println!(
        "{:>9} {:>9} {:>7.2} {:>7.2} {:>7.2} {:>9} {:>9} {:>11} {:>10}",
        input.urls.len(),
        input.links.len(),
        load,
        total - load,
        total,
        a.clusters.len(),
        a.findings.len(),
        format!("{:.0}", input.urls.len() as f64 / total),
        mib
    );
}

fn main() {
    // `DUSTPAN_BENCH_SUMMARY=1`: only the timed runs, in a fresh process, so the memory
    // figures are not inflated by criterion's earlier iterations.
    let summary_only = std::env::var_os("DUSTPAN_BENCH_SUMMARY").is_some();
    if summary_only && std::env::var_os("DUSTPAN_BENCH_STORE").is_some() {
        return store_summary();
    }
    if !summary_only {
        let mut c = Criterion::default().configure_from_args();
        bench(&mut c);
        c.final_summary();
    }
    if summary_only || std::env::args().any(|a| a == "--bench") {
        summary();
    }
}
