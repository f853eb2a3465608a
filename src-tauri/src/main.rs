//! Dustpan's desktop app: a thin Tauri shell over the `view`, `crawl` and `store`
//! crates. Every command answers from `view`; long work runs off the UI thread.
//!
//! Environment: `DUSTPAN_DB` (the audit database; default as the command-line
//! program's), `DUSTPAN_CA_CERT` (a PEM certificate authority the crawler trusts too).

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod state;

use state::AppState;
use std::path::PathBuf;
use std::sync::Arc;
use tauri::{AppHandle, State};
use view::{
    AnalysisPolicy, AuditListItem, ClusterDetail, DiffView, FindingPage, FindingQuery, Overview,
    Progress, StartAuditRequest, TableName, TablePage, TableQuery, runs,
};

type Answer<T> = Result<T, String>;

fn text(e: impl std::fmt::Display) -> String {
    e.to_string()
}

#[tauri::command]
async fn list_audits(state: State<'_, AppState>) -> Answer<Vec<AuditListItem>> {
    let runs = state.runs.clone();
    view::list_audits(&state.store, &|id| runs.is_running(id))
        .await
        .map_err(text)
}

#[tauri::command]
async fn start_audit(
    app: AppHandle,
    state: State<'_, AppState>,
    request: StartAuditRequest,
) -> Answer<i64> {
    let policy =
        AnalysisPolicy::choose(request.preset, request.policy_file.as_deref()).map_err(text)?;
    let config = runs::crawl_config(&request, &state.ca_pems).map_err(text)?;
    let events = Arc::new(state.events(app));
    let id = state
        .runs
        .start(state.store.clone(), config, policy.clone(), events)
        .await
        .map_err(text)?;
    state.remember_policy(id, policy);
    Ok(id)
}

#[tauri::command]
async fn audit_progress(state: State<'_, AppState>, audit_id: i64) -> Answer<Option<Progress>> {
    Ok(state.runs.progress(audit_id))
}

#[tauri::command]
async fn cancel_audit(state: State<'_, AppState>, audit_id: i64) -> Answer<()> {
    // Cancelling an audit that already stopped is a no-op.
    state.runs.cancel(audit_id);
    Ok(())
}

#[tauri::command]
async fn resume_audit(app: AppHandle, state: State<'_, AppState>, audit_id: i64) -> Answer<i64> {
    state.forget(audit_id);
    let events = Arc::new(state.events(app));
    state
        .runs
        .resume(
            state.store.clone(),
            audit_id,
            state.policy_of(audit_id).await,
            events,
        )
        .await
        .map_err(text)
}

#[tauri::command]
async fn rerun_audit(app: AppHandle, state: State<'_, AppState>, audit_id: i64) -> Answer<i64> {
    let config = crawl::audit_config(&state.store, store::AuditId(audit_id))
        .await
        .map_err(text)?;
    let policy = state.policy_of(audit_id).await;
    let events = Arc::new(state.events(app));
    let id = state
        .runs
        .start(state.store.clone(), config, policy.clone(), events)
        .await
        .map_err(text)?;
    state.remember_policy(id, policy);
    Ok(id)
}

#[tauri::command]
async fn delete_audit(state: State<'_, AppState>, audit_id: i64) -> Answer<()> {
    if state.runs.is_running(audit_id) {
        return Err(format!("audit {audit_id} is running: cancel it first"));
    }
    state.forget(audit_id);
    state
        .store
        .delete_audit(store::AuditId(audit_id))
        .await
        .map(|_| ())
        .map_err(text)
}

#[tauri::command]
async fn open_audit(app: AppHandle, state: State<'_, AppState>, audit_id: i64) -> Answer<Overview> {
    state.overview(&app, audit_id).await
}

#[tauri::command]
async fn query_table(
    state: State<'_, AppState>,
    audit_id: i64,
    query: TableQuery,
) -> Answer<TablePage> {
    let open = state.open(audit_id).await?;
    tauri::async_runtime::spawn_blocking(move || open.query_table(&query))
        .await
        .map_err(text)?
        .map_err(text)
}

#[tauri::command]
async fn cluster_detail(
    state: State<'_, AppState>,
    audit_id: i64,
    cluster_id: u32,
) -> Answer<ClusterDetail> {
    let open = state.open(audit_id).await?;
    tauri::async_runtime::spawn_blocking(move || open.cluster_detail(cluster_id))
        .await
        .map_err(text)?
        .map_err(text)
}

#[tauri::command]
async fn query_findings(
    state: State<'_, AppState>,
    audit_id: i64,
    query: FindingQuery,
) -> Answer<FindingPage> {
    let open = state.open(audit_id).await?;
    tauri::async_runtime::spawn_blocking(move || open.query_findings(&query))
        .await
        .map_err(text)
}

#[tauri::command]
async fn compare_audits(
    state: State<'_, AppState>,
    old_audit: i64,
    new_audit: i64,
) -> Answer<DiffView> {
    let old = state.open(old_audit).await?;
    let new = state.open(new_audit).await?;
    tauri::async_runtime::spawn_blocking(move || view::compare(&old, &new))
        .await
        .map_err(text)
}

#[tauri::command]
async fn export_table(
    state: State<'_, AppState>,
    audit_id: i64,
    table: TableName,
    path: PathBuf,
) -> Answer<usize> {
    let open = state.open(audit_id).await?;
    tauri::async_runtime::spawn_blocking(move || open.export_table(table, &path))
        .await
        .map_err(text)?
        .map_err(text)
}

#[tauri::command]
async fn export_report(
    state: State<'_, AppState>,
    audit_id: i64,
    dir: PathBuf,
) -> Answer<Vec<String>> {
    let open = state.open(audit_id).await?;
    tauri::async_runtime::spawn_blocking(move || open.export_report(&dir))
        .await
        .map_err(text)?
        .map_err(text)
}

fn main() {
    let state = match tauri::async_runtime::block_on(AppState::from_env()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("dustpan-desktop: {e}");
            std::process::exit(1);
        }
    };
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(state)
        .invoke_handler(tauri::generate_handler![
            list_audits,
            start_audit,
            audit_progress,
            cancel_audit,
            resume_audit,
            rerun_audit,
            delete_audit,
            open_audit,
            query_table,
            cluster_detail,
            query_findings,
            compare_audits,
            export_table,
            export_report,
        ])
        .run(tauri::generate_context!())
        .unwrap_or_else(|e| {
            eprintln!("dustpan-desktop: {e}");
            std::process::exit(1);
        });
}
