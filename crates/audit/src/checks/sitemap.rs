//! Sitemap problems: what the sitemaps list, what they miss, and the files themselves.

use super::Ctx;
use crate::finding::{Finding, FindingId, Fix};
use crate::input::{FoundVia, UrlState};
use crate::site::NONE;
use crate::urlparts::split;
use rustc_hash::FxHashSet;

/// Issue codes (the sitemap crate's) that make a sitemap unreadable.
const FATAL: &[&str] = &[
    "malformed_xml",
    "invalid_utf8",
    "unsupported_encoding",
    "decompression_error",
    "io_error",
    "not_a_sitemap",
];
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
    // Orphans are only judged on a crawl that followed every internal link: when it
    // stopped at a limit, an unfetched page may link to the "orphan".
    let complete = !site.input.urls.iter().any(|r| {
        matches!(r.state, UrlState::Queued | UrlState::Fetching)
            || (r.state == UrlState::Skipped
                && matches!(
                    r.reason.as_deref(),
                    Some("max_depth" | "max_urls" | "redirect_limit")
                ))
    });
    let any_links = complete && !site.input.links.is_empty();
    for u in 0..site.n as u32 {
        if site.sitemap_count[u as usize] == 0 || site.external[u as usize] {
            continue;
        }
        let url = cx.url(u);
        let sitemaps = cx.sitemaps_of(u);
        let listed = format!("listed in {}", sitemaps.join(", "));
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
                format!("The sitemap lists {url}, which redirects."),
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
                format!("The sitemap lists {url}, which {}.", site.describe(u)),
            );
            out.push(replace(f, None));
        } else if site.blocked[u as usize] {
            let f = new(
                FindingId::SitemapBlocked,
                format!("The sitemap lists {url}, which robots.txt blocks."),
            );
            out.push(replace(f, None));
        } else if site.serves(u) && site.noindex(u) {
            let f = new(
                FindingId::SitemapNoindex,
                format!("The sitemap lists {url}, which is noindex."),
            );
            out.push(replace(f, None));
        } else if site.serves(u)
            && site.eff_canon[u as usize] != NONE
            && site.eff_canon[u as usize] != u
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
                    "The sitemap lists {url}, which declares {} canonical.",
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
                    "The sitemap lists {url}, a duplicate of the preferred {}.",
                    site.url(p)
                ),
            )
            .urls([cx.url(p)]);
            out.push(replace(f, Some(p)));
        } else if any_links
            && site.indexable(u)
            && site.inlinks(u) == 0
            && !matches!(
                site.input.urls[u as usize].found_via,
                FoundVia::Start | FoundVia::Variant
            )
        {
            out.push(
                new(
                    FindingId::SitemapOrphan,
                    format!("{url} is in the sitemap but no crawled page links to it."),
                )
                .evidence("no internal link found".to_owned())
                .fix(Fix::AddLinks { to: url.clone() }),
            );
        }
    }
}

fn is_html(cx: &Ctx<'_, '_>, u: u32) -> bool {
    cx.site.fetch(u).is_some_and(|f| match &f.content_type {
        Some(ct) => ct.to_ascii_lowercase().contains("html"),
        None => f.text_hash.is_some(),
    })
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
    if !site.has_sitemap_entries {
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
                .is_some_and(|r| r.starts_with("trap") || r == "max_depth")
        })
        .map(|u| number_pattern(site.url(u)))
        .collect();
    // Paths leading into a trap of repeated segments (`/trap/`, `/trap/a/` before the
    // skipped `/trap/a/a/a/`) are the trap's own pages.
    let trapped: Vec<String> = (0..site.n as u32)
        .filter(|&u| site.reason(u).is_some_and(|r| r.starts_with("trap")))
        .map(|u| {
            let p = split(site.url(u));
            format!("{}{}", p.host.to_ascii_lowercase(), p.path)
        })
        .collect();
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
        if (e != NONE && e != u) || cx.clusters.preferred_of(u) != u || !is_html(cx, u) {
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
        let url = cx.url(u);
        out.push(
            Finding::new(
                FindingId::SitemapMissing,
                &[&url],
                format!("{url} is indexable and preferred but in no sitemap."),
            )
            .urls([url.clone()])
            .evidence(format!(
                "{url} {}, {} internal links in",
                site.describe(u),
                site.inlinks(u)
            ))
            .fix(Fix::SitemapAdd { loc: url }),
        );
    }
}

fn files(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    for s in &cx.site.input.sitemaps {
        let fatal: Vec<_> = s
            .issues
            .iter()
            .filter(|i| FATAL.contains(&i.kind.as_str()))
            .collect();
        let bad_status = s.status.is_some_and(|st| !(200..300).contains(&st));
        if bad_status || s.error.is_some() || !fatal.is_empty() {
            let mut f = Finding::new(
                FindingId::SitemapInvalid,
                &[&s.url],
                format!("The sitemap {} cannot be read.", s.url),
            )
            .urls([s.url.clone()]);
            let mut detail = Vec::new();
            if let Some(st) = s.status.filter(|_| bad_status) {
                f = f.evidence(format!("it answers {st}"));
                detail.push(format!("serve it with status 200 (it answers {st})"));
            }
            if let Some(e) = &s.error {
                f = f.evidence(format!("error: {e}"));
                detail.push(format!("fix: {e}"));
            }
            for i in &fatal {
                f = f.evidence(format!("{}: {}", i.kind, i.detail));
                detail.push(format!("fix {}", i.kind));
            }
            out.push(f.fix(Fix::RebuildSitemap {
                sitemap: s.url.clone(),
                detail: detail.join("; "),
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
