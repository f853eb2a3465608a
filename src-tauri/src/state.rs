//! The app's state: the database, running audits, a few opened audits (least recently
//! used dropped first), and the policy each audit started in this app is analysed under.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use tauri::{AppHandle, Emitter, Manager};
use view::runs::{RunEvents, Runs};
use view::{AnalysisPolicy, OpenAudit, Overview, Progress};

/// How many opened audits stay in memory.
const OPEN_AUDITS: usize = 4;

/// An opened audit with its id.
type Entry = (i64, Arc<OpenAudit>);

/// Opened audits, most recently used last.
#[derive(Clone, Default)]
pub struct Cache(Arc<Mutex<Vec<Entry>>>);

impl Cache {
    fn get(&self, id: i64) -> Option<Arc<OpenAudit>> {
        let mut list = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let at = list.iter().position(|(i, _)| *i == id)?;
        let entry = list.remove(at);
        let open = Arc::clone(&entry.1);
        list.push(entry);
        Some(open)
    }

    fn put(&self, open: Arc<OpenAudit>) {
        let mut list = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        list.retain(|(i, _)| *i != open.id());
        list.push((open.id(), open));
        while list.len() > OPEN_AUDITS {
            list.remove(0);
        }
    }

    fn remove(&self, id: i64) {
        let mut list = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        list.retain(|(i, _)| *i != id);
    }
}

/// Everything the commands share.
pub struct AppState {
    /// The audit database.
    pub store: store::Store,
    /// Audits running in this process.
    pub runs: Runs,
    /// Extra certificate authorities for the crawler (`$DUSTPAN_CA_CERT`).
    pub ca_pems: Vec<String>,
    cache: Cache,
    policies: Mutex<HashMap<i64, AnalysisPolicy>>,
    /// Opens under way, so that a table asked for while the overview's audit is still
    /// being analysed waits for that analysis instead of starting another.
    opening: Mutex<HashMap<i64, Arc<tokio::sync::OnceCell<Arc<OpenAudit>>>>>,
}

/// `$DUSTPAN_DB`, or `dustpan.sqlite` in the platform's data directory (as the
/// command-line program).
fn database_path() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("DUSTPAN_DB").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let dirs = directories::ProjectDirs::from("", "", "dustpan")
        .ok_or("cannot find a home directory for the audit database; set DUSTPAN_DB")?;
    let dir = dirs.data_dir();
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir.join("dustpan.sqlite"))
}

impl AppState {
    /// Opens the database and reads `$DUSTPAN_CA_CERT`.
    pub async fn from_env() -> Result<AppState, String> {
        let path = database_path()?;
        let store = store::Store::open(&path)
            .await
            .map_err(|e| format!("cannot open the audit database {}: {e}", path.display()))?;
        let mut ca_pems = Vec::new();
        if let Some(ca) = std::env::var_os("DUSTPAN_CA_CERT").filter(|p| !p.is_empty()) {
            let pem = std::fs::read_to_string(&ca).map_err(|e| {
                format!(
                    "cannot read the CA certificate {}: {e}",
                    PathBuf::from(&ca).display()
                )
            })?;
            ca_pems.push(pem);
        }
        Ok(AppState {
            store,
            runs: Runs::new(),
            ca_pems,
            cache: Cache::default(),
            policies: Mutex::new(HashMap::new()),
            opening: Mutex::new(HashMap::new()),
        })
    }

    /// The policy `id` is analysed under: the one it started with in this app, else the
    /// one its last analysis used (kept with its summary, so it survives a restart),
    /// else seo.
    pub async fn policy_of(&self, id: i64) -> AnalysisPolicy {
        let remembered = {
            let policies = self.policies.lock().unwrap_or_else(PoisonError::into_inner);
            policies.get(&id).cloned()
        };
        if let Some(p) = remembered {
            return p;
        }
        let stored = self.store.analysis_summary(store::AuditId(id)).await;
        stored
            .ok()
            .flatten()
            .and_then(|s| AnalysisPolicy::from_name(&s.policy))
            .unwrap_or_default()
    }

    /// Remembers the policy of an audit started here.
    pub fn remember_policy(&self, id: i64, policy: AnalysisPolicy) {
        let mut policies = self.policies.lock().unwrap_or_else(PoisonError::into_inner);
        policies.insert(id, policy);
    }

    /// Drops audit `id` from the opened audits (it changes or goes away).
    pub fn forget(&self, id: i64) {
        self.cache.remove(id);
    }

    /// Audit `id`, opened (loaded and analysed) on first use; callers arriving while it
    /// is being opened share that one open.
    pub async fn open(&self, id: i64) -> Result<Arc<OpenAudit>, String> {
        if let Some(open) = self.cache.get(id) {
            return Ok(open);
        }
        let cell = {
            let mut opening = self.opening.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(opening.entry(id).or_default())
        };
        let result = cell
            .get_or_try_init(|| async {
                let policy = self.policy_of(id).await;
                let open = OpenAudit::open(&self.store, id, &policy)
                    .await
                    .map_err(|e| e.to_string())?;
                let open = Arc::new(open);
                self.cache.put(Arc::clone(&open));
                Ok::<_, String>(open)
            })
            .await
            .cloned();
        let mut opening = self.opening.lock().unwrap_or_else(PoisonError::into_inner);
        if opening.get(&id).is_some_and(|c| Arc::ptr_eq(c, &cell)) {
            opening.remove(&id);
        }
        result
    }

    /// The overview of audit `id` without waiting for its analysis: from the opened
    /// audit, else as stored by its last analysis (the analysis then runs in the
    /// background for the tables), else opened now.
    pub async fn overview(&self, app: &AppHandle, id: i64) -> Result<Overview, String> {
        if let Some(open) = self.cache.get(id) {
            return Ok(open.overview().clone());
        }
        let policy = self.policy_of(id).await;
        if let Ok(Some(overview)) = OpenAudit::stored_overview(&self.store, id, &policy).await {
            let app = app.clone();
            tauri::async_runtime::spawn(async move {
                // A failure here is reported again by the table query that needs it.
                let _ = app.state::<AppState>().open(id).await;
            });
            return Ok(overview);
        }
        Ok(self.open(id).await?.overview().clone())
    }

    /// Where runs report, for one run.
    pub fn events(&self, app: AppHandle) -> Events {
        Events {
            app,
            cache: self.cache.clone(),
        }
    }
}

/// Forwards a run's reports to the window as events and caches the finished audit.
pub struct Events {
    app: AppHandle,
    cache: Cache,
}

impl RunEvents for Events {
    fn progress(&self, progress: &Progress) {
        // A closed window cannot receive events; the run goes on.
        let _ = self.app.emit("audit-progress", progress);
    }

    fn finished(&self, progress: &Progress, opened: Option<OpenAudit>) {
        if let Some(open) = opened {
            self.cache.put(Arc::new(open));
        } else {
            self.cache.remove(progress.audit_id);
        }
        let _ = self.app.emit("audit-finished", progress);
    }
}
