//! rel=canonical problems, page by page.

use super::Ctx;
use crate::finding::{Finding, FindingId, Fix};
use crate::input::DeclarationSource;
use crate::site::NONE;
use crate::urlparts::{is_absolute_http, paginated, split};
use crate::wording;
use rustc_hash::FxHashSet;

pub(super) fn check(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    let mut loops_done: FxHashSet<u32> = FxHashSet::default();
    let mut unrelated = Vec::new();
    for i in 0..site.n as u32 {
        // A URL Dustpan made up (a URL-variant probe, a page found through one) is
        // evidence about the server's rules, which the VARIANT-* findings state: its
        // canonical is no problem of the site's (the site's IP address serving the site
        // with a canonical to its name is the server's rule, not a syndicated copy).
        if !site.serves(i) || site.made_up[i as usize] || site.canonicals(i).next().is_none() {
            continue;
        }
        declarations(cx, i, out);
        let t = site.eff_canon[i as usize];
        if t == NONE || t == i {
            continue;
        }
        let disagrees = cx.graph.disagreeing_canonical(i);
        if let Some(f) = target_problem(cx, i, t, &mut loops_done, disagrees) {
            if f.id == FindingId::CanonToUnrelated {
                unrelated.push((i, f));
            } else {
                out.push(f);
            }
        }
        // A canonical the content contradicts is a mistake of the page, not a reason
        // to change the links to it.
        if disagrees.is_none() {
            linked(cx, i, t, out);
        }
    }
    by_template(cx, unrelated, out);
}

/// At least this many pages whose canonicals name pages with other content, in one URL
/// pattern, are one finding: one template writes them.
const MIN_TEMPLATE_GROUP: usize = 3;

/// Groups `CANON-TO-UNRELATED` findings by the pattern of page and target (page N of a
/// listing naming page 1: an extra `page/#/`): one finding and one template fix per
/// pattern of at least [`MIN_TEMPLATE_GROUP`] pages; the rest stay one per page.
fn by_template(cx: &Ctx<'_, '_>, findings: Vec<(u32, Finding)>, out: &mut Vec<Finding>) {
    let mut groups: std::collections::BTreeMap<String, (String, Vec<(u32, Finding)>)> =
        std::collections::BTreeMap::new();
    for (i, f) in findings {
        let (key, words) = match f.urls.as_slice() {
            [page, target, ..] => super::patterns::pattern(cx, page, target),
            _ => (String::new(), String::new()),
        };
        groups
            .entry(key)
            .or_insert_with(|| (words, Vec::new()))
            .1
            .push((i, f));
    }
    for (key, (words, list)) in groups {
        if list.len() < MIN_TEMPLATE_GROUP || key.is_empty() {
            out.extend(list.into_iter().map(|(_, f)| f));
            continue;
        }
        let stranded = stranded(cx, &list);
        let list: Vec<Finding> = list.into_iter().map(|(_, f)| f).collect();
        let n = list.len();
        let pages: Vec<String> = list.iter().map(|f| f.urls[0].clone()).collect();
        let listings = list.iter().all(|f| paginated(&f.urls[0]));
        let words = words.replace("the URL they lead to", "the URL they name");
        let summary = if listings {
            format!(
                "{n} pages of paginated listings name page 1 (or another page with other \
                 content) as their canonical: pages {words}."
            )
        } else {
            format!("{n} pages name a page with other content as their canonical: pages {words}.")
        };
        // The pages only these pages link to: a search engine told to drop the listing
        // pages may never find them.
        let mut g = Finding::new(
            FindingId::CanonToUnrelated,
            &[&format!("pattern {key}")],
            summary,
        )
        .urls(pages.iter().take(cx.site.cfg.max_listed).cloned());
        if n > cx.site.cfg.max_listed {
            g = g.evidence(format!(
                "{} listed here, {} more in canonicals_to_set.csv",
                wording::count(cx.site.cfg.max_listed, "page is", "pages are"),
                n - cx.site.cfg.max_listed
            ));
        }
        g = g.evidence(
            "search engines ignore a canonical between pages whose main content differs, \
             and may drop the page as a duplicate of the one it names"
                .to_owned(),
        );
        for f in list.iter().take(3) {
            g = g.evidence(format!("for example: {}", f.summary));
        }
        if stranded > 0 {
            g = g.evidence(format!(
                "{} linked only from these pages",
                wording::count(stranded as usize, "page is", "pages are")
            ));
        }
        out.push(g.fix(Fix::SelfCanonicalForPattern {
            pattern: words,
            example: [list[0].urls[0].clone(), list[0].urls[1].clone()],
            pages,
        }));
    }
}

/// Pages whose every internal link comes from the pages of `list`.
fn stranded(cx: &Ctx<'_, '_>, list: &[(u32, Finding)]) -> u32 {
    let site = cx.site;
    let sources: FxHashSet<u32> = list.iter().map(|&(i, _)| i).collect();
    (0..site.n as u32)
        .filter(|&j| !sources.contains(&j) && site.serves(j))
        .filter(|&j| {
            let from = site.linked_from(j);
            !from.is_empty() && from.iter().all(|x| sources.contains(x))
        })
        .count() as u32
}

/// The page's target fix: the preferred URL of its cluster if it serves and is not
/// `avoid`, else the page itself.
fn better_target(cx: &Ctx<'_, '_>, i: u32, avoid: u32) -> u32 {
    let p = cx.clusters.preferred_of(i);
    if p != avoid && cx.site.serves(p) {
        p
    } else {
        i
    }
}

fn declarations(cx: &Ctx<'_, '_>, i: u32, out: &mut Vec<Finding>) {
    let site = cx.site;
    let page = cx.url(i);
    let decls: Vec<_> = site.canonicals(i).collect();
    if let Some(bad) = decls
        .iter()
        .find(|c| c.target.and_then(|t| site.idx(t)).is_none())
    {
        let to = better_target(cx, i, NONE);
        out.push(
            Finding::new(
                FindingId::CanonInvalid,
                &[&page],
                format!("{page} declares a canonical that is not a valid http(s) URL."),
            )
            .urls([page.clone()])
            .evidence(format!(
                "href {:?} ({})",
                bad.href_raw,
                source_name(bad.source)
            ))
            .fix(Fix::SetCanonical {
                page: page.clone(),
                href: cx.url(to),
            }),
        );
    }
    if let Some(bad) = decls
        .iter()
        .find(|c| c.source == DeclarationSource::LinkElement && !c.in_head)
    {
        out.push(
            Finding::new(
                FindingId::CanonOutsideHead,
                &[&page],
                format!("{page} has its canonical element in the <body>, where it is ignored."),
            )
            .urls([page.clone()])
            .evidence(format!(
                "<link rel=\"canonical\" href={:?}> outside <head>",
                site.href(bad)
            ))
            .fix(Fix::MoveCanonicalToHead { page: page.clone() }),
        );
    }
    let valid: Vec<_> = decls
        .iter()
        .filter(|c| c.source == DeclarationSource::HttpHeader || c.in_head)
        .filter_map(|c| c.target.and_then(|t| site.idx(t)).map(|t| (*c, t)))
        .collect();
    if let Some((rel, t)) = valid.iter().find(|(c, _)| !is_absolute_http(site.href(c))) {
        out.push(
            Finding::new(
                FindingId::CanonRelative,
                &[&page],
                format!(
                    "{page} declares its canonical with the relative href {:?}.",
                    site.href(rel)
                ),
            )
            .urls([page.clone(), cx.url(*t)])
            .evidence(format!(
                "href {:?} resolves to {}",
                site.href(rel),
                site.url(*t)
            ))
            .fix(Fix::SetCanonical {
                page: page.clone(),
                href: cx.url(*t),
            }),
        );
    }
    let mut targets: Vec<u32> = valid.iter().map(|&(_, t)| t).collect();
    targets.sort_unstable();
    targets.dedup();
    if targets.len() > 1 {
        let keep = {
            let p = cx.clusters.preferred_of(i);
            if targets.contains(&p) { p } else { targets[0] }
        };
        let mut f = Finding::new(
            FindingId::CanonConflict,
            &[&page],
            format!(
                "{page} declares {} different canonical URLs.",
                targets.len()
            ),
        )
        .urls(std::iter::once(page.clone()).chain(targets.iter().map(|&t| cx.url(t))));
        for (c, t) in &valid {
            f = f.evidence(format!("{} says {}", source_name(c.source), site.url(*t)));
        }
        f = f.fix(Fix::SetCanonical {
            page: page.clone(),
            href: cx.url(keep),
        });
        for (c, t) in &valid {
            if *t != keep {
                f = f.fix(Fix::RemoveCanonical {
                    page: page.clone(),
                    href: site.href(c).to_owned(),
                });
            }
        }
        out.push(f);
    } else {
        let elements: Vec<_> = valid
            .iter()
            .filter(|(c, _)| c.source == DeclarationSource::LinkElement)
            .collect();
        if elements.len() > 1 {
            let mut f = Finding::new(
                FindingId::CanonMultiple,
                &[&page],
                format!(
                    "{page} has {} canonical elements (all naming the same URL).",
                    elements.len()
                ),
            )
            .urls([page.clone()])
            .evidence(format!(
                "{} <link rel=\"canonical\"> elements",
                elements.len()
            ));
            for (c, _) in elements.iter().skip(1) {
                f = f.fix(Fix::RemoveCanonical {
                    page: page.clone(),
                    href: site.href(c).to_owned(),
                });
            }
            out.push(f);
        }
    }
}

fn source_name(s: DeclarationSource) -> &'static str {
    match s {
        DeclarationSource::LinkElement => "the link element",
        DeclarationSource::HttpHeader => "the HTTP Link header",
    }
}

/// A page's canonical declaration naming another URL, as the checks of its target read
/// it.
struct Declaration<'c, 's, 'a> {
    cx: &'c Ctx<'s, 'a>,
    /// The declaring page, by index.
    i: u32,
    /// The URL it names, by index.
    t: u32,
    /// The declaring page's URL.
    page: String,
    /// The URL it names.
    target: String,
}

impl Declaration<'_, '_, '_> {
    /// A finding about the declaration: both URLs, and the declaration as evidence.
    fn finding(&self, id: FindingId, summary: String) -> Finding {
        let (page, target) = (&self.page, &self.target);
        Finding::new(id, &[page], summary)
            .urls([page.clone(), target.clone()])
            .evidence(format!("{page} declares {target} canonical"))
    }
}

fn target_problem(
    cx: &Ctx<'_, '_>,
    i: u32,
    t: u32,
    loops_done: &mut FxHashSet<u32>,
    unrelated: Option<(u32, f64)>,
) -> Option<Finding> {
    let site = cx.site;
    let d = Declaration {
        cx,
        i,
        t,
        page: cx.url(i),
        target: cx.url(t),
    };
    let (page, target) = (&d.page, &d.target);
    if site.hops[t as usize].is_some() {
        return Some(to_redirect(&d, unrelated));
    }
    if site.fetch(t).is_some() && site.error(t) {
        return Some(to_error(&d));
    }
    if site.blocked[t as usize] {
        return Some(to_blocked(&d));
    }
    if site.serves(t) && site.noindex(t) {
        return Some(to_noindex(&d));
    }
    if site.serves(t) {
        let u = site.eff_canon[t as usize];
        if u != NONE && u != t {
            return chain(&d, u, loops_done);
        }
    }
    let (pp, tp) = (split(page), split(target));
    let preferred_scheme = site.preferred_scheme.unwrap_or(pp.scheme);
    if tp.scheme != preferred_scheme && site.same_site(i, t) {
        let fixed = format!("{preferred_scheme}{}", &target[tp.scheme.len()..]);
        return Some(
            d.finding(
                FindingId::CanonCrossScheme,
                format!(
                    "The canonical of {page} uses {}, but the site serves {preferred_scheme}.",
                    tp.scheme
                ),
            )
            .fix(Fix::SetCanonical {
                page: page.clone(),
                href: fixed,
            }),
        );
    }
    if !site.same_site(i, t) {
        return Some(cross_host(&d));
    }
    if let Some((ut, similarity)) = unrelated
        && ut == t
        && site.hops[t as usize].is_none()
    {
        return Some(
            d.finding(
                FindingId::CanonToUnrelated,
                format!("The canonical of {page} points at {target}, whose main content differs."),
            )
            .evidence(format!(
                "their main contents are {}% similar",
                crate::cluster::percent(similarity)
            ))
            .fix(Fix::SetCanonical {
                page: page.clone(),
                href: page.clone(),
            }),
        );
    }
    None
}

/// The canonical names a URL that redirects: name where the redirect leads, or the page
/// itself when that page's content differs.
fn to_redirect(d: &Declaration<'_, '_, '_>, unrelated: Option<(u32, f64)>) -> Finding {
    let (cx, i, t) = (d.cx, d.i, d.t);
    let (page, target) = (&d.page, &d.target);
    let mut f = d
        .finding(
            FindingId::CanonToRedirect,
            format!("The canonical of {page} points at {target}, which redirects."),
        )
        .evidence(cx.hop_line(t));
    // The page the redirect leads to, unless its content differs from this page's:
    // then the canonical was wrong from the start and the page names itself.
    let to = match unrelated {
        Some((_, s)) => {
            f = f.evidence(format!(
                "the page it leads to has other content: their main contents are {}% similar",
                crate::cluster::percent(s)
            ));
            i
        }
        None => cx.live_final(t).unwrap_or_else(|| better_target(cx, i, t)),
    };
    f.fix(Fix::SetCanonical {
        page: page.clone(),
        href: cx.url(to),
    })
}

/// The canonical names a URL that answers an error.
fn to_error(d: &Declaration<'_, '_, '_>) -> Finding {
    let (cx, i, t) = (d.cx, d.i, d.t);
    let (page, target) = (&d.page, &d.target);
    let to = better_target(cx, i, t);
    d.finding(
        FindingId::CanonToError,
        format!(
            "The canonical of {page} points at {target}, which {}.",
            cx.response(t)
        ),
    )
    .evidence(format!("{target} {}", cx.response(t)))
    .fix(Fix::SetCanonical {
        page: page.clone(),
        href: cx.url(to),
    })
}

/// The canonical names a URL robots.txt blocks.
fn to_blocked(d: &Declaration<'_, '_, '_>) -> Finding {
    let (page, target) = (&d.page, &d.target);
    d.finding(
        FindingId::CanonToBlocked,
        format!("The canonical of {page} points at {target}, which robots.txt blocks."),
    )
    .evidence(format!("{target} is blocked by robots.txt"))
    .fix(Fix::AllowInRobots {
        url: target.clone(),
    })
}

/// The canonical names a noindex page, which takes the declaring page out of the index
/// with it.
fn to_noindex(d: &Declaration<'_, '_, '_>) -> Finding {
    let (cx, i, t) = (d.cx, d.i, d.t);
    let (page, target) = (&d.page, &d.target);
    // The noindex is an explicit directive; the canonical is what takes the page
    // out of the index with it. Point the canonical at an indexable URL (the
    // cluster's preferred one, else the page itself), keeping the target's noindex.
    let to = better_target(cx, i, t);
    let href = cx.url(to);
    d.finding(
            FindingId::CanonToNoindex,
            format!(
                "The canonical of {page} points at {target}, which is noindex, so {page} leaves the index too; point it at {href}, or remove the noindex if {target} should be indexed."
            ),
        )
        .evidence(format!("{target} carries noindex"))
        .fix(Fix::SetCanonical {
            page: page.clone(),
            href,
        })
}

/// The canonical names a page on another host.
fn cross_host(d: &Declaration<'_, '_, '_>) -> Finding {
    let (site, i, t) = (d.cx.site, d.i, d.t);
    let (page, target) = (&d.page, &d.target);
    let tp = split(target);
    // Same text on both sides: a syndicated copy pointing at its original, which is
    // what the canonical is for; there is nothing to change if that is intended.
    let same_text = match (site.content(i), site.content(t)) {
        (Some(a), Some(b)) => {
            a.text_hash == b.text_hash
                || matches!((a.simhash, b.simhash), (Some(x), Some(y))
                    if crate::site::distance(x, y) <= site.cfg.near_distance)
        }
        _ => false,
    };
    let f = d.finding(
        FindingId::CanonCrossHost,
        if same_text {
            format!(
                "The canonical of {page} points at another host, {}, whose page has the same text: a syndicated copy; keep it if that is intended.",
                tp.host
            )
        } else {
            format!(
                "The canonical of {page} points at another host, {}; unless the page is syndicated from there, make it self-canonical.",
                tp.host
            )
        },
    );
    if same_text {
        f.evidence(format!("{target} has the same text"))
    } else {
        f.fix(Fix::SetCanonical {
            page: page.clone(),
            href: page.clone(),
        })
    }
}

/// The canonical names a page that declares another canonical, `u`: a loop reported
/// once (by its first URL, in `loops_done`), or the chain's end named directly.
fn chain(d: &Declaration<'_, '_, '_>, u: u32, loops_done: &mut FxHashSet<u32>) -> Option<Finding> {
    let (cx, site, i, t) = (d.cx, d.cx.site, d.i, d.t);
    let (page, target) = (&d.page, &d.target);
    // Follow the chain: a loop, or its end.
    let mut path = vec![i, t];
    let mut cur = u;
    loop {
        if let Some(at) = path.iter().position(|&x| x == cur) {
            let cycle = &path[at..];
            if at != 0 {
                return None;
            }
            let first = *cycle.iter().min_by_key(|&&x| site.url(x))?;
            if !loops_done.insert(first) {
                return None;
            }
            return Some(canon_loop(cx, cycle));
        }
        path.push(cur);
        let next = site.eff_canon[cur as usize];
        if next == NONE || next == cur || !site.serves(cur) || path.len() > 32 {
            break;
        }
        cur = next;
    }
    let last = *path.last()?;
    let end = if site.serves(last) {
        last
    } else {
        better_target(cx, i, last)
    };
    let mut f = d.finding(
        FindingId::CanonChain,
        format!("The canonical of {page} points at {target}, which declares another canonical."),
    );
    for w in path.windows(2).skip(1) {
        f = f.evidence(format!(
            "{} declares {} canonical",
            site.url(w[0]),
            site.url(w[1])
        ));
    }
    Some(f.urls([cx.url(end)]).fix(Fix::SetCanonical {
        page: page.clone(),
        href: cx.url(end),
    }))
}

fn canon_loop(cx: &Ctx<'_, '_>, cycle: &[u32]) -> Finding {
    let site = cx.site;
    let mut sorted: Vec<u32> = cycle.to_vec();
    sorted.sort_by(|&a, &b| site.url(a).cmp(site.url(b)));
    let first = cx.url(sorted[0]);
    let target = {
        let p = cx.clusters.preferred_of(sorted[0]);
        if site.serves(p) { p } else { sorted[0] }
    };
    let mut f = Finding::new(
        FindingId::CanonLoop,
        &[&first],
        format!("{} pages name each other canonical in a loop.", cycle.len()),
    )
    .urls(cycle.iter().map(|&x| cx.url(x)));
    for (k, &x) in cycle.iter().enumerate() {
        let y = cycle[(k + 1) % cycle.len()];
        f = f.evidence(format!(
            "{} declares {} canonical",
            site.url(x),
            site.url(y)
        ));
    }
    for &x in &sorted {
        f = f.fix(Fix::SetCanonical {
            page: cx.url(x),
            href: cx.url(target),
        });
    }
    f
}

/// Internal links to a page that declares another URL canonical.
fn linked(cx: &Ctx<'_, '_>, i: u32, t: u32, out: &mut Vec<Finding>) {
    let site = cx.site;
    if !site.indexable(t) || site.eff_canon[t as usize] != t && site.eff_canon[t as usize] != NONE {
        return;
    }
    // A sort or filter control, a reply link: the canonical is the fix, the link stays.
    if cx.control_link(i) {
        return;
    }
    let from: Vec<u32> = cx.linkers(i).into_iter().filter(|&x| x != t).collect();
    if from.is_empty() {
        return;
    }
    let (page, target) = (cx.url(i), cx.url(t));
    let (pages, more_pages) = cx.pages(&from);
    let (who, template) = cx.who_links(i);
    let fix = match template {
        Some(tl) => Fix::UpdateTemplateLink {
            from: page.clone(),
            to: Some(target.clone()),
            pages: tl.pages,
            anchor: tl.anchor,
            region: tl.region,
        },
        None => Fix::UpdateLinks {
            pages,
            more_pages,
            from: page.clone(),
            to: target.clone(),
        },
    };
    out.push(
        Finding::new(
            FindingId::CanonLinked,
            &[&page],
            format!(
                "{who} {} to {page}, which declares {target} canonical.",
                wording::link_verb(&who)
            ),
        )
        .urls([page.clone(), target.clone()])
        .evidence(format!("{page} declares {target} canonical"))
        .evidence(super::duplicate::pages_link(from.len() as u32, &page))
        .fix(fix),
    );
}
