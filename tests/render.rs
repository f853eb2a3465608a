//! `dustpan audit --render`: the scripted fixture site (`fixture::ScriptedSite`, its own
//! loopback port) rendered through the real Chromium. Every planted difference between
//! the raw HTML and the rendered DOM is stored; links found only after JavaScript are
//! crawled; a page that never settles, loops or allocates without end is a recorded
//! render failure, not a failed audit; the page that reaches for an address outside the
//! audit (an internal stand-in on 127.0.0.2) gets nothing through, and the stand-in
//! receives no request.

use std::collections::HashMap;

use store::{AuditId, AuditStatus, RenderRow, Store};

use crate::util::{audit_id, path, run};

/// Where Debian's `chromium` package puts the browser (`CHROMIUM`).
const CHROMIUM: &str = "/usr/bin/chromium";

/// Chromium, or `false` (loudly) when it is missing and not required.
fn chromium_present() -> bool {
    let present = std::path::Path::new(CHROMIUM).is_file();
    if !present {
        assert!(
            std::env::var_os("DUSTPAN_REQUIRE_CHROMIUM").is_none(),
            "DUSTPAN_REQUIRE_CHROMIUM is set and {} is missing (scripts/setup-render.sh installs it)",
            CHROMIUM
        );
        eprintln!(
            "\n\n*** SKIPPED: {} is missing; install it with scripts/setup-render.sh ***\n\n",
            CHROMIUM
        );
    }
    present
}

struct Scripted {
    // Declared first so that they stop before the runtime goes.
    site: fixture::ScriptedSite,
    outside: fixture::InternalStandIn,
    rt: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
    db: std::path::PathBuf,
}

fn start() -> Scripted {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let outside = rt
        .block_on(fixture::InternalStandIn::start_default())
        .expect("127.0.0.2 binds (Linux routes 127.0.0.0/8 to the loopback interface)");
    let site = rt
        .block_on(fixture::ScriptedSite::start(&outside.base_url()))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("audits.sqlite");
    Scripted {
        site,
        outside,
        rt,
        _dir: dir,
        db,
    }
}

impl Scripted {
    fn audit(&self, extra: &[&str]) -> AuditId {
        let mut args = vec![
            "audit".to_owned(),
            format!("{}/", self.site.base_url()),
            "--db".to_owned(),
            path(&self.db),
            "--no-probes".to_owned(),
            "--rate".to_owned(),
            "50".to_owned(),
            "-q".to_owned(),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        let out = run(&args);
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        audit_id(&out.stdout)
    }

    fn store(&self) -> Store {
        self.rt.block_on(Store::open(&self.db)).unwrap()
    }

    fn url(&self, p: &str) -> String {
        format!("{}{p}", self.site.base_url())
    }
}

#[test]
fn render_finds_every_planted_difference_and_reaches_nothing_outside() {
    if !chromium_present() {
        return;
    }
    let s = start();
    let plain = s.audit(&[]);
    let rendered = s.audit(&["--render", "--render-concurrency", "2"]);
    let store = s.store();

    // Without --render nothing is rendered, and nothing found only by script is crawled.
    let plain_renders = s.rt.block_on(store.renders(plain)).unwrap();
    assert!(plain_renders.is_empty(), "{plain_renders:?}");
    let plain_urls: Vec<String> =
        s.rt.block_on(store.urls(plain))
            .unwrap()
            .into_iter()
            .map(|u| u.url)
            .collect();
    for p in fixture::scripted::paths::JS_ONLY {
        assert!(
            !plain_urls.contains(&s.url(p)),
            "{p} found without JavaScript"
        );
    }

    let audit = s.rt.block_on(store.audit(rendered)).unwrap();
    assert_eq!(audit.status, AuditStatus::Finished, "{audit:?}");
    let config =
        s.rt.block_on(crawl::audit_config(&store, rendered))
            .unwrap();
    assert!(config.render.is_some(), "--render is kept with the audit");

    let rows: HashMap<String, RenderRow> =
        s.rt.block_on(store.renders(rendered))
            .unwrap()
            .into_iter()
            .map(|r| (r.url.clone(), r))
            .collect();
    let row = |p: &str| {
        rows.get(&s.url(p))
            .unwrap_or_else(|| panic!("{p} not rendered: {:#?}", rows.keys()))
    };
    let target = s.url("/js/target");
    for p in ["/js/canonical-added", "/js/canonical-changed"] {
        let r = row(p);
        assert_eq!(r.outcome, "rendered", "{r:?}");
        assert_eq!(r.canonical_url.as_deref(), Some(target.as_str()), "{r:?}");
    }
    assert!(row("/js/noindex-added").noindex);
    assert!(!row("/js/noindex-removed").noindex);
    assert_eq!(row("/js/title").title.as_deref(), Some("Rendered title"));
    assert_eq!(row("/js/title").h1.as_deref(), Some("Rendered heading"));
    assert!(
        row("/js/content").word_count.unwrap_or(0) > 30,
        "{:?}",
        row("/js/content")
    );
    assert_eq!(
        row("/spa/about").title.as_deref(),
        Some("About us | Scripted shop")
    );
    assert_eq!(
        row("/js/busy").outcome,
        "unsettled",
        "{:?}",
        row("/js/busy")
    );
    for p in ["/js/loop", "/js/alloc"] {
        assert!(
            matches!(row(p).outcome.as_str(), "timeout" | "failed"),
            "{:?}",
            row(p)
        );
    }
    let outside = row("/js/outside");
    assert!(outside.refused >= 3, "{outside:?}");
    assert_eq!(
        s.outside.requests(),
        Vec::<String>::new(),
        "the out-of-scope stand-in was reached"
    );

    // The raw side of the same pages, for the differences.
    let fetch = |p: &str| {
        let id = rows[&s.url(p)].url_id;
        s.rt.block_on(store.fetch(rendered, id)).unwrap().unwrap()
    };
    assert!(fetch("/js/noindex-removed").noindex);
    assert!(!fetch("/js/noindex-added").noindex);
    assert_eq!(fetch("/js/title").title.as_deref(), Some("Raw title"));
    assert!(fetch("/js/content").word_count.unwrap_or(0) < 10);

    // Links only in the rendered DOM are marked, and crawled.
    let js_links = s.rt.block_on(store.rendered_links(rendered, true)).unwrap();
    let urls: HashMap<store::UrlId, String> =
        s.rt.block_on(store.urls(rendered))
            .unwrap()
            .into_iter()
            .map(|u| (u.id, u.url))
            .collect();
    let js_targets: Vec<&str> = js_links
        .iter()
        .filter_map(|l| l.link.to.and_then(|t| urls.get(&t)).map(String::as_str))
        .collect();
    for p in fixture::scripted::paths::JS_ONLY {
        assert!(
            js_targets.contains(&s.url(p).as_str()),
            "{p}: {js_targets:?}"
        );
        assert!(
            rows.contains_key(&s.url(p)),
            "{p} was not crawled and rendered"
        );
    }
}

/// A single-page app (the scripted site's `/app/`, every path answering the same shell)
/// audited with `--render`, probes on and a depth of 1: what each claim rests on is what
/// the pages render. Its URL variants serve the shell, which says nothing about what they
/// render, so none is called a duplicate of the page; RENDER-JS-LINKS counts the pages it
/// fetched and says apart which script-only targets it did not fetch; the routes the app
/// does not know answer 200 and render "404 - Not Found" under the shell's title: soft
/// 404s, in no cluster and no duplicate finding.
#[test]
fn a_single_page_app_is_judged_by_what_it_renders() {
    if !chromium_present() {
        return;
    }
    let s = start();
    let base = s.site.base_url();
    let out = run(&[
        "audit".to_owned(),
        format!("{base}/app/"),
        "--db".to_owned(),
        path(&s.db),
        "--include".to_owned(),
        format!("^{}/app", base.replace('.', "\\.")),
        "--max-depth".to_owned(),
        "1".to_owned(),
        "--render".to_owned(),
        "--render-concurrency".to_owned(),
        "2".to_owned(),
        "--rate".to_owned(),
        "50".to_owned(),
        "-q".to_owned(),
    ]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let id = audit_id(&out.stdout);
    let store = s.store();
    let analysis = s.rt.block_on(async {
        let loaded = view::workflow::load(&store, id, canon::Policy::seo())
            .await
            .unwrap();
        audit::analyse(&loaded.input, &loaded.config)
    });
    let findings = |code: &str| -> Vec<&audit::Finding> {
        analysis
            .findings
            .iter()
            .filter(|f| f.id.code() == code)
            .collect()
    };
    let missing: Vec<String> = fixture::scripted::app::MISSING
        .iter()
        .map(|p| s.url(p))
        .collect();

    // 1. The variants serve the shell; the page's content is written by script.
    let probes: Vec<&audit::VariantProbe> = analysis
        .url_variants
        .iter()
        .flat_map(|r| &r.probes)
        .collect();
    assert!(
        probes
            .iter()
            .any(|p| p.verdict == audit::ProbeVerdict::Unrendered),
        "{probes:#?}"
    );
    for p in &probes {
        assert_ne!(p.verdict, audit::ProbeVerdict::Duplicate, "{p:#?}");
    }
    assert!(
        findings("VARIANT-DUPLICATE").is_empty(),
        "{:#?}",
        findings("VARIANT-DUPLICATE")
    );

    // 2. The deep route, found in the guide's rendered article, was not fetched.
    let deep = s.url(fixture::scripted::app::DEEP);
    let all = findings("RENDER-JS-LINKS");
    let js = all
        .iter()
        .find(|f| f.key.ends_with("/app/*"))
        .unwrap_or_else(|| panic!("{all:#?}"));
    assert!(!js.urls.contains(&deep), "{js:#?}");
    let fetched = js.urls.len();
    assert!(
        js.summary.starts_with(&format!("{fetched} pages of ")),
        "{js:#?}"
    );
    assert!(
        js.evidence
            .iter()
            .any(|e| e.starts_with("1 other URL of ") && e.contains("1 max_depth")),
        "{js:#?}"
    );

    // 3. The missing routes are soft 404s: in no cluster, named by no duplicate finding.
    for c in &analysis.clusters {
        for m in &c.members {
            assert!(!missing.contains(&m.url), "{c:#?}");
        }
    }
    for code in ["DUP-CONTENT", "DUP-DUST", "DUP-NEAR", "DUP-PARAM"] {
        for f in findings(code) {
            assert!(
                !f.urls.iter().any(|u| missing.contains(u)),
                "{code}: {f:#?}"
            );
        }
    }
    // They were rendered, with the shell's title and the "not found" view.
    let rows = s.rt.block_on(store.renders(id)).unwrap();
    for u in &missing {
        let r = rows
            .iter()
            .find(|r| &r.url == u)
            .unwrap_or_else(|| panic!("{u} not rendered"));
        assert_eq!(r.title.as_deref(), Some("Scripted docs"), "{r:?}");
    }
}
