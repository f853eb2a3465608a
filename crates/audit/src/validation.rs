//! The samples that test a learned rule after the crawl: what the crawler may fetch
//! ([`ValidationCandidate`], chosen by `dust::validation_candidates`) and what it got
//! ([`ValidationFetch`], measured by `dust::measure_validation`). Plain data, below both
//! the configuration that carries stored samples and the rules that use them.

use serde::{Deserialize, Serialize};

/// A URL the crawler may fetch to test a rule: `rewritten` is what the rule predicts is
/// a duplicate of the already fetched `url`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidationCandidate {
    /// A fetched URL (its equivalence key) where the rule applies.
    pub url: String,
    /// The rewritten URL, not fetched by the audit.
    pub rewritten: String,
    /// `url`'s text hash.
    pub text_hash: u64,
    /// `url`'s SimHash.
    pub simhash: Option<u64>,
}

/// What the crawler got for one validation candidate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidationFetch {
    /// The id of the rule tested.
    pub rule_id: String,
    /// The candidate fetched.
    pub candidate: ValidationCandidate,
    /// The rewritten URL's HTTP status (`None`: no response).
    pub status: Option<u16>,
    /// Its text hash.
    pub text_hash: Option<u64>,
    /// Its SimHash.
    pub simhash: Option<u64>,
}
