//! The rules that turn the crawl, the clusters and the learned rules into findings,
//! one module per family.

mod canonical;
mod crawl;
mod duplicate;
mod hreflang;

#[cfg(test)]
pub(crate) use hreflang::code_check as hreflang_code;
mod links;
mod redirect;
mod sitemap;

use crate::cluster::{Clusters, Graph};
use crate::dust::Mined;
use crate::finding::{Finding, Fix};
use crate::keys::Keys;
use crate::site::{Chain, NONE, Site};
use rustc_hash::FxHashMap;

/// What every check can read.
pub(crate) struct Ctx<'s, 'a> {
    pub site: &'s Site<'a>,
    pub clusters: &'s Clusters,
    pub graph: &'s Graph,
    pub mined: &'s Mined,
    pub keys: &'s Keys,
    /// `(url index, sitemap row index)`, sorted.
    listed: Vec<(u32, u32)>,
}

impl<'s, 'a> Ctx<'s, 'a> {
    pub(crate) fn new(
        site: &'s Site<'a>,
        clusters: &'s Clusters,
        graph: &'s Graph,
        mined: &'s Mined,
        keys: &'s Keys,
    ) -> Ctx<'s, 'a> {
        let sitemap_row: FxHashMap<u32, u32> = site
            .input
            .sitemaps
            .iter()
            .enumerate()
            .map(|(r, s)| (s.id, r as u32))
            .collect();
        let mut listed: Vec<(u32, u32)> = site
            .input
            .sitemap_entries
            .iter()
            .filter_map(|e| {
                let i = site.idx(e.url_id?)?;
                let r = sitemap_row.get(&e.sitemap_id).copied().unwrap_or(NONE);
                Some((i, r))
            })
            .collect();
        listed.sort_unstable();
        listed.dedup();
        Ctx {
            site,
            clusters,
            graph,
            mined,
            keys,
            listed,
        }
    }

    /// The URL text, owned.
    pub(crate) fn url(&self, i: u32) -> String {
        self.site.url_string(i)
    }

    /// Every `(url index, sitemap row index)` of a sitemap entry, sorted (the row is
    /// `NONE` when the sitemap's row is missing).
    pub(crate) fn listed(&self) -> &[(u32, u32)] {
        &self.listed
    }

    /// Sitemap URLs listing `i` (a sitemap whose row is missing shows as its id).
    pub(crate) fn sitemaps_of(&self, i: u32) -> Vec<String> {
        let from = self.listed.partition_point(|&(u, _)| u < i);
        self.listed[from..]
            .iter()
            .take_while(|&&(u, _)| u == i)
            .map(|&(_, r)| match r {
                NONE => "(unknown sitemap)".to_owned(),
                r => self.site.input.sitemaps[r as usize].url.clone(),
            })
            .collect()
    }

    /// Pages linking to `i` where the links can be edited: pages that are their
    /// cluster's preferred URL (or in no cluster). A duplicate's links (a page served
    /// again over http, on `www.`, with a session id) are the preferred page's links
    /// resolved against another URL; they go away with the duplicate.
    pub(crate) fn linkers(&self, i: u32) -> Vec<u32> {
        self.site
            .linked_from(i)
            .iter()
            .copied()
            .filter(|&p| {
                let pref = self.clusters.preferred_of(p);
                pref == p || !self.site.serves(pref)
            })
            .collect()
    }

    /// [`Ctx::linkers`] of `i`, as URLs sorted, capped at `max_listed`, and how many more.
    pub(crate) fn linking_pages(&self, i: u32) -> (Vec<String>, u32) {
        self.pages(&self.linkers(i))
    }

    /// URLs of `list` sorted, capped at `max_listed`, and how many more.
    pub(crate) fn pages(&self, list: &[u32]) -> (Vec<String>, u32) {
        let mut urls: Vec<&str> = list.iter().map(|&p| self.site.url(p)).collect();
        urls.sort_unstable();
        urls.dedup();
        let max = self.site.cfg.max_listed;
        let more = urls.len().saturating_sub(max) as u32;
        (
            urls.into_iter().take(max).map(str::to_owned).collect(),
            more,
        )
    }

    /// The fix "update internal links to `from` into `to`", when `from` has any.
    pub(crate) fn update_links(&self, from: u32, to: u32) -> Option<Fix> {
        if self.linkers(from).is_empty() {
            return None;
        }
        let (pages, more_pages) = self.linking_pages(from);
        Some(Fix::UpdateLinks {
            pages,
            more_pages,
            from: self.url(from),
            to: self.url(to),
        })
    }

    /// The final target of `i`'s redirects when it serves a page.
    pub(crate) fn live_final(&self, i: u32) -> Option<u32> {
        match self.site.chains[i as usize] {
            Chain::Final { to, .. } if self.site.serves(to) => Some(to),
            _ => None,
        }
    }

    /// URL `i`'s equivalence key.
    pub(crate) fn key(&self, i: u32) -> Option<&'s str> {
        self.keys.get(self.site, i)
    }

    /// One line describing a redirect hop out of `i`.
    pub(crate) fn hop_line(&self, i: u32) -> String {
        match self.site.hops[i as usize] {
            Some(h) if h.to != NONE => format!(
                "{} redirects to {} ({}{})",
                self.site.url(i),
                self.site.url(h.to),
                h.status,
                if h.kind == crate::input::HopKind::MetaRefresh {
                    ", meta refresh"
                } else {
                    ""
                }
            ),
            Some(h) => format!(
                "{} answers {} with a Location that cannot be resolved",
                self.site.url(i),
                h.status
            ),
            None => format!("{} {}", self.site.url(i), self.site.describe(i)),
        }
    }

    /// The URLs along `i`'s redirect chain (at most 32), `i` first.
    pub(crate) fn chain_path(&self, i: u32) -> Vec<u32> {
        let mut path = vec![i];
        let mut cur = i;
        while let Some(h) = self.site.hops[cur as usize] {
            if h.to == NONE || path.contains(&h.to) || path.len() > 32 {
                break;
            }
            path.push(h.to);
            cur = h.to;
        }
        path
    }
}

/// Runs every check; findings come out sorted by severity, id and key.
pub(crate) fn run(cx: &Ctx<'_, '_>) -> Vec<Finding> {
    let checks: [fn(&Ctx<'_, '_>, &mut Vec<Finding>); 7] = [
        duplicate::check,
        canonical::check,
        redirect::check,
        sitemap::check,
        crawl::check,
        links::check,
        hreflang::check,
    ];
    let mut out = Vec::new();
    for check in checks {
        let from = out.len();
        check(cx, &mut out);
        // Exact capacities, each check's findings before the next check allocates
        // (so it reuses what they give back): a large audit has 100,000s of findings.
        for f in &mut out[from..] {
            f.urls.shrink_to_fit();
            f.evidence.shrink_to_fit();
            f.fixes.shrink_to_fit();
        }
    }
    out.sort_by(|a, b| (a.severity, a.id, &a.key).cmp(&(b.severity, b.id, &b.key)));
    out.dedup_by(|a, b| a.key == b.key);
    out.shrink_to_fit();
    out
}
