//! The evidence graph, canonical-equivalence clusters and each cluster's preferred URL.

use crate::dust::Mined;
use crate::input::{DeclarationSource, HopKind, UrlId};
use crate::keys::Keys;
use crate::near::near_pairs;
use crate::site::{Agreement, Chain, NONE, Sameness, Site};
use crate::urlparts::{Variant, variant};
use canon::{Rule, RuleClass};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// Reps of one key group compared pairwise at most (the rest only merge on identical text).
const MAX_GROUP_REPS: usize = 256;
/// A member's evidence lists at most this many links of its chain toward the preferred
/// URL (a long chain of near duplicates would otherwise cost O(members²)).
pub const MAX_EVIDENCE: usize = 16;

/// Union-find with path halving and union by size.
pub(crate) struct Dsu {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl Dsu {
    fn new(n: usize) -> Dsu {
        Dsu {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    pub(crate) fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = self.parent[x as usize];
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
        true
    }
}

/// How a same-key merge was confirmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Confirmation {
    /// Only safe (RFC 3986) rules differ: no confirmation needed.
    Safe,
    /// The two pages have identical text, or identical main content (which one).
    IdenticalContent {
        /// What is identical.
        #[serde(default)]
        of: Sameness,
    },
}

/// What the content of a canonical's page and its target says about the declaration
/// that merged them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "agreement", rename_all = "snake_case")]
pub enum CanonicalContent {
    /// Identical visible text, or identical main content (which one).
    Identical {
        /// What is identical.
        #[serde(default)]
        of: Sameness,
    },
    /// Near-identical main content (at least the review threshold), in whole percent.
    Near {
        /// Similarity of the two main contents.
        percent: u32,
    },
    /// One of the two has no text to compare (a PDF, an image, a page of a few words):
    /// the declaration alone.
    #[default]
    NotCompared,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EdgeKind {
    Redirect,
    Canonical(DeclarationSource, CanonicalContent),
    SameKey(Confirmation),
    Dust(u32),
    SameContent(Sameness),
}

/// One merge of the spanning forest: `a` and `b` joined by `kind` (directed for
/// redirects, `a` → final target, and canonicals, page → target).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub a: u32,
    pub b: u32,
    pub kind: EdgeKind,
}

/// Counts of merges by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeCounts {
    /// Merged by a redirect.
    pub redirect: u32,
    /// Merged by a rel=canonical.
    pub canonical: u32,
    /// Merged by the same equivalence key (safe, or confirmed by content).
    pub same_key: u32,
    /// Merged by a learned DUST rule confirmed by content.
    pub dust: u32,
    /// Merged by identical text or identical main content.
    pub identical_content: u32,
    /// Pairs of pages with near-identical main content (weak evidence: reviewed, never
    /// merged).
    pub near_content: u32,
}

/// The evidence graph, reduced to the merges that joined two components.
pub(crate) struct Graph {
    pub dsu: Dsu,
    pub edges: Vec<Edge>,
    /// Same-key pairs whose pages are different: `(a, b, similarity)`.
    pub disagreements: Vec<(u32, u32, f64)>,
    /// Canonicals the content does not agree with (the page and the page the target
    /// leads to are not identical or near-identical): `(page, target, similarity)`,
    /// sorted by page. They are findings, never merges.
    pub disagreeing_canonicals: Vec<(u32, u32, f64)>,
    /// Weak evidence: pairs of pages with near-identical main content, `(a, b,
    /// similarity)`. They never merge; those left in different clusters are reviewed.
    pub near: Vec<(u32, u32, f64)>,
    pub counts: EdgeCounts,
}

impl Graph {
    /// The canonical of page `i` when its content disagrees: `(target, similarity)`.
    pub(crate) fn disagreeing_canonical(&self, i: u32) -> Option<(u32, f64)> {
        let k = self
            .disagreeing_canonicals
            .binary_search_by_key(&i, |x| x.0)
            .ok()?;
        let (_, t, s) = self.disagreeing_canonicals[k];
        Some((t, s))
    }

    fn join(&mut self, a: u32, b: u32, kind: EdgeKind) {
        if a == b || !self.dsu.union(a, b) {
            return;
        }
        self.edges.push(Edge { a, b, kind });
        let c = &mut self.counts;
        match kind {
            EdgeKind::Redirect => c.redirect += 1,
            EdgeKind::Canonical(..) => c.canonical += 1,
            EdgeKind::SameKey(_) => c.same_key += 1,
            EdgeKind::Dust(_) => c.dust += 1,
            EdgeKind::SameContent(_) => c.identical_content += 1,
        }
    }
}

/// Builds the evidence graph, strongest evidence first, so each merge is explained by
/// the strongest edge that made it.
pub(crate) fn build_graph(site: &Site<'_>, keys: &Keys, mined: &Mined) -> Graph {
    let n = site.n;
    let cfg = site.cfg;
    let mut g = Graph {
        dsu: Dsu::new(n),
        edges: Vec::new(),
        disagreements: Vec::new(),
        disagreeing_canonicals: Vec::new(),
        near: Vec::new(),
        counts: EdgeCounts::default(),
    };
    // 1. Redirects, to the final target of the chain, unless that target is an error:
    //    a redirect to a 404 is not a duplicate of anything (REDIRECT-TO-ERROR says so).
    //    A temporary redirect (302, 303, 307) says the page is elsewhere for now (a
    //    login, a random or geographic choice): it joins only a URL variant of itself
    //    (slash, case, host, scheme, index file, same key), which REDIRECT-TEMPORARY
    //    asks to make permanent.
    for i in 0..n as u32 {
        if let Chain::Final { to, .. } = site.chains[i as usize]
            && !site.external[i as usize]
            && !site.external[to as usize]
            && !site.error(to)
            && (!temporary(site, i) || same_page_url(site, keys, i, to))
        {
            g.join(i, to, EdgeKind::Redirect);
        }
    }
    // 2. rel=canonical, judged by the page it leads to (through the target's redirects):
    //    none when that page is an error (CANON-TO-ERROR says so) or was not fetched, and
    //    none unless the two contents agree: identical, or near-identical main content.
    //    Search engines ignore a canonical between pages whose primary content differs
    //    (a listing template naming page 1 on page 2): CANON-TO-UNRELATED reports it.
    for i in 0..n as u32 {
        let t = site.eff_canon[i as usize];
        if t == NONE || t == i || !site.serves(i) || site.external[t as usize] {
            continue;
        }
        let end = match site.chains[t as usize] {
            Chain::NoHop => t,
            Chain::Final { to, .. } => to,
            Chain::Unresolved { .. } | Chain::Loop => continue,
        };
        if end == i || site.external[end as usize] || site.error(end) {
            continue;
        }
        let content = match site.agreement(i, end) {
            Agreement::Identical(of) => CanonicalContent::Identical { of },
            Agreement::Near(s) => CanonicalContent::Near {
                percent: percent(s),
            },
            Agreement::Unclear(s) | Agreement::Different(s) => {
                g.disagreeing_canonicals.push((i, t, s));
                continue;
            }
            Agreement::Unknown if site.serves(end) => CanonicalContent::NotCompared,
            Agreement::Unknown => continue,
        };
        let source = site
            .canonicals(i)
            .find(|c| c.target.and_then(|x| site.idx(x)) == Some(t))
            .map_or(DeclarationSource::LinkElement, |c| c.source);
        g.join(i, t, EdgeKind::Canonical(source, content));
    }
    // 3. Same equivalence key: safe merges on their own, the rest when content agrees.
    same_key(site, keys, &mut g);
    // 4. Learned DUST rules (confirmed), on pairs whose content agrees.
    for &(a, b, r) in &mined.pairs {
        g.join(a, b, EdgeKind::Dust(r));
    }
    // 5. Identical text, then identical main content (the template removed), unless
    //    the two pages name themselves differently (title and h1).
    let mut by_text: Vec<(u64, u32)> = (0..n as u32)
        .filter_map(|i| site.content(i).map(|c| (c.text_hash, i)))
        .collect();
    by_text.sort_unstable();
    for w in by_text.windows(2) {
        if w[0].0 == w[1].0 {
            g.join(w[0].1, w[1].1, EdgeKind::SameContent(Sameness::Text));
        }
    }
    let mut by_main: Vec<(u64, u32)> = (0..n as u32)
        .filter_map(|i| match site.content(i)?.main? {
            (h, w) if w >= cfg.min_words => Some((h, i)),
            _ => None,
        })
        .collect();
    by_main.sort_unstable();
    for run in by_main.chunk_by(|a, b| a.0 == b.0) {
        for (x, &(_, a)) in run.iter().enumerate() {
            // Each page looks for a partner among the first MAX_GROUP_REPS before it,
            // so thousands of pages sharing one main content cost linear time.
            let before = &run[..x.min(MAX_GROUP_REPS)];
            if let Some(&(_, b)) = before.iter().find(|&&(_, b)| !site.titled_apart(a, b)) {
                g.join(b, a, EdgeKind::SameContent(Sameness::MainContent));
            }
        }
    }
    // 6. Near-identical main content: weak evidence, recorded, never merged. Pages
    //    stored without text blocks fall back to SimHash banding.
    g.near = crate::main_content::near_pairs(&site.main, n, cfg.near_similarity, |i| {
        site.content(i).is_some()
    });
    let mut by_sim: Vec<(u64, u32)> = by_text
        .iter()
        .filter(|&&(_, i)| site.main.get(i).is_none())
        .filter_map(|&(_, i)| site.content(i).and_then(|c| c.simhash).map(|s| (s, i)))
        .collect();
    by_sim.sort_unstable();
    let mut distinct: Vec<(u64, u32)> = Vec::with_capacity(by_sim.len());
    for &(s, i) in &by_sim {
        match distinct.last() {
            Some(&(prev, j)) if prev == s => g.near.push((j.min(i), j.max(i), 1.0)),
            _ => distinct.push((s, i)),
        }
    }
    near_pairs(&distinct, cfg.near_distance, |a, b, d| {
        g.near.push((a.min(b), a.max(b), 1.0 - f64::from(d) / 64.0));
    });
    g.near.sort_by_key(|x| (x.0, x.1));
    g.near.dedup_by(|x, y| (x.0, x.1) == (y.0, y.1));
    let Graph {
        dsu,
        disagreements,
        near,
        ..
    } = &mut g;
    disagreements.retain(|&(a, b, _)| dsu.find(a) != dsu.find(b));
    near.retain(|&(a, b, _)| dsu.find(a) != dsu.find(b));
    g.counts.near_content = g.near.len() as u32;
    g
}

/// The URL's first hop is a temporary HTTP redirect.
fn temporary(site: &Site<'_>, i: u32) -> bool {
    site.hops[i as usize]
        .is_some_and(|h| h.kind == HopKind::Http && matches!(h.status, 302 | 303 | 307))
}

/// The two URLs are variants of one URL: same key under the policy, or a slash, case,
/// host, scheme or index-file variant.
fn same_page_url(site: &Site<'_>, keys: &Keys, a: u32, b: u32) -> bool {
    (keys.get(site, a).is_some() && keys.get(site, a) == keys.get(site, b))
        || variant(site.url(a), site.url(b), &site.cfg.policy.directory_indexes).is_some()
}

/// Groups URLs by key (hash sort, verified), merging within groups.
fn same_key(site: &Site<'_>, keys: &Keys, g: &mut Graph) {
    let mut run: Vec<u32> = Vec::new();
    for hashed in keys.hash_runs() {
        run.clear();
        run.extend(hashed.iter().map(|&(_, i)| i));
        run.sort_by(|&a, &b| keys.get(site, a).cmp(&keys.get(site, b)));
        for group in run.chunk_by(|&a, &b| keys.get(site, a) == keys.get(site, b)) {
            if group.len() >= 2 {
                key_group(site, group, g);
            }
        }
    }
}

fn key_group(site: &Site<'_>, group: &[u32], g: &mut Graph) {
    // Safe: same rfc3986 form.
    let mut by_url: Vec<u32> = group.to_vec();
    by_url.sort_by(|&a, &b| site.url(a).cmp(site.url(b)));
    for w in by_url.windows(2) {
        if site.url(w[0]) == site.url(w[1]) {
            g.join(w[0], w[1], EdgeKind::SameKey(Confirmation::Safe));
        }
    }
    // Confirmed by content.
    let mut with_content: Vec<(u64, u32)> = group
        .iter()
        .filter_map(|&i| site.content(i).map(|c| (c.text_hash, i)))
        .collect();
    with_content.sort_unstable();
    let mut reps: Vec<u32> = Vec::new();
    for (x, &(h, i)) in with_content.iter().enumerate() {
        if x > 0 && with_content[x - 1].0 == h {
            g.join(
                with_content[x - 1].1,
                i,
                EdgeKind::SameKey(Confirmation::IdenticalContent { of: Sameness::Text }),
            );
        } else {
            reps.push(i);
        }
    }
    reps.truncate(MAX_GROUP_REPS);
    for x in 0..reps.len() {
        for y in x + 1..reps.len() {
            let (a, b) = (reps[x], reps[y]);
            match site.agreement(a, b) {
                Agreement::Identical(of) => {
                    g.join(
                        a,
                        b,
                        EdgeKind::SameKey(Confirmation::IdenticalContent { of }),
                    );
                }
                Agreement::Different(s) => {
                    g.disagreements.push((a, b, s));
                }
                _ => {}
            }
        }
    }
}

/// Why a member is in its cluster: one edge of the chain that links it to the
/// preferred URL.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// One end (the redirecting or declaring URL for directed kinds).
    pub from: UrlId,
    /// The other end (the redirect's final target, the canonical's target).
    pub to: UrlId,
    /// What links them.
    pub kind: EvidenceKind,
}

/// The kinds of evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EvidenceKind {
    /// `from` redirects to `to` (the final target of its chain).
    Redirect {
        /// Status of the first hop.
        status: u16,
        /// HTTP or meta refresh (first hop).
        via: HopKind,
        /// Hops to the final target.
        hops: u32,
    },
    /// `from` declares `to` as its canonical, and their content agrees.
    Canonical {
        /// Link element or HTTP header.
        source: DeclarationSource,
        /// How their content agrees.
        #[serde(default)]
        content: CanonicalContent,
    },
    /// Both URLs have the same equivalence key under the audit policy.
    SameKey {
        /// The rules (of classes other than safe) that changed either URL.
        rules: Vec<Rule>,
        /// What confirmed it.
        confirmed_by: Confirmation,
    },
    /// A learned DUST rule rewrites one URL into the other and their text agrees.
    Dust {
        /// The rule's id.
        rule: String,
    },
    /// Identical text (same text hash, at least `min_words` words), or identical main
    /// content (the site's template removed; titles or h1 agreeing): `of` says which.
    IdenticalContent {
        /// What is identical.
        #[serde(default)]
        of: Sameness,
    },
}

/// A member's place in its cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The cluster's preferred URL.
    Preferred,
    /// Redirects (its chain is part of the cluster).
    Redirects,
    /// Answers 2xx and declares another member canonical.
    Canonicalised,
    /// Answers 2xx with no canonical to another member: a duplicate.
    Duplicate,
    /// Answers 4xx/5xx or did not answer.
    Error,
    /// Not fetched (blocked, skipped or queued).
    Unfetched,
}

impl Role {
    /// The role's name, as every report, table and diff words it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Preferred => "preferred",
            Role::Redirects => "redirects",
            Role::Canonicalised => "canonicalised",
            Role::Duplicate => "duplicate",
            Role::Error => "error",
            Role::Unfetched => "not fetched",
        }
    }
}

/// What should be done to a member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Nothing: it is the preferred URL or already points at it correctly.
    None,
    /// 301 it to the preferred URL.
    Redirect301,
    /// Keep it, with `<link rel="canonical">` to the preferred URL.
    Canonical,
}

impl Action {
    /// The action in a few words, without the preferred URL ("301 to the preferred
    /// URL"); `none` when there is nothing to do.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::None => "none",
            Action::Redirect301 => "301 to the preferred URL",
            Action::Canonical => "canonical to the preferred URL",
        }
    }
}

/// One URL of a cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// The URL's id.
    pub url_id: UrlId,
    /// The URL (rfc3986 form).
    pub url: String,
    /// Its HTTP status, if fetched.
    pub status: Option<u16>,
    /// Its role.
    pub role: Role,
    /// Every rule the audit policy applied to it (canon's trail), safe ones included.
    pub rules: Vec<Rule>,
    /// The URL its canonical declarations name, when they name exactly one.
    pub canonical: Option<UrlId>,
    /// In a rendered audit: whether `canonical` is the rendered page's or the served
    /// HTML's, and whether the other version says otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical_from: Option<crate::rendered::CanonicalFrom>,
    /// The chain of evidence from this member toward the preferred URL (empty for it;
    /// at most [`MAX_EVIDENCE`] links, the ones nearest the member).
    pub evidence: Vec<Evidence>,
    /// What to do with it.
    pub action: Action,
}

/// A signal the site gives about which URL of a cluster is the real one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalKind {
    /// Where members' redirects end.
    Redirect,
    /// `<link rel="canonical">` elements.
    CanonicalElement,
    /// `Link: <...>; rel="canonical"` headers.
    CanonicalHeader,
    /// Sitemap entries.
    Sitemap,
    /// hreflang alternates of other pages.
    Hreflang,
    /// Internal links.
    InternalLinks,
}

impl SignalKind {
    /// The signal in words, for evidence lines: `Canonical elements`.
    pub fn words(self) -> &'static str {
        match self {
            SignalKind::Redirect => "Redirects",
            SignalKind::CanonicalElement => "Canonical elements",
            SignalKind::CanonicalHeader => "Canonical Link headers",
            SignalKind::Sitemap => "Sitemap entries",
            SignalKind::Hreflang => "hreflang alternates",
            SignalKind::InternalLinks => "Internal links",
        }
    }
}

/// Which URL one signal votes for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signal {
    /// The signal.
    pub kind: SignalKind,
    /// The member with the most votes (ties go to the better-ranked member).
    pub votes_for: UrlId,
    /// Its votes.
    pub votes: u32,
    /// All votes of this signal within the cluster.
    pub total: u32,
    /// It votes for the preferred URL.
    pub agrees: bool,
}

/// URLs that are really the same page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    /// Position in [`Analysis::clusters`](crate::Analysis::clusters) (sorted by preferred URL).
    pub id: u32,
    /// The preferred URL's id.
    pub preferred: UrlId,
    /// The preferred URL: the cluster's stable key across audits.
    pub preferred_url: String,
    /// Members, preferred first, then by URL.
    pub members: Vec<Member>,
    /// The signal table: which member each present signal votes for.
    pub signals: Vec<Signal>,
}

/// Clusters plus the per-URL lookups findings need.
pub(crate) struct Clusters {
    pub list: Vec<Cluster>,
    /// Cluster index per URL, or [`NONE`] for a URL alone.
    pub of: Vec<u32>,
    /// Preferred URL index per cluster.
    pub preferred: Vec<u32>,
    /// Member indices per cluster (same order as `Cluster::members`).
    pub members: Vec<Vec<u32>>,
    /// Duplicate kind per member with role Duplicate.
    pub kinds: Vec<Option<DupKind>>,
}

impl Clusters {
    /// The preferred URL of `i`'s cluster, or `i` itself when alone.
    pub(crate) fn preferred_of(&self, i: u32) -> u32 {
        match self.of[i as usize] {
            NONE => i,
            c => self.preferred[c as usize],
        }
    }
}

/// How a duplicate member differs from its preferred URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum DupKind {
    Url(Variant),
    Dust(u32),
    Content,
    /// Near-identical main content (similarity in percent), in a cluster formed by a
    /// redirect or a canonical (strong evidence).
    Near(u32),
}

/// A similarity in whole percent, rounded down (89.9% is not 90%).
pub(crate) fn percent(s: f64) -> u32 {
    (s * 100.0 + 1e-9).floor().clamp(0.0, 100.0) as u32
}

/// The preference order of two members (better first): answers 2xx, indexable,
/// self-canonical or canonical target (then: no canonical; last: canonical elsewhere),
/// site's preferred scheme, site's preferred host, a host name rather than an IP
/// address, no parameter the policy drops, in a
/// sitemap, more internal links, not a URL-variant probe,
/// shorter key, smaller key, URL already in key form, smaller URL.
fn better(site: &Site<'_>, keys: &Keys, a: u32, b: u32) -> Ordering {
    // 2: self-canonical or a canonical target (a post naming its own comment page
    // counts as self-canonical: see `Site::own_comment_page_canonical`); 1: no
    // canonical; 0: points elsewhere.
    let declared = |i: u32| match site.eff_canon[i as usize] {
        e if e == i => 2u8,
        _ if site.own_comment_page_canonical(i).is_some() => 2,
        NONE if site.canon_in[i as usize] > 0 => 2,
        NONE if site.canonicals(i).next().is_none() => 1,
        NONE => 0,
        _ => 0,
    };
    let key = |i: u32| keys.get(site, i).unwrap_or(site.url(i));
    // Parameters the policy drops (tracking, session ids): a URL that carries none is
    // the page itself, even when a newsletter's tracked copy has more internal links.
    let params = |u: &str| u.split_once('?').map_or(0, |(_, q)| q.split('&').count());
    let clean = |i: u32| params(site.url(i)) <= params(key(i));
    let flags = |i: u32| {
        [
            u8::from(site.serves(i)),
            u8::from(site.indexable(i)),
            declared(i),
            u8::from(site.scheme_ok(i)),
            u8::from(site.host_ok(i)),
            u8::from(!crate::urlparts::is_ip(
                crate::urlparts::split(site.url(i)).host,
            )),
            u8::from(clean(i)),
            u8::from(site.sitemap_count[i as usize] > 0),
        ]
    };
    flags(b)
        .cmp(&flags(a))
        .then_with(|| site.inlinks(b).cmp(&site.inlinks(a)))
        // A URL-variant probe (requested after the crawl, linked by nothing) never wins
        // a tie against the page it varies.
        .then_with(|| site.probe(a).cmp(&site.probe(b)))
        .then_with(|| key(a).len().cmp(&key(b).len()))
        .then_with(|| key(a).cmp(key(b)))
        .then_with(|| keys.is_key_form(b).cmp(&keys.is_key_form(a)))
        .then_with(|| site.url(a).cmp(site.url(b)))
}

/// Assembles clusters (components of two or more URLs) from the graph.
pub(crate) fn assemble(site: &Site<'_>, keys: &Keys, g: &mut Graph, mined: &Mined) -> Clusters {
    let n = site.n;
    let mut by_root: Vec<(u32, u32)> = (0..n as u32).map(|i| (g.dsu.find(i), i)).collect();
    by_root.sort_unstable();
    let mut groups: Vec<Vec<u32>> = Vec::new();
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && by_root[end].0 == by_root[start].0 {
            end += 1;
        }
        if end - start >= 2 {
            let mut members: Vec<u32> = by_root[start..end].iter().map(|&(_, i)| i).collect();
            members.sort_by(|&a, &b| better(site, keys, a, b));
            groups.push(members);
        }
        start = end;
    }
    groups.sort_by(|a, b| site.url(a[0]).cmp(site.url(b[0])).then(a[0].cmp(&b[0])));

    // Adjacency over the spanning forest.
    let mut adj_start = vec![0u32; n + 1];
    for e in &g.edges {
        adj_start[e.a as usize + 1] += 1;
        adj_start[e.b as usize + 1] += 1;
    }
    for i in 0..n {
        adj_start[i + 1] += adj_start[i];
    }
    let mut fill = adj_start.clone();
    let mut adj = vec![0u32; g.edges.len() * 2];
    for (k, e) in g.edges.iter().enumerate() {
        for x in [e.a, e.b] {
            adj[fill[x as usize] as usize] = k as u32;
            fill[x as usize] += 1;
        }
    }

    let mut of = vec![NONE; n];
    let mut kinds = vec![None; n];
    let mut parent_edge = vec![NONE; n];
    let mut visited = vec![false; n];
    let mut slot = vec![NONE; n];
    let mut list = Vec::with_capacity(groups.len());
    let mut preferred = Vec::with_capacity(groups.len());
    let mut queue = Vec::new();
    for (c, members) in groups.iter_mut().enumerate() {
        let p = members[0];
        for &m in members.iter() {
            of[m as usize] = c as u32;
        }
        // BFS from the preferred URL: each member's parent edge leads toward it.
        queue.clear();
        queue.push(p);
        visited[p as usize] = true;
        let mut head = 0;
        while head < queue.len() {
            let x = queue[head];
            head += 1;
            for &k in &adj[adj_start[x as usize] as usize..adj_start[x as usize + 1] as usize] {
                let e = g.edges[k as usize];
                let y = if e.a == x { e.b } else { e.a };
                if !visited[y as usize] {
                    visited[y as usize] = true;
                    parent_edge[y as usize] = k;
                    queue.push(y);
                }
            }
        }
        for (s, &m) in members.iter().enumerate() {
            slot[m as usize] = s as u32;
        }
        let mut signals = signals(site, members, p, &slot);
        // Exact capacities throughout: a million-URL audit has 200,000 clusters.
        signals.shrink_to_fit();
        let rest = &mut members[1..];
        rest.sort_by(|&a, &b| site.url(a).cmp(site.url(b)));
        let mut trails: rustc_hash::FxHashMap<u32, Vec<Rule>> = rustc_hash::FxHashMap::default();
        let mut trail = |i: u32| -> Vec<Rule> {
            trails
                .entry(i)
                .or_insert_with(|| {
                    canon::normalize(site.input.urls[i as usize].found_url(), &site.cfg.policy)
                        .map(|n| n.trail.iter().map(|s| s.rule).collect())
                        .unwrap_or_default()
                })
                .clone()
        };
        let mut out = Vec::with_capacity(members.len());
        for &m in members.iter() {
            let mut evidence = Vec::new();
            let mut first_kind = None;
            let mut x = m;
            while x != p && (evidence.len() < MAX_EVIDENCE || first_kind.is_none()) {
                let k = parent_edge[x as usize];
                if k == NONE {
                    break;
                }
                let e = g.edges[k as usize];
                first_kind.get_or_insert(e.kind);
                evidence.push(evidence_of(site, &e, x, mined, &mut trail));
                x = if e.a == x { e.b } else { e.a };
            }
            let role = role_of(site, m, p, &of);
            let kind = if role == Role::Duplicate {
                dup_kind(site, m, p, first_kind)
            } else {
                None
            };
            kinds[m as usize] = kind;
            evidence.shrink_to_fit();
            let action = action_of(site, m, p, role, kind);
            out.push(Member {
                url_id: site.id(m),
                url: site.url_string(m),
                status: site.status(m),
                role,
                rules: trail(m),
                canonical: match site.eff_canon[m as usize] {
                    NONE => None,
                    t => Some(site.id(t)),
                },
                canonical_from: site.canonical_from(m),
                evidence,
                action,
            });
        }
        list.push(Cluster {
            id: c as u32,
            preferred: site.id(p),
            preferred_url: site.url_string(p),
            members: out,
            signals,
        });
        preferred.push(p);
    }
    list.shrink_to_fit();
    Clusters {
        list,
        of,
        preferred,
        members: groups,
        kinds,
    }
}

/// The evidence of edge `e`, met at `x` on a member's way to the preferred URL:
/// directed kinds (redirect, canonical, learned rule) keep their direction, undirected
/// ones (same key, same or near text) read from `x`.
fn evidence_of(
    site: &Site<'_>,
    e: &Edge,
    x: u32,
    mined: &Mined,
    trail: &mut impl FnMut(u32) -> Vec<Rule>,
) -> Evidence {
    let kind = match e.kind {
        EdgeKind::Redirect => {
            let hop = site.hops[e.a as usize];
            let hops = match site.chains[e.a as usize] {
                Chain::Final { hops, .. } => hops,
                _ => 1,
            };
            EvidenceKind::Redirect {
                status: hop.map_or(0, |h| h.status),
                via: hop.map_or(HopKind::Http, |h| h.kind),
                hops,
            }
        }
        EdgeKind::Canonical(source, content) => EvidenceKind::Canonical { source, content },
        EdgeKind::SameKey(confirmed_by) => {
            let mut rules: Vec<Rule> = trail(e.a)
                .into_iter()
                .chain(trail(e.b))
                .filter(|r| r.class() != RuleClass::Safe)
                .collect();
            rules.sort_unstable();
            rules.dedup();
            EvidenceKind::SameKey {
                rules,
                confirmed_by,
            }
        }
        EdgeKind::Dust(r) => EvidenceKind::Dust {
            rule: mined
                .rules
                .get(r as usize)
                .map(|r| r.id.clone())
                .unwrap_or_default(),
        },
        EdgeKind::SameContent(of) => EvidenceKind::IdenticalContent { of },
    };
    let undirected = matches!(e.kind, EdgeKind::SameKey(_) | EdgeKind::SameContent(_));
    let (from, to) = if undirected && e.b == x {
        (e.b, e.a)
    } else {
        (e.a, e.b)
    };
    Evidence {
        from: site.id(from),
        to: site.id(to),
        kind,
    }
}

fn role_of(site: &Site<'_>, m: u32, p: u32, of: &[u32]) -> Role {
    if m == p {
        return Role::Preferred;
    }
    if site.hops[m as usize].is_some() {
        return Role::Redirects;
    }
    if site.serves(m) {
        let t = site.eff_canon[m as usize];
        if t != NONE && t != m && of[t as usize] == of[m as usize] {
            return Role::Canonicalised;
        }
        return Role::Duplicate;
    }
    if site.error(m) {
        Role::Error
    } else {
        Role::Unfetched
    }
}

fn dup_kind(site: &Site<'_>, m: u32, p: u32, first: Option<EdgeKind>) -> Option<DupKind> {
    if let Some(v) = variant(site.url(m), site.url(p), &site.cfg.policy.directory_indexes) {
        return Some(DupKind::Url(v));
    }
    match first? {
        EdgeKind::Dust(r) => Some(DupKind::Dust(r)),
        EdgeKind::SameKey(_) => Some(DupKind::Url(Variant::Param)),
        EdgeKind::SameContent(_) => Some(DupKind::Content),
        EdgeKind::Redirect | EdgeKind::Canonical(..) => match site.agreement(m, p) {
            Agreement::Identical(_) => Some(DupKind::Content),
            Agreement::Near(s) => Some(DupKind::Near(percent(s))),
            _ => None,
        },
    }
}

fn action_of(site: &Site<'_>, m: u32, p: u32, role: Role, kind: Option<DupKind>) -> Action {
    match role {
        Role::Preferred | Role::Canonicalised | Role::Unfetched => Action::None,
        Role::Redirects => {
            let direct = matches!(site.chains[m as usize], Chain::Final { to, hops: 1 } if to == p);
            let permanent = site.hops[m as usize]
                .is_some_and(|h| h.kind == HopKind::Http && matches!(h.status, 301 | 308));
            if direct && permanent {
                Action::None
            } else {
                Action::Redirect301
            }
        }
        // A page the same only by its content, or by a rule learned from content, may
        // diverge (comments paginated, a listing sorted): it keeps its URL and names the
        // preferred one canonical. URL variants (host, scheme, slash, index, case) are one
        // resource by construction and are redirected.
        Role::Duplicate => match kind {
            Some(
                DupKind::Url(Variant::Param)
                | DupKind::Dust(_)
                | DupKind::Content
                | DupKind::Near(_),
            )
            | None => {
                if site.indexable(m) {
                    Action::Canonical
                } else {
                    Action::None
                }
            }
            Some(DupKind::Url(_)) => Action::Redirect301,
        },
        Role::Error => {
            if site.inlinks(m) > 0 || site.sitemap_count[m as usize] > 0 {
                Action::Redirect301
            } else {
                Action::None
            }
        }
    }
}

/// The signal table of one cluster (`members` in preference order, preferred first).
fn signals(site: &Site<'_>, members: &[u32], p: u32, slot: &[u32]) -> Vec<Signal> {
    // `slot[m]` is member m's position in `members` (preference order) while this
    // cluster is assembled; tallies are indexed by it, so the table is O(members).
    let mut out = Vec::new();
    let mut push = |kind: SignalKind, votes: &[u32]| {
        let total: u32 = votes.iter().sum();
        if total == 0 {
            return;
        }
        // Most votes; ties go to the better-ranked member (the lower position).
        let Some((at, &v)) = votes
            .iter()
            .enumerate()
            .filter(|&(_, &v)| v > 0)
            .min_by_key(|&(at, &v)| (std::cmp::Reverse(v), at))
        else {
            return;
        };
        out.push(Signal {
            kind,
            votes_for: site.id(members[at]),
            votes: v,
            total,
            agrees: members[at] == p,
        });
    };
    let in_cluster = |i: u32| {
        let s = slot[i as usize];
        (s != NONE && members.get(s as usize) == Some(&i)).then_some(s as usize)
    };
    let mut tally = vec![0u32; members.len()];
    for &m in members {
        if let Chain::Final { to, .. } = site.chains[m as usize]
            && let Some(s) = in_cluster(to)
        {
            tally[s] += 1;
        }
    }
    push(SignalKind::Redirect, &tally);
    for (kind, source) in [
        (SignalKind::CanonicalElement, DeclarationSource::LinkElement),
        (SignalKind::CanonicalHeader, DeclarationSource::HttpHeader),
    ] {
        tally.iter_mut().for_each(|v| *v = 0);
        let mut seen = Vec::new();
        for &m in members {
            if !site.serves(m) {
                continue;
            }
            seen.clear();
            for c in site.canonicals(m) {
                if c.source != source || (source == DeclarationSource::LinkElement && !c.in_head) {
                    continue;
                }
                if let Some(t) = c.target.and_then(|t| site.idx(t))
                    && !seen.contains(&t)
                {
                    seen.push(t);
                    if let Some(s) = in_cluster(t) {
                        tally[s] += 1;
                    }
                }
            }
        }
        push(kind, &tally);
    }
    for (kind, count) in [
        (SignalKind::Sitemap, &site.sitemap_count),
        (SignalKind::Hreflang, &site.hreflang_in),
    ] {
        let t: Vec<u32> = members.iter().map(|&m| count[m as usize]).collect();
        push(kind, &t);
    }
    let t: Vec<u32> = members.iter().map(|&m| site.inlinks(m)).collect();
    push(SignalKind::InternalLinks, &t);
    out
}

/// Rules of classes other than safe that changed a URL under the policy.
pub(crate) fn unsafe_rules(site: &Site<'_>, i: u32) -> Vec<Rule> {
    canon::normalize(site.input.urls[i as usize].found_url(), &site.cfg.policy)
        .map(|n| {
            n.trail
                .iter()
                .map(|s| s.rule)
                .filter(|r| r.class() != RuleClass::Safe)
                .collect()
        })
        .unwrap_or_default()
}

impl std::fmt::Display for EvidenceKind {
    /// One line a report can show: why two URLs are linked.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvidenceKind::Redirect { status, via, hops } => {
                let via = match via {
                    HopKind::Http => "HTTP",
                    HopKind::MetaRefresh => "meta refresh",
                };
                write!(f, "redirects ({via} {status}, {hops} hop(s))")
            }
            EvidenceKind::Canonical { source, content } => {
                match source {
                    DeclarationSource::LinkElement => f.write_str("rel=canonical (link element")?,
                    DeclarationSource::HttpHeader => {
                        f.write_str("rel=canonical (HTTP Link header")?;
                    }
                }
                match content {
                    CanonicalContent::Identical { of } => write!(f, "; {})", of.claim()),
                    CanonicalContent::Near { percent } => {
                        write!(f, "; main content {percent}% similar)")
                    }
                    CanonicalContent::NotCompared => f.write_str("; no text to compare)"),
                }
            }
            EvidenceKind::SameKey {
                rules,
                confirmed_by,
            } => {
                let ids: Vec<&str> = rules.iter().map(|r| r.id()).collect();
                let how = match confirmed_by {
                    Confirmation::Safe => "safe rules".to_owned(),
                    Confirmation::IdenticalContent { of } => of.claim().to_owned(),
                };
                write!(f, "same URL after {} (confirmed by {how})", ids.join(", "))
            }
            EvidenceKind::Dust { rule } => write!(f, "learned rule {rule}"),
            EvidenceKind::IdenticalContent { of } => f.write_str(of.claim()),
        }
    }
}
