//! Audit runs started and resumed through [`view::runs::Runs`], as the desktop app runs
//! them, on the fixture site: when a stopped audit resumes, and the policy an audit
//! keeps.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use fixture::FixtureConfig;
use std::sync::Arc;
use std::time::Duration;
use support::{Recorder, Site};
use view::runs::{Runs, crawl_config};
use view::{AnalysisPolicy, PresetName, Progress, ProgressPhase, StartAuditRequest};

async fn site() -> Site {
    support::site(FixtureConfig {
        slow_delay: Duration::from_millis(1500),
        ..FixtureConfig::default()
    })
    .await
}

/// Two connections to the slowed site, so a run can be stopped before its end.
fn request(site: &Site) -> StartAuditRequest {
    StartAuditRequest {
        concurrency: Some(2),
        ..support::request(&site.server)
    }
}

/// Waits for the run `rec` records to end; answers its last progress.
async fn ended(rec: &Recorder) -> Progress {
    tokio::time::timeout(Duration::from_secs(120), rec.done.notified())
        .await
        .expect("the run ends");
    rec.finished.lock().unwrap().pop().unwrap()
}

/// An audit its time budget stopped finished short of its site, and says it continues:
/// the app resumes it as `dustpan audit --resume` does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_stopped_by_its_time_budget_resumes() {
    let site = site().await;
    let runs = Runs::new();
    let mut config = crawl_config(&request(&site), &[site.server.ca_pem().to_owned()]).unwrap();
    config.max_duration_ms = 1000;
    let rec = Arc::new(Recorder::default());
    let id = runs
        .start(
            site.store.clone(),
            config,
            AnalysisPolicy::default(),
            rec.clone(),
        )
        .await
        .unwrap();
    ended(&rec).await;
    let row = site.store.audit(store::AuditId(id)).await.unwrap();
    assert_eq!(row.status, store::AuditStatus::Finished);
    assert_eq!(
        row.stop.as_ref().map(|s| s.reason),
        Some(store::StopReason::MaxDuration),
        "{row:?}"
    );
    let before = row.pages_fetched;

    let rec = Arc::new(Recorder::default());
    let again = runs
        .resume(
            site.store.clone(),
            id,
            AnalysisPolicy::default(),
            rec.clone(),
        )
        .await
        .expect("an audit a per-run budget stopped resumes");
    assert_eq!(again, id);
    ended(&rec).await;
    let after = site.store.audit(store::AuditId(id)).await.unwrap();
    assert!(after.pages_fetched > before, "{before} then {after:?}");
}

/// A complete audit does not resume, whoever asks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_complete_audit_does_not_resume() {
    let site = site().await;
    let runs = Runs::new();
    let mut req = request(&site);
    req.max_urls = Some(5);
    let config = crawl_config(&req, &[site.server.ca_pem().to_owned()]).unwrap();
    let rec = Arc::new(Recorder::default());
    let id = runs
        .start(
            site.store.clone(),
            config,
            AnalysisPolicy::default(),
            rec.clone(),
        )
        .await
        .unwrap();
    assert_eq!(ended(&rec).await.phase, ProgressPhase::Done);
    let refused = runs
        .resume(
            site.store.clone(),
            id,
            AnalysisPolicy::preset(PresetName::Seo),
            rec,
        )
        .await;
    assert!(refused.is_err(), "a complete audit does not resume");
    assert!(
        view::runs::resumable_config(&site.store, store::AuditId(id))
            .await
            .is_err()
    );
}
