//! DUST rules learned from a site's URLs (Schonfeld, Bar-Yossef, Keidar: "Do not crawl
//! in the DUST"): what the crawler needs to skip predicted duplicates and what the
//! analysis learns, measures and reports. A leaf: the crawler and the analysis share
//! these types without depending on each other.

pub mod learn;
pub mod same_page;
pub mod url;

use canon::Policy;
use serde::{Deserialize, Serialize};
use url::{params, split, with_query};

/// The skip reason a crawler records for a URL that learned rules predict to duplicate
/// an already known URL.
pub const PREDICTED_DUPLICATE: &str = "dust_duplicate";

/// How far a rule is trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleStatus {
    /// Enough support and precision: used as cluster evidence and to skip fetches.
    Confirmed,
    /// Too little evidence either way: fetch validation samples (the analysis's `validation_candidates`) to decide.
    NeedsValidation,
    /// Measured, and wrong too often.
    Rejected,
}

impl RuleStatus {
    /// `confirmed`, `needs validation` or `rejected`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleStatus::Confirmed => "confirmed",
            RuleStatus::NeedsValidation => "needs validation",
            RuleStatus::Rejected => "rejected",
        }
    }
}

/// The kind of character that follows a substitution's `from` text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NextChar {
    /// The end of the URL.
    End,
    /// An ASCII digit.
    Digit,
    /// A letter.
    Letter,
    /// Anything else (`/`, `?`, `&`, `.`, `-`, ...).
    Other,
}

impl NextChar {
    /// The kind of the first character of `rest`.
    pub fn of(rest: &str) -> NextChar {
        match rest.chars().next() {
            None => NextChar::End,
            Some(c) if c.is_ascii_digit() => NextChar::Digit,
            Some(c) if c.is_alphabetic() => NextChar::Letter,
            Some(_) => NextChar::Other,
        }
    }
}

/// What a rule rewrites.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DustRuleKind {
    /// Replace the first occurrence of `from` (in the path or query, followed by a
    /// character of a kind in `next`) with `to`.
    Replace {
        /// The text replaced.
        from: String,
        /// Its replacement.
        to: String,
        /// Kinds of character seen after `from` in the supporting pairs.
        next: Vec<NextChar>,
    },
    /// Remove every occurrence of the query parameter `name`.
    DropParam {
        /// The parameter's name (case-sensitive, as servers read it).
        name: String,
    },
    /// Another origin serves the same pages: replace the origin `from`
    /// (`https://www.example.com`) with `to`.
    Host {
        /// The alias origin (scheme, host and port, no trailing slash).
        from: String,
        /// The origin that serves the pages.
        to: String,
    },
}

/// One learned rule with its evidence on the audit's own data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DustRule {
    /// A stable id: `replace:FROM=>TO`, `drop_param:NAME` or `host:FROM=>TO`.
    pub id: String,
    /// What it rewrites.
    pub kind: DustRuleKind,
    /// Pairs of identical pages that suggested the rule.
    pub support: u32,
    /// URLs where the rule rewrites to another fetched page.
    pub applicable: u32,
    /// Of those, pairs whose text is the same or near-same.
    pub agreed: u32,
    /// `agreed / applicable` (0 when nothing applied).
    pub precision: f64,
    /// URLs where the rule rewrites to a URL that was not fetched.
    pub unverified: u32,
    /// How far the rule is trusted.
    pub status: RuleStatus,
    /// A few supporting pairs `[url, rewritten]`.
    pub examples: Vec<[String; 2]>,
    /// The validation sample fetched for the rule, when it had too little evidence
    /// (its counts are already folded into `applicable` and `agreed`).
    #[serde(default)]
    pub validation: Option<ValidationReport>,
}

impl DustRule {
    /// A rule of this kind with no evidence yet (status: needs validation).
    pub fn new(kind: DustRuleKind) -> DustRule {
        let id = match &kind {
            DustRuleKind::Replace { from, to, .. } => format!("replace:{from}=>{to}"),
            DustRuleKind::DropParam { name } => format!("drop_param:{name}"),
            DustRuleKind::Host { from, to } => format!("host:{from}=>{to}"),
        };
        DustRule {
            id,
            kind,
            support: 0,
            applicable: 0,
            agreed: 0,
            precision: 0.0,
            unverified: 0,
            status: RuleStatus::NeedsValidation,
            examples: Vec::new(),
            validation: None,
        }
    }

    /// The URL rewritten by the rule, or `None` where it does not apply.
    ///
    /// `url` is an equivalence key under the policy the rule was learned with.
    pub fn apply(&self, url: &str) -> Option<String> {
        let parts = split(url);
        match &self.kind {
            DustRuleKind::Replace { from, to, next } => {
                if from.is_empty() {
                    return None;
                }
                let (at, _) = url.match_indices(from.as_str()).find(|&(at, _)| {
                    at >= parts.origin_end && next.contains(&NextChar::of(&url[at + from.len()..]))
                })?;
                let mut out = String::with_capacity(url.len() + to.len());
                out.push_str(&url[..at]);
                out.push_str(to);
                out.push_str(&url[at + from.len()..]);
                Some(out)
            }
            DustRuleKind::DropParam { name } => {
                let query = parts.query?;
                let kept: Vec<&str> = params(query)
                    .filter(|(n, _)| n != name)
                    .map(|(_, c)| c)
                    .collect();
                if kept.len() == params(query).count() {
                    return None;
                }
                Some(with_query(url, &parts, &kept))
            }
            DustRuleKind::Host { from, to } => {
                let rest = url.strip_prefix(from.as_str())?;
                if !(rest.is_empty() || rest.starts_with(['/', '?'])) {
                    return None;
                }
                Some(format!("{to}{rest}"))
            }
        }
    }

    /// Recomputes precision and status from the counts: rejected when it was measured
    /// `min_support` times and missed `min_precision`, confirmed when it reaches both
    /// with that much support, otherwise still to be validated.
    pub fn measure(&mut self, min_support: u32, min_precision: f64) {
        self.precision = if self.applicable == 0 {
            0.0
        } else {
            f64::from(self.agreed) / f64::from(self.applicable)
        };
        self.status = if self.applicable >= min_support && self.precision < min_precision {
            RuleStatus::Rejected
        } else if self.support >= min_support
            && self.applicable >= min_support
            && self.precision >= min_precision
        {
            RuleStatus::Confirmed
        } else {
            RuleStatus::NeedsValidation
        };
    }

    /// Folds a validation sample's measurements into the rule and re-decides its status.
    /// The report is kept in [`DustRule::validation`].
    pub fn apply_validation(
        &mut self,
        report: &ValidationReport,
        min_support: u32,
        min_precision: f64,
    ) {
        self.applicable += report.tested;
        self.agreed += report.agreed;
        self.support = self.support.max(self.agreed);
        self.measure(min_support, min_precision);
        self.validation = Some(report.clone());
    }
}

/// Rules learned on one audit, serializable so a policy can carry them into the next.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LearnedRules {
    /// The canon policy whose equivalence keys the rules rewrite.
    pub policy: Policy,
    /// The rules, confirmed ones first, then by support.
    pub rules: Vec<DustRule>,
}

impl LearnedRules {
    /// The confirmed rules.
    pub fn confirmed(&self) -> impl Iterator<Item = &DustRule> {
        self.rules
            .iter()
            .filter(|r| r.status == RuleStatus::Confirmed)
    }

    /// If confirmed rules say `url` is a duplicate of another URL, that URL (an
    /// equivalence key under [`LearnedRules::policy`]); the crawler may skip fetching
    /// `url` when it fetches the returned one.
    pub fn predicts_duplicate(&self, url: &str) -> Option<String> {
        let key = canon::equivalence_key(url, &self.policy).ok()?;
        self.predicts_duplicate_of_key(&key)
    }

    /// [`LearnedRules::predicts_duplicate`] for a URL already in its equivalence key
    /// form under [`LearnedRules::policy`].
    pub fn predicts_duplicate_of_key(&self, key: &str) -> Option<String> {
        let mut current = key.to_owned();
        if let Some(next) = self
            .confirmed()
            .filter(|r| matches!(r.kind, DustRuleKind::Host { .. }))
            .find_map(|r| r.apply(&current))
        {
            current = next;
        }
        for rule in self.confirmed() {
            if matches!(rule.kind, DustRuleKind::DropParam { .. })
                && let Some(next) = rule.apply(&current)
            {
                current = next;
            }
        }
        if let Some(next) = self
            .confirmed()
            .filter(|r| matches!(r.kind, DustRuleKind::Replace { .. }))
            .find_map(|r| r.apply(&current))
        {
            current = next;
        }
        (current != key).then_some(current)
    }
}

/// The measured outcome of a validation sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationReport {
    /// Candidates that answered (a redirect is left out: it says nothing about text).
    pub tested: u32,
    /// Of those, rewritten pages with the same or near-same text.
    pub agreed: u32,
    /// `tested - agreed`: the rule predicted a duplicate that is not one.
    pub false_positives: u32,
    /// `false_positives / tested` (0 when nothing was tested).
    pub false_positive_rate: f64,
}
