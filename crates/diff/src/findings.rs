//! Findings new, resolved and persisting, matched by their stable key (built from URLs).

use audit::{Finding, Severity};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// One finding as the diff reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FindingRef {
    /// The stable per-instance key.
    pub key: String,
    /// The finding id's code (`DUP-HOST`, ...).
    pub code: String,
    /// Its severity.
    pub severity: Severity,
    /// The id's title.
    pub title: String,
    /// One sentence about this instance.
    pub summary: String,
    /// The URLs concerned.
    pub urls: Vec<String>,
}

impl FindingRef {
    fn of(f: &Finding) -> FindingRef {
        FindingRef {
            key: f.key.clone(),
            code: f.id.code().to_owned(),
            severity: f.severity,
            title: f.title.to_string(),
            summary: f.summary.clone(),
            urls: f.urls.clone(),
        }
    }
}

/// How the findings of two audits compare.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FindingsDiff {
    /// Findings only in the newer audit.
    pub new: Vec<FindingRef>,
    /// Findings only in the older audit whose URLs the newer audit fetched: fixed.
    pub resolved: Vec<FindingRef>,
    /// Findings only in the older audit with a URL the newer audit did not fetch (a
    /// crawl stopped at a limit, a narrower scope): not seen, so not known to be fixed.
    pub not_crawled: Vec<FindingRef>,
    /// Findings only in the newer audit with a URL the older audit did not fetch (it
    /// stopped at a limit, was cancelled, or listed its URLs): not known to be new.
    pub not_in_older: Vec<FindingRef>,
    /// How many findings are in both.
    pub persisting: usize,
}

fn by_key(findings: &[Finding]) -> FxHashMap<&str, &Finding> {
    let mut map = FxHashMap::with_capacity_and_hasher(findings.len(), Default::default());
    for f in findings {
        map.entry(f.key.as_str()).or_insert(f);
    }
    map
}

fn sorted(mut v: Vec<FindingRef>) -> Vec<FindingRef> {
    v.sort_by(|a, b| (a.severity, &a.code, &a.key).cmp(&(b.severity, &b.code, &b.key)));
    v
}

/// The finding's web addresses are all covered by `coverage`.
fn seen(f: &FindingRef, coverage: &crate::Coverage<'_>) -> bool {
    f.urls
        .iter()
        .filter(|u| u.starts_with("http://") || u.starts_with("https://"))
        .all(|u| coverage.covers(u))
}

/// Compares two audits' findings by key ([`audit::compare`]); an older finding with a
/// URL the newer audit did not cover is not crawled rather than resolved, and a newer
/// finding with a URL the older audit did not cover is not comparable rather than new.
pub(crate) fn compare(
    old: &[Finding],
    new: &[Finding],
    old_seen: &crate::Coverage<'_>,
    new_seen: &crate::Coverage<'_>,
) -> FindingsDiff {
    let c = audit::compare(old, new);
    let (old_by, new_by) = (by_key(old), by_key(new));
    let refs = |keys: &[String], by: &FxHashMap<&str, &Finding>| -> Vec<FindingRef> {
        keys.iter()
            .filter_map(|k| by.get(k.as_str()).map(|f| FindingRef::of(f)))
            .collect()
    };
    let (resolved, not_crawled): (Vec<FindingRef>, Vec<FindingRef>) = refs(&c.resolved, &old_by)
        .into_iter()
        .partition(|f| seen(f, new_seen));
    let (new, not_in_older): (Vec<FindingRef>, Vec<FindingRef>) = refs(&c.new, &new_by)
        .into_iter()
        .partition(|f| seen(f, old_seen));
    FindingsDiff {
        new: sorted(new),
        resolved: sorted(resolved),
        not_crawled: sorted(not_crawled),
        not_in_older: sorted(not_in_older),
        persisting: c.persisting.len(),
    }
}
