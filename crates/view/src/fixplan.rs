//! An audit's fix plan and its simulation, paged for readers that cannot take it whole
//! (the MCP server and the app's Fix plan view): the plan's files as `dustpan export` writes them, and
//! [`audit::simulate`] over the stored audit, as `dustpan simulate` runs it.

use crate::error::ViewError;
use crate::open::{AnalysisPolicy, OpenAudit};
use audit::FixFiles;
pub use audit::simulate::Simulation;
use audit::simulate::{Plan, ProblemKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex, OnceLock};
use store::{AuditId, Store};
use ts_rs::TS;

/// Most rows or problems one page holds.
pub const MAX_PAGE: u32 = 1000;

/// One file of the fix plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum FixPlanFile {
    /// `redirect_map.csv`: every non-preferred URL and the preferred URL it should
    /// redirect to, marked new, changed or existing.
    RedirectMap,
    /// `canonicals_to_set.csv`: the canonical each page should declare.
    CanonicalsToSet,
    /// `sitemap_changes.csv`: sitemap lines to remove, replace or add.
    SitemapChanges,
}

impl FixPlanFile {
    /// Every file, in the order an export lists them.
    pub const ALL: [FixPlanFile; 3] = [
        FixPlanFile::RedirectMap,
        FixPlanFile::CanonicalsToSet,
        FixPlanFile::SitemapChanges,
    ];

    /// The file's name in an export.
    pub fn file_name(self) -> &'static str {
        match self {
            FixPlanFile::RedirectMap => "redirect_map.csv",
            FixPlanFile::CanonicalsToSet => "canonicals_to_set.csv",
            FixPlanFile::SitemapChanges => "sitemap_changes.csv",
        }
    }

    /// The file's text, exactly as `dustpan export` writes it.
    fn csv(self, fixes: &FixFiles) -> String {
        match self {
            FixPlanFile::RedirectMap => fixes.redirects_csv(),
            FixPlanFile::CanonicalsToSet => fixes.canonicals_csv(),
            FixPlanFile::SitemapChanges => fixes.sitemap_csv(),
        }
    }
}

/// A page of one fix-plan file, with the size of every part of the plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FixPlanPage {
    /// The file this page is of.
    pub file: String,
    /// Its header.
    pub columns: Vec<String>,
    /// Its rows (the header left out).
    pub total: u32,
    /// The first row of this page.
    pub offset: u32,
    /// The rows of this page.
    pub rows: Vec<Vec<String>>,
    /// Redirects in the map that must be added or changed on the server.
    pub redirects_to_write: u32,
    /// Pages whose canonical must be set.
    pub canonicals: u32,
    /// Sitemap lines to remove, replace or add.
    pub sitemap_lines: u32,
    /// Internal links to change (the `linksToNonPreferred` table).
    pub links: u32,
}

/// One file of the plan, parsed: its header and rows.
#[derive(Debug)]
struct PlanTable {
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// An open audit's fix plan, built once: its size, and each file's rows parsed on
/// first read.
#[derive(Debug)]
pub struct FixPlanCache {
    plan: Plan,
    files: [OnceLock<Result<PlanTable, String>>; FixPlanFile::ALL.len()],
}

impl FixPlanCache {
    /// The plan of `analysis`, no file parsed yet.
    pub(crate) fn new(input: &audit::AuditInput, analysis: &audit::Analysis) -> FixPlanCache {
        FixPlanCache {
            plan: Plan::of(input, analysis),
            files: Default::default(),
        }
    }

    /// `file`'s header and rows, exactly as `dustpan export` writes the file.
    fn table(&self, file: FixPlanFile) -> Result<&PlanTable, ViewError> {
        let index = FixPlanFile::ALL
            .iter()
            .position(|f| *f == file)
            .expect("every file is in ALL");
        self.files[index]
            .get_or_init(|| {
                let text = file.csv(&self.plan.fixes);
                let mut reader = csv::Reader::from_reader(text.as_bytes());
                let columns = reader
                    .headers()
                    .map_err(|e| e.to_string())?
                    .iter()
                    .map(str::to_owned)
                    .collect();
                let rows = reader
                    .records()
                    .map(|r| r.map(|r| r.iter().map(str::to_owned).collect()))
                    .collect::<Result<_, _>>()
                    .map_err(|e| e.to_string())?;
                Ok(PlanTable { columns, rows })
            })
            .as_ref()
            .map_err(|e| ViewError::Task(format!("{}: {e}", file.file_name())))
    }
}

/// A page of `file` of `open`'s fix plan: rows `offset..offset + limit` (at most
/// [`MAX_PAGE`]). The plan is built at the first page and kept with the open audit.
pub fn fix_plan_page(
    open: &OpenAudit,
    file: FixPlanFile,
    offset: u32,
    limit: u32,
) -> Result<FixPlanPage, ViewError> {
    let cache = open.fix_plan();
    let plan = &cache.plan;
    let table = cache.table(file)?;
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let start = (offset as usize).min(table.rows.len());
    let end = start
        .saturating_add(limit.min(MAX_PAGE) as usize)
        .min(table.rows.len());
    Ok(FixPlanPage {
        file: file.file_name().to_owned(),
        columns: table.columns.clone(),
        total: count(table.rows.len()),
        offset,
        rows: table.rows[start..end].to_vec(),
        redirects_to_write: count(plan.fixes.to_write().count()),
        canonicals: count(plan.fixes.canonicals.len()),
        sitemap_lines: count(plan.fixes.sitemap_add.len() + plan.fixes.sitemap_remove.len()),
        links: count(plan.links.len()),
    })
}

/// The fix plan's files of `open` (Dustpan's own plan under the policy it is analysed
/// under), as its Fix plan pages show them.
pub fn fix_files(open: &OpenAudit) -> FixFiles {
    open.fix_plan().plan.fixes.clone()
}

/// The last simulation run, kept for paging: one audit under one policy at a time.
#[derive(Debug, Default)]
pub struct SimulationCache {
    last: Mutex<Option<(i64, String, Arc<Simulation>)>>,
}

impl SimulationCache {
    /// No simulation yet.
    pub fn new() -> SimulationCache {
        SimulationCache::default()
    }

    /// Audit `id`'s own fix plan simulated under `policy`: the kept simulation when it is
    /// of the same audit and policy, else a new one (which replaces it).
    pub async fn get(
        &self,
        store: &Store,
        id: i64,
        policy: AnalysisPolicy,
    ) -> Result<Arc<Simulation>, ViewError> {
        let kept = self
            .lock()
            .as_ref()
            .filter(|(audit, name, _)| *audit == id && *name == policy.name)
            .map(|(_, _, sim)| Arc::clone(sim));
        if let Some(sim) = kept {
            return Ok(sim);
        }
        let name = policy.name.clone();
        let sim = Arc::new(simulate_stored(store, AuditId(id), Some(policy), None).await?);
        *self.lock() = Some((id, name, Arc::clone(&sim)));
        Ok(sim)
    }

    /// Forgets the simulation of audit `id` (it changed or went away).
    pub fn forget(&self, id: i64) {
        let mut last = self.lock();
        if last.as_ref().is_some_and(|(audit, _, _)| *audit == id) {
            *last = None;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(i64, String, Arc<Simulation>)>> {
        self.last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Audit `id`'s fix plan (Dustpan's own, or `explicit` files in its place) applied to its
/// stored graph and analysed again, under `policy` (the audit's own when `None`).
pub async fn simulate_stored(
    store: &Store,
    id: AuditId,
    policy: Option<AnalysisPolicy>,
    explicit: Option<FixFiles>,
) -> Result<Simulation, ViewError> {
    let (loaded, _) = crate::workflow::load_as_stored(store, id, policy).await?;
    let config = loaded.config;
    let input = loaded.input;
    tokio::task::spawn_blocking(move || {
        let before = audit::analyse(&input, &config);
        // The links to change and the pages to serve are Dustpan's own: no plan file
        // holds them.
        let mut plan = Plan::of(&input, &before);
        if let Some(fixes) = explicit {
            plan.fixes = fixes;
        }
        audit::simulate::simulate(&input, &config, &before, &plan)
    })
    .await
    .map_err(|e| ViewError::Task(e.to_string()))
}

/// How many problems of one kind a simulation found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ProblemCount {
    /// The kind (`redirect_chain`, `orphan`, ...).
    pub kind: String,
    /// The kind in words.
    pub words: String,
    /// How many.
    pub count: u32,
}

/// One thing the plan would create.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ProblemView {
    /// Its kind (`redirect_chain`, ...).
    pub kind: String,
    /// The URL it concerns.
    pub url: String,
    /// What the simulated site does there.
    pub detail: String,
}

/// A simulation of the fix plan, its problems paged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct SimulationPage {
    /// The plan creates no problem.
    pub clean: bool,
    /// Redirects applied.
    pub redirects: u32,
    /// Canonicals set.
    pub canonicals: u32,
    /// Internal links changed or removed.
    pub links: u32,
    /// Sitemap lines removed, replaced or added.
    pub sitemap_lines: u32,
    /// Sitemap lines naming a sitemap the audit did not read (not applied).
    pub sitemap_lines_skipped: u32,
    /// Findings of the audit the simulated site no longer has.
    pub findings_resolved: u32,
    /// Findings it still has.
    pub findings_remaining: u32,
    /// The keys of findings only the simulated site has.
    pub findings_new: Vec<String>,
    /// Problems per kind, every kind listed.
    pub problem_counts: Vec<ProblemCount>,
    /// The problems matched (all kinds, or the one asked for).
    pub matched: u32,
    /// The first problem of this page.
    pub offset: u32,
    /// This page of the problems, sorted by kind and URL.
    pub problems: Vec<ProblemView>,
}

/// Problems `offset..offset + limit` (at most [`MAX_PAGE`]) of `sim`, of `kind` only
/// when given (`redirect_chain`, ...).
pub fn simulation_page(
    sim: &Simulation,
    kind: Option<&str>,
    offset: u32,
    limit: u32,
) -> Result<SimulationPage, ViewError> {
    let kind = match kind {
        None => None,
        Some(k) => match ProblemKind::ALL.iter().find(|p| p.as_str() == k) {
            Some(&p) => Some(p),
            None => {
                let known: Vec<&str> = ProblemKind::ALL.iter().map(|p| p.as_str()).collect();
                return Err(ViewError::Invalid(format!(
                    "no problem kind {k:?}: one of {}",
                    known.join(", ")
                )));
            }
        },
    };
    Ok(problems_page(sim, kind, offset, limit))
}

/// Problems `offset..offset + limit` (at most [`MAX_PAGE`]) of `sim`, of `kind` only
/// when given.
pub(crate) fn problems_page(
    sim: &Simulation,
    kind: Option<ProblemKind>,
    offset: u32,
    limit: u32,
) -> SimulationPage {
    let matched: Vec<_> = sim
        .problems
        .iter()
        .filter(|p| kind.is_none_or(|k| p.kind == k))
        .collect();
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let a = &sim.applied;
    SimulationPage {
        clean: sim.clean(),
        redirects: a.redirects,
        canonicals: a.canonicals,
        links: a.links,
        sitemap_lines: a.sitemap_lines,
        sitemap_lines_skipped: a.sitemap_lines_skipped,
        findings_resolved: count(sim.findings.resolved.len()),
        findings_remaining: count(sim.findings.persisting.len()),
        findings_new: sim.findings.new.clone(),
        problem_counts: ProblemKind::ALL
            .iter()
            .map(|&k| ProblemCount {
                kind: k.as_str().to_owned(),
                words: k.words().to_owned(),
                count: count(sim.count(k)),
            })
            .collect(),
        matched: count(matched.len()),
        offset,
        problems: matched
            .into_iter()
            .skip(offset as usize)
            .take(limit.min(MAX_PAGE) as usize)
            .map(|p| ProblemView {
                kind: p.kind.as_str().to_owned(),
                url: p.url.clone(),
                detail: p.detail.clone(),
            })
            .collect(),
    }
}
