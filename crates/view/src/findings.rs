//! Findings as the app lists them: filtered by severity and family, searched.

use crate::family::family_of;
use crate::types::{FindingPage, FindingQuery, FindingView, MAX_LIMIT, Severity};
use audit::{Analysis, Finding};
use std::collections::{BTreeSet, HashMap};

/// The finding as the app shows it.
pub fn finding_view(f: &Finding) -> FindingView {
    FindingView {
        key: f.key.clone(),
        id: f.id.code().to_owned(),
        severity: f.severity.into(),
        family: family_of(f.id),
        tier: f.id.tier().into(),
        title: f.title.to_string(),
        summary: f.summary.clone(),
        why: f.why.to_string(),
        urls: f.urls.clone(),
        evidence: f.evidence.clone(),
        fixes: f.fixes.iter().map(|x| x.to_string()).collect(),
    }
}

/// Search text and URL index over an analysis' findings.
pub struct FindingIndex {
    text: Vec<String>,
    by_url: HashMap<String, Vec<u32>>,
}

impl FindingIndex {
    /// Builds the index.
    pub fn new(analysis: &Analysis) -> FindingIndex {
        let mut by_url: HashMap<String, Vec<u32>> = HashMap::new();
        let text = analysis
            .findings
            .iter()
            .enumerate()
            .map(|(i, f)| {
                for u in &f.urls {
                    let list = by_url.entry(u.clone()).or_default();
                    if list.last() != Some(&(i as u32)) {
                        list.push(i as u32);
                    }
                }
                let fixes: Vec<String> = f.fixes.iter().map(|x| x.to_string()).collect();
                [
                    f.id.code(),
                    &f.title,
                    &f.summary,
                    &f.urls.join("\n"),
                    &f.evidence.join("\n"),
                    &fixes.join("\n"),
                    &f.key,
                ]
                .join("\n")
                .to_lowercase()
            })
            .collect();
        FindingIndex { text, by_url }
    }

    /// Findings that name any of `urls`, in the analysis' order.
    pub fn concerning(&self, analysis: &Analysis, urls: &[&str]) -> Vec<FindingView> {
        let ix: BTreeSet<u32> = urls
            .iter()
            .filter_map(|u| self.by_url.get(*u))
            .flatten()
            .copied()
            .collect();
        ix.into_iter()
            .map(|i| finding_view(&analysis.findings[i as usize]))
            .collect()
    }

    /// A page of findings.
    pub fn query(&self, analysis: &Analysis, q: &FindingQuery) -> FindingPage {
        let needle = q
            .search
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_lowercase);
        let severity = q.severity;
        let fam = q.family;
        let limit = q.limit.min(MAX_LIMIT) as usize;
        let mut matched = 0usize;
        let mut items = Vec::new();
        for (i, f) in analysis.findings.iter().enumerate() {
            let keep = severity.is_none_or(|s| Severity::from(f.severity) == s)
                && fam.is_none_or(|x| family_of(f.id) == x)
                && needle
                    .as_ref()
                    .is_none_or(|n| self.text[i].contains(n.as_str()));
            if keep {
                if matched >= q.offset as usize && items.len() < limit {
                    items.push(finding_view(f));
                }
                matched += 1;
            }
        }
        FindingPage {
            total: analysis.findings.len() as u32,
            matched: matched as u32,
            offset: q.offset,
            items,
        }
    }
}
