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
//! list's later pages commonly repeat its first page's title and description. Pages
//! naming each other as hreflang alternates: language versions of one page.

use super::{Ctx, count};
use crate::cluster::Clusters;
use crate::finding::{Finding, FindingId, Fix};
use crate::input::{FetchRow, UrlId};
use crate::site::{NONE, Site, soft_404_title};
use crate::urlparts::{page_number, without_page_number};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

/// The part of a page whose value different pages share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetaElement {
    /// The `<title>`.
    Title,
    /// The first `<h1>`.
    H1,
    /// The first `<meta name="description">` in `<head>`.
    MetaDescription,
}

impl MetaElement {
    /// Every element, in the order findings and tables list them.
    pub const ALL: [MetaElement; 3] = [
        MetaElement::Title,
        MetaElement::H1,
        MetaElement::MetaDescription,
    ];

    /// `title`, `h1`, `meta description`: the element as tables name it.
    pub fn as_str(self) -> &'static str {
        match self {
            MetaElement::Title => "title",
            MetaElement::H1 => "h1",
            MetaElement::MetaDescription => "meta description",
        }
    }

    /// The element in a sentence: `title`, `first heading (<h1>)`, `meta description`.
    pub fn words(self) -> &'static str {
        match self {
            MetaElement::Title => "title",
            MetaElement::H1 => "first heading (<h1>)",
            MetaElement::MetaDescription => "meta description",
        }
    }

    /// The kind of finding a value shared by different pages is.
    pub fn finding(self) -> FindingId {
        match self {
            MetaElement::Title => FindingId::TitleDuplicate,
            MetaElement::H1 => FindingId::H1Duplicate,
            MetaElement::MetaDescription => FindingId::MetaDescriptionDuplicate,
        }
    }

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
    /// Its hreflang alternates that share the value, counted with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternates: Vec<String>,
}

/// Whether page `i` is one whose title, first heading and description must be its own
/// (see the module docs).
fn judged(site: &Site<'_>, clusters: &Clusters, i: u32) -> bool {
    let eff = site.eff_canon[i as usize];
    !site.external[i as usize]
        && !site.made_up[i as usize]
        && site.indexable(i)
        && (eff == NONE || eff == i)
        && clusters.preferred_of(i) == i
        && site.html(i)
        && !site
            .fetch(i)
            .and_then(|f| f.title.as_deref())
            .is_some_and(soft_404_title)
}

/// `value` trimmed, with each run of whitespace as one space, lower-cased, into `out`
/// (empty for a value with no text).
fn fold(value: &str, out: &mut String) {
    out.clear();
    for w in value.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(w.chars().flat_map(char::to_lowercase));
    }
}

/// `value` trimmed, with each run of whitespace as one space.
fn collapse(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every value different pages share, by element, then most pages first, then value.
/// Grouping is by sorting hashes of the folded values, then verifying the values: no
/// value is held for pages that share it with no other.
pub(crate) fn duplicate_values(site: &Site<'_>, clusters: &Clusters) -> Vec<DuplicateValue> {
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
                let members: Vec<u32> = same.iter().map(|&(_, i)| i).collect();
                if let Some(v) = group(site, clusters, element, &members, &alternates) {
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

/// The pages of one shared value, the numbered pages of a list and hreflang alternates
/// counted as one; `None` when that leaves fewer than two pages.
fn group(
    site: &Site<'_>,
    clusters: &Clusters,
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
    let position: FxHashMap<u32, usize> =
        members.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    let by_url: FxHashMap<&str, usize> = members
        .iter()
        .enumerate()
        .map(|(k, &i)| (site.url(i), k))
        .collect();
    // A numbered page with its list's first page, or with the list's other numbered
    // pages when the first is not among them.
    let mut lists: FxHashMap<String, usize> = FxHashMap::default();
    for (k, &i) in members.iter().enumerate() {
        let Some(list) = without_page_number(site.url(i)) else {
            continue;
        };
        match by_url.get(list.as_str()) {
            Some(&j) => union(&mut parent, k, j),
            None => match lists.get(&list) {
                Some(&j) => union(&mut parent, k, j),
                None => {
                    lists.insert(list, k);
                }
            },
        }
    }
    for (k, &i) in members.iter().enumerate() {
        let from = alternates.partition_point(|&(a, _)| a < i);
        for &(_, t) in alternates[from..].iter().take_while(|&&(a, _)| a == i) {
            if let Some(&j) = position.get(&t) {
                union(&mut parent, k, j);
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
            // The list's first page, else the lowest page number, else the first URL.
            set.sort_by(|&a, &b| {
                let key = |i: u32| (page_number(site.url(i)).unwrap_or(0), site.url(i));
                key(a).cmp(&key(b))
            });
            let first = set[0];
            let (mut later_pages, mut alternates) = (Vec::new(), Vec::new());
            for &i in &set[1..] {
                if page_number(site.url(i)).is_some() {
                    later_pages.push(site.url_string(i));
                } else {
                    alternates.push(site.url_string(i));
                }
            }
            later_pages.sort_unstable();
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
                alternates,
            }
        })
        .collect();
    pages.sort_by(|a, b| a.url.cmp(&b.url));
    // Every spelling, most common first.
    let mut spellings: FxHashMap<String, u32> = FxHashMap::default();
    for &i in members {
        if let Some(v) = site.fetch(i).and_then(|f| element.of(f)) {
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
    let mut key = String::new();
    for v in values {
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
