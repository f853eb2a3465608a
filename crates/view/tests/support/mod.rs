//! What the view's tests share: the fixture site on loopback with a fresh store, the
//! start request the app sends for it, and a recorder of a run's events.
#![allow(dead_code)] // each test binary uses part of it
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use fixture::{FixtureConfig, FixtureServer};
use std::sync::Mutex;
use std::time::Instant;
use tokio::sync::Notify;
use view::runs::RunEvents;
use view::{OpenAudit, Progress, StartAuditRequest};

/// A run's events as they came: every progress with its time, the last progress of
/// each finished run, the audit opened at the end, and a notice of each end.
#[derive(Default)]
pub struct Recorder {
    pub progress: Mutex<Vec<(Instant, Progress)>>,
    pub finished: Mutex<Vec<Progress>>,
    pub opened: Mutex<Option<OpenAudit>>,
    pub done: Notify,
}

impl RunEvents for Recorder {
    fn progress(&self, p: &Progress) {
        self.progress
            .lock()
            .unwrap()
            .push((Instant::now(), p.clone()));
    }
    fn finished(&self, p: &Progress, opened: Option<OpenAudit>) {
        self.finished.lock().unwrap().push(p.clone());
        *self.opened.lock().unwrap() = opened;
        self.done.notify_one();
    }
}

/// The fixture site on 127.0.0.1 and a store in a temporary folder.
pub struct Site {
    pub server: FixtureServer,
    pub dir: tempfile::TempDir,
    pub store: store::Store,
}

/// Starts the fixture site with `config` and opens a new store.
pub async fn site(config: FixtureConfig) -> Site {
    let server = FixtureServer::start(config).await.unwrap();
    assert!(server.addr().ip().is_loopback());
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(&dir.path().join("audits.sqlite"))
        .await
        .unwrap();
    Site { server, dir, store }
}

/// The app's start request for an audit of the fixture (its hosts resolved to its
/// loopback port), 8 connections, default options.
pub fn request(server: &FixtureServer) -> StartAuditRequest {
    StartAuditRequest {
        url: "https://example.test/".into(),
        max_urls: Some(2000),
        max_depth: None,
        concurrency: Some(8),
        respect_robots: true,
        user_agent: None,
        preset: None,
        policy_file: None,
        allow_internal: false,
        includes: Vec::new(),
        excludes: Vec::new(),
        follow_nofollow: None,
        probe_variants: None,
        requests_per_second: None,
        render: false,
        resolve: fixture::HOSTS
            .iter()
            .map(|h| format!("{h}:{}:127.0.0.1", server.port()))
            .collect(),
    }
}
