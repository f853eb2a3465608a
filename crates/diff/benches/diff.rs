//! Time of `diff::diff` on two synthetic audits of 100,000 URLs, the second the first
//! with a few percent of changes (pages gone, new pages, status and canonical changes)
//! and every URL id renumbered, as another crawl order gives.
//!
//! `cargo bench -p diff` prints criterion's figures for the diff alone, then one timed
//! end-to-end run: both audits written into a real SQLite file through the store's writer,
//! then loaded back (`audit::load`), analysed, diffed, and one of them deleted
//! (`Store::delete_audit`). `DUSTPAN_BENCH_SUMMARY=1` runs only the end-to-end figures;
//! `DUSTPAN_BENCH_URLS=N` changes the size.

use audit::{AnalysisConfig, AuditInput, analyse};
use criterion::{BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};
use synthetic::{Rng, ids, input, later, site, size, write};

/// The two audits: (old, new).
fn audits(n: usize) -> (AuditInput, AuditInput) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let old = site(n, &mut rng);
    let new = later(&old, &mut rng);
    let old_ids = ids(old.len(), None);
    let new_ids = ids(new.len(), Some(&mut rng));
    (input(&old, &old_ids), input(&new, &new_ids))
}

fn bench(c: &mut Criterion) {
    let n = size();
    let (a, b) = audits(n);
    let cfg = AnalysisConfig::default();
    let (x, y) = (analyse(&a, &cfg), analyse(&b, &cfg));
    let mut group = c.benchmark_group("diff");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements((a.urls.len() + b.urls.len()) as u64));
    group.bench_with_input(BenchmarkId::from_parameter(n), &(), |bench, _| {
        bench.iter(|| black_box(diff::diff((black_box(&a), &x), (black_box(&b), &y))));
    });
    group.finish();
}

/// One end-to-end run through a real SQLite file (`DUSTPAN_BENCH_DB=FILE` keeps it, and
/// reuses the two audits in it on the next run).
fn summary() {
    let n = size();
    let (a, b) = audits(n);
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = std::env::var_os("DUSTPAN_BENCH_DB")
        .map_or_else(|| dir.path().join("bench.sqlite"), std::path::PathBuf::from);
    rt.block_on(async {
        let store = store::Store::open(&path).await.expect("opens the store");
        let stored = store.list_audits().await.expect("lists audits");
        let (old, new) = if let [newer, older, ..] = stored.as_slice() {
            println!(
                "\nreusing audits {} and {} of {}",
                older.id,
                newer.id,
                path.display()
            );
            (older.id, newer.id)
        } else {
            let t = Instant::now();
            let (old, new) = (write(&store, &a).await, write(&store, &b).await);
            println!(
                "\nwrote two audits ({} and {} URLs, {} and {} links) in {:.1} s",
                a.urls.len(),
                b.urls.len(),
                a.links.len(),
                b.links.len(),
                t.elapsed().as_secs_f64()
            );
            (old, new)
        };
        drop((a, b));
        let cfg = AnalysisConfig::default();
        let start = Instant::now();
        let (x, y) = tokio::try_join!(load::load(&store, old), load::load(&store, new))
            .expect("loads both audits");
        let loaded = start.elapsed();
        let (ax, ay) = std::thread::scope(|s| {
            let hx = s.spawn(|| analyse(&x, &cfg));
            let ay = analyse(&y, &cfg);
            (hx.join().expect("analysis thread"), ay)
        });
        let analysed = start.elapsed();
        let d = diff::diff((&x, &ax), (&y, &ay));
        let total = start.elapsed();
        println!(
            "load both {:.2} s, analyse both (2 threads) {:.2} s, diff {:.3} s: end to end {:.2} s",
            loaded.as_secs_f64(),
            (analysed - loaded).as_secs_f64(),
            (total - analysed).as_secs_f64(),
            total.as_secs_f64()
        );
        for (label, count) in d.summary() {
            println!("  {count:>8}  {label}");
        }
        if std::env::var_os("DUSTPAN_BENCH_DB").is_none() {
            let t = Instant::now();
            let rows = store.delete_audit(old).await.expect("deletes the audit");
            println!(
                "delete_audit: {rows} rows in {:.2} s",
                t.elapsed().as_secs_f64()
            );
        }
        store.close().await;
    });
}

fn main() {
    if std::env::var_os("DUSTPAN_BENCH_SUMMARY").is_none() {
        let mut c = Criterion::default().configure_from_args();
        bench(&mut c);
        c.final_summary();
    }
    if std::env::var_os("DUSTPAN_BENCH_SUMMARY").is_some()
        || std::env::args().any(|a| a == "--bench")
    {
        summary();
    }
}
