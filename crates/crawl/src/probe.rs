//! URL-variant probes: how the server answers the ways of writing a page's URL that no
//! page links to.
//!
//! A site's duplicate URLs are mostly URLs nobody links to: the upper-case path, the
//! doubled slash, `/index.php`, the other host name, a tracking parameter. Search engines
//! find them anyway (external links, old sitemaps, typed URLs). Once the frontier has
//! drained (a run neither cancelled nor stopped by a budget), the crawl takes a sample
//! of its pages and requests each under every [`ProbeRule`]:
//!
//! | rule | variant |
//! |---|---|
//! | `host_www` | `www.` added to or removed from the host |
//! | `scheme` | http instead of https, or the reverse (an explicit port is kept) |
//! | `trailing_slash` | the trailing slash added, or removed (never from `/`) |
//! | `path_case` | the path's letters upper-cased; when that changes nothing, the first letter of the last segment lower-cased (percent escapes are left alone) |
//! | `index_file` | `index.html` and `index.php` after a URL ending in `/` |
//! | `double_slash` | the first slash inside the path doubled (`/a//b`; `//a` for one segment) |
//! | `tracking_param` | `utm_source=dustpan` added to the query |
//! | `session_param` | `sessionid=…` added to the query |
//! | `unknown_param` | `dustpan_probe=1` added to the query |
//! | `empty_query` | a bare `?` after a URL without a query |
//! | `ip_host` | the server's IP address as the host (a `--resolve` override, or what the host resolved to when the run started); probed only where the audit's scope admits that origin (an extra host), otherwise left out |
//!
//! Variants that RFC 3986 normalization maps onto the URL itself are not probed: dot
//! segments, the default port written out, percent-encoded unreserved characters and the
//! host's letter case. The WHATWG URL parser that browsers, crawlers and reqwest use
//! normalizes them before a request is sent, so no client ever requests them; a variant
//! whose `rfc3986` key equals its page's is dropped.
//!
//! **Sampling.** Pages that look preferred: fetched HTML that answered 200, in scope,
//! without noindex, declaring no canonical to another URL, not a variant themselves
//! ([`Store::probe_candidates`]). They are grouped by host and site section (the first
//! path segment); the [`CrawlConfig::probe_samples`] largest sections give
//! [`PER_SECTION`] pages per rule each (pages without a query first, then by URL), at most
//! [`MAX_PER_RULE`] probes per rule and [`MAX_PROBES`] in all. The choice is
//! deterministic.
//!
//! **Fetching.** Each variant is admitted to the frontier like a start URL's variant
//! (`found_via = variant`, at its page's depth plus one), so scope, robots.txt, limits,
//! the address policy and the writer apply as to any URL; a variant the frontier already
//! knows (a page linked it) is recorded against that URL and not fetched again. The crawl
//! loop then runs once more; a probe's redirects are followed like any redirect. The
//! links, canonicals and alternates of a probe's page (and of the pages its redirects
//! reach) are recorded but not followed (`ProbeMarks`): an upper-case path with relative
//! links would otherwise open an upper-case copy of the site. The `probes` table keeps
//! each probe (variant, page, rule); `audits.probe_phase` records that the phase is done,
//! so a resumed audit does not probe twice.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use store::{AuditId, FoundVia, ProbeBatch, ProbeCandidate, ProbePhase, ProbeRecord, Store, UrlId};
use url::{Host, Url};

use crate::frontier::rfc3986_key;
use crate::run::Ctx;
use crate::scope::www_twin;
use crate::{CrawlConfig, CrawlError};

pub use store::ProbeRule;

/// Where the requests for a host go, when known before connecting: the address it
/// resolved to (or a `--resolve` override), and the override's port when it has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Server {
    /// The address.
    pub ip: IpAddr,
    /// The port, when the requests go to another one than the URL's.
    pub port: Option<u16>,
}

/// Pages per site section and rule.
pub const PER_SECTION: usize = 3;
/// Most probes of one rule.
pub const MAX_PER_RULE: usize = 15;
/// Most probes of one audit.
pub const MAX_PROBES: usize = 150;
/// Candidate pages read per section (besides the directory pages).
const CANDIDATES_PER_SECTION: u32 = 8;
/// The tracking parameter added.
pub const TRACKING_PARAM: &str = "utm_source=dustpan";
/// The session parameter added.
pub const SESSION_PARAM: &str = "sessionid=5f2b9c0e7a1d4e3b8c6f0a9d2e4b7c1a";
/// The unknown parameter added.
pub const UNKNOWN_PARAM: &str = "dustpan_probe=1";
/// The index file names appended to directory URLs (both are directory indexes of the
/// `seo` policy).
pub const INDEX_FILES: [&str; 2] = ["index.html", "index.php"];

/// The pages whose links are recorded, not followed: the probes' variants and the URLs
/// their redirects reached first.
#[derive(Debug, Default)]
pub(crate) struct ProbeMarks {
    ids: Mutex<HashSet<UrlId>>,
    /// Whether any id is marked: the crawl before the probes never takes the lock.
    any: AtomicBool,
}

impl ProbeMarks {
    /// The marks of a run of `audit`: the probes an earlier run stored, and the pages
    /// their redirects reached, while the probe phase is still to finish.
    pub(crate) async fn load(
        store: &Store,
        audit: AuditId,
        config: &CrawlConfig,
    ) -> Result<Self, CrawlError> {
        if !config.probe_variants || store.probe_phase(audit).await? != ProbePhase::Pending {
            return Ok(Self::default());
        }
        let pages: HashSet<UrlId> = store.probe_pages(audit).await?.into_iter().collect();
        Ok(Self {
            any: AtomicBool::new(!pages.is_empty()),
            ids: Mutex::new(pages),
        })
    }

    fn set(&self) -> std::sync::MutexGuard<'_, HashSet<UrlId>> {
        self.ids.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `id` is a probe's page.
    pub(crate) fn contains(&self, id: UrlId) -> bool {
        self.any.load(Ordering::Acquire) && self.set().contains(&id)
    }

    /// Marks `id` as a probe's page.
    pub(crate) fn mark(&self, id: UrlId) {
        self.set().insert(id);
        self.any.store(true, Ordering::Release);
    }
}

/// `url` with `query` added to its query string.
fn with_param(url: &Url, param: &str) -> Url {
    let mut v = url.clone();
    match url.query() {
        Some(q) if !q.is_empty() => v.set_query(Some(&format!("{q}&{param}"))),
        _ => v.set_query(Some(param)),
    }
    v
}

fn with_path(url: &Url, path: &str) -> Url {
    let mut v = url.clone();
    v.set_path(path);
    v
}

/// The path with its ASCII letters upper-cased, percent escapes left as they are.
fn upper_path(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = String::with_capacity(path.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            out.push_str(&path[i..i + 3]);
            i += 3;
            continue;
        }
        out.push(char::from(bytes[i].to_ascii_uppercase()));
        i += 1;
    }
    out
}

/// The path with the first letter of its last non-empty segment lower-cased, if it is
/// an upper-case letter.
fn lower_first_of_last(path: &str) -> Option<String> {
    let trimmed = path.trim_end_matches('/');
    let start = trimmed.rfind('/').map_or(0, |i| i + 1);
    let first = *trimmed.as_bytes().get(start)?;
    if !first.is_ascii_uppercase() {
        return None;
    }
    let mut out = path.to_owned();
    out.replace_range(
        start..=start,
        &char::from(first.to_ascii_lowercase()).to_string(),
    );
    Some(out)
}

/// The variants of `url` under `rule` (none when the rule does not apply: no `www.`
/// twin, the root path for `trailing_slash`, no directory URL for `index_file`, a query
/// for `empty_query`, no known address for `ip_host`). `server` is where requests for
/// the host go: its address, and the port when it is not the URL's own (a `--resolve`
/// override to another port). Variants equal to `url` are left out; see the module docs
/// for what each rule does.
pub fn variants(url: &Url, rule: ProbeRule, server: Option<Server>) -> Vec<Url> {
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Vec::new();
    }
    let path = url.path();
    let out: Vec<Url> = match rule {
        ProbeRule::HostWww => url
            .host_str()
            .and_then(www_twin)
            .and_then(|twin| {
                let mut v = url.clone();
                v.set_host(Some(&twin)).ok()?;
                Some(v)
            })
            .into_iter()
            .collect(),
        ProbeRule::Scheme => {
            let mut v = url.clone();
            let other = if url.scheme() == "https" {
                "http"
            } else {
                "https"
            };
            let port = url.port();
            if v.set_scheme(other).is_err() || v.set_port(port).is_err() {
                Vec::new()
            } else {
                vec![v]
            }
        }
        ProbeRule::TrailingSlash => match path {
            "/" | "" => Vec::new(),
            p if p.ends_with('/') => vec![with_path(url, &p[..p.len() - 1])],
            p => vec![with_path(url, &format!("{p}/"))],
        },
        ProbeRule::PathCase => {
            let upper = upper_path(path);
            if upper != path {
                vec![with_path(url, &upper)]
            } else {
                lower_first_of_last(path)
                    .map(|p| with_path(url, &p))
                    .into_iter()
                    .collect()
            }
        }
        ProbeRule::IndexFile if path.ends_with('/') => INDEX_FILES
            .iter()
            .map(|name| with_path(url, &format!("{path}{name}")))
            .collect(),
        ProbeRule::IndexFile => Vec::new(),
        ProbeRule::DoubleSlash => {
            let doubled = match path.get(1..).and_then(|rest| rest.find('/')) {
                Some(i) => format!("{}/{}", &path[..=i], &path[i + 1..]),
                None => format!("/{path}"),
            };
            vec![with_path(url, &doubled)]
        }
        ProbeRule::TrackingParam => vec![with_param(url, TRACKING_PARAM)],
        ProbeRule::SessionParam => vec![with_param(url, SESSION_PARAM)],
        ProbeRule::UnknownParam => vec![with_param(url, UNKNOWN_PARAM)],
        ProbeRule::EmptyQuery if url.query().is_none() => {
            let mut v = url.clone();
            v.set_query(Some(""));
            vec![v]
        }
        ProbeRule::EmptyQuery => Vec::new(),
        ProbeRule::IpHost => match (url.host(), server) {
            (Some(Host::Domain(_)), Some(server)) => {
                let mut v = url.clone();
                let port_ok = match server.port {
                    Some(port) if url.port().is_none() => v.set_port(Some(port)).is_ok(),
                    _ => true,
                };
                if port_ok && v.set_ip_host(server.ip).is_ok() {
                    vec![v]
                } else {
                    Vec::new()
                }
            }
            _ => Vec::new(),
        },
    };
    out.into_iter().filter(|v| v != url).collect()
}

/// One probe to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Planned {
    /// The page.
    pub base: UrlId,
    /// Its link depth.
    pub depth: u32,
    /// The rule.
    pub rule: ProbeRule,
    /// The variant.
    pub url: Url,
}

/// The probes for `candidates` (as [`Store::probe_candidates`] orders them): the
/// `sections` largest sections, [`PER_SECTION`] pages per rule each, at most
/// [`MAX_PER_RULE`] per rule and [`MAX_PROBES`] in all (taken from the rules in turn).
/// `admits` says whether a variant may be requested at all (the scope); `server_of`
/// gives where a host's requests go.
pub(crate) fn plan(
    candidates: &[ProbeCandidate],
    sections: usize,
    admits: impl Fn(&Url) -> bool,
    server_of: impl Fn(&str) -> Option<Server>,
) -> Vec<Planned> {
    let mut by_section: Vec<Vec<(&ProbeCandidate, Url)>> = Vec::new();
    let mut last: Option<(&str, &str)> = None;
    for c in candidates {
        let key = (c.host.as_str(), c.section.as_str());
        if last != Some(key) {
            by_section.push(Vec::new());
            last = Some(key);
        }
        if let (Some(group), Ok(url)) = (by_section.last_mut(), Url::parse(&c.url)) {
            group.push((c, url));
        }
    }
    // Hosts take turns (each host's largest section, then each one's next), so that a
    // subdomain is probed however many sections the main host has.
    let mut turn: Vec<usize> = Vec::with_capacity(by_section.len());
    let mut seen_of_host: HashMap<&str, usize> = HashMap::new();
    for group in &by_section {
        let host = group.first().map_or("", |(c, _)| c.host.as_str());
        let n = seen_of_host.entry(host).or_insert(0);
        turn.push(*n);
        *n += 1;
    }
    let mut order: Vec<usize> = (0..by_section.len()).collect();
    order.sort_by_key(|&k| turn[k]);
    let mut groups: Vec<Vec<(&ProbeCandidate, Url)>> = Vec::with_capacity(sections);
    let mut by_section: Vec<Option<Vec<(&ProbeCandidate, Url)>>> =
        by_section.into_iter().map(Some).collect();
    for k in order.into_iter().take(sections) {
        groups.extend(by_section[k].take());
    }
    let mut per_rule: Vec<Vec<Planned>> = Vec::new();
    for rule in ProbeRule::ALL {
        let mut list: Vec<Planned> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for group in &groups {
            let mut pages = 0;
            for (c, url) in group {
                if pages == PER_SECTION || list.len() >= MAX_PER_RULE {
                    break;
                }
                let server = url.host_str().and_then(&server_of);
                let found: Vec<Url> = variants(url, rule, server)
                    .into_iter()
                    .filter(|v| admits(v) && seen.insert(v.as_str().to_owned()))
                    .collect();
                if found.is_empty() {
                    continue;
                }
                pages += 1;
                for v in found {
                    if list.len() < MAX_PER_RULE {
                        list.push(Planned {
                            base: c.id,
                            depth: c.depth,
                            rule,
                            url: v,
                        });
                    }
                }
            }
        }
        per_rule.push(list);
    }
    // The rules in turn, so that a cap cuts every rule alike.
    let mut out = Vec::new();
    let mut at = vec![0usize; per_rule.len()];
    while out.len() < MAX_PROBES {
        let mut took = false;
        for (r, list) in per_rule.iter().enumerate() {
            if out.len() == MAX_PROBES {
                break;
            }
            if let Some(p) = list.get(at[r]) {
                out.push(p.clone());
                at[r] += 1;
                took = true;
            }
        }
        if !took {
            break;
        }
    }
    out
}

/// Admits the probes of a run whose frontier has drained, when the audit is still to
/// probe: plans them, admits their variants and writes them with the probe rows.
/// Returns whether any variant was queued (the crawl loop must run again).
pub(crate) async fn admit(store: &Store, audit: AuditId, ctx: &Ctx) -> Result<bool, CrawlError> {
    let config = &ctx.config;
    if !config.probe_variants
        || config.list_only()
        || config.max_depth == 0
        || store.probe_phase(audit).await? != ProbePhase::Pending
    {
        return Ok(false);
    }
    let sections = usize::try_from(config.probe_samples).unwrap_or(usize::MAX);
    if sections == 0 {
        return Ok(false);
    }
    // What the crawl fetched is read back from the store.
    ctx.writer.flush().await?;
    let rows_per_section = CANDIDATES_PER_SECTION + PER_SECTION as u32;
    let candidates = store
        .probe_candidates(
            audit,
            CANDIDATES_PER_SECTION,
            PER_SECTION as u32,
            rows_per_section.saturating_mul(config.probe_samples),
        )
        .await?;
    let scope = ctx.guard.scope();
    let candidates: Vec<ProbeCandidate> = candidates
        .into_iter()
        .filter(|c| Url::parse(&c.url).is_ok_and(|u| scope.contains(&u)))
        .collect();
    // Hosts a variant may name: the start URLs' hosts and their `www.` twins, the hosts
    // of the pages probed, and IP addresses (`ip_host`, when the scope admits them). A
    // subdomain's `www.` twin that nothing names is never looked up.
    let mut hosts: HashSet<String> = candidates.iter().map(|c| c.host.clone()).collect();
    for start in config.start_urls.iter().filter_map(|s| Url::parse(s).ok()) {
        if let Some(h) = start.host_str() {
            hosts.extend(www_twin(h));
            hosts.insert(h.to_owned());
        }
    }
    let admits = |v: &Url| {
        scope.contains(v)
            && match v.host() {
                Some(Host::Domain(d)) => hosts.contains(d),
                Some(_) => true,
                None => false,
            }
    };
    let mut planned = plan(&candidates, sections, admits, |host| {
        ctx.guard.server_of(host)
    });
    // Room under `max_urls` (a variant the frontier knows takes none, but that is only
    // known once admitted).
    let room = {
        let admitted = ctx.lock_frontier().counts().admitted;
        usize::try_from(config.max_urls.saturating_sub(admitted)).unwrap_or(usize::MAX)
    };
    planned.truncate(room);
    if planned.is_empty() {
        return Ok(false);
    }
    let mut batch = ProbeBatch::default();
    let mut queued = false;
    // One admission per depth: the variants of deeper pages one hop deeper.
    let mut by_depth: HashMap<u32, Vec<&Planned>> = HashMap::new();
    for p in &planned {
        by_depth
            .entry((p.depth + 1).min(config.max_depth))
            .or_default()
            .push(p);
    }
    let mut depths: Vec<u32> = by_depth.keys().copied().collect();
    depths.sort_unstable();
    for depth in depths {
        let group = &by_depth[&depth];
        let keyed: Vec<(Url, String, &Planned)> = group
            .iter()
            .filter_map(|p| Some((p.url.clone(), rfc3986_key(&p.url, &ctx.rfc3986).ok()?, *p)))
            .collect();
        let found: Vec<(Url, String)> = keyed
            .iter()
            .map(|(u, k, _)| (u.clone(), k.clone()))
            .collect();
        let (ids, new, requeue) = ctx.admit_loose(&found, depth, FoundVia::Variant);
        for ((_, _, p), id) in keyed.iter().zip(&ids) {
            if *id == p.base {
                continue;
            }
            batch.probes.push(ProbeRecord {
                url_id: *id,
                base_url_id: p.base,
                rule: p.rule,
            });
        }
        for u in &new {
            if u.state == store::UrlState::Queued {
                ctx.probes.mark(u.id);
                queued = true;
            }
        }
        for r in &requeue {
            ctx.probes.mark(r.id);
            queued = true;
        }
        batch.urls.extend(new);
        batch.requeue.extend(requeue);
    }
    ctx.writer.probes(batch).await?;
    ctx.writer.flush().await?;
    Ok(queued)
}

/// Records the probe phase done, once the probes' fetches are stored (a run that
/// probed, or found nothing to probe).
pub(crate) async fn finish(store: &Store, audit: AuditId, ctx: &Ctx) -> Result<(), CrawlError> {
    if !ctx.config.probe_variants || store.probe_phase(audit).await? != ProbePhase::Pending {
        return Ok(());
    }
    ctx.writer.flush().await?;
    store.set_probe_phase(audit, ProbePhase::Done).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn of(s: &str, rule: ProbeRule) -> Vec<String> {
        variants(
            &url(s),
            rule,
            Some(Server {
                ip: "127.0.0.1".parse().unwrap(),
                port: None,
            }),
        )
        .iter()
        .map(Url::to_string)
        .collect()
    }

    #[test]
    fn every_rule_makes_its_variant() {
        let page = "https://example.test/Shop/red-shoe";
        assert_eq!(
            of(page, ProbeRule::HostWww),
            ["https://www.example.test/Shop/red-shoe"]
        );
        assert_eq!(
            of("https://www.example.test:8443/a", ProbeRule::HostWww),
            ["https://example.test:8443/a"]
        );
        assert_eq!(
            of("https://example.test:8443/a", ProbeRule::Scheme),
            ["http://example.test:8443/a"]
        );
        assert_eq!(
            of("http://example.test/a", ProbeRule::Scheme),
            ["https://example.test/a"]
        );
        assert_eq!(of(page, ProbeRule::TrailingSlash), [format!("{page}/")]);
        assert_eq!(
            of("https://example.test/shop/", ProbeRule::TrailingSlash),
            ["https://example.test/shop"]
        );
        assert!(of("https://example.test/", ProbeRule::TrailingSlash).is_empty());
        assert_eq!(
            of(page, ProbeRule::PathCase),
            ["https://example.test/SHOP/RED-SHOE"]
        );
        assert_eq!(
            of("https://example.test/caf%c3%a9?q=x", ProbeRule::PathCase),
            ["https://example.test/CAF%c3%a9?q=x"],
            "percent escapes keep their case (that is RFC 3986 normalization)"
        );
        assert_eq!(
            of("https://example.test/wiki/MAIN", ProbeRule::PathCase),
            ["https://example.test/WIKI/MAIN"]
        );
        assert_eq!(
            of("https://example.test/A/B", ProbeRule::PathCase),
            ["https://example.test/A/b"]
        );
        assert!(of("https://example.test/", ProbeRule::PathCase).is_empty());
        assert!(of("https://example.test/2024/", ProbeRule::PathCase).is_empty());
        assert_eq!(
            of("https://example.test/shop/", ProbeRule::IndexFile),
            [
                "https://example.test/shop/index.html",
                "https://example.test/shop/index.php"
            ]
        );
        assert!(of(page, ProbeRule::IndexFile).is_empty());
        assert_eq!(
            of(page, ProbeRule::DoubleSlash),
            ["https://example.test/Shop//red-shoe"]
        );
        assert_eq!(
            of("https://example.test/about", ProbeRule::DoubleSlash),
            ["https://example.test//about"]
        );
        assert_eq!(
            of("https://example.test/shop/", ProbeRule::DoubleSlash),
            ["https://example.test/shop//"]
        );
        assert_eq!(
            of("https://example.test/p?id=3", ProbeRule::TrackingParam),
            ["https://example.test/p?id=3&utm_source=dustpan"]
        );
        assert_eq!(
            of(page, ProbeRule::UnknownParam),
            [format!("{page}?dustpan_probe=1")]
        );
        assert_eq!(
            of(page, ProbeRule::SessionParam),
            [format!("{page}?{SESSION_PARAM}")]
        );
        assert_eq!(of(page, ProbeRule::EmptyQuery), [format!("{page}?")]);
        assert!(of("https://example.test/p?id=3", ProbeRule::EmptyQuery).is_empty());
        assert_eq!(
            of("http://example.test:8080/a", ProbeRule::IpHost),
            ["http://127.0.0.1:8080/a"]
        );
        assert!(of("http://127.0.0.1:8080/a", ProbeRule::IpHost).is_empty());
        // A `--resolve` override to another port: the variant goes where the host's
        // requests go.
        let server = Server {
            ip: "127.0.0.1".parse().unwrap(),
            port: Some(8443),
        };
        let v: Vec<String> = variants(
            &url("https://example.test/a"),
            ProbeRule::IpHost,
            Some(server),
        )
        .iter()
        .map(Url::to_string)
        .collect();
        assert_eq!(v, ["https://127.0.0.1:8443/a"]);
        assert!(of("http://127.0.0.1:8080/a", ProbeRule::HostWww).is_empty());
    }

    #[test]
    fn no_variant_is_the_url_under_rfc3986() {
        let policy = canon::Policy::rfc3986();
        for page in [
            "https://example.test/Shop/red-shoe",
            "https://example.test/",
            "https://example.test/a/b/?x=1",
            "http://example.test:8080/%7Euser/",
        ] {
            let key = rfc3986_key(&url(page), &policy).unwrap();
            for rule in ProbeRule::ALL {
                for v in variants(
                    &url(page),
                    rule,
                    Some(Server {
                        ip: "127.0.0.1".parse().unwrap(),
                        port: None,
                    }),
                ) {
                    assert_ne!(
                        rfc3986_key(&v, &policy).unwrap(),
                        key,
                        "{rule} of {page}: {v}"
                    );
                }
            }
        }
    }

    fn candidate(id: UrlId, u: &str, section: &str, pages: u64) -> ProbeCandidate {
        ProbeCandidate {
            id,
            url: u.to_owned(),
            host: "example.test".to_owned(),
            depth: 1,
            section: section.to_owned(),
            section_pages: pages,
        }
    }

    #[test]
    fn the_plan_takes_three_pages_per_section_and_rule_from_the_largest_sections() {
        let mut candidates = Vec::new();
        let mut id = 0;
        for (section, pages) in [("big", 9), ("mid", 5), ("small", 2)] {
            for i in 0..pages.min(5) {
                id += 1;
                candidates.push(candidate(
                    id,
                    &format!("https://example.test/{section}/p{i}"),
                    section,
                    pages,
                ));
            }
        }
        let plan = plan(&candidates, 2, |_| true, |_| None);
        let rule = |r: ProbeRule| plan.iter().filter(|p| p.rule == r).count();
        assert_eq!(rule(ProbeRule::PathCase), 6, "3 pages x 2 sections");
        assert_eq!(rule(ProbeRule::IndexFile), 0, "no directory URL");
        assert_eq!(rule(ProbeRule::IpHost), 0, "no address known");
        assert!(plan.iter().all(|p| !p.url.path().contains("small")));
        // Deterministic: the same input plans the same probes.
        assert_eq!(plan, super::plan(&candidates, 2, |_| true, |_| None));
        // The scope decides.
        let none = super::plan(
            &candidates,
            2,
            |v| v.host_str() != Some("www.example.test"),
            |_| None,
        );
        assert_eq!(
            none.iter().filter(|p| p.rule == ProbeRule::HostWww).count(),
            0
        );
    }

    #[test]
    fn every_host_is_probed_however_many_sections_another_has() {
        // The main host's sections come first (more pages), the blog's one after them.
        let mut candidates = Vec::new();
        for s in 0..8u64 {
            for i in 0..3u64 {
                candidates.push(candidate(
                    (s * 10 + i) as UrlId,
                    &format!("https://example.test/s{s}/p{i}"),
                    &format!("s{s}"),
                    20 - s,
                ));
            }
        }
        let mut blog = candidate(900, "https://blog.example.test/post/hello", "post", 2);
        blog.host = "blog.example.test".to_owned();
        candidates.push(blog);
        let plan = plan(&candidates, 4, |_| true, |_| None);
        let blog_probes = plan
            .iter()
            .filter(|p| p.rule == ProbeRule::PathCase && p.base == 900)
            .count();
        assert_eq!(blog_probes, 1, "{plan:#?}");
        // The main host keeps its largest sections: s0, s1, s2 (three of the four turns).
        for p in plan.iter().filter(|p| p.base != 900) {
            assert!(p.base < 30, "{p:#?}");
        }
    }

    #[test]
    fn the_plan_is_capped_per_rule_and_in_all() {
        let candidates: Vec<ProbeCandidate> = (0..200)
            .map(|i| {
                candidate(
                    i,
                    &format!("https://example.test/s{}/p{i}/", i / 10),
                    &format!("s{}", i / 10),
                    10,
                )
            })
            .collect();
        let plan = plan(
            &candidates,
            20,
            |_| true,
            |_| {
                Some(Server {
                    ip: "127.0.0.1".parse().unwrap(),
                    port: None,
                })
            },
        );
        assert_eq!(plan.len(), MAX_PROBES);
        for r in ProbeRule::ALL {
            let n = plan.iter().filter(|p| p.rule == r).count();
            assert!(n <= MAX_PER_RULE, "{r}: {n}");
            assert!(n >= MAX_PROBES / ProbeRule::ALL.len(), "{r}: {n}");
        }
    }
}
