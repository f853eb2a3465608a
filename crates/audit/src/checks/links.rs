//! Internal links to broken URLs.

use super::Ctx;
use crate::dust::RuleStatus;
use crate::finding::{Finding, FindingId, Fix};
use rustc_hash::FxHashMap;

/// Distinct anchor texts shown per broken URL.
const MAX_ANCHORS: usize = 3;

pub(super) fn check(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    let broken: Vec<u32> = (0..site.n as u32)
        .filter(|&t| {
            !site.external[t as usize]
                && site.hops[t as usize].is_none()
                && site.error(t)
                && !cx.linkers(t).is_empty()
        })
        .collect();
    if broken.is_empty() {
        return;
    }
    let mut anchors: FxHashMap<u32, Vec<&str>> = broken.iter().map(|&t| (t, Vec::new())).collect();
    for a in &site.input.anchors {
        let (Some(f), Some(t)) = (site.idx(a.from), site.idx(a.to)) else {
            continue;
        };
        if site.external[f as usize] {
            continue;
        }
        if let Some(list) = anchors.get_mut(&t) {
            let text = a.text.trim();
            if list.len() < MAX_ANCHORS && !list.contains(&text) {
                list.push(text);
            }
        }
    }
    for t in broken {
        let url = cx.url(t);
        let (pages, more_pages) = cx.linking_pages(t);
        let n = cx.linkers(t).len() as u32;
        let (who, template) = cx.who_links(t);
        let mut f = Finding::new(
            FindingId::LinkBroken,
            &[&url],
            format!(
                "{who} {} to {url}, which {}.",
                super::link_verb(&who),
                super::answer(&site.describe(t))
            ),
        )
        .urls([url.clone()])
        .evidence(format!("{url} {}", site.describe(t)))
        .evidence(super::duplicate::pages_link(n, &url));
        let shown: Vec<String> = anchors
            .get(&t)
            .map(|a| {
                a.iter()
                    .map(|s| {
                        if s.is_empty() {
                            "(no text)".to_owned()
                        } else {
                            format!("\"{s}\"")
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        if !shown.is_empty() {
            f = f.evidence(format!("anchor text: {}", shown.join(", ")));
        }
        f = match (replacement(cx, t), template) {
            (Some((to, how)), Some(tl)) => f.evidence(how).fix(Fix::UpdateTemplateLink {
                from: url,
                to: Some(cx.url(to)),
                pages: tl.pages,
                anchor: tl.anchor,
                region: tl.region,
            }),
            (Some((to, how)), None) => f.evidence(how).fix(Fix::UpdateLinks {
                pages,
                more_pages,
                from: url,
                to: cx.url(to),
            }),
            (None, Some(tl)) => f.fix(Fix::UpdateTemplateLink {
                from: url,
                to: None,
                pages: tl.pages,
                anchor: tl.anchor,
                region: tl.region,
            }),
            (None, None) => f.fix(Fix::RemoveLinks {
                pages,
                more_pages,
                to: url,
            }),
        };
        out.push(f);
    }
}

/// A live page the broken URL stands for: one with the same equivalence key, or the
/// target of a confirmed learned rule.
fn replacement(cx: &Ctx<'_, '_>, t: u32) -> Option<(u32, String)> {
    let site = cx.site;
    let key = cx.key(t)?;
    if let Some(a) = cx.keys.find(site, key)
        && a != t
        && site.serves(a)
    {
        return Some((a, format!("{} has the same key {key}", site.url(a))));
    }
    cx.mined
        .rules
        .iter()
        .filter(|r| r.status == RuleStatus::Confirmed)
        .find_map(|r| {
            let a = cx.keys.find(site, &r.apply(key)?)?;
            (a != t && site.serves(a)).then(|| {
                (
                    a,
                    format!("learned rule {} rewrites it to {}", r.id, site.url(a)),
                )
            })
        })
}
