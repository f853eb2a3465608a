//! Duplicate variants, rules that do not hold, and clusters whose signals disagree.

use super::Ctx;
use crate::cluster::{DupKind, SignalKind, percent, unsafe_rules};
use crate::finding::{Finding, FindingId, Fix};
use crate::site::{Chain, NONE};
use crate::urlparts::{Variant, is_ip, page_number, split, strip_www};
use crate::wording;
use canon::Rule;
use std::collections::BTreeMap;

pub(super) fn check(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    duplicates(cx, out);
    near_for_review(cx, out);
    rules_that_do_not_hold(cx, out);
    conflicts(cx, out);
}

fn canonical_state(cx: &Ctx<'_, '_>, m: u32) -> String {
    let site = cx.site;
    let declared = site.canonicals(m).count();
    match site.eff_canon[m as usize] {
        NONE if declared == 0 => format!("{} has no canonical", site.url(m)),
        NONE => format!(
            "{}'s canonical declarations are ignored (conflicting or invalid)",
            site.url(m)
        ),
        t if t == m => format!("{} declares itself canonical", site.url(m)),
        t => format!("{} declares {} canonical", site.url(m), site.url(t)),
    }
}

/// One duplicate of a cluster: the member, its preferred URL, and how they are one page.
#[derive(Clone, Copy)]
struct Dup {
    m: u32,
    p: u32,
    kind: DupKind,
}

/// Duplicates, one finding per cause and URL pattern: every URL on the `www.` host is
/// one finding, every URL differing by the same parameters another. A pattern of one
/// URL reads as that URL's finding; a larger one names the pattern, the count, a few
/// examples and one fix for all (each URL with its preferred URL is in the clusters
/// table and the fix files).
fn duplicates(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    let mut groups: BTreeMap<(FindingId, String), (String, Vec<Dup>)> = BTreeMap::new();
    let mut found = Vec::new();
    for (c, members) in cx.clusters.members.iter().enumerate() {
        let p = cx.clusters.preferred[c];
        if !site.serves(p) {
            continue;
        }
        for &m in &members[1..] {
            let Some(kind) = cx.clusters.kinds[m as usize] else {
                continue;
            };
            // A URL Dustpan made up (a URL-variant probe) is stated by its rule's
            // finding (`VARIANT-*`), never as a duplicate of the site's.
            if !site.indexable(m) || site.made_up[m as usize] {
                continue;
            }
            found.push(Dup { m, p, kind });
        }
    }
    let neutral = neutral_values(cx, &found);
    for d in found {
        let (id, key, words) = pattern(cx, d.m, d.p, d.kind, &neutral);
        groups
            .entry((id, key))
            .or_insert_with(|| (words, Vec::new()))
            .1
            .push(d);
    }
    for ((id, key), (words, mut dups)) in groups {
        dups.sort_by(|a, b| site.url(a.m).cmp(site.url(b.m)));
        out.push(if dups.len() == 1 {
            one_duplicate(cx, id, &key, &words, dups[0])
        } else {
            pattern_of_duplicates(cx, id, &key, &words, &dups)
        });
    }
}

/// Whether the parameter changes other pages (the parameter classifier's verdict).
fn changes_content(cx: &Ctx<'_, '_>, name: &str) -> bool {
    cx.mined
        .params
        .iter()
        .any(|p| p.name == name && p.class == crate::dust::ParamClass::ChangesContent)
}

/// Values of parameters that change other pages which never change the page they are
/// on: `action=view` on a wiki, where `action=edit` is another page. A value is neutral
/// when at least 90% of the pages that carry it are duplicates. A filter value that
/// happens to select every product of one listing (`color=black` on a page of black
/// boots) and narrows the others is not: its duplicates are one pattern with the other
/// values of the filter.
fn neutral_values(cx: &Ctx<'_, '_>, dups: &[Dup]) -> BTreeMap<(String, String), bool> {
    let site = cx.site;
    // (name, value) of the parameter duplicates -> (duplicates carrying it, served
    // pages carrying it)
    let mut counts: BTreeMap<(String, String), (u32, u32)> = BTreeMap::new();
    for d in dups {
        if d.kind != DupKind::Url(Variant::Param) {
            continue;
        }
        let (a, b) = (split(site.url(d.m)), split(site.url(d.p)));
        for name in differing_params(a.query, b.query) {
            if let Some(v) = param_value(a.query, &name)
                && changes_content(cx, &name)
            {
                counts.entry((name, v.to_owned())).or_default();
            }
        }
    }
    if counts.is_empty() {
        return BTreeMap::new();
    }
    let mut names: Vec<String> = counts.keys().map(|(k, _)| k.clone()).collect();
    names.dedup();
    for u in 0..site.n as u32 {
        if !site.serves(u) {
            continue;
        }
        let Some(query) = split(site.url(u)).query else {
            continue;
        };
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for (k, v) in query.split('&').filter_map(|kv| kv.split_once('=')) {
            if !names.iter().any(|n| n == k) || seen.contains(&(k, v)) {
                continue;
            }
            seen.push((k, v));
            if let Some(c) = counts.get_mut(&(k.to_owned(), v.to_owned())) {
                c.1 += 1;
                // A duplicate, by any evidence, of a page without the value:
                // `index.php?title=X&action=view` is one of `/wiki/X` by a learned rule.
                // Empty listings that all carry `size=xl` are not.
                // The page without the parameter at all: empty listings that all
                // carry some `size` are not.
                let p = cx.clusters.preferred_of(u);
                if p != u
                    && !split(site.url(p)).query.is_some_and(|q| {
                        q.split('&')
                            .any(|kv| kv.split_once('=').map_or(kv, |x| x.0) == k)
                    })
                {
                    c.0 += 1;
                }
            }
        }
    }
    counts
        .into_iter()
        .map(|(kv, (dups, served))| (kv, u64::from(dups) * 10 >= u64::from(served) * 9))
        .collect()
}

/// A duplicate's finding id, the key of its pattern and the pattern in words ("on the
/// host www.example.com instead of example.com").
fn pattern(
    cx: &Ctx<'_, '_>,
    m: u32,
    p: u32,
    kind: DupKind,
    neutral: &BTreeMap<(String, String), bool>,
) -> (FindingId, String, String) {
    let site = cx.site;
    let (mu, pu) = (site.url(m), site.url(p));
    let (a, b) = (split(mu), split(pu));
    let host = a.host.to_ascii_lowercase();
    match kind {
        DupKind::Url(Variant::Host) => {
            let (ha, hb) = (
                format!("{}{}", host, a.port),
                format!("{}{}", b.host.to_ascii_lowercase(), b.port),
            );
            let words = if is_ip(a.host) {
                format!("at the IP address {ha} instead of the host name {hb}")
            } else {
                format!("on the host name {ha} instead of {hb}")
            };
            (FindingId::DupHost, format!("host {ha} -> {hb}"), words)
        }
        DupKind::Url(Variant::Scheme) => (
            FindingId::DupScheme,
            format!("scheme {}://{host} -> {}", a.scheme, b.scheme),
            format!("over {} instead of {} on {host}", a.scheme, b.scheme),
        ),
        DupKind::Url(Variant::Slash) => {
            let form = if a.path.contains("//") {
                "with doubled slashes"
            } else if a.path.ends_with('/') {
                "with a trailing slash where the page has none"
            } else {
                "without the trailing slash the page has"
            };
            (
                FindingId::DupSlash,
                format!("slash {host} {form}"),
                format!("{form}, on {host}"),
            )
        }
        DupKind::Url(Variant::Index) => {
            let file = a.path.rsplit('/').next().unwrap_or("");
            (
                FindingId::DupIndex,
                format!("index {host} {file}"),
                format!("at the directory's {file} instead of the directory, on {host}"),
            )
        }
        DupKind::Url(Variant::Case) => (
            FindingId::DupCase,
            format!("case {host}"),
            format!("in another letter case, on {host}"),
        ),
        DupKind::Url(Variant::Param) => {
            // The host alias is its own finding: a parameter's duplicates on both hosts
            // are one pattern.
            let host = strip_www(&host);
            // A parameter that changes other pages (`action` on a wiki: `action=edit` is
            // another page) is named with its value when that value is neutral:
            // `action=view` (see `neutral_values`).
            let differing = differing_params(a.query, b.query);
            // A filter: a parameter that changes other pages, with a value that is not
            // neutral. Its duplicates are coincidences of the listing (every product
            // it shows is red), one pattern for every filter of the host.
            let filter = differing.iter().any(|name| {
                changes_content(cx, name)
                    && param_value(a.query, name)
                        .is_none_or(|v| neutral.get(&(name.clone(), v.to_owned())) != Some(&true))
            });
            if filter {
                return (
                    FindingId::DupParam,
                    format!("param {host} filters"),
                    format!(
                        "with filter or sort parameters that change other pages but not these, \
                         on {host}"
                    ),
                );
            }
            let names: Vec<String> = differing
                .into_iter()
                .map(|name| match param_value(a.query, &name) {
                    Some(v) if neutral.get(&(name.clone(), v.to_owned())) == Some(&true) => {
                        format!("{name}={v}")
                    }
                    _ => name,
                })
                .collect();
            let words = if names.is_empty() {
                format!("with the same query parameters in another order, on {host}")
            } else {
                format!(
                    "with the parameter{} {} (which {} not change the page), on {host}",
                    if names.len() == 1 { "" } else { "s" },
                    names.join(", "),
                    if names.len() == 1 { "does" } else { "do" }
                )
            };
            (
                FindingId::DupParam,
                format!("param {host} {}", names.join(",")),
                words,
            )
        }
        DupKind::Dust(r) => {
            let id = rule_id(cx, r);
            (
                FindingId::DupDust,
                format!("rule {id}"),
                format!("under the URL pattern of learned rule {id}"),
            )
        }
        DupKind::Content => {
            let (x, y) = differing_parts(&mu[a.origin_end..], &pu[b.origin_end..]);
            let words = if y.is_empty() {
                format!("ending in `{x}` after their page's URL, with identical text")
            } else {
                format!("with `{x}` where their page's URL has `{y}`, with identical text")
            };
            (
                FindingId::DupContent,
                format!("content {host} {x} -> {y}"),
                words,
            )
        }
        DupKind::Near(s) => (
            FindingId::DupNear,
            format!("near {mu}"),
            format!("with near-identical main content ({s}% similar)"),
        ),
    }
}

/// Names of the parameters whose presence or value differs between two query strings,
/// sorted; empty when only their order differs.
fn differing_params(a: Option<&str>, b: Option<&str>) -> Vec<String> {
    fn pairs(q: Option<&str>) -> Vec<(&str, &str)> {
        let mut v: Vec<(&str, &str)> = q
            .unwrap_or("")
            .split('&')
            .filter(|s| !s.is_empty())
            .map(|kv| kv.split_once('=').unwrap_or((kv, "")))
            .collect();
        v.sort_unstable();
        v
    }
    let (pa, pb) = (pairs(a), pairs(b));
    let mut names: Vec<String> = pa
        .iter()
        .filter(|kv| !pb.contains(kv))
        .chain(pb.iter().filter(|kv| !pa.contains(kv)))
        .map(|(k, _)| (*k).to_owned())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The value of the first `name` parameter of a query string.
fn param_value<'q>(query: Option<&'q str>, name: &str) -> Option<&'q str> {
    query?
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find_map(|(k, v)| (k == name).then_some(v))
}

/// The parts where two URL paths differ, widened to whole words and with every run of
/// digits written `#`: `/post/comment-page-2/` against `/post/` is
/// `("comment-page-#/", "")`.
pub(super) fn differing_parts(a: &str, b: &str) -> (String, String) {
    let word = |c: u8| c.is_ascii_alphanumeric();
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let mut pre = x.iter().zip(y).take_while(|(p, q)| p == q).count();
    while pre > 0
        && word(x[pre - 1])
        && (x.get(pre).is_some_and(|&c| word(c)) || y.get(pre).is_some_and(|&c| word(c)))
    {
        pre -= 1;
    }
    let room = x.len().min(y.len()) - pre;
    let mut suf = x
        .iter()
        .rev()
        .zip(y.iter().rev())
        .take(room)
        .take_while(|(p, q)| p == q)
        .count();
    while suf > 0 && word(x[x.len() - suf]) && {
        let (i, j) = (x.len() - suf, y.len() - suf);
        (i > pre && word(x[i - 1])) || (j > pre && word(y[j - 1]))
    } {
        suf -= 1;
    }
    // Cut on characters, not inside one (URLs are ASCII in their canonical form, but the
    // parts must never split a multi-byte character whatever they hold).
    while pre > 0 && !(a.is_char_boundary(pre) && b.is_char_boundary(pre)) {
        pre -= 1;
    }
    while suf > 0 && !(a.is_char_boundary(a.len() - suf) && b.is_char_boundary(b.len() - suf)) {
        suf -= 1;
    }
    let digits = |s: &str| {
        let mut out = String::with_capacity(s.len());
        let mut in_number = false;
        for c in s.chars() {
            if c.is_ascii_digit() {
                if !in_number {
                    out.push('#');
                }
                in_number = true;
            } else {
                in_number = false;
                out.push(c);
            }
        }
        out
    };
    (
        digits(&a[pre..a.len() - suf]),
        digits(&b[pre..b.len() - suf]),
    )
}

/// Whether the fix for a duplicate is a canonical (it may diverge from its page, or it
/// differs only by what a canonical is for) rather than a 301.
fn canonical_fix(kind: DupKind) -> bool {
    matches!(
        kind,
        DupKind::Url(Variant::Param) | DupKind::Dust(_) | DupKind::Content | DupKind::Near(_)
    )
}

/// The finding of a pattern with one URL: that URL, its page, the evidence and the fix.
fn one_duplicate(cx: &Ctx<'_, '_>, id: FindingId, key: &str, words: &str, d: Dup) -> Finding {
    let site = cx.site;
    let Dup { m, p, kind } = d;
    let (mu, pu) = (cx.url(m), cx.url(p));
    let how = match kind {
        DupKind::Content => "with identical text".to_owned(),
        _ => words.to_owned(),
    };
    let mut f = Finding::new(
        id,
        &[key],
        format!("{mu} serves the same page as {pu}, {how}."),
    )
    .urls([mu.clone(), pu.clone()])
    .evidence(format!(
        "{mu} {}; {pu} {}",
        site.describe(m),
        site.describe(p)
    ))
    .evidence(canonical_state(cx, m))
    .evidence(content_line(cx, m, p, kind));
    let rules = unsafe_rules(site, m);
    if !rules.is_empty() {
        let ids: Vec<&str> = rules.iter().map(|r| r.id()).collect();
        f = f.evidence(format!(
            "the audit policy normalizes {mu} with: {}",
            ids.join(", ")
        ));
    }
    if site.inlinks(m) > 0 {
        f = f.evidence(pages_link(site.inlinks(m), &mu));
    }
    f = if canonical_fix(kind) {
        f.fix(Fix::SetCanonical {
            page: mu.clone(),
            href: pu.clone(),
        })
    } else {
        f.fix(Fix::Redirect {
            from: mu.clone(),
            to: pu.clone(),
            status: 301,
        })
    };
    if !later_page(&mu)
        && let Some(fix) = cx.update_links(m, p)
    {
        f = f.fix(fix);
    }
    f
}

/// A second or later page of a paginated list or of paginated comments.
fn later_page(url: &str) -> bool {
    page_number(url).is_some_and(|n| n >= 2)
}

/// "1 internal page links to X" / "3 internal pages link to X".
pub(super) fn pages_link(n: u32, url: &str) -> String {
    if n == 1 {
        format!("1 internal page links to {url}")
    } else {
        format!("{n} internal pages link to {url}")
    }
}

/// Examples shown as evidence of a pattern.
const PATTERN_EXAMPLES: usize = 3;

/// The finding of a pattern of several URLs: the pattern, how many, examples, and one
/// fix for all of them.
fn pattern_of_duplicates(
    cx: &Ctx<'_, '_>,
    id: FindingId,
    key: &str,
    words: &str,
    dups: &[Dup],
) -> Finding {
    let site = cx.site;
    let n = dups.len();
    let max = site.cfg.max_listed.max(1);
    let mut f = Finding::new(
        id,
        &[key],
        format!("{n} URLs serve the same page as another URL, {words}."),
    )
    .urls(dups.iter().take(max).map(|d| cx.url(d.m)));
    if n > max {
        f = f.evidence(format!(
            "{} listed here, {} more in the clusters table (clusters.csv), each with its preferred URL",
            wording::count(max, "URL is", "URLs are"),
            n - max
        ));
    }
    for d in dups.iter().take(PATTERN_EXAMPLES) {
        f = f.evidence(format!(
            "for example {} serves the same page as {}: {}",
            site.url(d.m),
            site.url(d.p),
            content_line(cx, d.m, d.p, d.kind)
        ));
    }
    // Links to a later page of paginated comments or lists are the pagination itself:
    // they stay, whatever the canonical.
    let linked: Vec<&Dup> = dups
        .iter()
        .filter(|d| !later_page(site.url(d.m)) && !cx.linkers(d.m).is_empty())
        .collect();
    if !linked.is_empty() {
        f = f.evidence(format!(
            "{} of these URLs {} internal links (links_to_non_preferred.csv lists each link)",
            linked.len(),
            if linked.len() == 1 { "has" } else { "have" }
        ));
    }
    let first = dups[0];
    f.fix(Fix::ForPattern {
        pattern: words.to_owned(),
        urls: n as u32,
        canonical: canonical_fix(first.kind),
        example: [cx.url(first.m), cx.url(first.p)],
        linked: linked.len() as u32,
    })
}

/// Pairs of pages with near-identical main content that no strong evidence joined: one
/// review finding per pair of pages (a cluster counts as its preferred URL), with both
/// pages' titles, h1s and sizes, and no canonical.
fn near_for_review(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    let mut pairs: Vec<(u32, u32, f64)> = cx
        .graph
        .near
        .iter()
        .map(|&(a, b, s)| (cx.clusters.preferred_of(a), cx.clusters.preferred_of(b), s))
        .filter(|&(a, b, _)| a != b && site.indexable(a) && site.indexable(b))
        .map(|(a, b, s)| {
            if site.url(a) <= site.url(b) {
                (a, b, s)
            } else {
                (b, a, s)
            }
        })
        .collect();
    // The most similar pair of members stands for the two pages.
    pairs.sort_by(|x, y| (x.0, x.1).cmp(&(y.0, y.1)).then(y.2.total_cmp(&x.2)));
    pairs.dedup_by_key(|p| (p.0, p.1));
    // Pairs on one path that differ only in their query (a listing's filters and sorts)
    // are one pattern: one finding per host.
    let mut by_host: BTreeMap<String, Vec<(u32, u32, f64)>> = BTreeMap::new();
    let mut single = Vec::new();
    for (a, b, s) in pairs {
        let (ua, ub) = (split(site.url(a)), split(site.url(b)));
        let same_path = ua.path == ub.path
            && ua.scheme == ub.scheme
            && ua.port == ub.port
            && strip_www(ua.host).eq_ignore_ascii_case(strip_www(ub.host));
        if same_path {
            let host = strip_www(ua.host).to_ascii_lowercase();
            by_host.entry(host).or_default().push((a, b, s));
        } else {
            single.push((a, b, s));
        }
    }
    for (host, list) in by_host {
        if list.len() < MIN_NEAR_GROUP {
            single.extend(list);
            continue;
        }
        out.push(near_by_query(cx, &host, &list));
    }
    for (a, b, s) in single {
        let (ua, ub) = (cx.url(a), cx.url(b));
        let similarity = percent(s);
        let describe = |i: u32| {
            let f = site.fetch(i);
            let title = f.and_then(|f| f.title.as_deref()).unwrap_or("");
            let h1 = f.and_then(|f| f.h1.as_deref()).unwrap_or("");
            let words = site.main.get(i).map_or_else(
                || {
                    f.and_then(|f| f.word_count)
                        .map_or_else(String::new, |w| format!(", {w} words"))
                },
                |(_, w)| format!(", {w} words of main content"),
            );
            format!("{} (title \"{title}\", h1 \"{h1}\"{words})", site.url(i))
        };
        let mut f = Finding::new(
            FindingId::DupNear,
            &[&ua, &ub],
            format!(
                "{ua} and {ub} have near-identical main content ({similarity}% similar); \
                     nothing else says they are one page."
            ),
        )
        .urls([ua.clone(), ub.clone()])
        .evidence(describe(a))
        .evidence(describe(b))
        .evidence(format!(
            "{similarity}% of their main content's word 3-shingles are shared (Jaccard); \
                 weak evidence: not merged, no canonical proposed"
        ));
        if site.main.reordered(a, b) {
            f = f.evidence(REORDERED.to_owned());
        }
        out.push(f.fix(Fix::ReviewNearDuplicate {
            pages: [ua, ub],
            similarity,
        }));
    }
}

/// Said of a near-identical pair whose main content is the same text blocks in another
/// order.
const REORDERED: &str = "the same text blocks in another order (a listing sorted \
                         differently): the same items, not the same page";

/// At least this many near-identical pairs that differ only in their query become one
/// finding.
const MIN_NEAR_GROUP: usize = 3;

/// One finding for a host's near-identical pairs of URLs that share a path and differ
/// only in their query parameters: the parameters (filters, sorts) are the cause.
fn near_by_query(cx: &Ctx<'_, '_>, host: &str, list: &[(u32, u32, f64)]) -> Finding {
    let site = cx.site;
    let mut urls: Vec<u32> = list.iter().flat_map(|&(a, b, _)| [a, b]).collect();
    urls.sort_by(|&x, &y| site.url(x).cmp(site.url(y)));
    urls.dedup();
    let low = list.iter().map(|p| percent(p.2)).min().unwrap_or(0);
    let high = list.iter().map(|p| percent(p.2)).max().unwrap_or(0);
    let range = if low == high {
        format!("{low}%")
    } else {
        format!("{low}% to {high}%")
    };
    let mut paths: BTreeMap<&str, usize> = BTreeMap::new();
    for &(a, _, _) in list {
        *paths.entry(split(site.url(a)).path).or_default() += 1;
    }
    let mut params: Vec<&str> = urls
        .iter()
        .filter_map(|&u| split(site.url(u)).query)
        .flat_map(|q| q.split('&'))
        .map(|kv| kv.split_once('=').map_or(kv, |x| x.0))
        .filter(|k| !k.is_empty())
        .collect();
    params.sort_unstable();
    params.dedup();
    let mut f = Finding::new(
        FindingId::DupNear,
        &[&format!("near-query {host}")],
        format!(
            "{} pairs of URLs on {} of {host} differ only in their query parameters and have \
             near-identical main content ({range} similar); nothing else says they are one page.",
            list.len(),
            wording::count(paths.len(), "path", "paths"),
        ),
    )
    .urls(urls.iter().take(site.cfg.max_listed).map(|&u| cx.url(u)));
    for (path, n) in &paths {
        f = f.evidence(format!("{path}: {}", wording::count(*n, "pair", "pairs")));
    }
    let mut examples: Vec<&(u32, u32, f64)> = list.iter().collect();
    examples.sort_by(|x, y| y.2.total_cmp(&x.2));
    for &&(a, b, s) in examples.iter().take(3) {
        f = f.evidence(format!(
            "for example: {} and {} are {}% similar",
            site.url(a),
            site.url(b),
            percent(s)
        ));
    }
    let reordered = list
        .iter()
        .filter(|&&(a, b, _)| site.main.reordered(a, b))
        .count();
    if reordered > 0 {
        f = f.evidence(format!(
            "{} of them: {REORDERED}",
            wording::count(reordered, "pair", "pairs")
        ));
    }
    f = f.evidence(
        "the similarity is of the main content's word 3-shingles (Jaccard); weak evidence: not \
         merged, no canonical proposed"
            .to_owned(),
    );
    f.fix(Fix::ReviewParameters {
        paths: paths.keys().map(|p| format!("{host}{p}")).collect(),
        params: params.iter().map(|p| (*p).to_owned()).collect(),
        pairs: list.len() as u32,
    })
}

fn rule_id(cx: &Ctx<'_, '_>, r: u32) -> String {
    cx.mined
        .rules
        .get(r as usize)
        .map_or_else(String::new, |r| r.id.clone())
}

fn content_line(cx: &Ctx<'_, '_>, m: u32, p: u32, kind: DupKind) -> String {
    let site = cx.site;
    let words = |i: u32| site.fetch(i).and_then(|f| f.word_count).unwrap_or(0);
    match (site.content(m), site.content(p)) {
        (Some(a), Some(b)) if a.text_hash == b.text_hash => {
            format!("identical text ({} words)", words(m))
        }
        (Some(a), Some(b)) => match (a.main, b.main, site.main.similarity(m, p)) {
            (Some((x, w)), Some((y, _)), _) if x == y => {
                format!("identical main content ({w} words; the site's template left out)")
            }
            (Some(_), Some(_), Some(s)) => {
                format!(
                    "main content {}% similar (the site's template left out)",
                    percent(s)
                )
            }
            _ => match (a.simhash, b.simhash) {
                (Some(x), Some(y)) => format!(
                    "text SimHash distance {} of 64 bits (similarity {:.2})",
                    crate::site::distance(x, y),
                    1.0 - f64::from(crate::site::distance(x, y)) / 64.0
                ),
                _ => "text differs".to_owned(),
            },
        },
        _ => match kind {
            DupKind::Dust(r) => {
                let rule = cx.mined.rules.get(r as usize);
                format!(
                    "learned rule {} holds on {} of {} measured pairs",
                    rule.map_or("", |r| r.id.as_str()),
                    rule.map_or(0, |r| r.agreed),
                    rule.map_or(0, |r| r.applicable)
                )
            }
            _ => "the crawl links the two URLs (redirect or canonical evidence)".to_owned(),
        },
    }
}

/// The rules responsible for two URLs sharing a key: the non-safe rules that fired on
/// only one of them, or, when both fired the same ones, those.
fn responsible(a: &[Rule], b: &[Rule]) -> Vec<Rule> {
    let mut only: Vec<Rule> = a
        .iter()
        .filter(|r| !b.contains(r))
        .chain(b.iter().filter(|r| !a.contains(r)))
        .copied()
        .collect();
    if only.is_empty() {
        only = a.to_vec();
    }
    only.sort_unstable();
    only.dedup();
    only
}

fn rules_that_do_not_hold(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    let mut by_rule: BTreeMap<Rule, Vec<(u32, u32, f64)>> = BTreeMap::new();
    for &(a, b, d) in &cx.graph.disagreements {
        let (ra, rb) = (unsafe_rules(site, a), unsafe_rules(site, b));
        for r in responsible(&ra, &rb) {
            by_rule.entry(r).or_default().push((a, b, d));
        }
    }
    for (rule, mut pairs) in by_rule {
        let ordered = |&(a, b, _): &(u32, u32, f64)| {
            let (x, y) = (site.url(a), site.url(b));
            if x <= y { (x, y) } else { (y, x) }
        };
        pairs.sort_by(|x, y| ordered(x).cmp(&ordered(y)));
        let mut f = Finding::new(
            FindingId::RuleDoesNotHold,
            &[rule.id()],
            format!(
                "The `{}` rule ({} class) gives {} the same key.",
                rule.id(),
                rule.class(),
                match pairs.len() {
                    1 => "1 pair of different pages".to_owned(),
                    n => format!("{n} pairs of different pages"),
                }
            ),
        );
        for &(a, b, d) in pairs.iter().take(10) {
            let (a, b) = if site.url(a) <= site.url(b) {
                (a, b)
            } else {
                (b, a)
            };
            let key = cx.key(a).unwrap_or("");
            f = f.urls([cx.url(a), cx.url(b)]).evidence(format!(
                "{} and {} share the key {key} but their content differs ({}% similar)",
                site.url(a),
                site.url(b),
                percent(d)
            ));
        }
        out.push(f.fix(Fix::DisableRule { rule }));
    }
}

fn conflicts(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    for (c, cluster) in cx.clusters.list.iter().enumerate() {
        let members = &cx.clusters.members[c];
        let p = cx.clusters.preferred[c];
        let idx_of = |id| members.iter().copied().find(|&m| site.id(m) == id);
        let winner = |kind: SignalKind| {
            cluster
                .signals
                .iter()
                .find(|s| s.kind == kind)
                .and_then(|s| idx_of(s.votes_for))
                .filter(|&w| site.serves(w))
        };
        let canonical =
            winner(SignalKind::CanonicalElement).or_else(|| winner(SignalKind::CanonicalHeader));
        let Some(canonical) = canonical else { continue };
        // A sitemap entry that is canonicalised or a duplicate is reported as such
        // (SITEMAP-*); only a listed page that is clean on its own conflicts here.
        let clean = |w: u32| {
            let e = site.eff_canon[w as usize];
            (e == NONE || e == w) && cx.clusters.kinds[w as usize].is_none()
        };
        let others: Vec<(SignalKind, u32)> = [SignalKind::Redirect, SignalKind::Sitemap]
            .into_iter()
            .filter_map(|k| winner(k).map(|w| (k, w)))
            .filter(|&(k, w)| w != canonical && (k == SignalKind::Redirect || clean(w)))
            .collect();
        if others.is_empty() {
            continue;
        }
        let pu = cx.url(p);
        let mut f = Finding::new(
            FindingId::ClusterConflict,
            &[&pu],
            format!(
                "The canonical names {} but {} name {}; the audit prefers {pu}.",
                site.url(canonical),
                others
                    .iter()
                    .map(|(k, _)| match k {
                        SignalKind::Redirect => "redirects",
                        _ => "sitemaps",
                    })
                    .collect::<Vec<_>>()
                    .join(" and "),
                site.url(others[0].1)
            ),
        )
        .urls([pu.clone()]);
        let mut named = vec![p];
        for w in std::iter::once(canonical).chain(others.iter().map(|&(_, w)| w)) {
            if !named.contains(&w) {
                named.push(w);
                f = f.urls([cx.url(w)]);
            }
        }
        for s in &cluster.signals {
            let url = idx_of(s.votes_for).map_or("", |w| site.url(w));
            f = f.evidence(format!(
                "{} vote for {url} ({} of {})",
                s.kind.words(),
                s.votes,
                wording::count(s.total as usize, "vote", "votes")
            ));
        }
        for &m in members {
            if !site.serves(m) {
                if let Chain::Final { to, .. } = site.chains[m as usize]
                    && to != p
                    && cx.clusters.of[to as usize] == c as u32
                {
                    f = f.fix(Fix::Redirect {
                        from: cx.url(m),
                        to: pu.clone(),
                        status: 301,
                    });
                }
                continue;
            }
            let t = site.eff_canon[m as usize];
            let in_cluster = t != NONE && cx.clusters.of[t as usize] == c as u32;
            if t != p && ((t == NONE && m == p) || in_cluster) {
                f = f.fix(Fix::SetCanonical {
                    page: cx.url(m),
                    href: pu.clone(),
                });
            }
            if m != p {
                for sm in cx.sitemaps_of(m) {
                    f = f.fix(Fix::SitemapReplace {
                        sitemap: sm,
                        loc: cx.url(m),
                        with: pu.clone(),
                    });
                }
            }
        }
        out.push(f);
    }
}

#[cfg(test)]
mod tests {
    use super::{differing_params, differing_parts};

    #[test]
    fn parts_that_differ_are_whole_words_with_numbers_as_hash() {
        let d = |a: &str, b: &str| differing_parts(a, b);
        assert_eq!(
            d("/post/comment-page-2/", "/post/"),
            ("comment-page-#/".into(), "".into())
        );
        assert_eq!(
            d("/post-b/comment-page-13/", "/post-b/"),
            ("comment-page-#/".into(), "".into())
        );
        assert_eq!(d("/item?id=1", "/item_1"), ("?id=".into(), "_".into()));
        assert_eq!(d("/page-12", "/page-13"), ("#".into(), "#".into()));
        assert_eq!(d("/a/print/", "/a/"), ("print/".into(), "".into()));
        assert_eq!(d("/x", "/x"), ("".into(), "".into()));
        // Never inside a character: é and è share their first byte.
        assert_eq!(
            d("/caf\u{e9}", "/caf\u{e8}"),
            ("\u{e9}".into(), "\u{e8}".into())
        );
        assert_eq!(
            d("/\u{e9}a", "/\u{e8}a"),
            ("\u{e9}".into(), "\u{e8}".into())
        );
    }

    #[test]
    fn parameters_that_differ_by_presence_or_value() {
        let d = |a: &str, b: Option<&str>| differing_params(Some(a), b);
        assert_eq!(d("utm_source=a&id=1", Some("id=1")), ["utm_source"]);
        assert_eq!(d("b=2&a=1", Some("a=1&b=2")), Vec::<String>::new());
        assert_eq!(d("sort=asc&x", Some("sort=desc")), ["sort", "x"]);
        assert_eq!(d("sid=9", None), ["sid"]);
    }
}
