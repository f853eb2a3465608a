//! Fix simulation: an audit's stored graph with a fix plan applied, analysed again by
//! [`analyse`](crate::analyse), and what the plan would create.
//!
//! The plan ([`Plan`]) is what Dustpan tells the site owner to change: the redirect
//! map, the canonicals to set and the sitemap lines ([`FixFiles`]), and the internal
//! links to change ([`LinkChange`]: the rows of `links_to_non_preferred.csv` and the
//! link fixes of the findings). [`simulate`] rewrites the audit's rows as the site
//! would answer with the plan deployed:
//!
//! - a redirect's source answers its status with the planned `Location` and nothing
//!   else (no content, no canonical, no links, no hreflang, no rendered page);
//! - a canonical replaces every canonical declaration of its page, served and rendered
//!   (the rendered page starts from the served head);
//! - a link change points every matching link at its new target, or removes it;
//! - sitemap lines are removed, replaced or added.
//!
//! The rewritten rows are analysed with the same configuration, and the simulation
//! reports, for what the plan touches ([`ProblemKind`]): redirect chains and loops, a
//! redirect that ends at an error or at a URL that is not its cluster's preferred URL,
//! a canonical naming a redirect, a page that loses its last internal link, a page taken
//! out of the index whose content no indexable page keeps, and a cluster that still
//! needs a fix. A plan is clean when it creates none of them.
//!
//! A migration's redirect map ([`Plan::migration`]) is simulated the same way on the
//! new site's audit: its sources are the old site's URLs, which that audit mostly never
//! saw and which are added as URLs answering the planned redirect. The same checks run,
//! with one more ([`ProblemKind::PageTakenOut`]: the map redirects a URL the new site
//! serves), and the clusters checked are those the map touches (the new site's own
//! duplicates are its own plan's business).

use crate::analysis::Analysis;
use crate::cluster::Action;
use crate::config::AnalysisConfig;
use crate::finding::{Comparison, Fix, compare};
use crate::fixes::FixFiles;
use crate::input::{AuditInput, CanonicalRow, DeclarationSource, FetchRow, HopKind, RedirectRow};
use crate::input::{SitemapEntryRow, UrlId, UrlRow, UrlState};
use crate::site::{Agreement, Chain, NONE, Site};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

/// One change of the site's internal links.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkChange {
    /// The page whose link changes; `None`: every page linking to `from`.
    pub page: Option<String>,
    /// The linked URL.
    pub from: String,
    /// The URL to link instead; `None`: remove the link.
    pub to: Option<String>,
}

/// A fix plan: what the site owner is told to change.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// The redirect map, the canonicals to set and the sitemap lines.
    pub fixes: FixFiles,
    /// The internal links to change.
    pub links: Vec<LinkChange>,
    /// URLs to make answer 200 with their content (a redirect loop's page), no longer
    /// redirecting.
    #[serde(default)]
    pub serve: Vec<String>,
    /// A migration's redirect map, applied to the new site's audit (see
    /// [`Plan::migration`]).
    #[serde(default)]
    pub migration: bool,
}

impl Plan {
    /// The plan Dustpan proposes for an analysed audit: its fix files, the links of
    /// `links_to_non_preferred.csv` and the link fixes of its findings.
    pub fn of(input: &AuditInput, analysis: &Analysis) -> Plan {
        let mut links = Vec::new();
        let mut serve = Vec::new();
        let table =
            crate::export::table_data(crate::export::Table::LinksToNonPreferred, input, analysis);
        for row in &table.rows {
            if let [source, destination, preferred, ..] = row.as_slice() {
                links.push(LinkChange {
                    page: Some(source.as_text().into_owned()),
                    from: destination.as_text().into_owned(),
                    to: Some(preferred.as_text().into_owned()),
                });
            }
        }
        for f in &analysis.findings {
            for fix in &f.fixes {
                match fix {
                    Fix::UpdateLinks { from, to, .. } => links.push(LinkChange {
                        page: None,
                        from: from.clone(),
                        to: Some(to.clone()),
                    }),
                    Fix::RemoveLinks { to, .. } => links.push(LinkChange {
                        page: None,
                        from: to.clone(),
                        to: None,
                    }),
                    Fix::UpdateTemplateLink { from, to, .. } => links.push(LinkChange {
                        page: None,
                        from: from.clone(),
                        to: to.clone(),
                    }),
                    Fix::Serve { url } => serve.push(url.clone()),
                    _ => {}
                }
            }
        }
        serve.sort();
        serve.dedup();
        Plan {
            fixes: analysis.fix_files(),
            links,
            serve,
            migration: false,
        }
    }

    /// A migration's redirect map (old site's URL → new site's URL), to simulate on the
    /// new site's audit: redirects only. A page that audit found serving is the new
    /// site's own, and a redirect from it takes it out ([`ProblemKind::PageTakenOut`]);
    /// a cluster is checked only for the map's own sources.
    pub fn migration(fixes: FixFiles) -> Plan {
        Plan {
            fixes,
            links: Vec::new(),
            serve: Vec::new(),
            migration: true,
        }
    }
}

/// What a plan would create, by kind.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// Redirects that come back to a URL they visited.
    RedirectLoop,
    /// More than one hop from a URL to the page it ends at.
    RedirectChain,
    /// A redirect ending at 4xx/5xx, no response, a URL never fetched, or a Location
    /// that does not resolve.
    RedirectToError,
    /// A redirect ending at a page that is not its cluster's preferred URL.
    RedirectToNonPreferred,
    /// A canonical naming a URL that redirects.
    CanonicalToRedirect,
    /// A page that internal links reached and none reach with the plan.
    Orphan,
    /// A page taken out of the index (redirected or canonicalised) whose content no
    /// indexable page keeps.
    ContentLost,
    /// A cluster whose members still need a redirect or a canonical.
    ClusterUnresolved,
    /// A URL the new site serves (2xx) that a migration's map redirects: a page taken
    /// out of the new site.
    PageTakenOut,
}

impl ProblemKind {
    /// Every kind, in report order.
    pub const ALL: [ProblemKind; 9] = [
        ProblemKind::RedirectLoop,
        ProblemKind::RedirectChain,
        ProblemKind::RedirectToError,
        ProblemKind::RedirectToNonPreferred,
        ProblemKind::CanonicalToRedirect,
        ProblemKind::Orphan,
        ProblemKind::ContentLost,
        ProblemKind::ClusterUnresolved,
        ProblemKind::PageTakenOut,
    ];

    /// The kind as reports and tests name it: `redirect_chain`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::RedirectLoop => "redirect_loop",
            ProblemKind::RedirectChain => "redirect_chain",
            ProblemKind::RedirectToError => "redirect_to_error",
            ProblemKind::RedirectToNonPreferred => "redirect_to_non_preferred",
            ProblemKind::CanonicalToRedirect => "canonical_to_redirect",
            ProblemKind::Orphan => "orphan",
            ProblemKind::ContentLost => "content_lost",
            ProblemKind::ClusterUnresolved => "cluster_unresolved",
            ProblemKind::PageTakenOut => "page_taken_out",
        }
    }

    /// The kind in words, for a report's heading.
    pub fn words(self) -> &'static str {
        match self {
            ProblemKind::RedirectLoop => "Redirect loops",
            ProblemKind::RedirectChain => "Redirect chains",
            ProblemKind::RedirectToError => "Redirects to an error",
            ProblemKind::RedirectToNonPreferred => "Redirects to a non-preferred URL",
            ProblemKind::CanonicalToRedirect => "Canonicals to a redirect",
            ProblemKind::Orphan => "Pages left without internal links",
            ProblemKind::ContentLost => "Content taken out of the index with no other copy",
            ProblemKind::ClusterUnresolved => "Clusters left unresolved",
            ProblemKind::PageTakenOut => "Live pages a migration's map redirects",
        }
    }
}

/// One thing the plan would create.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Problem {
    /// What it is.
    pub kind: ProblemKind,
    /// The URL it concerns (a redirect's first URL, the page, a cluster's preferred URL).
    pub url: String,
    /// What the simulated site does there, in words.
    pub detail: String,
}

/// How much of the plan was applied.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Applied {
    /// Redirects.
    pub redirects: u32,
    /// Canonicals set.
    pub canonicals: u32,
    /// Links changed or removed.
    pub links: u32,
    /// Sitemap lines removed, replaced or added.
    pub sitemap_lines: u32,
    /// Sitemap lines naming a sitemap the audit did not read (not applied).
    pub sitemap_lines_skipped: u32,
}

/// The result of [`simulate`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Simulation {
    /// What was applied.
    pub applied: Applied,
    /// What the plan would create, sorted by kind and URL.
    pub problems: Vec<Problem>,
    /// The findings of the audit compared with those of the simulated site (by key).
    pub findings: Comparison,
    /// The simulated site's analysis.
    #[serde(skip)]
    pub after: Analysis,
}

impl Simulation {
    /// The plan creates no problem.
    pub fn clean(&self) -> bool {
        self.problems.is_empty()
    }

    /// Problems of one kind.
    pub fn count(&self, kind: ProblemKind) -> usize {
        self.problems.iter().filter(|p| p.kind == kind).count()
    }
}

/// The audit's rows with the plan applied, and the URL ids the plan touched.
struct Rewritten {
    input: AuditInput,
    applied: Applied,
    /// Redirect sources of the plan.
    redirected: FxHashSet<UrlId>,
    /// Pages the plan gives a canonical.
    canonicalised: FxHashSet<UrlId>,
}

/// URL text → id, on both the found and the rfc3986 spelling; URLs the audit never saw
/// are added as rows that were not fetched.
struct Urls {
    ids: FxHashMap<String, UrlId>,
    added: Vec<UrlRow>,
    next: UrlId,
}

impl Urls {
    fn id(&mut self, url: &str) -> UrlId {
        if let Some(&id) = self.ids.get(url) {
            return id;
        }
        let id = self.next;
        self.next += 1;
        self.added.push(UrlRow {
            id,
            url: url.to_owned(),
            url_rfc3986: url.to_owned(),
            state: UrlState::Queued,
            ..UrlRow::default()
        });
        self.ids.insert(url.to_owned(), id);
        id
    }

    fn get(&self, url: &str) -> Option<UrlId> {
        self.ids.get(url).copied()
    }
}

fn apply(input: &AuditInput, before: &Site<'_>, plan: &Plan) -> Rewritten {
    let mut out = input.clone();
    let mut applied = Applied::default();
    let mut ids: FxHashMap<String, UrlId> = FxHashMap::default();
    for i in 0..before.n as u32 {
        ids.insert(before.url_string(i), before.id(i));
        ids.entry(input.urls[i as usize].found_url().to_owned())
            .or_insert(before.id(i));
    }
    let next = input.urls.iter().map(|u| u.id).max().unwrap_or(0) + 1;
    let mut urls = Urls {
        ids,
        added: Vec::new(),
        next,
    };

    // Redirects: the source answers the planned status and Location, nothing else.
    let mut redirected: FxHashMap<UrlId, (UrlId, u16)> = FxHashMap::default();
    for r in &plan.fixes.redirects {
        let from = urls.id(&r.source);
        let to = urls.id(&r.target);
        redirected.insert(from, (to, r.status));
    }
    applied.redirects = redirected.len() as u32;
    let mut fetched: FxHashSet<UrlId> = FxHashSet::default();
    for f in &mut out.fetches {
        if let Some(&(to, status)) = redirected.get(&f.url_id) {
            *f = redirect_fetch(f.url_id, to, status);
            fetched.insert(f.url_id);
        }
    }
    for (&from, &(to, status)) in &redirected {
        if !fetched.contains(&from) {
            out.fetches.push(redirect_fetch(from, to, status));
        }
    }
    out.redirects.retain(|r| !redirected.contains_key(&r.from));
    for (&from, &(to, status)) in &redirected {
        out.redirects.push(RedirectRow {
            from,
            to: Some(to),
            status,
            kind: HopKind::Http,
            hop_index: 0,
        });
    }
    // The crawler's record of chains is stale wherever a planned source is on one; the
    // analysis resolves the chains from the hops again.
    out.redirect_chains.clear();
    out.canonicals.retain(|c| !redirected.contains_key(&c.page));
    out.links.retain(|l| !redirected.contains_key(&l.from));
    out.anchors.retain(|a| !redirected.contains_key(&a.from));
    out.hreflang.retain(|h| !redirected.contains_key(&h.page));
    out.robots_blocks.retain(|id| !redirected.contains_key(id));
    out.renders.retain(|r| !redirected.contains_key(&r.url_id));
    out.js_links.retain(|l| !redirected.contains_key(&l.from));

    // Pages to serve: 200, no hop (their content is not known before they exist).
    let mut served: FxHashSet<UrlId> = FxHashSet::default();
    for url in &plan.serve {
        let id = urls.id(url);
        if !redirected.contains_key(&id) {
            served.insert(id);
        }
    }
    for f in &mut out.fetches {
        if served.remove(&f.url_id) {
            *f = FetchRow {
                url_id: f.url_id,
                status: Some(200),
                content_type: Some("text/html".into()),
                ..FetchRow::default()
            };
        }
    }
    for id in served {
        out.fetches.push(FetchRow {
            url_id: id,
            status: Some(200),
            content_type: Some("text/html".into()),
            ..FetchRow::default()
        });
    }
    let serving: FxHashSet<UrlId> = plan.serve.iter().filter_map(|u| urls.get(u)).collect();
    out.redirects
        .retain(|r| !serving.contains(&r.from) || redirected.contains_key(&r.from));

    // Canonicals: one element in the head, replacing every declaration.
    let mut canonical: FxHashMap<UrlId, (UrlId, String)> = FxHashMap::default();
    for c in &plan.fixes.canonicals {
        let page = urls.id(&c.page);
        if redirected.contains_key(&page) {
            continue;
        }
        let target = urls.id(&c.href);
        canonical.insert(page, (target, c.href.clone()));
    }
    applied.canonicals = canonical.len() as u32;
    out.canonicals.retain(|c| !canonical.contains_key(&c.page));
    for (&page, (target, href)) in &canonical {
        out.canonicals.push(CanonicalRow {
            page,
            position: 0,
            target: Some(*target),
            href_raw: href.clone(),
            source: DeclarationSource::LinkElement,
            in_head: true,
        });
    }
    for r in &mut out.renders {
        if let Some((target, href)) = canonical.get(&r.url_id) {
            r.canonical = Some(*target);
            r.canonical_href = Some(href.clone());
        }
    }

    // Links: each matching link points at its new target, or goes.
    let mut everywhere: FxHashMap<UrlId, Option<UrlId>> = FxHashMap::default();
    let mut on_page: FxHashMap<(UrlId, UrlId), Option<UrlId>> = FxHashMap::default();
    for l in &plan.links {
        let Some(from) = urls.get(&l.from) else {
            continue;
        };
        let to = l.to.as_deref().map(|t| urls.id(t));
        match &l.page {
            Some(p) => {
                if let Some(page) = urls.get(p) {
                    on_page.insert((page, from), to);
                }
            }
            None => {
                everywhere.insert(from, to);
            }
        }
    }
    let mut removed: FxHashSet<(UrlId, UrlId)> = FxHashSet::default();
    out.links.retain_mut(|l| {
        if l.kind.is_declared() {
            return true;
        }
        let Some(target) = l.to else { return true };
        let change = on_page
            .get(&(l.from, target))
            .or_else(|| everywhere.get(&target));
        match change {
            None => true,
            Some(Some(new)) => {
                if *new != target {
                    applied.links += 1;
                    l.to = Some(*new);
                }
                true
            }
            Some(None) => {
                applied.links += 1;
                removed.insert((l.from, target));
                false
            }
        }
    });
    out.anchors.retain(|a| !removed.contains(&(a.from, a.to)));

    // Sitemap lines.
    let sitemap_of: FxHashMap<&str, u32> = out
        .sitemaps
        .iter()
        .map(|s| (s.url.as_str(), s.id))
        .collect();
    let mut drop: FxHashSet<(u32, UrlId)> = FxHashSet::default();
    let mut add: Vec<SitemapEntryRow> = Vec::new();
    let removes = plan.fixes.sitemap_remove.iter().map(|c| (c, false));
    for (change, is_add) in removes.chain(plan.fixes.sitemap_add.iter().map(|c| (c, true))) {
        let Some(&sitemap_id) = sitemap_of.get(change.sitemap.as_str()) else {
            applied.sitemap_lines_skipped += 1;
            continue;
        };
        applied.sitemap_lines += 1;
        let loc = urls.id(&change.loc);
        if is_add {
            add.push(entry(sitemap_id, loc));
        } else {
            drop.insert((sitemap_id, loc));
            if let Some(with) = &change.with {
                add.push(entry(sitemap_id, urls.id(with)));
            }
        }
    }
    out.sitemap_entries
        .retain(|e| !e.url_id.is_some_and(|u| drop.contains(&(e.sitemap_id, u))));
    out.sitemap_entries.extend(add);
    out.urls.extend(urls.added);
    for u in &mut out.urls {
        if redirected.contains_key(&u.id) && u.state != UrlState::Done {
            u.state = UrlState::Done;
            u.reason = None;
        }
    }

    Rewritten {
        input: out,
        applied,
        redirected: redirected.keys().copied().collect(),
        canonicalised: canonical.keys().copied().collect(),
    }
}

fn entry(sitemap_id: u32, loc: UrlId) -> SitemapEntryRow {
    SitemapEntryRow {
        sitemap_id,
        url_id: Some(loc),
        loc_raw: String::new(),
    }
}

/// The fetch row of a URL that answers a redirect and nothing else.
fn redirect_fetch(url_id: UrlId, to: UrlId, status: u16) -> FetchRow {
    FetchRow {
        url_id,
        status: Some(status),
        redirect_to: Some(to),
        ..FetchRow::default()
    }
}

/// Applies `plan` to the audit's rows, analyses the result with `config` (the
/// configuration `before` was made with) and reports what the plan would create.
pub fn simulate(
    input: &AuditInput,
    config: &AnalysisConfig,
    before: &Analysis,
    plan: &Plan,
) -> Simulation {
    let old = Site::new(input, config);
    let applied = apply(input, &old, plan);
    let after = crate::analyse(&applied.input, config);
    let new = Site::new(&applied.input, config);
    let mut problems = Vec::new();
    // The preferred URL of each clustered URL on the simulated site.
    let mut preferred: FxHashMap<UrlId, UrlId> = FxHashMap::default();
    for c in &after.clusters {
        for m in &c.members {
            preferred.insert(m.url_id, c.preferred);
        }
    }

    // Redirects: every chain through a planned source.
    for i in 0..new.n as u32 {
        if new.hops[i as usize].is_none() || new.made_up[i as usize] {
            continue;
        }
        let mut path = vec![i];
        let mut at = i;
        while let Some(h) = new.hops[at as usize] {
            if h.to == NONE || path.contains(&h.to) || path.len() > 64 {
                break;
            }
            at = h.to;
            path.push(at);
        }
        if !path[..path.len() - 1]
            .iter()
            .any(|&p| applied.redirected.contains(&new.id(p)))
        {
            continue;
        }
        let url = new.url_string(i);
        let trail = || {
            path.iter()
                .map(|&p| new.url(p))
                .collect::<Vec<_>>()
                .join(" -> ")
        };
        match new.chains[i as usize] {
            Chain::Loop => problems.push(Problem {
                kind: ProblemKind::RedirectLoop,
                url,
                detail: format!("{} -> ...", trail()),
            }),
            Chain::Unresolved { .. } => problems.push(Problem {
                kind: ProblemKind::RedirectToError,
                url,
                detail: format!("{}: the last Location does not resolve", trail()),
            }),
            Chain::NoHop => {}
            Chain::Final { to, hops } => {
                if hops > 1 {
                    problems.push(Problem {
                        kind: ProblemKind::RedirectChain,
                        url: url.clone(),
                        detail: format!("{hops} hops: {}", trail()),
                    });
                }
                if !new.ok(to) {
                    problems.push(Problem {
                        kind: ProblemKind::RedirectToError,
                        url,
                        detail: format!("{}, which {}", trail(), new.describe(to)),
                    });
                } else if let Some(&p) = preferred.get(&new.id(to))
                    && p != new.id(to)
                {
                    let p = new.idx(p).map_or(String::new(), |p| new.url_string(p));
                    problems.push(Problem {
                        kind: ProblemKind::RedirectToNonPreferred,
                        url,
                        detail: format!("{}, whose cluster prefers {p}", trail()),
                    });
                }
            }
        }
    }

    // Canonicals naming a redirect, where the plan set the canonical or made the
    // redirect.
    for i in 0..new.n as u32 {
        let t = new.eff_canon[i as usize];
        if t == NONE || t == i || !new.serves(i) || new.hops[t as usize].is_none() {
            continue;
        }
        if applied.canonicalised.contains(&new.id(i)) || applied.redirected.contains(&new.id(t)) {
            problems.push(Problem {
                kind: ProblemKind::CanonicalToRedirect,
                url: new.url_string(i),
                detail: format!("its canonical {} redirects", new.url(t)),
            });
        }
    }

    // Orphans and lost content: pages of the site before and after.
    let canon_elsewhere = |s: &Site<'_>, j: u32| {
        let t = s.eff_canon[j as usize];
        t != NONE && t != j
    };
    let in_index = |s: &Site<'_>, j: u32| s.indexable(j) && !canon_elsewhere(s, j);
    let mut indexed_text: FxHashSet<u64> = FxHashSet::default();
    let mut indexed_main: FxHashSet<u64> = FxHashSet::default();
    for j in (0..old.n as u32).filter(|&j| in_index(&new, j)) {
        if let Some(c) = old.content(j) {
            indexed_text.insert(c.text_hash);
            if let Some((h, _)) = c.main {
                indexed_main.insert(h);
            }
        }
    }
    for i in 0..old.n as u32 {
        if old.made_up[i as usize] || old.external[i as usize] {
            continue;
        }
        let live_before = |j: u32| old.serves(j) && !old.made_up[j as usize];
        let live_after = |j: u32| new.serves(j) && !new.made_up[j as usize];
        if in_index(&new, i)
            && old.linked_from(i).iter().any(|&j| live_before(j))
            && !new.linked_from(i).iter().any(|&j| live_after(j))
        {
            problems.push(Problem {
                kind: ProblemKind::Orphan,
                url: new.url_string(i),
                detail: format!(
                    "{} internal page(s) linked to it; none does with the plan",
                    old.linked_from(i)
                        .iter()
                        .filter(|&&j| live_before(j))
                        .count()
                ),
            });
        }
        if !in_index(&old, i) || in_index(&new, i) || old.content(i).is_none() {
            continue;
        }
        // Where the simulated site sends it, then any indexable page of the same text
        // or main content.
        let sent_to = match new.chains[i as usize] {
            Chain::Final { to, .. } => Some(to),
            Chain::NoHop => Some(new.eff_canon[i as usize]).filter(|&t| t != NONE),
            _ => None,
        };
        let content = old.content(i);
        let kept = sent_to.is_some_and(|t| {
            t < old.n as u32
                && in_index(&new, t)
                && matches!(
                    old.agreement(i, t),
                    Agreement::Identical(_) | Agreement::Near(_)
                )
        }) || content.is_some_and(|c| {
            indexed_text.contains(&c.text_hash)
                || c.main.is_some_and(|(h, _)| indexed_main.contains(&h))
        });
        if !kept {
            let whither = sent_to.map_or(String::from("nowhere"), |t| new.url_string(t));
            problems.push(Problem {
                kind: ProblemKind::ContentLost,
                url: new.url_string(i),
                detail: format!(
                    "out of the index (sent to {whither}); no indexable page has its content"
                ),
            });
        }
    }

    // A migration's map redirecting a URL the new site serves.
    if plan.migration {
        for i in 0..old.n as u32 {
            let live = old.serves(i) && !old.made_up[i as usize] && !old.external[i as usize];
            if !live || !applied.redirected.contains(&old.id(i)) {
                continue;
            }
            let to = new.hops[i as usize]
                .filter(|h| h.to != NONE)
                .map_or(String::new(), |h| new.url_string(h.to));
            problems.push(Problem {
                kind: ProblemKind::PageTakenOut,
                url: old.url_string(i),
                detail: format!(
                    "the new site serves it ({}); the map redirects it to {to}",
                    old.describe(i)
                ),
            });
        }
    }

    // Clusters that still need a redirect or a canonical (in a migration, one of the
    // map's sources).
    for c in &after.clusters {
        let serves = c
            .members
            .first()
            .is_some_and(|m| m.status.is_some_and(|s| (200..300).contains(&s)));
        if !serves {
            continue;
        }
        let pending: Vec<&str> = c
            .members
            .iter()
            .filter(|m| m.action != Action::None)
            .filter(|m| !plan.migration || applied.redirected.contains(&m.url_id))
            .map(|m| m.url.as_str())
            .collect();
        if !pending.is_empty() {
            problems.push(Problem {
                kind: ProblemKind::ClusterUnresolved,
                url: c.preferred_url.clone(),
                detail: format!("still to redirect or canonicalise: {}", pending.join(", ")),
            });
        }
    }

    problems.sort_by(|a, b| (a.kind, &a.url).cmp(&(b.kind, &b.url)));
    problems.dedup();
    let findings = compare(&before.findings, &after.findings);
    Simulation {
        applied: applied.applied,
        problems,
        findings,
        after,
    }
}

/// A plan file that cannot be read.
#[derive(Debug)]
pub struct PlanError {
    /// The file (`redirect_map.csv`, ...).
    pub file: &'static str,
    /// Its line (1 is the header), when one is at fault.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{} line {l}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for PlanError {}

/// One row of a plan file: its line, and its values by column name.
type PlanRow = (u64, FxHashMap<String, String>);

/// Rows of one plan file as header name → value, each with its line.
fn plan_rows(file: &'static str, text: &str, needed: &[&str]) -> Result<Vec<PlanRow>, PlanError> {
    let err = |line: Option<u64>, message: String| PlanError {
        file,
        line,
        message,
    };
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| err(Some(1), e.to_string()))?
        .clone();
    for n in needed {
        if !headers.iter().any(|h| h == *n) {
            return Err(err(Some(1), format!("no `{n}` column")));
        }
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| err(e.position().map(|p| p.line()), e.to_string()))?;
        let line = record.position().map_or(0, |p| p.line());
        let row = headers
            .iter()
            .zip(record.iter())
            .map(|(h, v)| (h.to_owned(), v.to_owned()))
            .collect();
        rows.push((line, row));
    }
    Ok(rows)
}

/// The fix files as `dustpan export` writes them, read back (perhaps edited by hand):
/// `redirect_map.csv` (`source,target,status`, and what the site answers today in
/// `site_status,site_target`), `canonicals_to_set.csv` (`page,canonical`) and
/// `sitemap_changes.csv` (`action,sitemap,loc,replacement`). A file not given is an
/// empty part of the plan.
pub fn read_fix_files(
    redirect_map: Option<&str>,
    canonicals: Option<&str>,
    sitemap_changes: Option<&str>,
) -> Result<FixFiles, PlanError> {
    use crate::analysis::SiteRedirect;
    use crate::fixes::{CanonicalTag, RedirectLine, SitemapChange};
    let mut out = FixFiles::default();
    let get = |row: &FxHashMap<String, String>, k: &str| row.get(k).cloned().unwrap_or_default();
    if let Some(text) = redirect_map {
        const FILE: &str = "redirect_map.csv";
        for (line, row) in plan_rows(FILE, text, &["source", "target"])? {
            let status = match get(&row, "status").as_str() {
                "" => 301,
                s => s
                    .parse::<u16>()
                    .ok()
                    .filter(|s| (300..400).contains(s))
                    .ok_or_else(|| PlanError {
                        file: FILE,
                        line: Some(line),
                        message: format!("status `{s}` is not a redirect status"),
                    })?,
            };
            let source = get(&row, "source");
            let today = get(&row, "site_status")
                .parse::<u16>()
                .ok()
                .map(|s| SiteRedirect {
                    source: source.clone(),
                    to: get(&row, "site_target"),
                    status: s,
                });
            out.redirects.push(RedirectLine {
                source,
                target: get(&row, "target"),
                status,
                today,
            });
        }
    }
    if let Some(text) = canonicals {
        for (_, row) in plan_rows("canonicals_to_set.csv", text, &["page", "canonical"])? {
            out.canonicals.push(CanonicalTag {
                page: get(&row, "page"),
                href: get(&row, "canonical"),
                present: get(&row, "present") == "true",
            });
        }
    }
    if let Some(text) = sitemap_changes {
        const FILE: &str = "sitemap_changes.csv";
        for (line, row) in plan_rows(FILE, text, &["action", "sitemap", "loc"])? {
            let change = SitemapChange {
                sitemap: get(&row, "sitemap"),
                loc: get(&row, "loc"),
                with: Some(get(&row, "replacement")).filter(|r| !r.is_empty()),
            };
            match get(&row, "action").as_str() {
                "add" => out.sitemap_add.push(change),
                "remove" | "replace" => out.sitemap_remove.push(change),
                other => {
                    return Err(PlanError {
                        file: FILE,
                        line: Some(line),
                        message: format!("action `{other}` is none of add, remove, replace"),
                    });
                }
            }
        }
    }
    Ok(out)
}
