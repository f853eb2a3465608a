//! Column filters and the filtered export on a real audit of the fixture site (crawled
//! over loopback into a real SQLite file): `Status Code ≥ 300` and `Address contains
//! comment` on the pages table answer what the fixture's own facts and the unfiltered
//! rows say, and the CSV of the view holds exactly the matched rows, in the view's order.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use fixture::{FixtureConfig, FixtureServer, SiteVariant};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;
use support::Recorder;
use view::runs::{Runs, crawl_config};
use view::{
    AnalysisPolicy, Cell, ColumnFilter, FilterOp, OpenAudit, SortSpec, TableName, TableQuery,
    ViewQuery,
};

/// Audits the fixture site; answers the opened audit.
async fn audit_the_fixture() -> (OpenAudit, FixtureServer, tempfile::TempDir) {
    let server = FixtureServer::start(FixtureConfig::default())
        .await
        .unwrap();
    assert!(server.addr().ip().is_loopback());
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(&dir.path().join("audits.sqlite"))
        .await
        .unwrap();
    let request = support::request(&server);
    let config = crawl_config(&request, &[server.ca_pem().to_owned()]).unwrap();
    let rec = Arc::new(Recorder::default());
    let runs = Runs::new();
    let id = runs
        .start(
            store.clone(),
            config,
            AnalysisPolicy::default(),
            rec.clone(),
        )
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(120), rec.done.notified())
        .await
        .expect("the audit finishes");
    let opened = rec.opened.lock().unwrap().take();
    let open = match opened {
        Some(open) => open,
        None => OpenAudit::open(&store, id, &AnalysisPolicy::default())
            .await
            .unwrap(),
    };
    (open, server, dir)
}

fn text(c: &Cell) -> String {
    match c {
        Cell::Text(s) => s.clone(),
        Cell::Number(n) => n.to_string(),
        Cell::Empty => String::new(),
    }
}

fn view(filters: Vec<ColumnFilter>) -> ViewQuery {
    ViewQuery {
        table: TableName::Pages,
        sort: None,
        search: None,
        filters,
    }
}

/// Every row of a view, paged through as the window does, as text.
fn all_rows(open: &OpenAudit, v: &ViewQuery) -> (u32, Vec<Vec<String>>) {
    let (matched, rows) = all_cells(open, v);
    let rows = rows.iter().map(|r| r.iter().map(text).collect()).collect();
    (matched, rows)
}

/// Every row of a view, paged through as the window does.
fn all_cells(open: &OpenAudit, v: &ViewQuery) -> (u32, Vec<Vec<Cell>>) {
    let mut rows = Vec::new();
    let mut offset = 0;
    loop {
        let page = open
            .query_table(&TableQuery {
                table: v.table,
                sort: v.sort.clone(),
                search: v.search.clone(),
                filters: v.filters.clone(),
                offset,
                limit: 1000,
            })
            .unwrap();
        rows.extend(page.rows);
        offset += 1000;
        if offset >= page.matched {
            return (page.matched, rows);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filters_on_an_audit_of_the_fixture_answer_its_facts() {
    let (open, _server, dir) = audit_the_fixture().await;
    let facts = fixture::answers::site(SiteVariant::Before);
    let columns = open.table(TableName::Pages).columns().to_vec();
    let col = |key: &str| columns.iter().position(|c| c.key == key).unwrap();
    let (address, status) = (col("address"), col("status_code"));

    // Address contains "COMMENT" (any case): exactly the fixture's comment pages.
    let comments = view(vec![ColumnFilter::new(
        "address",
        FilterOp::Contains,
        "COMMENT",
    )]);
    let (matched, rows) = all_rows(&open, &comments);
    let found: BTreeSet<&str> = rows.iter().map(|r| r[address].as_str()).collect();
    let expected: BTreeSet<&str> = facts
        .urls
        .iter()
        .filter(|f| f.url.contains("comment") && !f.robots_blocked)
        .map(|f| f.url)
        .collect();
    assert!(!expected.is_empty());
    // The comment pages, and the URLs the crawl derived from them (`index.html`, ...).
    assert!(found.is_superset(&expected), "{found:?}");
    assert!(
        found
            .iter()
            .all(|u| expected.iter().any(|page| u.starts_with(page))),
        "{found:?}"
    );
    let (_, everything) = all_rows(&open, &view(vec![]));
    let by_hand = everything
        .iter()
        .filter(|r| r[address].to_lowercase().contains("comment"))
        .count();
    assert_eq!(matched as usize, by_hand);
    assert_eq!(rows.len(), by_hand);

    // Status Code >= 300: every fixture URL the crawl fetched with such a status, and
    // nothing below 300 or without a status.
    let redirects_and_errors = view(vec![ColumnFilter::new("status_code", FilterOp::Ge, "300")]);
    let (matched, rows) = all_rows(&open, &redirects_and_errors);
    let by_hand: Vec<&Vec<String>> = everything
        .iter()
        .filter(|r| r[status].parse::<i64>().is_ok_and(|s| s >= 300))
        .collect();
    assert_eq!(matched as usize, by_hand.len());
    assert!(matched > 10, "{matched} rows at 300 or above");
    let fetched: BTreeSet<&str> = everything.iter().map(|r| r[address].as_str()).collect();
    let statuses: BTreeSet<(&str, String)> = rows
        .iter()
        .map(|r| (r[address].as_str(), r[status].clone()))
        .collect();
    for fact in facts
        .urls
        .iter()
        .filter(|f| f.status >= 300 && fetched.contains(f.url))
    {
        assert!(
            statuses.contains(&(fact.url, fact.status.to_string())),
            "{} ({}) missing from the filtered rows",
            fact.url,
            fact.status
        );
    }

    // Both filters at once: the rows both keep.
    let both = view(vec![
        ColumnFilter::new("status_code", FilterOp::Ge, "300"),
        ColumnFilter::new("address", FilterOp::Contains, "comment"),
    ]);
    let by_hand = everything
        .iter()
        .filter(|r| r[status].parse::<i64>().is_ok_and(|s| s >= 300))
        .filter(|r| r[address].contains("comment"))
        .count();
    assert_eq!(all_rows(&open, &both).0 as usize, by_hand);

    // The export of the view: exactly its rows, in its order, with every column.
    let mut sorted = redirects_and_errors.clone();
    sorted.sort = Some(SortSpec {
        column: "address".into(),
        descending: true,
    });
    let (_, shown) = all_cells(&open, &sorted);
    let path = dir.path().join("view.csv");
    let written = open
        .table(TableName::Pages)
        .write_csv(&sorted, &path)
        .unwrap();
    assert_eq!(written, shown.len());
    let mut csv = csv::Reader::from_path(&path).unwrap();
    let headers: Vec<String> = csv.headers().unwrap().iter().map(str::to_owned).collect();
    let titles: Vec<String> = columns.iter().map(|c| c.title.clone()).collect();
    assert_eq!(headers, titles);
    let from_file: Vec<Vec<String>> = csv
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect();
    // Text as the export writes it: made spreadsheet-safe.
    let as_written = |row: &Vec<Cell>| -> Vec<String> {
        row.iter()
            .map(|c| match c {
                Cell::Text(s) => audit::export::spreadsheet_safe(s).into_owned(),
                other => text(other),
            })
            .collect()
    };
    assert_eq!(
        from_file,
        shown.iter().map(as_written).collect::<Vec<_>>(),
        "the file holds the view's rows in its order"
    );
    let addresses: Vec<&str> = from_file.iter().map(|r| r[address].as_str()).collect();
    let mut descending = addresses.clone();
    descending.sort_by(|a, b| b.cmp(a));
    assert_eq!(addresses, descending);
}
