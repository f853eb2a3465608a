//! Takes a screenshot of each main view of the desktop app with two real audits of the
//! fixture site (before and after its changes), for the README: every view at 1280×800
//! and at 1024×640, each after the same layout checks the end-to-end test makes
//! (`desktop_e2e::shots`).
//!
//! `bash scripts/screenshots.sh` builds the app and runs this under Xvfb;
//! the PNGs go to the directory given as the first argument (default `docs/screenshots`).

use anyhow::{Result, bail};
use desktop_e2e::shots::{self, SIZES};
use desktop_e2e::{App, AppOptions, Session, Shots, wait_for_phase};
use fixture::SiteVariant;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn tid(id: &str) -> String {
    format!("[data-testid=\"{id}\"]")
}

async fn invoke(s: &Session, command: &str, args: Value) -> Result<Value> {
    let script = "const [cmd, args, done] = arguments;\
        window.__TAURI_INTERNALS__.invoke(cmd, args)\
          .then(v => done({ ok: v }), e => done({ err: String(e) }));";
    let out = s.execute_async(script, vec![json!(command), args]).await?;
    if let Some(err) = out.get("err") {
        bail!("{command}: {err}");
    }
    Ok(out["ok"].clone())
}

async fn click(s: &Session, id: &str) -> Result<()> {
    let e = s.find(&tid(id)).await?;
    s.click(&e).await
}

/// Starts an audit through the form and waits for it to end.
async fn audit_through_form(app: &App, previous: Option<&str>) -> Result<String> {
    let s = app.session();
    click(s, "nav-new").await?;
    let url = s.find(&tid("audit-url")).await?;
    s.type_into(&url, &app.site().base_url()).await?;
    let resolve = s.find(&tid("audit-resolve")).await?;
    s.type_into(&resolve, &app.resolve_entries().join("\u{E007}"))
        .await?;
    click(s, "audit-start").await?;
    let started = Instant::now();
    let (id, phase) = wait_for_phase(s, previous, Duration::from_secs(300)).await?;
    eprintln!(
        "audit {id} {phase} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(id)
}

/// Picks the two audits in the Audits view and compares them (older first).
async fn compare(s: &Session) -> Result<()> {
    click(s, "nav-audits").await?;
    for pick in s
        .wait_for_count(&tid("audit-select"), 2, Duration::from_secs(10))
        .await?
    {
        if s.execute("return arguments[0].checked;", vec![Session::arg(&pick)])
            .await?
            != json!(true)
        {
            s.script_click(&pick).await?;
        }
    }
    click(s, "audits-compare").await?;
    s.wait_for_count(&tid("compare-section"), 1, Duration::from_secs(60))
        .await?;
    Ok(())
}

/// Sets a field's value as typing would (the form and the tables read `input` events).
async fn set_value(s: &Session, id: &str, value: &str) -> Result<()> {
    let field = s.find(&tid(id)).await?;
    s.execute(
        "arguments[0].value = arguments[1];\
         arguments[0].dispatchEvent(new Event('input', { bubbles: true }));",
        vec![Session::arg(&field), json!(value)],
    )
    .await?;
    Ok(())
}

/// A linked 404 of audit `audit_id` with the code of an issue naming it: the URL with the
/// most inlinks.
async fn linked_404(s: &Session, audit_id: i64) -> Result<(String, String)> {
    let page = invoke(
        s,
        "query_table",
        json!({ "auditId": audit_id, "query": {
            "table": "pages", "sort": { "column": "inlinks", "descending": true },
            "search": null,
            "filters": [{ "column": "status_code", "op": "eq", "value": "404", "upper": null }],
            "offset": 0, "limit": 50 } }),
    )
    .await?;
    for key in page["rowKeys"].as_array().into_iter().flatten() {
        let Some(url) = key.as_str() else { continue };
        let detail = invoke(s, "url_detail", json!({ "auditId": audit_id, "url": url })).await?;
        let code = detail["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|f| {
                f["urls"]
                    .as_array()
                    .is_some_and(|u| u.iter().any(|u| u == url))
            })
            .and_then(|f| f["id"].as_str());
        if let Some(code) = code
            && detail["inlinksTotal"].as_u64().unwrap_or(0) > 0
        {
            return Ok((url.to_owned(), code.to_owned()));
        }
    }
    bail!("no linked 404 with an issue in audit {audit_id}: {page}")
}

/// A working day's views at every size: an issue's URL in the detail pane with its
/// inlinks and its response headers, the New audit form with an exclude pattern and
/// nofollow links not followed, and the External table.
async fn working_day(s: &Session, shots: &mut Shots, audit_id: i64) -> Result<()> {
    let (url, code) = linked_404(s, audit_id).await?;
    let row = format!("[data-testid=\"issue-row\"][data-code=\"{code}\"]");
    for size in SIZES {
        shots.resize(s, size).await?;
        press(s, "nav-issues").await?;
        let issue = s.find(&row).await?;
        s.script_click(&issue).await?;
        s.wait_for_count(&tid("issue-url-row"), 1, Duration::from_secs(20))
            .await?;
        set_value(s, "table-search", &url).await?;
        // Applied at once (Enter), before the row is chosen: a later search resets it.
        let search = s.find(&tid("table-search")).await?;
        s.execute(
            "arguments[0].dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));",
            vec![Session::arg(&search)],
        )
        .await?;
        tokio::time::sleep(Duration::from_millis(800)).await;
        let suffix = format!("\n{url}");
        let mut clicked = false;
        for _ in 0..50 {
            for r in s.find_all(&tid("issue-url-row")).await? {
                let key = s.attribute(&r, "data-row-key").await.ok().flatten();
                if key.is_some_and(|k| k.ends_with(&suffix)) && s.script_click(&r).await.is_ok() {
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
            bail!("no row of {url} under {code}");
        }
        press(s, "url-detail-tab-inlinks").await?;
        s.wait_for_count(&tid("url-detail-link"), 1, Duration::from_secs(10))
            .await?;
        scroll_to(s, "url-detail").await?;
        shots.take(s, "issue-inlinks", &[]).await?;
        press(s, "url-detail-tab-headers").await?;
        s.wait_for_count(&tid("url-detail-header"), 1, Duration::from_secs(10))
            .await?;
        scroll_to(s, "url-detail").await?;
        shots.take(s, "url-headers", &[]).await?;

        press(s, "nav-new").await?;
        press(s, "audit-source-url").await?;
        set_value(s, "audit-excludes", r"\?replytocom=").await?;
        let nofollow = s.find(&tid("audit-follow-nofollow")).await?;
        if s.execute(
            "return arguments[0].checked;",
            vec![Session::arg(&nofollow)],
        )
        .await?
            == json!(true)
        {
            s.script_click(&nofollow).await?;
        }
        scroll_to(s, "audit-follow-nofollow").await?;
        shots.take(s, "new-audit-options", &[]).await?;

        press(s, "nav-tables").await?;
        press(s, "table-tab-external").await?;
        s.wait_for_count(&tid("table-row"), 1, Duration::from_secs(20))
            .await?;
        shots.take(s, "external", &[]).await?;
    }
    shots.resize(s, SIZES[0]).await
}

/// Clicks the element of test id `id` by script, scrolled into view first (a pane's tab
/// may sit under another view's edge).
async fn press(s: &Session, id: &str) -> Result<()> {
    scroll_to(s, id).await?;
    let e = s.find(&tid(id)).await?;
    s.script_click(&e).await
}

/// Scrolls the element of test id `id` into the middle of its scrolling view.
async fn scroll_to(s: &Session, id: &str) -> Result<()> {
    let e = s.find(&tid(id)).await?;
    s.execute(
        "arguments[0].scrollIntoView({ block: 'center' });",
        vec![Session::arg(&e)],
    )
    .await?;
    Ok(())
}

#[tokio::main]
async fn main() -> Result<()> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "docs/screenshots".into()),
    );
    let mut shots = Shots::new(&dir)?;
    let app = App::start(AppOptions::default()).await?;
    let s = app.session();
    shots.resize(s, SIZES[0]).await?;

    // The first audit; the progress panel is captured when it ends, with the detail of its
    // latest error open.
    click(s, "nav-new").await?;
    shots.take(s, "new-audit", &[]).await?;
    let first = audit_through_form(&app, None).await?;
    let errors = s
        .wait_for_count(&tid("progress-latest-error"), 1, Duration::from_secs(10))
        .await?;
    s.click(&errors[0]).await?;
    s.wait_for_count(&tid("url-detail-field"), 1, Duration::from_secs(30))
        .await?;
    for size in SIZES {
        shots.resize(s, size).await?;
        // The panel's counts, its latest errors and the detail pane of the one clicked.
        s.execute(
            "document.querySelector('[data-testid=\"progress-panel\"] h2')\
               .scrollIntoView({ block: 'start' });",
            vec![],
        )
        .await?;
        shots.take(s, "progress", &[]).await?;
    }
    shots.resize(s, SIZES[0]).await?;

    // The site changes (a fix applied, a new problem), then a second audit.
    app.site().set_variant(SiteVariant::After);
    audit_through_form(&app, Some(&first)).await?;

    let audits = invoke(s, "list_audits", json!({})).await?;
    if audits.as_array().map_or(0, Vec::len) < 2 {
        bail!("expected two audits, got {audits}");
    }
    // The first (before) audit has the most findings.
    let first: i64 = first.parse()?;
    shots::tour(s, &mut shots, first).await?;
    working_day(s, &mut shots, first).await?;
    compare(s).await?;
    for size in SIZES {
        shots.resize(s, size).await?;
        shots.take(s, "compare", &[]).await?;
    }
    eprintln!(
        "{} screenshots in {}",
        shots.written().len(),
        shots.dir().display()
    );
    app.stop().await
}
