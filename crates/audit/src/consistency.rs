//! Checks that an analysis does not contradict itself: what one finding or fix says must
//! not be denied by another. A report that calls a page an orphan next to a finding that
//! links reach it, or that both redirects a page and sets its canonical, loses the
//! reader's trust in every other line; these checks run on every fixture audit.

use crate::{Analysis, AuditInput, FindingId, FixFiles, UrlId};
use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt;

/// Two statements of one analysis that cannot both be true.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contradiction {
    /// Which rule of consistency it breaks.
    pub rule: &'static str,
    /// The statements, with their URLs.
    pub detail: String,
}

impl fmt::Display for Contradiction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule, self.detail)
    }
}

/// Every contradiction between the findings and fixes of `analysis` (made from `input`).
pub fn contradictions(input: &AuditInput, analysis: &Analysis) -> Vec<Contradiction> {
    let mut out = Vec::new();
    let files = analysis.fix_files();
    orphans_that_links_reach(input, analysis, &mut out);
    pages_both_redirected_and_kept(&files, &mut out);
    sitemap_entries_added_and_removed(&files, &mut out);
    canonicals_to_redirected_urls(&files, &mut out);
    preferred_urls_redirected(analysis, &files, &mut out);
    out
}

/// No page is an orphan ("no crawled page links to it") when a crawled link reaches it,
/// directly or through redirects.
fn orphans_that_links_reach(input: &AuditInput, a: &Analysis, out: &mut Vec<Contradiction>) {
    let url: FxHashMap<UrlId, &str> = input.urls.iter().map(|u| (u.id, u.found_url())).collect();
    let hop: FxHashMap<UrlId, UrlId> = input
        .redirects
        .iter()
        .filter_map(|r| Some((r.from, r.to?)))
        .collect();
    let mut reached: FxHashSet<&str> = FxHashSet::default();
    for l in &input.links {
        let Some(mut t) = l.to else { continue };
        if l.from == t {
            continue;
        }
        for _ in 0..=32 {
            if let Some(u) = url.get(&t) {
                reached.insert(u);
            }
            match hop.get(&t) {
                Some(&next) if next != t => t = next,
                _ => break,
            }
        }
    }
    for f in a.findings_with(FindingId::SitemapOrphan) {
        for u in f.urls.iter().filter(|u| reached.contains(u.as_str())) {
            out.push(Contradiction {
                rule: "an orphan that links reach",
                detail: format!(
                    "{} says no crawled page links to {u}, but links reach it",
                    f.key
                ),
            });
        }
    }
}

/// No URL is both redirected (the redirect map) and kept with a canonical to set.
fn pages_both_redirected_and_kept(files: &FixFiles, out: &mut Vec<Contradiction>) {
    let redirected: FxHashSet<&str> = files.redirects.iter().map(|r| r.source.as_str()).collect();
    for c in files.canonicals.iter().filter(|c| !c.present) {
        if redirected.contains(c.page.as_str()) {
            out.push(Contradiction {
                rule: "a page both redirected and kept",
                detail: format!(
                    "{} is in the redirect map and should also carry a canonical to {}",
                    c.page, c.href
                ),
            });
        }
    }
}

/// No sitemap entry is both added and removed.
fn sitemap_entries_added_and_removed(files: &FixFiles, out: &mut Vec<Contradiction>) {
    let removed: FxHashSet<&str> = files
        .sitemap_remove
        .iter()
        .map(|r| r.loc.as_str())
        .collect();
    for add in &files.sitemap_add {
        if removed.contains(add.loc.as_str()) {
            out.push(Contradiction {
                rule: "a sitemap entry added and removed",
                detail: format!("{} is to be added to {} and removed", add.loc, add.sitemap),
            });
        }
    }
    let replaced_by: FxHashSet<&str> = files
        .sitemap_remove
        .iter()
        .filter_map(|r| r.with.as_deref())
        .collect();
    for r in &files.sitemap_remove {
        if r.with.is_none() && replaced_by.contains(r.loc.as_str()) {
            out.push(Contradiction {
                rule: "a sitemap entry added and removed",
                detail: format!("{} replaces another entry and is to be removed", r.loc),
            });
        }
    }
}

/// No canonical to set (of a cluster or a finding's fix) names a URL the redirect map
/// redirects.
fn canonicals_to_redirected_urls(files: &FixFiles, out: &mut Vec<Contradiction>) {
    let redirected: FxHashSet<&str> = files.redirects.iter().map(|r| r.source.as_str()).collect();
    for c in &files.canonicals {
        if redirected.contains(c.href.as_str()) {
            out.push(Contradiction {
                rule: "a canonical to a redirected URL",
                detail: format!(
                    "{} should carry a canonical to {}, which is to redirect",
                    c.page, c.href
                ),
            });
        }
    }
}

/// No cluster's preferred URL is redirected.
fn preferred_urls_redirected(a: &Analysis, files: &FixFiles, out: &mut Vec<Contradiction>) {
    let redirected: FxHashSet<&str> = files.redirects.iter().map(|r| r.source.as_str()).collect();
    for c in &a.clusters {
        if redirected.contains(c.preferred_url.as_str()) {
            out.push(Contradiction {
                rule: "a preferred URL redirected",
                detail: format!(
                    "{} is its cluster's preferred URL and is in the redirect map",
                    c.preferred_url
                ),
            });
        }
    }
}
