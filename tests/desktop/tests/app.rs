//! End to end in the real desktop app: start an audit of the fixture site from the form,
//! wait for it to finish, check the progress panel's answers by status class and open one
//! of its latest errors (detail pane, copy from its menu), open the trailing-slash cluster
//! and check its members and fix,
//! export CSV and check its rows; then on the pages table filter `Status Code >= 300`
//! and `Address contains comment` and check the counts against the fixture and the
//! unfiltered table, export the filtered view, copy a URL from the app's context menu
//! and resize a column; open the Issues view and one issue's URLs, and the detail pane
//! of a 404 of the fixture with its inlinks, and the same 404 one click from its issue's URL
//! list (inlinks, stored response headers, the inlinks' export); start a list audit from a
//! file (the file dialog answered by the automation hook); start an audit from the form
//! with an exclude pattern, nofollow links not followed and a URL limit (its stored
//! configuration in the Audits list, no excluded URL fetched) and compare it, as the
//! partial older audit, with the whole site's (no status change of a URL it did not fetch);
//! then, with an audit of a long start URL in the list, check the layout of every main view
//! at 1280×800 and 1024×640 and take their screenshots into `target/e2e/screenshots` (the
//! code that takes the README's); last, the External table, the Excel workbook and the HTML
//! report written from the app, and the keyboard shortcuts' list.
//!
//! Run: `xvfb-run -a cargo test -p desktop-e2e -- --ignored` after building the app
//! (`npm --prefix ui run build && cargo build -p dustpan-desktop`); `scripts/test.sh`
//! does all of it.

#![allow(clippy::unwrap_used)]

use desktop_e2e::shots::{self, SIZES, png_size};
use desktop_e2e::{App, AppOptions, Element, Session, Shots, e2e_dir, wait_for_phase};
use fixture::SiteVariant;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

const SLASH_PAIR: [&str; 2] = ["https://example.test/shoes", "https://example.test/shoes/"];

fn tid(id: &str) -> String {
    format!("[data-testid=\"{id}\"]")
}

/// Calls a backend command from inside the webview, as the UI does: `Ok` with its answer
/// or `Err` with its error.
async fn try_invoke(app: &App, command: &str, args: Value) -> Result<Value, Value> {
    let script = "const [cmd, args, done] = arguments;\
        window.__TAURI_INTERNALS__.invoke(cmd, args)\
          .then(v => done({ ok: v }), e => done({ err: e }));";
    let out = app
        .session()
        .execute_async(script, vec![json!(command), args])
        .await
        .unwrap();
    match out.get("err") {
        Some(err) => Err(err.clone()),
        None => Ok(out["ok"].clone()),
    }
}

/// Calls a backend command that must succeed.
async fn invoke(app: &App, command: &str, args: Value) -> Value {
    try_invoke(app, command, args)
        .await
        .unwrap_or_else(|err| panic!("{command}: {err}"))
}

/// Asserts that a command's error is the refusal of a path not chosen in a dialog.
fn refused_as_not_chosen(err: &Value) {
    assert_eq!(err["code"], "invalid_input", "{err}");
    let message = err["message"].as_str().unwrap_or("");
    assert!(message.contains("not chosen in a dialog"), "{err}");
}

/// Writes audit `audit_id`'s pages table to `path`, chosen first as a save dialog's
/// answer (the shell writes only to paths chosen in its dialogs).
async fn export_pages(app: &App, audit_id: i64, path: &std::path::Path) {
    let chosen = invoke(
        app,
        "choose_path",
        json!({ "choice": { "purpose": "saveCsv", "automationAnswer": path } }),
    )
    .await;
    assert_eq!(chosen.as_str(), path.to_str());
    invoke(
        app,
        "export_table",
        json!({ "auditId": audit_id, "table": "pages", "path": path }),
    )
    .await;
}

fn read_csv(path: &std::path::Path) -> Vec<HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display, tauri-driver and the built app: run through scripts/test.sh"]
async fn audit_the_fixture_open_a_cluster_and_export() {
    let app = App::start(AppOptions::default()).await.unwrap();
    let s = app.session();

    // Start an audit from the form.
    s.click(&s.find(&tid("nav-new")).await.unwrap())
        .await
        .unwrap();
    let url = s.find(&tid("audit-url")).await.unwrap();
    s.type_into(&url, &app.site().base_url()).await.unwrap();
    let resolve = s.find(&tid("audit-resolve")).await.unwrap();
    s.type_into(&resolve, &app.resolve_entries().join("\u{E007}"))
        .await
        .unwrap();
    s.click(&s.find(&tid("audit-start")).await.unwrap())
        .await
        .unwrap();
    let phase = match wait_for_phase(s, None, Duration::from_secs(180)).await {
        Ok((_, phase)) => phase,
        Err(e) => panic!("{e}; window saved in {}", app.dump("audit").await.display()),
    };
    assert_eq!(phase, "done", "the audit ended with {phase:?}");
    let pages = s
        .text(&s.find(&tid("progress-fetched")).await.unwrap())
        .await
        .unwrap();
    let pages: u64 = pages
        .chars()
        .filter(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or(0);
    assert!(pages > 100, "fetched {pages} pages");
    live_crawl_panel(&app, pages).await;

    // The audit is listed.
    let audits = invoke(&app, "list_audits", json!({})).await;
    assert_eq!(audits.as_array().unwrap().len(), 1, "{audits}");

    // Open the report, find the trailing-slash cluster in the clusters table.
    s.click(&s.find(&tid("progress-open")).await.unwrap())
        .await
        .unwrap();
    s.click(&s.find(&tid("nav-clusters")).await.unwrap())
        .await
        .unwrap();
    let search = s.find(&tid("table-search")).await.unwrap();
    s.type_into(&search, "example.test/shoes").await.unwrap();
    // The table re-renders as the search narrows it: wait for the count, then find and
    // click the row, retrying when a row is replaced under our feet.
    s.wait_for_text(&tid("table-matched"), Duration::from_secs(10), |t| {
        t.contains("match")
    })
    .await
    .unwrap();
    let mut opened = false;
    'attempts: for _ in 0..50 {
        for row in s.find_all(&tid("cluster-row")).await.unwrap() {
            let Ok(text) = s.text_content(&row).await else {
                continue;
            };
            if text.contains("https://example.test/shoes") && s.click(&row).await.is_ok() {
                opened = true;
                break 'attempts;
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    if !opened {
        panic!(
            "the /shoes cluster is not listed; window saved in {}",
            app.dump("clusters").await.display()
        );
    }

    // Its members: both spellings, one preferred, the other with a fix naming it.
    let members = s
        .wait_for_count(&tid("member-row"), 2, Duration::from_secs(10))
        .await
        .unwrap();
    let mut texts = Vec::new();
    for m in s.find_all(&tid("member-url")).await.unwrap() {
        texts.push(s.text_content(&m).await.unwrap().trim().to_owned());
    }
    assert_eq!(texts.len(), members.len());
    for url in SLASH_PAIR {
        assert!(
            texts.iter().any(|t| t == url),
            "member {url} missing from {texts:?}"
        );
    }
    let mut preferred = 0;
    for m in &members {
        if s.attribute(m, "data-role").await.unwrap().as_deref() == Some("preferred") {
            preferred += 1;
        }
    }
    assert_eq!(preferred, 1, "one preferred member");
    let fixes = s.find_all(&tid("member-fix")).await.unwrap();
    let mut fix_texts = Vec::new();
    for f in &fixes {
        let t = s.text_content(f).await.unwrap();
        if !t.trim().is_empty() {
            fix_texts.push(t);
        }
    }
    // Every duplicate has a fix; a member that already redirects straight to the
    // preferred URL needs none.
    let mut duplicates = 0;
    for (m, f) in members.iter().zip(&fixes) {
        if s.attribute(m, "data-role").await.unwrap().as_deref() == Some("duplicate") {
            duplicates += 1;
            let t = s.text_content(f).await.unwrap();
            assert!(!t.trim().is_empty(), "a duplicate without a fix");
        }
    }
    assert!(
        duplicates >= 1,
        "the trailing-slash duplicate is a duplicate"
    );
    assert!(!fix_texts.is_empty());
    assert!(
        fix_texts
            .iter()
            .all(|t| SLASH_PAIR.iter().any(|u| t.contains(u))),
        "each fix names the preferred URL: {fix_texts:?}"
    );

    // Export through the Tables view's button; the native save dialog is answered by
    // the automation hook (WebDriver cannot drive native dialogs).
    let out = app.scratch.join("clusters.csv");
    s.execute(
        "window.dustpanAutomation = { savePath: arguments[0] };",
        vec![json!(out)],
    )
    .await
    .unwrap();
    s.click(&s.find(&tid("nav-tables")).await.unwrap())
        .await
        .unwrap();
    s.click(&s.find(&tid("table-tab-clusterMembers")).await.unwrap())
        .await
        .unwrap();
    s.click(&s.find(&tid("export-csv")).await.unwrap())
        .await
        .unwrap();
    let result = s
        .wait_for_text(&tid("export-result"), Duration::from_secs(30), |t| {
            t.contains("Exported")
        })
        .await
        .unwrap();
    let written: usize = result
        .split_whitespace()
        .find_map(|w| w.replace(',', "").parse().ok())
        .unwrap();
    let rows = read_csv(&out);
    assert_eq!(written, rows.len(), "{result}");

    // The URL variants table: how the fixture answers each rule's variants, one row per
    // rule, path_case among them.
    s.click(&s.find(&tid("table-tab-urlVariants")).await.unwrap())
        .await
        .unwrap();
    let variant_rows = s
        .wait_for_count(
            "[data-testid=\"table-row\"][data-row-key]",
            11,
            Duration::from_secs(10),
        )
        .await
        .unwrap();
    let mut keys = Vec::new();
    for row in &variant_rows {
        keys.extend(s.attribute(row, "data-row-key").await.unwrap());
    }
    assert!(keys.iter().any(|k| k == "path_case"), "{keys:?}");
    let shoes: Vec<_> = rows
        .iter()
        .filter(|r| SLASH_PAIR.contains(&r["Address"].as_str()))
        .collect();
    assert_eq!(shoes.len(), 2, "{shoes:?}");
    assert_eq!(shoes[0]["Cluster"], shoes[1]["Cluster"]);
    assert_eq!(shoes.iter().filter(|r| r["Role"] == "preferred").count(), 1);
    for row in &rows {
        for cell in row.values() {
            assert!(
                !cell.starts_with(['=', '+', '-', '@']),
                "unsafe cell {cell:?}"
            );
        }
    }

    pages_table_filters_copy_and_resize(&app).await;
    issues_and_url_detail(&app).await;
    let list_id = list_audit_from_a_file(&app).await;
    let partial = form_audit_with_an_exclude_and_nofollow_off(&app).await;
    compare_with_the_partial_older_audit(&app, partial).await;
    let long_id = layout_at_both_sizes(&app).await;
    external_table_and_client_files(&app, long_id).await;
    report_file_list_in_view(&app).await;
    migrate_onto_the_list_audit(&app, list_id).await;
    verify_the_first_audits_plan(&app).await;

    app.stop().await.unwrap();
}

/// The full report exported from the Overview at both window sizes: its file list is whole
/// in the page (no box of its own cutting it off), and the last file, scrolled into view,
/// is inside the window, is what the window shows at its place, and is drawn (the
/// window's pixels over its text are not one flat colour).
async fn report_file_list_in_view(app: &App) {
    let s = app.session();
    for size in SIZES {
        shots::set_size(s, size).await.unwrap();
        click_again(app, &tid("nav-overview")).await;
        let dir = app.scratch.join(format!("report-{}", size.0));
        std::fs::create_dir_all(&dir).unwrap();
        s.execute(
            "window.dustpanAutomation = { directory: arguments[0] };",
            vec![json!(dir)],
        )
        .await
        .unwrap();
        click_again(app, &tid("export-report")).await;
        let files = s
            .wait_for_count(
                &format!("{} li", tid("export-report-result")),
                2,
                Duration::from_secs(120),
            )
            .await
            .unwrap();
        let last = files.last().unwrap();
        s.execute(
            "arguments[0].scrollIntoView({ block: 'end' });",
            vec![Session::arg(last)],
        )
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_millis(800)).await;
        let seen = s
            .execute(
                "const e = arguments[0]; const range = document.createRange();\
                 range.selectNodeContents(e); const r = range.getBoundingClientRect();\
                 const hit = document.elementFromPoint(r.left + Math.min(r.width, 60) / 2, r.top + r.height / 2);\
                 const list = e.parentElement;\
                 return { left: r.left, top: r.top, width: r.width, height: r.height,\
                   inside: r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth,\
                   shown: hit !== null && (hit === e || e.contains(hit)),\
                   whole: list.scrollHeight <= list.clientHeight + 1 };",
                vec![Session::arg(last)],
            )
            .await
            .unwrap();
        let dump = || async { app.dump(&format!("report-files-{}", size.0)).await };
        // The list is in the page's flow, not a box of its own that cuts it off.
        if seen["inside"] != json!(true)
            || seen["shown"] != json!(true)
            || seen["whole"] != json!(true)
        {
            panic!(
                "at {}×{} the last exported file is not in view: {seen}; window saved in {}",
                size.0,
                size.1,
                dump().await.display()
            );
        }
        let png = s.screenshot().await.unwrap();
        let shot = e2e_dir()
            .join("screenshots")
            .join(format!("report-files-{}.png", size.0));
        std::fs::write(&shot, &png).unwrap();
        let px = |k: &str| seen[k].as_f64().unwrap();
        let (w, h) = (px("width").min(120.0).ceil(), px("height").ceil());
        let out = std::process::Command::new("convert")
            .arg(&shot)
            .args([
                "-crop",
                &format!("{w}x{h}+{}+{}", px("left").floor(), px("top").floor()),
                "-format",
                "%[fx:standard_deviation]",
                "info:",
            ])
            .output()
            .unwrap();
        let spread: f64 = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or(0.0);
        assert!(
            spread > 0.02,
            "at {}×{} the last exported file is not drawn (pixel spread {spread}); see {}",
            size.0,
            size.1,
            shot.display()
        );
    }
    shots::set_size(s, SIZES[0]).await.unwrap();
}

/// The first number of a text, words apart (`Wrote 1,234 rows to /tmp/x1` → 1234).
fn first_number(text: &str) -> usize {
    text.split_whitespace()
        .find_map(|w| w.replace(',', "").parse().ok())
        .unwrap_or(0)
}

/// The number in a text (`1,234` → 1234; none → 0).
fn number(text: &str) -> u64 {
    text.chars()
        .filter(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or(0)
}

/// The progress panel of the finished audit: its answers by status class (the fixture's
/// 404s among them, adding up to the pages fetched) and its latest errors, one opened in
/// the detail pane under the list and its URL copied from the app's menu.
async fn live_crawl_panel(app: &App, pages: u64) {
    let s = app.session();
    let mut counts = HashMap::new();
    for item in s.find_all(&tid("progress-status")).await.unwrap() {
        let class = s.attribute(&item, "data-class").await.unwrap().unwrap();
        let count = s
            .execute(
                "return arguments[0].querySelector('[data-testid=\"progress-status-count\"]').textContent;",
                vec![Session::arg(&item)],
            )
            .await
            .unwrap();
        counts.insert(class, number(count.as_str().unwrap_or_default()));
    }
    assert!(counts["client-error"] > 0, "{counts:?}");
    assert!(counts["success"] > 0, "{counts:?}");
    let answered: u64 = [
        "success",
        "redirect",
        "client-error",
        "server-error",
        "other",
    ]
    .iter()
    .filter_map(|c| counts.get(*c))
    .sum();
    assert_eq!(answered, pages, "{counts:?}");

    // A latest error with a status code: its detail pane opens under the list.
    let errors = s
        .wait_for_count(&tid("progress-latest-error"), 1, Duration::from_secs(10))
        .await
        .unwrap();
    assert!(errors.len() <= 10);
    let mut picked = None;
    for e in &errors {
        let text = s.text_content(e).await.unwrap();
        // "13:45:07 404 https://…"
        let status = text
            .split_whitespace()
            .nth(1)
            .and_then(|w| w.parse::<u16>().ok());
        if let Some(status) = status.filter(|c| *c >= 400) {
            picked = Some((e.clone(), status));
            break;
        }
    }
    let (error, status) = picked.expect("a latest error with a 4xx or 5xx status");
    let url = s.attribute(&error, "data-url").await.unwrap().unwrap();
    s.click(&error).await.unwrap();
    let pane = s.find(&tid("url-detail")).await.unwrap();
    assert_eq!(
        s.attribute(&pane, "data-url").await.unwrap().as_deref(),
        Some(url.as_str())
    );
    let shown = s
        .wait_for_text(
            "[data-testid=\"url-detail\"] [data-testid=\"url-detail-field\"][data-key=\"status_code\"]",
            Duration::from_secs(30),
            |t| !t.is_empty(),
        )
        .await;
    match shown {
        Ok(t) => assert_eq!(t, status.to_string(), "{url}"),
        Err(e) => panic!(
            "{e}; window saved in {}",
            app.dump("latest-error").await.display()
        ),
    }

    // Its menu copies the exact URL. The menu is opened by the event a right-click sends,
    // from a script: after pointer actions WebKitWebDriver types shifted characters without
    // Shift (`>=300` arrives as `.=300` in the filters below).
    s.execute("window.dustpanAutomation = { copied: [] };", vec![])
        .await
        .unwrap();
    s.execute(
        "const r = arguments[0].getBoundingClientRect();\
         arguments[0].dispatchEvent(new MouseEvent('contextmenu', \
         { bubbles: true, cancelable: true, clientX: r.left + 20, clientY: r.top + 5 }));",
        vec![Session::arg(&error)],
    )
    .await
    .unwrap();
    s.find(&tid("context-menu")).await.unwrap();
    s.click(&s.find(&tid("context-copy-url")).await.unwrap())
        .await
        .unwrap();
    s.wait_for_text(&tid("action-result"), Duration::from_secs(10), |t| {
        t.contains("Copied URL")
    })
    .await
    .unwrap();
    let copied = s
        .execute("return window.dustpanAutomation.copied;", vec![])
        .await
        .unwrap();
    assert_eq!(copied, json!([url]));
}

/// With an audit of a long start URL in the list, every main view at both window sizes:
/// no sideways overflow, the Audits list's actions and the clusters table's Fix column in
/// the window, a PNG of the window's size for each (`target/e2e/screenshots`).
async fn layout_at_both_sizes(app: &App) -> i64 {
    let s = app.session();
    let audits = invoke(app, "list_audits", json!({})).await;
    // The first audit of the site (the list is newest first).
    let first = audits.as_array().unwrap().last().unwrap()["id"]
        .as_i64()
        .unwrap();
    let long = format!(
        "{}catalogue/{}item?{}",
        app.site().base_url(),
        "a-rather-long-section-name/".repeat(5),
        "filter=colour-red&sort=price-ascending&".repeat(4)
    );
    let long_id = invoke(
        app,
        "start_audit",
        json!({ "request": {
            "url": long, "maxUrls": 1, "maxDepth": 0, "concurrency": 1,
            "respectRobots": true, "userAgent": null, "preset": null, "policyFile": null,
            "resolve": app.resolve_entries() } }),
    )
    .await
    .as_i64()
    .unwrap();
    let mut ended = false;
    for _ in 0..240 {
        let listed = invoke(app, "list_audits", json!({})).await;
        let status = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == json!(long_id))
            .map(|a| a["status"].clone());
        if status.as_ref().is_some_and(|st| st != "running") {
            ended = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(ended, "the audit of {long} did not end");

    let dir = e2e_dir().join("screenshots");
    let _ = std::fs::remove_dir_all(&dir);
    let mut pictures = Shots::new(&dir).unwrap();
    if let Err(e) = shots::tour(s, &mut pictures, first).await {
        panic!(
            "{e:#}; window saved in {}",
            app.dump("layout").await.display()
        );
    }
    // The long URL is cut short in its row, whole in its title.
    s.click(&s.find(&tid("nav-audits")).await.unwrap())
        .await
        .unwrap();
    let site = s
        .find(&format!(
            "[data-testid=\"audit-row\"][data-audit-id=\"{long_id}\"] [data-testid=\"audit-row-site\"]"
        ))
        .await
        .unwrap();
    assert_eq!(
        s.attribute(&site, "title").await.unwrap().as_deref(),
        Some(long.as_str())
    );
    let clipped = s
        .execute(
            "const e = arguments[0]; return e.scrollWidth > e.clientWidth;",
            vec![Session::arg(&site)],
        )
        .await
        .unwrap();
    assert_eq!(clipped, json!(true), "the long URL is shown whole");

    let names = [
        "audits",
        "overview",
        "issues",
        "clusters",
        "cluster",
        "findings",
        "tables",
        "url-detail",
        "fix-plan",
    ];
    assert_eq!(pictures.written().len(), names.len() * SIZES.len());
    for (w, h) in SIZES {
        for name in names {
            let file = if w == SIZES[0].0 {
                dir.join(format!("{name}.png"))
            } else {
                dir.join(format!("{name}-{w}.png"))
            };
            let png = std::fs::read(&file).unwrap();
            assert_eq!(png_size(&png).unwrap(), (w, h), "{}", file.display());
        }
    }
    long_id
}

/// `(matched, rows)` of the table's count: "N rows" or "N of M rows match".
fn counts(text: &str) -> Option<(u64, u64)> {
    let numbers: Vec<u64> = text
        .split(|c: char| !c.is_ascii_digit() && c != ',')
        .filter_map(|w| w.replace(',', "").parse().ok())
        .collect();
    match numbers.as_slice() {
        [n] if text.contains("row") => Some((*n, *n)),
        [m, t] if text.contains(" of ") && text.contains("match") => Some((*m, *t)),
        _ => None,
    }
}

/// Waits until the table says `matched` rows match.
async fn wait_for_matched(app: &App, matched: usize, what: &str) {
    let s = app.session();
    let seen = s
        .wait_for_text(&tid("table-matched"), Duration::from_secs(20), |t| {
            counts(t).is_some_and(|(m, _)| m as usize == matched)
        })
        .await;
    if let Err(e) = seen {
        panic!(
            "{what}: expected {matched} matched rows ({e}); window saved in {}",
            app.dump("filters").await.display()
        );
    }
}

/// A script's answer, or what it threw, with a time limit inside the page.
async fn page_promise(s: &Session, body: &str) -> Value {
    let script = format!(
        "const done = arguments[arguments.length - 1];\
         const limit = new Promise((_, no) => setTimeout(() => no(new Error('timed out')), 3000));\
         Promise.race([(async () => {{ {body} }})(), limit])\
           .then(v => done({{ ok: v }}), e => done({{ err: String(e) }}));"
    );
    s.execute_async(&script, vec![]).await.unwrap()
}

async fn pages_table_filters_copy_and_resize(app: &App) {
    let s = app.session();
    let facts = fixture::answers::site(SiteVariant::Before);

    // The whole pages table, written by the unfiltered export: the answers to check.
    let audits = invoke(app, "list_audits", json!({})).await;
    let audit_id = audits[0]["id"].as_i64().unwrap();
    let whole = app.scratch.join("pages-all.csv");
    // A path the window names without a dialog is refused, and nothing is written.
    let refused = app.scratch.join("pages-not-chosen.csv");
    let err = try_invoke(
        app,
        "export_table",
        json!({ "auditId": audit_id, "table": "pages", "path": refused }),
    )
    .await
    .expect_err("a path not chosen in a dialog");
    refused_as_not_chosen(&err);
    assert!(!refused.exists());
    // So is a list file, for a list audit.
    let err = try_invoke(
        app,
        "start_list_audit",
        json!({
            "request": { "url": "", "respectRobots": true, "resolve": [] },
            "list": { "files": ["/etc/hostname"] },
        }),
    )
    .await
    .expect_err("a list file not chosen in a dialog");
    refused_as_not_chosen(&err);
    export_pages(app, audit_id, &whole).await;
    let all = read_csv(&whole);
    let status_at_least_300: BTreeSet<&str> = all
        .iter()
        .filter(|r| r["Status Code"].parse::<i64>().is_ok_and(|c| c >= 300))
        .map(|r| r["Address"].as_str())
        .collect();
    let with_comment: BTreeSet<&str> = all
        .iter()
        .filter(|r| r["Address"].to_lowercase().contains("comment"))
        .map(|r| r["Address"].as_str())
        .collect();
    // The fixture's own answer: its comment pages, and its redirects and errors.
    let comment_pages: Vec<&str> = facts
        .urls
        .iter()
        .filter(|f| f.url.contains("comment") && !f.robots_blocked)
        .map(|f| f.url)
        .collect();
    assert!(!comment_pages.is_empty());
    for page in &comment_pages {
        assert!(
            with_comment.contains(page),
            "{page} not in {with_comment:?}"
        );
    }
    let fact_redirects = facts
        .urls
        .iter()
        .filter(|f| f.status >= 300 && all.iter().any(|r| r["Address"] == f.url))
        .count();
    assert!(
        fact_redirects > 5 && status_at_least_300.len() >= fact_redirects,
        "{fact_redirects} fixture URLs at 300 or above, {} in the table",
        status_at_least_300.len()
    );

    s.click(&s.find(&tid("table-tab-pages")).await.unwrap())
        .await
        .unwrap();
    s.wait_for_text(&tid("table-matched"), Duration::from_secs(20), |t| {
        counts(t).is_some_and(|(m, _)| m as usize == all.len())
    })
    .await
    .unwrap();

    // Status Code >= 300, typed in the column's quick filter.
    let status = s.find(&tid("filter-status_code")).await.unwrap();
    s.type_into(&status, ">=300").await.unwrap();
    wait_for_matched(app, status_at_least_300.len(), "Status Code >= 300").await;
    let chip = s.find(&tid("filter-chip")).await.unwrap();
    let chip_text = s.text_content(&chip).await.unwrap();
    assert!(chip_text.contains("Status Code ≥ 300"), "{chip_text}");

    // Export writes exactly the filtered view.
    let out = app.scratch.join("pages-300.csv");
    s.execute(
        "window.dustpanAutomation = { savePath: arguments[0], copied: [] };",
        vec![json!(out)],
    )
    .await
    .unwrap();
    s.click(&s.find(&tid("export-csv")).await.unwrap())
        .await
        .unwrap();
    let result = s
        .wait_for_text(&tid("export-result"), Duration::from_secs(30), |t| {
            t.contains("(filtered view)")
        })
        .await
        .unwrap();
    let rows = read_csv(&out);
    let said: usize = result
        .split_whitespace()
        .find_map(|w| w.replace(',', "").parse().ok())
        .unwrap();
    assert_eq!(said, rows.len(), "{result}");
    let exported: BTreeSet<&str> = rows.iter().map(|r| r["Address"].as_str()).collect();
    assert_eq!(exported, status_at_least_300);
    assert_eq!(rows.len(), status_at_least_300.len());
    assert_eq!(rows[0].len(), all[0].len(), "every column");

    // Address contains "comment", with the first filter removed from its chip.
    s.click(&s.find(&tid("filter-chip-remove")).await.unwrap())
        .await
        .unwrap();
    wait_for_matched(app, all.len(), "no filter").await;
    let address = s.find(&tid("filter-address")).await.unwrap();
    s.type_into(&address, "comment").await.unwrap();
    wait_for_matched(app, with_comment.len(), "Address contains comment").await;

    // The app's context menu on a URL: Copy URL copies the exact URL.
    let cell_css = "[data-testid=\"table-row\"] [data-column=\"address\"]";
    let cell = s.find(cell_css).await.unwrap();
    let exact = s
        .attribute(&cell, "title")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(with_comment.contains(exact.as_str()), "{exact}");
    if s.context_click(&cell).await.is_err() {
        // A driver without pointer actions: the same event, sent by a script.
        s.execute(
            "arguments[0].dispatchEvent(new MouseEvent('contextmenu', \
             { bubbles: true, cancelable: true, clientX: 200, clientY: 200 }));",
            vec![Session::arg(&cell)],
        )
        .await
        .unwrap();
    }
    s.find(&tid("context-menu")).await.unwrap();
    s.click(&s.find(&tid("context-copy-url")).await.unwrap())
        .await
        .unwrap();
    s.wait_for_text(&tid("action-result"), Duration::from_secs(10), |t| {
        t.contains("Copied URL")
    })
    .await
    .unwrap();
    let copied = s
        .execute("return window.dustpanAutomation.copied;", vec![])
        .await
        .unwrap();
    assert_eq!(copied, json!([exact]), "what the app put on the clipboard");
    // Read back from the clipboard itself where the web view allows it.
    let read = page_promise(s, "return await navigator.clipboard.readText();").await;
    match read.get("ok").and_then(Value::as_str) {
        Some(text) => assert_eq!(text, exact, "the clipboard's text"),
        None => eprintln!("the clipboard cannot be read back here: {read}"),
    }

    // Resize the Address column by dragging its header's edge.
    let handle = s.find(&tid("resize-address")).await.unwrap();
    let width = |w: Option<String>| w.and_then(|w| w.parse::<f64>().ok()).unwrap_or(0.0);
    let header_width = "return document.querySelector('[role=columnheader][data-column=address]')\
        .getBoundingClientRect().width;";
    let before = width(s.attribute(&handle, "data-width").await.unwrap());
    let shown_before = s
        .execute(header_width, vec![])
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    s.drag_by(&handle, (0, 0), (120, 0)).await.unwrap();
    let after = width(s.attribute(&handle, "data-width").await.unwrap());
    assert!(
        (after - before - 120.0).abs() <= 4.0,
        "dragged 120 px: data-width {before} -> {after}"
    );
    let shown_after = s
        .execute(header_width, vec![])
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    assert!(
        shown_after > shown_before + 100.0,
        "header width {shown_before} -> {shown_after}"
    );
    // The arrow keys resize too.
    s.send_keys(&handle, "\u{E014}").await.unwrap();
    let keyed = width(s.attribute(&handle, "data-width").await.unwrap());
    assert_eq!(keyed, after + 16.0);
    // The grip is wide enough to catch.
    let grip = s
        .execute(
            "return arguments[0].getBoundingClientRect().width;",
            vec![Session::arg(&handle)],
        )
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    assert!(grip >= 12.0, "a resize grip of {grip} px");
    frozen_header_stays_when_scrolled_right(s).await;
}

/// Scrolled right, the table's first column stays at its left edge, its header too.
async fn frozen_header_stays_when_scrolled_right(s: &Session) {
    let seen = page_promise(
        s,
        "const table = document.querySelector('[data-testid=\"datatable\"] .scroller');\
         const head = table.querySelector('[role=columnheader].frozen');\
         const cell = table.querySelector('[data-testid=\"table-row\"] .frozen');\
         table.scrollLeft = table.scrollWidth;\
         await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));\
         const box = table.getBoundingClientRect();\
         const h = head.getBoundingClientRect();\
         const c = cell.getBoundingClientRect();\
         const at = document.elementFromPoint(box.left + 10, h.top + h.height / 2);\
         const result = { scrolled: table.scrollLeft, head: h.left - box.left,\
           cell: c.left - box.left, shown: head.contains(at) };\
         table.scrollLeft = 0;\
         return result;",
    )
    .await;
    let v = &seen["ok"];
    assert!(v["scrolled"].as_f64().unwrap_or(0.0) > 100.0, "{seen}");
    for edge in ["head", "cell"] {
        assert!(
            v[edge].as_f64().is_some_and(|x| x.abs() <= 2.0),
            "{edge}: {seen}"
        );
    }
    assert_eq!(
        v["shown"],
        json!(true),
        "the frozen header is drawn: {seen}"
    );
}

/// Scrolls `e` into its own scrolling pane (the pointer clicks what shows) and clicks it,
/// by pointer or else by script; answers whether either click went through.
async fn scroll_and_click(s: &Session, e: &Element) -> bool {
    let _ = s
        .execute(
            "arguments[0].scrollIntoView({ block: 'nearest' });",
            vec![Session::arg(e)],
        )
        .await;
    s.click(e).await.is_ok() || s.script_click(e).await.is_ok()
}

/// Clicks the first element matching `css` whose `attr` is `value`, retrying while the
/// list re-renders.
async fn click_where(app: &App, css: &str, attr: &str, value: &str) {
    let s = app.session();
    for _ in 0..50 {
        for e in s.find_all(css).await.unwrap() {
            if s.attribute(&e, attr).await.ok().flatten().as_deref() == Some(value)
                && scroll_and_click(s, &e).await
            {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!(
        "no {css} with {attr}={value}; window saved in {}",
        app.dump("click-where").await.display()
    );
}

/// The Issues view with one issue's URLs, and the URL detail pane of a linked 404.
async fn issues_and_url_detail(app: &App) {
    let s = app.session();
    let audits = invoke(app, "list_audits", json!({})).await;
    let audit_id = audits[0]["id"].as_i64().unwrap();
    let issues = invoke(app, "list_issues", json!({ "auditId": audit_id })).await;
    // The issue of a finding that names the trailing-slash duplicate, and its URL rows.
    let shoes = invoke(
        app,
        "url_detail",
        json!({ "auditId": audit_id, "url": SLASH_PAIR[1] }),
    )
    .await;
    let code = shoes["findings"][0]["id"]
        .as_str()
        .expect("a finding names /shoes/")
        .to_owned();
    let filter = json!([{ "column": "issue", "op": "equals", "value": code, "upper": null }]);
    let page = invoke(
        app,
        "query_table",
        json!({ "auditId": audit_id, "query": {
            "table": "issueUrls", "sort": null, "search": null,
            "filters": filter, "offset": 0, "limit": 1 } }),
    )
    .await;
    let issue_rows = page["matched"].as_u64().unwrap();
    assert!(issue_rows > 0, "{page}");

    // The Overview leads with "Fix these first".
    s.click(&s.find(&tid("nav-overview")).await.unwrap())
        .await
        .unwrap();
    let first = s
        .wait_for_count(&tid("fix-first-item"), 1, Duration::from_secs(20))
        .await
        .unwrap();
    assert!(first.len() <= 5);
    let top = s.attribute(&first[0], "data-code").await.unwrap().unwrap();
    assert_eq!(json!(top), issues[0]["code"]);

    // Issues: pick that issue, its URL table lists its URLs.
    s.click(&s.find(&tid("nav-issues")).await.unwrap())
        .await
        .unwrap();
    let rows = s
        .wait_for_count(&tid("issue-row"), 1, Duration::from_secs(20))
        .await
        .unwrap();
    assert_eq!(rows.len(), issues.as_array().unwrap().len());
    click_where(app, &tid("issue-row"), "data-code", &code).await;
    s.wait_for_text(&tid("issue-detail"), Duration::from_secs(10), |t| {
        t.contains(code.as_str()) && t.contains("Why it matters")
    })
    .await
    .unwrap();
    wait_for_matched(app, issue_rows as usize, "the issue's URLs").await;
    let url_rows = s
        .wait_for_count(&tid("issue-url-row"), 1, Duration::from_secs(10))
        .await
        .unwrap();
    let mut listed = Vec::new();
    for r in &url_rows {
        listed.push(s.text_content(r).await.unwrap());
    }
    assert!(
        listed.iter().all(|t| t.contains(code.as_str())),
        "{listed:?}"
    );

    // A 404 with inlinks, from the Pages table's own export.
    let whole = app.scratch.join("pages-for-detail.csv");
    export_pages(app, audit_id, &whole).await;
    let all = read_csv(&whole);
    let broken = all
        .iter()
        .find(|r| {
            // Typed below: only characters sent without Shift under Xvfb.
            r["Status Code"] == "404"
                && r["Inlinks"].parse::<u32>().is_ok_and(|n| n > 0)
                && r["Address"].starts_with("https://")
                && r["Address"][8..]
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "./-".contains(c))
        })
        .expect("a linked 404 in the fixture");
    let url = broken["Address"].clone();
    let detail = invoke(
        app,
        "url_detail",
        json!({ "auditId": audit_id, "url": url }),
    )
    .await;
    let inlinks = detail["inlinks"].as_array().unwrap().len();
    assert!(inlinks > 0, "{detail}");

    s.click(&s.find(&tid("nav-tables")).await.unwrap())
        .await
        .unwrap();
    s.click(&s.find(&tid("table-tab-pages")).await.unwrap())
        .await
        .unwrap();
    s.find(&tid("url-detail-hint")).await.unwrap();
    // Filtered to addresses containing the 404's without its scheme (typed keys go out
    // without Shift under Xvfb, so no colon), then its own row clicked.
    let rest = &url["https://".len()..];
    let address = s.find(&tid("filter-address")).await.unwrap();
    s.type_into(&address, rest).await.unwrap();
    let containing = all
        .iter()
        .filter(|r| r["Address"].to_lowercase().contains(rest))
        .count();
    wait_for_matched(app, containing, "addresses containing the 404's").await;
    let cell_css = "[data-testid=\"table-row\"] [data-column=\"address\"]";
    let mut clicked = false;
    for _ in 0..50 {
        for cell in s.find_all(cell_css).await.unwrap() {
            if s.attribute(&cell, "title").await.ok().flatten().as_deref() == Some(url.as_str())
                && s.click(&cell).await.is_ok()
            {
                clicked = true;
                break;
            }
        }
        if clicked {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(clicked, "the row of {url}");
    let pane = s.find(&tid("url-detail")).await.unwrap();
    assert_eq!(
        s.attribute(&pane, "data-url").await.unwrap().as_deref(),
        Some(url.as_str())
    );
    s.wait_for_text(
        "[data-testid=\"url-detail-field\"][data-key=\"status_code\"]",
        Duration::from_secs(10),
        |t| t == "404",
    )
    .await
    .unwrap();
    s.click(&s.find(&tid("url-detail-tab-inlinks")).await.unwrap())
        .await
        .unwrap();
    let links = s
        .wait_for_count(&tid("url-detail-link"), inlinks, Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(links.len(), inlinks);
    for l in &links {
        let t = s.text_content(l).await.unwrap();
        assert!(t.trim_end().ends_with("404"), "{t}");
    }
    from_an_issue_to_its_inlinks(app, &url, &detail).await;
}

/// From an issue's URL to its inlinks in one click: in the Issues view, the issue of the
/// linked 404, its row clicked once, shows the URL detail pane with the inlinks and the
/// stored response headers; the inlinks' export writes every one of them.
async fn from_an_issue_to_its_inlinks(app: &App, url: &str, detail: &Value) {
    let s = app.session();
    let code = detail["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["urls"].as_array().unwrap().iter().any(|u| u == url))
        .and_then(|f| f["id"].as_str())
        .unwrap_or_else(|| panic!("no finding names {url}: {detail}"))
        .to_owned();
    let total = detail["inlinksTotal"].as_u64().unwrap() as usize;
    let shown = total.min(100);
    let source = detail["inlinks"][0]["url"].as_str().unwrap().to_owned();

    click_again(app, &tid("nav-issues")).await;
    click_where(app, &tid("issue-row"), "data-code", &code).await;
    s.wait_for_text(&tid("issue-detail"), Duration::from_secs(10), |t| {
        t.contains(code.as_str())
    })
    .await
    .unwrap();
    // The issue's URL table, searched down to the 404 (typed without Shift: no colon).
    let search = s.find(&tid("table-search")).await.unwrap();
    // Enter applies it at once; then its rows answer (a search that changes the rows
    // resets the row whose detail shows).
    s.type_into(&search, &format!("{}\u{E007}", &url["https://".len()..]))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(800)).await;
    let suffix = format!("\n{url}");
    let mut clicked = false;
    for _ in 0..50 {
        for row in s.find_all(&tid("issue-url-row")).await.unwrap() {
            let key = s.attribute(&row, "data-row-key").await.ok().flatten();
            if key.is_some_and(|k| k.ends_with(&suffix)) && s.click(&row).await.is_ok() {
                clicked = true;
                break;
            }
        }
        if clicked {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    if !clicked {
        panic!(
            "no row of {url} under {code}; window saved in {}",
            app.dump("issue-url").await.display()
        );
    }
    // One click: the pane shows that URL.
    let pane = s.find(&tid("url-detail")).await.unwrap();
    assert_eq!(
        s.attribute(&pane, "data-url").await.unwrap().as_deref(),
        Some(url)
    );
    s.wait_for_text(
        "[data-testid=\"url-detail-field\"][data-key=\"status_code\"]",
        Duration::from_secs(10),
        |t| t == "404",
    )
    .await
    .unwrap();
    // Its tabs are drawn, not covered by the issue's URL table above the pane.
    let tab = s.find(&tid("url-detail-tab-inlinks")).await.unwrap();
    let drawn = s
        .execute(
            "const t = arguments[0]; t.scrollIntoView({ block: 'nearest' });\
             const r = t.getBoundingClientRect();\
             return t.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));",
            vec![Session::arg(&tab)],
        )
        .await
        .unwrap();
    if drawn != json!(true) {
        panic!(
            "the detail pane's tabs are covered; window saved in {}",
            app.dump("pane-covered").await.display()
        );
    }
    click_again(app, &tid("url-detail-tab-inlinks")).await;
    let links = s
        .wait_for_count(&tid("url-detail-link"), shown, Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(links.len(), shown);
    let mut texts = Vec::new();
    for l in &links {
        texts.push(s.text_content(l).await.unwrap());
    }
    assert!(
        texts.iter().any(|t| t.contains(&source)),
        "{source} in {texts:?}"
    );
    // Its Response headers tab: the headers stored when it was fetched.
    click_again(app, &tid("url-detail-tab-headers")).await;
    let headers = s
        .wait_for_count(&tid("url-detail-header"), 1, Duration::from_secs(10))
        .await
        .unwrap();
    let mut names = Vec::new();
    for h in &headers {
        names.extend(s.attribute(h, "data-name").await.unwrap());
    }
    assert!(names.iter().any(|n| n == "content-type"), "{names:?}");
    assert!(
        s.find_all(&tid("url-detail-no-headers"))
            .await
            .unwrap()
            .is_empty()
    );

    // Export its inlinks: every one, each from a page linking to it.
    click_again(app, &tid("url-detail-tab-inlinks")).await;
    let out = app.scratch.join("inlinks-404.csv");
    s.execute(
        "window.dustpanAutomation = { savePath: arguments[0] };",
        vec![json!(out)],
    )
    .await
    .unwrap();
    click_again(app, &tid("url-links-export")).await;
    let said = s
        .wait_for_text(
            &tid("url-links-export-result"),
            Duration::from_secs(20),
            |t| t.contains("Wrote"),
        )
        .await
        .unwrap();
    let rows = read_csv(&out);
    assert_eq!(rows.len(), total, "{said}");
    assert_eq!(first_number(&said), total, "{said}");
    assert!(rows.iter().all(|r| r["Destination"] == url), "{rows:?}");
    assert!(
        rows.iter().any(|r| r["Source"] == source),
        "{source}: {rows:?}"
    );
    assert!(rows.iter().all(|r| r["Status Code"] == "404"), "{rows:?}");
}

/// Clicks the element matching `css`, found again while the view re-renders under it.
async fn click_again(app: &App, css: &str) {
    let s = app.session();
    for _ in 0..50 {
        if let Ok(e) = s.find(css).await
            && scroll_and_click(s, &e).await
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!(
        "cannot click {css}; window saved in {}",
        app.dump("click-again").await.display()
    );
}

/// Sets a form field to `text`: cleared by a script, then typed (the form reads typed
/// input; only characters sent without Shift under Xvfb).
async fn fill(app: &App, id: &str, text: &str) {
    let s = app.session();
    let field = s.find(&tid(id)).await.unwrap();
    s.execute(
        "arguments[0].value = ''; arguments[0].dispatchEvent(new Event('input', { bubbles: true }));",
        vec![Session::arg(&field)],
    )
    .await
    .unwrap();
    if !text.is_empty() {
        s.type_into(&field, text).await.unwrap();
    }
}

/// The pattern the form's audit excludes: the trailing-slash pair's URLs.
const EXCLUDED: &str = "shoes";

/// An audit started from the New audit form with an exclude pattern, nofollow links not
/// followed and a limit of 20 URLs: its stored configuration (the Audits list's row, what
/// a re-run does) holds both, and no URL matching the pattern was fetched. Answers its id.
async fn form_audit_with_an_exclude_and_nofollow_off(app: &App) -> i64 {
    let s = app.session();
    let before = invoke(app, "list_audits", json!({})).await;
    let previous = before[0]["id"].as_i64().unwrap().to_string();
    click_again(app, &tid("nav-new")).await;
    click_again(app, &tid("audit-source-url")).await;
    let url = s.find(&tid("audit-url")).await.unwrap();
    if s.value(&url).await.unwrap() != app.site().base_url() {
        fill(app, "audit-url", &app.site().base_url()).await;
    }
    fill(app, "audit-max-urls", "20").await;
    fill(app, "audit-excludes", EXCLUDED).await;
    let nofollow = s.find(&tid("audit-follow-nofollow")).await.unwrap();
    let checked = "return arguments[0].checked;";
    if s.execute(checked, vec![Session::arg(&nofollow)])
        .await
        .unwrap()
        == json!(true)
    {
        s.click(&nofollow).await.unwrap();
    }
    assert_eq!(
        s.execute(checked, vec![Session::arg(&nofollow)])
            .await
            .unwrap(),
        json!(false)
    );
    click_again(app, &tid("audit-start")).await;
    let (id, phase) = match wait_for_phase(s, Some(&previous), Duration::from_secs(120)).await {
        Ok(done) => done,
        Err(e) => panic!(
            "{e}; window saved in {}",
            app.dump("form-audit").await.display()
        ),
    };
    assert_eq!(phase, "done", "the form's audit ended with {phase:?}");
    let id: i64 = id.parse().unwrap();

    // Its stored configuration, as the list answers it and its row says it.
    let listed = invoke(app, "list_audits", json!({})).await;
    let item = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == json!(id))
        .unwrap()
        .clone();
    assert_eq!(item["excludes"], json!([EXCLUDED]), "{item}");
    assert_eq!(item["followNofollow"], json!(false), "{item}");
    assert!(item["stop"].is_string(), "stopped at 20 URLs: {item}");
    click_again(app, &tid("nav-audits")).await;
    let row = format!("[data-testid=\"audit-row\"][data-audit-id=\"{id}\"]");
    let rules = s
        .wait_for_count(
            &format!("{row} [data-testid=\"audit-row-crawl-rule\"]"),
            2,
            Duration::from_secs(10),
        )
        .await
        .unwrap();
    let mut said = Vec::new();
    for r in &rules {
        said.push(s.text_content(r).await.unwrap());
    }
    assert_eq!(
        said,
        [
            format!("[excluding URLs matching {EXCLUDED}]"),
            "[nofollow links not followed]".to_owned()
        ]
    );
    // The first audit's row has no such rule.
    let full = listed.as_array().unwrap().last().unwrap()["id"]
        .as_i64()
        .unwrap();
    let first_row = format!(
        "[data-testid=\"audit-row\"][data-audit-id=\"{full}\"] [data-testid=\"audit-row-crawl-rule\"]"
    );
    assert!(s.find_all(&first_row).await.unwrap().is_empty());

    // Nothing matching the pattern was fetched (the whole site's audit fetched some).
    let pages = app.scratch.join("pages-partial.csv");
    export_pages(app, id, &pages).await;
    let rows = read_csv(&pages);
    let fetched: Vec<&str> = rows
        .iter()
        .filter(|r| !r["Status Code"].is_empty())
        .map(|r| r["Address"].as_str())
        .collect();
    assert!(!fetched.is_empty());
    assert!(
        fetched.iter().all(|u| !u.contains(EXCLUDED)),
        "excluded URLs fetched: {fetched:?}"
    );
    let whole = read_csv(&app.scratch.join("pages-all.csv"));
    assert!(
        whole
            .iter()
            .any(|r| r["Address"].contains(EXCLUDED) && !r["Status Code"].is_empty()),
        "the whole site's audit fetched URLs matching {EXCLUDED}"
    );
    id
}

/// Compare, in the app, the partial audit (older) with the whole site's audit (newer):
/// the warnings say the older one is partial, and no URL it did not fetch is a status
/// change.
async fn compare_with_the_partial_older_audit(app: &App, partial: i64) {
    let s = app.session();
    let full = first_audit(app).await;
    let fetched: BTreeSet<String> = read_csv(&app.scratch.join("pages-partial.csv"))
        .into_iter()
        .filter(|r| !r["Status Code"].is_empty())
        .map(|r| r["Address"].clone())
        .collect();
    click_again(app, &tid("nav-compare")).await;
    for (id, pick) in [("compare-old", partial), ("compare-new", full)] {
        let select = s.find(&tid(id)).await.unwrap();
        s.execute(
            "arguments[0].value = String(arguments[1]);\
             arguments[0].dispatchEvent(new Event('change', { bubbles: true }));",
            vec![Session::arg(&select), json!(pick)],
        )
        .await
        .unwrap();
    }
    click_again(app, &tid("compare-run")).await;
    let warnings = match s
        .wait_for_text(&tid("compare-warnings"), Duration::from_secs(60), |t| {
            !t.is_empty()
        })
        .await
    {
        Ok(t) => t,
        Err(e) => panic!(
            "{e}; window saved in {}",
            app.dump("compare").await.display()
        ),
    };
    assert!(warnings.contains("partial"), "{warnings}");
    assert!(warnings.contains("max_urls"), "{warnings}");
    s.find(&tid("compare-summary")).await.unwrap();
    let changed = s
        .execute(
            "return [...document.querySelectorAll('[data-testid=\"compare-section\"][data-section=\"responses\"] [data-testid=\"compare-url\"]')].map(e => e.dataset.url);",
            vec![],
        )
        .await
        .unwrap();
    // The same rows from the command the view calls, with the status before: each is of
    // a URL the older audit fetched; none its own exclude pattern kept out, none it left
    // at its limit (those are not compared, counted apart with the reason).
    let diff = invoke(
        app,
        "compare_audits",
        json!({ "oldAudit": partial, "newAudit": full }),
    )
    .await;
    let text = |c: &Value| match c {
        Value::String(t) => t.clone(),
        Value::Object(o) => o
            .values()
            .next()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .unwrap_or_default(),
        other => other.to_string(),
    };
    let responses = diff["sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|sec| sec["key"] == "responses")
        .cloned()
        .unwrap_or(json!({ "rows": [] }));
    let rows = responses["rows"].as_array().unwrap();
    let shown: Vec<&str> = changed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for row in rows {
        let (url, before) = (text(&row[0]), text(&row[1]));
        assert!(
            shown.contains(&url.as_str()),
            "{url} is not shown: {shown:?}"
        );
        assert!(
            fetched.contains(&url) && !url.contains(EXCLUDED),
            "{url} ({before}), not fetched by the older audit, is a status change"
        );
    }
    assert!(
        shown.iter().all(|u| !u.contains(EXCLUDED)),
        "a URL the older audit excluded is a status change: {shown:?}"
    );
    // The URLs its pattern kept out: counted apart in the summary, listed with the reason.
    let summary = s
        .text_content(&s.find(&tid("compare-summary")).await.unwrap())
        .await
        .unwrap();
    let counted = diff["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| {
            c["label"]
                .as_str()
                .unwrap_or("")
                .starts_with("URLs not compared")
        })
        .unwrap_or_else(|| panic!("no not-compared count: {diff}"))["count"]
        .as_u64()
        .unwrap();
    assert!(counted > 0, "{diff}");
    assert!(summary.contains("URLs not compared"), "{summary}");
    let reasons = s
        .execute(
            "return [...document.querySelectorAll('[data-testid=\"compare-section\"][data-section=\"not_compared\"] tbody tr')].map(r => r.textContent);",
            vec![],
        )
        .await
        .unwrap();
    let reasons: Vec<&str> = reasons
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let because =
        format!("outside the older audit's crawl rules: excluded by pattern `{EXCLUDED}`");
    assert!(
        reasons
            .iter()
            .any(|r| r.contains(EXCLUDED) && r.contains(&because)),
        "{reasons:?}"
    );
    assert!(
        diff["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap_or("").contains("partial")),
        "{diff}"
    );
}

/// The External table of the whole site's audit lists its link to the blog; the Excel
/// workbook and the HTML report written from the Overview's buttons: every table a sheet
/// (External among them), and a report without script whose crawled text is escaped (the
/// long start URL's `&` as `&amp;`).
async fn external_table_and_client_files(app: &App, long_id: i64) {
    let s = app.session();
    let full = first_audit(app).await;
    open_from_the_list(app, full).await;
    click_again(app, &tid("nav-tables")).await;
    click_again(app, &tid("table-tab-external")).await;
    let css = "[data-table=\"external\"] [data-testid=\"table-row\"] [data-column=\"address\"]";
    s.wait_for_count(css, 1, Duration::from_secs(20))
        .await
        .unwrap();
    // Read again while the table's rows are replaced under us.
    let mut targets = Vec::new();
    for _ in 0..50 {
        targets.clear();
        for c in s.find_all(css).await.unwrap() {
            targets.extend(s.attribute(&c, "title").await.ok().flatten());
        }
        if targets.iter().any(|t| t == "https://blog.example.test/") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        targets.iter().any(|t| t == "https://blog.example.test/"),
        "{targets:?}"
    );

    // The workbook: a sheet per table, the External table's among them.
    click_again(app, &tid("nav-overview")).await;
    let book = app.scratch.join("audit.xlsx");
    s.execute(
        "window.dustpanAutomation = { savePath: arguments[0] };",
        vec![json!(book)],
    )
    .await
    .unwrap();
    click_again(app, &tid("export-workbook")).await;
    let said = s
        .wait_for_text(&tid("export-client-result"), Duration::from_secs(60), |t| {
            t.contains("workbook")
        })
        .await
        .unwrap();
    let workbook = zipped(&book, "xl/workbook.xml");
    let sheets: Vec<&str> = workbook
        .split("<sheet ")
        .skip(1)
        .filter_map(|s| s.split("name=\"").nth(1)?.split('"').next())
        .collect();
    assert_eq!(sheets.len(), first_number(&said), "{said}: {sheets:?}");
    for name in ["pages", "issue_urls", "clusters", "external_links"] {
        assert!(sheets.contains(&name), "{name} not in {sheets:?}");
    }
    let external = sheets.iter().position(|n| *n == "external_links").unwrap();
    let sheet = zipped(&book, &format!("xl/worksheets/sheet{}.xml", external + 1));
    assert!(
        sheet.matches("<row ").count() > 1,
        "the External sheet has rows"
    );

    // The HTML report of the audit of the long start URL (its query has `&`).
    open_from_the_list(app, long_id).await;
    click_again(app, &tid("nav-overview")).await;
    let html = app.scratch.join("audit.html");
    s.execute(
        "window.dustpanAutomation = { savePath: arguments[0] };",
        vec![json!(html)],
    )
    .await
    .unwrap();
    click_again(app, &tid("export-html")).await;
    s.wait_for_text(&tid("export-client-result"), Duration::from_secs(60), |t| {
        t.contains("HTML report")
    })
    .await
    .unwrap();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(!page.to_ascii_lowercase().contains("<script"), "{page}");
    assert!(page.contains("&amp;sort=price-ascending&amp;"), "{page}");
    assert!(!page.contains("&sort="), "an unescaped crawled `&`");
    assert!(page.contains("default-src 'none'"));

    // Every keyboard shortcut, listed from the sidebar, in the window.
    click_again(app, &tid("nav-shortcuts")).await;
    let keys = s
        .wait_for_count(&tid("shortcut"), 5, Duration::from_secs(5))
        .await
        .unwrap();
    let mut listed = Vec::new();
    for k in &keys {
        listed.push(s.text_content(k).await.unwrap());
    }
    assert!(listed.iter().any(|k| k.contains("Ctrl+C")), "{listed:?}");
    let fits = s
        .execute(
            "const r = document.querySelector('[data-testid=\"shortcuts-panel\"]').getBoundingClientRect();\
             return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(fits, json!(true), "the shortcuts panel in the window");
    click_again(app, &tid("shortcuts-close")).await;
    assert!(
        s.find_all(&tid("shortcuts-panel"))
            .await
            .unwrap()
            .is_empty()
    );
}

/// The id of the site's first audit (the audits list is newest first).
async fn first_audit(app: &App) -> i64 {
    let listed = invoke(app, "list_audits", json!({})).await;
    listed.as_array().unwrap().last().unwrap()["id"]
        .as_i64()
        .unwrap()
}

/// Opens audit `id` from the Audits list.
async fn open_from_the_list(app: &App, id: i64) {
    let s = app.session();
    s.click(&s.find(&tid("nav-audits")).await.unwrap())
        .await
        .unwrap();
    let open = s
        .find(&format!(
            "[data-testid=\"audit-row\"][data-audit-id=\"{id}\"] [data-testid=\"audit-open\"]"
        ))
        .await
        .unwrap();
    s.script_click(&open).await.unwrap();
    // Its own overview, not the one open before.
    let css = format!("{} + .muted", tid("overview-url"));
    let own = format!("audit #{id} ");
    s.wait_for_text(&css, Duration::from_secs(60), |t| t.contains(&own))
        .await
        .unwrap();
}

/// The file `name` of the zip archive `path`, as text.
fn zipped(path: &std::path::Path, name: &str) -> String {
    use std::io::Read as _;
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut text = String::new();
    zip.by_name(name)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// A list audit started from the New audit form: the file dialog answered by the
/// automation hook, the resolve overrides still in the form from the first audit.
/// Answers its id.
async fn list_audit_from_a_file(app: &App) -> i64 {
    let s = app.session();
    let before = invoke(app, "list_audits", json!({})).await;
    let previous = before[0]["id"].as_i64().unwrap().to_string();
    let base = app.site().base_url();
    let list = app.scratch.join("urls.txt");
    std::fs::write(
        &list,
        format!("{base}shoes\n{base}shoes/\n{base}chain/start\nnot a url\n"),
    )
    .unwrap();
    s.execute(
        "window.dustpanAutomation = { listFile: arguments[0] };",
        vec![json!(list)],
    )
    .await
    .unwrap();
    s.click(&s.find(&tid("nav-new")).await.unwrap())
        .await
        .unwrap();
    // The form kept the first audit's overrides.
    let resolve = s.find(&tid("audit-resolve")).await.unwrap();
    let kept = s.value(&resolve).await.unwrap();
    assert!(kept.contains("127.0.0.1"), "{kept:?}");
    s.click(&s.find(&tid("audit-source-list")).await.unwrap())
        .await
        .unwrap();
    s.click(&s.find(&tid("audit-list-browse")).await.unwrap())
        .await
        .unwrap();
    let field = s.find(&tid("audit-list-file")).await.unwrap();
    for _ in 0..50 {
        if s.value(&field).await.unwrap() == list.display().to_string() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(s.value(&field).await.unwrap(), list.display().to_string());
    s.click(&s.find(&tid("audit-start")).await.unwrap())
        .await
        .unwrap();
    let (id, phase) = match wait_for_phase(s, Some(&previous), Duration::from_secs(120)).await {
        Ok(done) => done,
        Err(e) => panic!(
            "{e}; window saved in {}",
            app.dump("list-audit").await.display()
        ),
    };
    assert_eq!(phase, "done", "the list audit ended with {phase:?}");
    let id: i64 = id.parse().unwrap();
    let page = invoke(
        app,
        "query_table",
        json!({ "auditId": id, "query": {
            "table": "pages", "sort": null, "search": null,
            "filters": [], "offset": 0, "limit": 1000 } }),
    )
    .await;
    let keys: Vec<&str> = page["rowKeys"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for listed in ["shoes", "shoes/", "chain/start"] {
        let url = format!("{base}{listed}");
        assert!(keys.contains(&url.as_str()), "{url} not audited: {keys:?}");
    }
    // A list audit stays on its list: no crawl of the whole site.
    let whole = invoke(app, "list_audits", json!({})).await;
    let first_pages = whole[1]["pages"].as_i64().unwrap();
    let list_pages = whole[0]["pages"].as_i64().unwrap();
    assert!(
        list_pages < first_pages / 2,
        "{list_pages} of {first_pages}"
    );
    id
}

/// Picks audit `id` in the `<select>` of test id `select` as a user does (the view reads
/// its change event).
async fn pick_audit(app: &App, select: &str, id: i64) {
    let s = app.session();
    let e = s.find(&tid(select)).await.unwrap();
    s.execute(
        "arguments[0].value = String(arguments[1]);\
         arguments[0].dispatchEvent(new Event('change', { bubbles: true }));",
        vec![Session::arg(&e), json!(id)],
    )
    .await
    .unwrap();
}

/// The Migrate view with the site's first audit as the old site and the list audit of
/// three of its URLs as the new one: the rows (unmatched first, then mapped, then kept)
/// and the redirect map's simulation verdict, as the command the view calls answers them.
async fn migrate_onto_the_list_audit(app: &App, list_id: i64) {
    let s = app.session();
    let audits = invoke(app, "list_audits", json!({})).await;
    let first = first_audit(app).await;
    click_again(app, &tid("nav-migrate")).await;
    s.wait_for_count(
        &format!("{} option", tid("migrate-new")),
        audits.as_array().unwrap().len() + 1,
        Duration::from_secs(10),
    )
    .await
    .unwrap();
    pick_audit(app, "migrate-old", first).await;
    pick_audit(app, "migrate-new", list_id).await;
    click_again(app, &tid("migrate-run")).await;
    let verdict = match s
        .wait_for_text(&tid("migrate-verdict"), Duration::from_secs(120), |t| {
            t.contains("simulated on audit")
        })
        .await
    {
        Ok(t) => t,
        Err(e) => panic!(
            "{e}; window saved in {}",
            app.dump("migrate").await.display()
        ),
    };
    let expected = invoke(
        app,
        "migrate_audits",
        json!({ "oldAudit": first, "newAudit": list_id }),
    )
    .await;
    let summary = s
        .text(&s.find(&tid("migrate-summary")).await.unwrap())
        .await
        .unwrap();
    let kept = expected["kept"].as_u64().unwrap();
    let mapped = expected["mapped"].as_u64().unwrap();
    let unmatched = expected["unmatched"].as_u64().unwrap();
    assert!(
        summary.contains(&format!(
            "{kept} kept at their URL, {mapped} mapped, {unmatched} unmatched"
        )),
        "{summary} / {expected}"
    );
    // The list audit holds /shoes and /shoes/: some old pages are kept, the copies of
    // /shoes (its URL variants) are mapped, the rest of the site is unmatched.
    assert!(kept >= 1 && mapped >= 1 && unmatched >= 1, "{expected}");
    let rows = s.find_all(&tid("migrate-row")).await.unwrap();
    let want = expected["rows"].as_array().unwrap();
    assert_eq!(rows.len(), want.len().min(1000));
    let mut bases = Vec::new();
    for row in &rows {
        bases.push(
            s.attribute(row, "data-basis")
                .await
                .unwrap()
                .unwrap_or_default(),
        );
    }
    let expected_bases: Vec<&str> = want
        .iter()
        .take(rows.len())
        .map(|r| r["basis"].as_str().unwrap())
        .collect();
    assert_eq!(bases, expected_bases);
    assert_eq!(bases.first().map(String::as_str), Some("no match"));
    assert_eq!(bases.last().map(String::as_str), Some("same URL"));
    // The map Dustpan writes simulates clean on the new audit, and the view says so.
    let sim = &expected["simulation"];
    assert_eq!(sim["clean"], json!(true), "{sim}");
    assert_eq!(sim["redirects"].as_u64().unwrap(), mapped);
    let verdict_el = s.find(&tid("migrate-verdict")).await.unwrap();
    assert_eq!(
        s.attribute(&verdict_el, "data-clean")
            .await
            .unwrap()
            .as_deref(),
        Some("true")
    );
    assert!(
        verdict.contains(&format!(
            "({mapped} redirects) simulated on audit #{list_id}: clean"
        )),
        "{verdict}"
    );
    assert!(
        s.find_all(&tid("migrate-problem"))
            .await
            .unwrap()
            .is_empty()
    );
}

/// The first audit's Fix plan verified on the live fixture, as a user does it: Verify,
/// the list audit's progress, then each planned line marked. The fixture serves none of
/// the plan's new redirects, so they are missing; the redirects it already answers are
/// done. The marks are the command's, and the counts add up to the rows.
async fn verify_the_first_audits_plan(app: &App) {
    let s = app.session();
    let first = first_audit(app).await;
    open_from_the_list(app, first).await;
    click_again(app, &tid("nav-fixplan")).await;
    click_again(app, &tid("fixplan-verify-start")).await;
    let line = match s
        .wait_for_text(
            &tid("fixplan-verification"),
            Duration::from_secs(180),
            |t| t.contains("Verification audit #"),
        )
        .await
    {
        Ok(t) => t,
        Err(e) => panic!(
            "{e}; window saved in {}",
            app.dump("verify").await.display()
        ),
    };
    let verification_id: i64 = line
        .split('#')
        .nth(1)
        .and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no audit id in {line:?}"));
    assert!(verification_id > first, "{line}");
    assert!(line.contains("some lines are not done"), "{line}");
    let expected = invoke(
        app,
        "verification_result",
        json!({ "auditId": first, "verificationId": verification_id, "planDir": null }),
    )
    .await;
    let rows = s.find_all(&tid("fixplan-check")).await.unwrap();
    let want = expected["checks"].as_array().unwrap();
    assert_eq!(rows.len(), want.len(), "{expected}");
    let mut marks = Vec::new();
    for row in &rows {
        marks.push(
            s.attribute(row, "data-verdict")
                .await
                .unwrap()
                .unwrap_or_default(),
        );
    }
    let expected_marks: Vec<&str> = want
        .iter()
        .map(|c| c["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(marks, expected_marks);
    for verdict in ["missing", "done"] {
        assert!(
            marks.iter().any(|m| m == verdict),
            "no {verdict}: {marks:?}"
        );
    }
    // Those not done first.
    let first_done = marks.iter().position(|m| m == "done").unwrap();
    assert!(marks[first_done..].iter().all(|m| m == "done"), "{marks:?}");
    // The counts by verdict, as shown, add up to the rows.
    let mut total = 0;
    for row in s
        .find_all(&format!(
            "{} tr[data-verdict]",
            tid("fixplan-verdict-counts")
        ))
        .await
        .unwrap()
    {
        let verdict = s.attribute(&row, "data-verdict").await.unwrap().unwrap();
        let text = s.text_content(&row).await.unwrap();
        let n = number(&text);
        assert_eq!(
            n as usize,
            marks.iter().filter(|m| **m == verdict).count(),
            "{verdict}: {text}"
        );
        total += n as usize;
    }
    assert_eq!(total, rows.len());
}
