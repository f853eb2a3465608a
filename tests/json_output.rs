//! `--format json` and `jsonl` on `audits`, `report`, `diff` and `normalize`, each
//! checked against what `view` answers for the same audit; `report --fail-on` for each
//! severity; `audit --like ID --compare` on the unchanged and on the changed fixture.

use fixture::SiteVariant;
use serde::de::DeserializeOwned;
use view::output::{
    AuditsDocument, DiffDocument, NormalizeDocument, NormalizeLine, ReportDocument,
};
use view::{FindingQuery, FindingView, Session, Severity};

use crate::util::{Output, Site, audit_id, check, dustpan, path, run};

const START: &str = "https://example.test/";
const BLOG_SITEMAP: &str = "https://blog.example.test/sitemap.xml";

/// An audit of the fixture whose re-audits of the unchanged site compare equal (as in
/// tests/diff.rs).
fn first_audit(site: &Site, extra: &[&str]) -> i64 {
    let mut args = vec![
        "-q",
        "--include-subdomains",
        "--sitemap",
        BLOG_SITEMAP,
        "--trap-budget",
        "40",
        "--max-response-bytes",
        "2000000",
        "--timeout",
        "20",
        "--no-dust-learning",
    ];
    args.extend(extra);
    let out = run(&site.audit_args(START, &args));
    check(&out, "dustpan audit");
    audit_id(&out.stdout).0
}

/// `dustpan ARGS --db DB`.
fn on_db(site: &Site, args: &[&str]) -> Output {
    let mut all: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    all.push("--db".to_owned());
    all.push(path(&site.db));
    run(&all)
}

fn parse<T: DeserializeOwned>(out: &Output, what: &str) -> T {
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{what} prints its document: {e}\n{}", out.stdout))
}

fn lines<T: DeserializeOwned>(out: &Output) -> Vec<T> {
    out.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Every finding of an opened audit, page by page.
fn every_finding(open: &view::OpenAudit) -> Vec<FindingView> {
    let page = open.query_findings(&FindingQuery {
        severity: None,
        family: None,
        search: None,
        offset: 0,
        limit: view::MAX_LIMIT,
    });
    assert!(page.matched < view::MAX_LIMIT, "{}", page.matched);
    page.items
}

#[test]
fn json_documents_are_what_view_answers_and_fail_on_fails_by_severity() {
    let site = Site::quiet();
    let full = first_audit(&site, &[]);
    // Two pages: few findings, not every severity.
    let small = first_audit(&site, &["--max-urls", "2", "--no-probes"]);
    let session = Session::new(site.store());

    for id in [full, small] {
        let ids = id.to_string();
        let out = on_db(&site, &["report", &ids, "--format", "json"]);
        check(&out, "report --format json");
        let doc: ReportDocument = parse(&out, "report --format json");
        assert_eq!(doc.schema_version, 1);
        let open = site.rt.block_on(session.open(id)).unwrap();
        assert_eq!(&doc.overview, open.overview());
        assert_eq!(doc.issues, open.issues());
        assert_eq!(doc.findings, every_finding(&open));

        let out = on_db(&site, &["report", &ids, "--format", "jsonl"]);
        check(&out, "report --format jsonl");
        assert_eq!(lines::<FindingView>(&out), doc.findings);

        // --fail-on: 1 exactly when a finding of that severity or a more severe one
        // exists, in every format.
        let has = |s: Severity| doc.findings.iter().any(|f| f.severity == s);
        for (flag, fails) in [
            ("error", has(Severity::Error)),
            ("warning", has(Severity::Error) || has(Severity::Warning)),
            ("notice", !doc.findings.is_empty()),
        ] {
            for format in ["text", "json"] {
                let out = on_db(
                    &site,
                    &["report", &ids, "--fail-on", flag, "--format", format],
                );
                assert_eq!(
                    out.code,
                    i32::from(fails),
                    "report {id} --fail-on {flag} --format {format}: {}",
                    out.stderr
                );
                if fails && format == "text" {
                    assert!(out.stderr.contains("(--fail-on)"), "{}", out.stderr);
                }
            }
        }
    }
    // The full audit has errors; the small one has findings but no error, so each
    // severity both passes and fails somewhere above.
    let severities = |id: i64| -> Vec<Severity> {
        let open = site.rt.block_on(session.open(id)).unwrap();
        every_finding(&open).iter().map(|f| f.severity).collect()
    };
    assert!(severities(full).contains(&Severity::Error));
    let small_severities = severities(small);
    assert!(
        !small_severities.contains(&Severity::Error),
        "{small_severities:?}"
    );
    assert!(!small_severities.is_empty());

    // audits: the list the app shows (read after the reports stored their analyses).
    let out = on_db(&site, &["audits", "--format", "json"]);
    check(&out, "audits --format json");
    let doc: AuditsDocument = parse(&out, "audits --format json");
    let expected = site
        .rt
        .block_on(view::list_audits(session.store(), &|_| true))
        .unwrap();
    assert_eq!(doc.audits, expected);
    assert_eq!(doc.audits.len(), 2);
    let out = on_db(&site, &["audits", "--format", "jsonl"]);
    assert_eq!(lines::<view::AuditListItem>(&out), expected);

    // normalize: one entry per line, the rejected ones with their reason; exit 1.
    let input = "HTTP://Example.com:80/a/./b?utm_source=x\nnot a url\nhttps://example.com/\n";
    let policy = canon::Preset::Seo.policy();
    let expected: Vec<NormalizeLine> = input
        .lines()
        .map(|l| match view::normalize_url(l, &policy) {
            Ok(n) => NormalizeLine::Url(n),
            Err(view::ViewError::Url(e)) => NormalizeLine::Rejected {
                input: l.to_owned(),
                error: e.kind().to_owned(),
                message: e.to_string(),
            },
            Err(e) => panic!("{e}"),
        })
        .collect();
    let out = dustpan(&["normalize", "--format", "json"], input);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc: NormalizeDocument = parse(&out, "normalize --format json");
    assert_eq!(doc.lines, expected);
    assert!(
        matches!(&doc.lines[1], NormalizeLine::Rejected { error, .. } if error == "not_absolute")
    );
    let out = dustpan(&["normalize", "--format", "jsonl"], input);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(lines::<NormalizeLine>(&out), expected);
}

#[test]
fn a_scheduled_compare_exits_0_on_the_unchanged_site_and_3_on_the_changed_one() {
    let site = Site::quiet();
    let first = first_audit(&site, &[]);
    let dir = tempfile::tempdir().unwrap();
    let compare = |out_file: &str| {
        let file = path(&dir.path().join(out_file));
        let first = first.to_string();
        let out = on_db(
            &site,
            &[
                "audit",
                "--like",
                &first,
                "-q",
                "--compare",
                "--compare-out",
                &file,
            ],
        );
        let doc: DiffDocument =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        (out, doc)
    };

    let (out, doc) = compare("unchanged.json");
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("No changes."), "{}", out.stdout);
    assert!(doc.unchanged);
    assert!(doc.diff.sections.iter().all(|s| s.rows.is_empty()));
    let unchanged_id = audit_id(&out.stdout).0;

    site.server.set_variant(SiteVariant::After);
    let (out, doc) = compare("changed.json");
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("Changed: "), "{}", out.stdout);
    assert!(!doc.unchanged);
    let changed_id = audit_id(&out.stdout).0;
    assert_eq!(
        (doc.diff.old_audit, doc.diff.new_audit),
        (first, changed_id)
    );

    // `dustpan diff --format json` gives the same comparison; jsonl one line per row.
    let (a, b) = (first.to_string(), changed_id.to_string());
    let out = on_db(&site, &["diff", &a, &b, "--format", "json"]);
    check(&out, "diff --format json");
    let json: DiffDocument = parse(&out, "diff --format json");
    assert_eq!(json, doc);
    let out = on_db(&site, &["diff", &a, &b, "--format", "jsonl"]);
    check(&out, "diff --format jsonl");
    let rows: Vec<view::output::DiffRow> = lines(&out);
    let total: u32 = doc.diff.sections.iter().map(|s| s.total).sum();
    assert_eq!(rows.len(), total as usize);
    let out = on_db(
        &site,
        &["diff", &a, &unchanged_id.to_string(), "--format", "json"],
    );
    let json: DiffDocument = parse(&out, "diff --format json");
    assert!(json.unchanged);
}

#[test]
fn learn_as_json_gives_the_rules_the_table_prints() {
    // The generated shop: `/item?id=N` is `/p/N` under a second URL pattern.
    let site = Site::start(fixture::generated_site(200, 11));
    let base = format!("http://127.0.0.1:{}", site.server.port());
    let mut urls = Vec::new();
    for i in 0..80 {
        urls.push(format!("{base}/p/{i}"));
        if i < 40 {
            urls.push(format!("{base}/item?id={i}"));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("urls.txt");
    std::fs::write(&file, urls.join("\n") + "\nnot a url\n").unwrap();
    let file = path(&file);

    let out = dustpan(&["learn", &file, "--site", &base, "--format", "json"], "");
    check(&out, "learn --format json");
    let doc: view::output::LearnDocument = parse(&out, "learn --format json");
    assert_eq!(doc.schema_version, 1);
    assert_eq!((doc.urls, doc.rejected), (120, 1));
    assert!(doc.requests > 0 && doc.requests <= 6 * doc.rules.len() as u64);
    let status = |id: &str| {
        doc.rules
            .iter()
            .find(|r| r.id == id)
            .map(|r| r.status.as_str())
    };
    assert_eq!(
        status("replace:/item?id==>/p/"),
        Some("confirmed"),
        "{doc:?}"
    );
    assert_eq!(status("drop_param:id"), Some("rejected"), "{doc:?}");
    // 40 products under both patterns: 40 URLs grouped with another.
    assert_eq!(doc.grouped, 40, "{doc:?}");
    let confirmed = doc.rules.iter().find(|r| r.status == "confirmed").unwrap();
    assert!(confirmed.tested.is_some_and(|n| n > 0), "{confirmed:?}");
    assert!(confirmed.example.is_some());

    // The text table names the same rules with the same statuses.
    let text = dustpan(&["learn", &file, "--site", &base], "");
    check(&text, "learn");
    for r in &doc.rules {
        let row = text
            .stdout
            .lines()
            .find(|l| l.trim_end().ends_with(&format!("  {}", r.id)))
            .unwrap_or_else(|| panic!("{} in\n{}", r.id, text.stdout));
        assert!(row.trim_start().starts_with(&r.status), "{row}");
    }

    let out = dustpan(&["learn", &file, "--site", &base, "--format", "jsonl"], "");
    check(&out, "learn --format jsonl");
    let rules: Vec<view::output::LearnedRule> = lines(&out);
    assert_eq!(
        rules.iter().map(|r| (&r.id, &r.status)).collect::<Vec<_>>(),
        doc.rules
            .iter()
            .map(|r| (&r.id, &r.status))
            .collect::<Vec<_>>()
    );
}
