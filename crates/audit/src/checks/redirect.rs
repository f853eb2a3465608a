//! Redirect problems: loops, chains, dead ends, temporary and meta refresh redirects,
//! internal links to redirects, and http pages that do not redirect to https.

use super::Ctx;
use crate::finding::{Finding, FindingId, Fix};
use crate::input::{ChainProblem, HopKind};
use crate::site::{Chain, NONE};
use crate::urlparts::{split, variant};
use crate::wording;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

pub(super) fn check(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    loops(cx, out);
    chains_and_dead_ends(cx, out);
    temporary_and_meta(cx, out);
    links_to_redirects(cx, out);
    http_not_https(cx, out);
}

fn loops(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    let mut done = vec![false; site.n];
    let mut pos: FxHashMap<u32, usize> = FxHashMap::default();
    let mut path = Vec::new();
    for s in 0..site.n as u32 {
        if site.chains[s as usize] != Chain::Loop || done[s as usize] {
            continue;
        }
        path.clear();
        pos.clear();
        let mut cur = s;
        loop {
            if done[cur as usize] {
                break;
            }
            if let Some(&at) = pos.get(&cur) {
                out.push(redirect_loop(cx, &path[at..]));
                break;
            }
            pos.insert(cur, path.len());
            path.push(cur);
            match site.hops[cur as usize] {
                Some(h) if h.to != NONE => cur = h.to,
                _ => break,
            }
        }
        for &p in &path {
            done[p as usize] = true;
        }
    }
    for row in &site.input.redirect_chains {
        let Some(s) = site.idx(row.start) else {
            continue;
        };
        if row.problem == ChainProblem::Loop && site.chains[s as usize] != Chain::Loop {
            let url = cx.url(s);
            out.push(
                Finding::new(
                    FindingId::RedirectLoop,
                    &[&url],
                    format!("The crawler followed {url} into a redirect loop."),
                )
                .urls([url.clone()])
                .evidence(format!(
                    "the crawler stopped after {} back at a URL it had visited",
                    wording::count(row.hops as usize, "hop", "hops")
                ))
                .fix(Fix::Serve { url }),
            );
        }
    }
}

fn redirect_loop(cx: &Ctx<'_, '_>, cycle: &[u32]) -> Finding {
    let site = cx.site;
    let start = (0..cycle.len())
        .min_by_key(|&k| site.url(cycle[k]))
        .unwrap_or(0);
    let ordered: Vec<u32> = cycle[start..]
        .iter()
        .chain(&cycle[..start])
        .copied()
        .collect();
    let first = cx.url(ordered[0]);
    let keep = *ordered
        .iter()
        .min_by_key(|&&x| {
            (
                std::cmp::Reverse(site.inlinks(x)),
                site.url(x).len(),
                site.url(x),
            )
        })
        .unwrap_or(&ordered[0]);
    let mut f = Finding::new(
        FindingId::RedirectLoop,
        &[&first],
        match ordered.len() {
            1 => format!("{first} redirects to itself."),
            n => format!("{n} URLs redirect to each other in a loop."),
        },
    )
    .urls(ordered.iter().map(|&x| cx.url(x)));
    for &x in &ordered {
        f = f.evidence(cx.hop_line(x));
    }
    f = f.fix(Fix::Serve { url: cx.url(keep) });
    for &x in &ordered {
        if x != keep {
            f = f.fix(Fix::Redirect {
                from: cx.url(x),
                to: cx.url(keep),
                status: 301,
            });
        }
    }
    f
}

fn chains_and_dead_ends(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    let too_long: FxHashMap<u32, u32> = site
        .input
        .redirect_chains
        .iter()
        .filter(|r| r.problem == ChainProblem::TooLong)
        .filter_map(|r| site.idx(r.start).map(|s| (s, r.hops)))
        .collect();
    let mut dead_ends = Vec::new();
    for e in 0..site.n as u32 {
        if site.hops[e as usize].is_none()
            || site.hop_target[e as usize]
            || site.external[e as usize]
        {
            continue;
        }
        let path = cx.chain_path(e);
        let url = cx.url(e);
        match site.chains[e as usize] {
            Chain::Final { to, hops } if site.error(to) => {
                let mut f = Finding::new(
                    FindingId::RedirectToError,
                    &[&url],
                    format!(
                        "{url} redirects to {}, which {}.",
                        site.url(to),
                        cx.response(to)
                    ),
                )
                .urls(path.iter().map(|&x| cx.url(x)));
                for &x in &path {
                    f = f.evidence(cx.hop_line(x));
                }
                if hops > 1 {
                    f = f.evidence(format!("{hops} hops"));
                }
                dead_ends.push(DeadEnd {
                    from: e,
                    to,
                    finding: dead_end_fixes(cx, e, to, f),
                });
            }
            Chain::Unresolved { last, .. } => {
                let mut f = Finding::new(
                    FindingId::RedirectToError,
                    &[&url],
                    if last == e {
                        format!("{url} redirects to a Location that cannot be resolved.")
                    } else {
                        format!(
                            "{url} redirects through {} to a Location that cannot be resolved.",
                            site.url(last)
                        )
                    },
                )
                .urls(path.iter().map(|&x| cx.url(x)));
                for &x in &path {
                    f = f.evidence(cx.hop_line(x));
                }
                out.push(dead_end_fixes(cx, e, last, f));
            }
            Chain::Final { to, hops } if hops >= 2 => {
                let target = cx.url(to);
                let mut f = Finding::new(
                    FindingId::RedirectChain,
                    &[&url],
                    format!("{url} reaches {target} after {hops} redirects."),
                )
                .urls(path.iter().map(|&x| cx.url(x)));
                for &x in &path[..path.len() - 1] {
                    f = f.evidence(cx.hop_line(x));
                }
                if let Some(n) = too_long.get(&e) {
                    f = f.evidence(format!(
                        "the crawler gave up after {}",
                        wording::count(*n as usize, "hop", "hops")
                    ));
                }
                for &x in &path[..path.len() - 1] {
                    f = f.fix(Fix::Redirect {
                        from: cx.url(x),
                        to: target.clone(),
                        status: 301,
                    });
                }
                out.push(f);
            }
            _ => {}
        }
    }
    group_dead_ends(cx, dead_ends, out);
}

/// A redirect to an error, before grouping.
struct DeadEnd {
    /// The redirected URL.
    from: u32,
    /// The error at the end of its chain.
    to: u32,
    finding: Finding,
}

/// At least this many redirects to errors of one pattern become one finding.
const MIN_DEAD_END_GROUP: usize = 3;

/// Redirects to errors that follow one pattern (the same change from the linked URL to
/// where it ends, the same error) and that pages link to are one problem, the template
/// or editor that writes the links, with one fix: a wiki's 14 lower-case `talk:` links
/// that redirect to missing `Talk:` pages are one finding, not 14. Each URL stays listed.
fn group_dead_ends(cx: &Ctx<'_, '_>, dead_ends: Vec<DeadEnd>, out: &mut Vec<Finding>) {
    let site = cx.site;
    let mut groups: BTreeMap<(String, String), (String, Vec<DeadEnd>)> = BTreeMap::new();
    for d in dead_ends {
        let linked = d
            .finding
            .fixes
            .iter()
            .any(|x| matches!(x, Fix::RemoveLinks { .. }));
        if !linked {
            out.push(d.finding);
            continue;
        }
        let (from, to) = (cx.url(d.from), cx.url(d.to));
        let (key, words) = super::patterns::pattern(cx, &from, &to);
        let answer = match site.fetch(d.to).and_then(|f| f.status) {
            Some(s) => s.to_string(),
            None => "no response".to_owned(),
        };
        groups
            .entry((key, answer))
            .or_insert_with(|| (words, Vec::new()))
            .1
            .push(d);
    }
    for ((key, answer), (words, members)) in groups {
        if members.len() < MIN_DEAD_END_GROUP {
            out.extend(members.into_iter().map(|d| d.finding));
            continue;
        }
        let n = members.len();
        let mut f = Finding::new(
            FindingId::RedirectToError,
            &[&format!("pattern {key} {answer}")],
            format!(
                "Internal links point to {n} URLs {words}, which redirect to error pages \
                 ({answer})."
            ),
        )
        // Every URL is listed: no other table names them.
        .urls(members.iter().map(|d| cx.url(d.from)));
        for d in members.iter().take(3) {
            f = f.evidence(format!("for example: {}", d.finding.summary));
        }
        let mut sitemap_fixes: Vec<Fix> = members
            .iter()
            .flat_map(|d| d.finding.fixes.iter())
            .filter(|x| matches!(x, Fix::SitemapRemove { .. }))
            .cloned()
            .collect();
        sitemap_fixes.sort_by_key(|x| x.to_string());
        sitemap_fixes.dedup();
        let first = &members[0];
        f = f.fix(Fix::RemoveLinksForPattern {
            pattern: words.clone(),
            urls: n as u32,
            example: [cx.url(first.from), cx.url(first.to)],
        });
        for x in sitemap_fixes {
            f = f.fix(x);
        }
        out.push(f);
    }
}

/// Fixes for a redirect that ends nowhere: stop linking and listing it, or restore the
/// target when nothing links to it.
fn dead_end_fixes(cx: &Ctx<'_, '_>, e: u32, end: u32, mut f: Finding) -> Finding {
    let site = cx.site;
    if !cx.linkers(e).is_empty() {
        let (pages, more_pages) = cx.linking_pages(e);
        f = f.fix(Fix::RemoveLinks {
            pages,
            more_pages,
            to: cx.url(e),
        });
    }
    for sitemap in cx.sitemaps_of(e) {
        f = f.fix(Fix::SitemapRemove {
            sitemap,
            loc: cx.url(e),
        });
    }
    if f.fixes.is_empty() {
        let url = if site.external[end as usize] { e } else { end };
        f = f.fix(Fix::Serve { url: cx.url(url) });
    }
    f
}

fn temporary_and_meta(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    let indexes = &site.cfg.policy.directory_indexes;
    for i in 0..site.n as u32 {
        let Some(h) = site.hops[i as usize] else {
            continue;
        };
        if h.to == NONE || site.external[i as usize] || site.external[h.to as usize] {
            continue;
        }
        let (from, to) = (cx.url(i), cx.url(h.to));
        let final_to = cx.live_final(i).map_or_else(|| to.clone(), |f| cx.url(f));
        if h.kind == HopKind::MetaRefresh {
            out.push(
                Finding::new(
                    FindingId::RedirectMetaRefresh,
                    &[&from],
                    format!("{from} sends visitors to {to} with a meta refresh."),
                )
                .urls([from.clone(), to.clone()])
                .evidence(cx.hop_line(i))
                .fix(Fix::Redirect {
                    from: from.clone(),
                    to: final_to,
                    status: 301,
                }),
            );
            continue;
        }
        if !matches!(h.status, 302 | 303 | 307) {
            continue;
        }
        let same_key = cx.key(i).is_some() && cx.key(i) == cx.key(h.to);
        let kind = variant(&from, &to, indexes);
        if kind.is_none() && !same_key {
            continue;
        }
        out.push(
            Finding::new(
                FindingId::RedirectTemporary,
                &[&from],
                format!(
                    "{from} redirects to {to} with a {}, but it is a canonical move ({}).",
                    h.status,
                    match kind {
                        Some(v) => format!("{v:?}").to_lowercase() + " variant",
                        None => "same key under the audit policy".to_owned(),
                    }
                ),
            )
            .urls([from.clone(), to.clone()])
            .evidence(cx.hop_line(i))
            .fix(Fix::Redirect {
                from: from.clone(),
                to: final_to,
                status: 301,
            }),
        );
    }
}

fn links_to_redirects(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    for i in 0..site.n as u32 {
        if site.hops[i as usize].is_none() || site.external[i as usize] {
            continue;
        }
        if cx.linkers(i).is_empty() {
            continue;
        }
        let Some(f) = cx.live_final(i) else { continue };
        let (from, to) = (cx.url(i), cx.url(f));
        let (who, _) = cx.who_links(i);
        // A temporary redirect may answer another target next time (a login, a random
        // or a localized page): its links are not to be pointed at today's target.
        let temporary = site.hops[i as usize]
            .filter(|h| h.kind == HopKind::Http && matches!(h.status, 302 | 303 | 307))
            .map(|h| h.status);
        let how = match temporary {
            Some(status) => format!("redirects temporarily ({status}), today to {to}"),
            None => format!("redirects to {to}"),
        };
        let mut finding = Finding::new(
            FindingId::LinkToRedirect,
            &[&from],
            format!("{who} {} to {from}, which {how}.", wording::link_verb(&who)),
        )
        .urls([from.clone(), to.clone()]);
        for &x in &cx.chain_path(i)[..] {
            if site.hops[x as usize].is_some() {
                finding = finding.evidence(cx.hop_line(x));
            }
        }
        if temporary.is_some() {
            finding = finding.evidence(
                "a temporary redirect may lead elsewhere on the next request: point the links \
                 at its target only if the move is permanent (and then make it a 301)"
                    .to_owned(),
            );
        } else if let Some(fix) = cx.update_links(i, f) {
            finding = finding.fix(fix);
        }
        out.push(finding);
    }
}

fn http_not_https(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    let mut https_hosts: FxHashSet<String> = FxHashSet::default();
    for i in 0..site.n as u32 {
        if let Some(h) = site.hops[i as usize]
            && h.to != NONE
            && h.kind == HopKind::Http
        {
            let (a, b) = (split(site.url(i)), split(site.url(h.to)));
            if a.scheme == "http" && b.scheme == "https" && a.host.eq_ignore_ascii_case(b.host) {
                https_hosts.insert(a.host.to_ascii_lowercase());
            }
        }
    }
    if https_hosts.is_empty() {
        return;
    }
    // http pages that answer on a host that redirects to https elsewhere, and their twins.
    let mut candidates: Vec<(u32, String)> = Vec::new();
    for i in 0..site.n as u32 {
        if !site.serves(i) || site.external[i as usize] || cx.clusters.preferred_of(i) != i {
            continue;
        }
        let url = site.url(i);
        let Some(rest) = url.strip_prefix("http://") else {
            continue;
        };
        if https_hosts.contains(&split(url).host.to_ascii_lowercase()) {
            candidates.push((i, format!("https://{rest}")));
        }
    }
    if candidates.is_empty() {
        return;
    }
    // A twin that answers too is either the same page (a DUP-SCHEME, handled by the
    // clusters) or a different one (then a redirect would be wrong).
    let twins: FxHashSet<&str> = candidates.iter().map(|(_, t)| t.as_str()).collect();
    let serving_twins: FxHashSet<&str> = (0..site.n as u32)
        .filter(|&t| site.serves(t) && twins.contains(site.url(t)))
        .map(|t| site.url(t))
        .collect();
    for (i, twin) in &candidates {
        if serving_twins.contains(twin.as_str()) {
            continue;
        }
        let from = cx.url(*i);
        let host = split(&from).host.to_ascii_lowercase();
        out.push(
            Finding::new(
                FindingId::RedirectHttpNotHttps,
                &[&from],
                format!(
                    "{from} answers {} instead of redirecting to {twin}.",
                    site.status(*i).unwrap_or(200)
                ),
            )
            .urls([from.clone(), twin.clone()])
            .evidence(format!("other http URLs on {host} redirect to https"))
            .fix(Fix::Redirect {
                from,
                to: twin.clone(),
                status: 301,
            }),
        );
    }
}
