//! The fixture audit as a golden file: every cluster (members, preferred URL, why each
//! member is in it, the fix) and every finding (id, URLs, fixes), rendered as stable
//! text and compared with `tests/golden/fixture-before.txt`, a file reviewed line by
//! line against the fixture's scenarios. `DUSTPAN_BLESS=1` rewrites it after a change
//! that was reviewed.

use crate::util::dustpan;
use audit::{Action, Analysis, UrlId};
use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;

/// Everything the analysis of the audit says, as text that does not depend on row ids.
fn render(a: &Analysis, urls: &HashMap<UrlId, String>) -> String {
    let url = |id: UrlId| urls.get(&id).cloned().unwrap_or_else(|| format!("#{id}"));
    let mut out = String::new();
    writeln!(out, "# {} clusters", a.clusters.len()).unwrap();
    for c in &a.clusters {
        writeln!(out, "\ncluster {}", c.preferred_url).unwrap();
        for m in &c.members {
            let status = m.status.map_or("-".to_owned(), |s| s.to_string());
            let action = match m.action {
                Action::None => String::new(),
                a => format!("  => fix: {}", a.as_str()),
            };
            writeln!(out, "  {:?} {status} {}{action}", m.role, m.url).unwrap();
            for e in &m.evidence {
                writeln!(
                    out,
                    "      why: {} -> {}: {}",
                    url(e.from),
                    url(e.to),
                    e.kind
                )
                .unwrap();
            }
        }
    }
    writeln!(out, "\n# {} findings", a.findings.len()).unwrap();
    for f in &a.findings {
        writeln!(out, "\n[{}] {}", f.severity.as_str(), f.key).unwrap();
        for u in &f.urls {
            writeln!(out, "  url: {u}").unwrap();
        }
        for fix in &f.fixes {
            writeln!(out, "  fix: {fix}").unwrap();
        }
    }
    writeln!(out, "\n# learned rules").unwrap();
    for r in &a.learned.rules {
        write!(
            out,
            "{} {} support {} agreed {}/{}",
            r.status.as_str(),
            r.id,
            r.support,
            r.agreed,
            r.applicable
        )
        .unwrap();
        if let Some(v) = &r.validation {
            write!(
                out,
                " validated {} of {} false",
                v.false_positives, v.tested
            )
            .unwrap();
        }
        writeln!(out).unwrap();
    }
    out
}

/// The analysis `dustpan report` makes of the audit: the workflow's own load, with the
/// audit's validation samples and carried rules.
fn analyse(db: &Path) -> Demo {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = store::Store::open(db).await.unwrap();
        let id = store.list_audits().await.unwrap()[0].id;
        let loaded = view::workflow::load(&store, id, canon::Policy::seo())
            .await
            .unwrap();
        let input = loaded.input;
        let urls: HashMap<UrlId, String> = input
            .urls
            .iter()
            .map(|u| (u.id, u.found_url().to_owned()))
            .collect();
        let fetched = input
            .fetches
            .iter()
            .filter_map(|f| urls.get(&f.url_id).cloned())
            .collect();
        Demo {
            analysis: audit::analyse(&input, &loaded.config),
            urls,
            fetched,
        }
    })
}

/// One `dustpan demo` audit of the fixture, analysed.
pub(crate) struct Demo {
    pub analysis: Analysis,
    /// Every URL by id.
    pub urls: HashMap<UrlId, String>,
    /// The URLs fetched (with a response or not).
    pub fetched: Vec<String>,
}

/// The analysis of one `dustpan demo` audit of the fixture (run once per test binary).
pub(crate) fn demo_analysis() -> &'static Demo {
    static DEMO: std::sync::OnceLock<Demo> = std::sync::OnceLock::new();
    DEMO.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("golden.sqlite");
        let demo = dustpan(
            &[
                "demo",
                "--db",
                db.to_str().unwrap(),
                "-q",
                "--slow-ms",
                "200",
            ],
            "",
        );
        assert_eq!(demo.code, 0, "{}", demo.stderr);
        analyse(&db)
    })
}

#[test]
fn the_fixture_audit_matches_the_reviewed_golden_file() {
    let dir = tempfile::tempdir().unwrap();
    let demo = demo_analysis();
    let got = render(&demo.analysis, &demo.urls);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/fixture-before.txt");
    if std::env::var_os("DUSTPAN_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    if got != want {
        let fresh = dir.path().join("fixture-before.txt");
        std::fs::write(&fresh, &got).unwrap();
        let diff: Vec<String> = diff_lines(&want, &got);
        panic!(
            "the fixture audit differs from {} ({} lines differ):\n{}\n\
             review the change, then rerun with DUSTPAN_BLESS=1 to accept it",
            path.display(),
            diff.len(),
            diff.iter().take(60).cloned().collect::<Vec<_>>().join("\n")
        );
    }
}

/// Lines only in `want` (`-`) or only in `got` (`+`), in order.
fn diff_lines(want: &str, got: &str) -> Vec<String> {
    let w: std::collections::HashSet<&str> = want.lines().collect();
    let g: std::collections::HashSet<&str> = got.lines().collect();
    want.lines()
        .filter(|l| !g.contains(l))
        .map(|l| format!("- {l}"))
        .chain(
            got.lines()
                .filter(|l| !w.contains(l))
                .map(|l| format!("+ {l}")),
        )
        .collect()
}
