//! Crawl-level problems: crawler traps, and robots.txt blocks that hide duplicates.

use super::Ctx;
use crate::finding::{Finding, FindingId, Fix};
use crate::urlparts::split;
use crate::wording;
use std::collections::BTreeMap;

pub(super) fn check(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    traps(cx, out);
    robots_too_large(cx, out);
    hidden_duplicates(cx, out);
}

/// The robots.txt bytes Google reads (500 KiB); the rest of a longer file is ignored.
const GOOGLE_ROBOTS_BYTES: u64 = 500 * 1024;
/// The robots.txt bytes the crawler reads.
const CRAWLER_ROBOTS_BYTES: u64 = 512 * 1024;

/// robots.txt files longer than search engines read.
fn robots_too_large(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    for r in &cx.site.input.robots {
        if r.bytes <= GOOGLE_ROBOTS_BYTES || !r.status.is_some_and(|s| (200..300).contains(&s)) {
            continue;
        }
        let url = format!("{}/robots.txt", r.origin);
        let size = if r.bytes >= CRAWLER_ROBOTS_BYTES {
            "at least 512 KiB (the crawler read no further)".to_owned()
        } else {
            format!("{} bytes", r.bytes)
        };
        out.push(
            Finding::new(
                FindingId::RobotsTooLarge,
                &[url.as_str()],
                format!("{url} is {size}: Google ignores everything after its first 500 KiB."),
            )
            .urls([url.clone()])
            .evidence(format!(
                "{url}: {size}, over Google's limit of 500 KiB (512,000 bytes)"
            )),
        );
    }
}

fn traps(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    let mut by_reason: BTreeMap<String, (bool, Vec<u32>)> = BTreeMap::new();
    for u in 0..site.n as u32 {
        if let Some(r) = site.reason(u)
            && r.kind.is_trap()
        {
            let detail = r.detail.as_deref().unwrap_or(r.kind.as_str());
            by_reason
                .entry(format!("trap: {detail}"))
                .or_insert_with(|| (r.kind == crate::ReasonKind::TrapFacets, Vec::new()))
                .1
                .push(u);
        }
    }
    let mut facet_traps: BTreeMap<String, Vec<(String, Vec<u32>)>> = BTreeMap::new();
    for (reason, (facets, mut urls)) in by_reason {
        urls.sort_by(|&a, &b| site.url(a).cmp(site.url(b)));
        if facets {
            let host = split(site.url(urls[0])).host.to_ascii_lowercase();
            let detail = reason.trim_start_matches("trap:").trim().to_owned();
            facet_traps.entry(host).or_default().push((detail, urls));
            continue;
        }
        let mut from: Vec<u32> = urls
            .iter()
            .flat_map(|&u| site.linked_from(u).iter().copied())
            .collect();
        from.sort_unstable();
        from.dedup();
        let pattern = reason.trim_start_matches("trap:").trim();
        let mut f = Finding::new(
            FindingId::Trap,
            &[reason.as_str()],
            format!(
                "{} left uncrawled as a crawler trap ({pattern}).",
                match urls.len() {
                    1 => "1 URL was".to_owned(),
                    n => format!("{n} URLs were"),
                }
            ),
        )
        .urls(urls.iter().take(10).map(|&u| cx.url(u)))
        .evidence(format!(
            "{} skipped: {pattern}",
            wording::count(urls.len(), "URL", "URLs")
        ))
        .evidence(format!(
            "{} {} into it",
            wording::count(from.len(), "crawled page", "crawled pages"),
            if from.len() == 1 { "links" } else { "link" }
        ));
        if !from.is_empty() {
            let (pages, more_pages) = cx.pages(&from);
            f = f.fix(Fix::RemoveLinks {
                pages,
                more_pages,
                to: match urls.as_slice() {
                    [one] => cx.url(*one),
                    _ => format!("the {} URLs of this trap ({pattern})", urls.len()),
                },
            });
        }
        if let Some(prefix) = common_path_prefix(cx, &urls) {
            f = f.fix(Fix::DisallowInRobots { pattern: prefix });
        }
        out.push(f);
    }
    for (host, traps) in facet_traps {
        out.push(faceted_navigation(cx, &host, traps));
    }
}

/// One finding for a host's faceted navigation: every listing whose filter
/// combinations went past the facet budget or whose filter links repeat a parameter is
/// one cause, the site's filter links, with one robots.txt fix. `traps` are the skip
/// details (`over 40 combinations of query parameters on /shop/bags/`, `parameter color
/// repeated in /shop/bags/`) with their URLs.
fn faceted_navigation(cx: &Ctx<'_, '_>, host: &str, traps: Vec<(String, Vec<u32>)>) -> Finding {
    let site = cx.site;
    // Per listing path: its skip details with counts, and whether combinations were cut
    // (their robots.txt pattern covers the repeats too).
    let mut listings: BTreeMap<&str, (Vec<String>, bool, Vec<String>)> = BTreeMap::new();
    let mut all: Vec<u32> = Vec::new();
    for (detail, urls) in &traps {
        let path = split(site.url(urls[0])).path;
        let entry = listings.entry(path).or_default();
        entry.0.push(format!("{} ({})", detail, urls.len()));
        match facet_pattern(cx, urls) {
            Some(p) if p.ends_with("?*&") => {
                entry.1 = true;
                entry.2 = vec![p];
            }
            Some(p) if !entry.1 => entry.2.push(p),
            _ => {}
        }
        all.extend(urls);
    }
    all.sort_by(|&a, &b| site.url(a).cmp(site.url(b)));
    all.dedup();
    let mut from: Vec<u32> = all
        .iter()
        .flat_map(|&u| site.linked_from(u).iter().copied())
        .collect();
    from.sort_unstable();
    from.dedup();
    let n = listings.len();
    let mut f = Finding::new(
        FindingId::Trap,
        &[&format!("facets {host}")],
        format!(
            "Faceted navigation on {} of {host}: {} left uncrawled (filter combinations past \
             the facet budget, or filter links that repeat a parameter).",
            wording::count(n, "listing", "listings"),
            match all.len() {
                1 => "1 URL was".to_owned(),
                k => format!("{k} URLs were"),
            }
        ),
    )
    .urls(all.iter().take(10).map(|&u| cx.url(u)))
    .evidence(
        "faceted navigation: query parameters with few values each (filters) combined on one \
         path past the facet budget, or repeated by filter links; the crawl stopped expanding \
         them there"
            .to_owned(),
    )
    .evidence(format!(
        "{} {} into them",
        wording::count(from.len(), "crawled page", "crawled pages"),
        if from.len() == 1 { "links" } else { "link" }
    ));
    let mut patterns: Vec<String> = Vec::new();
    for (path, (details, _, pats)) in listings {
        f = f.evidence(format!("{path}: {}", details.join("; ")));
        patterns.extend(pats);
    }
    patterns.sort();
    patterns.dedup();
    for pattern in patterns {
        f = f.fix(Fix::DisallowInRobots { pattern });
    }
    f
}

/// The robots.txt pattern that stops crawlers at a facet trap: the URLs' path followed
/// by a query of two or more parameters (`/shop/?*&`), or by the parameter they repeat
/// (`/shop/?*color=*color=`).
fn facet_pattern(cx: &Ctx<'_, '_>, urls: &[u32]) -> Option<String> {
    let first = split(cx.site.url(*urls.first()?));
    let path = first.path;
    if urls.iter().any(|&u| split(cx.site.url(u)).path != path) {
        return None;
    }
    let mut seen: Vec<&str> = Vec::new();
    for pair in first.query?.split('&').filter(|p| !p.is_empty()) {
        if seen.contains(&pair) {
            let name = pair.split_once('=').map_or(pair, |(n, _)| n);
            return Some(format!("{path}?*{name}=*{name}="));
        }
        seen.push(pair);
    }
    Some(format!("{path}?*&"))
}

/// The longest common path prefix of the URLs, cut after its last `/`, if it is more
/// than the root.
fn common_path_prefix(cx: &Ctx<'_, '_>, urls: &[u32]) -> Option<String> {
    let mut prefix: Option<&str> = None;
    for &u in urls {
        let path = split(cx.site.url(u)).path;
        prefix = Some(match prefix {
            None => path,
            Some(p) => {
                let n = p
                    .bytes()
                    .zip(path.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                let mut n = n.min(p.len());
                while !p.is_char_boundary(n) {
                    n -= 1;
                }
                &p[..n]
            }
        });
    }
    let p = prefix?;
    let cut = &p[..p.rfind('/')? + 1];
    (cut.len() > 1).then(|| cut.to_owned())
}

fn hidden_duplicates(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    for b in 0..site.n as u32 {
        if !site.blocked[b as usize] || site.external[b as usize] {
            continue;
        }
        if site.inlinks(b) == 0 && site.sitemap_count[b as usize] == 0 {
            continue;
        }
        let Some(key) = cx.key(b) else { continue };
        let same_key = cx
            .keys
            .find(site, key)
            .filter(|&a| a != b && site.serves(a));
        let (twin, how) = match same_key {
            Some(a) => (a, format!("same key {key} under the audit policy")),
            None => {
                let learned = cx
                    .mined
                    .rules
                    .iter()
                    .filter(|r| r.status == crate::dust::RuleStatus::Confirmed)
                    .find_map(|r| {
                        let rewritten = r.apply(key)?;
                        let a = cx.keys.find(site, &rewritten)?;
                        (a != b && site.serves(a)).then(|| (a, format!("learned rule {}", r.id)))
                    });
                match learned {
                    Some(found) => found,
                    None => continue,
                }
            }
        };
        let (url, twin_url) = (cx.url(b), cx.url(twin));
        let mut f = Finding::new(
            FindingId::RobotsHidesDup,
            &[&url],
            format!("{url} is blocked by robots.txt but is linked, and duplicates {twin_url}."),
        )
        .urls([url.clone(), twin_url.clone()])
        .evidence(format!("{url} is blocked by robots.txt"))
        .evidence(format!("it duplicates {twin_url}: {how}"));
        if let Some(fix) = cx.update_links(b, twin) {
            f = f.fix(fix);
        }
        for sitemap in cx.sitemaps_of(b) {
            f = f.fix(Fix::SitemapReplace {
                sitemap,
                loc: url.clone(),
                with: twin_url.clone(),
            });
        }
        out.push(f);
    }
}

#[cfg(test)]
mod robots_tests {
    use crate::tests::{B, check, only};
    use crate::{FindingId, RobotsRow};

    #[test]
    fn a_robots_txt_over_500_kib_is_a_finding() {
        let mut b = B::new();
        b.page("https://example.com/", 1)
            .start("https://example.com/");
        let row = |origin: &str, bytes: u64| RobotsRow {
            origin: origin.into(),
            status: Some(200),
            bytes,
        };
        b.input.robots = vec![
            row("https://example.com", 512 * 1024),
            row("https://ok.example.com", 500 * 1024),
            RobotsRow {
                status: Some(404),
                ..row("https://gone.example.com", 600 * 1024)
            },
        ];
        let a = b.analyse();
        check(&a, "ROBOTS-TOO-LARGE https://example.com/robots.txt");
        let f = only(&a, FindingId::RobotsTooLarge);
        assert!(f.summary.contains("at least 512 KiB"), "{}", f.summary);
    }
}
