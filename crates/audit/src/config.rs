//! How an analysis runs: the canon policy and the thresholds.

use crate::validation::ValidationFetch;
use canon::Policy;
use rules::LearnedRules;
use serde::{Deserialize, Serialize};

/// The analysis settings. [`Default`] is the documented audit default.
///
/// Re-running [`analyse`](crate::analyse) on the same input with another `policy` is
/// the "what-if": every key is recomputed from the stored raw URLs, nothing is
/// re-crawled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AnalysisConfig {
    /// The canon policy whose equivalence keys group URLs.
    pub policy: Policy,
    /// Pages with fewer words of visible text never merge on content (default 20), so
    /// empty, error and thin template pages do not form clusters.
    pub min_words: u32,
    /// Near-duplicate threshold: the largest SimHash Hamming distance, out of 64 bits,
    /// at which two pages count as near-identical (default 3; see the crate docs).
    pub near_distance: u32,
    /// Near-duplicate threshold on main content: the Jaccard similarity of two pages'
    /// word 3-shingles (the template removed) from which they count as near-identical
    /// (default 0.9). Near-identical content is weak evidence: a review finding, never
    /// a merge on its own; a rel=canonical merges two pages only when their contents
    /// are identical or near-identical. `near_distance` applies instead to pages stored
    /// without text blocks.
    pub near_similarity: f64,
    /// Two pages whose SimHashes differ by more than this many bits (default 9) count
    /// as different pages: when a non-safe normalization rule gives them the same key,
    /// the rule is reported as not holding. Distances between `near_distance` and this
    /// are unclear: neither merged nor reported.
    pub different_distance: u32,
    /// Two pages whose main contents are less similar than this (Jaccard, default 0.5)
    /// are different pages: a non-safe normalization rule that gives them the same
    /// key does not hold. `different_distance` applies to pages without text blocks.
    pub different_similarity: f64,
    /// At most this many pages are listed in one fix (the rest are counted).
    pub max_listed: usize,
    /// DUST rule mining.
    pub dust: DustConfig,
    /// Rules learned by a previous audit of the site: re-measured on this audit, and
    /// used as evidence when they still hold.
    pub learned: Option<LearnedRules>,
    /// Validation samples fetched after the crawl (see
    /// [`validation_candidates`](crate::validation_candidates)): a rule that needed
    /// validation is re-decided with them, and reports its false-positive rate.
    pub validations: Vec<ValidationFetch>,
    /// The audit is a list audit (`dustpan audit --list`): it fetched the URLs it was
    /// given, not what the site links, so no page is called an orphan and none is said to
    /// be missing from the sitemaps.
    pub list_audit: bool,
    /// The requests an access log holds for the audit's URLs (a list audit of a log):
    /// what [`Analysis::log_waste`](crate::Analysis::log_waste) ranks the clusters by.
    pub log_hits: Vec<crate::LogHit>,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        AnalysisConfig {
            policy: Policy::default(),
            min_words: 20,
            near_distance: 3,
            near_similarity: 0.9,
            different_distance: rules::same_page::DIFFERENT_DISTANCE,
            different_similarity: 0.5,
            max_listed: 100,
            dust: DustConfig::default(),
            learned: None,
            validations: Vec::new(),
            list_audit: false,
            log_hits: Vec::new(),
        }
    }
}

impl AnalysisConfig {
    /// The default settings under another canon policy.
    pub fn with_policy(policy: Policy) -> Self {
        AnalysisConfig {
            policy,
            ..AnalysisConfig::default()
        }
    }
}

/// Settings of the DUST rule miner (Schonfeld, Bar-Yossef, Keidar).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DustConfig {
    /// Mine rules at all.
    pub enabled: bool,
    /// A rule needs this many supporting URL pairs, and this many measured pairs, to be
    /// confirmed (default 3).
    pub min_support: u32,
    /// A rule needs this precision on the audit's own pairs to be confirmed (default 0.9).
    pub min_precision: f64,
    /// At most this many URLs of one identical-content group are paired (default 16).
    pub max_group: usize,
    /// At most this many candidate substitution rules are measured (default 32).
    pub max_rules: usize,
    /// Substitutions longer than this many bytes (both sides) are not rules (default 64).
    pub max_substitution: usize,
}

impl Default for DustConfig {
    fn default() -> Self {
        DustConfig {
            enabled: true,
            min_support: 3,
            min_precision: 0.9,
            max_group: 16,
            max_rules: 32,
            max_substitution: 64,
        }
    }
}
