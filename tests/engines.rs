//! `dustpan analyse --engine datafusion` on the fixture audit: the DataFusion plans give
//! the built-in analysis's clusters and preferred URLs, URL by URL. A test binary of its
//! own, built only with `--features dataflow`, so the default build and the
//! `integration` binary do not carry the engine.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[allow(dead_code)]
mod util;

use std::collections::BTreeMap;
use std::path::Path;
use util::{dustpan, read_csv};

/// The fixture audit (`dustpan demo`) in a fresh database.
fn fixture_audit(dir: &Path) -> String {
    let db = dir.join("audit.sqlite");
    let db = db.to_str().unwrap().to_owned();
    let demo = dustpan(&["demo", "--db", &db, "-q", "--slow-ms", "200"], "");
    assert_eq!(demo.code, 0, "{}", demo.stderr);
    db
}

/// `dustpan analyse 1 --db DB --engine ENGINE` with the Parquet files and the members
/// file in `dir`, and `extra` arguments: the members (see [`members`]) and what it
/// printed. Fails the test when the command fails.
fn analyse(
    db: &str,
    dir: &Path,
    engine: &str,
    extra: &[&str],
) -> (BTreeMap<String, (String, String)>, String) {
    let file = dir.join(format!("{engine}.csv"));
    let parquet = dir.join("parquet");
    let mut args = vec![
        "analyse",
        "1",
        "--db",
        db,
        "--engine",
        engine,
        "--parquet",
        parquet.to_str().unwrap(),
        "--members",
        file.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = dustpan(&args, "");
    assert_eq!(out.code, 0, "{engine}: {}", out.stderr);
    (members(&file), out.stdout)
}

/// `url -> (preferred_url, evidence)` from an `analyse --members` file.
fn members(path: &Path) -> BTreeMap<String, (String, String)> {
    read_csv(path)
        .into_iter()
        .map(|r| {
            (
                r["url"].clone(),
                (r["preferred_url"].clone(), r["evidence"].clone()),
            )
        })
        .collect()
}

/// The built-in analysis's and the DataFusion plans' clusters of the fixture, URL by
/// URL: every clustered URL, and its cluster's preferred URL.
#[test]
fn datafusion_clusters_the_fixture_as_the_builtin_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let db = fixture_audit(dir.path());
    let (builtin, b_out) = analyse(&db, dir.path(), "builtin", &[]);
    let (planned, p_out) = analyse(&db, dir.path(), "datafusion", &["--memory-mib", "64"]);
    assert!(builtin.len() > 100, "{b_out}");
    // The one kind of evidence the files cannot reproduce: a canonical whose page and
    // target have near-identical main content (the analysis compares their shingles,
    // which the files do not hold). Those clusters are left out, and only those.
    let near: std::collections::BTreeSet<&String> = builtin
        .values()
        .filter(|(_, e)| e.split(';').any(|k| k == "canonical_near"))
        .map(|(p, _)| p)
        .collect();
    let compared = |m: &BTreeMap<String, (String, String)>| -> BTreeMap<String, String> {
        m.iter()
            .filter(|(u, (p, _))| {
                !near.contains(p) && !builtin.get(*u).is_some_and(|(bp, _)| near.contains(bp))
            })
            .map(|(u, (p, _))| (u.clone(), p.clone()))
            .collect()
    };
    let (b, p) = (compared(&builtin), compared(&planned));
    let differ: Vec<String> = b
        .keys()
        .chain(p.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|u| b.get(*u) != p.get(*u))
        .map(|u| format!("{u}: builtin {:?}, datafusion {:?}", b.get(u), p.get(u)))
        .collect();
    assert!(
        differ.is_empty(),
        "{} of {} URLs differ:\n{}\n{b_out}\n{p_out}",
        differ.len(),
        b.len(),
        differ.join("\n")
    );
    // Nearly every cluster is compared.
    assert!(
        b.len() * 10 >= builtin.len() * 8,
        "{} of {}",
        b.len(),
        builtin.len()
    );
    // The plans place no URL of a left-out cluster anywhere else.
    for (u, (pp, _)) in &planned {
        if let Some((bp, _)) = builtin.get(u) {
            assert!(!near.contains(bp) || near.contains(pp), "{u}");
        }
    }
}

/// An audit without a cluster (one page): the plans write no members file, and the
/// engine answers no clustered URL, as the built-in analysis does, instead of failing to
/// read a table that has no file.
#[test]
fn datafusion_answers_an_audit_without_clusters() {
    let site = util::Site::quiet();
    site.audit("https://example.test/", &["-q", "--max-urls", "1"]);
    let db = util::path(&site.db);
    let dir = tempfile::tempdir().unwrap();
    for engine in ["builtin", "datafusion"] {
        let (clustered, out) = analyse(&db, dir.path(), engine, &["--memory-mib", "64"]);
        assert!(out.contains("clusters        0\n"), "{engine}: {out}");
        assert!(out.contains("clustered urls  0\n"), "{engine}: {out}");
        assert!(clustered.is_empty(), "{engine}");
    }
}
