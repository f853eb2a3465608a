//! Leases: one owner per running audit.
//!
//! A run (a new crawl, a resume, a re-run) takes its audit's lease before it writes
//! anything ([`Store::acquire_lease`]), renews it every [`heartbeat_interval`] while it
//! runs and releases it when it ends ([`Lease::release`]). A second process that finds a
//! live lease is refused with [`StoreError::AuditBusy`], naming the owner; so is deleting
//! the audit. A lease is abandoned, and taken over by the next run, when its heartbeat
//! is older than [`lease_timeout`] or its process is gone from this host (a crawl killed
//! with SIGKILL, a machine that went away).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Serialize;
use sqlx::{Row, Sqlite, SqlitePool};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::error::SqlContext;
use crate::{AuditId, Store, StoreError, now_ms};

/// How long a lease lives without a heartbeat, unless [`LEASE_TIMEOUT_ENV`] says otherwise.
pub const LEASE_TIMEOUT: Duration = Duration::from_secs(30);

/// The environment variable that sets the lease timeout, in seconds (fractions allowed);
/// the heartbeat runs six times per timeout. Tests set a short one.
pub const LEASE_TIMEOUT_ENV: &str = "DUSTPAN_LEASE_TIMEOUT_SECS";

/// The lease timeout: [`LEASE_TIMEOUT`], or [`LEASE_TIMEOUT_ENV`] when it holds a positive
/// number of seconds.
pub fn lease_timeout() -> Duration {
    static TIMEOUT: OnceLock<Duration> = OnceLock::new();
    *TIMEOUT.get_or_init(|| {
        std::env::var(LEASE_TIMEOUT_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|secs| secs.is_finite() && *secs > 0.0)
            .map_or(LEASE_TIMEOUT, Duration::from_secs_f64)
    })
}

/// How often a lease is renewed: a sixth of the timeout (5 s for 30 s).
pub fn heartbeat_interval() -> Duration {
    lease_timeout() / 6
}

/// Who holds an audit's lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeaseHolder {
    /// The audit.
    pub audit: AuditId,
    /// The owner's process id.
    pub pid: u32,
    /// The owner's host name.
    pub host: String,
    /// When it took the lease (ms since the epoch).
    pub since: i64,
    /// Its last heartbeat (ms since the epoch).
    pub heartbeat_at: i64,
}

impl LeaseHolder {
    fn busy(self) -> StoreError {
        StoreError::AuditBusy(Box::new(self))
    }
}

/// `YYYY-MM-DD HH:MM:SS` for milliseconds since the Unix epoch (UTC).
pub fn utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// This machine's name, as leases record it.
fn host_name() -> &'static str {
    static HOST: OnceLock<String> = OnceLock::new();
    HOST.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .or_else(|_| std::fs::read_to_string("/etc/hostname"))
            .ok()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .or_else(|| std::env::var("HOSTNAME").ok())
            .or_else(|| std::env::var("COMPUTERNAME").ok())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "unknown".to_owned())
    })
}

/// A value no other owner has: process id, time and a counter.
fn new_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{:x}-{nanos:x}-{:x}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// Whether process `pid` of this host still runs (a zombie does not). Unknown (true)
/// where the system does not tell.
fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            // The state follows the command name, which is in parentheses.
            Ok(stat) => stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.trim_start().chars().next())
                .is_none_or(|state| !matches!(state, 'Z' | 'X')),
            Err(e) => e.kind() != std::io::ErrorKind::NotFound,
        }
    } else {
        true
    }
}

/// A stored lease with its owner's token.
struct Held {
    token: String,
    holder: LeaseHolder,
}

impl Held {
    /// The owner stopped renewing it, or its process is gone from this host.
    fn abandoned(&self, now: i64) -> bool {
        let timeout = i64::try_from(lease_timeout().as_millis()).unwrap_or(i64::MAX);
        now.saturating_sub(self.holder.heartbeat_at) > timeout
            || (self.holder.host == host_name() && !process_alive(self.holder.pid))
    }
}

async fn held<'e, E>(executor: E, audit: AuditId) -> Result<Option<Held>, StoreError>
where
    E: sqlx::Executor<'e, Database = Sqlite>,
{
    let row = sqlx::query(
        "SELECT token, pid, host, acquired_at, heartbeat_at FROM audit_leases WHERE audit_id = ?",
    )
    .bind(audit.0)
    .fetch_optional(executor)
    .await
    .ctx("reading an audit's lease")?;
    Ok(row.map(|row| Held {
        token: row.get(0),
        holder: LeaseHolder {
            audit,
            pid: u32::try_from(row.get::<i64, _>(1)).unwrap_or(0),
            host: row.get(2),
            since: row.get(3),
            heartbeat_at: row.get(4),
        },
    }))
}

/// Fails with [`StoreError::AuditBusy`] when a live lease is held on `audit`.
pub(crate) async fn refuse_if_leased<'e, E>(executor: E, audit: AuditId) -> Result<(), StoreError>
where
    E: sqlx::Executor<'e, Database = Sqlite>,
{
    match held(executor, audit).await? {
        Some(h) if !h.abandoned(now_ms()) => Err(h.holder.busy()),
        _ => Ok(()),
    }
}

/// The right to run one audit, renewed in the background until it is released or
/// dropped. Dropping it stops the renewal (the lease then ages out) and releases it
/// when a runtime is still there to do so; [`Lease::release`] reports the outcome.
#[derive(Debug)]
pub struct Lease {
    store: Store,
    audit: AuditId,
    token: String,
    lost: watch::Receiver<bool>,
    heartbeat: Option<JoinHandle<()>>,
}

impl Lease {
    /// The audit this lease is for.
    pub fn audit(&self) -> AuditId {
        self.audit
    }

    /// Resolves when another owner has taken the lease over (this process stopped
    /// renewing it for longer than the timeout): the run should stop.
    pub async fn lost(&self) {
        let mut lost = self.lost.clone();
        if lost.wait_for(|lost| *lost).await.is_err() {
            std::future::pending::<()>().await;
        }
    }

    /// Stops renewing the lease and deletes it (unless another owner took it over).
    pub async fn release(mut self) -> Result<(), StoreError> {
        if let Some(task) = self.heartbeat.take() {
            task.abort();
        }
        release(self.store.pool(), self.audit, &self.token).await
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let Some(task) = self.heartbeat.take() else {
            return;
        };
        task.abort();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let pool = self.store.pool().clone();
            let (audit, token) = (self.audit, std::mem::take(&mut self.token));
            runtime.spawn(async move {
                if let Err(error) = release(&pool, audit, &token).await {
                    tracing::warn!(audit = audit.0, %error, "cannot release the audit's lease");
                }
            });
        }
    }
}

async fn release(pool: &SqlitePool, audit: AuditId, token: &str) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM audit_leases WHERE audit_id = ? AND token = ?")
        .bind(audit.0)
        .bind(token)
        .execute(pool)
        .await
        .ctx("releasing an audit's lease")?;
    Ok(())
}

/// Renews the lease every `interval` until it is aborted; says so on `lost` and stops
/// when another owner took it over.
async fn heartbeat(
    pool: SqlitePool,
    audit: AuditId,
    token: String,
    interval: Duration,
    lost: watch::Sender<bool>,
) {
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    loop {
        tick.tick().await;
        let renewed = sqlx::query(
            "UPDATE audit_leases SET heartbeat_at = ? WHERE audit_id = ? AND token = ?",
        )
        .bind(now_ms())
        .bind(audit.0)
        .bind(&token)
        .execute(&pool)
        .await;
        match renewed {
            Ok(done) if done.rows_affected() == 0 => {
                tracing::error!(
                    audit = audit.0,
                    "another process took over the audit's lease: this run stops"
                );
                let _ = lost.send(true);
                return;
            }
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(audit = audit.0, %error, "cannot renew the audit's lease");
            }
        }
    }
}

impl Store {
    /// Takes the lease of `audit` for this process, taking over an abandoned one, and
    /// starts renewing it. Fails with [`StoreError::AuditBusy`] while another owner
    /// holds it.
    pub async fn acquire_lease(&self, audit: AuditId) -> Result<Lease, StoreError> {
        let found = sqlx::query("SELECT 1 FROM audits WHERE id = ?")
            .bind(audit.0)
            .fetch_optional(self.pool())
            .await
            .ctx("finding an audit")?;
        if found.is_none() {
            return Err(StoreError::AuditNotFound(audit));
        }
        let token = new_token();
        let pid = i64::from(std::process::id());
        let host = host_name();
        // Each pass either decides or saw another owner change the row since it read it.
        loop {
            let now = now_ms();
            let taken = match held(self.pool(), audit).await? {
                None => sqlx::query(
                    "INSERT INTO audit_leases (audit_id, token, pid, host, acquired_at, heartbeat_at)
                     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (audit_id) DO NOTHING",
                )
                .bind(audit.0)
                .bind(&token)
                .bind(pid)
                .bind(host)
                .bind(now)
                .bind(now)
                .execute(self.pool())
                .await
                .ctx("taking an audit's lease")?,
                Some(old) if old.abandoned(now) => {
                    let h = &old.holder;
                    tracing::warn!(
                        audit = audit.0,
                        "taking over the lease of pid {} on host {} (last heartbeat {} UTC)",
                        h.pid,
                        h.host,
                        utc(h.heartbeat_at)
                    );
                    sqlx::query(
                        "UPDATE audit_leases SET token = ?, pid = ?, host = ?, acquired_at = ?,
                         heartbeat_at = ? WHERE audit_id = ? AND token = ?",
                    )
                    .bind(&token)
                    .bind(pid)
                    .bind(host)
                    .bind(now)
                    .bind(now)
                    .bind(audit.0)
                    .bind(&old.token)
                    .execute(self.pool())
                    .await
                    .ctx("taking over an audit's lease")?
                }
                Some(live) => return Err(live.holder.busy()),
            };
            if taken.rows_affected() == 1 {
                break;
            }
        }
        let (lost_tx, lost) = watch::channel(false);
        let task = tokio::spawn(heartbeat(
            self.pool().clone(),
            audit,
            token.clone(),
            heartbeat_interval(),
            lost_tx,
        ));
        Ok(Lease {
            store: self.clone(),
            audit,
            token,
            lost,
            heartbeat: Some(task),
        })
    }

    /// Who crawls `audit` now: the holder of its live lease, if any.
    pub async fn lease_holder(&self, audit: AuditId) -> Result<Option<LeaseHolder>, StoreError> {
        let now = now_ms();
        Ok(held(self.pool(), audit)
            .await?
            .filter(|h| !h.abandoned(now))
            .map(|h| h.holder))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    async fn store_with_audit() -> (tempfile::TempDir, Store, AuditId) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("a.sqlite")).await.unwrap();
        let audit = store
            .create_audit(&["https://example.test/".to_owned()], "{}")
            .await
            .unwrap();
        (dir, store, audit)
    }

    #[tokio::test]
    async fn a_second_owner_is_refused_until_the_first_releases() {
        let (_dir, store, audit) = store_with_audit().await;
        let lease = store.acquire_lease(audit).await.unwrap();
        let holder = store.lease_holder(audit).await.unwrap().unwrap();
        assert_eq!(holder.pid, std::process::id());
        let err = store.acquire_lease(audit).await.unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with(&format!(
                "audit {} is being crawled by another process (pid {} on host {})",
                audit.0,
                std::process::id(),
                host_name()
            )),
            "{text}"
        );
        assert!(text.ends_with("; wait for it or stop it"), "{text}");
        assert!(matches!(
            store.delete_audit(audit).await,
            Err(StoreError::AuditBusy(_))
        ));
        lease.release().await.unwrap();
        assert_eq!(store.lease_holder(audit).await.unwrap(), None);
        let again = store.acquire_lease(audit).await.unwrap();
        drop(again);
        // The dropped lease is released in the background.
        for _ in 0..100 {
            if store.lease_holder(audit).await.unwrap().is_none() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(store.lease_holder(audit).await.unwrap(), None);
        assert!(store.delete_audit(audit).await.unwrap() > 0);
    }

    #[tokio::test]
    async fn an_abandoned_lease_is_taken_over_and_its_owner_told() {
        let (_dir, store, audit) = store_with_audit().await;
        let first = store.acquire_lease(audit).await.unwrap();
        // Another host's owner that stopped renewing long ago.
        sqlx::query(
            "UPDATE audit_leases SET host = 'elsewhere', heartbeat_at = ? WHERE audit_id = ?",
        )
        .bind(now_ms() - 10 * i64::try_from(lease_timeout().as_millis()).unwrap())
        .bind(audit.0)
        .execute(store.pool())
        .await
        .unwrap();
        let second = store.acquire_lease(audit).await.unwrap();
        tokio::time::timeout(heartbeat_interval() * 3, first.lost())
            .await
            .unwrap();
        // The first owner's release leaves the second's lease alone.
        first.release().await.unwrap();
        assert_eq!(
            store.lease_holder(audit).await.unwrap().map(|h| h.pid),
            Some(std::process::id())
        );
        second.release().await.unwrap();
    }

    #[tokio::test]
    async fn a_lease_of_a_process_gone_from_this_host_is_abandoned() {
        let (_dir, store, audit) = store_with_audit().await;
        let lease = store.acquire_lease(audit).await.unwrap();
        // A pid above Linux's largest (2^22) is no process.
        sqlx::query("UPDATE audit_leases SET pid = 99999999 WHERE audit_id = ?")
            .bind(audit.0)
            .execute(store.pool())
            .await
            .unwrap();
        if cfg!(target_os = "linux") {
            assert_eq!(store.lease_holder(audit).await.unwrap(), None);
            store
                .acquire_lease(audit)
                .await
                .unwrap()
                .release()
                .await
                .unwrap();
        }
        drop(lease);
    }

    #[tokio::test]
    async fn no_lease_for_an_unknown_audit() {
        let (_dir, store, _) = store_with_audit().await;
        assert!(matches!(
            store.acquire_lease(AuditId(99)).await,
            Err(StoreError::AuditNotFound(_))
        ));
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00");
        assert_eq!(utc(1_795_000_000_000), "2026-11-18 11:06:40");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00");
    }
}
