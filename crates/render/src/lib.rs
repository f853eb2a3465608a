//! Pages rendered in headless Chromium, as a search engine's renderer sees them.
//!
//! A [`Renderer`] starts Debian's `chromium` (or the binary its [`Settings`] name) over
//! the DevTools protocol and renders pages in a pool of tabs, at most
//! [`Settings::concurrency`] at once, each in its own browser context (cookies, storage
//! and cache are gone with the context when the page is done). The page's own document
//! is answered with the bytes the caller already fetched; **every other request the page
//! makes** (scripts, styles, XHR / fetch, frames, images) is paused by the DevTools
//! `Fetch` domain and handed to the caller's [`Gate`], which answers it or refuses it:
//! the browser itself never connects anywhere. As a second wall, Chromium runs with its
//! background networking off (component updates, safe browsing, sync, metrics, domain
//! reliability) and behind a proxy address on loopback that accepts nothing, with every
//! host name mapped to "not found", so a request the `Fetch` domain does not see (a
//! worker's, a WebSocket) fails instead of leaving the machine.
//!
//! A page gets a budget: [`Settings::page_timeout`] for load and settle, settled when
//! the document is complete and no request has been in flight for [`Settings::settle`].
//! Its DOM is then read as `document.documentElement.outerHTML`; a page that never
//! settles is read at the deadline ([`Outcome::Unsettled`]); a page whose main thread
//! never answers ([`Outcome::Timeout`]) or whose renderer crashes ([`Outcome::Failed`],
//! an allocation without end meets the V8 heap limit [`Settings::max_heap_mb`]) is
//! recorded as such. A browser that stops answering is killed and started again for the
//! next page. Nothing here fails the caller: every page gets a [`Rendered`].

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use base64::Engine as _;
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::fetch::{
    EnableParams, EventRequestPaused, FailRequestParams, FulfillRequestParams, HeaderEntry,
    RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::{ErrorReason, ResourceType};
use chromiumoxide::cdp::browser_protocol::page::NavigateParams;
use chromiumoxide::cdp::browser_protocol::target::{
    CreateBrowserContextParams, CreateTargetParams,
};
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use chromiumoxide::page::Page;
use futures::StreamExt as _;
use futures::future::BoxFuture;
use tokio::sync::{Mutex, Semaphore};
use url::Url;

/// Where Debian's `chromium` package installs the browser.
pub const DEFAULT_CHROMIUM: &str = "/usr/bin/chromium";

/// How pages are rendered.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The Chromium binary.
    pub chromium: PathBuf,
    /// Pages rendered at once (tabs of one browser).
    pub concurrency: usize,
    /// The whole budget of one page: load, settle and reading the DOM.
    pub page_timeout: Duration,
    /// How long no request may be in flight before the page counts as settled.
    pub settle: Duration,
    /// The V8 heap limit of each renderer, in MiB: a script that allocates without end
    /// crashes its renderer there.
    pub max_heap_mb: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            chromium: PathBuf::from(DEFAULT_CHROMIUM),
            concurrency: 2,
            page_timeout: Duration::from_secs(10),
            settle: Duration::from_millis(500),
            max_heap_mb: 256,
        }
    }
}

impl Settings {
    /// Whether these settings can render on this machine: the Chromium binary they name
    /// exists (the browser itself starts with the first page).
    pub fn check(&self) -> Result<(), RenderError> {
        if self.chromium.is_file() {
            Ok(())
        } else {
            Err(RenderError::Missing(self.chromium.clone()))
        }
    }
}

/// A request the page makes, handed to the [`Gate`].
#[derive(Debug, Clone)]
pub struct Request {
    /// What the page asked for.
    pub url: Url,
    /// `GET` or `HEAD` (anything else is refused before the gate).
    pub method: String,
}

/// An answer to a request: what the page receives.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// Response headers (a body is given decoded: `Content-Encoding` and
    /// `Content-Length` are dropped before the browser sees them).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

/// A request the gate refused, with why.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// What answers the requests a page makes: the caller's scope and address policy and
/// its HTTP client. Everything the gate refuses fails in the page.
pub trait Gate: Send + Sync {
    /// Answers `request`, or refuses it.
    fn answer(&self, request: Request) -> BoxFuture<'static, Result<Answer, Refused>>;
}

/// How a page's rendering ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Loaded and settled within the budget; the DOM was read.
    Rendered,
    /// Still making requests or loading at the deadline; the DOM was read then.
    Unsettled,
    /// The page's main thread did not answer within the budget; no DOM.
    Timeout,
    /// The browser or the renderer failed (a crash, a browser that would not start);
    /// no DOM.
    Failed,
}

impl Outcome {
    /// The word stored for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Rendered => "rendered",
            Outcome::Unsettled => "unsettled",
            Outcome::Timeout => "timeout",
            Outcome::Failed => "failed",
        }
    }
}

/// One rendered page.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// How it ended.
    pub outcome: Outcome,
    /// `document.documentElement.outerHTML` (with Rendered and Unsettled).
    pub html: Option<String>,
    /// `location.href` when the DOM was read (a script may have changed it with
    /// `history.pushState`).
    pub final_url: Option<String>,
    /// What went wrong, in words.
    pub message: Option<String>,
    /// Wall time spent on the page.
    pub elapsed: Duration,
    /// Requests the page made (its document included).
    pub requests: u32,
    /// Requests the gate refused (or that were not `GET` / `HEAD`).
    pub refused: u32,
}

impl Rendered {
    fn failed(message: String, started: Instant) -> Self {
        Self {
            outcome: Outcome::Failed,
            html: None,
            final_url: None,
            message: Some(message),
            elapsed: started.elapsed(),
            requests: 0,
            refused: 0,
        }
    }
}

/// Why the renderer could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No Chromium where the settings say.
    #[error("no Chromium at {0} (install the `chromium` package)")]
    Missing(PathBuf),
    /// The browser would not start or answer.
    #[error("Chromium did not start: {0}")]
    Launch(String),
    /// A temporary profile directory could not be made.
    #[error("profile directory: {0}")]
    Io(#[from] std::io::Error),
}

/// A running browser and the task that drives its DevTools connection.
struct Running {
    browser: Arc<Browser>,
    generation: u64,
    handler: tokio::task::JoinHandle<()>,
    _profile: tempfile::TempDir,
}

/// The pool: one browser, at most `concurrency` pages at once.
pub struct Renderer {
    settings: Settings,
    gate: Arc<dyn Gate>,
    running: Mutex<Option<Running>>,
    slots: Semaphore,
    generations: AtomicU64,
    restarts: AtomicU64,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// The command-line switches Chromium runs with (see the module docs).
fn switches(settings: &Settings) -> Vec<String> {
    [
        "headless=new",
        "no-sandbox",
        "disable-gpu",
        "disable-dev-shm-usage",
        "disable-background-networking",
        "disable-component-update",
        "disable-sync",
        "disable-default-apps",
        "disable-extensions",
        "disable-breakpad",
        "disable-client-side-phishing-detection",
        "disable-domain-reliability",
        "safebrowsing-disable-auto-update",
        "metrics-recording-only",
        "no-first-run",
        "no-default-browser-check",
        "no-pings",
        "mute-audio",
        "hide-scrollbars",
        "password-store=basic",
        "use-mock-keychain",
        "disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,\
         AutofillServerCommunication,CertificateTransparencyComponentUpdater,\
         InterestFeedContentSuggestions,CalculateNativeWinOcclusion",
        // Anything the DevTools interception does not answer goes to a loopback port
        // that accepts nothing; no host name resolves.
        "proxy-server=http://127.0.0.1:9",
        "proxy-bypass-list=<-loopback>",
        "host-resolver-rules=MAP * ~NOTFOUND",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .chain([format!(
        "js-flags=--max-old-space-size={}",
        settings.max_heap_mb
    )])
    .collect()
}

impl Renderer {
    /// A renderer over `gate`; the browser starts with the first page (and this checks
    /// that the binary exists).
    pub fn new(settings: Settings, gate: Arc<dyn Gate>) -> Result<Self, RenderError> {
        settings.check()?;
        let concurrency = settings.concurrency.max(1);
        Ok(Self {
            settings,
            gate,
            running: Mutex::new(None),
            slots: Semaphore::new(concurrency),
            generations: AtomicU64::new(0),
            restarts: AtomicU64::new(0),
        })
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Times the browser was started again after it stopped answering.
    pub fn restarts(&self) -> u64 {
        self.restarts.load(Ordering::Relaxed)
    }

    /// The running browser, started if there is none.
    async fn browser(&self) -> Result<(Arc<Browser>, u64), RenderError> {
        let mut running = self.running.lock().await;
        if let Some(r) = running.as_ref()
            && !r.handler.is_finished()
        {
            return Ok((Arc::clone(&r.browser), r.generation));
        }
        if let Some(old) = running.take() {
            self.restarts.fetch_add(1, Ordering::Relaxed);
            stop(old).await;
        }
        let profile = tempfile::Builder::new()
            .prefix("dustpan-render")
            .tempdir()?;
        let mut builder = BrowserConfig::builder()
            .chrome_executable(&self.settings.chromium)
            .user_data_dir(profile.path())
            .disable_default_args()
            .request_timeout(Duration::from_secs(5))
            .launch_timeout(Duration::from_secs(20));
        for switch in switches(&self.settings) {
            builder = builder.arg(switch.as_str());
        }
        let config = builder.build().map_err(RenderError::Launch)?;
        let (browser, mut handler) = Browser::launch(config)
            .await
            .map_err(|e| RenderError::Launch(e.to_string()))?;
        let handler = tokio::spawn(async move {
            while let Some(event) = handler.next().await {
                if let Err(e) = event {
                    tracing::debug!("DevTools connection: {e}");
                    if matches!(e, chromiumoxide::error::CdpError::Ws(_)) {
                        break;
                    }
                }
            }
        });
        let generation = self.generations.fetch_add(1, Ordering::Relaxed) + 1;
        let browser = Arc::new(browser);
        *running = Some(Running {
            browser: Arc::clone(&browser),
            generation,
            handler,
            _profile: profile,
        });
        Ok((browser, generation))
    }

    /// Kills the browser of `generation` (if it is still the running one): the next
    /// page starts another.
    async fn restart(&self, generation: u64) {
        let mut running = self.running.lock().await;
        if running.as_ref().is_some_and(|r| r.generation == generation)
            && let Some(old) = running.take()
        {
            tracing::warn!("the browser stopped answering: started again");
            self.restarts.fetch_add(1, Ordering::Relaxed);
            stop(old).await;
        }
    }

    /// Stops the browser.
    pub async fn close(&self) {
        if let Some(old) = self.running.lock().await.take() {
            stop(old).await;
        }
    }

    /// Renders `url`, whose document is `document` (what the crawl fetched). Never
    /// fails: a page that could not be rendered says why in its [`Rendered`].
    pub async fn render(&self, url: &Url, document: Answer) -> Rendered {
        let started = Instant::now();
        let Ok(_slot) = self.slots.acquire().await else {
            return Rendered::failed("the renderer is closed".into(), started);
        };
        let started = Instant::now();
        let (browser, generation) = match self.browser().await {
            Ok(b) => b,
            Err(e) => return Rendered::failed(e.to_string(), started),
        };
        let budget = self.settings.page_timeout;
        let job = render_page(
            &browser,
            url,
            document,
            Arc::clone(&self.gate),
            &self.settings,
            started,
        );
        // The page's own deadline is inside; this one catches a browser that stopped
        // answering the DevTools commands.
        match tokio::time::timeout(budget + Duration::from_secs(10), job).await {
            Ok(Ok(rendered)) => rendered,
            Ok(Err(PageError::Browser(message))) => {
                self.restart(generation).await;
                Rendered::failed(message, started)
            }
            Err(_) => {
                self.restart(generation).await;
                Rendered::failed(
                    "the browser stopped answering (killed and started again)".into(),
                    started,
                )
            }
        }
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        if let Some(running) = self.running.get_mut().take() {
            running.handler.abort();
        }
    }
}

async fn stop(old: Running) {
    if let Ok(mut browser) = Arc::try_unwrap(old.browser) {
        let _ = tokio::time::timeout(Duration::from_secs(3), browser.close()).await;
        let _ = browser.kill().await;
        let _ = tokio::time::timeout(Duration::from_secs(3), browser.wait()).await;
    }
    old.handler.abort();
}

/// Why a page could not be rendered, by whose fault.
enum PageError {
    /// The browser did not do what was asked (restart it).
    Browser(String),
}

/// What the interception of one page counts.
#[derive(Default)]
struct Traffic {
    in_flight: AtomicU32,
    requests: AtomicU32,
    refused: AtomicU32,
    /// Milliseconds since the page started at the last request's start or end.
    last_change_ms: AtomicU64,
    document_served: AtomicBool,
}

impl Traffic {
    fn touch(&self, started: Instant) {
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_change_ms.store(ms, Ordering::Relaxed);
    }
}

/// The headers the browser gets with a body that is already decoded.
fn header_entries(headers: &[(String, String)]) -> Vec<HeaderEntry> {
    headers
        .iter()
        .filter(|(name, _)| {
            !name.eq_ignore_ascii_case("content-encoding")
                && !name.eq_ignore_ascii_case("content-length")
                && !name.eq_ignore_ascii_case("transfer-encoding")
        })
        .map(|(name, value)| HeaderEntry::new(name.clone(), value.clone()))
        .collect()
}

fn fulfil(
    id: chromiumoxide::cdp::browser_protocol::fetch::RequestId,
    answer: &Answer,
) -> FulfillRequestParams {
    let mut params = FulfillRequestParams::new(id, i64::from(answer.status));
    params.response_headers = Some(header_entries(&answer.headers));
    params.body = Some(
        base64::engine::general_purpose::STANDARD
            .encode(&answer.body)
            .into(),
    );
    params
}

/// Answers one paused request: the page's document from `document`, anything else
/// through the gate (or refused).
async fn answer_paused(
    page: Page,
    event: Arc<EventRequestPaused>,
    document: Arc<(Url, Answer)>,
    gate: Arc<dyn Gate>,
    traffic: Arc<Traffic>,
) {
    let id = event.request_id.clone();
    let requested = Url::parse(&event.request.url).ok();
    let is_document = event.resource_type == ResourceType::Document
        && requested.as_ref() == Some(&document.0)
        && !traffic.document_served.swap(true, Ordering::Relaxed);
    let answer = if is_document {
        Ok(document.1.clone())
    } else {
        match requested {
            Some(url) if matches!(event.request.method.as_str(), "GET" | "HEAD") => {
                gate.answer(Request {
                    url,
                    method: event.request.method.clone(),
                })
                .await
            }
            Some(_) => Err(Refused(format!(
                "{} requests are not sent by the renderer",
                event.request.method
            ))),
            None => Err(Refused("not a URL".into())),
        }
    };
    let sent = match answer {
        Ok(answer) => page.execute(fulfil(id, &answer)).await.map(|_| ()),
        Err(refused) => {
            tracing::debug!("refused in the renderer: {} ({refused})", event.request.url);
            traffic.refused.fetch_add(1, Ordering::Relaxed);
            page.execute(FailRequestParams::new(id, ErrorReason::BlockedByClient))
                .await
                .map(|_| ())
        }
    };
    if let Err(e) = sent {
        tracing::debug!("answering a paused request: {e}");
    }
}

/// The whole life of one page in its own browser context.
async fn render_page(
    browser: &Browser,
    url: &Url,
    document: Answer,
    gate: Arc<dyn Gate>,
    settings: &Settings,
    started: Instant,
) -> Result<Rendered, PageError> {
    let browser_err =
        |what: &str, e: &dyn std::fmt::Display| PageError::Browser(format!("{what}: {e}"));
    let context = browser
        .create_browser_context(CreateBrowserContextParams::default())
        .await
        .map_err(|e| browser_err("a browser context", &e))?;
    let mut target = CreateTargetParams::new("about:blank");
    target.browser_context_id = Some(context.clone());
    let page = match browser.new_page(target).await {
        Ok(page) => page,
        Err(e) => {
            let _ = browser.dispose_browser_context(context).await;
            return Err(browser_err("a tab", &e));
        }
    };
    let result = drive(&page, url, document, gate, settings, started).await;
    // The tab and its context (cookies, storage, cache) go with the page.
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        let _ = page.close().await;
        browser.dispose_browser_context(context).await
    })
    .await;
    match closed {
        Ok(Ok(_)) => Ok(result),
        Ok(Err(e)) => Err(browser_err("closing the page", &e)),
        Err(_) => Err(PageError::Browser("closing the page timed out".into())),
    }
}

/// Evaluates `expression` in the top frame's current document (no cached execution
/// context: a navigation may have replaced it) and returns its value as JSON.
async fn evaluate(page: &Page, expression: &str) -> Result<serde_json::Value, String> {
    let mut params = EvaluateParams::new(expression);
    params.return_by_value = Some(true);
    let answer = page.execute(params).await.map_err(|e| e.to_string())?;
    if let Some(exception) = &answer.result.exception_details {
        return Err(exception.text.clone());
    }
    answer
        .result
        .result
        .value
        .clone()
        .ok_or_else(|| "no value".to_owned())
}

/// Intercepts, navigates, waits for the page to settle and reads its DOM.
async fn drive(
    page: &Page,
    url: &Url,
    document: Answer,
    gate: Arc<dyn Gate>,
    settings: &Settings,
    started: Instant,
) -> Rendered {
    let deadline = started + settings.page_timeout;
    let traffic = Arc::new(Traffic::default());
    let mut rendered = Rendered::failed(String::new(), started);
    let setup = async {
        let mut paused = page.event_listener::<EventRequestPaused>().await?;
        let enable = EnableParams {
            patterns: Some(vec![RequestPattern {
                url_pattern: Some("*".into()),
                resource_type: None,
                request_stage: Some(RequestStage::Request),
            }]),
            handle_auth_requests: None,
        };
        page.execute(enable).await?;
        let document = Arc::new((url.clone(), document));
        let (page2, traffic2) = (page.clone(), Arc::clone(&traffic));
        let interceptor = tokio::spawn(async move {
            let mut answering = futures::stream::FuturesUnordered::new();
            loop {
                tokio::select! {
                    event = paused.next() => {
                        let Some(event) = event else { break };
                        traffic2.requests.fetch_add(1, Ordering::Relaxed);
                        traffic2.in_flight.fetch_add(1, Ordering::Relaxed);
                        traffic2.touch(started);
                        let traffic3 = Arc::clone(&traffic2);
                        let job = answer_paused(page2.clone(), event, Arc::clone(&document), Arc::clone(&gate), Arc::clone(&traffic2));
                        answering.push(async move {
                            job.await;
                            traffic3.in_flight.fetch_sub(1, Ordering::Relaxed);
                            traffic3.touch(started);
                        });
                    }
                    Some(()) = answering.next(), if !answering.is_empty() => {}
                }
            }
        });
        Ok::<_, chromiumoxide::error::CdpError>(interceptor)
    };
    let interceptor = match setup.await {
        Ok(i) => i,
        Err(e) => {
            rendered.message = Some(format!("interception: {e}"));
            return rendered;
        }
    };
    let left = |deadline: Instant| deadline.saturating_duration_since(Instant::now());
    let navigated = tokio::time::timeout(
        left(deadline),
        page.execute(NavigateParams::new(url.as_str())),
    )
    .await;
    let mut settled = false;
    match navigated {
        Ok(Ok(_)) => {
            let settle_ms = u64::try_from(settings.settle.as_millis()).unwrap_or(u64::MAX);
            while Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let idle_since = traffic.last_change_ms.load(Ordering::Relaxed);
                let now_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                if traffic.in_flight.load(Ordering::Relaxed) > 0
                    || now_ms.saturating_sub(idle_since) < settle_ms
                {
                    continue;
                }
                let wait = left(deadline).min(Duration::from_secs(1));
                let state = tokio::time::timeout(wait, evaluate(page, "document.readyState")).await;
                if let Ok(Ok(state)) = state
                    && state.as_str() == Some("complete")
                {
                    settled = true;
                    break;
                }
            }
        }
        Ok(Err(e)) => {
            interceptor.abort();
            rendered.message = Some(format!("navigation: {e}"));
            rendered.elapsed = started.elapsed();
            return rendered;
        }
        Err(_) => {
            interceptor.abort();
            rendered.outcome = Outcome::Timeout;
            rendered.message = Some(format!(
                "the page did not load within {} ms",
                settings.page_timeout.as_millis()
            ));
            rendered.elapsed = started.elapsed();
            return rendered;
        }
    }
    // The DOM, read even when the page did not settle (a second at most past the
    // deadline: a main thread that never answers is a timeout).
    let read = tokio::time::timeout(
        left(deadline).max(Duration::from_secs(1)),
        evaluate(
            page,
            "[location.href, document.documentElement ? document.documentElement.outerHTML : '']",
        ),
    )
    .await;
    interceptor.abort();
    rendered.requests = traffic.requests.load(Ordering::Relaxed);
    rendered.refused = traffic.refused.load(Ordering::Relaxed);
    match read {
        Ok(Ok(value)) => match serde_json::from_value::<(String, String)>(value) {
            Ok((href, html)) => {
                rendered.outcome = if settled {
                    Outcome::Rendered
                } else {
                    Outcome::Unsettled
                };
                if settled {
                    rendered.message = None;
                } else if rendered.message.is_none() {
                    rendered.message = Some(format!(
                        "still loading or making requests after {} ms: read at the deadline",
                        settings.page_timeout.as_millis()
                    ));
                }
                rendered.final_url = Some(href);
                rendered.html = Some(html);
            }
            Err(e) => rendered.message = Some(format!("reading the DOM: {e}")),
        },
        Ok(Err(e)) => {
            rendered.outcome = Outcome::Failed;
            rendered.message = Some(format!("the renderer failed: {e}"));
        }
        Err(_) => {
            rendered.outcome = Outcome::Timeout;
            rendered.message = Some(format!(
                "the page's script did not yield within {} ms",
                settings.page_timeout.as_millis()
            ));
        }
    }
    rendered.elapsed = started.elapsed();
    rendered
}
