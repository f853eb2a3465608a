//! Processing one frontier URL: robots.txt check, politeness, the request (with bounded
//! Retry-After retries), then what the response says: a redirect hop, headers
//! (X-Robots-Tag, Link, Refresh) and, for HTML, everything `extract` finds. Discovered
//! URLs go through admission ([`Frontier`](crate::frontier::Frontier)) in one batch.

use std::time::Instant;

use extract::{Page, PageDirection};
use store::{
    CanonicalRecord, Claimed, DeclarationSource, ErrorRecord, FetchRecord, FoundVia, HopKind,
    HreflangRecord, LinkRecord, PageRecord, ReasonKind, RedirectRecord, UrlId, UrlState, now_ms,
};
use url::Url;

use crate::fetch::{self, Response};
use crate::frontier::{Admission, Found, reason_of_word, rfc3986_key};
use crate::robots::origin;
use crate::run::Ctx;
use crate::scope::Route;

/// Bodies larger than this are parsed on the blocking pool, not on a runtime worker.
const INLINE_PARSE_BYTES: usize = 256 * 1024;
/// Bytes of pages over [`INLINE_PARSE_BYTES`] parsed at once. The extractor's working
/// set is several times the page (the decoded text, the tree, the visible text and its
/// words), so a crawl that meets many large pages parses them a few at a time, one at a
/// time at the response cap, while the other fetches go on: the memory of a run is its
/// bodies in flight (`concurrency` × `max_response_bytes` at most) plus the working set
/// of this many bytes of HTML. Parsing is CPU work: more at once than this would not be
/// faster on a machine of a few cores.
pub(crate) const PARSE_BUDGET_BYTES: usize = 16 << 20;

/// The semaphore of [`PARSE_BUDGET_BYTES`], in KiB.
pub(crate) fn parse_budget() -> tokio::sync::Semaphore {
    tokio::sync::Semaphore::new(PARSE_BUDGET_BYTES / 1024)
}
/// Anchor texts are stored up to this many characters: a card link wrapping a headline
/// and its teaser runs to 150-250.
const MAX_ANCHOR_CHARS: usize = 300;
/// Links stored per page (anchors, areas, then next/prev). Google's guidelines long asked
/// for "a few thousand at most"; the median page has under 100 and a very long
/// Wikipedia list about 3,000. Past it, links are dropped and an error row counts them.
pub(crate) const MAX_PAGE_LINKS: usize = 5_000;
/// Anchor-text characters stored per page, over all its links: 5,000 links of 20
/// characters (ordinary pages store a few thousand). Past it, anchors are stored
/// without text and an error row counts them.
pub(crate) const MAX_PAGE_ANCHOR_CHARS: usize = 100_000;
/// Link href bytes stored per page: 5,000 links of 200 bytes (real URLs average under
/// 100). Past it, links are dropped and an error row counts them.
pub(crate) const MAX_PAGE_HREF_BYTES: usize = 1 << 20;
/// The error kind of a page whose links or anchor texts went over the caps above.
pub(crate) const PAGE_LINKS_CAPPED: &str = "links_capped";

/// Where the id of an admitted URL goes once known.
#[derive(Debug, Clone, Copy)]
enum Target {
    Link(usize),
    Canonical(usize),
    Hreflang(usize),
    Redirect,
    /// A link of the rendered DOM.
    RenderedLink(usize),
    /// The rendered page's canonical.
    RenderedCanonical,
}

/// A discovered URL waiting for admission.
struct Candidate {
    url: Url,
    key: String,
    depth: u32,
    redirect_depth: u32,
    via: FoundVia,
    unfollowed: Option<ReasonKind>,
    target: Target,
}

/// Collects the URLs a page points at, then admits them all under one lock.
struct Discoveries<'a> {
    ctx: &'a Ctx,
    page: UrlId,
    /// The page's URL has a query string (a filter state linking further states).
    page_has_query: bool,
    /// The page is a URL-variant probe's: what it points at is recorded, not followed
    /// (but its redirect is, and marks its target a probe's page too).
    probe: bool,
    candidates: Vec<Candidate>,
}

impl<'a> Discoveries<'a> {
    fn new(ctx: &'a Ctx, page: UrlId, page_has_query: bool) -> Self {
        Self {
            ctx,
            page,
            page_has_query,
            probe: ctx.probes.contains(page),
            candidates: Vec::new(),
        }
    }

    /// Resolves `href` against `base`; on success queues it for admission and returns
    /// `None`, otherwise returns the canon error kind to store.
    fn add(
        &mut self,
        base: &Url,
        href: &str,
        (depth, redirect_depth): (u32, u32),
        via: FoundVia,
        unfollowed: Option<ReasonKind>,
        target: Target,
    ) -> Option<String> {
        let mut url = match canon::resolve(base, href) {
            Ok(url) => url,
            Err(e) => return Some(e.kind().to_owned()),
        };
        url.set_fragment(None);
        let hop = matches!(via, FoundVia::Redirect | FoundVia::MetaRefresh);
        let unfollowed = match unfollowed {
            None if self.probe && !hop => Some(ReasonKind::NotFollowed),
            other => other,
        };
        match rfc3986_key(&url, &self.ctx.rfc3986) {
            Ok(key) => {
                self.candidates.push(Candidate {
                    url,
                    key,
                    depth,
                    redirect_depth,
                    via,
                    unfollowed,
                    target,
                });
                None
            }
            Err(e) => Some(e.kind().to_owned()),
        }
    }

    /// Admits every candidate and writes the ids (and new URL rows) into `record`.
    fn admit_into(self, record: &mut PageRecord) {
        if self.candidates.is_empty() {
            return;
        }
        let mut frontier = self.ctx.lock_frontier();
        for c in self.candidates {
            let admission = frontier.admit(&Found {
                url: &c.url,
                key: &c.key,
                depth: c.depth,
                redirect_depth: c.redirect_depth,
                from: Some(self.page),
                from_query: self.page_has_query,
                via: c.via,
                unfollowed: c.unfollowed,
            });
            let id = admission.id();
            if self.probe
                && matches!(c.target, Target::Redirect)
                && !matches!(admission, Admission::Known(_))
            {
                self.ctx.probes.mark(id);
            }
            match admission {
                Admission::Known(_) => {}
                Admission::New(url) => record.new_urls.push(url),
                Admission::Requeue(id, depth) => record.requeue.push(store::Requeue { id, depth }),
            }
            match c.target {
                Target::Link(i) => record.links[i].to = Some(id),
                Target::Canonical(i) => record.canonicals[i].target = Some(id),
                Target::Hreflang(i) => record.hreflang[i].target = Some(id),
                Target::RenderedLink(i) => {
                    if let Some(r) = record.rendered.as_mut() {
                        r.links[i].to = Some(id);
                    }
                }
                Target::RenderedCanonical => {
                    if let Some(r) = record.rendered.as_mut() {
                        r.canonical_target = Some(id);
                    }
                }
                Target::Redirect => {
                    if let Some(r) = record.redirect.as_mut() {
                        r.to = Some(id);
                    }
                    if let Some(f) = record.fetch.as_mut() {
                        f.redirect_to = Some(id);
                    }
                }
            }
        }
    }
}

/// Robots directives as the major search engines and we read them.
#[derive(Default)]
struct Directives {
    noindex: bool,
    nofollow: bool,
}

impl Directives {
    fn apply(&mut self, d: &extract::RobotsDirectives, agent: &str) {
        let applies = d.user_agent.as_deref().is_none_or(|ua| {
            ua.eq_ignore_ascii_case(agent)
                || ua.eq_ignore_ascii_case("googlebot")
                || ua.eq_ignore_ascii_case("bingbot")
        });
        if applies {
            self.noindex |= d.noindex;
            self.nofollow |= d.nofollow;
        }
    }
}

fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => text[..cut].to_owned(),
        None => text.to_owned(),
    }
}

fn ms(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Processes one claimed URL into the record the writer stores.
pub(crate) async fn process(ctx: &Ctx, claimed: &Claimed) -> PageRecord {
    let mut record = PageRecord::new(claimed.id, UrlState::Done);
    let Some((url, crawl_delay)) = cleared(ctx, claimed, &mut record).await else {
        return record;
    };

    let host = url.host_str().unwrap_or("").to_owned();
    ctx.gate.wait(&host, crawl_delay).await;
    let fetched_at = now_ms();
    let started = Instant::now();
    let (result, attempts) = get_with_retries(ctx, &url, &host, crawl_delay).await;

    let mut fetch = FetchRecord {
        fetched_at,
        attempts,
        ..FetchRecord::default()
    };
    let mut response = match result {
        Ok(response) => response,
        Err(failure) => {
            if let Some(head) = &failure.partial {
                fetch.status = Some(head.status.as_u16());
                fetch.content_type = head.header("content-type").map(str::to_owned);
                fetch.content_length = head.header("content-length").and_then(|v| v.parse().ok());
                fetch.ttfb_ms = Some(ms(head.ttfb));
                fetch.body_bytes = head.body.len() as u64;
                fetch.headers = Some(head.stored_headers());
            }
            fetch.total_ms = ms(started.elapsed());
            fetch.error_kind = Some(failure.kind.to_owned());
            fetch.error_message = Some(failure.message);
            record.state = UrlState::Failed;
            record.reason = Some(reason_of_word(failure.kind));
            record.fetch = Some(fetch);
            return record;
        }
    };
    fetch.total_ms = ms(started.elapsed());
    fetch.status = Some(response.status.as_u16());
    fetch.content_type = response.header("content-type").map(str::to_owned);
    fetch.content_length = response
        .header("content-length")
        .and_then(|v| v.parse().ok());
    fetch.ttfb_ms = Some(ms(response.ttfb));
    fetch.body_bytes = response.body.len() as u64;
    fetch.truncated = response.truncated;
    fetch.headers = Some(response.stored_headers());
    record.fetch = Some(fetch);

    let mut found = Discoveries::new(ctx, claimed.id, url.query().is_some());
    let mut directives = Directives::default();
    if let Some(tag) = response.header_all("x-robots-tag") {
        for scope in extract::parse_robots_scopes(&tag) {
            directives.apply(&scope, &ctx.agent);
        }
        if let Some(f) = record.fetch.as_mut() {
            f.x_robots_tag = Some(tag);
        }
    }

    // A redirect hop.
    let hop_depths = (claimed.depth, claimed.redirect_depth + 1);
    redirect_hop(
        &mut record,
        &mut found,
        &url,
        &response,
        claimed.id,
        hop_depths,
        claimed.redirect_depth,
    );

    // Link and Refresh headers.
    let link_depths = (claimed.depth + 1, 0);
    let header_declared = link_header(ctx, &mut record, &mut found, &url, &response, link_depths);
    if record.redirect.is_none()
        && let Some(refresh) = response.header("refresh").and_then(extract::parse_refresh)
        && let Some(target) = refresh.url
    {
        meta_refresh_hop(
            &mut record,
            &mut found,
            &url,
            &response,
            &target,
            hop_depths,
            claimed.redirect_depth,
        );
    }

    // The HTML itself.
    if response.status.is_success()
        && !response.body.is_empty()
        && fetch::is_html(response.header("content-type"), &response.body)
    {
        let content_type = response.header("content-type").map(str::to_owned);
        let body = std::mem::take(&mut response.body);
        // The document a rendered page starts from: the bytes fetched here.
        let document = (ctx.renderer.is_some() && !found.probe).then(|| body.clone());
        match parse(ctx, body, content_type).await {
            Ok(page) => {
                html(
                    ctx,
                    &mut record,
                    &mut found,
                    &url,
                    &response,
                    &page,
                    &mut directives,
                    claimed,
                );
                if let Some(document) = document {
                    rendered(
                        ctx,
                        &mut record,
                        &mut found,
                        &url,
                        &response,
                        document,
                        &page,
                        claimed,
                    )
                    .await;
                }
            }
            Err(message) => extraction_failed(&mut record, message),
        }
    }

    declared_in_header(
        ctx,
        &mut record,
        &mut found,
        &url,
        header_declared,
        &directives,
        claimed,
    );

    if let Some(f) = record.fetch.as_mut() {
        f.noindex = directives.noindex;
        f.nofollow = directives.nofollow;
    }
    found.admit_into(&mut record);
    record
}

/// The claimed URL parsed and cleared for a request: admitted by today's scope and
/// address rules, not predicted a duplicate by a DUST rule confirmed since it was
/// queued, allowed by robots.txt (with its crawl delay). `None` when not, with `record`
/// saying why.
async fn cleared(
    ctx: &Ctx,
    claimed: &Claimed,
    record: &mut PageRecord,
) -> Option<(Url, Option<std::time::Duration>)> {
    let url = match Url::parse(&claimed.url) {
        Ok(url) => url,
        Err(e) => {
            record.state = UrlState::Failed;
            record.reason = Some(ReasonKind::InvalidUrl.into());
            record.errors.push(ErrorRecord {
                url_id: Some(claimed.id),
                phase: "fetch".into(),
                kind: "invalid_url".into(),
                message: e.to_string(),
            });
            return None;
        }
    };

    // Admitted when it was queued; checked again on the way out (a URL queued by an
    // earlier run may be out of the scope of today's rules).
    if let Err(refusal) = ctx.guard.admit(&url, Route::Fetch) {
        record.state = UrlState::Skipped;
        record.reason = Some(reason_of_word(refusal.reason()));
        return None;
    }

    // A DUST rule confirmed since the URL was queued may predict it duplicates another
    // queued URL: skipped now as it would have been when found (but for the
    // verification sample).
    if ctx.lock_frontier().skips_claimed(url.as_str()) {
        record.state = UrlState::Skipped;
        record.reason = Some(ReasonKind::DustDuplicate.into());
        return None;
    }

    let mut crawl_delay = None;
    if ctx.config.obey_robots {
        let rules = ctx.robots_for(&url).await;
        if !rules.allows(&url) {
            record.state = UrlState::Blocked;
            record.reason = Some(ReasonKind::RobotsTxt.into());
            record.blocked_by = Some(origin(&url));
            return None;
        }
        crawl_delay = rules.crawl_delay;
    }
    Some((url, crawl_delay))
}

/// Requests the URL, again after a 429 or 503 whose `Retry-After` is within the
/// configuration's bounds (waiting for the host's turn again); the last result and the
/// number of attempts.
async fn get_with_retries(
    ctx: &Ctx,
    url: &Url,
    host: &str,
    crawl_delay: Option<std::time::Duration>,
) -> (Result<Response, fetch::Failure>, u32) {
    let mut attempts = 0u32;
    let result = loop {
        attempts += 1;
        let result = fetch::get(
            &ctx.client,
            url,
            ctx.config.max_response_bytes,
            |status, headers| {
                status.is_success()
                    && headers
                        .get(reqwest::header::CONTENT_TYPE)
                        .and_then(|v| v.to_str().ok())
                        .is_none_or(|ct| fetch::is_html(Some(ct), b""))
            },
        )
        .await;
        if let Ok(response) = &result
            && matches!(response.status.as_u16(), 429 | 503)
            && attempts <= ctx.config.max_retries
            && let Some(wait) = fetch::retry_after(&response.headers)
            && ms(wait) <= ctx.config.max_retry_after_ms
        {
            tokio::time::sleep(wait).await;
            ctx.gate.wait(host, crawl_delay).await;
            continue;
        }
        break result;
    };
    (result, attempts)
}

/// The redirect hop of a 3xx answer with a `Location`, recorded and queued (several
/// `Location` headers are an error, and no hop).
fn redirect_hop(
    record: &mut PageRecord,
    found: &mut Discoveries<'_>,
    url: &Url,
    response: &Response,
    url_id: UrlId,
    hop_depths: (u32, u32),
    redirect_depth: u32,
) {
    let location = match response.location() {
        Ok(location) => location.map(str::to_owned),
        Err(values) => {
            record.errors.push(multiple_locations(url_id, &values));
            None
        }
    };
    if response.status.is_redirection()
        && let Some(location) = location
    {
        let error = found.add(
            url,
            &location,
            hop_depths,
            FoundVia::Redirect,
            None,
            Target::Redirect,
        );
        record.redirect = Some(RedirectRecord {
            to: None,
            status: response.status.as_u16(),
            location_raw: location,
            hop_index: redirect_depth,
            kind: HopKind::Http,
            error,
        });
    }
}

/// The canonicals and hreflang alternates of the `Link:` header, recorded and queued;
/// returns the URLs it declares (shortlink, alternate, amphtml, next, prev), stored
/// after the page's own links, once its robots directives are known.
fn link_header(
    ctx: &Ctx,
    record: &mut PageRecord,
    found: &mut Discoveries<'_>,
    url: &Url,
    response: &Response,
    link_depths: (u32, u32),
) -> Vec<String> {
    let mut header_declared: Vec<String> = Vec::new();
    if let Some(header) = response.header_all("link") {
        for entry in extract::parse_link_header(&header) {
            if entry.declares_url() {
                header_declared.push(entry.url.clone());
            }
            if entry.has_rel("canonical") {
                let i = record.canonicals.len();
                let unfollowed = (!ctx.config.follow_canonicals).then_some(ReasonKind::NotFollowed);
                let error = found.add(
                    url,
                    &entry.url,
                    link_depths,
                    FoundVia::Canonical,
                    unfollowed,
                    Target::Canonical(i),
                );
                record.canonicals.push(CanonicalRecord {
                    target: None,
                    href_raw: entry.url.clone(),
                    source: DeclarationSource::HttpHeader,
                    in_head: true,
                    error,
                });
            } else if entry.has_rel("alternate")
                && let Some(lang) = &entry.hreflang
            {
                let i = record.hreflang.len();
                let unfollowed = (!ctx.config.follow_hreflang).then_some(ReasonKind::NotFollowed);
                found.add(
                    url,
                    &entry.url,
                    link_depths,
                    FoundVia::Hreflang,
                    unfollowed,
                    Target::Hreflang(i),
                );
                record.hreflang.push(HreflangRecord {
                    lang: lang.clone(),
                    target: None,
                    href_raw: entry.url.clone(),
                    source: DeclarationSource::HttpHeader,
                });
            }
        }
    }
    header_declared
}

/// Stores and queues the URLs a `Link:` header declares, as links tagged `link_header`
/// (after the page's own, within [`MAX_PAGE_LINKS`]).
fn declared_in_header(
    ctx: &Ctx,
    record: &mut PageRecord,
    found: &mut Discoveries<'_>,
    url: &Url,
    hrefs: Vec<String>,
    directives: &Directives,
    claimed: &Claimed,
) {
    let nofollow_page = directives.nofollow && !ctx.config.follow_nofollow_pages;
    let mut dropped = 0u64;
    for href in hrefs {
        if record.links.len() >= MAX_PAGE_LINKS {
            dropped += 1;
            continue;
        }
        let i = record.links.len();
        let error = found.add(
            url,
            &href,
            (claimed.depth + 1, 0),
            FoundVia::Link,
            nofollow_page.then_some(ReasonKind::Nofollow),
            Target::Link(i),
        );
        record.links.push(LinkRecord {
            to: None,
            href_raw: href,
            anchor_text: None,
            nofollow: false,
            tag: extract::DeclaredKind::LinkHeader.as_str().to_owned(),
            error,
            region: None,
        });
    }
    if dropped > 0 {
        let caps = PageCaps {
            dropped_links: dropped,
            ..PageCaps::default()
        };
        record.errors.extend(caps.error(record.url_id));
    }
}

/// The error kind of a response with more than one `Location` header.
pub(crate) const MULTIPLE_LOCATIONS: &str = "multiple_locations";

/// The error row of a response with more than one `Location` header: no redirect is
/// recorded or followed.
fn multiple_locations(url_id: UrlId, values: &[String]) -> ErrorRecord {
    ErrorRecord {
        url_id: Some(url_id),
        phase: "fetch".into(),
        kind: MULTIPLE_LOCATIONS.into(),
        message: format!(
            "{} Location headers ({}): browsers refuse the response; not followed",
            values.len(),
            values
                .iter()
                .map(|v| format!("{:?}", truncate_chars(v, 200)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The fetch error kind of a page whose HTML the extractor could not process.
pub(crate) const EXTRACT_FAILED: &str = store::FetchErrorKind::Extract.as_str();

/// Runs the HTML extractor, off the runtime's workers for large bodies, at most
/// [`PARSE_BUDGET_BYTES`] of them at once. A panic in the extractor is the error's
/// message.
async fn parse(ctx: &Ctx, body: Vec<u8>, content_type: Option<String>) -> Result<Page, String> {
    if body.len() <= INLINE_PARSE_BYTES {
        return std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            extract::extract(&body, content_type.as_deref())
        }))
        .map_err(|payload| panic_message(payload.as_ref()));
    }
    let kib = body.len().div_ceil(1024).min(PARSE_BUDGET_BYTES / 1024);
    let _permit = ctx
        .parsing
        .acquire_many(u32::try_from(kib).unwrap_or(u32::MAX))
        .await
        .map_err(|e| e.to_string())?;
    tokio::task::spawn_blocking(move || extract::extract(&body, content_type.as_deref()))
        .await
        .map_err(|e| match e.try_into_panic() {
            Ok(payload) => panic_message(payload.as_ref()),
            Err(e) => e.to_string(),
        })
}

/// What a panic said.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message");
    format!("the HTML extractor panicked: {text}")
}

/// Records a page whose response arrived but whose HTML could not be extracted: the
/// fetch carries the error, and an error row says what happened. The page keeps its
/// status; nothing is known of its content or links.
fn extraction_failed(record: &mut PageRecord, message: String) {
    if let Some(f) = record.fetch.as_mut() {
        f.error_kind = Some(EXTRACT_FAILED.to_owned());
        f.error_message = Some(message.clone());
    }
    record.errors.push(ErrorRecord {
        url_id: Some(record.url_id),
        phase: "extract".into(),
        kind: "panic".into(),
        message,
    });
}

fn meta_refresh_hop(
    record: &mut PageRecord,
    found: &mut Discoveries<'_>,
    url: &Url,
    response: &Response,
    target: &str,
    depths: (u32, u32),
    hop_index: u32,
) {
    let error = found.add(
        url,
        target,
        depths,
        FoundVia::MetaRefresh,
        None,
        Target::Redirect,
    );
    record.redirect = Some(RedirectRecord {
        to: None,
        status: response.status.as_u16(),
        location_raw: target.to_owned(),
        hop_index,
        kind: HopKind::MetaRefresh,
        error,
    });
}

/// What one page may store of its links ([`MAX_PAGE_LINKS`], [`MAX_PAGE_HREF_BYTES`],
/// [`MAX_PAGE_ANCHOR_CHARS`]), and what went over.
#[derive(Debug, Default)]
struct PageCaps {
    links: usize,
    href_bytes: usize,
    anchor_chars: usize,
    /// Links not stored (over the link or href caps, or the extractor's own).
    dropped_links: u64,
    /// Anchors stored without (all of) their text.
    cut_anchors: u64,
}

impl PageCaps {
    /// Whether the link is stored, and with which anchor text.
    fn admit(&mut self, href: &str, text: Option<String>) -> Option<Option<String>> {
        if self.links >= MAX_PAGE_LINKS || self.href_bytes + href.len() > MAX_PAGE_HREF_BYTES {
            self.dropped_links += 1;
            return None;
        }
        self.links += 1;
        self.href_bytes += href.len();
        let Some(text) = text else {
            return Some(None);
        };
        let left = MAX_PAGE_ANCHOR_CHARS - self.anchor_chars;
        let chars = text.chars().count();
        if chars <= left {
            self.anchor_chars += chars;
            return Some(Some(text));
        }
        self.cut_anchors += 1;
        self.anchor_chars = MAX_PAGE_ANCHOR_CHARS;
        Some((left > 0).then(|| truncate_chars(&text, left)))
    }

    /// The error row saying what was not stored, if anything.
    fn error(&self, url_id: UrlId) -> Option<ErrorRecord> {
        if self.dropped_links == 0 && self.cut_anchors == 0 {
            return None;
        }
        Some(ErrorRecord {
            url_id: Some(url_id),
            phase: "extract".into(),
            kind: PAGE_LINKS_CAPPED.into(),
            message: format!(
                "{} links not stored, {} anchor texts cut (a page stores at most {MAX_PAGE_LINKS} \
                 links, {MAX_PAGE_HREF_BYTES} bytes of hrefs and {MAX_PAGE_ANCHOR_CHARS} \
                 characters of anchor text)",
                self.dropped_links, self.cut_anchors
            ),
        })
    }
}

/// What the fetch record keeps of the page: title, meta description and robots, text
/// hashes and word count, first heading, text blocks, charset.
fn page_fields(record: &mut PageRecord, page: &Page) {
    if let Some(f) = record.fetch.as_mut() {
        f.title = page.title.clone();
        f.meta_description = page.meta_description.clone();
        if !page.meta_robots.is_empty() {
            f.meta_robots = Some(
                page.meta_robots
                    .iter()
                    .map(|m| format!("{}: {}", m.name, m.content))
                    .collect::<Vec<_>>()
                    .join("; "),
            );
        }
        f.text_hash = Some(page.text_hash);
        f.simhash = Some(page.simhash);
        f.word_count = Some(u32::try_from(page.word_count).unwrap_or(u32::MAX));
        f.h1 = page.h1.clone();
        f.blocks = Some(extract::blocks::encode(&page.blocks));
        f.charset = Some(page.charset.clone());
    }
}

/// The crawl's own DUST rules learn from every page that answered 2xx, and check the
/// pages they predicted (the verification sample) against their twins; the rules
/// confirmed or dropped go to the frontier.
fn observe_dust(ctx: &Ctx, record: &PageRecord, url: &Url, page: &Page) {
    if let Some(dust) = &ctx.dust
        && record
            .fetch
            .as_ref()
            .is_some_and(|f| f.status.is_some_and(|s| (200..300).contains(&s)))
    {
        let text = crate::same_page::Text {
            hash: page.text_hash,
            simhash: Some(page.simhash),
            blocks: Some(crate::same_page::blocks_order(&page.blocks)),
            canonical: None,
        };
        // The page's canonical link element in <head>, resolved.
        let canonical = page.canonicals.iter().find(|c| c.in_head).and_then(|c| {
            canon::resolve(
                &canon::document_base(url, page.base_href.as_deref()),
                &c.href,
            )
            .ok()
        });
        let changes = dust.observe(url.as_str(), text, canonical.as_ref().map(url::Url::as_str));
        if !changes.confirmed.is_empty() || !changes.dropped.is_empty() {
            let mut frontier = ctx.lock_frontier();
            frontier.add_dust_rules(changes.confirmed);
            for id in &changes.dropped {
                frontier.drop_dust_rule(id);
            }
        }
    }
}

/// The page's canonical link elements and hreflang alternates, recorded and queued.
fn head_declarations(
    ctx: &Ctx,
    record: &mut PageRecord,
    found: &mut Discoveries<'_>,
    base: &Url,
    page: &Page,
    link_depths: (u32, u32),
) {
    for c in &page.canonicals {
        let i = record.canonicals.len();
        let unfollowed = (!ctx.config.follow_canonicals).then_some(ReasonKind::NotFollowed);
        let error = found.add(
            base,
            &c.href,
            link_depths,
            FoundVia::Canonical,
            unfollowed,
            Target::Canonical(i),
        );
        record.canonicals.push(CanonicalRecord {
            target: None,
            href_raw: c.href.clone(),
            source: DeclarationSource::LinkElement,
            in_head: c.in_head,
            error,
        });
    }
    for h in &page.hreflangs {
        let i = record.hreflang.len();
        let unfollowed = (!ctx.config.follow_hreflang).then_some(ReasonKind::NotFollowed);
        found.add(
            base,
            &h.href,
            link_depths,
            FoundVia::Hreflang,
            unfollowed,
            Target::Hreflang(i),
        );
        record.hreflang.push(HreflangRecord {
            lang: h.hreflang.clone(),
            target: None,
            href_raw: h.href.clone(),
            source: DeclarationSource::LinkElement,
        });
    }
}

/// Everything an HTML page contributes.
#[allow(clippy::too_many_arguments)]
fn html(
    ctx: &Ctx,
    record: &mut PageRecord,
    found: &mut Discoveries<'_>,
    url: &Url,
    response: &Response,
    page: &Page,
    directives: &mut Directives,
    claimed: &Claimed,
) {
    for meta in &page.meta_robots {
        directives.apply(&meta.directives, &ctx.agent);
    }
    page_fields(record, page);
    observe_dust(ctx, record, url, page);
    let base = canon::document_base(url, page.base_href.as_deref());
    let link_depths = (claimed.depth + 1, 0);

    // Anchors, areas, rel=next/prev links and the URLs the page declares (shortlink,
    // alternate, amphtml, og:url, structured data) are all stored as links, in that
    // order; a declared URL's tag is its kind (`shortlink`, `og_url`, ...). Declared
    // URLs are crawled like links (scope, robots.txt, limits and trap guards all apply
    // at admission); the analysis counts them as discovery, not as links.
    let nofollow_page = directives.nofollow && !ctx.config.follow_nofollow_pages;
    let anchors = page.links.iter().map(|link| {
        let tag = match link.tag {
            extract::LinkTag::A => "a",
            extract::LinkTag::Area => "area",
        };
        let text = (!link.text.is_empty()).then(|| truncate_chars(&link.text, MAX_ANCHOR_CHARS));
        let unfollowed = (link.nofollow && !ctx.config.follow_nofollow) || nofollow_page;
        (
            &link.href,
            text,
            link.nofollow,
            unfollowed,
            tag,
            Some(link.region),
        )
    });
    let pagination = page.pagination.iter().map(|p| {
        let tag = match p.direction {
            PageDirection::Next => "link_next",
            PageDirection::Prev => "link_prev",
        };
        (&p.href, None, false, nofollow_page, tag, None)
    });
    let declared = page
        .declared
        .iter()
        .map(|d| (&d.href, None, false, nofollow_page, d.kind.as_str(), None));
    let mut caps = PageCaps::default();
    for (href, anchor_text, nofollow, unfollowed, tag, region) in
        anchors.chain(pagination).chain(declared)
    {
        let Some(anchor_text) = caps.admit(href, anchor_text) else {
            continue;
        };
        let i = record.links.len();
        let error = found.add(
            &base,
            href,
            link_depths,
            FoundVia::Link,
            unfollowed.then_some(ReasonKind::Nofollow),
            Target::Link(i),
        );
        record.links.push(LinkRecord {
            to: None,
            href_raw: href.clone(),
            anchor_text,
            nofollow,
            tag: tag.to_owned(),
            error,
            region,
        });
    }
    caps.dropped_links += page.dropped.links;
    if let Some(error) = caps.error(record.url_id) {
        record.errors.push(error);
    }
    head_declarations(ctx, record, found, &base, page, link_depths);
    if record.redirect.is_none()
        && let Some(target) = page
            .meta_refresh
            .iter()
            .find_map(|m| m.refresh.as_ref().and_then(|r| r.url.clone()))
    {
        meta_refresh_hop(
            record,
            found,
            url,
            response,
            &target,
            (claimed.depth, claimed.redirect_depth + 1),
            claimed.redirect_depth,
        );
    }
}

/// The page rendered in Chromium from `document` (the fetched bytes), its DOM read
/// through the same extractor as the raw page; its links and canonical are queued like
/// the raw page's, and the links not among the raw page's are marked `js_only`.
#[allow(clippy::too_many_arguments)]
async fn rendered(
    ctx: &Ctx,
    record: &mut PageRecord,
    found: &mut Discoveries<'_>,
    url: &Url,
    response: &Response,
    document: Vec<u8>,
    raw: &Page,
    claimed: &Claimed,
) {
    let Some(renderer) = &ctx.renderer else {
        return;
    };
    let answer = render::Answer {
        status: response.status.as_u16(),
        headers: response
            .headers
            .iter()
            .filter_map(|(name, value)| {
                Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned()))
            })
            .collect(),
        body: document,
    };
    let done = renderer.render(url, answer).await;
    let mut rendered = store::RenderRecord {
        outcome: done.outcome.as_str().to_owned(),
        message: done.message,
        render_ms: ms(done.elapsed),
        requests: done.requests,
        refused: done.refused,
        final_url: done.final_url.clone(),
        ..store::RenderRecord::default()
    };
    let Some(html) = done.html else {
        record.rendered = Some(Box::new(rendered));
        return;
    };
    let page = match parse(
        ctx,
        html.into_bytes(),
        Some("text/html; charset=utf-8".into()),
    )
    .await
    {
        Ok(page) => page,
        Err(message) => {
            rendered.outcome = render::Outcome::Failed.as_str().to_owned();
            rendered.message = Some(message);
            record.rendered = Some(Box::new(rendered));
            return;
        }
    };
    let mut directives = Directives::default();
    for meta in &page.meta_robots {
        directives.apply(&meta.directives, &ctx.agent);
    }
    rendered.noindex = directives.noindex;
    rendered.nofollow = directives.nofollow;
    rendered.title = page.title.clone();
    rendered.h1 = page.h1.clone();
    if !page.meta_robots.is_empty() {
        rendered.meta_robots = Some(
            page.meta_robots
                .iter()
                .map(|m| format!("{}: {}", m.name, m.content))
                .collect::<Vec<_>>()
                .join("; "),
        );
    }
    rendered.text_hash = Some(page.text_hash);
    rendered.word_count = Some(u32::try_from(page.word_count).unwrap_or(u32::MAX));
    rendered.blocks = Some(extract::blocks::encode(&page.blocks));
    if !page.hreflangs.is_empty() {
        let pairs: Vec<[&str; 2]> = page
            .hreflangs
            .iter()
            .map(|h| [h.hreflang.as_str(), h.href.as_str()])
            .collect();
        rendered.hreflang = serde_json::to_string(&pairs).ok();
    }
    // Links resolve against the rendered document's location (a script may have moved
    // it with pushState, within the page's origin).
    let location = done
        .final_url
        .as_deref()
        .and_then(|u| Url::parse(u).ok())
        .filter(|u| u.origin() == url.origin())
        .unwrap_or_else(|| url.clone());
    let base = canon::document_base(&location, page.base_href.as_deref());
    let raw_base = canon::document_base(url, raw.base_href.as_deref());
    let resolved = |base: &Url, href: &str| {
        canon::resolve(base, href).ok().map(|mut u| {
            u.set_fragment(None);
            u.to_string()
        })
    };
    let raw_links: std::collections::HashSet<String> = raw
        .links
        .iter()
        .filter_map(|l| resolved(&raw_base, &l.href))
        .collect();
    let link_depths = (claimed.depth + 1, 0);
    let nofollow_page = (directives.nofollow || record.fetch.as_ref().is_some_and(|f| f.nofollow))
        && !ctx.config.follow_nofollow_pages;
    let mut caps = PageCaps::default();
    for link in &page.links {
        let text = (!link.text.is_empty()).then(|| truncate_chars(&link.text, MAX_ANCHOR_CHARS));
        let Some(anchor_text) = caps.admit(&link.href, text) else {
            continue;
        };
        let js_only = resolved(&base, &link.href).is_some_and(|u| !raw_links.contains(&u));
        let unfollowed = (link.nofollow && !ctx.config.follow_nofollow) || nofollow_page;
        let i = rendered.links.len();
        rendered.links.push(store::RenderedLinkRecord {
            to: None,
            href_raw: link.href.clone(),
            anchor_text,
            region: Some(link.region),
            js_only,
        });
        found.add(
            &base,
            &link.href,
            link_depths,
            FoundVia::Link,
            unfollowed.then_some(ReasonKind::Nofollow),
            Target::RenderedLink(i),
        );
    }
    if let Some(c) = page.canonicals.iter().find(|c| c.in_head) {
        rendered.canonical_href = Some(c.href.clone());
        let unfollowed = (!ctx.config.follow_canonicals).then_some(ReasonKind::NotFollowed);
        found.add(
            &base,
            &c.href,
            link_depths,
            FoundVia::Canonical,
            unfollowed,
            Target::RenderedCanonical,
        );
    }
    record.rendered = Some(Box::new(rendered));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_whose_extraction_panics_keeps_its_response_and_gets_an_error_row() {
        let payload = std::panic::catch_unwind(|| panic!("nesting too deep")).unwrap_err();
        let message = panic_message(payload.as_ref());
        assert_eq!(message, "the HTML extractor panicked: nesting too deep");

        let mut record = PageRecord::new(7, UrlState::Done);
        record.fetch = Some(FetchRecord {
            status: Some(200),
            ..FetchRecord::default()
        });
        extraction_failed(&mut record, message.clone());
        let fetch = record.fetch.as_ref().unwrap();
        assert_eq!(fetch.status, Some(200));
        assert!(fetch.answered(), "the response arrived: a page fetched");
        assert_eq!(fetch.error_kind.as_deref(), Some(EXTRACT_FAILED));
        assert_eq!(fetch.error_message.as_deref(), Some(message.as_str()));
        assert_eq!(
            record.errors,
            [ErrorRecord {
                url_id: Some(7),
                phase: "extract".into(),
                kind: "panic".into(),
                message,
            }]
        );
    }
}
