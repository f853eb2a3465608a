//! Speed of the desktop app's reads over a generated audit of 100,000 URLs written into
//! a real SQLite file through the store's writer: opening it (load + analyse +
//! overview), the first page of the pages table, a page sorted by a column, a page with a
//! search, pages with column filters (numbers, text, a regular expression), the filtered
//! view written as CSV. `cargo bench -p view` prints one-shot figures of a cold open first (what the
//! user waits for), then criterion's. `DUSTPAN_BENCH_URLS=N` changes the size;
//! `DUSTPAN_BENCH_DB=FILE` keeps the written audit in FILE and reuses it next time (a
//! finished audit of that many URLs, up to 15 more, is opened as it is: one
//! `BENCH_KEEP_DB` of `scripts/bench-crawl.sh` kept, with `DUSTPAN_BENCH_URLS` its URL count);
//! `DUSTPAN_BENCH_SUMMARY=1` prints only the one-shot figures and the peak RSS.

use criterion::Criterion;
use std::hint::black_box;
use std::time::Instant;
use synthetic::{Rng, input, site, size, stored};
use view::{
    AnalysisPolicy, ColumnFilter, FilterOp, OpenAudit, SortSpec, TableName, TableQuery, ViewQuery,
};

/// The app's allocator, so the figures are the app's.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

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

fn filtered(filters: Vec<ColumnFilter>, sort: Option<(&str, bool)>) -> TableQuery {
    let mut q = query(TableName::Pages, sort, None);
    q.filters = filters;
    q
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let n = size();
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (store, id, secs) = rt.block_on(stored(dir.path(), n, || {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let nodes = site(n, &mut rng);
        let ids: Vec<u32> = (1..=nodes.len() as u32).collect();
        input(&nodes, &ids)
    }));
    let id = id.0;
    let audit = rt
        .block_on(store.audit(store::AuditId(id)))
        .expect("the audit");
    println!(
        "an audit of {} URLs ({})",
        audit.urls_found,
        secs.map_or_else(
            || "reused from $DUSTPAN_BENCH_DB".to_owned(),
            |s| format!("written in {s:.1} s")
        ),
    );
    let policy = AnalysisPolicy::default();
    let open = cold_open(&rt, &store, id, &policy);
    first_queries(&open);
    if let Some(kib) = peak_rss_kib() {
        println!("peak RSS so far: {:.1} MiB", kib as f64 / 1024.0);
    }
    if std::env::var_os("DUSTPAN_BENCH_SUMMARY").is_none() {
        criterion_figures(&rt, &store, id, &policy, &open);
    }
}

/// A field of /proc/self/status in KiB (`VmRSS`, `VmHWM`), where /proc has it.
fn status_kib(field: &str) -> Option<u64> {
    std::fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// The process's peak resident size (`VmHWM`), where /proc has it.
fn peak_rss_kib() -> Option<u64> {
    status_kib("VmHWM")
}

/// The process's CPU seconds so far (user + system, from /proc/self/stat), where /proc
/// has them: on a shared machine a step's CPU says more than its wall time.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    // utime and stime are the 14th and 15th fields, in clock ticks (100 a second on Linux).
    Some((ticks(11)? + ticks(12)?) / 100.0)
}

/// The CPU used so far, the resident size now and the peak so far, for each step's
/// line: what each step costs, and which step sets the peak.
fn memory() -> String {
    let cpu = cpu_seconds().map_or_else(String::new, |s| format!("CPU {s:.1} s, "));
    match (status_kib("VmRSS"), peak_rss_kib()) {
        (Some(now), Some(peak)) => format!(
            "{cpu}RSS {:.0} MiB, peak {:.0} MiB",
            now as f64 / 1024.0,
            peak as f64 / 1024.0
        ),
        _ => format!("{cpu}RSS unknown"),
    }
}

/// Prints a step's figure with the memory it left.
macro_rules! say {
    ($($arg:tt)*) => {
        println!("{}  [{}]", format_args!($($arg)*), memory())
    };
}

/// One-shot figures of a cold open, what a user waits for, step by step: the store's
/// scans, the load, the analysis, the overview, the open as a whole and the overview a
/// later open shows at once. Returns the opened audit.
fn cold_open(
    rt: &tokio::runtime::Runtime,
    store: &store::Store,
    id: i64,
    policy: &AnalysisPolicy,
) -> OpenAudit {
    {
        let a = store::AuditId(id);
        let s = store;
        macro_rules! timed {
            ($name:literal, $scan:ident) => {{
                let t = Instant::now();
                let mut n = 0usize;
                rt.block_on(s.$scan(a, |_| n += 1)).expect($name);
                say!("  {}: {n} rows in {:.0} ms", $name, ms(t));
            }};
        }
        timed!("urls", scan_urls);
        timed!("fetches", scan_fetches);
        timed!("redirects", scan_redirects);
        timed!("canonicals", scan_canonicals);
        timed!("links", scan_links);
        timed!("sitemap entries", scan_sitemap_entries);
    }
    let t = Instant::now();
    let rows = rt
        .block_on(load::load(store, store::AuditId(id)))
        .expect("loads the audit");
    say!("load from SQLite: {:.0} ms", ms(t));
    let t = Instant::now();
    let analysis = audit::analyse(
        &rows,
        &audit::AnalysisConfig::with_policy(policy.policy.clone()),
    );
    say!("analyse: {:.0} ms", ms(t));
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
    say!("overview: {:.0} ms", ms(t));
    let t = Instant::now();
    let open = rt
        .block_on(OpenAudit::open(store, id, policy))
        .expect("opens the audit");
    say!("open (load + analyse + overview): {:.0} ms", ms(t));
    // The open above stored its overview: what a later cold open (say after the app
    // restarted) shows while the analysis is rebuilt in the background.
    let t = Instant::now();
    let stored = rt
        .block_on(OpenAudit::stored_overview(store, id, policy))
        .expect("reads the stored overview");
    assert_eq!(stored.as_ref(), Some(open.overview()));
    say!(
        "overview of a cold open (stored by the last analysis): {:.1} ms",
        ms(t)
    );
    open
}

/// One-shot figures of the first queries on the opened audit: the first page of the
/// pages table, a sort, a search, filters, the filtered view as CSV, the first page of
/// every table.
fn first_queries(open: &OpenAudit) {
    let t = Instant::now();
    let page = open
        .query_table(&query(TableName::Pages, None, None))
        .expect("a page");
    say!(
        "first page of pages (builds the table, {} rows): {:.0} ms",
        page.total,
        ms(t)
    );
    let t = Instant::now();
    open.query_table(&query(TableName::Pages, Some(("title_1", true)), None))
        .expect("a page");
    say!("first sort by Title 1: {:.0} ms", ms(t));
    let t = Instant::now();
    open.query_table(&query(TableName::Pages, None, Some("item-77")))
        .expect("a page");
    say!("first search (builds the search text): {:.0} ms", ms(t));
    let t = Instant::now();
    let page = open
        .query_table(&filtered(vec![address_contains()], None))
        .expect("a page");
    say!(
        "first filter on Address (lower-cases the column), {} matched: {:.0} ms",
        page.matched,
        ms(t)
    );
    let t = Instant::now();
    let page = open
        .query_table(&filtered(
            vec![ColumnFilter::new("address", FilterOp::Regex, r"item-\d*7$")],
            None,
        ))
        .expect("a page");
    say!(
        "a regular expression on Address, {} matched: {:.0} ms",
        page.matched,
        ms(t)
    );
    let everything = ViewQuery {
        table: TableName::Pages,
        sort: Some(SortSpec {
            column: "address".into(),
            descending: false,
        }),
        search: None,
        filters: vec![ColumnFilter::new("status_code", FilterOp::Ge, "0")],
    };
    let t = Instant::now();
    let rows = open
        .table(TableName::Pages)
        .write_csv_to(&everything, std::io::sink())
        .expect("written");
    say!(
        "the filtered view as CSV ({rows} rows, to nowhere): {:.0} ms",
        ms(t)
    );
    for name in TableName::ALL {
        let t = Instant::now();
        let p = open.query_table(&query(name, None, None)).expect("a page");
        say!(
            "  first page of {name:?} ({} rows): {:.0} ms",
            p.total,
            ms(t)
        );
    }
}

/// Criterion's figures: the open, and pages of the pages table sorted, searched and
/// filtered.
fn criterion_figures(
    rt: &tokio::runtime::Runtime,
    store: &store::Store,
    id: i64,
    policy: &AnalysisPolicy,
    open: &OpenAudit,
) {
    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("view");
    g.sample_size(10);
    g.bench_function("open 100k (load + analyse + overview)", |b| {
        b.iter(|| {
            black_box(
                rt.block_on(OpenAudit::open(store, id, policy))
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
        let mut q = query(TableName::Pages, Some(("status_code", false)), None);
        q.offset = 50_000;
        b.iter(|| black_box(open.query_table(&q).expect("a page")))
    });
    g.bench_function("sorted by title, descending", |b| {
        let q = query(TableName::Pages, Some(("title_1", true)), None);
        b.iter(|| black_box(open.query_table(&q).expect("a page")))
    });
    g.bench_function("sorted by address, searched", |b| {
        let q = query(TableName::Pages, Some(("address", false)), Some("item-77"));
        b.iter(|| black_box(open.query_table(&q).expect("a page")))
    });
    g.bench_function("filtered: Status Code ≥ 300", |b| {
        let q = filtered(
            vec![ColumnFilter::new("status_code", FilterOp::Ge, "300")],
            None,
        );
        b.iter(|| black_box(open.query_table(&q).expect("a page")))
    });
    g.bench_function("filtered: Address contains", |b| {
        let q = filtered(vec![address_contains()], None);
        b.iter(|| black_box(open.query_table(&q).expect("a page")))
    });
    g.bench_function("filtered: Address matches a regular expression", |b| {
        let q = filtered(
            vec![ColumnFilter::new("address", FilterOp::Regex, r"item-\d*7$")],
            None,
        );
        b.iter(|| black_box(open.query_table(&q).expect("a page")))
    });
    g.bench_function("filtered: three filters, sorted by Title 1", |b| {
        let q = filtered(
            vec![
                ColumnFilter::between("status_code", "200", "299"),
                ColumnFilter::new("address", FilterOp::NotContains, "?"),
                ColumnFilter::new("title_1", FilterOp::StartsWith, "item"),
            ],
            Some(("title_1", false)),
        );
        b.iter(|| black_box(open.query_table(&q).expect("a page")))
    });
    g.bench_function("cluster detail", |b| {
        b.iter(|| black_box(open.cluster_detail(0).expect("a cluster")))
    });
    g.finish();
    c.final_summary();
}

/// The filter on Address the queries share.
fn address_contains() -> ColumnFilter {
    ColumnFilter::new("address", FilterOp::Contains, "ITEM-7")
}
