//! Dustpan's desktop app: a thin Tauri shell over the `view`, `crawl` and `store`
//! crates. The commands are the ones `view::ipc_commands!` lists (the same list the
//! window's TypeScript wrappers are generated from); long work runs off the UI thread.
//! A failed command answers a `view::IpcError`: a code and a message.
//!
//! Environment: `DUSTPAN_DB` (the audit database; default as the command-line
//! program's), `DUSTPAN_CA_CERT` (a PEM certificate authority the crawler trusts too),
//! `DUSTPAN_AUTOMATION` (`1`: dialogs take a test's answers instead of opening).
//!
//! Files: the commands read and write only paths the user chose in a dialog the shell
//! opened (`choose_path`, checked by `view::ChosenPaths`).

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod state;

/// jemalloc, as the command-line program: freed memory goes back to the system, so the
/// app's resident size follows the audits it holds open.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use state::AppState;
use tauri::{AppHandle, State};
use view::IpcError;

/// What a command answers.
type Answer<T> = Result<T, IpcError>;

/// Defines one Tauri command per entry of the list it is given, each calling the
/// function of the same name in [`handlers`] with the app, its state and the
/// arguments, and registers them all on a builder.
macro_rules! shell_commands {
    ($($(#[doc = $doc:literal])* $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;)*) => {
        $(
            $(#[doc = $doc])*
            #[tauri::command]
            async fn $name(app: AppHandle, state: State<'_, AppState>, $($arg: $ty),*) -> Answer<$ret> {
                handlers::$name(app, state, $($arg),*).await
            }
        )*

        /// `builder` with every command registered.
        fn with_commands(builder: tauri::Builder<tauri::Wry>) -> tauri::Builder<tauri::Wry> {
            builder.invoke_handler(tauri::generate_handler![$($name),*])
        }
    };
}

view::ipc_commands!(shell_commands);

/// The commands' bodies.
mod handlers {
    use super::Answer;
    use crate::state::AppState;
    use std::path::PathBuf;
    use std::sync::Arc;
    use tauri::{AppHandle, State};
    use view::{
        AnalysisPolicy, AuditListItem, ClusterDetail, DiffView, FindingPage, FindingQuery,
        IpcError, LinkDirection, LinkPage, Overview, PathChoice, PathPurpose, Progress,
        StartAuditRequest, TableName, TablePage, TableQuery, ViewError, ViewQuery, runs,
    };

    /// A background task that did not finish.
    fn task(e: tauri::Error) -> IpcError {
        ViewError::Task(e.to_string()).into()
    }

    pub async fn list_audits(
        _app: AppHandle,
        state: State<'_, AppState>,
    ) -> Answer<Vec<AuditListItem>> {
        let runs = state.runs.clone();
        Ok(view::list_audits(&state.store, &|id| runs.is_running(id)).await?)
    }

    pub async fn start_audit(
        app: AppHandle,
        state: State<'_, AppState>,
        request: StartAuditRequest,
    ) -> Answer<i64> {
        let policy = chosen_policy(&state, &request)?;
        let config = runs::crawl_config(&request, &state.ca_pems)?;
        start_run(app, &state, config, policy).await
    }

    pub async fn start_list_audit(
        app: AppHandle,
        state: State<'_, AppState>,
        request: StartAuditRequest,
        list: view::ListAuditRequest,
    ) -> Answer<i64> {
        let policy = chosen_policy(&state, &request)?;
        for file in &list.files {
            state
                .chosen
                .check(std::path::Path::new(file), PathPurpose::ListFile)?;
        }
        let ca = state.ca_pems.clone();
        // Reading a large log and checking its bots by DNS take a while: off the async
        // runtime.
        let config = tauri::async_runtime::spawn_blocking(move || {
            view::lists::list_crawl_config(&request, &list, &ca, view::lists::BotCheck::System)
        })
        .await
        .map_err(task)??;
        start_run(app, &state, config, policy).await
    }

    /// The analysis policy `request` asks for; its policy file only when chosen in a
    /// dialog.
    fn chosen_policy(state: &AppState, request: &StartAuditRequest) -> Answer<AnalysisPolicy> {
        if let Some(file) = &request.policy_file {
            state
                .chosen
                .check(std::path::Path::new(file), PathPurpose::PolicyFile)?;
        }
        Ok(AnalysisPolicy::choose(
            request.preset,
            request.policy_file.as_deref(),
        )?)
    }

    /// Starts a new audit of `config`, analysed under `policy` (remembered for it).
    async fn start_run(
        app: AppHandle,
        state: &AppState,
        config: crawl::CrawlConfig,
        policy: AnalysisPolicy,
    ) -> Answer<i64> {
        let events = Arc::new(state.events(app));
        let id = state
            .runs
            .start(state.store.clone(), config, policy.clone(), events)
            .await?;
        state.remember_policy(id, policy);
        Ok(id)
    }

    pub async fn audit_progress(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
    ) -> Answer<Option<Progress>> {
        Ok(state.runs.progress(audit_id))
    }

    pub async fn cancel_audit(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
    ) -> Answer<()> {
        // Cancelling an audit that already stopped is a no-op.
        state.runs.cancel(audit_id);
        Ok(())
    }

    pub async fn resume_audit(
        app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
    ) -> Answer<i64> {
        state.forget(audit_id);
        let events = Arc::new(state.events(app));
        let policy = state.policy_of(audit_id).await?;
        Ok(state
            .runs
            .resume(state.store.clone(), audit_id, policy, events)
            .await?)
    }

    pub async fn render_unavailable(
        _app: AppHandle,
        _state: State<'_, AppState>,
    ) -> Answer<Option<String>> {
        Ok(view::options::render_unavailable())
    }

    pub async fn rerun_audit(
        app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
    ) -> Answer<i64> {
        // The stored configuration, checked against the audit's row: a database from
        // someone else cannot send a re-run elsewhere unseen.
        let config = view::runs::stored_run_config(&state.store, store::AuditId(audit_id))
            .await?
            .for_new_audit();
        let policy = state.policy_of(audit_id).await?;
        start_run(app, &state, config, policy).await
    }

    pub async fn delete_audit(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
    ) -> Answer<()> {
        if state.runs.is_running(audit_id) {
            return Err(ViewError::Busy(audit_id).into());
        }
        state.forget(audit_id);
        state
            .store
            .delete_audit(store::AuditId(audit_id))
            .await
            .map_err(ViewError::from)?;
        Ok(())
    }

    pub async fn open_audit(
        app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
    ) -> Answer<Overview> {
        Ok(state.overview(&app, audit_id).await?)
    }

    pub async fn query_table(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        query: TableQuery,
    ) -> Answer<TablePage> {
        let open = state.open(audit_id).await?;
        Ok(
            tauri::async_runtime::spawn_blocking(move || open.query_table(&query))
                .await
                .map_err(task)??,
        )
    }

    pub async fn cluster_detail(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        cluster_id: u32,
    ) -> Answer<ClusterDetail> {
        let open = state.open(audit_id).await?;
        Ok(
            tauri::async_runtime::spawn_blocking(move || open.cluster_detail(cluster_id))
                .await
                .map_err(task)??,
        )
    }

    pub async fn query_findings(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        query: FindingQuery,
    ) -> Answer<FindingPage> {
        let open = state.open(audit_id).await?;
        tauri::async_runtime::spawn_blocking(move || open.query_findings(&query))
            .await
            .map_err(task)
    }

    pub async fn list_issues(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
    ) -> Answer<Vec<view::IssueView>> {
        let open = state.open(audit_id).await?;
        tauri::async_runtime::spawn_blocking(move || open.issues())
            .await
            .map_err(task)
    }

    pub async fn url_detail(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        url: String,
    ) -> Answer<view::UrlDetail> {
        // While the audit is crawled: what the store holds so far, without an analysis.
        if state.runs.is_running(audit_id) {
            return Ok(view::live_url_detail(&state.store, audit_id, &url).await?);
        }
        let open = state.open(audit_id).await?;
        let (reader, asked) = (open.clone(), url.clone());
        let mut detail = tauri::async_runtime::spawn_blocking(move || reader.url_detail(&asked))
            .await
            .map_err(task)??;
        open.add_headers(&state.store, &url, &mut detail).await?;
        Ok(detail)
    }

    pub async fn compare_audits(
        _app: AppHandle,
        state: State<'_, AppState>,
        old_audit: i64,
        new_audit: i64,
    ) -> Answer<DiffView> {
        let old = state.open(old_audit).await?;
        let new = state.open(new_audit).await?;
        tauri::async_runtime::spawn_blocking(move || view::compare(&old, &new))
            .await
            .map_err(task)
    }

    pub async fn export_table(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        table: TableName,
        path: PathBuf,
    ) -> Answer<usize> {
        state.chosen.check(&path, PathPurpose::SaveCsv)?;
        let open = state.open(audit_id).await?;
        Ok(
            tauri::async_runtime::spawn_blocking(move || open.export_table(table, &path))
                .await
                .map_err(task)??,
        )
    }

    pub async fn export_view(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        query: ViewQuery,
        path: PathBuf,
    ) -> Answer<usize> {
        state.chosen.check(&path, PathPurpose::SaveCsv)?;
        let open = state.open(audit_id).await?;
        Ok(tauri::async_runtime::spawn_blocking(move || {
            open.table(query.table).write_csv(&query, &path)
        })
        .await
        .map_err(task)??)
    }

    pub async fn export_report(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        dir: PathBuf,
    ) -> Answer<Vec<String>> {
        state.chosen.check(&dir, PathPurpose::ReportFolder)?;
        let open = state.open(audit_id).await?;
        Ok(
            tauri::async_runtime::spawn_blocking(move || open.export_report(&dir))
                .await
                .map_err(task)??,
        )
    }

    pub async fn url_links(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        url: String,
        direction: LinkDirection,
        offset: u32,
        limit: u32,
    ) -> Answer<LinkPage> {
        let open = state.open(audit_id).await?;
        Ok(tauri::async_runtime::spawn_blocking(move || {
            open.url_links(&url, direction, offset, limit)
        })
        .await
        .map_err(task)??)
    }

    pub async fn export_url_links(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        url: String,
        direction: LinkDirection,
        path: PathBuf,
    ) -> Answer<usize> {
        state.chosen.check(&path, PathPurpose::SaveCsv)?;
        let open = state.open(audit_id).await?;
        Ok(tauri::async_runtime::spawn_blocking(move || {
            open.export_url_links(&url, direction, &path)
        })
        .await
        .map_err(task)??)
    }

    pub async fn export_all_links(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        direction: LinkDirection,
        path: PathBuf,
    ) -> Answer<usize> {
        state.chosen.check(&path, PathPurpose::SaveCsv)?;
        let open = state.open(audit_id).await?;
        Ok(
            tauri::async_runtime::spawn_blocking(move || open.export_all_links(direction, &path))
                .await
                .map_err(task)??,
        )
    }

    pub async fn export_workbook(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        path: PathBuf,
    ) -> Answer<usize> {
        state.chosen.check(&path, PathPurpose::SaveWorkbook)?;
        let open = state.open(audit_id).await?;
        let sheets = tauri::async_runtime::spawn_blocking(move || open.export_workbook(&path))
            .await
            .map_err(task)??;
        Ok(sheets.len())
    }

    pub async fn export_html(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        path: PathBuf,
    ) -> Answer<()> {
        state.chosen.check(&path, PathPurpose::SaveHtml)?;
        let open = state.open(audit_id).await?;
        Ok(
            tauri::async_runtime::spawn_blocking(move || open.export_html(&path))
                .await
                .map_err(task)??,
        )
    }

    pub async fn fix_plan_page(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        file: view::fixplan::FixPlanFile,
        offset: u32,
        limit: u32,
    ) -> Answer<view::fixplan::FixPlanPage> {
        let open = state.open(audit_id).await?;
        Ok(tauri::async_runtime::spawn_blocking(move || {
            view::fixplan::fix_plan_page(&open, file, offset, limit)
        })
        .await
        .map_err(task)??)
    }

    pub async fn simulate_fix_plan(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        kind: Option<String>,
        offset: u32,
        limit: u32,
    ) -> Answer<view::fixplan::SimulationPage> {
        let sim = state.simulation(audit_id).await?;
        Ok(tauri::async_runtime::spawn_blocking(move || {
            view::fixplan::simulation_page(&sim, kind.as_deref(), offset, limit)
        })
        .await
        .map_err(task)??)
    }

    /// The plan in `plan_dir` (chosen in a dialog), or the opened audit's own.
    async fn plan_of(
        state: &AppState,
        audit_id: i64,
        plan_dir: Option<PathBuf>,
    ) -> Answer<view::verify::FixFiles> {
        Ok(match plan_dir {
            Some(dir) => {
                state.chosen.check(&dir, PathPurpose::PlanFolder)?;
                tauri::async_runtime::spawn_blocking(move || view::verify::read_plan(&dir))
                    .await
                    .map_err(task)??
            }
            None => {
                let open = state.open(audit_id).await?;
                view::fixplan::fix_files(&open)
            }
        })
    }

    pub async fn start_verification(
        app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        plan_dir: Option<PathBuf>,
        resolve: Vec<String>,
    ) -> Answer<i64> {
        let plan = plan_of(&state, audit_id, plan_dir).await?;
        let redirected = view::verify::Redirected {
            resolves: resolve,
            ca_pems: state.ca_pems.clone(),
        };
        let planned = view::verify::plan_verification(
            &state.store,
            store::AuditId(audit_id),
            &plan,
            &redirected,
        )
        .await?;
        start_run(app, &state, planned.config, planned.policy).await
    }

    pub async fn verification_result(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        verification_id: i64,
        plan_dir: Option<PathBuf>,
    ) -> Answer<view::verify::VerificationView> {
        if state.runs.is_running(verification_id) {
            return Err(ViewError::Busy(verification_id).into());
        }
        let plan = plan_of(&state, audit_id, plan_dir).await?;
        let verification = view::verify::judge_stored(
            &state.store,
            store::AuditId(audit_id),
            store::AuditId(verification_id),
            &plan,
        )
        .await?;
        Ok(view::verify::VerificationView::from(&verification))
    }

    pub async fn migrate_audits(
        _app: AppHandle,
        state: State<'_, AppState>,
        old_audit: i64,
        new_audit: i64,
    ) -> Answer<view::migrate::MigrationView> {
        let m = view::migrate::map_stored(
            &state.store,
            store::AuditId(old_audit),
            store::AuditId(new_audit),
        )
        .await?;
        Ok(view::migrate::migration_view(old_audit, new_audit, &m))
    }

    pub async fn export_migration(
        _app: AppHandle,
        state: State<'_, AppState>,
        old_audit: i64,
        new_audit: i64,
        dir: PathBuf,
    ) -> Answer<Vec<String>> {
        state.chosen.check(&dir, PathPurpose::MigrationFolder)?;
        let m = view::migrate::map_stored(
            &state.store,
            store::AuditId(old_audit),
            store::AuditId(new_audit),
        )
        .await?;
        Ok(tauri::async_runtime::spawn_blocking(move || {
            view::migrate::write_migration(&m.migration, &dir)
        })
        .await
        .map_err(task)??)
    }

    pub async fn explain_url(
        _app: AppHandle,
        state: State<'_, AppState>,
        audit_id: i64,
        url: String,
    ) -> Answer<Option<view::explain::SearchConsoleView>> {
        if state.runs.is_running(audit_id) {
            return Ok(None);
        }
        let open = state.open(audit_id).await?;
        Ok(
            tauri::async_runtime::spawn_blocking(move || view::explain::explain_url(&open, &url))
                .await
                .map_err(task)??,
        )
    }

    pub async fn choose_path(
        app: AppHandle,
        state: State<'_, AppState>,
        choice: PathChoice,
    ) -> Answer<Option<String>> {
        let chosen = match choice.automation_answer {
            Some(answer) if state.automation => Some(PathBuf::from(answer)),
            Some(_) => {
                return Err(ViewError::Invalid(
                    "a dialog answers only a person unless the app runs for automation".into(),
                )
                .into());
            }
            None => tauri::async_runtime::spawn_blocking(move || {
                ask(
                    &app,
                    choice.purpose,
                    choice.suggested_name,
                    choice.start_folder,
                )
            })
            .await
            .map_err(task)?,
        };
        Ok(chosen.map(|path| {
            state.chosen.grant(&path, choice.purpose);
            path.display().to_string()
        }))
    }

    /// Opens the dialog for `purpose` and waits for the person's answer (`None`:
    /// cancelled, or a path that is not a local file).
    fn ask(
        app: &AppHandle,
        purpose: PathPurpose,
        suggested_name: Option<String>,
        start_folder: Option<String>,
    ) -> Option<PathBuf> {
        use tauri_plugin_dialog::DialogExt;
        let mut dialog = app.dialog().file().set_title(purpose.title());
        // The folder used last, or at first the user's documents folder (the home
        // folder when there is none), never the process's working directory.
        let folder = start_folder.map(PathBuf::from).or_else(|| {
            use tauri::Manager;
            let paths = app.path();
            paths.document_dir().or_else(|_| paths.home_dir()).ok()
        });
        if let Some(folder) = folder {
            dialog = dialog.set_directory(folder);
        }
        let answer = match purpose {
            PathPurpose::SaveCsv => {
                if let Some(name) = suggested_name {
                    dialog = dialog.set_file_name(name);
                }
                dialog.add_filter("CSV", &["csv"]).blocking_save_file()
            }
            PathPurpose::SaveWorkbook => {
                if let Some(name) = suggested_name {
                    dialog = dialog.set_file_name(name);
                }
                dialog
                    .add_filter("Excel workbook", &["xlsx"])
                    .blocking_save_file()
            }
            PathPurpose::SaveHtml => {
                if let Some(name) = suggested_name {
                    dialog = dialog.set_file_name(name);
                }
                dialog.add_filter("HTML", &["html"]).blocking_save_file()
            }
            PathPurpose::ReportFolder | PathPurpose::PlanFolder | PathPurpose::MigrationFolder => {
                dialog.blocking_pick_folder()
            }
            PathPurpose::ListFile => dialog.blocking_pick_file(),
            PathPurpose::PolicyFile => dialog
                .add_filter("Policy", &["toml", "json"])
                .blocking_pick_file(),
        };
        answer?.into_path().ok()
    }
}

fn main() {
    let state = match tauri::async_runtime::block_on(AppState::from_env()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("dustpan-desktop: {e}");
            std::process::exit(1);
        }
    };
    with_commands(
        tauri::Builder::default()
            .plugin(tauri_plugin_dialog::init())
            .plugin(tauri_plugin_opener::init())
            .manage(state),
    )
    .run(tauri::generate_context!())
    .unwrap_or_else(|e| {
        eprintln!("dustpan-desktop: {e}");
        std::process::exit(1);
    });
}
