//! What changed between two audits of a site: findings new, resolved and persisting;
//! clusters that formed, grew, shrank, regrouped or dissolved; preferred URLs that changed;
//! status codes, redirects and canonicals that changed; URLs added to and removed from the
//! crawl and the sitemaps.
//!
//! [`diff`] is a pure function over two audits, each given as what the crawl stored
//! ([`AuditInput`]) and what the analysis made of it ([`Analysis`]). Everything is matched
//! by URL, never by row id, so two crawls of an unchanged site in different orders give an
//! empty diff:
//!
//! * findings by their stable key ([`audit::compare`]);
//! * URLs by their canon rfc3986 form;
//! * clusters by their members: an old and a new cluster sharing the most URLs are the
//!   same cluster (ties go to the pair keeping its preferred URL), so the diff can say
//!   "gained 3 URLs", "preferred URL changed", "2 URLs now redirect to the preferred URL".
//!
//! URLs of a crawler trap (a URL pattern either crawl stopped following, such as an
//! endless calendar) are left out of the URL-level sections: which of its endless URLs a
//! crawl reaches depends on the crawl order. The trap itself is a finding, compared like
//! the others.
//!
//! [`AuditDiff::sections`] renders the diff as tables (the CSV files of `dustpan diff --out`
//! and the desktop app's comparison view); [`AuditDiff::summary`] counts each kind of change.
//!
//! ```
//! use audit::{AnalysisConfig, AuditInput, FetchRow, UrlRow, analyse};
//!
//! let page = |id, url: &str, status| {
//!     (UrlRow { id, url: url.into(), ..UrlRow::default() },
//!      FetchRow { url_id: id, status: Some(status), ..FetchRow::default() })
//! };
//! let audit = |pages: &[(UrlRow, FetchRow)]| AuditInput {
//!     urls: pages.iter().map(|p| p.0.clone()).collect(),
//!     fetches: pages.iter().map(|p| p.1.clone()).collect(),
//!     ..AuditInput::default()
//! };
//! let old = audit(&[page(1, "https://example.com/", 200), page(2, "https://example.com/a", 200)]);
//! let new = audit(&[page(1, "https://example.com/a", 404), page(2, "https://example.com/", 200)]);
//! let cfg = AnalysisConfig::default();
//! let (a, b) = (analyse(&old, &cfg), analyse(&new, &cfg));
//! let d = diff::diff((&old, &a), (&new, &b));
//! assert_eq!(d.responses.len(), 1);
//! assert_eq!(d.responses[0].new_status, "404");
//! assert!(diff::diff((&old, &a), (&old, &a)).is_empty());
//! ```

mod clusters;
mod findings;
mod pages;
mod rules;
mod table;
mod traps;
mod urls;

pub use clusters::{ClusterChange, ClusterChangeKind, MemberChange};
pub use findings::{FindingRef, FindingsDiff};
pub use pages::{
    CanonicalChange, NotCompared, Presence, ResponseChange, SitemapEntryChange, UrlChange,
};
pub use rules::CrawlRules;
pub use table::DiffTable;

use audit::{Analysis, AuditInput};
use serde::Serialize;

/// Everything that changed between an older and a newer audit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditDiff {
    /// Findings new, resolved and persisting.
    pub findings: FindingsDiff,
    /// Clusters that formed, dissolved or changed, sorted by preferred URL.
    pub clusters: Vec<ClusterChange>,
    /// Cluster changes one audit could not see: a cluster that formed, grew or regrouped
    /// with a URL the older audit did not fetch (it stopped at a limit, was cancelled,
    /// listed its URLs, or its own crawl rules kept the URL out), or one that dissolved,
    /// shrank or regrouped losing a URL the newer audit did not fetch.
    pub clusters_not_comparable: Vec<ClusterChange>,
    /// URLs whose status code or redirect target changed.
    pub responses: Vec<ResponseChange>,
    /// URLs one audit did not fetch, or never met, because of its own configuration (its
    /// hosts and include / exclude patterns, nofollow, its depth and URL limits, a stop
    /// before the end), sorted by URL: not compared, whatever the other audit got. What the
    /// site decided (robots.txt, a redirect, an error) stays a change.
    pub not_compared: Vec<NotCompared>,
    /// Pages whose canonical declarations changed.
    pub canonicals: Vec<CanonicalChange>,
    /// URLs only one audit saw.
    pub urls: Vec<UrlChange>,
    /// Sitemap entries only one audit read.
    pub sitemap_entries: Vec<SitemapEntryChange>,
    /// Why the two audits may not compare like for like: differences in coverage (URLs
    /// left uncrawled, far fewer pages fetched). Callers add configuration differences.
    pub warnings: Vec<String>,
}

/// Compares an older audit with a newer one, without their include / exclude patterns
/// ([`diff_with_rules`] names the pattern that kept a URL out).
pub fn diff(old: (&AuditInput, &Analysis), new: (&AuditInput, &Analysis)) -> AuditDiff {
    let none = CrawlRules::default();
    diff_with_rules(old, new, [&none, &none])
}

/// Compares an older audit with a newer one, each with the include / exclude patterns of
/// its configuration (`rules`: older, newer): a URL one audit's patterns keep out is not
/// compared, and the reason names the pattern.
pub fn diff_with_rules(
    old: (&AuditInput, &Analysis),
    new: (&AuditInput, &Analysis),
    rules: [&CrawlRules; 2],
) -> AuditDiff {
    let traps = traps::Traps::new([old.0, new.0]);
    let (old_urls, new_urls) = (
        urls::Urls::new(old.0, &traps),
        urls::Urls::new(new.0, &traps),
    );
    let (old_views, new_views) = (clusters::views(old.1), clusters::views(new.1));
    let (old_seen, new_seen) = (Coverage::of(old.0, rules[0]), Coverage::of(new.0, rules[1]));
    // A cluster change is known only where both audits could see its URLs: the URLs it
    // gained covered by the older audit, none it lost kept out by the newer one's own
    // configuration.
    let older_saw = |c: &ClusterChange| c.added.iter().all(|u| old_seen.covers(u));
    let (clusters, clusters_not_comparable): (Vec<_>, Vec<_>) =
        clusters::compare(&old_views, &new_views)
            .into_iter()
            .partition(|c| older_saw(c) && !c.removed.iter().any(|u| new_seen.kept_out(u)));
    let clusters_older_partial = clusters_not_comparable
        .iter()
        .filter(|c| !older_saw(c))
        .count();
    let mut not_compared = Vec::new();
    let responses = pages::response_changes(&old_urls, &new_urls, rules, &mut not_compared);
    let urls = pages::url_changes(&old_urls, &new_urls, rules, &mut not_compared);
    not_compared.sort_by(|a, b| a.url.cmp(&b.url));
    let mut d = AuditDiff {
        warnings: Vec::new(),
        findings: findings::compare(&old.1.findings, &new.1.findings, &old_seen, &new_seen),
        clusters,
        clusters_not_comparable,
        responses,
        not_compared,
        canonicals: pages::canonical_changes(old.0, &old_urls, new.0, &new_urls),
        urls,
        sitemap_entries: pages::sitemap_changes(old.0, &old_urls, new.0, &new_urls),
    };
    d.warnings = coverage_warnings(old.0, new.0, &d, clusters_older_partial);
    d
}

impl AuditDiff {
    /// Nothing changed (persisting findings are not a change).
    pub fn is_empty(&self) -> bool {
        self.summary()
            .iter()
            .all(|(label, n)| *n == 0 || NOT_CHANGES.contains(label))
    }

    /// Clusters whose preferred URL changed.
    pub fn preferred_changes(&self) -> impl Iterator<Item = &ClusterChange> {
        self.clusters.iter().filter(|c| c.preferred_changed())
    }

    /// How many changes of each kind, in a fixed order (zeros included).
    pub fn summary(&self) -> Vec<(&'static str, usize)> {
        let kind = |k: ClusterChangeKind| self.clusters.iter().filter(|c| c.kind == k).count();
        let urls = |p: Presence| self.urls.iter().filter(|u| u.change == p).count();
        let entries = |p: Presence| {
            self.sitemap_entries
                .iter()
                .filter(|u| u.change == p)
                .count()
        };
        vec![
            ("findings new", self.findings.new.len()),
            ("findings resolved", self.findings.resolved.len()),
            (NOT_CRAWLED, self.findings.not_crawled.len()),
            (NOT_IN_OLDER, self.findings.not_in_older.len()),
            (PERSISTING, self.findings.persisting),
            ("clusters formed", kind(ClusterChangeKind::Formed)),
            (CLUSTERS_NOT_IN_OLDER, self.clusters_not_comparable.len()),
            ("clusters dissolved", kind(ClusterChangeKind::Dissolved)),
            ("clusters grew", kind(ClusterChangeKind::Grew)),
            ("clusters shrank", kind(ClusterChangeKind::Shrank)),
            ("clusters regrouped", kind(ClusterChangeKind::Regrouped)),
            (
                "clusters otherwise changed",
                kind(ClusterChangeKind::Changed),
            ),
            ("preferred URLs changed", self.preferred_changes().count()),
            (
                "cluster members with a new role",
                self.clusters.iter().map(|c| c.members.len()).sum(),
            ),
            ("status or redirect changes", self.responses.len()),
            (NOT_COMPARED, self.not_compared.len()),
            ("canonical changes", self.canonicals.len()),
            ("URLs added", urls(Presence::Added)),
            ("URLs removed", urls(Presence::Removed)),
            ("sitemap entries added", entries(Presence::Added)),
            ("sitemap entries removed", entries(Presence::Removed)),
        ]
    }
}

/// The summary label of findings in both audits (the one count that is not a change).
pub const PERSISTING: &str = "findings persisting";

/// The summary label of older findings whose URLs the newer audit did not fetch (not a
/// change either: nothing is known of them).
pub const NOT_CRAWLED: &str = "findings not crawled";

/// The summary label of newer findings on a URL the older audit did not fetch (not a
/// change: the older audit could not see them).
pub const NOT_IN_OLDER: &str = "findings not comparable: the older audit did not fetch their URLs";

/// The summary label of cluster changes on URLs one audit did not fetch.
pub const CLUSTERS_NOT_IN_OLDER: &str =
    "clusters not comparable: one audit did not fetch their URLs";

/// The summary label of URLs an audit's own configuration kept out ([`NotCompared`]).
pub const NOT_COMPARED: &str =
    "URLs not compared: an audit's own crawl rules or limits kept them out";

/// The summary labels that count something other than a change.
const NOT_CHANGES: [&str; 5] = [
    PERSISTING,
    NOT_CRAWLED,
    NOT_IN_OLDER,
    CLUSTERS_NOT_IN_OLDER,
    NOT_COMPARED,
];

/// What one audit saw of the URLs the other names: an older finding whose URLs the newer
/// audit did not cover is not resolved, and a newer finding, cluster or status on URLs the
/// older audit did not cover is not new. The one rule both directions use.
pub(crate) struct Coverage<'a> {
    /// URLs it fetched (a fetch row).
    fetched: rustc_hash::FxHashSet<&'a str>,
    /// URLs it found, fetched or not.
    found: rustc_hash::FxHashSet<&'a str>,
    /// URLs it found and did not fetch because of its own configuration
    /// ([`rules::configured_out`]).
    kept_out: rustc_hash::FxHashSet<&'a str>,
    /// It left URLs uncrawled at a limit.
    stopped: bool,
    /// Its include / exclude patterns.
    rules: &'a CrawlRules,
}

impl<'a> Coverage<'a> {
    fn of(input: &'a AuditInput, rules: &'a CrawlRules) -> Self {
        let ids: rustc_hash::FxHashSet<u32> = input.fetches.iter().map(|f| f.url_id).collect();
        // Findings name URLs in their rfc3986 form; the URL as first found may differ.
        let forms = |u: &'a audit::UrlRow| [u.url_rfc3986.as_str(), u.found_url()];
        Self {
            fetched: input
                .urls
                .iter()
                .filter(|u| ids.contains(&u.id))
                .flat_map(forms)
                .collect(),
            found: input.urls.iter().flat_map(forms).collect(),
            kept_out: input
                .urls
                .iter()
                .filter(|u| !ids.contains(&u.id) && rules::configured_out(u, rules, "").is_some())
                .flat_map(forms)
                .collect(),
            stopped: uncrawled(input) > 0,
            rules,
        }
    }

    /// The audit's own configuration kept `url` out: it found the URL and did not fetch
    /// it for its patterns, nofollow or a limit, or its patterns refuse a URL it never met.
    pub(crate) fn kept_out(&self, url: &str) -> bool {
        self.kept_out.contains(url)
            || (!self.found.contains(url) && self.rules.refusal(url).is_some())
    }

    /// The audit can tell what was at `url`: it fetched the URL, or it ran to completion
    /// without meeting it (the site did not, or no longer, links it) and its patterns
    /// would have admitted it.
    pub(crate) fn covers(&self, url: &str) -> bool {
        self.fetched.contains(url)
            || (!self.stopped && !self.found.contains(url) && self.rules.refusal(url).is_none())
    }
}

/// A URL left uncrawled at a limit: still queued or being fetched, or skipped for
/// `max_urls` or `max_depth`.
fn left_at_limit(u: &audit::UrlRow) -> bool {
    matches!(u.state, audit::UrlState::Queued | audit::UrlState::Fetching)
        || u.reason.as_ref().is_some_and(|r| {
            matches!(
                r.kind,
                audit::ReasonKind::MaxUrls | audit::ReasonKind::MaxDepth
            )
        })
}

/// How many URLs an audit left uncrawled at a limit ([`left_at_limit`]).
fn uncrawled(input: &AuditInput) -> usize {
    input.urls.iter().filter(|u| left_at_limit(u)).count()
}

/// Differences in coverage between the two audits, as sentences, with what the diff
/// left out of the changes because of them.
fn coverage_warnings(
    old: &AuditInput,
    new: &AuditInput,
    d: &AuditDiff,
    clusters_older_partial: usize,
) -> Vec<String> {
    let mut out = Vec::new();
    for (which, input) in [("older", old), ("newer", new)] {
        let n = uncrawled(input);
        if n > 0 {
            out.push(format!(
                "the {which} audit stopped at a limit: {n} URLs it found were not crawled"
            ));
        }
    }
    let (f, c) = (d.findings.not_in_older.len(), clusters_older_partial);
    if f + c > 0 {
        out.push(format!(
            "the older audit is partial: it did not fetch every URL the newer one did, so {f} findings and {c} clusters on those URLs are not counted as new or formed"
        ));
    }
    if !d.not_compared.is_empty() {
        out.push(format!(
            "{} URLs are not compared: one audit's own crawl rules or limits kept them out (see \"URLs not compared\")",
            d.not_compared.len()
        ));
    }
    let (a, b) = (old.fetches.len(), new.fetches.len());
    if a.max(b) > 0 && a.abs_diff(b) * 10 > a.max(b) {
        out.push(format!(
            "the audits fetched different numbers of pages ({a} then {b}): findings on pages only one of them fetched are not changes"
        ));
    }
    out
}

#[cfg(test)]
mod tests;
