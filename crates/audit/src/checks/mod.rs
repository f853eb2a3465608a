//! The rules that turn the crawl, the clusters and the learned rules into findings,
//! one module per family.

mod canonical;
mod comment_pages;
mod crawl;
mod duplicate;
mod hreflang;

#[cfg(test)]
pub(crate) use hreflang::code_check as hreflang_code;
mod links;
pub(crate) mod metadata;
mod patterns;
mod redirect;
mod rendered;
mod sitemap;

use crate::cluster::{Clusters, Graph};
use crate::dust::{Mined, ParamVerdict};
use crate::finding::{Finding, Fix};
use crate::input::UrlId;
use crate::keys::Keys;
use crate::site::{Chain, NONE, Site};
use crate::wording::{answer, template_place};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

/// What every check can read.
pub(crate) struct Ctx<'s, 'a> {
    pub site: &'s Site<'a>,
    pub clusters: &'s Clusters,
    pub graph: &'s Graph,
    pub mined: &'s Mined,
    pub keys: &'s Keys,
    /// `(url index, sitemap row index)`, sorted.
    listed: Vec<(u32, u32)>,
    /// Each URL's host (lower-cased, with its port), as an index into `host_names`.
    host_of_url: Vec<u32>,
    /// The hosts.
    host_names: Vec<String>,
    /// Distinct pages each host serves (2xx, no hop, preferred in their cluster), by
    /// host index.
    host_pages: Vec<u32>,
    /// Template links by target index, found on first use.
    template_links: std::cell::OnceCell<FxHashMap<u32, TemplateLink>>,
    /// Titles, first headings and meta descriptions different pages share, found on
    /// first use.
    duplicate_values: std::cell::OnceCell<Vec<metadata::DuplicateValue>>,
}

/// A link on most pages of a host: it comes from the site's template (menu, header,
/// footer, sidebar), so one edit there changes it everywhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TemplateLink {
    /// Pages carrying it.
    pub pages: u32,
    /// Pages the host serves.
    pub of: u32,
    /// Its most common anchor text.
    pub anchor: Option<String>,
    /// Where in the pages it sits, when recorded.
    pub region: Option<crate::LinkRegion>,
}

/// Why links to a URL that is not its cluster's preferred URL stay as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeptLink {
    /// The cluster's preferred page declares this very URL its canonical: the site
    /// chose it, and a link changed to the preferred URL would contradict the page.
    DeclaredCanonical,
    /// The link is a control, not a reference: a sort or filter parameter, or a
    /// reply, log-in, basket or add-to-cart link (a link to page 1 of a list is a
    /// reference: it may name the list's own URL). Changing it would break what it
    /// does.
    Control,
}

/// A query parameter or last path segment that names an action of the site (reply
/// to a comment, log in or out, a basket, a wish list, a comparison), lower-case or
/// not, with `-` or `_`.
fn is_function_name(name: &str) -> bool {
    const ACTIONS: &[&str] = &[
        "replytocom",
        "reply",
        "replyto",
        "login",
        "logout",
        "signin",
        "signout",
        "register",
        "wp-login.php",
        "cart",
        "basket",
        "checkout",
        "add-to-cart",
        "addtocart",
        "add-to-wishlist",
        "wishlist",
        "compare",
        "unsubscribe",
    ];
    let name = name.to_ascii_lowercase().replace('_', "-");
    ACTIONS.contains(&name.as_str())
}

/// A link is also the template's, whatever share of the host's pages carries it, when
/// at least this share of its links sit in the template's regions (navigation, header,
/// footer, sidebar): the footer of one kind of page.
const TEMPLATE_REGION_SHARE: f64 = 0.9;

/// Regions the site's template writes.
fn is_template_region(r: crate::LinkRegion) -> bool {
    matches!(
        r,
        crate::LinkRegion::Navigation
            | crate::LinkRegion::Header
            | crate::LinkRegion::Footer
            | crate::LinkRegion::Sidebar
    )
}

/// A link is the template's when at least this share of a host's pages carry it...
const TEMPLATE_LINK_SHARE: f64 = 0.5;
/// ...and at least this many (below it, listing the pages is as short as naming the
/// template).
const TEMPLATE_LINK_MIN_PAGES: u32 = 10;

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
        let mut host_index: FxHashMap<String, u32> = FxHashMap::default();
        let mut host_names: Vec<String> = Vec::new();
        let mut host_pages: Vec<u32> = Vec::new();
        let mut key = String::new();
        let host_of_url: Vec<u32> = (0..site.n as u32)
            .map(|i| {
                let p = crate::urlparts::split(site.url(i));
                key.clear();
                key.push_str(p.host);
                key.make_ascii_lowercase();
                key.push_str(p.port);
                let h = match host_index.get(key.as_str()) {
                    Some(&h) => h,
                    None => {
                        let h = host_names.len() as u32;
                        host_index.insert(key.clone(), h);
                        host_names.push(key.clone());
                        host_pages.push(0);
                        h
                    }
                };
                // Distinct pages: a duplicate (on www., with a tracking parameter) is its
                // preferred page's copy and carries the same links.
                if site.serves(i) && !site.external[i as usize] && clusters.preferred_of(i) == i {
                    host_pages[h as usize] += 1;
                }
                h
            })
            .collect();
        Ctx {
            site,
            clusters,
            graph,
            mined,
            keys,
            listed,
            host_of_url,
            host_names,
            host_pages,
            template_links: std::cell::OnceCell::new(),
            duplicate_values: std::cell::OnceCell::new(),
        }
    }

    /// Every title, first heading and meta description different pages share (see
    /// [`metadata`]).
    pub(crate) fn duplicate_values(&self) -> &[metadata::DuplicateValue] {
        self.duplicate_values.get_or_init(|| {
            metadata::duplicate_values(self.site, self.keys, self.clusters, &self.mined.params)
        })
    }

    /// [`Ctx::duplicate_values`], taken out.
    pub(crate) fn take_duplicate_values(&mut self) -> Vec<metadata::DuplicateValue> {
        self.duplicate_values();
        self.duplicate_values.take().unwrap_or_default()
    }

    /// Whether the links to `i` are the site's template: carried by most pages of one
    /// host, in one region of the page.
    pub(crate) fn template_link(&self, i: u32) -> Option<TemplateLink> {
        self.template_links
            .get_or_init(|| self.find_template_links())
            .get(&i)
            .cloned()
    }

    /// Every template link of the site, by target: the targets that most pages of one
    /// host link (cheap, from the link graph), then one pass over the links for where
    /// in the page they sit and one over the anchors for their text.
    fn find_template_links(&self) -> FxHashMap<u32, TemplateLink> {
        let site = self.site;
        let passes = |on_host: u32, host: u32| {
            let of = self.host_pages[host as usize].max(on_host);
            (on_host >= TEMPLATE_LINK_MIN_PAGES
                && f64::from(on_host) >= TEMPLATE_LINK_SHARE * f64::from(of))
            .then_some(of)
        };
        // Whether most pages of one host are among `pages`.
        let most_of_a_host = |pages: &mut dyn Iterator<Item = u32>| {
            let mut by_host: Vec<(u32, u32)> = Vec::new();
            for p in pages {
                let h = self.host_of_url[p as usize];
                match by_host.iter_mut().find(|(x, _)| *x == h) {
                    Some((_, n)) => *n += 1,
                    None => by_host.push((h, 1)),
                }
            }
            by_host.iter().any(|&(h, n)| passes(n, h).is_some())
        };
        // Targets linked almost only from the template's regions (the footer, a menu,
        // a sidebar): template links whatever share of the host's pages carries them
        // (a footer of one kind of page), counted in link rows.
        let mut rows: FxHashMap<UrlId, (u32, u32)> = FxHashMap::default();
        for l in &site.input.links {
            let popular = |to: UrlId| {
                site.idx(to)
                    .is_some_and(|i| site.inlinks(i) >= TEMPLATE_LINK_MIN_PAGES)
            };
            if let Some(to) = l.to.filter(|&to| !l.kind.is_declared() && popular(to)) {
                let e = rows.entry(to).or_default();
                e.1 += 1;
                e.0 += u32::from(l.region.is_some_and(is_template_region));
            }
        }
        let by_region = |i: u32| {
            rows.get(&site.id(i)).is_some_and(|&(template, all)| {
                f64::from(template) >= TEMPLATE_REGION_SHARE * f64::from(all)
            })
        };
        // Targets whose linking pages are most pages of one host (or that the template's
        // regions link), with those pages.
        // The pages are indexes, sorted (as `linkers` gives them): four bytes a page.
        let mut linking: FxHashMap<UrlId, (u32, Vec<u32>)> = FxHashMap::default();
        for i in 0..site.n as u32 {
            // First on every page linking it (no list to make): most URLs fail here.
            if site.inlinks(i) < TEMPLATE_LINK_MIN_PAGES
                || !(by_region(i) || most_of_a_host(&mut site.linked_from(i).iter().copied()))
            {
                continue;
            }
            let linkers = self.linkers(i);
            if linkers.len() as u32 >= TEMPLATE_LINK_MIN_PAGES
                && (by_region(i) || most_of_a_host(&mut linkers.iter().copied()))
            {
                linking.insert(site.id(i), (i, linkers));
            }
        }
        if linking.is_empty() {
            return FxHashMap::default();
        }
        // Where in the page: pages carrying the link, by host and region.
        type Place = (u32, Option<crate::LinkRegion>);
        // A page counts once per target and region. Where a page's links are contiguous
        // (as stored), the set holds one page's links at a time.
        let contiguous = site.input.links.is_sorted_by_from();
        let mut page: Option<UrlId> = None;
        let mut seen: FxHashSet<(UrlId, UrlId, Option<crate::LinkRegion>)> = FxHashSet::default();
        let mut by_place: FxHashMap<UrlId, FxHashMap<Place, u32>> = FxHashMap::default();
        for l in &site.input.links {
            // A URL the page declares (shortlink, og:url, ...) is no link of its template.
            let Some(to) = l.to.filter(|_| !l.kind.is_declared()) else {
                continue;
            };
            let Some((_, pages)) = linking.get(&to) else {
                continue;
            };
            let Some(p) = site.idx(l.from) else { continue };
            if pages.binary_search(&p).is_err() {
                continue;
            }
            if contiguous && page != Some(l.from) {
                seen.clear();
                page = Some(l.from);
            }
            if !seen.insert((to, l.from, l.region)) {
                continue;
            }
            *by_place
                .entry(to)
                .or_default()
                .entry((self.host_of_url[p as usize], l.region))
                .or_default() += 1;
        }
        let mut found: FxHashMap<UrlId, TemplateLink> = FxHashMap::default();
        for (to, places) in by_place {
            // The most pages; on a tie, the host first by name, then the region.
            let name = |&(h, r): &Place| (&self.host_names[h as usize], r);
            let Some(((host, region), on_host)) = places
                .into_iter()
                .max_by(|(a, n), (b, m)| n.cmp(m).then_with(|| name(b).cmp(&name(a))))
            else {
                continue;
            };
            let of = passes(on_host, host).or_else(|| {
                // In a template region on most of the pages that carry it.
                let linkers = linking[&to].1.len() as u32;
                (region.is_some_and(is_template_region)
                    && on_host >= TEMPLATE_LINK_MIN_PAGES
                    && f64::from(on_host) >= TEMPLATE_REGION_SHARE * f64::from(linkers))
                .then(|| self.host_pages[host as usize].max(on_host))
            });
            if let Some(of) = of {
                let pages = linking[&to].1.len() as u32;
                found.insert(
                    to,
                    TemplateLink {
                        pages,
                        of,
                        anchor: None,
                        region,
                    },
                );
            }
        }
        // The most common anchor text of each.
        let mut texts: FxHashMap<UrlId, FxHashMap<&str, u32>> = FxHashMap::default();
        for a in &site.input.anchors {
            if found.contains_key(&a.to)
                && !site.idx(a.from).is_some_and(|f| site.made_up[f as usize])
            {
                let t = a.text.trim();
                if !t.is_empty() {
                    *texts.entry(a.to).or_default().entry(t).or_default() += 1;
                }
            }
        }
        for (to, counts) in texts {
            if let Some(t) = found.get_mut(&to) {
                t.anchor = counts
                    .into_iter()
                    .max_by_key(|&(t, n)| (n, std::cmp::Reverse(t)))
                    .map(|(t, _)| t.to_owned());
            }
        }
        found
            .into_iter()
            .map(|(to, t)| (linking[&to].0, t))
            .collect()
    }

    /// Who links to `i`, in words: "a link in the site's template, on 419 of the 450
    /// pages of example.com," or "3 internal pages".
    pub(crate) fn who_links(&self, i: u32) -> (String, Option<TemplateLink>) {
        match self.template_link(i) {
            Some(t) => (
                format!(
                    "A link in the site's {}{}, on {} of its {} pages,",
                    template_place(t.region),
                    t.anchor
                        .as_deref()
                        .map_or_else(String::new, |a| format!(" (\"{a}\")")),
                    t.pages,
                    t.of
                ),
                Some(t),
            ),
            None => {
                let n = self.linkers(i).len();
                (
                    if n == 1 {
                        "1 internal page".to_owned()
                    } else {
                        format!("{n} internal pages")
                    },
                    None,
                )
            }
        }
    }

    /// What URL `i` answered, to follow the URL or "which" (see [`answer`]).
    pub(crate) fn response(&self, i: u32) -> String {
        answer(&self.site.describe(i))
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

    /// Why the links to `i` must stay as they are although `i` is not its cluster's
    /// preferred URL, if they must: changing them would go against the page's own
    /// canonical or break a function of the site.
    pub(crate) fn kept_link(&self, i: u32) -> Option<KeptLink> {
        let preferred = self.clusters.preferred_of(i);
        if preferred != i && self.site.eff_canon[preferred as usize] == i {
            return Some(KeptLink::DeclaredCanonical);
        }
        self.control_link(i).then_some(KeptLink::Control)
    }

    /// Whether a link to `i` is a control of the page rather than a reference to a page
    /// ([`KeptLink::Control`]).
    pub(crate) fn control_link(&self, i: u32) -> bool {
        let parts = crate::urlparts::split(self.site.url(i));
        let control = parts.query.is_some_and(|q| {
            q.split('&')
                .map(|kv| kv.split_once('=').map_or(kv, |x| x.0))
                .any(|name| {
                    is_function_name(name)
                        || self.mined.params.iter().any(|p| {
                            p.name == name
                                && matches!(p.verdict, ParamVerdict::Sort | ParamVerdict::Filter)
                        })
                })
        });
        let action_path = parts
            .path
            .rsplit('/')
            .find(|s| !s.is_empty())
            .is_some_and(is_function_name);
        control || action_path
    }

    /// The fix "update internal links to `from` into `to`", when `from` has any and
    /// they may change ([`Ctx::kept_link`]): one change in the template for a template
    /// link, else the pages to edit.
    pub(crate) fn update_links(&self, from: u32, to: u32) -> Option<Fix> {
        if self.linkers(from).is_empty() || self.kept_link(from).is_some() {
            return None;
        }
        if let Some(t) = self.template_link(from) {
            return Some(Fix::UpdateTemplateLink {
                from: self.url(from),
                to: Some(self.url(to)),
                pages: t.pages,
                anchor: t.anchor,
                region: t.region,
            });
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
                if h.to == i {
                    "itself"
                } else {
                    self.site.url(h.to)
                },
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
            None => format!("{} {}", self.site.url(i), self.response(i)),
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
    let checks: [fn(&Ctx<'_, '_>, &mut Vec<Finding>); 9] = [
        duplicate::check,
        metadata::check,
        canonical::check,
        redirect::check,
        sitemap::check,
        crawl::check,
        links::check,
        hreflang::check,
        rendered::check,
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
    // Before the pattern groups: a finding grouped by pattern no longer names the
    // comment page that explains it.
    comment_pages::group(cx, &mut out);
    patterns::group(cx, &mut out);
    out.sort_by(|a, b| (a.severity, a.id, &a.key).cmp(&(b.severity, b.id, &b.key)));
    out.dedup_by(|a, b| a.key == b.key);
    out.shrink_to_fit();
    out
}
