//! No finding contradicts another on any fixture audit: the Before site and the After
//! site, each audited by `dustpan demo` and analysed as `dustpan report` does, then
//! checked with
//! `audit::consistency` (no orphan that links reach, no page both redirected and kept,
//! no sitemap entry added and removed, no canonical to a redirected URL, no preferred
//! URL redirected).

use crate::util::dustpan;
use std::path::Path;

fn contradictions(db: &Path) -> Vec<String> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = store::Store::open(db).await.unwrap();
        let mut out = Vec::new();
        for a in store.list_audits().await.unwrap() {
            let loaded = view::workflow::load(&store, a.id, canon::Policy::seo())
                .await
                .unwrap();
            let analysis = audit::analyse(&loaded.input, &loaded.config);
            assert!(
                !analysis.findings.is_empty(),
                "audit {} found nothing",
                a.id.0
            );
            out.extend(
                audit::consistency::contradictions(&loaded.input, &analysis)
                    .into_iter()
                    .map(|c| format!("audit {}: {c}", a.id.0)),
            );
        }
        store.close().await;
        out
    })
}

#[test]
fn no_finding_contradicts_another_on_the_fixture_before_and_after() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("consistency.sqlite");
    let db_arg = db.to_str().unwrap();
    for variant in [&[][..], &["--after"][..]] {
        let mut args = vec!["demo", "--db", db_arg, "-q", "--slow-ms", "100"];
        args.extend_from_slice(variant);
        let out = dustpan(&args, "");
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let found = contradictions(&db);
    assert!(found.is_empty(), "{}", found.join("\n"));
}
