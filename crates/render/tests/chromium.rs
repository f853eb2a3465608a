//! Pages rendered through the real Chromium, every request answered by a gate in the
//! test (no server, no network).
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use render::{Answer, Gate, Outcome, Refused, Renderer, Request, Settings};
use url::Url;

/// Chromium, or `None` (loudly) when it is not installed and not required.
fn chromium() -> Option<std::path::PathBuf> {
    let path = std::path::PathBuf::from(render::DEFAULT_CHROMIUM);
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var_os("DUSTPAN_REQUIRE_CHROMIUM").is_none(),
        "DUSTPAN_REQUIRE_CHROMIUM is set and {} is missing (scripts/setup-render.sh installs it)",
        path.display()
    );
    eprintln!(
        "\n\n*** SKIPPED: {} is missing; install it with scripts/setup-render.sh ***\n\n",
        path.display()
    );
    None
}

/// Answers the URLs it holds, refuses the rest and remembers every request.
#[derive(Default)]
struct Site {
    files: HashMap<String, (&'static str, &'static str)>,
    asked: Mutex<Vec<String>>,
}

impl Gate for Site {
    fn answer(&self, request: Request) -> BoxFuture<'static, Result<Answer, Refused>> {
        self.asked
            .lock()
            .unwrap()
            .push(request.url.as_str().to_owned());
        let found = self.files.get(request.url.as_str()).copied();
        Box::pin(async move {
            match found {
                Some((content_type, body)) => Ok(Answer {
                    status: 200,
                    headers: vec![("content-type".into(), content_type.into())],
                    body: body.as_bytes().to_vec(),
                }),
                None => Err(Refused("outside the test site".into())),
            }
        })
    }
}

fn html(body: &str) -> Answer {
    Answer {
        status: 200,
        headers: vec![("content-type".into(), "text/html; charset=utf-8".into())],
        body: body.as_bytes().to_vec(),
    }
}

fn settings(path: std::path::PathBuf) -> Settings {
    Settings {
        chromium: path,
        concurrency: 2,
        page_timeout: Duration::from_secs(6),
        settle: Duration::from_millis(300),
        max_heap_mb: 64,
    }
}

const SCRIPTED: &str = r#"<!doctype html><html><head><title>Raw title</title>
<script src="/app.js"></script></head><body><h1>Raw</h1></body></html>"#;

const APP_JS: &str = r#"
document.addEventListener('DOMContentLoaded', async () => {
  const link = document.createElement('link');
  link.rel = 'canonical';
  link.href = 'http://site.test/canonical';
  document.head.appendChild(link);
  document.title = 'Rendered title';
  const data = await (await fetch('/data.json')).json();
  document.querySelector('h1').textContent = data.h1;
  try { await fetch('http://127.0.0.2:9/outside'); } catch (e) {}
  localStorage.setItem('seen', (localStorage.getItem('seen') || '') + 'x');
  document.cookie = 'visit=' + (document.cookie ? 'again' : 'first');
  const p = document.createElement('p');
  p.id = 'memory';
  p.textContent = localStorage.getItem('seen') + ' ' + document.cookie;
  document.body.appendChild(p);
});
"#;

fn site() -> Arc<Site> {
    let mut files = HashMap::new();
    files.insert(
        "http://site.test/app.js".to_owned(),
        ("text/javascript", APP_JS),
    );
    files.insert(
        "http://site.test/data.json".to_owned(),
        ("application/json", r#"{"h1": "Rendered heading"}"#),
    );
    Arc::new(Site {
        files,
        ..Site::default()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn script_changes_are_in_the_rendered_dom_and_outside_requests_are_refused() {
    let Some(path) = chromium() else { return };
    let site = site();
    let renderer = Renderer::new(settings(path), site.clone()).unwrap();
    let url = Url::parse("http://site.test/page").unwrap();
    let first = renderer.render(&url, html(SCRIPTED)).await;
    assert_eq!(first.outcome, Outcome::Rendered, "{first:?}");
    let dom = first.html.as_deref().unwrap();
    assert!(
        dom.contains(r#"<link rel="canonical" href="http://site.test/canonical">"#),
        "{dom}"
    );
    assert!(dom.contains("<title>Rendered title</title>"), "{dom}");
    assert!(dom.contains("<h1>Rendered heading</h1>"), "{dom}");
    assert!(dom.contains(r#"<p id="memory">x visit=first</p>"#), "{dom}");
    assert_eq!(first.final_url.as_deref(), Some("http://site.test/page"));
    let asked = site.asked.lock().unwrap().clone();
    assert!(
        asked.contains(&"http://127.0.0.2:9/outside".to_owned()),
        "{asked:?}"
    );
    assert!(first.refused >= 1, "{first:?}");

    // Cookies and storage do not carry over to the next page.
    let second = renderer.render(&url, html(SCRIPTED)).await;
    assert_eq!(second.outcome, Outcome::Rendered, "{second:?}");
    assert!(
        second
            .html
            .as_deref()
            .unwrap()
            .contains(r#"<p id="memory">x visit=first</p>"#),
        "{second:?}"
    );
    renderer.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_never_settles_is_read_at_the_deadline() {
    let Some(path) = chromium() else { return };
    let mut s = settings(path);
    s.page_timeout = Duration::from_secs(5);
    let renderer = Renderer::new(s, site()).unwrap();
    let url = Url::parse("http://site.test/busy").unwrap();
    let busy = r#"<!doctype html><title>Busy</title><body><h1>Busy</h1><script>
      setInterval(() => fetch('/data.json'), 50);
      document.title = 'Still busy';
    </script>"#;
    let rendered = renderer.render(&url, html(busy)).await;
    assert_eq!(rendered.outcome, Outcome::Unsettled, "{rendered:?}");
    let dom = rendered.html.unwrap();
    assert!(dom.contains("<title>Still busy</title>"), "{dom}");
    renderer.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_looping_or_allocating_script_is_a_recorded_failure_and_the_pool_goes_on() {
    let Some(path) = chromium() else { return };
    let mut s = settings(path);
    s.page_timeout = Duration::from_secs(5);
    let renderer = Renderer::new(s, site()).unwrap();
    let url = Url::parse("http://site.test/loop").unwrap();
    let looping = "<!doctype html><title>Loop</title><script>for(;;){}</script>";
    let rendered = renderer.render(&url, html(looping)).await;
    assert!(
        matches!(rendered.outcome, Outcome::Timeout | Outcome::Failed),
        "{rendered:?}"
    );
    assert!(rendered.html.is_none());

    let allocating = "<!doctype html><title>Heap</title><script>const a = []; for(;;){ a.push(new Array(1e6).fill(1)); }</script>";
    let rendered = renderer.render(&url, html(allocating)).await;
    assert!(
        matches!(rendered.outcome, Outcome::Timeout | Outcome::Failed),
        "{rendered:?}"
    );

    // The pool still renders.
    let fine = renderer
        .render(
            &url,
            html("<!doctype html><title>Fine</title><h1>Fine</h1>"),
        )
        .await;
    assert_eq!(fine.outcome, Outcome::Rendered, "{fine:?}");
    renderer.close().await;
}
