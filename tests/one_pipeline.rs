//! The command-line program and the desktop app run one workflow: an audit of the
//! fixture started from each gives byte-identical exports (every table, every fix
//! file), the same DUST rule validation and the same summary in the audits list.

use crate::util::{Site, audit_id, path, run};
use fixture::FixtureConfig;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;
use view::runs::{RunEvents, Runs, crawl_config};
use view::{AnalysisPolicy, OpenAudit, Progress, ProgressPhase, StartAuditRequest};

#[derive(Default)]
struct Done {
    last: std::sync::Mutex<Option<Progress>>,
    notify: Notify,
}

impl RunEvents for Done {
    fn progress(&self, _: &Progress) {}
    fn finished(&self, p: &Progress, _: Option<OpenAudit>) {
        *self.last.lock().unwrap() = Some(p.clone());
        self.notify.notify_one();
    }
}

/// Every file of a folder, by name (with the measured response times of `pages.csv`
/// left out: they differ from one crawl to the next).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let bytes = std::fs::read(e.path()).unwrap();
            let bytes = if name == "pages.csv" {
                without_column(&bytes, "Response Time")
            } else {
                bytes
            };
            (name, bytes)
        })
        .collect()
}

/// A CSV file with one column's cells emptied.
fn without_column(csv: &[u8], title: &str) -> Vec<u8> {
    let mut reader = csv::Reader::from_reader(csv);
    let headers = reader.headers().unwrap().clone();
    let at = headers.iter().position(|h| h == title).unwrap();
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(&headers).unwrap();
    for record in reader.records() {
        let record = record.unwrap();
        let cells = record
            .iter()
            .enumerate()
            .map(|(i, c)| if i == at { "" } else { c });
        writer.write_record(cells).unwrap();
    }
    writer.into_inner().unwrap()
}

#[test]
fn the_cli_and_the_app_export_identical_reports() {
    let site = Site::start(FixtureConfig::default());
    // One request at a time: both crawls meet the URLs in the same order.
    let cli = run(&site.audit_args(
        "https://example.test/",
        &["--max-urls", "2000", "--concurrency", "1", "-q"],
    ));
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    let cli_id = audit_id(&cli.stdout);

    let request = StartAuditRequest {
        url: "https://example.test/".into(),
        max_urls: Some(2000),
        max_depth: None,
        concurrency: Some(1),
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
            .map(|h| format!("{h}:{}:127.0.0.1", site.server.port()))
            .collect(),
    };
    let dir = tempfile::tempdir().unwrap();
    let app_dir = dir.path().join("app");
    let app_id = site.rt.block_on(async {
        let store = store::Store::open(&site.db).await.unwrap();
        let config = crawl_config(&request, &[site.server.ca_pem().to_owned()]).unwrap();
        let done = Arc::new(Done::default());
        let id = Runs::new()
            .start(
                store.clone(),
                config,
                AnalysisPolicy::default(),
                done.clone(),
            )
            .await
            .unwrap();
        tokio::time::timeout(Duration::from_secs(300), done.notify.notified())
            .await
            .expect("the app's audit finishes");
        let last = done.last.lock().unwrap().clone().unwrap();
        assert_eq!(last.phase, ProgressPhase::Done, "{last:?}");
        let open = OpenAudit::open(&store, id, &AnalysisPolicy::default())
            .await
            .unwrap();
        open.export_report(&app_dir).unwrap();
        store.close().await;
        id
    });

    let cli_dir = dir.path().join("cli");
    let export = run(&[
        "export".to_owned(),
        cli_id.0.to_string(),
        "--db".to_owned(),
        path(&site.db),
        "--out".to_owned(),
        path(&cli_dir),
    ]);
    assert_eq!(export.code, 0, "{}", export.stderr);

    let (a, b) = (files(&cli_dir), files(&app_dir));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "the same files"
    );
    for (name, bytes) in &a {
        assert!(
            bytes == &b[name],
            "{name} differs between the CLI's audit {} and the app's audit {app_id}",
            cli_id.0
        );
    }
    assert!(a.contains_key("pages.csv") && a.contains_key("redirects.nginx.conf"));

    // Both ran the same finishing step: the same DUST validation samples were fetched
    // and the audits list shows the same counts.
    site.rt.block_on(async {
        let store = store::Store::open(&site.db).await.unwrap();
        let (x, y) = (
            store.validations(cli_id).await.unwrap(),
            store.validations(store::AuditId(app_id)).await.unwrap(),
        );
        let key = |v: &[store::ValidationRecord]| {
            let mut k: Vec<(String, String, Option<u16>)> = v
                .iter()
                .map(|r| (r.rule_id.clone(), r.rewritten.clone(), r.status))
                .collect();
            k.sort();
            k
        };
        assert_eq!(key(&x), key(&y));
        let list = store.list_audits_with_summary().await.unwrap();
        let summary = |id: store::AuditId| {
            let a = list.iter().find(|a| a.audit.id == id).unwrap();
            a.analysis.as_ref().map(|s| {
                (
                    s.policy.clone(),
                    s.errors,
                    s.warnings,
                    s.notices,
                    s.clusters,
                )
            })
        };
        assert!(summary(cli_id).is_some());
        assert_eq!(summary(cli_id), summary(store::AuditId(app_id)));
    });
}
