//! The app's state: the database, running audits and the [`Session`] of opened audits
//! (kept, shared and analysed under their policy by `view`), plus what only the shell
//! knows: the environment it starts from, the window its runs report to, and the
//! runtime its background work runs on.

use std::path::PathBuf;
use std::sync::Arc;
use tauri::{AppHandle, Emitter, Manager};
use view::runs::{RunEvents, Runs};
use view::{
    AnalysisPolicy, ChosenPaths, FINISHED_EVENT, OpenAudit, Overview, PROGRESS_EVENT, Progress,
    Session, ViewError,
};

/// Everything the commands share.
pub struct AppState {
    /// The audit database.
    pub store: store::Store,
    /// Audits running in this process.
    pub runs: Runs,
    /// Extra certificate authorities for the crawler (`$DUSTPAN_CA_CERT`).
    pub ca_pems: Vec<String>,
    /// The paths the user chose in the app's dialogs.
    pub chosen: ChosenPaths,
    /// Started for automation (`$DUSTPAN_AUTOMATION` = 1): a dialog takes the answer the
    /// window gives (a test's) instead of opening.
    pub automation: bool,
    session: Session,
}

/// `$DUSTPAN_DB`, or `dustpan.sqlite` in the platform's data directory (as the
/// command-line program).
fn database_path() -> Result<PathBuf, ViewError> {
    if let Some(p) = std::env::var_os("DUSTPAN_DB").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let dirs = directories::ProjectDirs::from("", "", "dustpan").ok_or_else(|| {
        ViewError::Invalid(
            "cannot find a home directory for the audit database; set DUSTPAN_DB".into(),
        )
    })?;
    let dir = dirs.data_dir();
    std::fs::create_dir_all(dir).map_err(|e| ViewError::io(dir, e))?;
    Ok(dir.join("dustpan.sqlite"))
}

impl AppState {
    /// Opens the database and reads `$DUSTPAN_CA_CERT` and `$DUSTPAN_AUTOMATION`.
    pub async fn from_env() -> Result<AppState, ViewError> {
        let path = database_path()?;
        // The store's error names the database file.
        let store = store::Store::open(&path).await?;
        let mut ca_pems = Vec::new();
        if let Some(ca) = std::env::var_os("DUSTPAN_CA_CERT").filter(|p| !p.is_empty()) {
            let ca = PathBuf::from(ca);
            let pem = std::fs::read_to_string(&ca).map_err(|e| ViewError::io(&ca, e))?;
            ca_pems.push(pem);
        }
        Ok(AppState {
            session: Session::new(store.clone()),
            store,
            runs: Runs::new(),
            ca_pems,
            chosen: ChosenPaths::new(),
            automation: std::env::var_os("DUSTPAN_AUTOMATION").is_some_and(|v| v == "1"),
        })
    }

    /// The policy `id` is analysed under ([`Session::policy_of`]).
    pub async fn policy_of(&self, id: i64) -> Result<AnalysisPolicy, ViewError> {
        self.session.policy_of(id).await
    }

    /// Remembers the policy of an audit started here.
    pub fn remember_policy(&self, id: i64, policy: AnalysisPolicy) {
        self.session.remember_policy(id, policy);
    }

    /// Drops audit `id` from the opened audits (it changes or goes away).
    pub fn forget(&self, id: i64) {
        self.session.forget(id);
    }

    /// Audit `id`'s own fix plan simulated, the last one kept for paging
    /// ([`Session::simulation`]).
    pub async fn simulation(&self, id: i64) -> Result<Arc<view::fixplan::Simulation>, ViewError> {
        self.session.simulation(id).await
    }

    /// Audit `id`, opened on first use; concurrent callers share one open.
    pub async fn open(&self, id: i64) -> Result<Arc<OpenAudit>, ViewError> {
        self.session.open(id).await
    }

    /// The overview of audit `id` without waiting for its analysis
    /// ([`Session::overview`]); when it is the stored one, the audit is opened in the
    /// background for the tables.
    pub async fn overview(&self, app: &AppHandle, id: i64) -> Result<Overview, ViewError> {
        let quick = self.session.overview(id).await?;
        if quick.stored {
            let app = app.clone();
            tauri::async_runtime::spawn(async move {
                // A failure here is reported again by the table query that needs it.
                let _ = app.state::<AppState>().open(id).await;
            });
        }
        Ok(quick.overview)
    }

    /// Where runs report, for one run.
    pub fn events(&self, app: AppHandle) -> Events {
        Events {
            app,
            session: self.session.clone(),
        }
    }
}

/// Forwards a run's reports to the window as events and keeps the finished audit open.
pub struct Events {
    app: AppHandle,
    session: Session,
}

impl RunEvents for Events {
    fn progress(&self, progress: &Progress) {
        // A closed window cannot receive events; the run goes on.
        let _ = self.app.emit(PROGRESS_EVENT, progress);
    }

    fn finished(&self, progress: &Progress, opened: Option<OpenAudit>) {
        self.session.run_finished(progress.audit_id, opened);
        let _ = self.app.emit(FINISHED_EVENT, progress);
    }
}
