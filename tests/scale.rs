//! `dustpan export --parquet` on the fixture audit: the Parquet files hold the audit's
//! rows and answer a real DuckDB query. The engines that read them are tested in
//! `tests/engines.rs`, built only with `--features dataflow`.

use crate::util::dustpan;
use std::path::Path;

/// The fixture audit (`dustpan demo`) in a fresh database.
fn fixture_audit(dir: &Path) -> String {
    let db = dir.join("audit.sqlite");
    let db = db.to_str().unwrap().to_owned();
    let demo = dustpan(&["demo", "--db", &db, "-q", "--slow-ms", "200"], "");
    assert_eq!(demo.code, 0, "{}", demo.stderr);
    db
}

#[test]
fn parquet_export_holds_the_audit_and_answers_duckdb() {
    let dir = tempfile::tempdir().unwrap();
    let db = fixture_audit(dir.path());
    let out = dir.path().join("parquet");
    let out_s = out.to_str().unwrap();
    let export = dustpan(&["export", "1", "--db", &db, "--parquet", out_s], "");
    assert_eq!(export.code, 0, "{}", export.stderr);
    let rows = |table: &str| -> u64 {
        let line = export
            .stdout
            .lines()
            .find(|l| l.ends_with(&format!("/{table}.parquet")))
            .unwrap_or_else(|| panic!("{table} not written: {}", export.stdout));
        line.split_whitespace().next().unwrap().parse().unwrap()
    };
    for table in columnar::TABLES {
        assert!(out.join(format!("{}.parquet", table.name)).is_file());
    }
    // Every table the analysis reads has rows on the fixture.
    for table in [
        "urls",
        "fetches",
        "links",
        "canonicals",
        "redirects",
        "sitemap_entries",
        "probes",
        "content",
    ] {
        assert!(rows(table) > 0, "{table} is empty: {}", export.stdout);
    }

    // Parquet and the CSV report in one export (one analysis for both): the same Parquet
    // rows as alone, and the report's files.
    let both = dir.path().join("both");
    let csv = dir.path().join("csv");
    let (both_s, csv_s) = (both.to_str().unwrap(), csv.to_str().unwrap());
    let together = dustpan(
        &[
            "export",
            "1",
            "--db",
            &db,
            "--parquet",
            both_s,
            "--out",
            csv_s,
        ],
        "",
    );
    assert_eq!(together.code, 0, "{}", together.stderr);
    let counts = |stdout: &str, dir: &str| -> Vec<String> {
        let mut v: Vec<String> = stdout
            .lines()
            .filter(|l| l.contains(dir) && l.ends_with(".parquet"))
            .map(|l| l.replace(dir, ""))
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        counts(&together.stdout, both_s),
        counts(&export.stdout, out_s)
    );
    assert!(csv.join("pages.csv").is_file() && csv.join("redirect_map.csv").is_file());

    // The documented DuckDB query (docs/scale.md): the most-linked URLs that redirect.
    let check = std::process::Command::new("python3")
        .args(["-c", "import duckdb"])
        .output();
    if !check.is_ok_and(|o| o.status.success()) {
        eprintln!(
            "skipped the DuckDB query: the duckdb Python package is not installed (pip install duckdb)"
        );
        return;
    }
    let query = "import duckdb, sys
d = sys.argv[1]
con = duckdb.connect()
rows = con.execute(f\"\"\"
SELECT u.url_rfc3986 AS url, r.status, count(*) AS inlinks
FROM '{d}/links.parquet' l
JOIN '{d}/urls.parquet' u ON u.id = l.to_url_id
JOIN '{d}/redirects.parquet' r ON r.from_url_id = u.id
GROUP BY ALL ORDER BY inlinks DESC, url LIMIT 5\"\"\").fetchall()
total = con.execute(f\"SELECT count(*) FROM '{d}/urls.parquet'\").fetchone()[0]
print(total)
for r in rows: print(*r, sep='\\t')";
    let py = std::process::Command::new("python3")
        .args(["-c", query, out_s])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&py.stdout);
    assert!(
        py.status.success(),
        "{}",
        String::from_utf8_lossy(&py.stderr)
    );
    let mut lines = stdout.lines();
    assert_eq!(lines.next().unwrap().parse::<u64>().unwrap(), rows("urls"));
    let redirects: Vec<&str> = lines.collect();
    assert!(!redirects.is_empty(), "no linked redirect: {stdout}");
    for line in redirects {
        let status: u16 = line.split('\t').nth(1).unwrap().parse().unwrap();
        assert!((300..400).contains(&status) || status == 200, "{line}");
    }
}
