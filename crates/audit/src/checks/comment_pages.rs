//! One cause, one finding: posts whose canonical names one of their own comment pages.
//!
//! A CMS that splits comments into pages and shows the newest first (WordPress's "Break
//! comments into pages") makes each post declare its last comment page
//! (`/post/comment-page-3/`) canonical. The post and that page read the same; the
//! audit prefers the post (`Site::own_comment_page_canonical`), which every other
//! signal of the site (its links, its sitemaps, its redirects) names, and the canonical
//! then disagrees with all of them: a conflict per post, a sitemap finding per post, a
//! link finding per linked variant, a canonical chain per page that names the post. They have one cause and
//! one fix (each post its own canonical, where the template or the setting writes it),
//! so they are one finding ([`FindingId::CanonCommentPage`]) that lists what it explains.

use super::Ctx;
use crate::finding::{Finding, FindingId, Fix};
use crate::wording;
use rustc_hash::FxHashSet;
use std::collections::BTreeMap;

/// The findings a post's canonical to its comment page makes, and that the one
/// [`FindingId::CanonCommentPage`] finding replaces.
const EXPLAINED: [FindingId; 6] = [
    FindingId::ClusterConflict,
    FindingId::DupContent,
    FindingId::CanonChain,
    FindingId::SitemapCanonicalised,
    FindingId::SitemapNonPreferred,
    FindingId::CanonLinked,
];

/// Replaces the findings that posts' canonicals to their own comment pages explain with
/// one finding naming the cause and its one fix.
pub(super) fn group(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let site = cx.site;
    // (post, the comment page its canonical names).
    let mut posts: Vec<(u32, u32)> = (0..site.n as u32)
        .filter(|&i| site.serves(i))
        .filter_map(|i| Some((i, site.own_comment_page_canonical(i)?)))
        .collect();
    // In URL order, whatever order they were crawled in.
    posts.sort_unstable_by(|a, b| site.url(a.0).cmp(site.url(b.0)));
    if posts.is_empty() {
        return;
    }
    let targets: FxHashSet<String> = posts.iter().map(|&(_, t)| site.url_string(t)).collect();
    let mut explained: BTreeMap<FindingId, (u32, String)> = BTreeMap::new();
    out.retain(|f| {
        let caused = EXPLAINED.contains(&f.id) && f.urls.iter().any(|u| targets.contains(u));
        if caused {
            // The example: the first summary in text order, whatever order the URLs
            // were crawled in.
            let e = explained
                .entry(f.id)
                .or_insert_with(|| (0, f.summary.clone()));
            e.0 += 1;
            if f.summary < e.1 {
                e.1.clone_from(&f.summary);
            }
        }
        !caused
    });
    let n = posts.len();
    let pages: Vec<String> = posts.iter().map(|&(i, _)| site.url_string(i)).collect();
    let example = [pages[0].clone(), site.url_string(posts[0].1)];
    let mut f = Finding::new(
        FindingId::CanonCommentPage,
        &["pattern comment-page-#/"],
        format!(
            "{} one of {} own comment pages (`/comment-page-#/`) as canonical: the site \
             splits comments into pages, and the page of the newest comments claims to \
             be the post.",
            wording::count(n, "post names", "posts name"),
            if n == 1 { "its" } else { "their" },
        ),
    )
    .urls(pages.iter().take(site.cfg.max_listed).cloned());
    if n > site.cfg.max_listed {
        f = f.evidence(format!(
            "{} listed here, {} more in canonicals_to_set.csv",
            wording::count(site.cfg.max_listed, "post is", "posts are"),
            n - site.cfg.max_listed
        ));
    }
    f = f.evidence(format!("for example, {} names {}", example[0], example[1]));
    for (id, (count, summary)) in &explained {
        f = f.evidence(format!(
            "explains {} (not listed apart), for example: {summary}",
            wording::count(
                *count as usize,
                &format!("{id} finding"),
                &format!("{id} findings")
            ),
        ));
    }
    out.push(
        f.fix(Fix::SelfCanonicalForPattern {
            pattern: "whose canonical names one of their own comment pages (on WordPress, \
                  turning off \u{201c}Break comments into pages\u{201d} in Settings \u{2192} \
                  Discussion does it)"
                .to_owned(),
            example,
            pages,
        }),
    );
}
