//! Duplicate variants, rules that do not hold, and clusters whose signals disagree.

use super::Ctx;
use crate::cluster::{DupKind, SignalKind, percent, unsafe_rules};
use crate::finding::{Finding, FindingId, Fix};
use crate::site::{Chain, NONE};
use crate::urlparts::{Variant, is_ip, split};
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

fn duplicates(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    for (c, members) in cx.clusters.members.iter().enumerate() {
        let p = cx.clusters.preferred[c];
        if !site.serves(p) {
            continue;
        }
        for &m in &members[1..] {
            let Some(kind) = cx.clusters.kinds[m as usize] else {
                continue;
            };
            if !site.indexable(m) {
                continue;
            }
            let (mu, pu) = (cx.url(m), cx.url(p));
            let (id, how) = match kind {
                DupKind::Url(Variant::Host) if is_ip(split(&mu).host) => {
                    (FindingId::DupHost, "at the server's IP address".to_owned())
                }
                DupKind::Url(Variant::Host) => {
                    (FindingId::DupHost, "on another host name".to_owned())
                }
                DupKind::Url(Variant::Scheme) => {
                    (FindingId::DupScheme, "over the other scheme".to_owned())
                }
                DupKind::Url(Variant::Slash) => {
                    (FindingId::DupSlash, "with another slash form".to_owned())
                }
                DupKind::Url(Variant::Index) => {
                    (FindingId::DupIndex, "at its index file".to_owned())
                }
                DupKind::Url(Variant::Case) => {
                    (FindingId::DupCase, "in another letter case".to_owned())
                }
                DupKind::Url(Variant::Param) => (
                    FindingId::DupParam,
                    "with other query parameters".to_owned(),
                ),
                DupKind::Dust(r) => (
                    FindingId::DupDust,
                    format!(
                        "under another URL pattern (learned rule {})",
                        rule_id(cx, r)
                    ),
                ),
                DupKind::Content => (FindingId::DupContent, "with identical text".to_owned()),
                DupKind::Near(p) => (
                    FindingId::DupNear,
                    format!("with near-identical main content ({p}% similar)"),
                ),
            };
            let mut f = Finding::new(
                id,
                &[&mu],
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
                f = f.evidence(format!("{} internal pages link to {mu}", site.inlinks(m)));
            }
            f = match kind {
                DupKind::Url(Variant::Param) | DupKind::Content | DupKind::Near(_) => {
                    f.fix(Fix::SetCanonical {
                        page: mu.clone(),
                        href: pu.clone(),
                    })
                }
                _ => f.fix(Fix::Redirect {
                    from: mu.clone(),
                    to: pu.clone(),
                    status: 301,
                }),
            };
            if let Some(fix) = cx.update_links(m, p) {
                f = f.fix(fix);
            }
            out.push(f);
        }
    }
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
    for (a, b, s) in pairs {
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
        out.push(
            Finding::new(
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
            ))
            .fix(Fix::ReviewNearDuplicate {
                pages: [ua, ub],
                similarity,
            }),
        );
    }
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
                "The `{}` rule ({} class) gives {} pair(s) of different pages the same key.",
                rule.id(),
                rule.class(),
                pairs.len()
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
                "{:?} votes for {url} ({} of {} votes)",
                s.kind, s.votes, s.total
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
