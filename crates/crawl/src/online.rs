//! DUST learned during the crawl: once the pages fetched so far show a URL rule (a
//! substitution, a parameter that never changes the page) on enough pairs with no
//! counter-example, the frontier stops fetching the URLs the rule says duplicate a URL
//! already known, except a verification sample (one in
//! [`CrawlConfig::dust_check_every`](crate::CrawlConfig::dust_check_every)). A sampled
//! URL whose page differs from its predicted twin is a wrong prediction: it is counted
//! and the rule is dropped at once.
//!
//! Rules are learned from the fetched URLs with [`rules::learn::learn`] (the envelopes of a URL
//! list), and confirmed on the text of pages already fetched, never on extra requests.
//! Learning runs when the fetched pages reach 200, then each time they double, so its
//! cost stays proportional to the crawl.

use std::sync::Mutex;

use canon::Policy;
use rules::{DustRule, RuleStatus};
use rustc_hash::FxHashMap;

/// Fetched pages before the first learning round.
const FIRST_ROUND: usize = 200;
/// Agreeing pairs of fetched pages a rule needs, with no pair that disagrees.
const MIN_AGREEING: u32 = 5;

/// What observing a page changes in the frontier's predictions.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// Rules now confirmed: add them to the predictor.
    pub confirmed: Vec<DustRule>,
    /// Ids of rules whose prediction failed: remove them.
    pub dropped: Vec<String>,
}

/// Counts of the crawl's own rules.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct OnlineCounts {
    /// Rules confirmed during the crawl.
    pub rules: usize,
    /// Of those, rules dropped after a wrong prediction.
    pub dropped: usize,
    /// Verification samples that matched their predicted twin.
    pub verified: u64,
    /// Verification samples that did not: wrong predictions.
    pub wrong: u64,
}

/// One rule learned during the crawl.
#[derive(Debug)]
struct Learned {
    rule: DustRule,
    active: bool,
}

#[derive(Debug, Default)]
struct Inner {
    /// Fetched pages, as fetched.
    urls: Vec<String>,
    /// Their text fingerprints by equivalence key.
    pages: FxHashMap<String, (u64, Option<u64>)>,
    /// Observations at which the next learning round runs.
    next_round: usize,
    rules: Vec<Learned>,
    counts: OnlineCounts,
}

/// The crawl's DUST learner (one per run; see the module docs).
#[derive(Debug)]
pub(crate) struct OnlineDust {
    policy: Policy,
    inner: Mutex<Inner>,
}

impl OnlineDust {
    /// A learner for keys under `policy` (the predictor's), starting from rules an earlier
    /// run of the audit confirmed.
    pub(crate) fn new(policy: Policy, earlier: Vec<DustRule>) -> Self {
        let rules = earlier
            .into_iter()
            .map(|rule| Learned { rule, active: true })
            .collect::<Vec<_>>();
        let counts = OnlineCounts {
            rules: rules.len(),
            ..OnlineCounts::default()
        };
        OnlineDust {
            policy,
            inner: Mutex::new(Inner {
                next_round: FIRST_ROUND,
                rules,
                counts,
                ..Inner::default()
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records a fetched HTML page's text fingerprints, checks it against the rules that
    /// predicted it (a verification sample), and learns when the fetched pages reach the
    /// next round.
    pub(crate) fn observe(&self, url: &str, text_hash: u64, simhash: Option<u64>) -> Changes {
        let Ok(key) = canon::equivalence_key(url, &self.policy) else {
            return Changes::default();
        };
        let mut changes = Changes::default();
        let mut inner = self.lock();
        // A page an active rule predicts to duplicate a fetched page: compare.
        let mut verdicts = Vec::new();
        for (k, l) in inner.rules.iter().enumerate() {
            if !l.active {
                continue;
            }
            if let Some(twin) = l.rule.apply(&key)
                && twin != key
                && let Some(&(h, s)) = inner.pages.get(&twin)
            {
                verdicts.push((k, same((text_hash, simhash), (h, s))));
            }
        }
        for (k, ok) in verdicts {
            if ok {
                inner.counts.verified += 1;
            } else {
                inner.counts.wrong += 1;
                inner.counts.dropped += 1;
                inner.rules[k].active = false;
                changes.dropped.push(inner.rules[k].rule.id.clone());
            }
        }
        inner.pages.insert(key, (text_hash, simhash));
        inner.urls.push(url.to_owned());
        if inner.urls.len() >= inner.next_round {
            inner.next_round = inner.urls.len() * 2;
            changes.confirmed = self.learn_round(&mut inner);
        }
        changes
    }

    /// Learns candidates from the fetched URLs and confirms those whose pairs of fetched
    /// pages all agree (at least [`MIN_AGREEING`]).
    fn learn_round(&self, inner: &mut Inner) -> Vec<DustRule> {
        let options = rules::learn::Options {
            policy: self.policy.clone(),
            max_pairs: 12,
            ..rules::learn::Options::default()
        };
        let learned = rules::learn::learn(inner.urls.iter().cloned(), &options);
        let mut confirmed = Vec::new();
        for c in learned.candidates {
            if inner.rules.iter().any(|l| l.rule.id == c.rule.id) {
                continue;
            }
            let (mut agreed, mut differ) = (0u32, 0u32);
            for &(a, b) in &c.pairs {
                let fingerprint = |i: u32| {
                    learned.keys[i as usize]
                        .as_ref()
                        .and_then(|k| inner.pages.get(k))
                        .copied()
                };
                if let (Some(x), Some(y)) = (fingerprint(a), fingerprint(b)) {
                    if same(x, y) {
                        agreed += 1;
                    } else {
                        differ += 1;
                    }
                }
            }
            if differ == 0 && agreed >= MIN_AGREEING {
                let mut rule = c.rule;
                rule.agreed = agreed;
                rule.applicable = agreed;
                rule.precision = 1.0;
                rule.status = RuleStatus::Confirmed;
                inner.counts.rules += 1;
                inner.rules.push(Learned {
                    rule: rule.clone(),
                    active: true,
                });
                confirmed.push(rule);
            }
        }
        confirmed
    }

    /// The rules still in use.
    #[cfg(test)]
    fn active_rules(&self) -> Vec<DustRule> {
        self.lock()
            .rules
            .iter()
            .filter(|l| l.active)
            .map(|l| l.rule.clone())
            .collect()
    }

    /// Every rule learned during this run and the earlier ones: in use (confirmed) or
    /// dropped after a wrong prediction (rejected).
    pub(crate) fn rules(&self) -> Vec<DustRule> {
        self.lock()
            .rules
            .iter()
            .map(|l| {
                let mut r = l.rule.clone();
                if !l.active {
                    r.status = RuleStatus::Rejected;
                }
                r
            })
            .collect()
    }

    /// The policy the rules' keys are made under.
    pub(crate) fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The learner's counts.
    pub(crate) fn counts(&self) -> OnlineCounts {
        self.lock().counts.clone()
    }
}

/// Two fetched pages are one when their visible text is identical. Nearly identical
/// text is two pages: on a page made mostly of the site's template, a few lines of
/// difference leave it nearly the same, and near-identical evidence never merges in the
/// analysis either.
fn same(a: (u64, Option<u64>), b: (u64, Option<u64>)) -> bool {
    a.0 == b.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(k: u64) -> (u64, Option<u64>) {
        (
            1000 + k,
            Some((1000 + k).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        )
    }

    #[test]
    fn a_parameter_that_never_changes_the_page_is_confirmed_then_dropped_on_a_miss() {
        let dust = OnlineDust::new(Policy::seo(), Vec::new());
        let mut confirmed = Vec::new();
        for k in 0..150u64 {
            let (h, s) = page(k);
            for url in [
                format!("https://s.test/p/{k}"),
                format!("https://s.test/p/{k}?view=full"),
            ] {
                confirmed.extend(dust.observe(&url, h, s).confirmed);
            }
        }
        let ids: Vec<&str> = confirmed.iter().map(|r| r.id.as_str()).collect();
        assert!(ids.contains(&"drop_param:view"), "{ids:?}");
        // A sample whose twin was not fetched says nothing.
        let (h, s) = page(999);
        let changes = dust.observe("https://s.test/p/500?view=full", h, s);
        assert!(changes.dropped.is_empty());
        // A sample that matches its twin is verified.
        let verified = dust.counts().verified;
        let (h8, s8) = page(8);
        assert!(
            dust.observe("https://s.test/p/8?view=print", h8, s8)
                .dropped
                .is_empty()
        );
        assert_eq!(dust.counts().verified, verified + 1);
        // A sample that is another page: a wrong prediction, and the rule goes.
        let (h7, s7) = page(7);
        let changes = dust.observe("https://s.test/p/9?view=compact", h7, s7);
        assert_eq!(changes.dropped, ["drop_param:view"]);
        let counts = dust.counts();
        assert_eq!(counts.wrong, 1, "{counts:?}");
        assert!(
            !dust
                .active_rules()
                .iter()
                .any(|r| r.id == "drop_param:view")
        );
    }

    #[test]
    fn an_identifier_is_never_confirmed() {
        let dust = OnlineDust::new(Policy::seo(), Vec::new());
        let mut confirmed = Vec::new();
        for k in 0..300u64 {
            let (h, s) = page(k);
            confirmed.extend(
                dust.observe(&format!("https://s.test/show?id={k}"), h, s)
                    .confirmed,
            );
        }
        assert!(confirmed.is_empty(), "{confirmed:?}");
    }
}
