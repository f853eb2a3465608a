//! What JavaScript changes (audits with rendering on): the rendered page beside the
//! served HTML, page by page, one finding per kind and URL pattern (the template that
//! writes the script), listing its pages.

use super::Ctx;
use crate::finding::{Finding, FindingId, Fix};
use crate::site::NONE;
use crate::wording;
use std::collections::BTreeMap;

/// Content counts as written by script when the rendered page has at least this many
/// more words than the served HTML...
const CONTENT_MIN_WORDS: u32 = 30;
/// ...and the served HTML holds at most this share of them.
const CONTENT_MAX_RAW_SHARE: f64 = 0.5;

/// A URL's template pattern: its host and its path with the last segment written `*`
/// and numbers `#` (`example.com/products/*`).
fn pattern(url: &str) -> String {
    let p = crate::urlparts::split(url);
    let path = p.path.strip_suffix('/').unwrap_or(p.path);
    let parent = path.rsplit_once('/').map_or("", |(parent, _)| parent);
    let mut out = format!("{}{}", p.host, p.port);
    for segment in parent.split('/').filter(|s| !s.is_empty()) {
        out.push('/');
        if segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push('#');
        } else {
            out.push_str(segment);
        }
    }
    out.push_str("/*");
    out
}

/// The same text, whitespace aside.
fn same_text(a: Option<&str>, b: Option<&str>) -> bool {
    let norm = |s: Option<&str>| {
        s.map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    };
    norm(a) == norm(b)
}

/// One page's line of evidence and its fixes.
struct Page {
    url: String,
    line: String,
    fixes: Vec<Fix>,
}

pub(super) fn check(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    if site.input.renders.is_empty() {
        return;
    }
    let mut groups: BTreeMap<(FindingId, String), Vec<Page>> = BTreeMap::new();
    let mut add = |id: FindingId, url: String, line: String, fixes: Vec<Fix>| {
        groups
            .entry((id, pattern(&url)))
            .or_default()
            .push(Page { url, line, fixes });
    };
    for i in 0..site.n as u32 {
        let Some(page) = site.rendered(i) else {
            continue;
        };
        let url = site.url_string(i);
        if !page.outcome.has_dom() || page.outcome == crate::RenderOutcome::Unsettled {
            let what = match page.outcome {
                crate::RenderOutcome::Unsettled => "was still loading at the deadline",
                crate::RenderOutcome::Timeout => "did not finish rendering in time",
                _ => "could not be rendered",
            };
            let line = match &page.message {
                Some(m) => format!("{url} {what} ({m})"),
                None => format!("{url} {what}"),
            };
            add(FindingId::RenderFailed, url.clone(), line, Vec::new());
        }
        if !page.outcome.has_dom() {
            continue;
        }
        let fetch = site.fetch(i);
        // Canonical: which version the clusters follow, and what the other said.
        if site.rendering.differs(i) {
            let raw = site.rendering.raw_canonical(i).unwrap_or(NONE);
            let rendered = site.eff_canon[i as usize];
            let raw_named = raw != NONE || site.canonicals(i).next().is_some();
            let name = |t: u32| {
                if t == NONE {
                    "none".to_owned()
                } else {
                    site.url_string(t)
                }
            };
            let fixes = if rendered == NONE {
                Vec::new()
            } else {
                vec![Fix::SetCanonical {
                    page: url.clone(),
                    href: site.url_string(rendered),
                }]
            };
            if raw_named {
                add(
                    FindingId::RenderCanonChanged,
                    url.clone(),
                    format!(
                        "{url}: served canonical {}, rendered canonical {} (the clusters use \
                         the rendered one)",
                        name(raw),
                        name(rendered)
                    ),
                    fixes,
                );
            } else {
                add(
                    FindingId::RenderCanonAdded,
                    url.clone(),
                    format!(
                        "{url}: no canonical in the served HTML, {} after rendering (the \
                         clusters use the rendered one)",
                        name(rendered)
                    ),
                    fixes,
                );
            }
        }
        let raw_noindex = fetch.is_some_and(|f| f.noindex);
        if page.noindex && !raw_noindex {
            add(
                FindingId::RenderNoindexAdded,
                url.clone(),
                format!("{url}: indexable as served, noindex after rendering"),
                Vec::new(),
            );
        } else if raw_noindex && !page.noindex {
            add(
                FindingId::RenderNoindexRemoved,
                url.clone(),
                format!("{url}: noindex as served, indexable after rendering"),
                Vec::new(),
            );
        }
        let raw_title = fetch.and_then(|f| f.title.as_deref());
        let raw_h1 = fetch.and_then(|f| f.h1.as_deref());
        let quote = |t: Option<&str>| t.map_or_else(|| "none".to_owned(), |t| format!("\"{t}\""));
        let mut changed = Vec::new();
        if !same_text(raw_title, page.title.as_deref()) {
            changed.push(format!(
                "title {} as served, {} after rendering",
                quote(raw_title),
                quote(page.title.as_deref())
            ));
        }
        if !same_text(raw_h1, page.h1.as_deref()) {
            changed.push(format!(
                "first heading {} as served, {} after rendering",
                quote(raw_h1),
                quote(page.h1.as_deref())
            ));
        }
        if !changed.is_empty() {
            add(
                FindingId::RenderTitleChanged,
                url.clone(),
                format!("{url}: {}", changed.join("; ")),
                Vec::new(),
            );
        }
        let raw_words = fetch.and_then(|f| f.word_count).unwrap_or(0);
        let words = page.word_count.unwrap_or(0);
        if words >= raw_words + CONTENT_MIN_WORDS
            && f64::from(raw_words) <= CONTENT_MAX_RAW_SHARE * f64::from(words)
        {
            add(
                FindingId::RenderContent,
                url.clone(),
                format!(
                    "{url}: {} as served, {} after rendering",
                    wording::count(raw_words as usize, "word", "words"),
                    wording::count(words as usize, "word", "words")
                ),
                Vec::new(),
            );
        }
    }
    // URLs that no served HTML links to, only rendered pages: the pages among them (what
    // was fetched), and per pattern how many were not fetched and why.
    let mut unfetched: BTreeMap<String, BTreeMap<&'static str, usize>> = BTreeMap::new();
    for t in 0..site.n as u32 {
        let js = site.rendering.js_in(t);
        if js == 0 || site.inlinks(t) > 0 || site.external[t as usize] || site.made_up[t as usize] {
            continue;
        }
        let url = site.url_string(t);
        if site.fetch(t).is_none() {
            let why = site.reason(t).map_or("not requested", |r| r.kind.as_str());
            *unfetched
                .entry(pattern(&url))
                .or_default()
                .entry(why)
                .or_default() += 1;
            continue;
        }
        add(
            FindingId::RenderJsLinks,
            url.clone(),
            format!(
                "{url}: linked from {} after rendering, from none as served",
                wording::count(js as usize, "page", "pages")
            ),
            vec![Fix::AddLinks { to: url.clone() }],
        );
    }
    let max = site.cfg.max_listed;
    for ((id, pattern), mut pages) in groups {
        pages.sort_by(|a, b| a.url.cmp(&b.url));
        let n = pages.len();
        let summary = format!(
            "{} of {pattern}: {}",
            wording::count(n, "page", "pages"),
            match id {
                FindingId::RenderCanonAdded => "the canonical is written by a script.",
                FindingId::RenderCanonChanged => "a script changes the canonical.",
                FindingId::RenderNoindexAdded => "a script adds noindex.",
                FindingId::RenderNoindexRemoved => "a script removes the served noindex.",
                FindingId::RenderTitleChanged => "a script changes the title or first heading.",
                FindingId::RenderJsLinks => "only links written by scripts lead there.",
                FindingId::RenderContent => "the text is written by a script.",
                _ => "rendering did not finish.",
            }
        );
        let mut f = Finding::new(id, &[&format!("pattern {pattern}")], summary)
            .urls(pages.iter().take(max).map(|p| p.url.clone()));
        for p in pages.iter().take(max) {
            f = f.evidence(p.line.clone());
        }
        if n > max {
            f = f.evidence(format!(
                "{} more not listed",
                wording::count(n - max, "page", "pages")
            ));
        }
        if id == FindingId::RenderJsLinks
            && let Some(why) = unfetched.get(&pattern)
        {
            let total: usize = why.values().sum();
            let reasons: Vec<String> = why.iter().map(|(r, k)| format!("{k} {r}")).collect();
            f = f.evidence(format!(
                "{} of {pattern} that only script-written links lead to {} not fetched, so \
                 not counted here (by reason: {})",
                wording::count(total, "other URL", "other URLs"),
                if total == 1 { "was" } else { "were" },
                reasons.join(", ")
            ));
        }
        for p in pages.into_iter().take(max) {
            for fix in p.fixes {
                f = f.fix(fix);
            }
        }
        out.push(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_is_the_host_and_the_parent_path() {
        assert_eq!(pattern("https://example.com/js/title"), "example.com/js/*");
        assert_eq!(
            pattern("https://example.com/2024/06/post/"),
            "example.com/#/#/*"
        );
        assert_eq!(pattern("http://127.0.0.1:8080/"), "127.0.0.1:8080/*");
    }
}
