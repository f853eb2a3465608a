//! Clusters matched across two audits by identity: their member URLs and preferred URL,
//! never their row ids or their position in the list.
//!
//! Every pair of an old and a new cluster that share a member URL is a candidate; pairs
//! are taken greedily by the number of shared URLs (most first), then those keeping their
//! preferred URL, then by URL, so the result depends only on the clusters' contents. Each
//! cluster is matched at most once: an old cluster left over dissolved, a new one formed.

use audit::{Action, Analysis, Role};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::cmp::Reverse;

/// One cluster as compared: its preferred URL and members sorted by URL.
#[derive(Clone, Debug)]
pub(crate) struct View<'a> {
    pub preferred: &'a str,
    pub members: Vec<MemberView<'a>>,
}

/// One member as compared.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MemberView<'a> {
    pub url: &'a str,
    pub role: Role,
    pub action: Action,
}

/// The clusters of an analysis as views.
pub(crate) fn views(analysis: &Analysis) -> Vec<View<'_>> {
    // URL-variant probes are left out: which pages they sample follows the site's
    // largest sections, which change between audits without the site changing.
    let probes: rustc_hash::FxHashSet<&str> = analysis
        .url_variants
        .iter()
        .flat_map(|r| r.probes.iter().filter(|p| !p.known).map(|p| p.url.as_str()))
        .collect();
    analysis
        .clusters
        .iter()
        .filter(|c| {
            c.members
                .iter()
                .filter(|m| !probes.contains(m.url.as_str()))
                .count()
                > 1
        })
        .map(|c| {
            let mut members: Vec<MemberView<'_>> = c
                .members
                .iter()
                .filter(|m| !probes.contains(m.url.as_str()))
                .map(|m| MemberView {
                    url: &m.url,
                    role: m.role,
                    action: m.action,
                })
                .collect();
            members.sort_unstable_by(|a, b| a.url.cmp(b.url));
            View {
                preferred: &c.preferred_url,
                members,
            }
        })
        .collect()
}

/// How a cluster changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ClusterChangeKind {
    /// A new cluster: no earlier cluster shares a URL with it.
    Formed,
    /// An earlier cluster with no counterpart now.
    Dissolved,
    /// Gained URLs, lost none.
    Grew,
    /// Lost URLs, gained none.
    Shrank,
    /// Gained some URLs and lost others.
    Regrouped,
    /// Same URLs; the preferred URL or a member's role or fix changed.
    Changed,
}

impl ClusterChangeKind {
    /// `formed`, `dissolved`, `grew`, `shrank`, `regrouped`, `changed`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClusterChangeKind::Formed => "formed",
            ClusterChangeKind::Dissolved => "dissolved",
            ClusterChangeKind::Grew => "grew",
            ClusterChangeKind::Shrank => "shrank",
            ClusterChangeKind::Regrouped => "regrouped",
            ClusterChangeKind::Changed => "changed",
        }
    }
}

/// A member of a matched cluster whose role or fix changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberChange {
    /// The URL.
    pub url: String,
    /// Its role in the older audit.
    pub old_role: Role,
    /// Its role now.
    pub new_role: Role,
    /// What was to be done with it.
    pub old_action: Action,
    /// What is to be done with it now.
    pub new_action: Action,
}

/// One cluster that formed, dissolved or changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterChange {
    /// What happened to it.
    pub kind: ClusterChangeKind,
    /// Its preferred URL in the older audit (none when it formed).
    pub old_preferred: Option<String>,
    /// Its preferred URL now (none when it dissolved).
    pub new_preferred: Option<String>,
    /// Members in the older audit.
    pub old_size: usize,
    /// Members now.
    pub new_size: usize,
    /// URLs that joined it (every member when it formed), sorted.
    pub added: Vec<String>,
    /// URLs that left it (every member when it dissolved), sorted.
    pub removed: Vec<String>,
    /// Members in both audits whose role or fix changed.
    pub members: Vec<MemberChange>,
}

impl ClusterChange {
    /// The preferred URL changed (the cluster exists in both audits).
    pub fn preferred_changed(&self) -> bool {
        matches!((&self.old_preferred, &self.new_preferred), (Some(a), Some(b)) if a != b)
    }

    /// The URL the cluster is known by: its preferred URL now, or before it dissolved.
    pub fn label(&self) -> &str {
        self.new_preferred
            .as_deref()
            .or(self.old_preferred.as_deref())
            .unwrap_or("")
    }

    /// Members that now redirect (to the preferred URL) and did not before.
    pub fn now_redirecting(&self) -> usize {
        self.members
            .iter()
            .filter(|m| m.new_role == Role::Redirects && m.old_role != Role::Redirects)
            .count()
    }
}

/// Pairs old and new clusters: `(old index, new index)` for each match.
pub(crate) fn matching(old: &[View<'_>], new: &[View<'_>]) -> Vec<(usize, usize)> {
    let mut owner: FxHashMap<&str, u32> = FxHashMap::default();
    for (i, c) in old.iter().enumerate() {
        for m in &c.members {
            owner.insert(m.url, i as u32);
        }
    }
    // (shared URLs, same preferred URL, old index, new index)
    let mut candidates: Vec<(u32, bool, u32, u32)> = Vec::new();
    let mut hits: Vec<u32> = Vec::new();
    for (j, c) in new.iter().enumerate() {
        hits.clear();
        hits.extend(c.members.iter().filter_map(|m| owner.get(m.url).copied()));
        hits.sort_unstable();
        for run in hits.chunk_by(|a, b| a == b) {
            let i = run[0];
            let same = old[i as usize].preferred == c.preferred;
            candidates.push((run.len() as u32, same, i, j as u32));
        }
    }
    candidates.sort_unstable_by(|a, b| {
        (Reverse(a.0), Reverse(a.1))
            .cmp(&(Reverse(b.0), Reverse(b.1)))
            .then_with(|| old[a.2 as usize].preferred.cmp(old[b.2 as usize].preferred))
            .then_with(|| new[a.3 as usize].preferred.cmp(new[b.3 as usize].preferred))
    });
    let mut old_taken = vec![false; old.len()];
    let mut new_taken = vec![false; new.len()];
    let mut pairs = Vec::new();
    for (_, _, i, j) in candidates {
        let (i, j) = (i as usize, j as usize);
        if !old_taken[i] && !new_taken[j] {
            old_taken[i] = true;
            new_taken[j] = true;
            pairs.push((i, j));
        }
    }
    pairs
}

fn all_urls(c: &View<'_>) -> Vec<String> {
    c.members.iter().map(|m| m.url.to_owned()).collect()
}

/// Compares a matched pair; `None` when nothing changed.
fn compare_pair(a: &View<'_>, b: &View<'_>) -> Option<ClusterChange> {
    let (mut added, mut removed, mut members) = (Vec::new(), Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < a.members.len() || j < b.members.len() {
        match (a.members.get(i), b.members.get(j)) {
            (Some(x), Some(y)) if x.url == y.url => {
                if x.role != y.role || x.action != y.action {
                    members.push(MemberChange {
                        url: x.url.to_owned(),
                        old_role: x.role,
                        new_role: y.role,
                        old_action: x.action,
                        new_action: y.action,
                    });
                }
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.url < y.url => {
                removed.push(x.url.to_owned());
                i += 1;
            }
            (Some(x), None) => {
                removed.push(x.url.to_owned());
                i += 1;
            }
            (_, Some(y)) => {
                added.push(y.url.to_owned());
                j += 1;
            }
            (None, None) => break,
        }
    }
    let kind = match (added.is_empty(), removed.is_empty()) {
        (false, true) => ClusterChangeKind::Grew,
        (true, false) => ClusterChangeKind::Shrank,
        (false, false) => ClusterChangeKind::Regrouped,
        (true, true) if a.preferred != b.preferred || !members.is_empty() => {
            ClusterChangeKind::Changed
        }
        (true, true) => return None,
    };
    Some(ClusterChange {
        kind,
        old_preferred: Some(a.preferred.to_owned()),
        new_preferred: Some(b.preferred.to_owned()),
        old_size: a.members.len(),
        new_size: b.members.len(),
        added,
        removed,
        members,
    })
}

/// Every cluster change between two audits, sorted by the cluster's URL.
pub(crate) fn compare(old: &[View<'_>], new: &[View<'_>]) -> Vec<ClusterChange> {
    let pairs = matching(old, new);
    let mut old_matched = vec![false; old.len()];
    let mut new_matched = vec![false; new.len()];
    let mut out = Vec::new();
    for &(i, j) in &pairs {
        old_matched[i] = true;
        new_matched[j] = true;
        out.extend(compare_pair(&old[i], &new[j]));
    }
    for (_, c) in old.iter().enumerate().filter(|(i, _)| !old_matched[*i]) {
        out.push(ClusterChange {
            kind: ClusterChangeKind::Dissolved,
            old_preferred: Some(c.preferred.to_owned()),
            new_preferred: None,
            old_size: c.members.len(),
            new_size: 0,
            added: Vec::new(),
            removed: all_urls(c),
            members: Vec::new(),
        });
    }
    for (_, c) in new.iter().enumerate().filter(|(j, _)| !new_matched[*j]) {
        out.push(ClusterChange {
            kind: ClusterChangeKind::Formed,
            old_preferred: None,
            new_preferred: Some(c.preferred.to_owned()),
            old_size: 0,
            new_size: c.members.len(),
            added: all_urls(c),
            removed: Vec::new(),
            members: Vec::new(),
        });
    }
    out.sort_by(|a, b| {
        a.label()
            .cmp(b.label())
            .then(a.kind.cmp(&b.kind))
            .then_with(|| a.old_preferred.cmp(&b.old_preferred))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view<'a>(preferred: &'a str, urls: &[&'a str]) -> View<'a> {
        let mut members: Vec<MemberView<'a>> = urls
            .iter()
            .map(|u| MemberView {
                url: u,
                role: if *u == preferred {
                    Role::Preferred
                } else {
                    Role::Duplicate
                },
                action: if *u == preferred {
                    Action::None
                } else {
                    Action::Redirect301
                },
            })
            .collect();
        members.sort_unstable_by(|a, b| a.url.cmp(b.url));
        View { preferred, members }
    }

    #[test]
    fn same_clusters_in_another_order_give_no_change() {
        let old = vec![view("a", &["a", "a2", "a3"]), view("b", &["b", "b2"])];
        let new = vec![view("b", &["b2", "b"]), view("a", &["a3", "a", "a2"])];
        assert!(compare(&old, &new).is_empty());
        assert_eq!(matching(&old, &new), vec![(0, 1), (1, 0)]);
    }

    #[test]
    fn growth_shrinking_formation_and_dissolution() {
        let old = vec![
            view("a", &["a", "a2"]),
            view("b", &["b", "b2", "b3"]),
            view("c", &["c", "c2"]),
        ];
        let new = vec![
            view("a", &["a", "a2", "a3", "a4", "a5"]),
            view("b", &["b", "b2"]),
            view("d", &["d", "d2"]),
        ];
        let changes = compare(&old, &new);
        let kinds: Vec<(&str, ClusterChangeKind)> =
            changes.iter().map(|c| (c.label(), c.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                ("a", ClusterChangeKind::Grew),
                ("b", ClusterChangeKind::Shrank),
                ("c", ClusterChangeKind::Dissolved),
                ("d", ClusterChangeKind::Formed),
            ]
        );
        assert_eq!(changes[0].added, vec!["a3", "a4", "a5"]);
        assert_eq!(changes[1].removed, vec!["b3"]);
        assert_eq!(changes[2].removed, vec!["c", "c2"]);
        assert_eq!(changes[3].added, vec!["d", "d2"]);
    }

    #[test]
    fn a_new_preferred_url_keeps_the_cluster() {
        let old = vec![view("x", &["x", "y", "z"])];
        let new = vec![view("y", &["x", "y", "z"])];
        let changes = compare(&old, &new);
        assert_eq!(changes.len(), 1);
        let c = &changes[0];
        assert_eq!(c.kind, ClusterChangeKind::Changed);
        assert!(c.preferred_changed());
        assert_eq!(c.old_preferred.as_deref(), Some("x"));
        assert_eq!(c.new_preferred.as_deref(), Some("y"));
        // x and y swapped roles.
        let urls: Vec<&str> = c.members.iter().map(|m| m.url.as_str()).collect();
        assert_eq!(urls, vec!["x", "y"]);
    }

    #[test]
    fn a_member_that_now_redirects_is_reported() {
        let old = vec![view("p", &["p", "q"])];
        let mut after = view("p", &["p", "q"]);
        after.members[1].role = Role::Redirects;
        after.members[1].action = Action::None;
        let changes = compare(&old, &[after]);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].kind, ClusterChangeKind::Changed);
        assert_eq!(changes[0].now_redirecting(), 1);
        assert!(!changes[0].preferred_changed());
    }

    #[test]
    fn a_split_matches_the_larger_part() {
        // {a, b, c, d, e} splits into {a, b, c} and {d, e}: the larger part keeps the cluster.
        let old = vec![view("a", &["a", "b", "c", "d", "e"])];
        let new = vec![view("d", &["d", "e"]), view("a", &["a", "b", "c"])];
        assert_eq!(matching(&old, &new), vec![(0, 1)]);
        let changes = compare(&old, &new);
        let kinds: Vec<(&str, ClusterChangeKind)> =
            changes.iter().map(|c| (c.label(), c.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                ("a", ClusterChangeKind::Shrank),
                ("d", ClusterChangeKind::Formed)
            ]
        );
    }

    #[test]
    fn a_merge_keeps_the_cluster_with_the_same_preferred_url_on_a_tie() {
        // {a, b} and {c, d} merge into {a, b, c, d} preferred c: the tie on shared URLs is
        // broken by the preferred URL.
        let old = vec![view("a", &["a", "b"]), view("c", &["c", "d"])];
        let new = vec![view("c", &["a", "b", "c", "d"])];
        assert_eq!(matching(&old, &new), vec![(1, 0)]);
        let changes = compare(&old, &new);
        assert_eq!(changes.len(), 2);
        assert!(
            changes
                .iter()
                .any(|c| c.kind == ClusterChangeKind::Grew && c.added == vec!["a", "b"])
        );
        assert!(
            changes
                .iter()
                .any(|c| c.kind == ClusterChangeKind::Dissolved && c.label() == "a")
        );
    }

    #[test]
    fn matching_ignores_the_order_of_clusters() {
        let old = vec![
            view("a", &["a", "b"]),
            view("c", &["c", "d"]),
            view("e", &["e", "f", "g"]),
        ];
        let new = vec![view("c", &["a", "b", "c", "d"]), view("e", &["e", "f"])];
        let mut old_rev = old.clone();
        old_rev.reverse();
        let mut new_rev = new.clone();
        new_rev.reverse();
        assert_eq!(compare(&old, &new), compare(&old_rev, &new_rev));
    }
}
