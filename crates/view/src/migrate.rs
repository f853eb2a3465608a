//! A site migration mapped, as `dustpan migrate` and the app's Migrate view run it: every
//! page of the old site's audit matched to its best URL on the new site's
//! ([`audit::migrate`]), its redirect map simulated on the new site's audit
//! ([`Migration::simulate`]), and the files that move them.

use crate::error::ViewError;
use crate::fixplan::{MAX_PAGE, SimulationPage, problems_page};
pub use audit::migrate::{MatchBasis, Migration, MigrationRow};
use audit::simulate::Simulation;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::Path;
use store::{AuditId, Store};
use ts_rs::TS;

/// A migration and its redirect map simulated on the new site's audit: what
/// `dustpan migrate --json` prints.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MigrationReport {
    /// Every old page mapped.
    #[serde(flatten)]
    pub migration: Migration,
    /// The redirect map applied to the new site's audit and checked as every plan is.
    pub simulation: Simulation,
}

impl MigrationReport {
    /// Every old page is kept or mapped, and the map simulates clean.
    pub fn complete(&self) -> bool {
        self.migration.unmatched() == 0 && self.simulation.clean()
    }
}

/// Every page of audit `old` mapped onto audit `new`, each analysed under its own
/// stored configuration, and the redirect map simulated on `new`. An audit that does
/// not exist is [`ErrorCode::NotFound`](crate::ErrorCode::NotFound), as everywhere else.
pub async fn map_stored(
    store: &Store,
    old: AuditId,
    new: AuditId,
) -> Result<MigrationReport, ViewError> {
    let load = |id: AuditId| async move {
        crate::workflow::load_as_stored(store, id, None)
            .await
            .map(|(loaded, _)| loaded)
    };
    let old = load(old).await?;
    let new = load(new).await?;
    tokio::task::spawn_blocking(move || {
        let analysis = audit::analyse(&new.input, &new.config);
        let migration =
            audit::migrate::migrate(&old.input, &old.config, &new.input, &new.config, &analysis);
        let simulation = migration.simulate(&new.input, &new.config, &analysis);
        MigrationReport {
            migration,
            simulation,
        }
    })
    .await
    .map_err(|e| ViewError::Task(e.to_string()))
}

/// A migration's redirect map `fixes` (perhaps edited by hand: `dustpan simulate NEW
/// --plan DIR --migration`) simulated on audit `new`, as [`map_stored`] simulates the
/// map it makes.
pub async fn simulate_map_stored(
    store: &Store,
    new: AuditId,
    fixes: audit::FixFiles,
) -> Result<Simulation, ViewError> {
    let (new, _) = crate::workflow::load_as_stored(store, new, None).await?;
    tokio::task::spawn_blocking(move || {
        let analysis = audit::analyse(&new.input, &new.config);
        let plan = audit::simulate::Plan::migration(fixes);
        audit::simulate::simulate(&new.input, &new.config, &analysis, &plan)
    })
    .await
    .map_err(|e| ViewError::Task(e.to_string()))
}

/// The files `--out` writes, by name: `migration.csv` (every row), then the redirect
/// map as every plan writes it (`redirect_map.csv`, nginx, Apache, Netlify, Vercel,
/// Cloudflare, WordPress).
pub fn migration_files(m: &Migration) -> Vec<(&'static str, String)> {
    let mut files = vec![("migration.csv", m.csv())];
    files.extend(m.fix_files().redirect_files());
    files
}

/// Writes [`migration_files`] into `dir` (created when missing); answers the names
/// written.
pub fn write_migration(m: &Migration, dir: &Path) -> Result<Vec<String>, ViewError> {
    std::fs::create_dir_all(dir).map_err(|e| ViewError::io(dir, e))?;
    let mut written = Vec::new();
    for (name, text) in migration_files(m) {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| ViewError::io(&path, e))?;
        written.push(name.to_owned());
    }
    Ok(written)
}

/// One old page and where it goes, for the app.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct MigrationRowView {
    /// The old page's URL.
    pub old_url: String,
    /// Its best URL on the new site; `null` when nothing matched.
    pub new_url: Option<String>,
    /// Why, in words (`identical main content`, `no match`, ...).
    pub basis: String,
    /// How sure the match is, 0 to 100.
    pub confidence: u32,
    /// Internal links to the old page on the old site.
    pub inlinks: u32,
    /// Requests for the old page in the old audit's access log.
    pub log_requests: u64,
}

/// A migration as the app shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct MigrationView {
    /// The old site's audit.
    pub old_audit: i64,
    /// The new site's audit.
    pub new_audit: i64,
    /// Old pages the new site serves at the same URL.
    pub kept: u32,
    /// Old pages mapped to another URL.
    pub mapped: u32,
    /// Old pages nothing matched.
    pub unmatched: u32,
    /// Every old page: the unmatched first (most linked and requested first, what to
    /// redirect by hand first), then the mapped (least sure first), then the kept.
    pub rows: Vec<MigrationRowView>,
    /// The redirect map simulated on the new site's audit: its verdict, and its first
    /// thousand problems.
    pub simulation: SimulationPage,
}

/// `report` (audit `old` mapped onto `new`) as the app shows it.
pub fn migration_view(old: i64, new: i64, report: &MigrationReport) -> MigrationView {
    let m = &report.migration;
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let part = |keep: fn(MatchBasis) -> bool| m.rows.iter().filter(move |r| keep(r.basis));
    let rows = part(|b| b == MatchBasis::Unmatched)
        .chain(part(|b| {
            !matches!(b, MatchBasis::SameUrl | MatchBasis::Unmatched)
        }))
        .chain(part(|b| b == MatchBasis::SameUrl))
        .map(|r| MigrationRowView {
            old_url: r.old_url.clone(),
            new_url: r.new_url.clone(),
            basis: r.basis.words(),
            confidence: r.confidence,
            inlinks: r.inlinks,
            log_requests: r.log_requests,
        })
        .collect();
    MigrationView {
        old_audit: old,
        new_audit: new,
        kept: count(m.kept()),
        mapped: count(m.mapped()),
        unmatched: count(m.unmatched()),
        rows,
        simulation: problems_page(&report.simulation, None, 0, MAX_PAGE),
    }
}
