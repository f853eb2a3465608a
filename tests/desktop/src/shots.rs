//! Screenshots and layout checks at the window sizes the app is made for, shared by the
//! end-to-end test (into `target/e2e/screenshots`) and the screenshot program (into
//! `docs/screenshots`): the README's pictures come from the same code the test runs.
//!
//! Every picture is taken after the layout was checked: no sideways scrolling of the page
//! or of its main area, and the controls named for the view inside the window.

use crate::webdriver::Session;
use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The window sizes checked and pictured: the usual laptop window and the smallest one the
/// app supports.
pub const SIZES: [(u32, u32); 2] = [(1280, 800), (1024, 640)];

/// Elements that must be inside the window, each matched by a CSS selector and at least
/// so many pixels wide.
pub type Inside<'a> = &'a [(&'a str, u32)];

/// What must be inside the window on the Audits list: every row's actions.
pub const AUDIT_ACTIONS: Inside<'static> = &[
    (
        "[data-testid=\"audit-row\"] [data-testid=\"audit-open\"]",
        0,
    ),
    (
        "[data-testid=\"audit-row\"] [data-testid=\"audit-rerun\"]",
        0,
    ),
    (
        "[data-testid=\"audit-row\"] [data-testid=\"audit-delete\"]",
        0,
    ),
];

/// What must be inside the window on the Clusters view: the Fix column's header, wide
/// enough to read.
pub const CLUSTERS_FIX: Inside<'static> = &[("[role=\"columnheader\"][data-column=\"fix\"]", 140)];

/// What must be inside the window on a cluster's page: its members' Fix column.
pub const MEMBERS_FIX: Inside<'static> = &[(
    "[data-testid=\"members-table\"] th[data-column=\"fix\"]",
    140,
)];

fn tid(id: &str) -> String {
    format!("[data-testid=\"{id}\"]")
}

/// The width and height a PNG declares (its IHDR chunk); an error when it is not a PNG.
pub fn png_size(png: &[u8]) -> Result<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if png.len() < 24 || !png.starts_with(SIGNATURE) || &png[12..16] != b"IHDR" {
        bail!("not a PNG ({} bytes)", png.len());
    }
    let be = |at: usize| u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]);
    Ok((be(16), be(20)))
}

/// Resizes the window to `size` and waits until the page has the new width.
pub async fn set_size(s: &Session, size: (u32, u32)) -> Result<()> {
    s.set_window_size(size.0, size.1)
        .await
        .with_context(|| format!("resizing the window to {}×{}", size.0, size.1))?;
    let started = Instant::now();
    loop {
        let seen = s
            .execute("return [window.innerWidth, window.innerHeight];", vec![])
            .await?;
        if seen == json!([size.0, size.1]) {
            // Let the views lay themselves out again.
            tokio::time::sleep(Duration::from_millis(300)).await;
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(10) {
            bail!(
                "asked for a {}×{} window, the page has {seen}",
                size.0,
                size.1
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// What is wrong with the layout as it stands: sideways overflow of the page or of its main
/// area, and elements matching `inside` (at least one each) that are not within the window
/// or narrower than their minimum.
pub async fn layout_problems(s: &Session, inside: Inside<'_>) -> Result<Vec<String>> {
    let script = r#"
        const [wanted] = arguments;
        const width = window.innerWidth;
        const problems = [];
        const page = document.documentElement;
        if (page.scrollWidth > width) {
            problems.push(`the page is ${page.scrollWidth} px wide in a ${width} px window`);
        }
        const main = document.querySelector("main");
        if (main && main.scrollWidth > main.clientWidth + 1) {
            problems.push(`the main area scrolls sideways: ${main.scrollWidth} px in ${main.clientWidth} px`);
        }
        for (const [selector, least] of wanted) {
            const found = [...document.querySelectorAll(selector)];
            if (found.length === 0) problems.push(`nothing matches ${selector}`);
            for (const e of found) {
                const r = e.getBoundingClientRect();
                if (r.width === 0 && r.height === 0) continue;
                if (r.left < 0 || r.right > width + 0.5) {
                    problems.push(`${selector} spans ${Math.round(r.left)}..${Math.round(r.right)} px, outside the ${width} px window`);
                }
                if (r.width < least) {
                    problems.push(`${selector} is ${Math.round(r.width)} px wide, under ${least} px`);
                }
            }
        }
        return problems;
    "#;
    let answer = s
        .execute(script, vec![json!(inside)])
        .await
        .context("checking the layout")?;
    Ok(answer
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default())
}

/// Screenshots of one run, written to one folder.
pub struct Shots {
    dir: PathBuf,
    size: (u32, u32),
    written: Vec<PathBuf>,
}

impl Shots {
    /// Writes into `dir` (created if missing), at the first of [`SIZES`].
    pub fn new(dir: impl Into<PathBuf>) -> Result<Shots> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(Shots {
            dir,
            size: SIZES[0],
            written: Vec::new(),
        })
    }

    /// The folder written to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The pictures taken so far.
    pub fn written(&self) -> &[PathBuf] {
        &self.written
    }

    /// Resizes the window to `size`; later pictures are named for it.
    pub async fn resize(&mut self, s: &Session, size: (u32, u32)) -> Result<()> {
        set_size(s, size).await?;
        self.size = size;
        Ok(())
    }

    /// The file a picture called `name` is written to at the current size: `NAME.png` at
    /// the first of [`SIZES`], `NAME-1024.png` at 1024 px wide.
    pub fn path(&self, name: &str) -> PathBuf {
        if self.size == SIZES[0] {
            self.dir.join(format!("{name}.png"))
        } else {
            self.dir.join(format!("{name}-{}.png", self.size.0))
        }
    }

    /// Lets the view settle, checks its layout (`inside`: what must be within the window,
    /// see [`layout_problems`]), then writes the window as a PNG and checks it is one of the
    /// window's size. Fails with the problems found (the picture is written anyway).
    pub async fn take(&mut self, s: &Session, name: &str, inside: Inside<'_>) -> Result<PathBuf> {
        // Let charts, tables and fonts settle.
        tokio::time::sleep(Duration::from_millis(1200)).await;
        let problems = layout_problems(s, inside).await?;
        let png = s.screenshot().await?;
        let path = self.path(name);
        std::fs::write(&path, &png).with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!("wrote {}", path.display());
        self.written.push(path.clone());
        let size = png_size(&png).with_context(|| format!("{}", path.display()))?;
        if size != self.size {
            bail!(
                "{} is {}×{}, the window {}×{}",
                path.display(),
                size.0,
                size.1,
                self.size.0,
                self.size.1
            );
        }
        if !problems.is_empty() {
            bail!(
                "{name} at {}×{}: {} (see {})",
                self.size.0,
                self.size.1,
                problems.join("; "),
                path.display()
            );
        }
        Ok(path)
    }
}

async fn click(s: &Session, id: &str) -> Result<()> {
    let e = s.find(&tid(id)).await?;
    s.click(&e).await
}

/// The views of audit `audit_id` (opened here) and the Audits list, at every one of
/// [`SIZES`], each checked and pictured: audits, overview, issues, clusters, a cluster's
/// page, findings, tables, the URL detail pane under the Pages table and the Fix plan
/// (whose simulation must be clean). Ends at the first size, on the Fix plan view.
pub async fn tour(s: &Session, shots: &mut Shots, audit_id: i64) -> Result<()> {
    for size in SIZES {
        shots.resize(s, size).await?;
        click(s, "nav-audits").await?;
        s.wait_for_count(&tid("audit-row"), 1, Duration::from_secs(10))
            .await?;
        shots.take(s, "audits", AUDIT_ACTIONS).await?;
        let row = format!("[data-testid=\"audit-row\"][data-audit-id=\"{audit_id}\"]");
        let open = s
            .find(&format!("{row} [data-testid=\"audit-open\"]"))
            .await?;
        s.script_click(&open).await?;
        s.wait_for_count(&tid("stat-pages"), 1, Duration::from_secs(60))
            .await?;
        click(s, "nav-overview").await?;
        s.wait_for_count(&tid("fix-first-item"), 1, Duration::from_secs(30))
            .await?;
        shots.take(s, "overview", &[]).await?;
        click(s, "nav-issues").await?;
        s.wait_for_count(&tid("issue-url-row"), 1, Duration::from_secs(30))
            .await?;
        shots.take(s, "issues", &[]).await?;
        click(s, "nav-clusters").await?;
        let clusters = s
            .wait_for_count(&tid("cluster-row"), 1, Duration::from_secs(10))
            .await?;
        shots.take(s, "clusters", CLUSTERS_FIX).await?;
        s.click(&clusters[0]).await?;
        s.wait_for_count(&tid("member-row"), 2, Duration::from_secs(10))
            .await?;
        shots.take(s, "cluster", MEMBERS_FIX).await?;
        click(s, "nav-findings").await?;
        shots.take(s, "findings", &[]).await?;
        click(s, "nav-tables").await?;
        click(s, "table-tab-pages").await?;
        shots.take(s, "tables", &[]).await?;
        // The URL detail pane of a row of the pages table.
        let rows = s
            .wait_for_count(&tid("table-row"), 3, Duration::from_secs(10))
            .await?;
        s.click(&rows[2]).await?;
        s.wait_for_count(&tid("url-detail-field"), 1, Duration::from_secs(10))
            .await?;
        shots.take(s, "url-detail", &[]).await?;
        // The Fix plan: the fixture's plan simulates clean.
        click(s, "nav-fixplan").await?;
        s.wait_for_count(
            "[data-testid=\"fixplan-verdict\"][data-clean=\"true\"]",
            1,
            Duration::from_secs(60),
        )
        .await?;
        s.wait_for_count(&tid("fixplan-row"), 1, Duration::from_secs(10))
            .await?;
        shots.take(s, "fix-plan", &[]).await?;
    }
    shots.resize(s, SIZES[0]).await
}
