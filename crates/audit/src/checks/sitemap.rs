//! Sitemap problems: what the sitemaps list, what they miss, and the files themselves.

use super::Ctx;
use crate::finding::{Finding, FindingId, Fix};
use crate::input::{FoundVia, SitemapRow, SitemapSource, UrlState};
use crate::site::{Chain, NONE};
use crate::urlparts::split;
use crate::wording;
use rustc_hash::{FxHashMap, FxHashSet};

/// Issue codes (the sitemap crate's) that make a sitemap unreadable.
const FATAL: &[&str] = &[
    "malformed_xml",
    "invalid_utf8",
    "unsupported_encoding",
    "decompression_error",
    "io_error",
    "not_a_sitemap",
];
/// The issue kind the crawler records for each redirect it followed to a sitemap.
const REDIRECTED: &str = "redirected";
/// Issue codes that say the sitemap is over the protocol's limits.
const LIMITS: &[&str] = &[
    "too_many_urls",
    "too_many_sitemaps",
    "oversized",
    "entry_cap_reached",
];

pub(super) fn check(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    entries(cx, out);
    missing(cx, out);
    files(cx, out);
}

fn entries(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    let any_links = orphans_judged(cx);
    let reached_by_redirect = reached_by_redirect(cx);
    for u in 0..site.n as u32 {
        if site.sitemap_count[u as usize] == 0 || site.external[u as usize] {
            continue;
        }
        let url = cx.url(u);
        let sitemaps = cx.sitemaps_of(u);
        let listed = format!("listed in {}", sitemaps.join(", "));
        // "Sitemap https://…/sitemap.xml" (or "Sitemaps A, B"): every finding names the
        // sitemap files it is about.
        let (which, lists) = match sitemaps.as_slice() {
            [one] => (format!("Sitemap {one}"), "lists"),
            many => (format!("Sitemaps {}", many.join(", ")), "list"),
        };
        let replace = |f: Finding, with: Option<u32>| {
            sitemaps.iter().fold(f, |f, sm| match with {
                Some(w) => f.fix(Fix::SitemapReplace {
                    sitemap: sm.clone(),
                    loc: url.clone(),
                    with: cx.url(w),
                }),
                None => f.fix(Fix::SitemapRemove {
                    sitemap: sm.clone(),
                    loc: url.clone(),
                }),
            })
        };
        let new = |id: FindingId, summary: String| {
            Finding::new(id, &[&url], summary)
                .urls([url.clone()])
                .evidence(listed.clone())
        };
        if site.hops[u as usize].is_some() {
            let to = cx.live_final(u);
            let f = new(
                FindingId::SitemapRedirect,
                format!("{which} {lists} {url}, which redirects."),
            )
            .evidence(cx.hop_line(u));
            let f = match to {
                Some(t) => f.urls([cx.url(t)]),
                None => f,
            };
            out.push(replace(f, to));
        } else if site.fetch(u).is_some() && site.error(u) {
            let f = new(
                FindingId::SitemapError,
                format!(
                    "{which} {lists} {url}, which {}.",
                    wording::answer(&site.describe(u))
                ),
            );
            out.push(replace(f, None));
        } else if site.blocked[u as usize] {
            let f = new(
                FindingId::SitemapBlocked,
                format!("{which} {lists} {url}, which robots.txt blocks."),
            );
            out.push(replace(f, None));
        } else if site.serves(u) && site.noindex(u) {
            let f = new(
                FindingId::SitemapNoindex,
                format!("{which} {lists} {url}, which is noindex."),
            );
            out.push(replace(f, None));
        } else if site.serves(u)
            && site.eff_canon[u as usize] != NONE
            && site.eff_canon[u as usize] != u
            // A canonical the content contradicts is reported as such
            // (CANON-TO-UNRELATED): the page stays a page of its own.
            && cx.graph.disagreeing_canonical(u).is_none()
        {
            let t = site.eff_canon[u as usize];
            // A canonical chain is replaced by its end, not by the next link.
            let mut end = t;
            for _ in 0..32 {
                let next = site.eff_canon[end as usize];
                if next == NONE || next == end || next == u || !site.serves(end) {
                    break;
                }
                end = next;
            }
            let with = site
                .indexable(end)
                .then_some(end)
                .or_else(|| site.indexable(t).then_some(t));
            let f = new(
                FindingId::SitemapCanonicalised,
                format!(
                    "{which} {lists} {url}, which declares {} canonical.",
                    site.url(t)
                ),
            )
            .urls([cx.url(t)]);
            out.push(replace(f, with));
        } else if site.serves(u)
            && cx.clusters.kinds[u as usize].is_some()
            && site.indexable(cx.clusters.preferred_of(u))
        {
            let p = cx.clusters.preferred_of(u);
            let f = new(
                FindingId::SitemapNonPreferred,
                format!(
                    "{which} {lists} {url}, a duplicate of the preferred {}.",
                    site.url(p)
                ),
            )
            .urls([cx.url(p)]);
            out.push(replace(f, Some(p)));
        } else if any_links
            && site.indexable(u)
            && !site.reached(u)
            && !reached_by_redirect.contains(&u)
            && !matches!(
                site.input.urls[u as usize].found_via,
                FoundVia::Start | FoundVia::Variant
            )
        {
            out.push(
                new(
                    FindingId::SitemapOrphan,
                    format!(
                        "{url} is in {} but no crawled page links to it.",
                        which.replacen("Sitemap", "sitemap", 1)
                    ),
                )
                .evidence("no internal link found".to_owned())
                .fix(Fix::AddLinks { to: url.clone() }),
            );
        }
    }
}

/// Whether a listed page no crawled page links to is an orphan: only on a crawl with
/// links that followed every internal link, and not in a list audit.
fn orphans_judged(cx: &Ctx<'_, '_>) -> bool {
    let site = cx.site;
    // Orphans are only judged on a crawl that followed every internal link: when it
    // stopped at a limit, an unfetched page may link to the "orphan".
    let complete = !site.input.urls.iter().any(|r| {
        matches!(r.state, UrlState::Queued | UrlState::Fetching)
            || (r.state == UrlState::Skipped
                && matches!(
                    r.reason.as_ref().map(|r| r.kind),
                    Some(
                        crate::input::ReasonKind::MaxDepth
                            | crate::input::ReasonKind::MaxUrls
                            | crate::input::ReasonKind::RedirectLimit
                    )
                ))
    });
    // A list audit fetched the URLs it was given, not what the pages link: no orphans.
    complete && !site.input.links.is_empty() && !site.cfg.list_audit
}

/// The pages that links or declarations reach through a redirect: linked, no orphans.
fn reached_by_redirect(cx: &Ctx<'_, '_>) -> FxHashSet<u32> {
    let site = cx.site;
    // A page that links reach through a redirect (a menu link to an old URL) is linked,
    // not an orphan: its finding is the link to the redirect. A declaration (shortlink,
    // og:url, ...) reaching it counts too: the page is discovered.
    (0..site.n as u32)
        .filter(|&r| site.reached(r))
        .filter_map(|r| match site.chains[r as usize] {
            Chain::Final { to, .. } => Some(to),
            _ => None,
        })
        .collect()
}

/// `url` with every run of digits (and a `-` right before it) replaced by `#`:
/// `/calendar?month=-12` and `/calendar?month=7` share `/calendar?month=#`.
fn number_pattern(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    let mut chars = url.chars().peekable();
    while let Some(c) = chars.next() {
        let starts_number =
            c.is_ascii_digit() || (c == '-' && chars.peek().is_some_and(char::is_ascii_digit));
        if starts_number {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
            out.push('#');
        } else {
            out.push(c);
        }
    }
    out
}

fn missing(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    // A list audit did not crawl the site: what it found beside its list says nothing
    // of what the sitemaps miss.
    if !site.has_sitemap_entries || site.cfg.list_audit {
        return;
    }
    let hosts: FxHashSet<String> = (0..site.n as u32)
        .filter(|&u| site.sitemap_count[u as usize] > 0)
        .map(|u| split(site.url(u)).host.to_ascii_lowercase())
        .collect();
    // URL patterns that ran away (the crawl stopped them as a trap or at max depth):
    // their pages belong out of the sitemap, not in it.
    let runaway: FxHashSet<String> = (0..site.n as u32)
        .filter(|&u| {
            site.reason(u)
                .is_some_and(|r| r.kind.is_trap() || r.kind == crate::input::ReasonKind::MaxDepth)
        })
        .map(|u| number_pattern(site.url(u)))
        .collect();
    // Paths leading into a trap of repeated segments (`/trap/`, `/trap/a/` before the
    // skipped `/trap/a/a/a/`) are the trap's own pages.
    let trapped: Vec<String> = (0..site.n as u32)
        .filter(|&u| site.reason(u).is_some_and(|r| r.kind.is_trap()))
        .map(|u| {
            let p = split(site.url(u));
            format!("{}{}", p.host.to_ascii_lowercase(), p.path)
        })
        .collect();
    // Which sitemap lists pages of each URL shape: a page is missing from the sitemaps
    // only where the site lists its siblings (posts beside posts), not where it leaves a
    // whole kind of page out on purpose (paginated lists, date archives, comment pages).
    let mut listed_by_shape: FxHashMap<String, FxHashMap<u32, u32>> = FxHashMap::default();
    for &(u, r) in cx.listed() {
        if r != NONE {
            *listed_by_shape
                .entry(shape(site.url(u)))
                .or_default()
                .entry(r)
                .or_default() += 1;
        }
    }
    let confirmed: Vec<&crate::dust::DustRule> = cx
        .mined
        .rules
        .iter()
        .filter(|r| r.status == crate::dust::RuleStatus::Confirmed)
        .collect();
    for u in 0..site.n as u32 {
        if site.sitemap_count[u as usize] > 0 || site.external[u as usize] || !site.indexable(u) {
            continue;
        }
        if !runaway.is_empty() && runaway.contains(&number_pattern(site.url(u))) {
            continue;
        }
        let parts = split(site.url(u));
        if parts.path.len() > 1 {
            let here = format!("{}{}", parts.host.to_ascii_lowercase(), parts.path);
            if trapped.iter().any(|t| t.starts_with(&here)) {
                continue;
            }
        }
        // A URL a confirmed learned rule rewrites is a duplicate of the rewritten form,
        // even when the crawl did not fetch that form.
        if cx
            .key(u)
            .is_some_and(|k| confirmed.iter().any(|r| r.apply(k).is_some()))
        {
            continue;
        }
        let e = site.eff_canon[u as usize];
        if (e != NONE && e != u) || cx.clusters.preferred_of(u) != u || !cx.site.html(u) {
            continue;
        }
        if !hosts.contains(&split(site.url(u)).host.to_ascii_lowercase()) {
            continue;
        }
        let c = cx.clusters.of[u as usize];
        if c != NONE
            && cx.clusters.members[c as usize]
                .iter()
                .any(|&m| site.sitemap_count[m as usize] > 0)
        {
            continue;
        }
        if crate::urlparts::paginated(site.url(u)) {
            continue;
        }
        // A thin page (an image's attachment page, a media page: a title and little
        // text besides the template) is one a site leaves out of its sitemaps on
        // purpose, not a sitemap candidate.
        let words = site
            .main
            .words(u)
            .or_else(|| site.fetch(u).and_then(|f| f.word_count));
        if words.is_some_and(|w| w < site.cfg.min_words) {
            continue;
        }
        let Some((row, siblings)) = listed_by_shape
            .get(&shape(site.url(u)))
            .and_then(|rows| {
                rows.iter()
                    .max_by_key(|&(r, n)| (*n, std::cmp::Reverse(*r)))
            })
            .map(|(&r, &n)| (r, n))
        else {
            continue;
        };
        let sitemap = site.input.sitemaps[row as usize].url.clone();
        let url = cx.url(u);
        out.push(
            Finding::new(
                FindingId::SitemapMissing,
                &[&url],
                format!(
                    "{url} is indexable and preferred but in no sitemap, while sitemap {sitemap} lists {siblings} {} like it.",
                    if siblings == 1 { "page" } else { "pages" }
                ),
            )
            .urls([url.clone()])
            .evidence(format!(
                "{url} {}, {}",
                cx.response(u),
                match site.inlinks(u) {
                    1 => "1 internal page links to it".to_owned(),
                    n => format!("{n} internal pages link to it"),
                }
            ))
            .evidence(format!(
                "sitemap {sitemap} lists {siblings} URL{} of the shape {}",
                if siblings == 1 { "" } else { "s" },
                shape(site.url(u))
            ))
            .fix(Fix::SitemapAdd { loc: url, sitemap }),
        );
    }
}

/// A URL's shape: its host, its parent path with numbers written `#`, its depth and
/// its query's parameter names. `https://x.com/2022/06/hello/` is `x.com /#/#/ 3`, a
/// sibling of every post of every month; `/2022/06/` (an archive) and `/page/2/` (a
/// paginated list) have shapes of their own.
fn shape(url: &str) -> String {
    let p = split(url);
    let path = p.path.strip_suffix('/').unwrap_or(p.path);
    // With a query string the page is a state of the page at its path (a listing
    // filtered, sorted, paged): its siblings are other states of that path.
    let parent = match p.query {
        Some(_) => path,
        None => path.rsplit_once('/').map_or("", |(parent, _)| parent),
    };
    let depth = path.split('/').filter(|s| !s.is_empty()).count();
    let mut names: Vec<&str> = p
        .query
        .unwrap_or("")
        .split('&')
        .filter(|s| !s.is_empty())
        .map(|kv| kv.split_once('=').map_or(kv, |(k, _)| k))
        .collect();
    names.sort_unstable();
    names.dedup();
    format!(
        "{}{} {}/ {depth}{}{}",
        p.host.to_ascii_lowercase(),
        p.port,
        number_pattern(parent),
        if names.is_empty() { "" } else { " ?" },
        names.join("&")
    )
}

/// The redirects the crawler followed from a sitemap's URL, as `(status, to)`.
fn redirects(s: &SitemapRow) -> Vec<(&str, &str)> {
    s.issues
        .iter()
        .filter(|i| i.kind == REDIRECTED)
        .filter_map(|i| i.detail.split_once(" to "))
        .collect()
}

/// One evidence line per redirect hop, from the sitemap's URL on.
fn hop_lines(s: &SitemapRow, hops: &[(&str, &str)]) -> Vec<String> {
    let mut from = s.url.as_str();
    hops.iter()
        .map(|&(status, to)| {
            let line = format!("{from} redirects to {to} ({status})");
            from = to;
            line
        })
        .collect()
}

fn files(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let sitemaps = &cx.site.input.sitemaps;
    // What the site declares: its sitemaps other than the guessed one, and where they
    // redirect.
    let declared: FxHashSet<&str> = sitemaps
        .iter()
        .filter(|s| s.found_via != SitemapSource::Guessed)
        .flat_map(|s| {
            std::iter::once(s.url.as_str()).chain(redirects(s).into_iter().map(|(_, to)| to))
        })
        .collect();
    for s in sitemaps {
        let hops = redirects(s);
        let fatal: Vec<_> = s
            .issues
            .iter()
            .filter(|i| FATAL.contains(&i.kind.as_str()))
            .collect();
        // A redirect to a URL read as a sitemap of its own keeps its 3xx status and no
        // error: the target's row says the rest.
        let read_elsewhere = !hops.is_empty()
            && s.error.is_none()
            && s.status.is_some_and(|st| (300..400).contains(&st));
        let bad_status = !read_elsewhere && s.status.is_some_and(|st| !(200..300).contains(&st));
        let guessed = s.found_via == SitemapSource::Guessed;
        if bad_status || s.error.is_some() || !fatal.is_empty() {
            if guessed {
                // Not found, gone or no answer: the site has no sitemap there.
                let absent = match s.status {
                    None => fatal.is_empty(),
                    Some(st) => matches!(st, 404 | 410),
                };
                if absent {
                    continue;
                }
            }
            let (id, summary) = if guessed {
                (
                    FindingId::SitemapGuessUnreadable,
                    format!(
                        "{}, which nothing declares, answers without a readable sitemap.",
                        s.url
                    ),
                )
            } else {
                (
                    FindingId::SitemapInvalid,
                    format!("The sitemap {} cannot be read.", s.url),
                )
            };
            let mut f = Finding::new(id, &[&s.url], summary).urls([s.url.clone()]);
            for line in hop_lines(s, &hops) {
                f = f.evidence(line);
            }
            let mut detail = Vec::new();
            if let Some(st) = s.status.filter(|_| bad_status) {
                f = f.evidence(format!("it answers {st}"));
                if !guessed {
                    detail.push(format!("serve it with status 200 (it answers {st})"));
                }
            }
            if let Some(e) = &s.error {
                f = f.evidence(format!("error: {e}"));
                if !guessed {
                    detail.push(format!("make it readable (reading it failed: {e})"));
                }
            }
            let mut kinds: Vec<&str> = Vec::new();
            for i in &fatal {
                f = f.evidence(format!("{}: {}", i.kind, i.detail));
                if !kinds.contains(&i.kind.as_str()) {
                    kinds.push(&i.kind);
                }
            }
            if !guessed && !kinds.is_empty() {
                detail.push(format!(
                    "correct what reading it reported ({})",
                    kinds.join(", ")
                ));
            }
            if guessed {
                detail.push(
                    "serve the site's sitemap there (or redirect to it), or answer 404 if there is none"
                        .to_owned(),
                );
            }
            out.push(f.fix(Fix::RebuildSitemap {
                sitemap: s.url.clone(),
                detail: detail.join("; "),
            }));
        } else if let Some(&(_, to)) = hops.last()
            && !(guessed && declared.contains(to))
        {
            // Read through its redirects (or its target was read on its own). A guess
            // that leads to a declared sitemap is how the site works, not a finding.
            let summary = if guessed {
                format!(
                    "{}, which nothing declares, redirects to the sitemap {to}.",
                    s.url
                )
            } else {
                format!("The sitemap {} redirects to {to}.", s.url)
            };
            let mut f = Finding::new(FindingId::SitemapLocationRedirect, &[&s.url], summary)
                .urls([s.url.clone(), to.to_owned()]);
            for line in hop_lines(s, &hops) {
                f = f.evidence(line);
            }
            out.push(f.fix(Fix::DeclareSitemap {
                sitemap: to.to_owned(),
                instead_of: (!guessed).then(|| s.url.clone()),
            }));
        }
        let limits: Vec<_> = s
            .issues
            .iter()
            .filter(|i| LIMITS.contains(&i.kind.as_str()))
            .collect();
        if !limits.is_empty() {
            let mut f = Finding::new(
                FindingId::SitemapOverLimit,
                &[&s.url],
                format!("The sitemap {} is over the protocol's limits.", s.url),
            )
            .urls([s.url.clone()]);
            for i in &limits {
                f = f.evidence(format!("{}: {}", i.kind, i.detail));
            }
            out.push(f.fix(Fix::RebuildSitemap {
                sitemap: s.url.clone(),
                detail: "split it into files of at most 50,000 URLs and 50 MB each, listed in a sitemap index"
                    .to_owned(),
            }));
        }
    }
}

#[cfg(test)]
mod pattern_tests {
    #[test]
    fn numbers_become_one_pattern() {
        assert_eq!(
            super::number_pattern("https://e.test/calendar?month=-12"),
            "https://e.test/calendar?month=#"
        );
        assert_eq!(
            super::number_pattern("https://e.test/calendar?month=7"),
            "https://e.test/calendar?month=#"
        );
        assert_eq!(
            super::number_pattern("https://e.test/a-b/p2"),
            "https://e.test/a-b/p#"
        );
    }
}

#[cfg(test)]
mod file_tests {
    use crate::tests::{B, check};
    use crate::{Fix, Severity, SitemapIssue, SitemapRow, SitemapSource};

    const S: &str = "https://example.com";

    fn u(path: &str) -> String {
        format!("{S}{path}")
    }

    fn row(id: u32, path: &str, via: SitemapSource, status: Option<u16>) -> SitemapRow {
        SitemapRow {
            id,
            url: u(path),
            kind: "unknown".into(),
            status,
            error: status
                .filter(|s| !(200..300).contains(s))
                .map(|s| format!("status {s}")),
            found_via: via,
            ..SitemapRow::default()
        }
    }

    fn hop(status: u16, to: &str) -> SitemapIssue {
        SitemapIssue {
            kind: "redirected".into(),
            detail: format!("{status} to {to}"),
        }
    }

    fn analyse(sitemaps: Vec<SitemapRow>) -> crate::Analysis {
        let mut b = B::new();
        b.page(&u("/"), 1);
        b.input.sitemaps = sitemaps;
        b.analyse()
    }

    #[test]
    fn a_guess_that_is_missing_or_unanswered_is_nothing() {
        let mut unanswered = row(1, "/sitemap.xml", SitemapSource::Guessed, None);
        unanswered.error = Some("connect: error sending request: connection refused".into());
        for guess in [
            unanswered,
            row(1, "/sitemap.xml", SitemapSource::Guessed, Some(404)),
            row(1, "/sitemap.xml", SitemapSource::Guessed, Some(410)),
        ] {
            check(&analyse(vec![guess]), "");
        }
    }

    #[test]
    fn a_guess_that_is_no_sitemap_is_at_most_a_notice() {
        let mut html = row(1, "/sitemap.xml", SitemapSource::Guessed, Some(200));
        html.issues.push(SitemapIssue {
            kind: "not_a_sitemap".into(),
            detail: "the root element is <html> (an HTML page)".into(),
        });
        let a = analyse(vec![html]);
        check(
            &a,
            "SITEMAP-GUESS-UNREADABLE https://example.com/sitemap.xml",
        );
        assert_eq!(a.findings[0].severity, Severity::Notice);
        let a = analyse(vec![row(
            1,
            "/sitemap.xml",
            SitemapSource::Guessed,
            Some(503),
        )]);
        check(
            &a,
            "SITEMAP-GUESS-UNREADABLE https://example.com/sitemap.xml",
        );
        assert!(a.findings.iter().all(|f| f.severity == Severity::Notice));
    }

    #[test]
    fn declared_sitemaps_keep_their_error() {
        for via in [
            SitemapSource::Robots,
            SitemapSource::User,
            SitemapSource::Index,
        ] {
            let a = analyse(vec![row(1, "/declared.xml", via, Some(404))]);
            check(&a, "SITEMAP-INVALID https://example.com/declared.xml");
            assert_eq!(a.findings[0].severity, Severity::Error);
            let mut gone = row(1, "/declared.xml", via, None);
            gone.error = Some("connect: connection refused".into());
            check(
                &analyse(vec![gone]),
                "SITEMAP-INVALID https://example.com/declared.xml",
            );
        }
        // A row that does not say how it was found is judged as declared.
        let a = analyse(vec![SitemapRow {
            id: 1,
            url: u("/old.xml"),
            status: Some(404),
            ..SitemapRow::default()
        }]);
        check(&a, "SITEMAP-INVALID https://example.com/old.xml");
    }

    #[test]
    fn a_redirecting_sitemap_that_is_read_is_a_notice() {
        let mut guess = row(1, "/sitemap.xml", SitemapSource::Guessed, Some(200));
        guess.kind = "urlset".into();
        guess.issues.push(hop(302, &u("/wp-sitemap.xml")));
        let a = analyse(vec![guess]);
        check(
            &a,
            "SITEMAP-LOCATION-REDIRECT https://example.com/sitemap.xml https://example.com/wp-sitemap.xml",
        );
        let f = &a.findings[0];
        assert_eq!(f.severity, Severity::Notice);
        assert_eq!(
            f.evidence,
            [
                "https://example.com/sitemap.xml redirects to https://example.com/wp-sitemap.xml (302)"
            ]
        );
        assert_eq!(
            f.fixes,
            [Fix::DeclareSitemap {
                sitemap: u("/wp-sitemap.xml"),
                instead_of: None
            }]
        );

        let mut declared = row(1, "/old.xml", SitemapSource::Robots, Some(200));
        declared.kind = "urlset".into();
        declared.issues.push(hop(301, &u("/moved.xml")));
        declared.issues.push(hop(302, &u("/new.xml")));
        let a = analyse(vec![declared]);
        check(
            &a,
            "SITEMAP-LOCATION-REDIRECT https://example.com/old.xml https://example.com/new.xml",
        );
        assert_eq!(a.findings[0].evidence.len(), 2);
        assert_eq!(
            a.findings[0].fixes,
            [Fix::DeclareSitemap {
                sitemap: u("/new.xml"),
                instead_of: Some(u("/old.xml"))
            }]
        );
    }

    #[test]
    fn a_guess_redirecting_to_a_declared_sitemap_is_nothing() {
        // WordPress: robots.txt names wp-sitemap.xml, /sitemap.xml redirects to it (and
        // was not read again).
        let mut declared = row(1, "/wp-sitemap.xml", SitemapSource::Robots, Some(200));
        declared.kind = "sitemapindex".into();
        let mut guess = row(2, "/sitemap.xml", SitemapSource::Guessed, Some(301));
        guess.error = None;
        guess.issues.push(hop(301, &u("/wp-sitemap.xml")));
        check(&analyse(vec![declared.clone(), guess.clone()]), "");
        // A declared sitemap redirecting to another read on its own is a notice.
        guess.found_via = SitemapSource::User;
        check(
            &analyse(vec![declared, guess]),
            "SITEMAP-LOCATION-REDIRECT https://example.com/sitemap.xml https://example.com/wp-sitemap.xml",
        );
    }

    #[test]
    fn a_redirect_that_fails_keeps_the_severity_of_its_origin() {
        // Out of scope, not followed.
        let mut declared = row(1, "/declared.xml", SitemapSource::Robots, Some(301));
        declared
            .issues
            .push(hop(301, "https://cdn.test/declared.xml"));
        declared.error = Some(
            "redirects to https://cdn.test/declared.xml, outside the audit's scope: not followed"
                .into(),
        );
        let a = analyse(vec![declared]);
        check(&a, "SITEMAP-INVALID https://example.com/declared.xml");
        assert_eq!(
            a.findings[0].evidence[0],
            "https://example.com/declared.xml redirects to https://cdn.test/declared.xml (301)"
        );
        let mut guess = row(1, "/sitemap.xml", SitemapSource::Guessed, Some(302));
        guess.issues.push(hop(302, "https://cdn.test/sitemap.xml"));
        guess.error = Some(
            "redirects to https://cdn.test/sitemap.xml, outside the audit's scope: not followed"
                .into(),
        );
        check(
            &analyse(vec![guess]),
            "SITEMAP-GUESS-UNREADABLE https://example.com/sitemap.xml",
        );
        // A guess redirecting to a 404: no sitemap there either.
        let mut guess = row(1, "/sitemap.xml", SitemapSource::Guessed, Some(404));
        guess.issues.push(hop(301, &u("/sitemap/")));
        check(&analyse(vec![guess]), "");
    }
}
