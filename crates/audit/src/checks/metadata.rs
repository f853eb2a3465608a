//! Different pages sharing a title, a first heading (`<h1>`) or a meta description: the
//! duplicate views of a site audit's page titles, H1s and meta descriptions.
//!
//! **Which pages.** HTML pages that answer 2xx without a redirect, are indexable (no
//! noindex, not blocked by robots.txt, no canonical naming another URL), that Dustpan did
//! not make up (URL-variant probes), and that are their cluster's preferred URL: the URLs
//! of one cluster are one page and are expected to share all three, so a cluster counts
//! once, through its preferred URL. A page whose title reads like an error page (a soft
//! 404) is left out: its problem is the error, not its title.
//!
//! **How values compare.** Trimmed, each run of whitespace read as one space, and
//! ignoring letter case: "Pricing" and "pricing" are the same headline to a searcher. A
//! missing or empty value is no duplicate.
//!
//! **Counted as one page.** The numbered pages of one list and its first page (`/blog/`
//! with `/blog/page/2/`, `/list` with `/list?page=3`, a post with its
//! `/comment-page-2/`, as [`crate::urlparts::page_number`] recognises page numbers): a
//! list's later pages commonly repeat its first page's title and description. The
//! filtered and sorted views of a list and the list itself: URLs that differ from it
//! only in parameters the parameter classifier judges a sort, a filter, pagination,
//! tracking, a session or ignored (`/shoes?color=red&sort=price` with `/shoes`); a
//! faceted listing's views repeat its title, and what is wrong with them is the facets
//! (crawler trap, near-duplicate and parameter findings), one cause reported there.
//! Pages naming each other as hreflang alternates: language versions of one page.

use super::Ctx;
use super::duplicate::differing_parts;
use crate::cluster::Clusters;
use crate::dust::{ParamStats, ParamVerdict};
use crate::finding::{Finding, Fix, MetaElement};
use crate::input::{FetchRow, UrlId};
use crate::keys::Keys;
use crate::site::{NONE, Site};
use crate::urlparts::{page_number, params, split, without_page_number};
use crate::wording::count;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use xxhash_rust::xxh3::xxh3_64;

/// The element's value on a fetched page.
impl MetaElement {
    fn of(self, f: &FetchRow) -> Option<&str> {
        match self {
            MetaElement::Title => f.title.as_deref(),
            MetaElement::H1 => f.h1.as_deref(),
            MetaElement::MetaDescription => f.meta_description.as_deref(),
        }
    }
}

/// One title, first heading or meta description that different pages share (a row
/// group of `duplicate_metadata.csv`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DuplicateValue {
    /// What the pages share.
    pub element: MetaElement,
    /// The value as most of the pages write it (whitespace collapsed).
    pub value: String,
    /// Other ways the pages write it (letter case), most common first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_spellings: Vec<String>,
    /// The pages, one per cluster (its preferred URL), sorted by URL: at least two.
    pub pages: Vec<DuplicatePage>,
}

/// One page of a [`DuplicateValue`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DuplicatePage {
    /// The page's URL id.
    pub url_id: UrlId,
    /// The page (its cluster's preferred URL, when it is in one).
    pub url: String,
    /// The id of its cluster ([`crate::Cluster::id`]), when it is in one.
    pub cluster: Option<u32>,
    /// The URLs of its cluster (1 when it is in none).
    pub cluster_urls: u32,
    /// Later pages of its list that share the value, counted with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub later_pages: Vec<String>,
    /// Filtered and sorted views of it (and their later pages) that share the value,
    /// counted with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub views: Vec<String>,
    /// Its hreflang alternates that share the value, counted with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternates: Vec<String>,
}

/// Whether page `i` is one whose title, first heading and description must be its own
/// (see the module docs), but for what [`judged_in_group`] checks.
fn judged(site: &Site<'_>, clusters: &Clusters, i: u32) -> bool {
    let eff = site.eff_canon[i as usize];
    !site.external[i as usize]
        && !site.made_up[i as usize]
        && site.indexable(i)
        && (eff == NONE || eff == i)
        && clusters.preferred_of(i) == i
}

/// The rest of [`judged`], checked only for pages that share a value: an HTML page
/// that does not read like an error page ([`Site::soft_404`]).
fn judged_in_group(site: &Site<'_>, i: u32) -> bool {
    site.html(i) && !site.soft_404(i)
}

/// `value` trimmed, with each run of whitespace as one space, lower-cased, into `out`
/// (empty for a value with no text).
fn fold(value: &str, out: &mut String) {
    out.clear();
    for w in value.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        if w.is_ascii() {
            out.extend(w.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        } else {
            out.extend(w.chars().flat_map(char::to_lowercase));
        }
    }
}

/// `value` trimmed, with each run of whitespace as one space.
fn collapse(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every value different pages share, by element, then most pages first, then value.
/// Grouping is by sorting hashes of the folded values, then verifying the values: no
/// value is held for pages that share it with no other.
pub(crate) fn duplicate_values(
    site: &Site<'_>,
    keys: &Keys,
    clusters: &Clusters,
    params: &[ParamStats],
) -> Vec<DuplicateValue> {
    let pages: Vec<u32> = (0..site.n as u32)
        .filter(|&i| judged(site, clusters, i))
        .collect();
    if pages.len() < 2 {
        return Vec::new();
    }
    // Pages naming each other as hreflang alternates (both ways), as preferred URLs.
    let mut alternates: Vec<(u32, u32)> = site
        .input
        .hreflang
        .iter()
        .filter_map(|h| {
            let p = clusters.preferred_of(site.idx(h.page)?);
            let t = clusters.preferred_of(site.idx(h.target?)?);
            (p != t).then_some([(p, t), (t, p)])
        })
        .flatten()
        .collect();
    alternates.sort_unstable();
    alternates.dedup();
    let lists = Lists {
        views: params
            .iter()
            .filter(|p| {
                matches!(
                    p.verdict,
                    ParamVerdict::Sort
                        | ParamVerdict::Filter
                        | ParamVerdict::Pagination
                        | ParamVerdict::Tracking
                        | ParamVerdict::Session
                        | ParamVerdict::Ignored
                )
            })
            .map(|p| p.name.as_str())
            .collect(),
    };
    let mut out = Vec::new();
    let mut buf = String::new();
    for element in MetaElement::ALL {
        let value = |i: u32| site.fetch(i).and_then(|f| element.of(f));
        let mut hashed: Vec<(u64, u32)> = pages
            .iter()
            .filter_map(|&i| {
                fold(value(i)?, &mut buf);
                (!buf.is_empty()).then(|| (xxh3_64(buf.as_bytes()), i))
            })
            .collect();
        hashed.sort_unstable();
        for run in hashed.chunk_by(|a, b| a.0 == b.0) {
            if run.len() < 2 {
                continue;
            }
            // The values themselves: a hash collision splits the run.
            let mut folded: Vec<(String, u32)> = run
                .iter()
                .map(|&(_, i)| {
                    fold(value(i).unwrap_or(""), &mut buf);
                    (buf.clone(), i)
                })
                .collect();
            folded.sort_unstable();
            for same in folded.chunk_by(|a, b| a.0 == b.0) {
                let members: Vec<u32> = same
                    .iter()
                    .map(|&(_, i)| i)
                    .filter(|&i| judged_in_group(site, i))
                    .collect();
                if members.len() < 2 {
                    continue;
                }
                if let Some(v) = group(site, keys, clusters, &lists, element, &members, &alternates)
                {
                    out.push(v);
                }
            }
        }
    }
    out.sort_by(|a, b| {
        (a.element, std::cmp::Reverse(a.pages.len()), &a.value).cmp(&(
            b.element,
            std::cmp::Reverse(b.pages.len()),
            &b.value,
        ))
    });
    out
}

/// The lists of the site: which URLs are a list's later pages or its filtered and
/// sorted views (see the module docs).
struct Lists<'p> {
    /// Parameters that make a view of a list (sort, filter, pagination) or no page
    /// at all (tracking, session, ignored).
    views: FxHashSet<&'p str>,
}

impl Lists<'_> {
    /// The list `url` is a later page or a view of: `url` without its page number and
    /// without its view parameters; `None` when it has neither.
    fn list_of(&self, url: &str) -> Option<String> {
        let paged = without_page_number(url);
        let base = paged.as_deref().unwrap_or(url);
        let p = split(base);
        let Some(q) = p.query else {
            return paged;
        };
        let kept: Vec<&str> = params(q)
            .filter(|(name, _)| !self.views.contains(name))
            .map(|(_, c)| c)
            .collect();
        if kept.len() == params(q).count() {
            return paged;
        }
        Some(rules::url::with_query(base, &p, &kept))
    }

    /// How many view parameters `url` has.
    fn view_params(&self, url: &str) -> usize {
        split(url).query.map_or(0, |q| {
            params(q).filter(|(n, _)| self.views.contains(n)).count()
        })
    }
}

/// The pages of one shared value, a list's later pages and views and hreflang
/// alternates counted as one; `None` when that leaves fewer than two pages.
fn group(
    site: &Site<'_>,
    keys: &Keys,
    clusters: &Clusters,
    lists: &Lists<'_>,
    element: MetaElement,
    members: &[u32],
    alternates: &[(u32, u32)],
) -> Option<DuplicateValue> {
    let n = members.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    fn union(parent: &mut [usize], a: usize, b: usize) {
        let (ra, rb) = (root(parent, a), root(parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    // The list each member is a later page or a view of (most are none).
    let of_list: Vec<(usize, String)> = members
        .iter()
        .enumerate()
        .filter_map(|(k, &i)| Some((k, lists.list_of(site.url(i))?)))
        .collect();
    if !of_list.is_empty() {
        // By equivalence key under the audit policy: a list on another host name (www)
        // or written another way is the same list.
        let by_key: FxHashMap<&str, usize> = members
            .iter()
            .enumerate()
            .map(|(k, &i)| (keys.get(site, i).unwrap_or(site.url(i)), k))
            .collect();
        // A list's later page or view with the list, or with the list's other pages
        // and views when the list is not among them.
        let mut seen: FxHashMap<String, usize> = FxHashMap::default();
        for (k, list) in of_list {
            let list = canon::equivalence_key(&list, &site.cfg.policy).unwrap_or(list);
            match by_key.get(list.as_str()) {
                Some(&j) => union(&mut parent, k, j),
                None => match seen.get(&list) {
                    Some(&j) => union(&mut parent, k, j),
                    None => {
                        seen.insert(list, k);
                    }
                },
            }
        }
    }
    let alternates_of = |i: u32| {
        let from = alternates.partition_point(|&(a, _)| a < i);
        alternates[from..].iter().take_while(move |&&(a, _)| a == i)
    };
    if members.iter().any(|&i| alternates_of(i).next().is_some()) {
        let position: FxHashMap<u32, usize> =
            members.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        for (k, &i) in members.iter().enumerate() {
            for &(_, t) in alternates_of(i) {
                if let Some(&j) = position.get(&t) {
                    union(&mut parent, k, j);
                }
            }
        }
    }
    let mut sets: FxHashMap<usize, Vec<u32>> = FxHashMap::default();
    for (k, &i) in members.iter().enumerate() {
        let r = root(&mut parent, k);
        sets.entry(r).or_default().push(i);
    }
    if sets.len() < 2 {
        return None;
    }
    let mut pages: Vec<DuplicatePage> = sets
        .into_values()
        .map(|mut set| {
            // The list itself (no page number, fewest view parameters), else the first
            // URL.
            set.sort_by(|&a, &b| {
                let key = |i: u32| {
                    let u = site.url(i);
                    (page_number(u).unwrap_or(0), lists.view_params(u), u)
                };
                key(a).cmp(&key(b))
            });
            let first = set[0];
            let (mut later_pages, mut views, mut alternates) = (Vec::new(), Vec::new(), Vec::new());
            for &i in &set[1..] {
                let u = site.url(i);
                if lists.view_params(u) > 0 {
                    views.push(site.url_string(i));
                } else if page_number(u).is_some() {
                    later_pages.push(site.url_string(i));
                } else {
                    alternates.push(site.url_string(i));
                }
            }
            later_pages.sort_unstable();
            views.sort_unstable();
            alternates.sort_unstable();
            let cluster = match clusters.of[first as usize] {
                NONE => None,
                c => Some(c),
            };
            DuplicatePage {
                url_id: site.id(first),
                url: site.url_string(first),
                cluster,
                cluster_urls: cluster.map_or(1, |c| clusters.members[c as usize].len() as u32),
                later_pages,
                views,
                alternates,
            }
        })
        .collect();
    pages.sort_by(|a, b| a.url.cmp(&b.url));
    // Every spelling, most common first (most often, every page writes it alike).
    let raw: Vec<&str> = members
        .iter()
        .filter_map(|&i| site.fetch(i).and_then(|f| element.of(f)))
        .collect();
    let mut spellings: FxHashMap<String, u32> = FxHashMap::default();
    if raw.iter().all(|v| *v == raw[0]) {
        spellings.insert(collapse(raw.first()?), raw.len() as u32);
    } else {
        for v in raw {
            *spellings.entry(collapse(v)).or_default() += 1;
        }
    }
    let mut spellings: Vec<(String, u32)> = spellings.into_iter().collect();
    spellings.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut spellings = spellings.into_iter().map(|(s, _)| s);
    let value = spellings.next()?;
    Some(DuplicateValue {
        element,
        value,
        other_spellings: spellings.collect(),
        pages,
    })
}

/// One finding per shared value.
pub(super) fn check(cx: &Ctx<'_, '_>, out: &mut Vec<Finding>) {
    let values = cx.duplicate_values();
    if values.is_empty() {
        return;
    }
    let site = cx.site;
    // Pages with near-identical main content (a DUP-NEAR finding), as preferred URLs.
    let near: FxHashSet<(u32, u32)> = cx
        .graph
        .near
        .iter()
        .map(|&(a, b, _)| (cx.clusters.preferred_of(a), cx.clusters.preferred_of(b)))
        .filter(|&(a, b)| a != b)
        .flat_map(|(a, b)| [(a, b), (b, a)])
        .collect();
    let max = site.cfg.max_listed;
    // Pairs of pages that differ by one URL part and share a value, on at least
    // MIN_PATTERN_PAIRS values: one template writes it on both (a product page and
    // its "write a review" page). One finding per element and pattern.
    let mut by_pattern: BTreeMap<(MetaElement, String, String, String), Vec<usize>> =
        BTreeMap::new();
    for (k, v) in values.iter().enumerate() {
        if let [a, b] = v.pages.as_slice() {
            let (pa, pb) = (split(&a.url), split(&b.url));
            let (x, y) = differing_parts(&a.url[pa.origin_end..], &b.url[pb.origin_end..]);
            by_pattern
                .entry((v.element, pa.host.to_ascii_lowercase(), x, y))
                .or_default()
                .push(k);
        }
    }
    let mut grouped = vec![false; values.len()];
    for ((element, host, x, y), list) in &by_pattern {
        if list.len() < MIN_PATTERN_PAIRS {
            continue;
        }
        for &k in list {
            grouped[k] = true;
        }
        let pairs: Vec<&DuplicateValue> = list.iter().map(|&k| &values[k]).collect();
        out.push(one_pattern(cx, *element, host, (x, y), &pairs));
    }
    let mut key = String::new();
    for (k, v) in values.iter().enumerate() {
        if grouped[k] {
            continue;
        }
        let what = v.element.words();
        let n = v.pages.len();
        let urls: Vec<String> = v.pages.iter().map(|p| p.url.clone()).collect();
        fold(&v.value, &mut key);
        let mut f = Finding::new(
            v.element.finding(),
            &[&key],
            format!("{n} different pages share the {what} \"{}\".", v.value),
        )
        .urls(urls.iter().cloned());
        for p in v.pages.iter().take(max) {
            f = f.evidence(page_line(p));
        }
        if n > max {
            f = f.evidence(format!(
                "And {} (duplicate_metadata.csv lists every one)",
                count(n - max, "more page", "more pages")
            ));
        }
        if let Some(line) = one_path(&urls, what) {
            f = f.evidence(line);
        }
        if !v.other_spellings.is_empty() {
            let all: Vec<String> = std::iter::once(&v.value)
                .chain(&v.other_spellings)
                .map(|s| format!("\"{s}\""))
                .collect();
            f = f.evidence(format!(
                "Written {} ways: {} (compared ignoring letter case)",
                all.len(),
                all.join(", ")
            ));
        }
        // Pages that may be one page: the near-duplicate review decides first. Among
        // the listed pages, at most a few.
        let listed: Vec<u32> = v
            .pages
            .iter()
            .take(max.min(50))
            .filter_map(|p| site.idx(p.url_id))
            .collect();
        let mut told = 0;
        'pairs: for (x, &a) in listed.iter().enumerate() {
            for &b in &listed[x + 1..] {
                if near.contains(&(a, b)) {
                    f = f.evidence(format!(
                        "{} and {} also have near-identical main content: if they are one \
                         page, the DUP-NEAR finding's fix applies instead of a {what} of \
                         their own",
                        site.url(a),
                        site.url(b)
                    ));
                    told += 1;
                    if told == 3 {
                        break 'pairs;
                    }
                }
            }
        }
        let more_pages = n.saturating_sub(max) as u32;
        f = f.fix(Fix::DistinctValue {
            element: v.element,
            pages: urls.into_iter().take(max).collect(),
            more_pages,
        });
        out.push(f);
    }
}

/// At least this many shared values, each on two pages that differ by the same URL
/// part, are one finding.
const MIN_PATTERN_PAIRS: usize = 3;

/// How the two URLs of a pattern differ, in words: "and the same URL with `reviews/add/`
/// added" (`x` the first URL's part, `y` the second's).
fn pattern_words(x: &str, y: &str) -> String {
    match (x.is_empty(), y.is_empty()) {
        (true, false) => format!("and the same URL with `{y}` added"),
        (false, true) => format!("and the same URL without `{x}`"),
        _ => format!("and the same URL with `{y}` instead of `{x}`"),
    }
}

/// One finding for the values that pairs of pages of one URL pattern share.
fn one_pattern(
    cx: &Ctx<'_, '_>,
    element: MetaElement,
    host: &str,
    (x, y): (&str, &str),
    pairs: &[&DuplicateValue],
) -> Finding {
    let what = element.words();
    let n = pairs.len();
    let words = pattern_words(x, y);
    let first = pairs[0];
    let example = [first.pages[0].url.clone(), first.pages[1].url.clone()];
    let urls: Vec<String> = pairs
        .iter()
        .flat_map(|v| v.pages.iter().map(|p| p.url.clone()))
        .collect();
    let mut f = Finding::new(
        element.finding(),
        &[&format!("pattern {host} {x} -> {y}")],
        format!(
            "{n} pairs of pages on {host} share a {what}: each pair is a page {words}, so one \
             template writes the same {what} on both."
        ),
    )
    .urls(urls.into_iter().take(cx.site.cfg.max_listed));
    for v in pairs.iter().take(3) {
        f = f.evidence(format!(
            "for example: {} and {} share the {what} \"{}\"",
            v.pages[0].url, v.pages[1].url, v.value
        ));
    }
    f = f.evidence(format!("duplicate_metadata.csv lists all {} pages", 2 * n));
    f.fix(Fix::DistinctValueForPattern {
        element,
        pattern: words,
        pairs: n as u32,
        example,
    })
}

/// When every page is one path with other query parameters (a listing filtered and
/// sorted), the line that says so: one template writes the value whatever the
/// parameters select.
fn one_path(urls: &[String], what: &str) -> Option<String> {
    let base = |u: &str| {
        let p = split(u);
        u[..p.origin_end + p.path.len()].to_owned()
    };
    let first = base(urls.first()?);
    if urls.iter().any(|u| base(u) != first) {
        return None;
    }
    let mut names: Vec<&str> = urls
        .iter()
        .filter_map(|u| split(u).query)
        .flat_map(params)
        .map(|(name, _)| name)
        .collect();
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return None;
    }
    Some(format!(
        "All {} pages are {first} with other query parameters ({}): one template writes the \
         {what} whatever the parameters select",
        urls.len(),
        names.join(", ")
    ))
}

/// One page of a shared value, with its cluster and the pages counted with it.
fn page_line(p: &DuplicatePage) -> String {
    let mut line = p.url.clone();
    if let Some(c) = p.cluster {
        line.push_str(&format!(
            ", the preferred URL of cluster {c} ({})",
            count(p.cluster_urls as usize, "URL", "URLs")
        ));
    }
    let mut with = Vec::new();
    if !p.later_pages.is_empty() {
        with.push(format!(
            "{} of its list ({})",
            count(p.later_pages.len(), "later page", "later pages"),
            p.later_pages.join(", ")
        ));
    }
    if !p.views.is_empty() {
        with.push(format!(
            "{} ({})",
            count(
                p.views.len(),
                "filtered or sorted view",
                "filtered or sorted views"
            ),
            p.views.join(", ")
        ));
    }
    if !p.alternates.is_empty() {
        with.push(format!(
            "{} ({})",
            count(
                p.alternates.len(),
                "hreflang alternate",
                "hreflang alternates"
            ),
            p.alternates.join(", ")
        ));
    }
    if !with.is_empty() {
        line.push_str(&format!("; counted with it: {}", with.join(" and ")));
    }
    line
}
