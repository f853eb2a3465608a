//! Sitemaps: the seeds (robots.txt `Sitemap:` lines, `/sitemap.xml`, the user's), then
//! sitemap indexes recursively, breadth first, each sitemap fetched once and stored with
//! its entries and the issues the parser found. Every entry's URL is admitted (depth 1).
//!
//! Every sitemap request passes the admission check ([`crate::scope::Guard::admit`],
//! route [`Route::Sitemap`]): a sitemap on an own origin is read; a sitemap declared on
//! another host (by an audited origin's robots.txt or by the user: the protocol allows a
//! CDN host) is read too, with its index children and redirects on that same origin, but
//! only the in-scope URLs it lists are crawled; never one on another port of an audited
//! host, nor at an address the address policy refuses. A refused sitemap is stored
//! unread: no status, its error and an issue of kind `out_of_scope` or `address_refused`
//! (the same whether anything listens there or not).
//!
//! A sitemap URL that redirects is followed (up to [`MAX_REDIRECTS`] hops, each admitted
//! as above, as search engines do) and the final target is read as the
//! sitemap, stored under the URL it was found by. Each hop is recorded among the
//! sitemap's issues as `{"kind": "redirected", "detail": "302 to <url>"}`. A target that
//! is read (or queued) as a sitemap of its own is not read again: the redirecting
//! sitemap then keeps the 3xx status, no error and no entries.

use std::collections::{HashSet, VecDeque};

use store::{FoundVia, SitemapEntryRecord, SitemapId, SitemapRecord, SitemapSource, now_ms};
use tokio_util::sync::CancellationToken;
use url::{Origin, Url};

use crate::CrawlError;
use crate::address::ADDRESS_REFUSED;
use crate::fetch;
use crate::run::Ctx;
use crate::scope::{RefusalKind, Route};

/// Index nesting followed (an index listing an index listing sitemaps is already unusual).
const MAX_INDEX_LEVELS: u32 = 3;

/// Redirects followed from a sitemap's URL to the sitemap.
const MAX_REDIRECTS: usize = 5;

/// The issue (and error) kind of a sitemap index nested deeper than
/// [`MAX_INDEX_LEVELS`], whose children are not read.
pub(crate) const INDEX_TOO_DEEP: &str = "index_too_deep";

/// The issue kind of one redirect hop (its detail: `"{status} to {url}"`).
const REDIRECTED: &str = "redirected";

/// A sitemap waiting to be read.
struct Pending {
    url: String,
    source: SitemapSource,
    parent: Option<SitemapId>,
    level: u32,
    /// The origin its chain was declared on (a seed's own; inherited by index children).
    declared: Option<Origin>,
}

/// The origin of a seed, which may lie outside the scope (see the module docs).
fn declared_origin(url: &str) -> Option<Origin> {
    Url::parse(url)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .map(|u| u.origin())
}

/// What the parser made of one sitemap body.
pub(crate) struct Parsed {
    /// `urlset`, `sitemapindex`, `text`, `rss`, `atom` or `unknown`.
    pub kind: String,
    /// The body was gzip-compressed.
    pub gzip: bool,
    /// URL entries.
    pub entries: Vec<SitemapEntryRecord>,
    /// Child sitemaps (of an index).
    pub children: Vec<String>,
    /// Issues as `(kind, detail)`.
    pub issues: Vec<(String, String)>,
    /// A fatal problem (nothing could be read).
    pub error: Option<String>,
}

/// What the sitemap reads of a run share: ids, the sitemaps already read or queued and
/// how many were read (toward `max_sitemaps`), so that a sitemap named by a robots.txt
/// fetched during the crawl is read once, with the same limit as those of discovery.
#[derive(Debug)]
pub(crate) struct SitemapBook {
    next_id: SitemapId,
    seen: HashSet<String>,
    /// Sitemaps read, this run and earlier ones.
    read: u64,
    /// The `max_sitemaps` error was recorded.
    capped: bool,
}

impl SitemapBook {
    /// A book for a run whose next sitemap id is `next_id`; `done` were read by earlier
    /// runs.
    pub(crate) fn new(next_id: SitemapId, done: impl IntoIterator<Item = String>) -> Self {
        let seen: HashSet<String> = done.into_iter().collect();
        Self {
            next_id,
            read: seen.len() as u64,
            seen,
            capped: false,
        }
    }
}

/// Reads every sitemap reachable from `seeds` that was not read (or queued) before, and
/// returns how many were read.
pub(crate) async fn read_all(
    ctx: &Ctx,
    seeds: Vec<(String, SitemapSource)>,
    cancel: &CancellationToken,
) -> Result<u64, CrawlError> {
    // One reader at a time: the book is held for the whole read.
    let mut book = ctx.sitemaps.lock().await;
    let mut queue: VecDeque<Pending> = VecDeque::new();
    for (url, source) in seeds {
        if book.seen.insert(url.clone()) {
            queue.push_back(Pending {
                declared: declared_origin(&url),
                url,
                source,
                parent: None,
                level: 0,
            });
        }
    }
    let mut read = 0u64;
    while let Some(pending) = queue.pop_front() {
        if cancel.is_cancelled() {
            break;
        }
        if book.read >= u64::from(ctx.config.max_sitemaps) {
            if !book.capped {
                book.capped = true;
                ctx.error(store::ErrorRecord {
                    url_id: None,
                    phase: "sitemap".into(),
                    kind: "max_sitemaps".into(),
                    message: format!(
                        "more than {} sitemaps: {} and {} more not read",
                        ctx.config.max_sitemaps,
                        pending.url,
                        queue.len()
                    ),
                })
                .await?;
            }
            break;
        }
        let id = book.next_id;
        book.next_id += 1;
        book.read += 1;
        read += 1;
        let (mut record, mut children) = read_one(ctx, id, &pending, &mut book.seen).await;
        if pending.level >= MAX_INDEX_LEVELS && !children.is_empty() {
            // An index this deep: its children are not read, and that is recorded.
            let message = format!(
                "sitemap index nested more than {MAX_INDEX_LEVELS} levels deep: its {} child sitemaps were not read (first: {})",
                children.len(),
                children[0]
            );
            add_issue(&mut record.issues_json, INDEX_TOO_DEEP, &message);
            ctx.error(store::ErrorRecord {
                url_id: None,
                phase: "sitemap".into(),
                kind: INDEX_TOO_DEEP.into(),
                message: format!("{}: {message}", pending.url),
            })
            .await?;
            children.clear();
        }
        ctx.budget
            .add_sitemap_bytes(crate::budget::sitemap(&record));
        ctx.writer.sitemap(record).await?;
        for child in children {
            if book.seen.insert(child.clone()) {
                queue.push_back(Pending {
                    url: child,
                    source: SitemapSource::Index,
                    parent: Some(id),
                    level: pending.level + 1,
                    declared: pending.declared.clone(),
                });
            } else if let Some(queued) = queue.iter_mut().find(|q| q.url == child) {
                // Queued as a seed (`/sitemap.xml`, robots.txt) before this index
                // was read: it is read with its parent.
                if queued.parent.is_none() {
                    queued.parent = Some(id);
                }
            } else if child != pending.url {
                // Read already (or over the limit): the store records the parent if
                // it has none and that makes no cycle.
                ctx.writer.sitemap_parent(child, id).await?;
            }
        }
    }
    Ok(read)
}

/// Fetches and parses one sitemap, following its redirects; returns its record and its
/// child sitemaps. The URLs redirected to are added to `seen`.
async fn read_one(
    ctx: &Ctx,
    id: SitemapId,
    pending: &Pending,
    seen: &mut HashSet<String>,
) -> (SitemapRecord, Vec<String>) {
    let mut record = SitemapRecord {
        id,
        url: pending.url.clone(),
        kind: "unknown".into(),
        parent_id: pending.parent,
        found_via: pending.source,
        fetched_at: now_ms(),
        status: None,
        body_bytes: 0,
        gzip: false,
        issues_json: "[]".into(),
        error: None,
        new_urls: Vec::new(),
        requeue: Vec::new(),
        entries: Vec::new(),
    };
    let url = match Url::parse(&pending.url) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => url,
        Ok(_) => {
            record.error = Some("not an http(s) URL".into());
            return (record, Vec::new());
        }
        Err(e) => {
            record.error = Some(format!("invalid URL: {e}"));
            return (record, Vec::new());
        }
    };
    let declared = pending.declared.as_ref();
    if let Err(refusal) = ctx.guard.admit(&url, Route::Sitemap { declared }) {
        record.error = Some(refusal.to_string());
        record.issues_json = issues_json(&[(refusal.reason().to_owned(), refusal.message)]);
        return (record, Vec::new());
    }
    let mut hops: Vec<(String, String)> = Vec::new();
    let (url, response) = match follow(ctx, url, declared, &mut hops, seen).await {
        Ok(found) => found,
        Err(Stop { status, error }) => {
            record.status = status;
            record.error = error;
            record.issues_json = issues_json(&hops);
            return (record, Vec::new());
        }
    };
    record.status = Some(response.status.as_u16());
    record.body_bytes = response.body.len() as u64;
    if !response.status.is_success() {
        record.error = Some(format!("status {}", response.status.as_u16()));
        record.issues_json = issues_json(&hops);
        return (record, Vec::new());
    }
    let mut parsed = parse(&response.body, &url, ctx.config.max_sitemap_bytes);
    if response.truncated {
        parsed.issues.push((
            "truncated".into(),
            format!(
                "body over {} bytes; the rest was not read",
                ctx.config.max_sitemap_bytes
            ),
        ));
    }
    record.kind = parsed.kind;
    record.gzip = parsed.gzip;
    record.error = parsed.error;
    hops.append(&mut parsed.issues);

    let mut keyed = Vec::with_capacity(parsed.entries.len());
    let mut slots = Vec::with_capacity(parsed.entries.len());
    for (i, entry) in parsed.entries.iter().enumerate() {
        if let Ok(mut loc) = canon::resolve(&url, &entry.loc_raw) {
            loc.set_fragment(None);
            if let Ok(key) = crate::frontier::rfc3986_key(&loc, &ctx.rfc3986) {
                keyed.push((loc, key));
                slots.push(i);
            }
        }
    }
    // Admit the entries' URLs in batches no larger than the room left under --max-urls:
    // past it no entry's URL is crawled, so the rest are not admitted (no URL row).
    let mut admitted = 0;
    let mut new_urls = Vec::new();
    let mut requeue = Vec::new();
    while admitted < keyed.len() && !ctx.budget.sitemap_share_spent() {
        let room = ctx.lock_frontier().room();
        if room == 0 {
            break;
        }
        let batch = (keyed.len() - admitted).min(room);
        let (ids, new, again) =
            ctx.admit_loose(&keyed[admitted..admitted + batch], 1, FoundVia::Sitemap);
        for (slot, id) in slots[admitted..admitted + batch].iter().zip(ids) {
            parsed.entries[*slot].url_id = Some(id);
        }
        new_urls.extend(new);
        requeue.extend(again);
        admitted += batch;
    }
    record.new_urls = new_urls;
    record.requeue = requeue;
    if admitted < keyed.len() {
        // Past --max-urls, or past the sitemaps' share of the storage budget: of the rest,
        // the entries of URLs the audit knows are kept (the analysis matches pages to
        // sitemaps), the others are counted, not stored.
        let full = ctx.lock_frontier().room() == 0;
        let frontier = ctx.lock_frontier();
        let mut not_stored = vec![false; parsed.entries.len()];
        let mut counted = 0usize;
        for (slot, (_, key)) in slots[admitted..].iter().zip(&keyed[admitted..]) {
            match frontier.known_id(key) {
                Some(id) => parsed.entries[*slot].url_id = Some(id),
                None => {
                    not_stored[*slot] = true;
                    counted += 1;
                }
            }
        }
        drop(frontier);
        if counted > 0 {
            let why = if full {
                format!(
                    "the audit holds its maximum of {} URLs (--max-urls)",
                    ctx.config.max_urls
                )
            } else {
                format!(
                    "sitemaps spent their share ({} %) of the storage budget (--max-db-bytes)",
                    crate::budget::SITEMAP_SHARE_PERCENT
                )
            };
            hops.push((
                ENTRIES_NOT_STORED.into(),
                format!("{counted} entries of URLs not in the audit counted, not stored: {why}"),
            ));
            let mut i = 0;
            parsed.entries.retain(|_| {
                i += 1;
                !not_stored[i - 1]
            });
        }
    }
    record.issues_json = issues_json(&hops);
    record.entries = parsed.entries;
    (record, parsed.children)
}

/// The issue of a sitemap whose entries past `--max-urls` (or past the sitemaps' share
/// of the storage budget) were counted instead of stored.
pub(crate) const ENTRIES_NOT_STORED: &str = "entries_not_stored";

/// Why [`follow`] ended without a response to read.
struct Stop {
    /// The last status received.
    status: Option<u16>,
    /// What went wrong; `None` when the redirect led to a sitemap read on its own.
    error: Option<String>,
}

/// Requests `url` (admitted already), following redirects that the admission check
/// admits (at most [`MAX_REDIRECTS`]); each hop is pushed to `hops` as a [`REDIRECTED`]
/// issue, a refusal as an issue of its reason. Returns the final URL and its response.
async fn follow(
    ctx: &Ctx,
    mut url: Url,
    declared: Option<&Origin>,
    hops: &mut Vec<(String, String)>,
    seen: &mut HashSet<String>,
) -> Result<(Url, fetch::Response), Stop> {
    let mut visited = vec![url.clone()];
    loop {
        ctx.gate.wait(url.host_str().unwrap_or(""), None).await;
        let fetched = fetch::get(&ctx.client, &url, ctx.config.max_sitemap_bytes, |s, _| {
            s.is_success()
        })
        .await;
        let response = match fetched {
            Ok(response) => response,
            Err(failure) => {
                if failure.kind == ADDRESS_REFUSED {
                    hops.push((
                        ADDRESS_REFUSED.to_owned(),
                        format!("{url}: {}", failure.message),
                    ));
                }
                return Err(Stop {
                    status: failure.partial.as_ref().map(|p| p.status.as_u16()),
                    error: Some(format!("{}: {}", failure.kind, failure.message)),
                });
            }
        };
        let Some(target) = redirect_target(&url, &response) else {
            return Ok((url, response));
        };
        let status = Some(response.status.as_u16());
        let stop = |error: String| Stop {
            status,
            error: Some(error),
        };
        hops.push((
            REDIRECTED.to_owned(),
            format!("{} to {target}", response.status.as_u16()),
        ));
        // The same check as for the sitemap itself.
        if let Err(refusal) = ctx.guard.admit(&target, Route::Sitemap { declared }) {
            let error = match refusal.kind {
                RefusalKind::OutOfScope => {
                    format!("redirects to {target}, outside the audit's scope: not followed")
                }
                RefusalKind::AddressRefused => format!("redirects to {target}: not followed"),
            };
            let reason = refusal.reason();
            hops.push((reason.to_owned(), refusal.message));
            return Err(stop(format!("{error} ({reason})")));
        }
        if visited.contains(&target) {
            return Err(stop(format!("redirect loop: back to {target}")));
        }
        if hops.len() > MAX_REDIRECTS {
            return Err(stop(format!(
                "more than {MAX_REDIRECTS} redirects: not followed to {target}"
            )));
        }
        if !seen.insert(target.to_string()) {
            // Read (or queued) as a sitemap of its own.
            return Err(Stop {
                status,
                error: None,
            });
        }
        visited.push(target.clone());
        url = target;
    }
}

/// Where a redirect response points (an http(s) URL, fragment removed), if it is one.
fn redirect_target(url: &Url, response: &fetch::Response) -> Option<Url> {
    if !matches!(response.status.as_u16(), 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let mut target = canon::resolve(url, response.location().ok()??.trim()).ok()?;
    target.set_fragment(None);
    matches!(target.scheme(), "http" | "https").then_some(target)
}

/// Appends an issue to a sitemap's stored issues.
fn add_issue(issues_json: &mut String, kind: &str, detail: &str) {
    let mut issues: Vec<serde_json::Value> = serde_json::from_str(issues_json).unwrap_or_default();
    issues.push(serde_json::json!({ "kind": kind, "detail": detail }));
    *issues_json = serde_json::to_string(&issues).unwrap_or_else(|_| "[]".into());
}

/// Issues as the store's JSON array of `{kind, detail}`.
fn issues_json(issues: &[(String, String)]) -> String {
    serde_json::to_string(
        &issues
            .iter()
            .map(|(kind, detail)| serde_json::json!({ "kind": kind, "detail": detail }))
            .collect::<Vec<_>>(),
    )
    .unwrap_or_else(|_| "[]".into())
}

/// Parses a sitemap body with the `sitemap` crate (gzip detected by its magic bytes;
/// decompression bounded by `max_bytes`).
fn parse(body: &[u8], url: &Url, max_bytes: u64) -> Parsed {
    let limits = sitemap::Limits {
        max_uncompressed_bytes: max_bytes,
        ..sitemap::Limits::default()
    };
    match sitemap::parse(body, url, &limits) {
        Ok(parsed) => {
            let mut issues: Vec<(String, String)> = parsed
                .issues
                .iter()
                .map(|i| {
                    let detail = match &i.loc {
                        Some(loc) => format!("{} ({loc})", i.message),
                        None => i.message.clone(),
                    };
                    (i.kind.code().to_owned(), detail)
                })
                .collect();
            if parsed.suppressed_issues > 0 {
                issues.push((
                    "suppressed_issues".into(),
                    format!("{} more issues not listed", parsed.suppressed_issues),
                ));
            }
            Parsed {
                kind: parsed.kind.as_str().to_owned(),
                gzip: parsed.compressed,
                entries: parsed
                    .entries
                    .into_iter()
                    .map(|e| SitemapEntryRecord {
                        url_id: None,
                        loc_raw: e.loc,
                        lastmod: e.lastmod,
                        changefreq: e.changefreq.map(|c| c.as_str().to_owned()),
                        priority: e.priority.map(f64::from),
                    })
                    .collect(),
                children: parsed.sitemaps.into_iter().map(|s| s.loc).collect(),
                issues,
                error: None,
            }
        }
        Err(e) => Parsed {
            kind: "unknown".into(),
            gzip: body.starts_with(&[0x1f, 0x8b]),
            entries: Vec::new(),
            children: Vec::new(),
            issues: Vec::new(),
            error: Some(e.to_string()),
        },
    }
}
