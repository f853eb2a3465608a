//! A cluster in full: each member, why it is in (as sentences), its fix, and the
//! site's signals.

use crate::findings::FindingIndex;
use crate::tables::main_cause;
use crate::types::{ClusterDetail, MemberView, SignalView, Tier};
use audit::export::fix_text;
use audit::{
    Action, Analysis, AuditInput, CanonicalContent, Cluster, Confirmation, DeclarationSource,
    Evidence, EvidenceKind, FetchRow, HopKind, Role, Sameness, UrlId,
};
use std::collections::{HashMap, HashSet};

/// Per-URL lookups, built on the first cluster opened.
pub struct Lookup {
    url: HashMap<UrlId, usize>,
    fetch: HashMap<UrlId, usize>,
    first_canonical: HashMap<UrlId, Option<UrlId>>,
    blocked: HashSet<UrlId>,
}

impl Lookup {
    /// Builds the lookups.
    pub fn new(input: &AuditInput, _analysis: &Analysis) -> Lookup {
        let mut first_canonical = HashMap::new();
        for c in &input.canonicals {
            first_canonical.entry(c.page).or_insert(c.target);
        }
        Lookup {
            url: input
                .urls
                .iter()
                .enumerate()
                .map(|(i, u)| (u.id, i))
                .collect(),
            fetch: input
                .fetches
                .iter()
                .enumerate()
                .map(|(i, f)| (f.url_id, i))
                .collect(),
            first_canonical,
            blocked: input.robots_blocks.iter().copied().collect(),
        }
    }

    fn url<'a>(&self, input: &'a AuditInput, id: UrlId) -> &'a str {
        self.url.get(&id).map_or("", |&i| input.urls[i].found_url())
    }

    fn fetch<'a>(&self, input: &'a AuditInput, id: UrlId) -> Option<&'a FetchRow> {
        self.fetch.get(&id).map(|&i| &input.fetches[i])
    }

    /// 2xx, not noindex, not blocked, no canonical to another URL.
    fn indexable(&self, input: &AuditInput, id: UrlId) -> bool {
        if self.blocked.contains(&id) {
            return false;
        }
        let Some(f) = self.fetch(input, id) else {
            return false;
        };
        let canonical_elsewhere = self
            .first_canonical
            .get(&id)
            .copied()
            .flatten()
            .is_some_and(|c| c != id);
        f.status.is_some_and(|s| (200..300).contains(&s)) && !f.noindex && !canonical_elsewhere
    }
}

/// One link of a member's evidence chain as a sentence.
fn sentence(e: &Evidence, input: &AuditInput, lookup: &Lookup, policy: &str) -> String {
    let from = lookup.url(input, e.from);
    let to = lookup.url(input, e.to);
    match &e.kind {
        EvidenceKind::Redirect { status, via, hops } => {
            let via = match via {
                HopKind::Http => String::new(),
                HopKind::MetaRefresh => " by meta refresh".to_owned(),
            };
            let hops = if *hops > 1 {
                format!(" in {hops} hops")
            } else {
                String::new()
            };
            format!("{from} redirects ({status}{via}) to {to}{hops}")
        }
        EvidenceKind::Canonical { source, content } => {
            let source = match source {
                DeclarationSource::LinkElement => "a <link rel=canonical> element",
                DeclarationSource::HttpHeader => "an HTTP Link header",
            };
            let content = match content {
                CanonicalContent::Identical { of } => format!("; {}", same(*of)),
                CanonicalContent::Near { percent } => {
                    format!("; their main contents are {percent}% similar")
                }
                CanonicalContent::NotCompared => "; one of them has no text to compare".to_owned(),
            };
            format!("{from} names {to} as canonical ({source}){content}")
        }
        EvidenceKind::SameKey {
            rules,
            confirmed_by,
        } => {
            let ids: Vec<&str> = rules.iter().map(|r| r.id()).collect();
            let rules = if ids.is_empty() {
                "safe rules only".to_owned()
            } else {
                format!("rules fired {}", ids.join(", "))
            };
            let confirmed = match confirmed_by {
                Confirmation::Safe => String::new(),
                Confirmation::IdenticalContent { of } => format!("; {}", same(*of)),
            };
            format!("{from} and {to} have the same key under {policy}: {rules}{confirmed}")
        }
        EvidenceKind::Dust { rule } => {
            format!("learned rule {rule} rewrites {from} to {to}, and their text agrees")
        }
        EvidenceKind::IdenticalContent { of } => match of {
            Sameness::Text => format!("{from} has the same visible text as {to}"),
            Sameness::MainContent => {
                format!("{from} has the same main content as {to} (the site's template left out)")
            }
        },
    }
}

/// The content clause of an evidence sentence.
fn same(of: Sameness) -> &'static str {
    match of {
        Sameness::Text => "their visible text is identical",
        Sameness::MainContent => "their main content is identical (the site's template left out)",
    }
}

/// Builds the detail of one cluster.
pub fn cluster_detail(
    c: &Cluster,
    input: &AuditInput,
    analysis: &Analysis,
    lookup: &Lookup,
    findings: &FindingIndex,
    policy: &str,
) -> ClusterDetail {
    let members = c
        .members
        .iter()
        .map(|m| MemberView {
            url: m.url.clone(),
            role: m.role.into(),
            status: m.status,
            indexable: lookup.indexable(input, m.url_id),
            evidence: m
                .evidence
                .iter()
                .map(|e| sentence(e, input, lookup, policy))
                .collect(),
            tier: (m.role != Role::Preferred).then_some(Tier::Strong),
            fix: match m.action {
                Action::None => None,
                a => Some(fix_text(a, &c.preferred_url)),
            },
        })
        .collect();
    let signals = c
        .signals
        .iter()
        .map(|s| SignalView {
            signal: s.kind.into(),
            votes_for: Some(lookup.url(input, s.votes_for).to_owned()).filter(|u| !u.is_empty()),
            agrees: s.agrees,
        })
        .collect();
    let mut urls: Vec<&str> = c.members.iter().map(|m| m.url.as_str()).collect();
    urls.extend(c.members.iter().map(|m| lookup.url(input, m.url_id)));
    ClusterDetail {
        id: c.id,
        preferred_url: c.preferred_url.clone(),
        cause: main_cause(c),
        size: c.members.len() as u32,
        members,
        signals,
        findings: findings.concerning(analysis, &urls),
    }
}
