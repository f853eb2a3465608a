//! A minimal W3C WebDriver client: the handful of endpoints the tests use.

use anyhow::{Context, Result, anyhow, bail};
use base64::Engine;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// The key under which W3C WebDriver returns element references.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// One WebDriver session (one running app).
pub struct Session {
    http: reqwest::Client,
    base: String,
    id: String,
}

/// A reference to an element of the page.
#[derive(Clone, Debug)]
pub struct Element(String);

impl Session {
    /// Creates a session on the driver at `driver_url` with `capabilities` (the
    /// `alwaysMatch` object). Gives up after `timeout`: with no display the request hangs.
    pub async fn create(driver_url: &str, capabilities: Value, timeout: Duration) -> Result<Self> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(120))
            .build()?;
        let body = json!({ "capabilities": { "alwaysMatch": capabilities } });
        let response = tokio::time::timeout(
            timeout,
            http.post(format!("{driver_url}/session"))
                .json(&body)
                .send(),
        )
        .await
        .context("the WebDriver session was not created in time (is DISPLAY set?)")??;
        let value = unwrap_value(response).await?;
        let id = value["sessionId"]
            .as_str()
            .ok_or_else(|| anyhow!("no sessionId in {value}"))?
            .to_owned();
        Ok(Session {
            http,
            base: format!("{driver_url}/session/{id}"),
            id,
        })
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value> {
        let r = self
            .http
            .post(format!("{}{path}", self.base))
            .json(&body)
            .send()
            .await
            .with_context(|| format!("POST {path}"))?;
        unwrap_value(r)
            .await
            .with_context(|| format!("POST {path}"))
    }

    async fn get(&self, path: &str) -> Result<Value> {
        let r = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .with_context(|| format!("GET {path}"))?;
        unwrap_value(r).await.with_context(|| format!("GET {path}"))
    }

    /// Sets the implicit wait used by element lookups.
    pub async fn implicit_wait(&self, wait: Duration) -> Result<()> {
        self.post("/timeouts", json!({ "implicit": wait.as_millis() as u64 }))
            .await
            .map(drop)
    }

    /// The first element matching a CSS selector (waits up to the implicit wait).
    pub async fn find(&self, css: &str) -> Result<Element> {
        let v = self
            .post("/element", json!({ "using": "css selector", "value": css }))
            .await
            .with_context(|| format!("no element matches {css:?}"))?;
        element(&v)
    }

    /// Every element matching a CSS selector (possibly none).
    pub async fn find_all(&self, css: &str) -> Result<Vec<Element>> {
        let v = self
            .post(
                "/elements",
                json!({ "using": "css selector", "value": css }),
            )
            .await?;
        v.as_array()
            .ok_or_else(|| anyhow!("not a list: {v}"))?
            .iter()
            .map(element)
            .collect()
    }

    /// Polls `find_all(css)` until at least `n` elements match, for up to `timeout`.
    pub async fn wait_for_count(
        &self,
        css: &str,
        n: usize,
        timeout: Duration,
    ) -> Result<Vec<Element>> {
        let started = Instant::now();
        loop {
            let found = self.find_all(css).await?;
            if found.len() >= n {
                return Ok(found);
            }
            if started.elapsed() > timeout {
                bail!("{css:?}: {} of {n} elements after {timeout:?}", found.len());
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Polls until the `textContent` of the first element matching `css` satisfies `ok`; returns it.
    pub async fn wait_for_text(
        &self,
        css: &str,
        timeout: Duration,
        ok: impl Fn(&str) -> bool,
    ) -> Result<String> {
        let started = Instant::now();
        let mut last = String::new();
        loop {
            if let Some(e) = self.find_all(css).await?.first() {
                last = self.text_content(e).await.unwrap_or_default();
                if ok(&last) {
                    return Ok(last);
                }
            }
            if started.elapsed() > timeout {
                bail!("{css:?} still reads {last:?} after {timeout:?}");
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// Clicks an element.
    pub async fn click(&self, e: &Element) -> Result<()> {
        self.post(&format!("/element/{}/click", e.0), json!({}))
            .await
            .map(drop)
    }

    /// Clicks an element from a script: for controls WebDriver calls not interactable
    /// (shown only on hover, or scrolled inside a table).
    pub async fn script_click(&self, e: &Element) -> Result<()> {
        self.execute("arguments[0].click();", vec![json!({ ELEMENT_KEY: e.0 })])
            .await
            .map(drop)
    }

    /// The reference a script argument takes for an element.
    pub fn arg(e: &Element) -> Value {
        json!({ ELEMENT_KEY: e.0 })
    }

    /// Clears an input and types `text` into it.
    pub async fn type_into(&self, e: &Element, text: &str) -> Result<()> {
        self.post(&format!("/element/{}/clear", e.0), json!({}))
            .await?;
        self.post(&format!("/element/{}/value", e.0), json!({ "text": text }))
            .await
            .map(drop)
    }

    /// The rendered text of an element.
    pub async fn text(&self, e: &Element) -> Result<String> {
        let v = self.get(&format!("/element/{}/text", e.0)).await?;
        Ok(v.as_str().unwrap_or_default().to_owned())
    }

    /// The `textContent` of an element. Unlike [`Session::text`] it does not depend on
    /// layout (WebKitWebDriver returns no text for some absolutely placed rows).
    pub async fn text_content(&self, e: &Element) -> Result<String> {
        let v = self
            .execute(
                "return arguments[0].textContent;",
                vec![json!({ ELEMENT_KEY: e.0 })],
            )
            .await?;
        Ok(v.as_str().unwrap_or_default().to_owned())
    }

    /// An attribute of an element.
    pub async fn attribute(&self, e: &Element, name: &str) -> Result<Option<String>> {
        let v = self
            .get(&format!("/element/{}/attribute/{name}", e.0))
            .await?;
        Ok(v.as_str().map(str::to_owned))
    }

    /// The value property of a form control.
    pub async fn value(&self, e: &Element) -> Result<String> {
        let v = self
            .get(&format!("/element/{}/property/value", e.0))
            .await?;
        Ok(v.as_str().unwrap_or_default().to_owned())
    }

    /// Runs an asynchronous script: the last argument is the callback to call with the
    /// result.
    pub async fn execute_async(&self, script: &str, args: Vec<Value>) -> Result<Value> {
        self.post("/execute/async", json!({ "script": script, "args": args }))
            .await
    }

    /// Runs a synchronous script.
    pub async fn execute(&self, script: &str, args: Vec<Value>) -> Result<Value> {
        self.post("/execute/sync", json!({ "script": script, "args": args }))
            .await
    }

    /// Performs W3C pointer actions (`/actions`) with the mouse: each step is a JSON
    /// action of a `pointer` source (`pointerMove`, `pointerDown`, `pointerUp`, `pause`),
    /// then releases every input.
    pub async fn mouse_actions(&self, steps: Vec<Value>) -> Result<()> {
        let body = json!({ "actions": [{
            "type": "pointer",
            "id": "mouse",
            "parameters": { "pointerType": "mouse" },
            "actions": steps,
        }]});
        let done = self.post("/actions", body).await.map(drop);
        let _ = self
            .http
            .delete(format!("{}/actions", self.base))
            .send()
            .await;
        done
    }

    /// Right-clicks the middle of an element (opens its context menu).
    pub async fn context_click(&self, e: &Element) -> Result<()> {
        self.mouse_actions(vec![
            json!({ "type": "pointerMove", "origin": { ELEMENT_KEY: e.0 }, "x": 0, "y": 0 }),
            json!({ "type": "pointerDown", "button": 2 }),
            json!({ "type": "pointerUp", "button": 2 }),
        ])
        .await
    }

    /// Drags with the left button from `from` (pixels off the middle of an element) by
    /// `(dx, dy)` pixels, in a few steps.
    pub async fn drag_by(&self, e: &Element, from: (i64, i64), by: (i64, i64)) -> Result<()> {
        let mut steps = vec![
            json!({ "type": "pointerMove", "origin": { ELEMENT_KEY: e.0 }, "x": from.0, "y": from.1 }),
            json!({ "type": "pointerDown", "button": 0 }),
        ];
        for _ in 0..4 {
            steps.push(json!({
                "type": "pointerMove", "origin": "pointer", "duration": 50,
                "x": by.0 / 4, "y": by.1 / 4
            }));
        }
        steps.push(json!({ "type": "pointerUp", "button": 0 }));
        self.mouse_actions(steps).await
    }

    /// Sends keys to an element (W3C key codes such as `\u{E014}` for the right arrow).
    pub async fn send_keys(&self, e: &Element, text: &str) -> Result<()> {
        self.post(&format!("/element/{}/value", e.0), json!({ "text": text }))
            .await
            .map(drop)
    }

    /// Resizes the window (W3C "Set Window Rect").
    pub async fn set_window_size(&self, width: u32, height: u32) -> Result<()> {
        self.post("/window/rect", json!({ "width": width, "height": height }))
            .await
            .map(drop)
    }

    /// A PNG of the webview.
    pub async fn screenshot(&self) -> Result<Vec<u8>> {
        let v = self.get("/screenshot").await?;
        let b64 = v.as_str().ok_or_else(|| anyhow!("no screenshot data"))?;
        Ok(base64::engine::general_purpose::STANDARD.decode(b64)?)
    }

    /// Ends the session (which quits the app).
    pub async fn close(self) -> Result<()> {
        self.http.delete(&self.base).send().await?;
        Ok(())
    }
}

fn element(v: &Value) -> Result<Element> {
    v[ELEMENT_KEY]
        .as_str()
        .map(|s| Element(s.to_owned()))
        .ok_or_else(|| anyhow!("not an element reference: {v}"))
}

/// The `value` of a WebDriver response, or its error as an `Err`.
async fn unwrap_value(r: reqwest::Response) -> Result<Value> {
    let status = r.status();
    let body: Value = r.json().await.context("WebDriver answered with no JSON")?;
    let value = body.get("value").cloned().unwrap_or(Value::Null);
    if !status.is_success() {
        bail!(
            "WebDriver error {status}: {} {}",
            value["error"].as_str().unwrap_or(""),
            value["message"].as_str().unwrap_or("")
        );
    }
    Ok(value)
}
