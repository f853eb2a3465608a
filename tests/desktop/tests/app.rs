//! End to end in the real desktop app: start an audit of the fixture site from the form,
//! wait for it to finish, open the trailing-slash cluster and check its members and fix,
//! export CSV and check its rows.
//!
//! Run: `xvfb-run -a cargo test -p desktop-e2e -- --ignored` after building the app
//! (`npm --prefix ui run build && cargo build -p dustpan-desktop`); `scripts/test.sh`
//! does all of it.

#![allow(clippy::unwrap_used)]

use desktop_e2e::{App, AppOptions, wait_for_phase};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;

const SLASH_PAIR: [&str; 2] = ["https://example.test/shoes", "https://example.test/shoes/"];

fn tid(id: &str) -> String {
    format!("[data-testid=\"{id}\"]")
}

/// Calls a backend command from inside the webview, as the UI does.
async fn invoke(app: &App, command: &str, args: Value) -> Value {
    let script = "const [cmd, args, done] = arguments;\
        window.__TAURI_INTERNALS__.invoke(cmd, args)\
          .then(v => done({ ok: v }), e => done({ err: String(e) }));";
    let out = app
        .session()
        .execute_async(script, vec![json!(command), args])
        .await
        .unwrap();
    assert!(out.get("err").is_none(), "{command}: {out}");
    out["ok"].clone()
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
        t.contains("matched")
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
    assert_eq!(fix_texts.len(), members.len() - 1, "{fix_texts:?}");
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
            t.contains("Wrote")
        })
        .await
        .unwrap();
    let written: usize = result
        .split_whitespace()
        .find_map(|w| w.replace(',', "").parse().ok())
        .unwrap();
    let rows = read_csv(&out);
    assert_eq!(written, rows.len(), "{result}");
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

    app.stop().await.unwrap();
}
