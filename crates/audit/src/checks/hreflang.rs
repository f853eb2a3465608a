//! hreflang alternates: targets that redirect, fail, are noindex or non-preferred;
//! missing return links and self-references; invalid codes; conflicting languages and
//! x-default pages.
//!
//! Only pages that serve 2xx themselves are judged (a redirect's alternates are not
//! read by search engines), and only alternates on the audited site.

use super::Ctx;
use crate::finding::{Finding, FindingId, Fix};
use crate::site::NONE;
use crate::wording;
use std::collections::BTreeSet;

/// One declaration: the language code as written, and the target index (or NONE).
#[derive(Clone, Copy)]
struct Alt<'a> {
    lang: &'a str,
    target: u32,
}

/// Language codes that are country codes, often written where a language is meant,
/// with the language meant.
const COUNTRY_AS_LANGUAGE: &[(&str, &str)] = &[
    ("jp", "ja"),
    ("cn", "zh"),
    ("gr", "el"),
    ("dk", "da"),
    ("cz", "cs"),
    ("ua", "uk"),
    ("kr", "ko"),
    ("us", "en"),
    ("gb", "en"),
];

/// Whether the code is valid, and the code meant when it is a known mistake.
#[cfg(test)]
pub(crate) fn code_check(code: &str) -> (bool, Option<String>) {
    (lang_ok(code), suggestion(code))
}

/// Whether `code` is `x-default` or a language (ISO 639-1, two letters) with an
/// optional script (four letters) and region (ISO 3166-1 alpha-2, or UN M.49 digits).
pub(crate) fn lang_ok(code: &str) -> bool {
    suggestion(code).is_none() && shape_ok(code)
}

fn shape_ok(code: &str) -> bool {
    if code.eq_ignore_ascii_case("x-default") {
        return true;
    }
    let alpha = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_alphabetic());
    let mut parts: Vec<&str> = code.split('-').collect();
    if !alpha(parts[0], 2) {
        return false;
    }
    parts.remove(0);
    if parts.first().is_some_and(|s| alpha(s, 4)) {
        parts.remove(0);
    }
    match parts.as_slice() {
        [] => true,
        [r] => alpha(r, 2) || (r.len() == 3 && r.bytes().all(|b| b.is_ascii_digit())),
        _ => false,
    }
}

/// The code the author most likely meant, when `code` is a known mistake.
pub(crate) fn suggestion(code: &str) -> Option<String> {
    let fixed = code.replace('_', "-");
    let mut parts: Vec<String> = fixed.split('-').map(str::to_owned).collect();
    let mut changed = fixed != code;
    if let Some(&(_, lang)) = COUNTRY_AS_LANGUAGE
        .iter()
        .find(|(c, _)| parts[0].eq_ignore_ascii_case(c))
    {
        parts[0] = lang.to_owned();
        changed = true;
    }
    let many = parts.len() > 1;
    if let Some(last) = parts.last_mut()
        && many
        && last.eq_ignore_ascii_case("uk")
    {
        *last = "GB".to_owned();
        changed = true;
    }
    let out = parts.join("-");
    (changed && shape_ok(&out)).then_some(out)
}

pub(super) fn check(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    let mut rows: Vec<(u32, Alt<'_>)> = site
        .input
        .hreflang
        .iter()
        .filter_map(|h| {
            let p = site.idx(h.page)?;
            let target = h.target.and_then(|t| site.idx(t)).unwrap_or(NONE);
            Some((
                p,
                Alt {
                    lang: h.lang.trim(),
                    target,
                },
            ))
        })
        .filter(|&(p, _)| site.serves(p) && !site.external[p as usize])
        .collect();
    if rows.is_empty() {
        return;
    }
    rows.sort_by_key(|&(p, _)| p);
    let mut start = 0;
    let mut x_default_pairs: BTreeSet<(String, String)> = BTreeSet::new();
    while start < rows.len() {
        let p = rows[start].0;
        let end = start + rows[start..].partition_point(|&(q, _)| q == p);
        let alts: Vec<Alt<'_>> = rows[start..end].iter().map(|&(_, a)| a).collect();
        page(cx, &rows, p, &alts, out, &mut x_default_pairs);
        start = end;
    }
    for (a, b) in x_default_pairs {
        let (ia, ib) = (find(cx, &rows, &a), find(cx, &rows, &b));
        let (Some(xa), Some(xb)) = (
            ia.and_then(|i| x_default(&rows, i)),
            ib.and_then(|i| x_default(&rows, i)),
        ) else {
            continue;
        };
        let name = |x: u32, page: &str| match site.url(x) {
            u if u == page => "itself",
            u => u,
        };
        out.push(
            Finding::new(
                FindingId::HreflangXDefault,
                &[&a, &b],
                format!(
                    "{a} names {} as x-default, while its alternate {b} names {}.",
                    name(xa, &a),
                    name(xb, &b)
                ),
            )
            .urls([a.clone(), b.clone(), cx.url(xa), cx.url(xb)])
            .evidence(format!("{a}: x-default {}", site.url(xa)))
            .evidence(format!("{b}: x-default {}", site.url(xb)))
            .fix(Fix::SetHreflang {
                page: b,
                lang: "x-default".into(),
                href: cx.url(xa),
            }),
        );
    }
}

/// The index of the page with this URL among the declaring pages.
fn find(cx: &Ctx<'_, '_>, rows: &[(u32, Alt<'_>)], url: &str) -> Option<u32> {
    rows.iter()
        .map(|&(p, _)| p)
        .find(|&p| cx.site.url(p) == url)
}

/// The alternates declared on `p`.
fn alts_of<'r, 'a>(rows: &'r [(u32, Alt<'a>)], p: u32) -> &'r [(u32, Alt<'a>)] {
    let from = rows.partition_point(|&(q, _)| q < p);
    let to = rows.partition_point(|&(q, _)| q <= p);
    &rows[from..to]
}

/// `p`'s x-default target, when it declares exactly one.
fn x_default(rows: &[(u32, Alt<'_>)], p: u32) -> Option<u32> {
    let mut targets = alts_of(rows, p)
        .iter()
        .filter(|(_, a)| a.lang.eq_ignore_ascii_case("x-default") && a.target != NONE)
        .map(|(_, a)| a.target);
    let first = targets.next()?;
    targets.all(|t| t == first).then_some(first)
}

/// The language `p` is declared under: its own self-reference, or what another page
/// of the set calls it.
fn lang_of(rows: &[(u32, Alt<'_>)], p: u32) -> String {
    let own = alts_of(rows, p)
        .iter()
        .find(|(_, a)| a.target == p && !a.lang.eq_ignore_ascii_case("x-default"));
    let other = || {
        rows.iter()
            .find(|(_, a)| a.target == p && !a.lang.eq_ignore_ascii_case("x-default"))
    };
    own.or_else(other)
        .map_or_else(|| "(its language)".to_owned(), |(_, a)| a.lang.to_owned())
}

fn page(
    cx: &Ctx<'_, '_>,
    rows: &[(u32, Alt<'_>)],
    p: u32,
    alts: &[Alt<'_>],
    out: &mut Vec<Finding>,
    x_default_pairs: &mut BTreeSet<(String, String)>,
) {
    let site = cx.site;
    let page_url = cx.url(p);
    // Invalid codes.
    let mut seen: Vec<&str> = Vec::new();
    for a in alts {
        if lang_ok(a.lang) || seen.contains(&a.lang) {
            continue;
        }
        seen.push(a.lang);
        let mut f = Finding::new(
            FindingId::HreflangInvalidLang,
            &[&page_url, a.lang],
            format!(
                "{page_url} declares an alternate with the invalid code {:?}.",
                a.lang
            ),
        )
        .urls([page_url.clone()])
        .evidence(format!("hreflang=\"{}\"", a.lang));
        if a.target != NONE {
            let href = cx.url(a.target);
            f = f.fix(Fix::RemoveHreflang {
                page: page_url.clone(),
                lang: a.lang.to_owned(),
                href: href.clone(),
            });
            if let Some(good) = suggestion(a.lang) {
                f = f.fix(Fix::SetHreflang {
                    page: page_url.clone(),
                    lang: good,
                    href,
                });
            }
        }
        out.push(f);
    }
    // One code, several URLs.
    let mut codes: Vec<String> = alts.iter().map(|a| a.lang.to_ascii_lowercase()).collect();
    codes.sort_unstable();
    codes.dedup();
    for code in &codes {
        let mut targets: Vec<u32> = alts
            .iter()
            .filter(|a| a.lang.eq_ignore_ascii_case(code) && a.target != NONE)
            .map(|a| a.target)
            .collect();
        targets.sort_unstable();
        targets.dedup();
        if targets.len() < 2 {
            continue;
        }
        let keep = targets
            .iter()
            .copied()
            .find(|&t| site.serves(t) && cx.clusters.preferred_of(t) == t && !site.noindex(t));
        let mut f = Finding::new(
            FindingId::HreflangConflict,
            &[&page_url, code],
            format!(
                "{page_url} maps {code} to {} different URLs.",
                targets.len()
            ),
        )
        .urls(std::iter::once(page_url.clone()).chain(targets.iter().map(|&t| cx.url(t))));
        for &t in &targets {
            f = f.evidence(format!(
                "hreflang=\"{code}\" {} ({})",
                site.url(t),
                site.describe(t)
            ));
            if Some(t) != keep {
                f = f.fix(Fix::RemoveHreflang {
                    page: page_url.clone(),
                    lang: code.clone(),
                    href: cx.url(t),
                });
            }
        }
        out.push(f);
    }
    // Each target.
    let mut has_other = false;
    for a in alts {
        let t = a.target;
        if t == NONE || t == p || site.external[t as usize] {
            continue;
        }
        has_other = true;
        let t_url = cx.url(t);
        let key = [page_url.as_str(), a.lang, t_url.as_str()];
        let declared = format!("{page_url} declares hreflang=\"{}\" {t_url}", a.lang);
        if site.hops[t as usize].is_some() {
            let mut f = Finding::new(
                FindingId::HreflangToRedirect,
                &key,
                format!("The {} alternate of {page_url} redirects.", a.lang),
            )
            .urls([page_url.clone(), t_url.clone()])
            .evidence(declared)
            .evidence(cx.hop_line(t));
            if let Some(fin) = cx.live_final(t) {
                f = f.fix(Fix::SetHreflang {
                    page: page_url.clone(),
                    lang: a.lang.to_owned(),
                    href: cx.url(fin),
                });
            }
            out.push(f);
            continue;
        }
        if site.error(t) {
            out.push(
                Finding::new(
                    FindingId::HreflangToError,
                    &key,
                    format!("The {} alternate of {page_url} {}.", a.lang, cx.response(t)),
                )
                .urls([page_url.clone(), t_url.clone()])
                .evidence(declared)
                .evidence(format!("{t_url} {}", cx.response(t)))
                .fix(Fix::RemoveHreflang {
                    page: page_url.clone(),
                    lang: a.lang.to_owned(),
                    href: t_url.clone(),
                }),
            );
            continue;
        }
        if !site.serves(t) {
            continue; // not fetched (blocked, skipped): nothing to judge
        }
        if site.noindex(t) {
            out.push(
                Finding::new(
                    FindingId::HreflangToNoindex,
                    &key,
                    format!("The {} alternate of {page_url} is noindex.", a.lang),
                )
                .urls([page_url.clone(), t_url.clone()])
                .evidence(declared)
                .evidence(format!("{t_url} says noindex"))
                .fix(Fix::RemoveHreflang {
                    page: page_url.clone(),
                    lang: a.lang.to_owned(),
                    href: t_url.clone(),
                }),
            );
            continue;
        }
        let preferred = cx.clusters.preferred_of(t);
        if preferred != t {
            out.push(
                Finding::new(
                    FindingId::HreflangNonPreferred,
                    &key,
                    format!(
                        "The {} alternate of {page_url} is a duplicate of {}.",
                        a.lang,
                        site.url(preferred)
                    ),
                )
                .urls([page_url.clone(), t_url.clone(), cx.url(preferred)])
                .evidence(declared)
                .evidence(format!(
                    "{t_url} is in the cluster of {}",
                    site.url(preferred)
                ))
                .fix(Fix::SetHreflang {
                    page: page_url.clone(),
                    lang: a.lang.to_owned(),
                    href: cx.url(preferred),
                }),
            );
            continue;
        }
        if a.lang.eq_ignore_ascii_case("x-default") {
            continue; // the x-default page need not name every page back
        }
        let back = alts_of(rows, t).iter().any(|(_, b)| {
            b.target != NONE
                && (b.target == p
                    || cx.clusters.preferred_of(b.target) == cx.clusters.preferred_of(p))
        });
        if !back {
            out.push(
                Finding::new(
                    FindingId::HreflangNoReturn,
                    &[&page_url, &t_url],
                    format!("{t_url} does not name {page_url} back as an alternate."),
                )
                .urls([page_url.clone(), t_url.clone()])
                .evidence(declared)
                .evidence(if alts_of(rows, t).is_empty() {
                    format!("{t_url} declares no hreflang alternates")
                } else {
                    format!("{t_url}'s alternates do not include {page_url}")
                })
                .fix(Fix::SetHreflang {
                    page: t_url.clone(),
                    lang: lang_of(rows, p),
                    href: page_url.clone(),
                }),
            );
        } else if x_default(rows, p).is_some()
            && x_default(rows, t).is_some()
            && x_default(rows, p) != x_default(rows, t)
        {
            let pair = if page_url < t_url {
                (page_url.clone(), t_url.clone())
            } else {
                (t_url.clone(), page_url.clone())
            };
            x_default_pairs.insert(pair);
        }
    }
    // Self-reference.
    if has_other && !alts.iter().any(|a| a.target == p) {
        out.push(
            Finding::new(
                FindingId::HreflangNoSelf,
                &[&page_url],
                format!("{page_url} lists hreflang alternates but not itself."),
            )
            .urls([page_url.clone()])
            .evidence(format!(
                "{}, none to {page_url}",
                wording::count(alts.len(), "alternate", "alternates")
            ))
            .fix(Fix::SetHreflang {
                page: page_url.clone(),
                lang: lang_of(rows, p),
                href: page_url.clone(),
            }),
        );
    }
}
