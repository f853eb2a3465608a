//! One HTTP request, bounded: redirects are not followed (the crawler records each hop),
//! the body is streamed with a hard byte cap (applied after decompression, so a gzip bomb
//! stops at the cap), and connect / read / total timeouts end slow or dying servers.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::HeaderMap;
use reqwest::{Client, StatusCode};
use url::Url;

use crate::address::{
    ADDRESS_REFUSED, AddressPolicy, AddressRefused, GuardedResolver, name_not_resolved,
};
use crate::{CrawlConfig, CrawlError};

/// The audit's HTTP client and the address policy it obeys.
#[derive(Debug, Clone)]
pub(crate) struct Http {
    client: Client,
    policy: Arc<AddressPolicy>,
}

/// Builds the audit's HTTP client from its configuration. Every name it connects to is
/// resolved by [`GuardedResolver`] (the `--resolve` overrides included), so every
/// connection obeys `policy`; through a proxy, [`get`] checks the name first.
pub(crate) fn client(
    config: &CrawlConfig,
    policy: &Arc<AddressPolicy>,
) -> Result<Http, CrawlError> {
    Ok(Http {
        client: reqwest_client(config, policy)?,
        policy: Arc::clone(policy),
    })
}

fn reqwest_client(config: &CrawlConfig, policy: &Arc<AddressPolicy>) -> Result<Client, CrawlError> {
    let mut builder = Client::builder()
        .user_agent(config.user_agent.clone())
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(config.connect_timeout())
        .read_timeout(config.read_timeout())
        .timeout(config.total_timeout())
        .pool_max_idle_per_host(config.concurrency.max(1))
        .pool_idle_timeout(Duration::from_secs(30))
        .tcp_nodelay(true)
        .dns_resolver(GuardedResolver(Arc::clone(policy)));
    let mut roots = Vec::new();
    for pem in &config.extra_root_certs_pem {
        let certs = reqwest::Certificate::from_pem_bundle(pem.as_bytes())
            .map_err(|e| CrawlError::Config(format!("extra root certificate: {e}")))?;
        if certs.is_empty() {
            return Err(CrawlError::Config(
                "extra root certificate: no certificate in PEM".into(),
            ));
        }
        roots.extend(certs);
    }
    if !roots.is_empty() {
        builder = builder.tls_certs_merge(roots);
    }
    builder
        .build()
        .map_err(|e| CrawlError::Config(format!("HTTP client: {e}")))
}

/// A response whose head arrived.
#[derive(Debug)]
pub(crate) struct Response {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    /// The body read (empty when it was not wanted).
    pub body: Vec<u8>,
    /// The body went past the cap and the rest was not read.
    pub truncated: bool,
    /// Time to the response head.
    pub ttfb: Duration,
}

impl Response {
    /// A header's value as text (first occurrence), if it is valid text.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The redirect target: the one `Location` header. Two or more are an error (their
    /// values, as text, are returned): browsers refuse such a response, and joining
    /// them would make up a URL.
    pub(crate) fn location(&self) -> Result<Option<&str>, Vec<String>> {
        let all = self.headers.get_all(reqwest::header::LOCATION);
        let mut values = all.iter();
        let first = values.next();
        if values.next().is_some() {
            return Err(all
                .iter()
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .collect());
        }
        Ok(first.and_then(|v| v.to_str().ok()))
    }

    /// The headers as stored with the fetch: bounded, names lower case, in the order sent.
    pub(crate) fn stored_headers(&self) -> store::ResponseHeaders {
        store::ResponseHeaders::bounded(
            self.headers
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_bytes())),
        )
    }

    /// Every occurrence of a header, joined with ", ".
    pub(crate) fn header_all(&self, name: &str) -> Option<String> {
        let values: Vec<&str> = self
            .headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        (!values.is_empty()).then(|| values.join(", "))
    }
}

/// A request that ended without a usable response, or whose body failed midway.
#[derive(Debug)]
pub(crate) struct Failure {
    /// `address_refused`, `timeout`, `connect`, `dropped`, `decode`, `body`, `request`.
    pub kind: &'static str,
    /// What happened.
    pub message: String,
    /// The head, when the failure came while reading the body.
    pub partial: Option<Response>,
}

/// Whether the server closed or reset the connection (somewhere in the error's causes).
fn connection_dropped(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(e) = cause {
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::UnexpectedEof
                    | std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::BrokenPipe
            )
        {
            return true;
        }
        let text = e.to_string();
        if text.contains("closed before message completed") || text.contains("connection closed") {
            return true;
        }
        cause = e.source();
    }
    false
}

/// Whether the address policy refused every address of the host (somewhere in the
/// error's causes).
fn address_refused(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(e) = cause {
        if e.downcast_ref::<AddressRefused>().is_some() {
            return true;
        }
        cause = e.source();
    }
    false
}

/// `address_refused` (the address policy refused the host's addresses), `dns` (the
/// host name does not resolve), `timeout`, `connect`, `dropped` (the connection closed
/// mid-response), `decode` (bad compressed data), `body`, `request`.
fn kind_of(error: &reqwest::Error) -> &'static str {
    use store::FetchErrorKind as K;
    let kind = if address_refused(error) {
        K::AddressRefused
    } else if name_not_resolved(error) {
        K::Dns
    } else if error.is_timeout() {
        K::Timeout
    } else if error.is_connect() {
        K::Connect
    } else if connection_dropped(error) {
        K::Dropped
    } else if error.is_decode() {
        K::Decode
    } else if error.is_body() {
        K::Body
    } else {
        K::Request
    };
    kind.as_str()
}

/// The full chain of an error's causes, which is where reqwest keeps the useful part.
pub(crate) fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}

/// Sends a GET for `url` (through a proxy, after the address policy checked its host
/// name) and reads the body (up to `max_bytes`) if `want_body` says so
/// for the status and headers.
pub(crate) async fn get(
    http: &Http,
    url: &Url,
    max_bytes: u64,
    want_body: impl FnOnce(StatusCode, &HeaderMap) -> bool,
) -> Result<Response, Failure> {
    let started = Instant::now();
    if http.policy.proxied()
        && let Err(message) = http.policy.check_proxied(url).await
    {
        return Err(Failure {
            kind: ADDRESS_REFUSED,
            message,
            partial: None,
        });
    }
    let mut response = http
        .client
        .get(url.clone())
        .send()
        .await
        .map_err(|e| Failure {
            kind: kind_of(&e),
            message: describe(&e),
            partial: None,
        })?;
    let mut head = Response {
        status: response.status(),
        headers: response.headers().clone(),
        body: Vec::new(),
        truncated: false,
        ttfb: started.elapsed(),
    };
    if !want_body(head.status, &head.headers) {
        return Ok(head);
    }
    let cap = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = cap - head.body.len();
                if chunk.len() > room {
                    head.body.extend_from_slice(&chunk[..room]);
                    head.truncated = true;
                    break;
                }
                head.body.extend_from_slice(&chunk);
                if head.body.len() == cap {
                    // Exactly at the cap: truncated only if more is coming.
                    head.truncated = matches!(response.chunk().await, Ok(Some(c)) if !c.is_empty());
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                return Err(Failure {
                    kind: kind_of(&e),
                    message: describe(&e),
                    partial: Some(head),
                });
            }
        }
    }
    Ok(head)
}

/// The wait a 429 / 503 asks for in its Retry-After header (seconds or an HTTP date).
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// Whether a response is HTML (by Content-Type, or by sniffing when there is none).
pub(crate) fn is_html(content_type: Option<&str>, body: &[u8]) -> bool {
    match content_type {
        Some(ct) => {
            let ct = ct.to_ascii_lowercase();
            ct.contains("text/html") || ct.contains("application/xhtml")
        }
        None => {
            let head = &body[..body.len().min(512)];
            let text = String::from_utf8_lossy(head).to_ascii_lowercase();
            let text = text.trim_start_matches('\u{feff}').trim_start();
            text.starts_with("<!doctype html")
                || text.starts_with("<html")
                || text.contains("<head")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", "7".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
        headers.insert(
            "retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&headers), Some(Duration::ZERO));
        headers.insert("retry-after", "soon".parse().unwrap());
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn html_is_recognised() {
        assert!(is_html(Some("text/html; charset=utf-8"), b""));
        assert!(is_html(Some("application/xhtml+xml"), b""));
        assert!(!is_html(Some("application/pdf"), b"<html>"));
        assert!(is_html(None, b"  <!DOCTYPE html><html>"));
        assert!(!is_html(None, b"%PDF-1.4"));
    }
}
