//! The app under test: the fixture site on loopback, a fresh audit database, and the
//! desktop app started by `tauri-driver` with them in its environment.

use crate::webdriver::Session;
use anyhow::{Context, Result, bail};
use fixture::{FixtureConfig, FixtureServer};
use serde_json::json;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How to start the app.
#[derive(Clone, Debug)]
pub struct AppOptions {
    /// Window size (the screenshots use it).
    pub window: (u32, u32),
}

impl Default for AppOptions {
    fn default() -> Self {
        AppOptions {
            window: (1280, 800),
        }
    }
}

/// A running app with its fixture site and database; everything stops on drop.
pub struct App {
    session: Option<Session>,
    site: Option<FixtureServer>,
    /// The audit database the app uses (`$DUSTPAN_DB`).
    pub db: PathBuf,
    /// A scratch directory for exports.
    pub scratch: PathBuf,
    driver: Option<Child>,
    _dir: tempfile::TempDir,
}

/// The app binary: `$DUSTPAN_DESKTOP_BIN`, else `target/debug/dustpan-desktop` of this
/// workspace (honouring `$CARGO_TARGET_DIR`).
pub fn app_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("DUSTPAN_DESKTOP_BIN") {
        return PathBuf::from(p);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    target.join("debug").join("dustpan-desktop")
}

/// Where the end-to-end test leaves its screenshots and dumps: `target/e2e` beside the
/// app binary's profile folder (under the target dir, never in the source tree).
pub fn e2e_dir() -> PathBuf {
    app_binary()
        .parent()
        .and_then(Path::parent)
        .map(|t| t.join("e2e"))
        .unwrap_or_else(|| PathBuf::from("e2e"))
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl App {
    /// Starts the fixture site, then `tauri-driver` and a session on the app.
    pub async fn start(options: AppOptions) -> Result<App> {
        if std::env::var_os("DISPLAY").is_none() {
            bail!("no DISPLAY: run under `xvfb-run -a` (the app needs a window)");
        }
        let bin = app_binary();
        if !bin.is_file() {
            bail!(
                "no app binary at {}: build it with `npm --prefix ui run build && cargo build -p dustpan-desktop`",
                bin.display()
            );
        }
        let site = FixtureServer::start(FixtureConfig::default())
            .await
            .context("the fixture site starts on 127.0.0.1")?;
        let dir = tempfile::tempdir()?;
        let db = dir.path().join("audits.sqlite");
        let ca = dir.path().join("fixture-ca.pem");
        std::fs::write(&ca, site.ca_pem())?;
        let scratch = dir.path().join("exports");
        std::fs::create_dir_all(&scratch)?;

        let port = free_port()?;
        let native_port = free_port()?;
        let log = std::fs::File::create(dir.path().join("tauri-driver.log"))?;
        let driver = Command::new("tauri-driver")
            .args(["--port", &port.to_string()])
            .args(["--native-port", &native_port.to_string()])
            .env("DUSTPAN_DB", &db)
            .env("DUSTPAN_CA_CERT", &ca)
            .env("DUSTPAN_AUTOMATION", "1")
            // The web view's storage (column layouts, form state) starts empty each run,
            // apart from the user's own.
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .context("tauri-driver starts (install it with `cargo install tauri-driver`)")?;
        let mut app = PendingDriver(Some(driver));
        let driver_url = format!("http://127.0.0.1:{port}");
        wait_until_listening(port, Duration::from_secs(30)).await?;
        let session = Session::create(
            &driver_url,
            json!({
                "browserName": "wry",
                "tauri:options": { "application": bin }
            }),
            Duration::from_secs(60),
        )
        .await?;
        session.implicit_wait(Duration::from_secs(5)).await?;
        let (w, h) = options.window;
        // Not every driver supports resizing; the Xvfb screen size bounds it anyway.
        let _ = session
            .execute(
                "window.resizeTo(arguments[0], arguments[1]);",
                vec![json!(w), json!(h)],
            )
            .await;
        Ok(App {
            session: Some(session),
            site: Some(site),
            db,
            scratch,
            driver: Some(app.take()),
            _dir: dir,
        })
    }

    /// The WebDriver session driving the app.
    pub fn session(&self) -> &Session {
        self.session.as_ref().expect("the session lives until stop")
    }

    /// The fixture site the app's audits crawl.
    pub fn site(&self) -> &FixtureServer {
        self.site.as_ref().expect("the site lives until stop")
    }

    /// Saves what the window shows (a PNG and its text) and the driver's log under
    /// `target/e2e/NAME.*`, for a failed test to be understood after the fact.
    pub async fn dump(&self, name: &str) -> PathBuf {
        let dir = e2e_dir();
        let _ = std::fs::create_dir_all(&dir);
        if let Ok(png) = self.session().screenshot().await {
            let _ = std::fs::write(dir.join(format!("{name}.png")), png);
        }
        if let Ok(text) = self
            .session()
            .execute("return document.body.innerText;", vec![])
            .await
        {
            let _ = std::fs::write(
                dir.join(format!("{name}.txt")),
                text.as_str().unwrap_or_default(),
            );
        }
        let _ = std::fs::copy(
            self._dir.path().join("tauri-driver.log"),
            dir.join(format!("{name}.driver.log")),
        );
        dir
    }

    /// `--resolve` entries sending every fixture host to the fixture's port.
    pub fn resolve_entries(&self) -> Vec<String> {
        fixture::HOSTS
            .iter()
            .map(|h| format!("{h}:{}:127.0.0.1", self.site().port()))
            .collect()
    }

    /// Closes the session (quitting the app), stops the driver and the fixture.
    pub async fn stop(mut self) -> Result<()> {
        let closed = match self.session.take() {
            Some(session) => session.close().await,
            None => Ok(()),
        };
        if let Some(mut driver) = self.driver.take() {
            terminate(&mut driver);
        }
        if let Some(site) = self.site.take() {
            site.shutdown().await;
        }
        closed
    }
}

/// Stops tauri-driver with SIGTERM so it takes WebKitWebDriver down with it (after
/// SIGKILL the child keeps its port).
fn terminate(driver: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &driver.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = driver.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = driver.kill();
    let _ = driver.wait();
}

/// Terminates the driver if start-up fails half way.
struct PendingDriver(Option<Child>);

impl PendingDriver {
    fn take(&mut self) -> Child {
        self.0.take().expect("taken once")
    }
}

impl Drop for PendingDriver {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            terminate(&mut child);
        }
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if let Some(mut driver) = self.driver.take() {
            terminate(&mut driver);
        }
    }
}

async fn wait_until_listening(port: u16, timeout: Duration) -> Result<()> {
    let started = Instant::now();
    loop {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Ok(());
        }
        if started.elapsed() > timeout {
            bail!("tauri-driver did not listen on port {port} within {timeout:?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Polls the progress panel until an audit other than `previous` (the audit id of an
/// earlier run, if any) ends (`done`, `failed` or `cancelled`); returns `(audit id, phase)`.
/// The panel is re-rendered as events arrive, so a lookup that misses is retried.
pub async fn wait_for_phase(
    session: &Session,
    previous: Option<&str>,
    timeout: Duration,
) -> Result<(String, String)> {
    let started = Instant::now();
    loop {
        if let Some(panel) = session
            .find_all("[data-testid=\"progress-panel\"]")
            .await?
            .first()
        {
            let id = session
                .attribute(panel, "data-audit-id")
                .await
                .ok()
                .flatten();
            let phase = session.attribute(panel, "data-phase").await.ok().flatten();
            if let (Some(id), Some(phase)) = (id, phase)
                && Some(id.as_str()) != previous
                && ["done", "failed", "cancelled"].contains(&phase.as_str())
            {
                return Ok((id, phase));
            }
        }
        if started.elapsed() > timeout {
            bail!("the audit did not end within {timeout:?}");
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
