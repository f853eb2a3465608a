//! What an analysis hands back: the clusters, the findings, the learned rules, the
//! site's preferences and the counts, with the redirects the site answers today.

use crate::checks::KeptLink;
use crate::checks::metadata::DuplicateValue;
use crate::cluster::{Cluster, EdgeCounts};
use crate::dust::{LearnedRules, ParamStats};
use crate::finding::{Finding, FindingId};
use crate::input::UrlId;
use crate::log_waste::LogWaste;
use crate::probes::VariantRule;
use serde::{Deserialize, Serialize};

/// What the site's own redirects say it prefers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteSignals {
    /// `https` or `http`, when scheme-changing redirects lean one way.
    pub preferred_scheme: Option<String>,
    /// Host names the site redirects away from more than to.
    pub demoted_hosts: Vec<String>,
    /// Host-changing redirects: `(from host, to host, count)`.
    pub host_redirects: Vec<(String, String, u32)>,
}

/// Counts describing one analysis.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// URL rows.
    pub urls: u32,
    /// URLs with a fetch row.
    pub fetched: u32,
    /// 2xx pages with at least `min_words` words.
    pub with_content: u32,
    /// URLs whose key canon could not form (not http(s), invalid).
    pub unkeyed: u32,
    /// Clusters (two or more URLs).
    pub clusters: u32,
    /// URLs in clusters.
    pub clustered_urls: u32,
    /// Merges by kind of evidence.
    pub merges: EdgeCounts,
    /// Distinct text blocks learned as the site's template (over all hosts).
    #[serde(default)]
    pub template_blocks: u32,
    /// Of those, blocks frequent within one kind of page only ("No reviews yet" on the
    /// product pages): left out of similarity, kept in identity claims.
    #[serde(default)]
    pub type_template_blocks: u32,
    /// Pages whose stored text blocks could not be read (their content is compared as
    /// a whole).
    #[serde(default)]
    pub unreadable_blocks: u32,
}

/// Everything the analysis found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Clusters of two or more URLs, sorted by preferred URL.
    pub clusters: Vec<Cluster>,
    /// Findings, sorted by severity, id and key.
    pub findings: Vec<Finding>,
    /// Rules learned from this audit (and carried ones re-measured); serialize them
    /// into the next audit's [`AnalysisConfig::learned`](crate::AnalysisConfig::learned).
    pub learned: LearnedRules,
    /// The parameter classifier: every query parameter seen, with its evidence.
    pub params: Vec<ParamStats>,
    /// The site's scheme and host preferences.
    pub site: SiteSignals,
    /// Words of main content (the site's template removed) per page with stored text
    /// blocks, by URL id.
    #[serde(default)]
    pub main_words: Vec<(UrlId, u32)>,
    /// Hash of the main content per page with stored text blocks, by URL id: pages
    /// with the same hash have the same main content.
    #[serde(default)]
    pub main_hashes: Vec<(UrlId, u64)>,
    /// The redirects the site answers today (first hop of every crawled URL that
    /// redirects), sorted by source: what the fix files compare their map with.
    #[serde(default)]
    pub live_redirects: Vec<SiteRedirect>,
    /// A list audit of an access log: the clusters whose non-preferred URLs the log
    /// shows requested (crawl budget spent on duplicates), most search-engine bot
    /// requests first; empty otherwise.
    #[serde(default)]
    pub log_waste: Vec<LogWaste>,
    /// URLs that are not their cluster's preferred URL, yet whose internal links stay
    /// as they are, and why (no link fix, no row in `links_to_non_preferred.csv`).
    #[serde(default)]
    pub kept_links: Vec<(UrlId, KeptLink)>,
    /// How the server answers URL variants no page links to, rule by rule (the
    /// crawler's probes judged, see [`probes`](crate::probes)); empty for an audit without probes.
    #[serde(default)]
    pub url_variants: Vec<VariantRule>,
    /// Titles, first headings and meta descriptions that different pages share, each
    /// cluster counted once through its preferred URL (see the `TITLE-DUPLICATE`,
    /// `H1-DUPLICATE` and `META-DESCRIPTION-DUPLICATE` findings).
    #[serde(default)]
    pub duplicate_values: Vec<DuplicateValue>,
    /// Counts.
    pub stats: Stats,
}

impl Analysis {
    /// The cluster containing the URL, if it is in one.
    pub fn cluster_of(&self, id: UrlId) -> Option<&Cluster> {
        self.clusters
            .iter()
            .find(|c| c.members.iter().any(|m| m.url_id == id))
    }

    /// Findings with one id.
    pub fn findings_with(&self, id: FindingId) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.id == id)
    }
}

/// One redirect the site answers today: the first hop of a crawled URL.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteRedirect {
    /// The URL that redirects.
    pub source: String,
    /// Where its first hop goes.
    pub to: String,
    /// The hop's status (301, 302, ...).
    pub status: u16,
}
