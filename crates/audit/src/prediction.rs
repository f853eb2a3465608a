//! How learned rules did when a crawl used them to skip predicted duplicates.

use crate::dust::LearnedRules;
use crate::input::{AuditInput, UrlState};
use crate::site::distance;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

pub use rules::PREDICTED_DUPLICATE;

/// What skipping predicted duplicates saved, and how often a prediction was wrong.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PredictionCheck {
    /// URLs not fetched because the rules predicted them to be duplicates
    /// (state skipped, reason [`PREDICTED_DUPLICATE`]).
    pub skipped: u32,
    /// Fetched pages for which the rules predict a duplicate of another fetched page
    /// (the verification sample, and pages found before their twin was known).
    pub checked: u32,
    /// Of those, pages whose text is neither identical nor near-identical to the
    /// predicted twin's (or the twin answered an error): wrong predictions.
    pub wrong: u32,
}

impl PredictionCheck {
    /// `wrong / checked` (0 when nothing was checked).
    pub fn wrong_rate(&self) -> f64 {
        if self.checked == 0 {
            0.0
        } else {
            f64::from(self.wrong) / f64::from(self.checked)
        }
    }
}

/// Counts the skips of a crawl that used `rules`, and checks the rules' predictions on
/// every pair of fetched pages they apply to. `near_distance` is the near-duplicate
/// threshold (SimHash bits).
pub fn check_predictions(
    input: &AuditInput,
    rules: &LearnedRules,
    near_distance: u32,
) -> PredictionCheck {
    struct Seen {
        ok: bool,
        text_hash: Option<u64>,
        simhash: Option<u64>,
    }
    let mut check = PredictionCheck::default();
    let fetches: FxHashMap<u32, usize> = input
        .fetches
        .iter()
        .enumerate()
        .map(|(i, f)| (f.url_id, i))
        .collect();
    let mut by_key: FxHashMap<String, Seen> = FxHashMap::default();
    let mut pages: Vec<String> = Vec::new();
    for u in &input.urls {
        if u.state == UrlState::Skipped
            && u.reason.as_ref().map(|r| r.kind) == Some(crate::input::ReasonKind::DustDuplicate)
        {
            check.skipped += 1;
            continue;
        }
        let Some(&fi) = fetches.get(&u.id) else {
            continue;
        };
        let f = &input.fetches[fi];
        let Some(status) = f.status else { continue };
        if (300..400).contains(&status) {
            continue;
        }
        let Ok(key) = canon::equivalence_key(u.found_url(), &rules.policy) else {
            continue;
        };
        let ok = (200..300).contains(&status) && f.text_hash.is_some();
        if ok {
            pages.push(key.clone());
        }
        by_key.entry(key).or_insert(Seen {
            ok,
            text_hash: f.text_hash,
            simhash: f.simhash,
        });
    }
    for key in &pages {
        let Some(twin) = rules.predicts_duplicate_of_key(key) else {
            continue;
        };
        let (Some(a), Some(b)) = (by_key.get(key), by_key.get(&twin)) else {
            continue;
        };
        check.checked += 1;
        let same = b.ok
            && (a.text_hash == b.text_hash
                || matches!((a.simhash, b.simhash), (Some(x), Some(y)) if distance(x, y) <= near_distance));
        if !same {
            check.wrong += 1;
        }
    }
    check
}
