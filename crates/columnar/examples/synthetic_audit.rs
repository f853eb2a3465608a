//! Writes a synthetic audit of about N URLs (the benchmarks' generated site: redirects,
//! www and tracking-parameter duplicates with canonicals, near duplicates, 404s, links)
//! into a store, for `scripts/bench-analysis.sh`:
//!
//! ```text
//! cargo run --release -p columnar --example synthetic_audit -- 100000 audits.sqlite
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: synthetic_audit URLS DB";
    let n: usize = args.next().expect(usage).parse().expect(usage);
    let db = std::path::PathBuf::from(args.next().expect(usage));
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = store::Store::open(&db).await.unwrap();
        let mut rng = synthetic::Rng(7);
        let nodes = synthetic::site(n, &mut rng);
        let ids = synthetic::ids(nodes.len(), None);
        let input = synthetic::input(&nodes, &ids);
        let id = synthetic::write(&store, &input).await;
        println!(
            "audit {} with {} URLs in {}",
            id.0,
            input.urls.len(),
            db.display()
        );
        store.close().await;
    });
}
