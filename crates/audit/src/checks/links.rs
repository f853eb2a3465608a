//! Internal links to broken URLs. Links only: a URL a page declares (shortlink,
//! og:url, ...) that answers an error is no link to change (see
//! [`LinkKind`](crate::input::LinkKind)).

use super::Ctx;
use crate::dust::RuleStatus;
use crate::finding::{Finding, FindingId, Fix};
use crate::wording;
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
        if site.external[f as usize] || site.made_up[f as usize] {
            continue;
        }
        if let Some(list) = anchors.get_mut(&t) {
            let text = a.text.trim();
            if list.len() < MAX_ANCHORS && !list.contains(&text) {
                list.push(text);
            }
        }
    }
    let slotted = template_slots(cx, &broken, &anchors, out);
    for t in broken {
        if slotted.contains(&t) {
            continue;
        }
        let url = cx.url(t);
        let (pages, more_pages) = cx.linking_pages(t);
        let n = cx.linkers(t).len() as u32;
        let (who, template) = cx.who_links(t);
        let mut f = Finding::new(
            FindingId::LinkBroken,
            &[&url],
            format!(
                "{who} {} to {url}, which {}.",
                wording::link_verb(&who),
                wording::answer(&site.describe(t))
            ),
        )
        .urls([url.clone()])
        .evidence(format!("{url} {}", cx.response(t)))
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

/// Broken URLs of one slot of the site's template are one finding: many pages each
/// link their own URL under one path, with one anchor text, in one region of the page
/// (a wiki's "What links here" in its sidebar, each to the page's own special page).
const SLOT_MIN: usize = 5;

/// Finds the template slots among the broken URLs, pushes one finding for each, and
/// returns the URLs they cover.
fn template_slots(
    cx: &Ctx<'_, '_>,
    broken: &[u32],
    anchors: &FxHashMap<u32, Vec<&str>>,
    out: &mut Vec<Finding>,
) -> rustc_hash::FxHashSet<u32> {
    let site = cx.site;
    let ids: FxHashMap<crate::UrlId, u32> = broken
        .iter()
        .filter(|&&t| cx.template_link(t).is_none())
        .map(|&t| (site.id(t), t))
        .collect();
    // Where in the pages each broken URL is linked.
    let mut regions: FxHashMap<u32, FxHashMap<Option<crate::LinkRegion>, u32>> =
        FxHashMap::default();
    for l in site.input.links.iter().filter(|l| !l.kind.is_declared()) {
        if site.idx(l.from).is_some_and(|f| site.made_up[f as usize]) {
            continue;
        }
        if let Some(&t) = l.to.and_then(|to| ids.get(&to)) {
            *regions.entry(t).or_default().entry(l.region).or_default() += 1;
        }
    }
    type Slot = (String, String, Option<crate::LinkRegion>);
    let mut slots: std::collections::BTreeMap<Slot, Vec<u32>> = Default::default();
    for (&t, by_region) in &regions {
        let Some(anchor) = anchors
            .get(&t)
            .and_then(|a| a.first())
            .filter(|a| !a.is_empty())
        else {
            continue;
        };
        let Some((&region, _)) = by_region.iter().max_by_key(|&(r, n)| (*n, *r)) else {
            continue;
        };
        let url = site.url(t);
        let parent = &url[..url.rfind('/').map_or(url.len(), |i| i + 1)];
        slots
            .entry(((*anchor).to_owned(), parent.to_owned(), region))
            .or_default()
            .push(t);
    }
    let mut covered = rustc_hash::FxHashSet::default();
    for ((anchor, parent, region), mut targets) in slots {
        if targets.len() < SLOT_MIN {
            continue;
        }
        targets.sort_by(|&a, &b| site.url(a).cmp(site.url(b)));
        let mut pages: Vec<u32> = targets.iter().flat_map(|&t| cx.linkers(t)).collect();
        pages.sort_unstable();
        pages.dedup();
        let place = wording::template_place(region);
        let n = targets.len();
        let mut f = Finding::new(
            FindingId::LinkBroken,
            &[&format!("slot \"{anchor}\" {parent}")],
            format!(
                "The \"{anchor}\" link in the site's {place} leads to an error on {}: \
                 each links its own URL under {parent}, and {n} of them do not answer 200.",
                wording::count(pages.len(), "page", "pages")
            ),
        )
        .urls(targets.iter().take(site.cfg.max_listed).map(|&t| cx.url(t)));
        for &t in targets.iter().take(3) {
            f = f.evidence(format!(
                "for example {} {}, linked from {}",
                site.url(t),
                cx.response(t),
                cx.linkers(t).first().map_or("", |&p| site.url(p))
            ));
        }
        out.push(f.fix(Fix::UpdateTemplateLink {
            from: format!("{parent}…"),
            to: None,
            pages: pages.len() as u32,
            anchor: Some(anchor),
            region,
        }));
        covered.extend(targets);
    }
    covered
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
