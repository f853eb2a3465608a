//! Migration mapping: every page of an old site's audit matched to its best URL on the
//! new site's audit, by what the two pages show, not by their URLs alone.
//!
//! Each old page (a 2xx HTML page of the audited site) is matched, in this order:
//!
//! 1. the same URL still serves a page: kept, nothing to redirect;
//! 2. identical visible text, then identical main content (each site's template left
//!    out, at least `min_words` words): confidence 100 and 95;
//! 3. near-identical main content (Jaccard similarity of word 3-shingles at least
//!    [`NEAR`]): the similarity in percent, up to 94, five more when the title or the
//!    first heading agrees too;
//! 4. the same title and first heading, found on one new page only: 75;
//! 5. the same path on another origin (a domain move): 70;
//! 6. the same last path segment (its extension left out), on one new page only: 50.
//!
//! Ties between new pages are broken by the longest common path suffix, then by URL. A
//! match that is a duplicate on the new site (a member of one of the new audit's
//! clusters, not its preferred URL) is mapped to that cluster's preferred URL: the
//! redirect goes where the new site's own duplicates are sent, not to a duplicate.
//! Old pages matched by none are listed with their internal inlinks and access-log
//! requests, so the ones that matter are redirected first. The redirect map is the same
//! [`FixFiles`] every other plan writes, for every server, and is simulated on the new
//! site's audit like any plan ([`Migration::simulate`]).

use crate::Analysis;
use crate::config::AnalysisConfig;
use crate::fixes::{FixFiles, RedirectLine};
use crate::input::AuditInput;
use crate::main_content::jaccard;
use crate::simulate::{Plan, Simulation};
use crate::site::Site;
use crate::urlparts::split;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Least main-content similarity a near-identical match needs.
pub const NEAR: f64 = 0.5;

/// A shingle carried by more new pages than this says nothing about which page it is
/// (a phrase of the template that frequency did not remove); it is not indexed.
const MAX_POSTINGS: usize = 64;

/// New pages compared in full with an old page: those sharing the most indexed
/// shingles with it.
const CANDIDATES: usize = 4;

/// Why an old page was matched to a new URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum MatchBasis {
    /// The same URL serves a page on the new site.
    SameUrl,
    /// The same visible text.
    IdenticalText,
    /// The same main content (each site's template left out).
    IdenticalMainContent,
    /// Near-identical main content.
    NearMainContent {
        /// Similarity, in whole percent.
        percent: u32,
    },
    /// The same title and first heading.
    TitleAndH1,
    /// The same path on the new site's origin.
    SamePath,
    /// The same last path segment.
    SameSlug,
    /// Nothing matched.
    Unmatched,
}

impl MatchBasis {
    /// The basis as a report and the CSV word it.
    pub fn words(self) -> String {
        match self {
            MatchBasis::SameUrl => "same URL".to_owned(),
            MatchBasis::IdenticalText => "identical text".to_owned(),
            MatchBasis::IdenticalMainContent => "identical main content".to_owned(),
            MatchBasis::NearMainContent { percent } => {
                format!("main content {percent}% similar")
            }
            MatchBasis::TitleAndH1 => "same title and h1".to_owned(),
            MatchBasis::SamePath => "same path".to_owned(),
            MatchBasis::SameSlug => "same last path segment".to_owned(),
            MatchBasis::Unmatched => "no match".to_owned(),
        }
    }
}

/// One old page and where it goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MigrationRow {
    /// The old page's URL.
    pub old_url: String,
    /// Its best URL on the new site; `None` when nothing matched.
    pub new_url: Option<String>,
    /// How sure the match is, 0 to 100.
    pub confidence: u32,
    /// Why.
    pub basis: MatchBasis,
    /// Internal links to the old page on the old site.
    pub inlinks: u32,
    /// Requests for the old page in the old audit's access log.
    pub log_requests: u64,
}

/// Every old page mapped.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Migration {
    /// One row per old page: kept, then mapped by confidence (lowest first), then
    /// unmatched by inlinks and requests (most first); by URL within each.
    pub rows: Vec<MigrationRow>,
}

impl Migration {
    /// Old pages the new site still serves at the same URL.
    pub fn kept(&self) -> usize {
        self.count(|b| b == MatchBasis::SameUrl)
    }

    /// Old pages mapped to another URL.
    pub fn mapped(&self) -> usize {
        self.count(|b| !matches!(b, MatchBasis::SameUrl | MatchBasis::Unmatched))
    }

    /// Old pages nothing matched.
    pub fn unmatched(&self) -> usize {
        self.count(|b| b == MatchBasis::Unmatched)
    }

    fn count(&self, f: impl Fn(MatchBasis) -> bool) -> usize {
        self.rows.iter().filter(|r| f(r.basis)).count()
    }

    /// The redirect map: every mapped old page → its new URL, 301.
    pub fn fix_files(&self) -> FixFiles {
        let mut redirects: Vec<RedirectLine> = self
            .rows
            .iter()
            .filter(|r| !matches!(r.basis, MatchBasis::SameUrl | MatchBasis::Unmatched))
            .filter_map(|r| {
                Some(RedirectLine {
                    source: r.old_url.clone(),
                    target: r.new_url.clone()?,
                    status: 301,
                    today: None,
                })
            })
            .collect();
        redirects.sort_by(|a, b| a.source.cmp(&b.source));
        FixFiles {
            redirects,
            ..FixFiles::default()
        }
    }

    /// The redirect map applied to the new site's audit (`new`, analysed under
    /// `new_config` as `new_analysis`) and checked as every plan is: the old URLs answer
    /// their redirect, and the map is clean when no target is missing, an error, a
    /// redirect or a non-preferred URL, and no page the new site serves is redirected.
    pub fn simulate(
        &self,
        new: &AuditInput,
        new_config: &AnalysisConfig,
        new_analysis: &crate::Analysis,
    ) -> Simulation {
        let plan = Plan::migration(self.fix_files());
        crate::simulate::simulate(new, new_config, new_analysis, &plan)
    }

    /// `migration.csv`: every row, spreadsheet-safe.
    pub fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record([
            "old_url",
            "new_url",
            "confidence",
            "basis",
            "inlinks",
            "log_requests",
        ]);
        for r in &self.rows {
            let _ = w.write_record([
                crate::export::spreadsheet_safe(&r.old_url).as_ref(),
                crate::export::spreadsheet_safe(r.new_url.as_deref().unwrap_or("")).as_ref(),
                &r.confidence.to_string(),
                &r.basis.words(),
                &r.inlinks.to_string(),
                &r.log_requests.to_string(),
            ]);
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }
}

/// The pages of one site a migration compares: 2xx HTML pages of the audited hosts.
fn pages(site: &Site<'_>) -> Vec<u32> {
    (0..site.input.urls.len() as u32)
        .filter(|&i| site.serves(i) && site.html(i) && !site.probe(i) && !site.external[i as usize])
        .collect()
}

/// The URL after its origin (path and query).
fn path_of(url: &str) -> &str {
    &url[split(url).origin_end..]
}

/// The last non-empty path segment without its extension, lowercase.
fn slug(url: &str) -> Option<String> {
    let seg = split(url).path.split('/').rfind(|s| !s.is_empty())?;
    let stem = seg.rsplit_once('.').map_or(seg, |(s, _)| s);
    (!stem.is_empty()).then(|| stem.to_ascii_lowercase())
}

/// Path segments the two URLs share from the end.
fn common_suffix(a: &str, b: &str) -> usize {
    let segs = |u: &str| -> Vec<String> {
        split(u)
            .path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_ascii_lowercase)
            .collect()
    };
    let (x, y) = (segs(a), segs(b));
    x.iter()
        .rev()
        .zip(y.iter().rev())
        .take_while(|(p, q)| p == q)
        .count()
}

/// A title without the site's name after its last separator ("Boots | Shop" is
/// "Boots"): a redesign renames the site as often as it keeps it.
fn title_stem(title: &str) -> &str {
    [" | ", " - ", " – ", " — ", " · ", " :: "]
        .iter()
        .filter_map(|sep| title.rfind(sep))
        .max()
        .map_or(title, |at| &title[..at])
        .trim()
}

/// Title (its stem) and first heading, lowercase, when both are present.
fn title_h1(site: &Site<'_>, i: u32) -> Option<(String, String)> {
    let f = site.fetch(i)?;
    let t = title_stem(f.title.as_deref()?).to_lowercase();
    let h = f.h1.as_deref()?.trim().to_lowercase();
    (!t.is_empty() && !h.is_empty()).then_some((t, h))
}

/// Maps every page of the `old` audit to its best URL in the `new` one (`new_analysis`
/// is the new audit's analysis, whose clusters name each duplicate's preferred URL).
pub fn migrate(
    old: &AuditInput,
    old_config: &AnalysisConfig,
    new: &AuditInput,
    new_config: &AnalysisConfig,
    new_analysis: &Analysis,
) -> Migration {
    let a = Site::new(old, old_config);
    let b = Site::new(new, new_config);
    let targets = pages(&b);
    // Each new duplicate's preferred URL, where that URL is a page of the new site.
    let target_urls: rustc_hash::FxHashSet<&str> = targets.iter().map(|&j| b.url(j)).collect();
    let preferred: FxHashMap<crate::UrlId, &str> = new_analysis
        .clusters
        .iter()
        .filter(|c| target_urls.contains(c.preferred_url.as_str()))
        .flat_map(|c| {
            c.members
                .iter()
                .filter(|m| m.url != c.preferred_url)
                .map(move |m| (m.url_id, c.preferred_url.as_str()))
        })
        .collect();

    // The new site's pages by each thing a match can agree on.
    let mut by_url: FxHashMap<&str, u32> = FxHashMap::default();
    let mut by_path: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    let mut by_text: FxHashMap<u64, Vec<u32>> = FxHashMap::default();
    let mut by_main: FxHashMap<u64, Vec<u32>> = FxHashMap::default();
    let mut by_title: FxHashMap<(String, String), Vec<u32>> = FxHashMap::default();
    let mut by_slug: FxHashMap<String, Vec<u32>> = FxHashMap::default();
    let mut postings: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    let mut sizes: FxHashMap<u32, usize> = FxHashMap::default();
    for &j in &targets {
        let url = b.url(j);
        by_url.insert(url, j);
        by_path.entry(path_of(url)).or_default().push(j);
        if let Some(c) = b.content(j) {
            by_text.entry(c.text_hash).or_default().push(j);
            if let Some((h, w)) = c.main
                && w >= new_config.min_words
            {
                by_main.entry(h).or_default().push(j);
            }
        }
        if let Some(k) = title_h1(&b, j) {
            by_title.entry(k).or_default().push(j);
        }
        if let Some(s) = slug(url) {
            by_slug.entry(s).or_default().push(j);
        }
        let shingles = b.main.shingles(j);
        if !shingles.is_empty() {
            sizes.insert(j, shingles.len());
            for s in shingles {
                postings.entry(s).or_default().push(j);
            }
        }
    }
    postings.retain(|_, v| v.len() <= MAX_POSTINGS);

    let requests: FxHashMap<u64, u64> = old_config
        .log_hits
        .iter()
        .map(|h| {
            let r = h.requests();
            (
                u64::from(h.url),
                r.verified_bots + r.unverified_bots + r.fake_bots + r.others,
            )
        })
        .collect();

    let mut rows = Vec::new();
    for i in pages(&a) {
        let url = a.url(i);
        // Among several new pages, the one whose path ends like the old one's.
        let best = |c: &[u32]| -> Option<u32> {
            c.iter().copied().max_by(|&x, &y| {
                common_suffix(url, b.url(x))
                    .cmp(&common_suffix(url, b.url(y)))
                    .then_with(|| b.url(y).cmp(b.url(x)))
            })
        };
        let unique = |c: Option<&Vec<u32>>| c.filter(|c| c.len() == 1).map(|c| c[0]);
        let content = a.content(i);
        let found: Option<(u32, u32, MatchBasis)> = if let Some(&j) = by_url.get(url) {
            Some((j, 100, MatchBasis::SameUrl))
        } else if let Some(j) =
            content.and_then(|c| by_text.get(&c.text_hash).and_then(|v| best(v)))
        {
            Some((j, 100, MatchBasis::IdenticalText))
        } else if let Some(j) = content
            .and_then(|c| c.main)
            .filter(|&(_, w)| w >= old_config.min_words)
            .and_then(|(h, _)| by_main.get(&h).and_then(|v| best(v)))
        {
            Some((j, 95, MatchBasis::IdenticalMainContent))
        } else if let Some((j, s)) = near(&a.main.shingles(i), &postings, &sizes, url, &b) {
            let percent = (s * 100.0).round() as u32;
            let agrees = match (a.fetch(i), b.fetch(j)) {
                (Some(x), Some(y)) => {
                    let (tx, ty) = (x.title.as_deref(), y.title.as_deref());
                    (tx.is_some() && tx.map(title_stem) == ty.map(title_stem))
                        || (x.h1.is_some() && x.h1 == y.h1)
                }
                _ => false,
            };
            let confidence = percent.min(94) + if agrees { 5 } else { 0 };
            Some((
                j,
                confidence.min(99),
                MatchBasis::NearMainContent { percent },
            ))
        } else if let Some(j) = title_h1(&a, i).and_then(|k| unique(by_title.get(&k))) {
            Some((j, 75, MatchBasis::TitleAndH1))
        } else if let Some(j) = by_path.get(path_of(url)).and_then(|v| best(v)) {
            Some((j, 70, MatchBasis::SamePath))
        } else {
            slug(url)
                .and_then(|s| unique(by_slug.get(&s)))
                .map(|j| (j, 50, MatchBasis::SameSlug))
        };
        let (new_url, confidence, basis) = match found {
            Some((j, c, MatchBasis::SameUrl)) => (Some(b.url_string(j)), c, MatchBasis::SameUrl),
            Some((j, c, basis)) => {
                let to = preferred
                    .get(&b.id(j))
                    .map_or_else(|| b.url_string(j), |p| (*p).to_owned());
                (Some(to), c, basis)
            }
            None => (None, 0, MatchBasis::Unmatched),
        };
        rows.push(MigrationRow {
            old_url: a.url_string(i),
            new_url,
            confidence,
            basis,
            inlinks: a.inlinks(i),
            log_requests: requests.get(&u64::from(a.id(i))).copied().unwrap_or(0),
        });
    }
    let rank = |r: &MigrationRow| match r.basis {
        MatchBasis::SameUrl => 0,
        MatchBasis::Unmatched => 2,
        _ => 1,
    };
    rows.sort_by(|x, y| {
        rank(x)
            .cmp(&rank(y))
            .then_with(|| x.confidence.cmp(&y.confidence))
            .then_with(|| y.inlinks.cmp(&x.inlinks))
            .then_with(|| y.log_requests.cmp(&x.log_requests))
            .then_with(|| x.old_url.cmp(&y.old_url))
    });
    Migration { rows }
}

/// The new page whose main-content shingles are most like `shingles` (at least
/// [`NEAR`]), with the similarity.
fn near(
    shingles: &[u32],
    postings: &FxHashMap<u32, Vec<u32>>,
    sizes: &FxHashMap<u32, usize>,
    url: &str,
    b: &Site<'_>,
) -> Option<(u32, f64)> {
    if shingles.is_empty() {
        return None;
    }
    let mut common: FxHashMap<u32, usize> = FxHashMap::default();
    for s in shingles {
        for &j in postings.get(s).map_or(&[][..], Vec::as_slice) {
            *common.entry(j).or_default() += 1;
        }
    }
    // The few pages sharing the most indexed shingles, compared in full (the index
    // leaves out the most common shingles).
    let mut ranked: Vec<(u32, usize)> = common.into_iter().collect();
    ranked.sort_unstable_by(|x, y| {
        let share = |(j, c): &(u32, usize)| *c as f64 / sizes[j] as f64;
        share(y).total_cmp(&share(x)).then(x.0.cmp(&y.0))
    });
    ranked.truncate(CANDIDATES);
    ranked
        .into_iter()
        .map(|(j, _)| (j, jaccard(shingles, &b.main.shingles(j))))
        .filter(|&(_, s)| s >= NEAR)
        .max_by(|x, y| {
            x.1.total_cmp(&y.1)
                .then_with(|| common_suffix(url, b.url(x.0)).cmp(&common_suffix(url, b.url(y.0))))
                .then_with(|| b.url(y.0).cmp(b.url(x.0)))
        })
}
