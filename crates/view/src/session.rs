//! What the desktop app and the MCP server keep between two requests: a few opened
//! audits (the least recently used dropped first), opens under way that everyone asking
//! for the same audit shares, the policy each audit is analysed under, and the last
//! fix-plan simulation. No window and no events: the shell forwards a run's reports and
//! decides where background work runs.

use crate::error::ViewError;
use crate::fixplan::{Simulation, SimulationCache};
use crate::open::{AnalysisPolicy, OpenAudit};
use crate::types::Overview;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::OnceCell;

/// How many opened audits a [`Session`] keeps in memory unless told otherwise.
pub const OPEN_AUDITS: usize = 4;

/// One open under way: everyone asking for the audit meanwhile waits for it.
type Opening = Arc<OnceCell<Arc<OpenAudit>>>;

/// The audits the app has opened, and the policy each one is analysed under. Cheap to
/// clone: clones share everything.
#[derive(Clone)]
pub struct Session {
    inner: Arc<Inner>,
}

struct Inner {
    store: store::Store,
    capacity: usize,
    /// Opened audits, the most recently used last.
    cache: Mutex<Vec<Arc<OpenAudit>>>,
    /// The policy of each audit, as stored with it (read once) or given when it was
    /// started in this session.
    policies: Mutex<HashMap<i64, AnalysisPolicy>>,
    /// Opens under way, by audit.
    opening: Mutex<HashMap<i64, Opening>>,
    /// The last fix-plan simulation, kept for paging its problems.
    simulations: SimulationCache,
}

/// An audit's overview, answered without waiting for its analysis when one is stored.
#[derive(Clone, Debug, PartialEq)]
pub struct QuickOverview {
    /// Totals and chart data.
    pub overview: Overview,
    /// The overview is the one stored by the audit's last analysis and the audit is not
    /// opened yet: open it ([`Session::open`]) in the background for the tables.
    pub stored: bool,
}

/// Locks a mutex; a panic elsewhere while it was held leaves data that is still whole.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Session {
    /// A session over `store` keeping [`OPEN_AUDITS`] opened audits.
    pub fn new(store: store::Store) -> Session {
        Session::with_capacity(store, OPEN_AUDITS)
    }

    /// A session over `store` keeping `capacity` opened audits (at least one).
    pub fn with_capacity(store: store::Store, capacity: usize) -> Session {
        Session {
            inner: Arc::new(Inner {
                store,
                capacity: capacity.max(1),
                cache: Mutex::new(Vec::new()),
                policies: Mutex::new(HashMap::new()),
                opening: Mutex::new(HashMap::new()),
                simulations: SimulationCache::new(),
            }),
        }
    }

    /// The audit database.
    pub fn store(&self) -> &store::Store {
        &self.inner.store
    }

    /// The policy audit `id` is analysed under: the one it was started with, stored
    /// with it ([`AnalysisPolicy::of_audit`]; an audit stored before policies were kept
    /// with audits has the default one). Neither `dustpan report` nor a what-if under
    /// another policy changes it.
    pub async fn policy_of(&self, id: i64) -> Result<AnalysisPolicy, ViewError> {
        let remembered = lock(&self.inner.policies).get(&id).cloned();
        if let Some(p) = remembered {
            return Ok(p);
        }
        let row = self.inner.store.audit(store::AuditId(id)).await?;
        let policy = AnalysisPolicy::of_audit(&row)?;
        lock(&self.inner.policies).insert(id, policy.clone());
        Ok(policy)
    }

    /// Remembers the policy of an audit started in this session.
    pub fn remember_policy(&self, id: i64, policy: AnalysisPolicy) {
        lock(&self.inner.policies).insert(id, policy);
    }

    /// Drops audit `id` (it changes or goes away): the next open loads it again, an
    /// open under way is not kept, and its simulation is run again.
    pub fn forget(&self, id: i64) {
        let mut opening = lock(&self.inner.opening);
        opening.remove(&id);
        lock(&self.inner.cache).retain(|o| o.id() != id);
        self.inner.simulations.forget(id);
    }

    /// Audit `id`'s own fix plan simulated under [`Session::policy_of`]: the last
    /// simulation is kept, so paging through its problems simulates once.
    pub async fn simulation(&self, id: i64) -> Result<Arc<Simulation>, ViewError> {
        let policy = self.policy_of(id).await?;
        self.inner
            .simulations
            .get(&self.inner.store, id, policy)
            .await
    }

    /// Audit `id` if it is opened, now the most recently used.
    pub fn cached(&self, id: i64) -> Option<Arc<OpenAudit>> {
        let mut cache = lock(&self.inner.cache);
        let at = cache.iter().position(|o| o.id() == id)?;
        let open = cache.remove(at);
        cache.push(Arc::clone(&open));
        Some(open)
    }

    /// The ids of the opened audits, the least recently used first.
    pub fn open_ids(&self) -> Vec<i64> {
        lock(&self.inner.cache).iter().map(|o| o.id()).collect()
    }

    /// Keeps `open` as the most recently used, dropping the least recently used audits
    /// beyond the capacity.
    fn put(&self, open: Arc<OpenAudit>) {
        let mut cache = lock(&self.inner.cache);
        cache.retain(|o| o.id() != open.id());
        cache.push(open);
        let excess = cache.len().saturating_sub(self.inner.capacity);
        cache.drain(..excess);
    }

    /// Audit `id`, opened (loaded and analysed under [`Session::policy_of`]) on first
    /// use; callers arriving while it is being opened share that one open.
    pub async fn open(&self, id: i64) -> Result<Arc<OpenAudit>, ViewError> {
        if let Some(open) = self.cached(id) {
            return Ok(open);
        }
        let cell = Arc::clone(lock(&self.inner.opening).entry(id).or_default());
        let result = cell
            .get_or_try_init(|| async {
                let policy = self.policy_of(id).await?;
                let open = Arc::new(OpenAudit::open(&self.inner.store, id, &policy).await?);
                // Kept only if the audit was not forgotten meanwhile.
                let opening = lock(&self.inner.opening);
                if opening.get(&id).is_some_and(|c| Arc::ptr_eq(c, &cell)) {
                    self.put(Arc::clone(&open));
                }
                Ok::<_, ViewError>(open)
            })
            .await
            .cloned();
        let mut opening = lock(&self.inner.opening);
        if opening.get(&id).is_some_and(|c| Arc::ptr_eq(c, &cell)) {
            opening.remove(&id);
        }
        result
    }

    /// The overview of audit `id` without waiting for its analysis: from the opened
    /// audit, else as stored by its last analysis under the same policy if the audit
    /// has not changed since (then [`QuickOverview::stored`]), else opened now.
    pub async fn overview(&self, id: i64) -> Result<QuickOverview, ViewError> {
        if let Some(open) = self.cached(id) {
            return Ok(QuickOverview {
                overview: open.overview().clone(),
                stored: false,
            });
        }
        let policy = self.policy_of(id).await?;
        if let Some(overview) = OpenAudit::stored_overview(&self.inner.store, id, &policy).await? {
            return Ok(QuickOverview {
                overview,
                stored: true,
            });
        }
        Ok(QuickOverview {
            overview: self.open(id).await?.overview().clone(),
            stored: false,
        })
    }

    /// A run of audit `id` ended: keeps the audit as its run opened it (the most
    /// recently used), or drops it when the run opened none.
    pub fn run_finished(&self, id: i64, opened: Option<OpenAudit>) {
        self.forget(id);
        if let Some(open) = opened {
            self.put(Arc::new(open));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::types::PresetName;

    /// A store in a temporary SQLite file with `n` small finished audits.
    async fn store_with(n: usize) -> (tempfile::TempDir, store::Store, Vec<i64>) {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(&dir.path().join("audits.sqlite"))
            .await
            .unwrap();
        let mut ids = Vec::new();
        for seed in 0..n {
            let mut rng = synthetic::Rng(0x5EED + seed as u64);
            let nodes = synthetic::site(40, &mut rng);
            let input = synthetic::input(&nodes, &synthetic::ids(nodes.len(), None));
            ids.push(synthetic::write(&store, &input).await.0);
        }
        (dir, store, ids)
    }

    #[tokio::test]
    async fn the_most_recently_used_audits_are_kept() {
        let (_dir, store, ids) = store_with(4).await;
        let [a, b, c, d] = ids[..] else { panic!() };
        let session = Session::with_capacity(store, 3);
        for id in [a, b, c] {
            session.open(id).await.unwrap();
        }
        assert_eq!(session.open_ids(), [a, b, c]);

        // Reading `a` makes it the most recently used: `b` goes first.
        assert!(session.cached(a).is_some());
        assert_eq!(session.open_ids(), [b, c, a]);
        session.open(d).await.unwrap();
        assert_eq!(session.open_ids(), [c, a, d]);
        assert!(session.cached(b).is_none());

        // An open of a kept audit answers from memory.
        let first = session.open(c).await.unwrap();
        let again = session.open(c).await.unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(session.open_ids(), [a, d, c]);

        // `b` is loaded again when asked for, and `a` is now the oldest.
        session.open(b).await.unwrap();
        assert_eq!(session.open_ids(), [d, c, b]);
    }

    #[tokio::test]
    async fn a_deleted_audit_leaves_the_session() {
        let (_dir, store, ids) = store_with(2).await;
        let session = Session::new(store.clone());
        for &id in &ids {
            session.open(id).await.unwrap();
        }
        session.forget(ids[0]);
        store.delete_audit(store::AuditId(ids[0])).await.unwrap();
        assert_eq!(session.open_ids(), [ids[1]]);
        assert!(session.cached(ids[0]).is_none());
        assert!(session.open(ids[0]).await.is_err());
        assert!(session.overview(ids[0]).await.is_err());
        assert_eq!(session.open_ids(), [ids[1]]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_opens_of_one_audit_share_one_load() {
        let (_dir, store, ids) = store_with(1).await;
        let id = ids[0];
        let session = Session::new(store);
        let opens: Vec<_> = (0..6)
            .map(|_| {
                let s = session.clone();
                tokio::spawn(async move { s.open(id).await })
            })
            .collect();
        let mut opened = Vec::new();
        for o in opens {
            opened.push(o.await.unwrap().unwrap());
        }
        // One load and analysis: every caller holds the same opened audit, the one kept.
        assert!(opened.iter().all(|o| Arc::ptr_eq(o, &opened[0])));
        assert!(Arc::ptr_eq(&session.cached(id).unwrap(), &opened[0]));
        assert_eq!(session.open_ids(), [id]);

        // Once it is open, later callers get it from memory.
        let (x, y) = tokio::join!(session.open(id), session.open(id));
        assert!(Arc::ptr_eq(&x.unwrap(), &opened[0]));
        assert!(Arc::ptr_eq(&y.unwrap(), &opened[0]));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_last_simulation_is_kept_until_its_audit_is_forgotten() {
        let (_dir, store, ids) = store_with(2).await;
        let [a, b] = ids[..] else { panic!() };
        let session = Session::new(store);
        let first = session.simulation(a).await.unwrap();
        assert!(Arc::ptr_eq(&first, &session.simulation(a).await.unwrap()));
        // Another audit's simulation does not drop `a`'s on forgetting `b`.
        session.forget(b);
        assert!(Arc::ptr_eq(&first, &session.simulation(a).await.unwrap()));
        // Forgotten (it changed or went away): simulated again.
        session.forget(a);
        assert!(!Arc::ptr_eq(&first, &session.simulation(a).await.unwrap()));
        // One kept at a time: `b`'s replaces `a`'s.
        let of_a = session.simulation(a).await.unwrap();
        session.simulation(b).await.unwrap();
        assert!(!Arc::ptr_eq(&of_a, &session.simulation(a).await.unwrap()));
        assert_eq!(
            session.simulation(42).await.unwrap_err().code(),
            crate::ErrorCode::NotFound
        );
    }

    #[tokio::test]
    async fn a_failed_open_is_tried_again() {
        let (_dir, store, _) = store_with(0).await;
        let session = Session::new(store);
        let (x, y) = tokio::join!(session.open(42), session.open(42));
        assert!(x.is_err() && y.is_err());
        assert!(session.open_ids().is_empty());
        assert!(session.open(42).await.is_err());
    }

    /// Stores `policy` with audit `id`, as starting it under that policy does.
    async fn started_under(store: &store::Store, id: i64, policy: &AnalysisPolicy) {
        let config = crawl::CrawlConfig {
            policy: policy.clone().into(),
            ..crawl::CrawlConfig::default()
        };
        store
            .replace_audit_config(store::AuditId(id), &serde_json::to_string(&config).unwrap())
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn an_audit_is_analysed_under_the_policy_it_started_with() {
        let (dir, store, ids) = store_with(3).await;
        let [fresh, started, from_file] = ids[..] else {
            panic!()
        };
        let aggressive = AnalysisPolicy::preset(PresetName::Aggressive);
        started_under(&store, started, &aggressive).await;
        let file = dir.path().join("policy.json");
        std::fs::write(
            &file,
            serde_json::to_string(&canon::Policy::rfc3986()).unwrap(),
        )
        .unwrap();
        let custom = AnalysisPolicy::from_file(&file).unwrap();
        started_under(&store, from_file, &custom).await;
        let session = Session::new(store.clone());

        // Started with none: the default.
        assert_eq!(
            session.policy_of(fresh).await.unwrap(),
            AnalysisPolicy::default()
        );
        let open = session.open(fresh).await.unwrap();
        assert_eq!(open.policy(), AnalysisPolicy::default().name);

        // Started under a preset: that preset.
        assert_eq!(session.policy_of(started).await.unwrap(), aggressive);
        assert_eq!(session.open(started).await.unwrap().policy(), "aggressive");

        // An analysis of it under another policy (a what-if) records its summary, and
        // changes nothing of the policy the audit is analysed under.
        OpenAudit::open(&store, started, &AnalysisPolicy::default())
            .await
            .unwrap();
        let restarted = Session::new(store.clone());
        assert_eq!(restarted.policy_of(started).await.unwrap(), aggressive);
        assert_eq!(
            restarted.open(started).await.unwrap().policy(),
            "aggressive"
        );

        // Started under a policy file: its rules stay with the audit, the file may go.
        std::fs::rename(&file, dir.path().join("moved.json")).unwrap();
        let again = restarted.policy_of(from_file).await.unwrap();
        assert_eq!(again, custom);
        assert_eq!(again.policy, canon::Policy::rfc3986());
        assert_eq!(
            restarted.open(from_file).await.unwrap().policy(),
            custom.name
        );
        assert_eq!(
            restarted.policy_of(fresh).await.unwrap(),
            AnalysisPolicy::default()
        );
    }

    #[tokio::test]
    async fn the_overview_is_answered_from_memory_then_from_the_store() {
        let (_dir, store, ids) = store_with(1).await;
        let id = ids[0];
        let session = Session::new(store.clone());

        // Never analysed: opened now.
        let first = session.overview(id).await.unwrap();
        assert!(!first.stored);
        assert_eq!(session.open_ids(), [id]);
        // Opened: from memory.
        let again = session.overview(id).await.unwrap();
        assert_eq!(again, first);

        // After a restart: as stored, with the audit not opened yet.
        let restarted = Session::new(store);
        let quick = restarted.overview(id).await.unwrap();
        assert!(quick.stored);
        assert_eq!(quick.overview, first.overview);
        assert!(restarted.open_ids().is_empty());

        // Under another policy the stored overview does not hold: opened now.
        restarted.remember_policy(id, AnalysisPolicy::preset(PresetName::Rfc3986));
        let other = restarted.overview(id).await.unwrap();
        assert!(!other.stored);
        assert_eq!(other.overview.policy, "rfc3986");
        assert_eq!(restarted.open_ids(), [id]);
    }

    #[tokio::test]
    async fn a_finished_run_replaces_the_opened_audit() {
        let (_dir, store, ids) = store_with(2).await;
        let [a, b] = ids[..] else { panic!() };
        let session = Session::new(store.clone());
        let old = session.open(a).await.unwrap();
        session.open(b).await.unwrap();

        // The run's own analysis becomes the opened audit, the most recently used.
        let rerun = OpenAudit::open(&store, a, &AnalysisPolicy::default())
            .await
            .unwrap();
        session.run_finished(a, Some(rerun));
        assert_eq!(session.open_ids(), [b, a]);
        assert!(!Arc::ptr_eq(&session.cached(a).unwrap(), &old));

        // A run that opened nothing (cancelled, failed) leaves it to be opened again.
        session.run_finished(a, None);
        assert_eq!(session.open_ids(), [b]);
    }
}
