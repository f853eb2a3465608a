//! Takes a screenshot of each main view of the desktop app with two real audits of the
//! fixture site (before and after its changes), for the README.
//!
//! `bash scripts/screenshots.sh` builds the app and runs this under Xvfb;
//! the PNGs go to the directory given as the first argument (default `docs/screenshots`).

use anyhow::{Context, Result, bail};
use desktop_e2e::{App, AppOptions, Session, wait_for_phase};
use fixture::SiteVariant;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
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

async fn shot(s: &Session, dir: &Path, name: &str) -> Result<()> {
    // Let charts and tables settle.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let png = s.screenshot().await?;
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, png).with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
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
        s.script_click(&pick).await?;
    }
    click(s, "audits-compare").await?;
    s.wait_for_count(&tid("compare-section"), 1, Duration::from_secs(60))
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
    std::fs::create_dir_all(&dir)?;
    let app = App::start(AppOptions::default()).await?;
    let s = app.session();

    // The first audit; the progress view is captured while it runs.
    click(s, "nav-new").await?;
    shot(s, &dir, "new-audit").await?;
    let first = audit_through_form(&app, None).await?;
    shot(s, &dir, "progress").await?;

    // The site changes (a fix applied, a new problem), then a second audit.
    app.site().set_variant(SiteVariant::After);
    audit_through_form(&app, Some(&first)).await?;

    let audits = invoke(s, "list_audits", json!({})).await?;
    let ids: Vec<i64> = audits
        .as_array()
        .map(|a| a.iter().filter_map(|x| x["id"].as_i64()).collect())
        .unwrap_or_default();
    if ids.len() < 2 {
        bail!("expected two audits, got {audits}");
    }

    click(s, "nav-audits").await?;
    shot(s, &dir, "audits").await?;
    let open = s
        .wait_for_count(&tid("audit-open"), 2, Duration::from_secs(10))
        .await?;
    // Newest first: open the first (before) audit, which has the most findings.
    s.script_click(&open[open.len() - 1]).await?;
    s.wait_for_count(&tid("stat-pages"), 1, Duration::from_secs(60))
        .await?;
    click(s, "nav-overview").await?;
    s.wait_for_count(&tid("fix-first-item"), 1, Duration::from_secs(30))
        .await?;
    shot(s, &dir, "overview").await?;
    click(s, "nav-issues").await?;
    s.wait_for_count(&tid("issue-url-row"), 1, Duration::from_secs(30))
        .await?;
    shot(s, &dir, "issues").await?;
    click(s, "nav-clusters").await?;
    shot(s, &dir, "clusters").await?;
    let clusters = s
        .wait_for_count(&tid("cluster-row"), 1, Duration::from_secs(10))
        .await?;
    s.click(&clusters[0]).await?;
    s.wait_for_count(&tid("member-row"), 2, Duration::from_secs(10))
        .await?;
    shot(s, &dir, "cluster").await?;
    click(s, "nav-findings").await?;
    shot(s, &dir, "findings").await?;
    click(s, "nav-tables").await?;
    shot(s, &dir, "tables").await?;
    // The URL detail pane of a row of the pages table.
    let rows = s
        .wait_for_count(&tid("table-row"), 3, Duration::from_secs(10))
        .await?;
    s.click(&rows[2]).await?;
    s.wait_for_count(&tid("url-detail-field"), 1, Duration::from_secs(10))
        .await?;
    shot(s, &dir, "url-detail").await?;
    // The smaller window: nothing may be cut off.
    if s.set_window_size(1024, 640).await.is_ok() {
        tokio::time::sleep(Duration::from_millis(500)).await;
        shot(s, &dir, "url-detail-1024").await?;
        click(s, "nav-issues").await?;
        shot(s, &dir, "issues-1024").await?;
        click(s, "nav-audits").await?;
        shot(s, &dir, "audits-1024").await?;
        s.set_window_size(1280, 800).await?;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    compare(s).await?;
    shot(s, &dir, "compare").await?;

    app.stop().await
}
