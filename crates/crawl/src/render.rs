//! Rendering in Chromium during the crawl (`CrawlConfig::render`): the pool of tabs
//! (`render::Renderer`) and the gate through which every request a rendered page makes
//! passes the audit's own admission check ([`crate::scope::Guard::admit`] with
//! [`Route::Fetch`]: an in-scope origin and the address policy), robots.txt when the
//! audit obeys it, and the crawl's own HTTP client (whose resolver applies the address
//! policy to the address actually connected to). Nothing else reaches the network.

use std::sync::{Arc, Weak};
use std::time::Duration;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

use crate::CrawlError;
use crate::run::Ctx;
use crate::scope::Route;

/// How pages are rendered (`dustpan audit --render`), kept in the audit's configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenderConfig {
    /// Pages rendered at once (`--render-concurrency`). Default 2.
    pub concurrency: usize,
    /// The budget of one page, load, settle and reading the DOM, in ms. Default 10,000.
    pub page_timeout_ms: u64,
    /// No request in flight for this long and the page counts as settled, in ms.
    /// Default 500.
    pub settle_ms: u64,
    /// The V8 heap limit of a page, in MiB. Default 256.
    pub max_heap_mb: u32,
    /// The Chromium binary; `None`: Debian's `/usr/bin/chromium`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chromium: Option<String>,
}

impl Default for RenderConfig {
    fn default() -> Self {
        let settings = render::Settings::default();
        Self {
            concurrency: settings.concurrency,
            page_timeout_ms: u64::try_from(settings.page_timeout.as_millis()).unwrap_or(10_000),
            settle_ms: u64::try_from(settings.settle.as_millis()).unwrap_or(500),
            max_heap_mb: settings.max_heap_mb,
            chromium: None,
        }
    }
}

impl RenderConfig {
    /// The renderer's settings.
    pub fn settings(&self) -> render::Settings {
        render::Settings {
            chromium: self
                .chromium
                .as_deref()
                .unwrap_or(render::DEFAULT_CHROMIUM)
                .into(),
            concurrency: self.concurrency.max(1),
            page_timeout: Duration::from_millis(self.page_timeout_ms.max(500)),
            settle: Duration::from_millis(self.settle_ms),
            max_heap_mb: self.max_heap_mb.max(16),
        }
    }
}

/// The requests of rendered pages, answered by the crawl.
struct CrawlGate(Weak<Ctx>);

impl render::Gate for CrawlGate {
    fn answer(
        &self,
        request: render::Request,
    ) -> BoxFuture<'static, Result<render::Answer, render::Refused>> {
        let ctx = self.0.upgrade();
        Box::pin(async move {
            let ctx = ctx.ok_or_else(|| render::Refused("the crawl has ended".into()))?;
            let url = request.url;
            ctx.guard
                .admit(&url, Route::Fetch)
                .map_err(|refusal| render::Refused(refusal.to_string()))?;
            if ctx.config.obey_robots && !ctx.robots_for(&url).await.allows(&url) {
                return Err(render::Refused(format!("{url}: blocked by robots.txt")));
            }
            let response =
                crate::fetch::get(&ctx.client, &url, ctx.config.max_response_bytes, |_, _| {
                    request.method != "HEAD"
                })
                .await
                .map_err(|failure| {
                    render::Refused(format!("{}: {}", failure.kind, failure.message))
                })?;
            let headers = response
                .headers
                .iter()
                .filter_map(|(name, value)| {
                    Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned()))
                })
                .collect();
            Ok(render::Answer {
                status: response.status.as_u16(),
                headers,
                body: response.body,
            })
        })
    }
}

/// The renderer of a run whose configuration renders, over the run's context.
pub(crate) fn renderer(
    config: &crate::CrawlConfig,
    ctx: &Weak<Ctx>,
) -> Result<Option<Arc<render::Renderer>>, CrawlError> {
    let Some(render) = &config.render else {
        return Ok(None);
    };
    let gate = Arc::new(CrawlGate(Weak::clone(ctx)));
    render::Renderer::new(render.settings(), gate)
        .map(|r| Some(Arc::new(r)))
        .map_err(|e| CrawlError::Config(format!("--render: {e}")))
}
