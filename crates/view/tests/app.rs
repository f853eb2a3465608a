//! What the desktop app shows, checked without a window: audits of the fixture site
//! run through [`view::runs::Runs`], then read through [`view::OpenAudit`].
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use fixture::FixtureConfig;
use std::sync::Arc;
use std::time::Duration;
use support::{Recorder, Site};
use view::runs::{Runs, crawl_config};
use view::{
    AnalysisPolicy, AuditStatus, Cell, Family, FindingPage, FindingQuery, OpenAudit, PresetName,
    ProgressPhase, Role, Severity, SortSpec, StartAuditRequest, TableName, TableQuery,
};

async fn site(slow: Duration) -> Site {
    support::site(FixtureConfig {
        slow_delay: slow,
        ..FixtureConfig::default()
    })
    .await
}

fn request(site: &Site) -> StartAuditRequest {
    support::request(&site.server)
}

async fn run_to_end(site: &Site, runs: &Runs) -> (i64, Arc<Recorder>) {
    let config = crawl_config(&request(site), &[site.server.ca_pem().to_owned()]).unwrap();
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
    tokio::time::timeout(Duration::from_secs(120), rec.done.notified())
        .await
        .expect("the audit finishes");
    (id, rec)
}

fn text(c: &Cell) -> String {
    match c {
        Cell::Text(s) => s.clone(),
        Cell::Number(n) => n.to_string(),
        Cell::Empty => String::new(),
    }
}

fn query(table: TableName) -> TableQuery {
    TableQuery {
        table,
        sort: None,
        search: None,
        filters: vec![],
        offset: 0,
        limit: 1000,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_of_the_fixture_reads_as_the_app_shows_it() {
    let site = site(Duration::from_millis(10)).await;
    let runs = Runs::new();
    let (id, rec) = run_to_end(&site, &runs).await;
    progress_reports(&rec, &runs, id);
    let open = rec
        .opened
        .lock()
        .unwrap()
        .take()
        .expect("analysed at the end");
    assert_eq!(open.id(), id);
    stored_overview(&site, id, &open).await;
    overview(&open);
    let cluster_id = slash_cluster(&open);
    let all = findings(&open);
    let code = issues(&open, &all);
    url_details(&site, id, &open, cluster_id, &code).await;
    status_counts(&site, id, &rec, &open).await;
    pages(&open);
    every_table(&open);
    external(&open);
    workbook_external_sheet(&open);
    exports(&open);
    history(&site, &runs, id, &open).await;
    comparisons(&site, &runs, id, &open).await;
}

/// Progress: starts in discovery, ends done, throttled, finished once.
fn progress_reports(rec: &Recorder, runs: &Runs, id: i64) {
    let events = rec.progress.lock().unwrap().clone();
    let finished = rec.finished.lock().unwrap().clone();
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0].phase, ProgressPhase::Done, "{finished:?}");
    assert_eq!(events.first().unwrap().1.phase, ProgressPhase::Discovery);
    assert_eq!(events.last().unwrap().1.phase, ProgressPhase::Done);
    assert!(events.iter().all(|(_, p)| p.audit_id == id));
    let span = events.last().unwrap().0 - events.first().unwrap().0;
    let allowed = (span.as_millis() / 250) as usize + 8;
    assert!(
        events.len() <= allowed,
        "{} progress events in {span:?}",
        events.len()
    );
    assert!(finished[0].fetched > 50);
    assert!(!runs.is_running(id));
    assert_eq!(runs.progress(id).unwrap().phase, ProgressPhase::Done);
}

/// The analysis at the end stored its overview: the next open shows it at once, under
/// the same policy only.
async fn stored_overview(site: &Site, id: i64, open: &OpenAudit) {
    let seo = AnalysisPolicy::default();
    let stored = OpenAudit::stored_overview(&site.store, id, &seo)
        .await
        .unwrap();
    assert_eq!(stored.as_ref(), Some(open.overview()));
    let aggressive = AnalysisPolicy::preset(PresetName::Aggressive);
    assert_eq!(
        OpenAudit::stored_overview(&site.store, id, &aggressive)
            .await
            .unwrap(),
        None
    );
    // A summary saved since (say by `dustpan report`) replaces it: analysed again.
    let mut summary = open.summary();
    summary.analysed_at += 1;
    site.store
        .save_analysis_summary(store::AuditId(id), &summary)
        .await
        .unwrap();
    assert_eq!(
        OpenAudit::stored_overview(&site.store, id, &seo)
            .await
            .unwrap(),
        None
    );
    open.save_summary(&site.store).await.unwrap();
    assert!(
        OpenAudit::stored_overview(&site.store, id, &seo)
            .await
            .unwrap()
            .is_some()
    );
}

/// The overview agrees with the analysis.
fn overview(open: &OpenAudit) {
    let o = open.overview();
    assert_eq!(o.status, view::AuditStatus::Done);
    assert_eq!(o.start_url, "https://example.test/");
    assert_eq!(o.clusters as usize, open.analysis().clusters.len());
    let by_severity: u32 = o.findings_by_severity.iter().map(|c| c.count).sum();
    assert_eq!(by_severity as usize, open.analysis().findings.len());
    let by_family: u32 = o.findings_by_family.iter().map(|c| c.count).sum();
    assert_eq!(by_family, by_severity);
    let by_cause: u32 = o.clusters_by_cause.iter().map(|c| c.count).sum();
    assert_eq!(by_cause, o.clusters);
    // The status chart counts the site's own answers: the URL variants Dustpan made
    // up to test the server's rules are fetched, but no answer of the site.
    let codes: u32 = o.status_codes.iter().map(|c| c.count).sum();
    let made_up = open.input().made_up_urls();
    let probe_fetches = open
        .input()
        .fetches
        .iter()
        .filter(|f| made_up.contains(&f.url_id))
        .count() as u32;
    assert!(probe_fetches > 0);
    assert_eq!(codes, o.pages - probe_fetches);
    assert!(o.status_codes.iter().any(|c| c.label == "301"));
    // /chain/start takes 3 hops in the Before variant.
    assert!(
        o.redirect_chain_lengths
            .iter()
            .any(|c| c.label == "3" && c.count >= 1)
    );
    assert_eq!(o.policy, "seo");
}

/// The trailing-slash duplicate: member, evidence and fix. Returns its cluster's id.
fn slash_cluster(open: &OpenAudit) -> u32 {
    let o = open.overview();
    let clusters = open.query_table(&query(TableName::Clusters)).unwrap();
    assert_eq!(clusters.total, o.clusters);
    let row = clusters
        .rows
        .iter()
        .position(|r| text(&r[1]) == "https://example.test/shoes")
        .expect("a cluster preferring /shoes");
    let cluster_id: u32 = clusters.row_keys[row].parse().unwrap();
    let detail = open.cluster_detail(cluster_id).unwrap();
    assert_eq!(detail.preferred_url, "https://example.test/shoes");
    assert_eq!(detail.members[0].role, Role::Preferred);
    assert_eq!(detail.members[0].fix, None);
    assert!(detail.members[0].indexable);
    let slash = detail
        .members
        .iter()
        .find(|m| m.url == "https://example.test/shoes/")
        .expect("/shoes/ is a member");
    assert_eq!(slash.role, Role::Duplicate);
    assert_eq!(
        slash.fix.as_deref(),
        Some("301 redirect to https://example.test/shoes")
    );
    assert!(
        !slash.evidence.is_empty()
            && slash.evidence[0].contains("https://example.test/shoes/")
            && slash.evidence[0].contains("same visible text"),
        "{:?}",
        slash.evidence
    );
    assert_eq!(detail.size as usize, detail.members.len());
    assert!(detail.findings.iter().any(|f| f.id == "DUP-SLASH"));
    assert!(open.cluster_detail(u32::MAX).is_err());
    cluster_id
}

/// Findings: filters and search. Returns every finding.
fn findings(open: &OpenAudit) -> FindingPage {
    let all = open.query_findings(&FindingQuery {
        severity: None,
        family: None,
        search: None,
        offset: 0,
        limit: 1000,
    });
    assert_eq!(all.matched, all.total);
    let canon = open.query_findings(&FindingQuery {
        severity: Some(Severity::Error),
        family: Some(Family::Canonicals),
        search: None,
        offset: 0,
        limit: 1000,
    });
    assert!(canon.matched > 0);
    assert!(
        canon
            .items
            .iter()
            .all(|f| f.severity == Severity::Error && f.id.starts_with("CANON-"))
    );
    let searched = open.query_findings(&FindingQuery {
        severity: None,
        family: None,
        search: Some("CHAIN/START".into()),
        offset: 0,
        limit: 1000,
    });
    assert!(searched.items.iter().any(|f| f.id == "REDIRECT-CHAIN"));
    assert!(searched.items.iter().all(|f| {
        f.urls
            .iter()
            .chain(&f.evidence)
            .chain(&f.fixes)
            .any(|t| t.to_lowercase().contains("chain/start"))
            || f.key.contains("chain/start")
    }));
    all
}

/// Issues: one per finding kind present, by priority, with their URLs as a table.
/// Returns the kind of the finding that names the trailing-slash duplicate.
fn issues(open: &OpenAudit, all: &FindingPage) -> String {
    let issues = open.issues();
    let kinds: std::collections::BTreeSet<&str> = all.items.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(issues.len(), kinds.len());
    // Site errors first (see `view::issues::site_error`), then by priority.
    let rank = |i: &view::IssueView| {
        let error = audit::FindingId::from_code(&i.code).is_some_and(view::issues::site_error);
        (error, i.priority)
    };
    assert!(
        issues.windows(2).all(|w| rank(&w[0]) >= rank(&w[1])),
        "site errors first, then by priority"
    );
    // The issue of a finding that names the trailing-slash duplicate.
    let code = all
        .items
        .iter()
        .find(|f| f.urls.iter().any(|u| u == "https://example.test/shoes/"))
        .map(|f| f.id.clone())
        .expect("a finding names /shoes/");
    let slash = issues.iter().find(|i| i.code == code).unwrap();
    assert_eq!(
        slash.priority,
        view::issues::priority(slash.severity, slash.urls)
    );
    assert!(!slash.why.is_empty());
    assert!(slash.how_to_fix.ends_with('.'), "{}", slash.how_to_fix);
    let slash_findings: Vec<_> = all.items.iter().filter(|f| f.id == code).collect();
    assert_eq!(slash.findings as usize, slash_findings.len());
    assert_eq!(slash.severity, slash_findings[0].severity);
    let slash_urls: std::collections::BTreeSet<&str> = slash_findings
        .iter()
        .flat_map(|f| f.urls.iter().map(String::as_str))
        .collect();
    assert_eq!(slash.urls as usize, slash_urls.len());
    let mut q = query(TableName::IssueUrls);
    q.filters = vec![view::ColumnFilter {
        column: "issue".into(),
        op: view::FilterOp::Equals,
        value: code.clone(),
        upper: None,
    }];
    let rows = open.query_table(&q).unwrap();
    let distinct_pairs: usize = slash_findings
        .iter()
        .map(|f| {
            f.urls
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len()
        })
        .sum();
    assert_eq!(rows.matched as usize, distinct_pairs);
    let address = rows
        .columns
        .iter()
        .position(|c| c.key == "address")
        .unwrap();
    let summary = rows
        .columns
        .iter()
        .position(|c| c.key == "summary")
        .unwrap();
    let fix = rows.columns.iter().position(|c| c.key == "fix").unwrap();
    let shoes = rows
        .rows
        .iter()
        .find(|r| text(&r[address]) == "https://example.test/shoes/")
        .expect("/shoes/ is listed under its issue");
    assert!(!text(&shoes[summary]).is_empty());
    assert!(text(&shoes[fix]).contains("https://example.test/shoes"));
    // The total of the table is every (finding, URL) pair.
    let pairs: usize = all
        .items
        .iter()
        .map(|f| {
            f.urls
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len()
        })
        .sum();
    assert_eq!(open.table(TableName::IssueUrls).rows().len(), pairs);
    code
}

/// The URL detail pane: a duplicate's cluster, a redirect's hops, a 404's inlinks; then
/// the same URLs as the store holds them while an audit is crawled (no analysis).
async fn url_details(site: &Site, id: i64, open: &OpenAudit, cluster_id: u32, code: &str) {
    let dup = open.url_detail("https://example.test/shoes/").unwrap();
    assert_eq!(dup.url, "https://example.test/shoes/");
    assert_eq!(field(&dup, "address"), "https://example.test/shoes/");
    assert_eq!(field(&dup, "status_code"), "200");
    let member = dup.cluster.as_ref().expect("/shoes/ is clustered");
    assert_eq!(member.preferred_url, "https://example.test/shoes");
    assert_eq!(member.cluster_id, cluster_id);
    assert_eq!(member.member.role, Role::Duplicate);
    assert_eq!(member.member.url, "https://example.test/shoes/");
    assert!(member.member.evidence[0].contains("same visible text"));
    assert!(dup.findings.iter().any(|f| f.id == code));
    assert!(
        dup.findings
            .iter()
            .all(|f| f.urls.iter().any(|u| u == "https://example.test/shoes/"))
    );
    let chain = open.url_detail("https://example.test/chain/start").unwrap();
    assert_eq!(chain.hops.len(), 3, "{:?}", chain.hops);
    assert_eq!(chain.hops[0].from, "https://example.test/chain/start");
    for w in chain.hops.windows(2) {
        assert_eq!(w[0].to.as_deref(), Some(w[1].from.as_str()));
    }
    assert!(chain.hops.iter().all(|h| (300..400).contains(&h.status)));
    assert_eq!(
        field(&chain, "status_code"),
        chain.hops[0].status.to_string()
    );
    let input = open.input();
    let broken = input
        .fetches
        .iter()
        .filter(|f| f.status == Some(404))
        .map(|f| f.url_id)
        .find(|id| {
            input
                .links
                .iter()
                .any(|l| l.to == Some(*id) && !l.kind.is_declared())
        })
        .expect("a linked 404");
    let broken_url = input
        .urls
        .iter()
        .find(|u| u.id == broken)
        .unwrap()
        .found_url()
        .to_owned();
    let d = open.url_detail(&broken_url).unwrap();
    let expected_inlinks = input.links.iter().filter(|l| l.to == Some(broken)).count();
    assert_eq!(d.inlinks_total as usize, expected_inlinks);
    assert_eq!(d.inlinks.len(), expected_inlinks.min(view::DETAIL_LINKS));
    assert!(d.inlinks.iter().all(|l| l.status == Some(404)));
    assert!(d.inlinks.iter().all(|l| l.url.starts_with("https://")));
    // Anchor text is kept for links to errors.
    assert!(
        d.inlinks
            .iter()
            .any(|l| l.anchor.as_deref().is_some_and(|a| !a.is_empty())),
        "{:?}",
        d.inlinks
    );
    assert!(d.inlinks.iter().all(|l| l.region.is_some()));
    assert!(
        d.findings.iter().any(|f| f.id == "LINK-BROKEN"),
        "{:?}",
        d.findings
    );
    assert!(d.outlinks.is_empty() || d.outlinks_total as usize >= d.outlinks.len());
    let home = open.url_detail("https://example.test/").unwrap();
    assert!(home.outlinks_total > 5);
    assert!(
        home.outlinks
            .iter()
            .any(|l| l.url == "https://example.test/shoes")
    );
    let missing = open
        .url_detail("https://example.test/never-seen")
        .unwrap_err();
    assert!(
        matches!(missing, view::ViewError::NoSuchUrl(_)),
        "{missing:?}"
    );

    // The same URLs as the store holds them while an audit is crawled (no analysis).
    let live = view::live_url_detail(&site.store, id, &broken_url)
        .await
        .unwrap();
    assert!(live.live);
    assert_eq!(live.url, broken_url);
    assert_eq!(field(&live, "status_code"), "404");
    assert_eq!(field(&live, "crawl_state"), "done");
    assert_eq!(live.inlinks.len(), 1, "the page it was first found on");
    assert!(
        d.inlinks.iter().any(|l| l.url == live.inlinks[0].url),
        "{:?} not among {:?}",
        live.inlinks,
        d.inlinks
    );
    assert_eq!(live.inlinks[0].status, Some(404));
    assert!(live.cluster.is_none() && live.findings.is_empty());
    let live_chain = view::live_url_detail(&site.store, id, "https://example.test/chain/start")
        .await
        .unwrap();
    assert_eq!(live_chain.hops, chain.hops);
    let live_home = view::live_url_detail(&site.store, id, "https://example.test/")
        .await
        .unwrap();
    assert_eq!(live_home.outlinks_total, home.outlinks_total);
    assert!(
        live_home
            .outlinks
            .iter()
            .any(|l| l.url == "https://example.test/shoes" && l.status == Some(200))
    );
    assert!(matches!(
        view::live_url_detail(&site.store, id, "https://example.test/never-seen").await,
        Err(view::ViewError::NoSuchUrl(_))
    ));
}

/// The progress's status counts are the store's, and its latest errors name URLs that
/// failed or answered 4xx / 5xx.
async fn status_counts(site: &Site, id: i64, rec: &Recorder, open: &OpenAudit) {
    let summary = site.store.audit_summary(store::AuditId(id)).await.unwrap();
    let c = summary.status_classes;
    let events = rec.progress.lock().unwrap().clone();
    let finished = rec.finished.lock().unwrap().clone();
    let counted = finished[0].statuses;
    assert_eq!(
        counted,
        view::StatusCounts {
            success: c.success as u32,
            redirect: c.redirect as u32,
            client_error: c.client_error as u32,
            server_error: c.server_error as u32,
            other: c.other as u32,
            no_response: c.no_response as u32,
            blocked: summary.states.blocked as u32,
        }
    );
    assert!(
        counted.client_error > 0 && counted.success > 0 && counted.blocked > 0,
        "{counted:?}"
    );
    let latest = &finished[0].latest_errors;
    assert!(!latest.is_empty() && latest.len() <= 10, "{latest:?}");
    for e in latest {
        let shown = open.url_detail(&e.url).unwrap();
        let status = field(&shown, "status_code");
        assert_eq!(status, e.status.map(|s| s.to_string()).unwrap_or_default());
        assert!(
            e.status.is_none_or(|s| s >= 400) || e.error.is_some(),
            "{e:?}"
        );
    }
    // Every progress report carried its latest errors: a 404 of the fixture is among them.
    let facts = fixture::answers::site(fixture::SiteVariant::Before);
    let reported: std::collections::BTreeSet<String> = events
        .iter()
        .flat_map(|(_, p)| p.latest_errors.iter())
        .chain(latest)
        .filter(|e| e.status == Some(404))
        .map(|e| e.url.clone())
        .collect();
    assert!(
        facts
            .urls
            .iter()
            .any(|f| f.status == 404 && reported.contains(f.url)),
        "{reported:?}"
    );
}

/// Pages: sorted by status code (descending), searched.
fn pages(open: &OpenAudit) {
    let mut q = query(TableName::Pages);
    q.sort = Some(SortSpec {
        column: "status_code".into(),
        descending: true,
    });
    q.search = Some("Shoes".into());
    let page = open.query_table(&q).unwrap();
    let status = page
        .columns
        .iter()
        .position(|c| c.key == "status_code")
        .unwrap();
    let codes: Vec<i64> = page
        .rows
        .iter()
        .filter_map(|r| match r[status] {
            Cell::Number(n) => Some(n),
            _ => None,
        })
        .collect();
    assert!(codes.windows(2).all(|w| w[0] >= w[1]), "{codes:?}");
    let expected = open
        .table(TableName::Pages)
        .rows()
        .iter()
        .filter(|r| {
            r.iter()
                .any(|c| c.as_text().to_lowercase().contains("shoes"))
        })
        .count();
    assert_eq!(page.matched as usize, expected);
    assert!(expected > 3);
    for r in &page.rows {
        assert!(r.iter().any(|c| text(c).to_lowercase().contains("shoes")));
    }
}

/// Every table answers, with one key per row and one cell per column.
fn every_table(open: &OpenAudit) {
    for name in TableName::ALL {
        let p = open.query_table(&query(name)).unwrap();
        assert_eq!(p.rows.len(), p.row_keys.len(), "{name:?}");
        assert!(
            p.rows.iter().all(|r| r.len() == p.columns.len()),
            "{name:?}"
        );
    }
}

/// The External table: the links to other sites (the blog, on a host the audit of the
/// shop does not include), from the stored links, with how many pages link there; and
/// the detail pane marks them.
fn external(open: &OpenAudit) {
    let p = open.query_table(&query(TableName::External)).unwrap();
    let col = |key: &str| p.columns.iter().position(|c| c.key == key).unwrap();
    let (address, host, source, anchor, pages) = (
        col("address"),
        col("host"),
        col("source"),
        col("anchor"),
        col("linking_pages"),
    );
    let own = open.own_hosts();
    assert!(own.contains("example.test") && !own.contains("blog.example.test"));
    assert!(!p.rows.is_empty());
    for r in &p.rows {
        assert!(!own.contains(&text(&r[host])), "{r:?}");
        let from = text(&r[source]);
        let from_host = from.split('/').nth(2).unwrap_or_default().to_owned();
        assert!(own.contains(&from_host), "{r:?}");
    }
    let blog: Vec<&Vec<Cell>> = p
        .rows
        .iter()
        .filter(|r| text(&r[address]) == "https://blog.example.test/")
        .collect();
    assert!(blog.len() > 10, "{}", blog.len());
    let sources: std::collections::HashSet<String> =
        blog.iter().map(|r| text(&r[source])).collect();
    assert!(
        blog.iter()
            .all(|r| text(&r[pages]) == sources.len().to_string()),
        "every row counts the pages linking to its target"
    );
    assert!(blog.iter().any(|r| text(&r[anchor]) == "Journal"));
    // The home page's outlinks mark the link to the blog, and only it.
    let home = open.url_detail("https://example.test/").unwrap();
    let marked: Vec<&str> = home
        .outlinks
        .iter()
        .filter(|l| l.external)
        .map(|l| l.url.as_str())
        .collect();
    assert!(marked.contains(&"https://blog.example.test/"), "{marked:?}");
    assert!(
        marked
            .iter()
            .all(|u| !u.starts_with("https://example.test/"))
    );
}

/// The file `name` of a zip archive, as text.
fn zipped(book: &std::path::Path, name: &str) -> String {
    use std::io::Read as _;
    let mut zip = zip::ZipArchive::new(std::fs::File::open(book).unwrap()).unwrap();
    let mut text = String::new();
    zip.by_name(name)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// The workbook has an External sheet with the rows of `external_links.csv`.
fn workbook_external_sheet(open: &OpenAudit) {
    let out = tempfile::tempdir().unwrap();
    let (csv, csv_rows) = open.export_external(out.path()).unwrap();
    assert!(csv_rows > 10, "{csv}: {csv_rows} rows");
    let book = out.path().join("audit.xlsx");
    let sheets = open.export_workbook(&book).unwrap();
    let at = sheets
        .iter()
        .position(|s| s.name == "external_links")
        .unwrap_or_else(|| panic!("no external_links sheet in {sheets:?}"));
    assert_eq!(sheets[at].rows, csv_rows);
    // Read back from the file: the sheet is named in the workbook and holds the rows.
    let names = zipped(&book, "xl/workbook.xml");
    assert!(names.contains("name=\"external_links\""), "{names}");
    let sheet = zipped(&book, &format!("xl/worksheets/sheet{}.xml", at + 1));
    assert_eq!(
        sheet.matches("<row ").count(),
        csv_rows + 1,
        "header and rows"
    );
}

/// Exports: the same bytes as `dustpan export`.
fn exports(open: &OpenAudit) {
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("members.csv");
    let rows = open.export_table(TableName::ClusterMembers, &path).unwrap();
    let mut cli = Vec::new();
    let cli_rows = audit::export::write_table(
        audit::export::Table::Clusters,
        open.input(),
        open.analysis(),
        &mut cli,
    )
    .unwrap();
    assert_eq!(rows, cli_rows);
    assert_eq!(std::fs::read(&path).unwrap(), cli);
    let files = open.export_report(&out.path().join("report")).unwrap();
    assert!(files.iter().any(|f| f.ends_with("pages.csv")));
    assert!(files.iter().any(|f| f.ends_with("redirects.nginx.conf")));
    // Every table but the access log's crawl budget (a site audit has none), every link
    // twice (all_inlinks.csv, all_outlinks.csv), the fix files.
    assert_eq!(files.len(), TableName::ALL.len() - 1 + 2 + 9);
    assert!(files.iter().any(|f| f.ends_with("all_inlinks.csv")));
    for f in &files {
        assert!(std::path::Path::new(f).exists(), "{f}");
    }
}

/// The history.
async fn history(site: &Site, runs: &Runs, id: i64, open: &OpenAudit) {
    let o = open.overview();
    let list = view::list_audits(&site.store, &|i| runs.is_running(i))
        .await
        .unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].id, id);
    assert_eq!(list[0].status, AuditStatus::Done);
    assert_eq!(list[0].clusters, Some(o.clusters));
    assert_eq!(list[0].findings, Some(open.severity_counts()));
    assert_eq!(list[0].pages, i64::from(o.pages));
}

/// Comparisons: an audit with itself is unchanged; the After variant of the site fixes
/// the canonical to a 404 and shortens the redirect chain.
async fn comparisons(site: &Site, runs: &Runs, id: i64, open: &OpenAudit) {
    let same = view::compare(open, open);
    assert!(
        same.summary
            .iter()
            .all(|c| c.count == 0 || c.label == "findings persisting"),
        "{:?}",
        same.summary
    );
    site.server.set_variant(fixture::SiteVariant::After);
    let (later, rec) = run_to_end(site, runs).await;
    assert_ne!(later, id);
    let after = rec
        .opened
        .lock()
        .unwrap()
        .take()
        .expect("analysed at the end");
    let d = view::compare(open, &after);
    assert_eq!((d.old_audit, d.new_audit), (id, later));
    let count = |label: &str| {
        d.summary
            .iter()
            .find(|c| c.label == label)
            .map_or(0, |c| c.count)
    };
    assert!(count("findings resolved") > 0, "{:?}", d.summary);
    assert!(d.sections.iter().any(|s| s.total > 0));
    for s in &d.sections {
        assert_eq!(s.total as usize, s.rows.len());
        assert!(
            s.rows.iter().all(|r| r.len() == s.columns.len()),
            "{}",
            s.key
        );
    }
    let resolved = d
        .sections
        .iter()
        .flat_map(|s| &s.rows)
        .flatten()
        .any(|c| text(c).contains("CANON-TO-ERROR"));
    assert!(resolved, "the fixed canonical is listed");
}

/// The value of the detail's field `key`.
fn field(d: &view::UrlDetail, key: &str) -> String {
    d.fields
        .iter()
        .find(|f| f.key == key)
        .map(|f| f.value.clone())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_audit_resumes_to_the_end() {
    let site = site(Duration::from_secs(3)).await;
    let runs = Runs::new();
    let config = crawl_config(&request(&site), &[site.server.ca_pem().to_owned()]).unwrap();
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
    assert!(runs.is_running(id));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(runs.cancel(id));
    tokio::time::timeout(Duration::from_secs(60), rec.done.notified())
        .await
        .expect("the cancel is honoured");
    assert_eq!(
        rec.finished.lock().unwrap()[0].phase,
        ProgressPhase::Cancelled
    );
    assert!(rec.opened.lock().unwrap().is_none());
    let list = view::list_audits(&site.store, &|i| runs.is_running(i))
        .await
        .unwrap();
    assert_eq!(list[0].status, AuditStatus::Cancelled);
    assert_eq!(list[0].findings, None);

    let rec = Arc::new(Recorder::default());
    let again = runs
        .resume(
            site.store.clone(),
            id,
            AnalysisPolicy::default(),
            rec.clone(),
        )
        .await
        .unwrap();
    assert_eq!(again, id);
    tokio::time::timeout(Duration::from_secs(120), rec.done.notified())
        .await
        .expect("the resumed audit finishes");
    let last = rec.finished.lock().unwrap()[0].clone();
    assert_eq!(last.phase, ProgressPhase::Done);
    // The resumed run counted on from the answers the first run stored.
    let summary = site.store.audit_summary(store::AuditId(id)).await.unwrap();
    let c = summary.status_classes;
    let counted = last.statuses;
    assert_eq!(
        (counted.success, counted.redirect, counted.client_error),
        (c.success as u32, c.redirect as u32, c.client_error as u32)
    );
    assert_eq!(counted.blocked as u64, summary.states.blocked);
    assert!(
        runs.resume(site.store.clone(), id, AnalysisPolicy::default(), rec)
            .await
            .is_err(),
        "a finished audit does not resume"
    );
}

#[test]
fn start_requests_are_checked() {
    let mut req = StartAuditRequest {
        url: " ".into(),
        max_urls: None,
        max_depth: None,
        concurrency: None,
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
        resolve: vec![],
    };
    assert!(crawl_config(&req, &[]).is_err());
    req.url = "https://example.test/".into();
    req.resolve = vec!["example.test:443".into()];
    assert!(crawl_config(&req, &[]).is_err());
    req.resolve = vec!["example.test:443:127.0.0.1".into()];
    req.respect_robots = false;
    req.max_urls = Some(10);
    let c = crawl_config(&req, &[]).unwrap();
    assert!(!c.obey_robots);
    assert_eq!(c.max_urls, 10);
    assert!(AnalysisPolicy::choose(Some(view::PresetName::Seo), Some("x.toml")).is_err());
    assert_eq!(
        AnalysisPolicy::choose(Some(view::PresetName::Aggressive), None)
            .unwrap()
            .name,
        "aggressive"
    );
}
