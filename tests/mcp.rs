//! `dustpan mcp` driven by the MCP SDK's own client over stdio, on two audits of the
//! fixture site (its Before and After variants): every tool is listed and called, and
//! each answer is the JSON that `view` gives for the same call; a long table is paged
//! through; bad ids, columns and URLs come back as tool errors carrying the app's codes.

use std::sync::Arc;

use fixture::SiteVariant;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde::Serialize;
use serde_json::{Value, json};
use view::{
    ClusterDetail, ErrorCode, FindingQuery, IpcError, OpenAudit, Session, TableName, TableQuery,
    ViewError,
};

use crate::util::{Site, audit_id, path, run};

const START: &str = "https://example.test/";

type Client = RunningService<RoleClient, ()>;

/// `dustpan mcp --db DB EXTRA...` as a child process, with the SDK's client on its
/// stdio.
async fn connect_with(site: &Site, extra: &[String]) -> Client {
    let db = site.db.clone();
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(env!("CARGO_BIN_EXE_dustpan")).configure(|c| {
            c.arg("mcp").arg("--db").arg(&db).args(extra);
        }),
    )
    .expect("dustpan mcp starts");
    ().serve(transport).await.expect("the MCP session starts")
}

/// The read-only `dustpan mcp --db DB`.
async fn connect(site: &Site) -> Client {
    connect_with(site, &[]).await
}

/// Calls `tool` with `args`.
async fn call(client: &Client, tool: &'static str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{tool} answers: {e}"))
}

/// The structured answer of a call that succeeded.
async fn ok(client: &Client, tool: &'static str, args: Value) -> Value {
    let r = call(client, tool, args.clone()).await;
    assert_ne!(r.is_error, Some(true), "{tool}({args}) failed: {r:?}");
    r.structured_content
        .unwrap_or_else(|| panic!("{tool} answers structured content"))
}

/// The app's error a call answered.
async fn err(client: &Client, tool: &'static str, args: Value) -> IpcError {
    let r = call(client, tool, args.clone()).await;
    assert_eq!(r.is_error, Some(true), "{tool}({args}) did not fail: {r:?}");
    serde_json::from_value(
        r.structured_content
            .expect("an error carries { code, message }"),
    )
    .expect("the error is an IpcError")
}

fn json_of(v: impl Serialize) -> Value {
    serde_json::to_value(v).unwrap()
}

fn ipc(e: ViewError) -> IpcError {
    IpcError::from(e)
}

#[test]
fn an_mcp_client_lists_and_calls_every_tool_and_gets_what_view_answers() {
    let site = Site::quiet();
    let old = site.audit(START, &["-q", "--no-dust-learning"]);
    site.server.set_variant(SiteVariant::After);
    let out = run(&[
        "audit".to_owned(),
        "--like".to_owned(),
        old.to_string(),
        "-q".to_owned(),
        "--db".to_owned(),
        path(&site.db),
    ]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let new = audit_id(&out.stdout).0;

    let session = Session::new(site.store());
    site.rt.block_on(async {
        let client = connect(&site).await;
        let info = client.peer_info().expect("the server introduces itself");
        let server = info.server_info.as_ref().expect("with its name");
        assert_eq!(server.name, "dustpan");

        // Every tool, each with a description and an object schema for its answer.
        let tools = client.list_all_tools().await.unwrap();
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "audit_overview",
                "cluster_detail",
                "compare_audits",
                "fix_plan",
                "list_audits",
                "list_issues",
                "normalize_url",
                "query_findings",
                "query_table",
                "simulate_fix_plan",
                "url_detail",
                "url_links",
            ]
        );
        for t in &tools {
            assert!(
                t.description.as_deref().is_some_and(|d| d.len() > 40),
                "{t:?}"
            );
            assert!(t.output_schema.is_some(), "{} has no output schema", t.name);
            let hints = t.annotations.as_ref().expect("annotated");
            assert_eq!(hints.read_only_hint, Some(true), "{} is read-only", t.name);
        }

        let open_old: Arc<OpenAudit> = session.open(old).await.unwrap();
        let open_new: Arc<OpenAudit> = session.open(new).await.unwrap();

        // list_audits: the history the app lists.
        let audits = ok(&client, "list_audits", json!({})).await;
        let expected = view::list_audits(session.store(), &|_| true).await.unwrap();
        assert_eq!(audits, json!({ "audits": expected }));
        assert_eq!(expected.len(), 2);

        // audit_overview: the overview the app's open_audit answers.
        let overview = ok(&client, "audit_overview", json!({ "audit_id": old })).await;
        assert_eq!(overview, json_of(open_old.overview()));
        assert!(open_old.overview().clusters > 3);

        // list_issues.
        let issues = ok(&client, "list_issues", json!({ "audit_id": old })).await;
        assert_eq!(issues, json!({ "issues": open_old.issues() }));
        assert!(!open_old.issues().is_empty());

        // query_findings, one severity.
        let findings = ok(
            &client,
            "query_findings",
            json!({ "audit_id": old, "severity": "warning", "limit": 5 }),
        )
        .await;
        let q = FindingQuery {
            severity: Some(view::Severity::Warning),
            family: None,
            search: None,
            offset: 0,
            limit: 5,
        };
        assert_eq!(findings, json_of(open_old.query_findings(&q)));

        // cluster_detail of the largest cluster: members with evidence and fixes.
        let clusters = open_old
            .query_table(&TableQuery {
                table: TableName::Clusters,
                sort: None,
                search: None,
                filters: vec![],
                offset: 0,
                limit: 1000,
            })
            .unwrap();
        let cluster_id: u32 = clusters
            .row_keys
            .iter()
            .map(|k| k.parse::<u32>().unwrap())
            .max_by_key(|id| open_old.cluster_detail(*id).unwrap().size)
            .unwrap();
        let detail = ok(
            &client,
            "cluster_detail",
            json!({ "audit_id": old, "cluster_id": cluster_id }),
        )
        .await;
        let expected: ClusterDetail = open_old.cluster_detail(cluster_id).unwrap();
        assert_eq!(detail, json_of(&expected));
        assert!(expected.members.iter().any(|m| m.fix.is_some()));

        // url_detail of a member: inlinks, hops, cluster, findings.
        let member = &expected.members[1].url;
        let url = ok(
            &client,
            "url_detail",
            json!({ "audit_id": old, "url": member }),
        )
        .await;
        let expected_url = open_old.url_detail(member).unwrap();
        assert_eq!(url, json_of(&expected_url));
        assert!(expected_url.cluster.is_some());

        // url_links: the home page's outlinks paged two at a time, every link once.
        let home = "https://example.test/";
        let mut links = Vec::new();
        loop {
            let page = ok(
                &client,
                "url_links",
                json!({ "audit_id": old, "url": home, "direction": "outlinks",
                        "offset": links.len(), "limit": 2 }),
            )
            .await;
            let expected = open_old
                .url_links(home, view::LinkDirection::Outlinks, links.len() as u32, 2)
                .unwrap();
            assert_eq!(page, json_of(&expected));
            if expected.links.is_empty() {
                assert_eq!(links.len() as u32, expected.total);
                break;
            }
            links.extend(expected.links);
        }
        assert!(links.len() > 4, "{} outlinks", links.len());

        // query_table, paged through 7 rows at a time: every row once, in the view's
        // order, with the app's filters.
        let whole = open_old
            .query_table(&TableQuery {
                table: TableName::Pages,
                sort: None,
                search: None,
                filters: vec![],
                offset: 0,
                limit: 1000,
            })
            .unwrap();
        assert!(whole.matched > 30, "{}", whole.matched);
        let mut keys = Vec::new();
        let mut rows = Vec::new();
        let mut offset = 0;
        loop {
            let page = ok(
                &client,
                "query_table",
                json!({ "audit_id": old, "table": "pages", "offset": offset, "limit": 7 }),
            )
            .await;
            let page: view::TablePage = serde_json::from_value(page).unwrap();
            assert_eq!(page.offset, offset);
            assert_eq!(page.matched, whole.matched);
            assert!(page.rows.len() <= 7);
            keys.extend(page.row_keys);
            rows.extend(page.rows);
            offset += 7;
            if offset >= page.matched {
                break;
            }
        }
        assert_eq!(keys, whole.row_keys);
        assert_eq!(rows, whole.rows);
        let filtered = json!({
            "audit_id": old,
            "table": "pages",
            "sort": { "column": "address", "descending": true },
            "filters": [{ "column": "status_code", "op": "ge", "value": "300" }],
            "limit": 1000,
        });
        let page = ok(&client, "query_table", filtered.clone()).await;
        let q = TableQuery {
            table: TableName::Pages,
            sort: serde_json::from_value(filtered["sort"].clone()).unwrap(),
            search: None,
            filters: serde_json::from_value(filtered["filters"].clone()).unwrap(),
            offset: 0,
            limit: 1000,
        };
        let expected_page = open_old.query_table(&q).unwrap();
        assert_eq!(page, json_of(&expected_page));
        assert!(expected_page.matched > 0 && expected_page.matched < whole.matched);

        // compare_audits: the Before and After variants differ.
        let diff = ok(
            &client,
            "compare_audits",
            json!({ "old_audit": old, "new_audit": new }),
        )
        .await;
        let whole = view::compare(&open_old, &open_new);
        let expected_diff = whole.clone().paged(None, 0, 50).unwrap();
        assert_eq!(diff, json_of(&expected_diff));
        assert!(expected_diff.sections.iter().any(|s| s.total > 0));
        // One section paged two rows at a time gives back every row of it.
        let longest = whole.sections.iter().max_by_key(|s| s.total).unwrap();
        assert!(longest.total > 2, "{} rows", longest.total);
        let mut rows = Vec::new();
        while rows.len() < longest.rows.len() {
            let page = ok(
                &client,
                "compare_audits",
                json!({ "old_audit": old, "new_audit": new, "section": longest.key,
                        "offset": rows.len(), "limit": 2 }),
            )
            .await;
            let sections = page["sections"].as_array().unwrap();
            assert_eq!(sections.len(), 1);
            assert_eq!(sections[0]["total"], longest.total);
            let got = sections[0]["rows"].as_array().unwrap();
            assert!(!got.is_empty() && got.len() <= 2);
            rows.extend(got.iter().cloned());
        }
        assert_eq!(json!(rows), json_of(&longest.rows));
        let e = err(
            &client,
            "compare_audits",
            json!({ "old_audit": old, "new_audit": new, "section": "no_such_section" }),
        )
        .await;
        assert_eq!(e.code, ErrorCode::InvalidInput);

        // fix_plan: the redirect map paged three rows at a time, each page what view
        // answers, together the whole file as `dustpan export` writes it.
        let mut rows = Vec::new();
        loop {
            let args = json!({ "audit_id": old, "file": "redirect_map",
                               "offset": rows.len(), "limit": 3 });
            let page = ok(&client, "fix_plan", args).await;
            let expected = view::fixplan::fix_plan_page(
                &open_old,
                view::fixplan::FixPlanFile::RedirectMap,
                rows.len() as u32,
                3,
            )
            .unwrap();
            assert_eq!(page, json_of(&expected));
            assert_eq!(expected.columns[..2], ["source", "target"]);
            if expected.rows.is_empty() {
                assert_eq!(rows.len() as u32, expected.total);
                break;
            }
            rows.extend(expected.rows);
        }
        let written = open_old.analysis().fix_files().redirects_csv();
        assert_eq!(rows.len(), written.lines().count() - 1);
        assert!(rows.len() > 6, "{} redirects", rows.len());
        let canonicals = ok(
            &client,
            "fix_plan",
            json!({ "audit_id": old, "file": "canonicals_to_set" }),
        )
        .await;
        assert_eq!(canonicals["file"], "canonicals_to_set.csv");
        assert!(canonicals["total"].as_u64().unwrap() > 0);

        // simulate_fix_plan: the simulation `dustpan simulate` runs, paged by kind.
        let sim = view::fixplan::simulate_stored(
            session.store(),
            store::AuditId(old),
            Some(session.policy_of(old).await.unwrap()),
            None,
        )
        .await
        .unwrap();
        let answer = ok(&client, "simulate_fix_plan", json!({ "audit_id": old })).await;
        let expected = view::fixplan::simulation_page(&sim, None, 0, 50).unwrap();
        assert_eq!(answer, json_of(&expected));
        assert!(expected.redirects > 0 && expected.findings_resolved > 0);
        assert_eq!(
            expected.problem_counts.len(),
            audit::simulate::ProblemKind::ALL.len()
        );
        let bad_kind = err(
            &client,
            "simulate_fix_plan",
            json!({ "audit_id": old, "kind": "no_such_kind" }),
        )
        .await;
        assert_eq!(bad_kind.code, ErrorCode::InvalidInput);

        // normalize_url, under a preset and under an audit's own policy.
        let raw = "HTTP://Example.TEST:443/a/./b?utm_source=x";
        let n = ok(
            &client,
            "normalize_url",
            json!({ "url": raw, "preset": "aggressive" }),
        )
        .await;
        let policy = view::AnalysisPolicy::preset(view::PresetName::Aggressive);
        assert_eq!(
            n,
            json_of(view::normalize_url(raw, &policy.policy).unwrap())
        );
        let n = ok(
            &client,
            "normalize_url",
            json!({ "url": raw, "audit_id": old }),
        )
        .await;
        let policy = session.policy_of(old).await.unwrap();
        assert_eq!(
            n,
            json_of(view::normalize_url(raw, &policy.policy).unwrap())
        );

        // Errors carry the app's codes and messages.
        let missing = 999_999_i64;
        let e = err(&client, "audit_overview", json!({ "audit_id": missing })).await;
        assert_eq!(e.code, ErrorCode::NotFound);
        let expected_e = ipc(session.open(missing).await.map(|_| ()).unwrap_err());
        assert_eq!(e, expected_e);
        let e = err(
            &client,
            "cluster_detail",
            json!({ "audit_id": old, "cluster_id": 4_000_000 }),
        )
        .await;
        assert_eq!(e, ipc(open_old.cluster_detail(4_000_000).unwrap_err()));
        assert_eq!(e.code, ErrorCode::NotFound);
        let e = err(
            &client,
            "url_detail",
            json!({ "audit_id": old, "url": "https://example.test/never-linked" }),
        )
        .await;
        assert_eq!(e.code, ErrorCode::NotFound);
        let e = err(
            &client,
            "query_table",
            json!({ "audit_id": old, "table": "pages",
                    "filters": [{ "column": "no_such_column", "value": "x" }] }),
        )
        .await;
        assert_eq!(e.code, ErrorCode::InvalidInput, "{e:?}");
        let e = err(&client, "normalize_url", json!({ "url": "not a url" })).await;
        assert_eq!(e.code, ErrorCode::InvalidInput);
        // Arguments that do not fit the tool's schema fail before any view call, as
        // the app's invalid_input naming the tool and the value.
        let e = err(&client, "list_issues", json!({ "audit_id": "seven" })).await;
        assert_eq!(e.code, ErrorCode::InvalidInput, "{e:?}");
        assert!(
            e.message.contains("list_issues") && e.message.contains("\"seven\""),
            "{e:?}"
        );

        client.cancel().await.unwrap();
    });
}

#[test]
fn with_allow_crawl_an_assistant_starts_an_audit_follows_it_and_reads_it() {
    let site = Site::quiet();
    let resolve: Vec<String> = fixture::HOSTS
        .iter()
        .map(|h| format!("{h}:{}:127.0.0.1", site.server.port()))
        .collect();
    site.rt.block_on(async {
        let client = connect_with(
            &site,
            &["--allow-crawl".to_owned(), "--ca-cert".to_owned(), path(&site.ca)],
        )
        .await;
        let tools = client.list_all_tools().await.unwrap();
        for name in ::mcp::CRAWL_TOOLS {
            let tool = tools.iter().find(|t| t.name == name).expect(name);
            let hints = tool.annotations.as_ref().unwrap();
            assert_eq!(hints.read_only_hint, Some(name == "audit_progress"), "{name}");
        }

        // A start URL the crawl configuration refuses: the app's invalid_input.
        let e = err(
            &client,
            "start_audit",
            json!({ "request": { "url": "ftp://example.test/", "respectRobots": true, "resolve": [] } }),
        )
        .await;
        assert_eq!(e.code, ErrorCode::InvalidInput, "{e:?}");

        let started = ok(
            &client,
            "start_audit",
            json!({ "request": {
                "url": START, "respectRobots": true, "resolve": resolve, "maxUrls": 40,
                // Ignored: resolve overrides are the only way to an internal address.
                "allowInternal": true,
            } }),
        )
        .await;
        let id = started["auditId"].as_i64().expect("an audit id");
        let last = loop {
            let p = ok(&client, "audit_progress", json!({ "audit_id": id })).await;
            let progress: Option<view::Progress> =
                serde_json::from_value(p["progress"].clone()).unwrap();
            let progress = progress.expect("the server follows the audit it started");
            if progress.phase.is_final() {
                break progress;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        };
        assert_eq!(last.phase, view::ProgressPhase::Done, "{last:?}");
        assert!(last.fetched > 5, "{last:?}");
        let none = ok(&client, "audit_progress", json!({ "audit_id": id + 100 })).await;
        assert_eq!(none, json!({ "progress": null }));
        let c = ok(&client, "cancel_audit", json!({ "audit_id": id })).await;
        assert_eq!(c, json!({ "wasRunning": false }));

        // The finished audit reads as view reads it.
        let overview = ok(&client, "audit_overview", json!({ "audit_id": id })).await;
        let session = Session::new(store::Store::open(&site.db).await.unwrap());
        let open = session.open(id).await.unwrap();
        assert_eq!(overview, json_of(open.overview()));
        assert!(open.overview().pages > 5);

        // A list audit of a list sent as text: the listed URLs only, and a policy file
        // is never read on an assistant's behalf.
        let list = format!("{START}shoes\n{START}chain/start\nnot a url\n");
        let e = err(
            &client,
            "start_list_audit",
            json!({ "request": { "url": "", "respectRobots": true, "resolve": resolve,
                                 "policyFile": "/etc/hostname" },
                    "list": list }),
        )
        .await;
        assert_eq!(e.code, ErrorCode::InvalidInput, "{e:?}");
        let started = ok(
            &client,
            "start_list_audit",
            json!({ "request": { "url": "", "respectRobots": true, "resolve": resolve },
                    "list": list }),
        )
        .await;
        let list_id = started["auditId"].as_i64().expect("an audit id");
        let last = loop {
            let p = ok(&client, "audit_progress", json!({ "audit_id": list_id })).await;
            let progress: view::Progress = serde_json::from_value(p["progress"].clone()).unwrap();
            if progress.phase.is_final() {
                break progress;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        };
        assert_eq!(last.phase, view::ProgressPhase::Done, "{last:?}");
        let listed = session.open(list_id).await.unwrap();
        let fetched: Vec<&str> = listed
            .input()
            .fetches
            .iter()
            .filter_map(|f| listed.input().urls.iter().find(|u| u.id == f.url_id))
            .map(|u| u.found_url())
            .collect();
        // The two listed URLs and the redirect chain of one: no link followed.
        assert_eq!(
            fetched,
            [
                "https://example.test/shoes",
                "https://example.test/chain/start",
                "https://example.test/chain/step-2",
                "https://example.test/chain/step-3",
                "https://example.test/chain/end",
            ]
        );
        client.cancel().await.unwrap();
    });
}
