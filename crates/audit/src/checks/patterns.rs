//! Findings about links that follow one URL pattern become one finding: internal links
//! to 64 URLs that each redirect to the same page with a capital first letter are one
//! problem (the template or the editor that writes them), with one fix, not 64 lines.
//! A pattern is how the linked URL differs from where it leads: a URL variant (letter
//! case, slash, index file, parameters, host, scheme) or the part where the two differ,
//! numbers written `#`. Each URL stays listed in the finding and in
//! `links_to_non_preferred.csv`.

use super::Ctx;
use super::duplicate::differing_parts;
use crate::finding::{Finding, FindingId, Fix};
use crate::urlparts::{Variant, split, variant};
use crate::wording;
use std::collections::BTreeMap;

/// At least this many findings of one kind and pattern become one.
const MIN_GROUP: usize = 3;

/// Kinds whose findings name a linked URL and where it leads (`urls[0]`, `urls[1]`),
/// and whose fix is to change the links.
const GROUPED: [FindingId; 2] = [FindingId::LinkToRedirect, FindingId::CanonLinked];

/// Replaces findings of [`GROUPED`] kinds that share a pattern by one finding each.
pub(super) fn group(cx: &Ctx<'_, '_>, findings: &mut Vec<Finding>) {
    let mut groups: BTreeMap<(FindingId, String), (String, Vec<usize>)> = BTreeMap::new();
    for (k, f) in findings.iter().enumerate() {
        // A template link is already one finding with its one fix.
        if !GROUPED.contains(&f.id)
            || f.fixes
                .iter()
                .any(|x| matches!(x, Fix::UpdateTemplateLink { .. }))
        {
            continue;
        }
        let [from, to, ..] = f.urls.as_slice() else {
            continue;
        };
        let (key, words) = pattern(cx, from, to);
        groups
            .entry((f.id, key))
            .or_insert_with(|| (words, Vec::new()))
            .1
            .push(k);
    }
    let mut drop = vec![false; findings.len()];
    let mut grouped = Vec::new();
    for ((id, key), (words, members)) in groups {
        if members.len() < MIN_GROUP {
            continue;
        }
        for &k in &members {
            drop[k] = true;
        }
        let list: Vec<&Finding> = members.iter().map(|&k| &findings[k]).collect();
        grouped.push(one_for_all(cx, id, &key, &words, &list));
    }
    let mut k = 0;
    findings.retain(|_| {
        k += 1;
        !drop[k - 1]
    });
    findings.extend(grouped);
}

/// The pattern of a linked URL and where it leads: a key and words.
pub(super) fn pattern(cx: &Ctx<'_, '_>, from: &str, to: &str) -> (String, String) {
    let (a, b) = (split(from), split(to));
    let host = a.host.to_ascii_lowercase();
    let words = match variant(from, to, &cx.site.cfg.policy.directory_indexes) {
        Some(Variant::Case) => Some("in another letter case"),
        Some(Variant::Slash) => Some("with another slash form"),
        Some(Variant::Index) => Some("at an index file"),
        Some(Variant::Param) => Some("with other query parameters"),
        Some(Variant::Host) => Some("on another host name"),
        Some(Variant::Scheme) => Some("over the other scheme"),
        None => None,
    };
    if let Some(w) = words {
        return (format!("{host} {w}"), format!("{w}, on {host}"));
    }
    let (x, y) = differing_parts(&from[a.origin_end..], &to[b.origin_end..]);
    let words = match (x.is_empty(), y.is_empty()) {
        (false, true) => format!("with an extra `{x}` the URL they lead to has not, on {host}"),
        (true, false) => format!("without the `{y}` of the URL they lead to, on {host}"),
        _ => format!("with `{x}` where the URL they lead to has `{y}`, on {host}"),
    };
    (format!("{host} {x} -> {y}"), words)
}

/// One finding for the findings of one kind and pattern.
fn one_for_all(
    cx: &Ctx<'_, '_>,
    id: FindingId,
    key: &str,
    words: &str,
    list: &[&Finding],
) -> Finding {
    let n = list.len();
    let what = match id {
        FindingId::CanonLinked => "declare another URL canonical",
        _ => "redirect",
    };
    let mut f = Finding::new(
        id,
        &[&format!("pattern {key}")],
        format!("Internal links point to {n} URLs {words}, which {what}."),
    )
    .urls(
        list.iter()
            .take(cx.site.cfg.max_listed)
            .map(|f| f.urls[0].clone()),
    );
    if n > cx.site.cfg.max_listed {
        f = f.evidence(format!(
            "{} listed here, {} more in links_to_non_preferred.csv",
            wording::count(cx.site.cfg.max_listed, "URL is", "URLs are"),
            n - cx.site.cfg.max_listed
        ));
    }
    for e in list.iter().take(3) {
        f = f.evidence(format!("for example: {}", e.summary));
    }
    // A temporary redirect's links stay (see the redirect check): no fix when one of
    // the pattern's URLs redirects temporarily.
    let first = list[0];
    if list.iter().any(|f| f.fixes.is_empty()) {
        return f;
    }
    f.fix(Fix::UpdateLinksForPattern {
        pattern: words.to_owned(),
        urls: n as u32,
        example: [first.urls[0].clone(), first.urls[1].clone()],
    })
}
