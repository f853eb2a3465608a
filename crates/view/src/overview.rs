//! The overview of an audit: totals and the data of its charts.

use crate::family::{FAMILIES, family};
use crate::tables::cluster_cause;
use crate::types::{AuditStatus, CountItem, Overview};
use audit::{Analysis, AuditInput, Severity, UrlId};
use std::collections::{BTreeMap, HashMap, HashSet};

fn item(label: impl Into<String>, count: usize) -> CountItem {
    CountItem {
        label: label.into(),
        count: count as u32,
    }
}

/// Hops from each redirect chain's entry URL (a redirecting URL no other redirect
/// leads to; every URL of a loop) to its end.
pub fn chain_lengths(input: &AuditInput) -> Vec<u32> {
    let next: HashMap<UrlId, Option<UrlId>> =
        input.redirects.iter().map(|r| (r.from, r.to)).collect();
    let targets: HashSet<UrlId> = input.redirects.iter().filter_map(|r| r.to).collect();
    let mut lengths = Vec::new();
    for r in &input.redirects {
        if targets.contains(&r.from) {
            continue;
        }
        let mut seen = HashSet::from([r.from]);
        let mut at = r.from;
        let mut hops = 0u32;
        while let Some(to) = next.get(&at) {
            hops += 1;
            let Some(to) = *to else { break };
            if !seen.insert(to) || hops > 50 {
                break;
            }
            at = to;
        }
        lengths.push(hops);
    }
    lengths
}

/// Computes the overview.
pub fn compute(
    audit: &store::Audit,
    input: &AuditInput,
    analysis: &Analysis,
    policy: &str,
) -> Overview {
    let mut severity = [0usize; 3];
    let mut families: HashMap<&'static str, usize> = HashMap::new();
    for f in &analysis.findings {
        severity[match f.severity {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Notice => 2,
        }] += 1;
        *families.entry(family(f.id)).or_default() += 1;
    }
    let mut causes: BTreeMap<&'static str, usize> = BTreeMap::new();
    for c in &analysis.clusters {
        *causes.entry(cluster_cause(c)).or_default() += 1;
    }
    let mut causes: Vec<CountItem> = causes.into_iter().map(|(k, n)| item(k, n)).collect();
    causes.sort_by(|a, b| b.count.cmp(&a.count).then(a.label.cmp(&b.label)));
    let mut codes: BTreeMap<u16, usize> = BTreeMap::new();
    let mut no_response = 0;
    // The site's answers: the URL variants Dustpan made up to test the server's rules
    // are stated by their rules' findings, not counted as the site's 404s.
    let made_up = input.made_up_urls();
    for f in input
        .fetches
        .iter()
        .filter(|f| !made_up.contains(&f.url_id))
    {
        match f.status {
            Some(s) => *codes.entry(s).or_default() += 1,
            None => no_response += 1,
        }
    }
    let mut status_codes: Vec<CountItem> = codes
        .into_iter()
        .map(|(s, n)| item(s.to_string(), n))
        .collect();
    if no_response > 0 {
        status_codes.push(item("no response", no_response));
    }
    let mut lengths = [0usize; 4];
    for hops in chain_lengths(input) {
        lengths[(hops.clamp(1, 4) - 1) as usize] += 1;
    }
    Overview {
        audit_id: audit.id.0,
        stop: audit.stop.as_ref().map(ToString::to_string),
        failure: audit.failure.clone(),
        start_url: audit.start_urls.first().cloned().unwrap_or_default(),
        // An audit marked running is shown running: only the audits list knows which
        // runs this process carries.
        status: AuditStatus::of(audit.status, true),
        started_at: audit.started_at,
        finished_at: audit.finished_at,
        // The audit's one count of pages fetched (URLs whose request got a response).
        pages: u32::try_from(audit.pages_fetched).unwrap_or(u32::MAX),
        urls: input.urls.len() as u32,
        clusters: analysis.stats.clusters,
        clustered_urls: analysis.stats.clustered_urls,
        findings_by_severity: vec![
            item("error", severity[0]),
            item("warning", severity[1]),
            item("notice", severity[2]),
        ],
        findings_by_family: FAMILIES
            .iter()
            .filter_map(|f| families.get(f).map(|&n| item(*f, n)))
            .collect(),
        clusters_by_cause: causes,
        status_codes,
        redirect_chain_lengths: ["1", "2", "3", "4+"]
            .iter()
            .zip(lengths)
            .map(|(l, n)| item(*l, n))
            .collect(),
        preferred_scheme: analysis.site.preferred_scheme.clone(),
        policy: policy.to_owned(),
    }
}
