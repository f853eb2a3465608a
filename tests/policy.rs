//! The normalization policy an audit is analysed under is chosen when it starts and kept
//! with it: `dustpan report`, a what-if under another policy, a resume and the desktop
//! app all keep to it.

use std::sync::Arc;
use std::time::Duration;

use crate::util::{Site, path, run};

/// What the app is told of a run: only its end matters here.
#[derive(Default)]
struct Ended(tokio::sync::Notify);

impl view::runs::RunEvents for Ended {
    fn progress(&self, _: &view::Progress) {}
    fn finished(&self, _: &view::Progress, _: Option<view::OpenAudit>) {
        self.0.notify_one();
    }
}

fn aggressive() -> view::AnalysisPolicy {
    view::AnalysisPolicy::preset(view::PresetName::Aggressive)
}

/// An audit the app started under a preset: `dustpan report` analyses it under that
/// preset, a what-if under another preset changes nothing stored, and the app, restarted,
/// shows it under its preset at once.
#[test]
fn reports_and_what_ifs_leave_the_policy_an_audit_started_with() {
    let site = Site::start(fixture::FixtureConfig::default());
    let store = site.store();
    let request = view::StartAuditRequest {
        url: "https://example.test/".into(),
        max_urls: Some(300),
        max_depth: None,
        concurrency: Some(8),
        respect_robots: true,
        user_agent: None,
        preset: Some(view::PresetName::Aggressive),
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
            .map(|h| format!("{h}:{}:127.0.0.1", site.server.port()))
            .collect(),
    };
    let id = site.rt.block_on(async {
        let config =
            view::runs::crawl_config(&request, &[site.server.ca_pem().to_owned()]).unwrap();
        let ended = Arc::new(Ended::default());
        let id = view::runs::Runs::new()
            .start(store.clone(), config, aggressive(), ended.clone())
            .await
            .unwrap();
        tokio::time::timeout(Duration::from_secs(120), ended.0.notified())
            .await
            .expect("the audit finishes");
        id
    });
    let db = path(&site.db);
    let id_arg = id.to_string();
    for what_if in [
        &[][..],
        &["--preset", "rfc3986"][..],
        &["--preset", "seo"][..],
    ] {
        let mut args: Vec<String> = ["report", id_arg.as_str(), "--db", db.as_str()]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        args.extend(what_if.iter().map(|s| (*s).to_owned()));
        let report = run(&args);
        assert_eq!(report.code, 0, "{}", report.stderr);
    }
    site.rt.block_on(async {
        let summary = store
            .analysis_summary(store::AuditId(id))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(summary.policy, "aggressive");
        // The app restarted: the audit's policy, and its stored overview at once.
        let session = view::Session::new(store.clone());
        assert_eq!(session.policy_of(id).await.unwrap(), aggressive());
        let quick = session.overview(id).await.unwrap();
        assert!(quick.stored, "the stored overview is the policy's own");
        assert_eq!(quick.overview.policy, "aggressive");
    });
}

/// An audit started under a preset on the command line and stopped by its time budget
/// resumes under that preset, and its finishing analysis is that preset's.
#[test]
fn a_resumed_audit_keeps_its_policy() {
    let site = Site::start(fixture::generated_site(1_000, 7));
    let first = run(&site.audit_args(
        "https://example.test/",
        &[
            "--concurrency",
            "1",
            "--rate",
            "50",
            "--max-duration",
            "3s",
            "--preset",
            "aggressive",
        ],
    ));
    assert_eq!(first.code, 0, "{}{}", first.stdout, first.stderr);
    let id = crate::util::audit_id(&first.stdout);
    let store = site.store();
    let policy_of = |id| {
        site.rt.block_on(async {
            let row = store.audit(id).await.unwrap();
            view::AnalysisPolicy::of_audit(&row).unwrap()
        })
    };
    assert_eq!(policy_of(id), aggressive());
    let second = run(&[
        "audit".to_owned(),
        "--resume".to_owned(),
        id.0.to_string(),
        "--db".to_owned(),
        path(&site.db),
    ]);
    assert_eq!(second.code, 0, "{}{}", second.stdout, second.stderr);
    assert!(
        second.stdout.contains("Policy        aggressive"),
        "{}",
        second.stdout
    );
    assert_eq!(policy_of(id), aggressive());
    let summary = site
        .rt
        .block_on(store.analysis_summary(id))
        .unwrap()
        .unwrap();
    assert_eq!(summary.policy, "aggressive");
}
