//! The table contract between the Rust view layer and the window's in-memory backend:
//! one set of tables and queries (sort, search, column filters with every operator,
//! pages, errors) answered by
//! [`view::table::PagedTable`], written with the answers to
//! `ui/tests/contract/tables.json`. The UI's tests run the same queries against their
//! in-memory backend and expect the same answers.
//!
//! The file is regenerated with `DUSTPAN_BLESS=1 cargo test -p view --test table_contract`;
//! without it the test fails when the committed file differs from what the Rust side
//! answers.

use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use view::table::PagedTable;
use view::{
    Cell, Column, ColumnFilter, ColumnKind, ErrorCode, FilterOp, IpcError, MAX_PATTERN_LEN,
    SortSpec, TableName, TablePage, TableQuery, ViewError,
};

/// One table's contents.
#[derive(Serialize)]
struct TableRows {
    columns: Vec<Column>,
    rows: Vec<Vec<Cell>>,
    keys: Vec<String>,
}

/// One query and what the Rust side answers.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Case {
    name: String,
    query: TableQuery,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<TablePage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorCode>,
}

/// The file's contents.
#[derive(Serialize)]
struct Contract {
    tables: BTreeMap<TableName, TableRows>,
    cases: Vec<Case>,
}

fn column(key: &str, title: &str, kind: ColumnKind) -> Column {
    Column {
        key: key.into(),
        title: title.into(),
        kind,
    }
}

fn t(s: &str) -> Cell {
    Cell::Text(s.into())
}

fn n(v: i64) -> Cell {
    Cell::Number(v)
}

/// Pages with every kind of cell: numbers (negative, large), text in several cases and
/// scripts (including characters whose UTF-16 order differs from their code point
/// order), blank text, empty cells, text in a number column (a word, and a number
/// written as text), ties.
fn pages() -> TableRows {
    let rows = vec![
        vec![t("https://a.test/"), n(200), t("Home"), n(0)],
        vec![t("https://a.test/shoes"), n(301), t("Shoes"), n(1)],
        vec![t("https://a.test/shoes/"), n(200), t("shoes sale"), n(2)],
        vec![t("https://a.test/%C3%A4"), n(404), t("Ärger"), Cell::Empty],
        vec![t("https://a.test/z"), Cell::Empty, t(""), n(3)],
        vec![t("https://a.test/Z"), n(200), t("zebra"), n(1)],
        vec![t("https://a.test/emoji"), n(200), t("😀 smile"), n(2)],
        vec![t("https://a.test/fullwidth"), n(200), t("！bang"), n(2)],
        vec![t("https://a.test/neg"), n(-1), t("negative"), n(0)],
        vec![t("https://a.test/big"), n(1000), t("SHOES BIG"), n(10)],
        vec![t("https://a.test/mixed"), t("n/a"), t("Mixed"), n(1)],
        vec![t("https://a.test/dup"), n(200), t("Home"), n(0)],
        vec![
            t("https://a.test/padded"),
            n(200),
            t("  padded  "),
            Cell::Empty,
        ],
        vec![t("https://a.test/istanbul"), n(500), t("İstanbul"), n(4)],
        vec![t("https://a.test/tab"), n(200), t("tab\there"), n(2)],
        vec![t("https://a.test/text-302"), t(" 302 "), t("302"), n(1)],
    ];
    TableRows {
        columns: vec![
            column("address", "Address", ColumnKind::Url),
            column("status_code", "Status Code", ColumnKind::Number),
            column("title_1", "Title 1", ColumnKind::Text),
            column("crawl_depth", "Crawl Depth", ColumnKind::Number),
        ],
        keys: (0..rows.len()).map(|i| format!("page-{i}")).collect(),
        rows,
    }
}

/// More rows than one query returns.
fn params() -> TableRows {
    let rows: Vec<Vec<Cell>> = (0..1005)
        .map(|i| vec![t(&format!("p{i}")), n(i % 17)])
        .collect();
    TableRows {
        columns: vec![
            column("parameter", "Parameter", ColumnKind::Text),
            column("urls", "URLs", ColumnKind::Number),
        ],
        keys: (0..rows.len()).map(|i| i.to_string()).collect(),
        rows,
    }
}

/// No rows at all.
fn redirects() -> TableRows {
    TableRows {
        columns: vec![
            column("address", "Address", ColumnKind::Url),
            column("redirect_url", "Redirect URL", ColumnKind::Url),
        ],
        rows: vec![],
        keys: vec![],
    }
}

/// A query builder.
struct Q(TableQuery);

impl Q {
    fn on(table: TableName) -> Q {
        Q(TableQuery {
            table,
            sort: None,
            search: None,
            filters: vec![],
            offset: 0,
            limit: 50,
        })
    }
    fn sort(mut self, column: &str, descending: bool) -> Q {
        self.0.sort = Some(SortSpec {
            column: column.into(),
            descending,
        });
        self
    }
    fn search(mut self, s: &str) -> Q {
        self.0.search = Some(s.into());
        self
    }
    fn filter(self, column: &str, equals: &str) -> Q {
        self.op(column, FilterOp::Equals, equals)
    }
    fn op(mut self, column: &str, op: FilterOp, value: &str) -> Q {
        self.0.filters.push(ColumnFilter::new(column, op, value));
        self
    }
    fn between(mut self, column: &str, low: &str, high: &str) -> Q {
        self.0
            .filters
            .push(ColumnFilter::between(column, low, high));
        self
    }
    fn page(mut self, offset: u32, limit: u32) -> Q {
        self.0.offset = offset;
        self.0.limit = limit;
        self
    }
}

fn queries() -> Vec<(String, Q)> {
    use TableName::{Pages, Params, Redirects};
    let qs = vec![
        ("the table's own order", Q::on(Pages)),
        ("a first page", Q::on(Pages).page(0, 5)),
        ("a middle page", Q::on(Pages).page(5, 5)),
        ("past the end", Q::on(Pages).page(40, 5)),
        ("no rows asked", Q::on(Pages).page(0, 0)),
    ];
    let mut qs: Vec<(String, Q)> = qs.into_iter().map(|(n, q)| (n.to_owned(), q)).collect();
    for key in ["address", "status_code", "title_1", "crawl_depth"] {
        qs.push((format!("sorted by {key} up"), Q::on(Pages).sort(key, false)));
        qs.push((
            format!("sorted by {key} down"),
            Q::on(Pages).sort(key, true),
        ));
    }
    let more = [
        ("search", Q::on(Pages).search("shoes")),
        (
            "search ignores case and surrounding space",
            Q::on(Pages).search("  SHOES\t"),
        ),
        (
            "search trims Unicode space",
            Q::on(Pages).search("\u{85}shoes\u{3000}"),
        ),
        ("blank search is no search", Q::on(Pages).search(" \t ")),
        ("search lower-cases non-ASCII", Q::on(Pages).search("ÄRGER")),
        (
            "search with a dotted capital I",
            Q::on(Pages).search("i̇stanbul"),
        ),
        ("search matches numbers", Q::on(Pages).search("200")),
        (
            "search matches a negative number",
            Q::on(Pages).search("-1"),
        ),
        ("search inside URLs", Q::on(Pages).search("a.test/s")),
        ("search keeps inner space", Q::on(Pages).search("s s")),
        ("search finds a tab", Q::on(Pages).search("b\th")),
        ("search with no match", Q::on(Pages).search("nothing here")),
        (
            "search sorted and paged",
            Q::on(Pages).search("s").sort("title_1", true).page(1, 3),
        ),
        (
            "filter on a number",
            Q::on(Pages).filter("status_code", "200"),
        ),
        (
            "filter on text is exact",
            Q::on(Pages).filter("title_1", "home"),
        ),
        ("filter on blank text", Q::on(Pages).filter("title_1", "")),
        (
            "filter on an empty cell",
            Q::on(Pages).filter("crawl_depth", ""),
        ),
        (
            "filter on text in a number column",
            Q::on(Pages).filter("status_code", "n/a"),
        ),
        (
            "two filters and a search",
            Q::on(Pages)
                .filter("status_code", "200")
                .filter("crawl_depth", "2")
                .search("A.TEST"),
        ),
        (
            "filters, sort and a page",
            Q::on(Pages)
                .filter("status_code", "200")
                .sort("title_1", false)
                .page(2, 3),
        ),
        (
            "contains ignores case",
            Q::on(Pages).op("address", FilterOp::Contains, "SHOES"),
        ),
        (
            "contains lower-cases non-ASCII",
            Q::on(Pages).op("title_1", FilterOp::Contains, "ÄR"),
        ),
        (
            "contains with a dotted capital I",
            Q::on(Pages).op("title_1", FilterOp::Contains, "İSTAN"),
        ),
        (
            "contains on numbers reads their digits",
            Q::on(Pages).op("status_code", FilterOp::Contains, "0"),
        ),
        (
            "contains nothing keeps every row",
            Q::on(Pages).op("title_1", FilterOp::Contains, ""),
        ),
        (
            "does not contain keeps empty cells",
            Q::on(Pages).op("title_1", FilterOp::NotContains, "s"),
        ),
        (
            "equals ignores case",
            Q::on(Pages).op("title_1", FilterOp::Equals, "HOME"),
        ),
        (
            "equals keeps inner and outer space",
            Q::on(Pages).op("title_1", FilterOp::Equals, "  PADDED  "),
        ),
        (
            "does not equal blank",
            Q::on(Pages).op("title_1", FilterOp::NotEquals, ""),
        ),
        (
            "does not equal a number",
            Q::on(Pages).op("status_code", FilterOp::NotEquals, "200"),
        ),
        (
            "starts with",
            Q::on(Pages).op("address", FilterOp::StartsWith, "HTTPS://A.TEST/S"),
        ),
        (
            "ends with",
            Q::on(Pages).op("address", FilterOp::EndsWith, "/"),
        ),
        (
            "a regular expression ignores case",
            Q::on(Pages).op("title_1", FilterOp::Regex, "^shoes"),
        ),
        (
            "a regular expression on URLs",
            Q::on(Pages).op("address", FilterOp::Regex, "/(shoes|z)/?$"),
        ),
        (
            "a regular expression on numbers",
            Q::on(Pages).op("status_code", FilterOp::Regex, "^[0-9]{3}$"),
        ),
        (
            "a regular expression for empty cells",
            Q::on(Pages).op("crawl_depth", FilterOp::Regex, "^$"),
        ),
        (
            "at least a number",
            Q::on(Pages).op("status_code", FilterOp::Ge, "300"),
        ),
        (
            "above a number",
            Q::on(Pages).op("status_code", FilterOp::Gt, "200"),
        ),
        (
            "below a number, negatives included",
            Q::on(Pages).op("status_code", FilterOp::Lt, "200"),
        ),
        (
            "at most a number with spaces and a sign",
            Q::on(Pages).op("status_code", FilterOp::Le, " +200 "),
        ),
        (
            "equal to a decimal",
            Q::on(Pages).op("status_code", FilterOp::Eq, "200.0"),
        ),
        (
            "not equal skips empty and non-numeric cells",
            Q::on(Pages).op("status_code", FilterOp::Ne, "200"),
        ),
        (
            "a number written as text counts",
            Q::on(Pages).op("status_code", FilterOp::Eq, "302"),
        ),
        (
            "a number operator on a text column",
            Q::on(Pages).op("title_1", FilterOp::Ge, "300"),
        ),
        (
            "between includes both ends",
            Q::on(Pages).between("status_code", "301", "500"),
        ),
        (
            "between in either order",
            Q::on(Pages).between("status_code", "500", "301"),
        ),
        (
            "between decimals",
            Q::on(Pages).between("crawl_depth", ".5", "2.5"),
        ),
        (
            "operators, a search and a sort",
            Q::on(Pages)
                .op("status_code", FilterOp::Ge, "200")
                .op("address", FilterOp::NotContains, "/z")
                .search("a.test/")
                .sort("title_1", true)
                .page(1, 4),
        ),
        (
            "a range over many rows",
            Q::on(Params)
                .between("urls", "3", "4")
                .op("parameter", FilterOp::EndsWith, "7")
                .page(5, 10),
        ),
        (
            "a number operator with text",
            Q::on(Pages).op("status_code", FilterOp::Ge, ">=300"),
        ),
        (
            "between without its upper bound",
            Q::on(Pages).op("status_code", FilterOp::Between, "300"),
        ),
        (
            "a regular expression that does not compile",
            Q::on(Pages).op("title_1", FilterOp::Regex, "(unclosed"),
        ),
        (
            "a regular expression too long",
            Q::on(Pages).op("title_1", FilterOp::Regex, &"a".repeat(MAX_PATTERN_LEN + 1)),
        ),
        ("at most 1000 rows", Q::on(Params).page(0, 5000)),
        ("the last rows", Q::on(Params).page(1000, 10)),
        (
            "ties keep the table's order",
            Q::on(Params).sort("urls", true).page(3, 6),
        ),
        (
            "ties keep the table's order, up",
            Q::on(Params).sort("urls", false).page(58, 4),
        ),
        (
            "text sorts by characters",
            Q::on(Params).sort("parameter", false).page(0, 12),
        ),
        (
            "search over many rows",
            Q::on(Params).search("p10").page(0, 20),
        ),
        ("an empty table", Q::on(Redirects)),
        (
            "an empty table searched",
            Q::on(Redirects).search("x").sort("address", true),
        ),
        (
            "an unknown sort column",
            Q::on(Pages).sort("statusCode", false),
        ),
        (
            "an unknown filter column",
            Q::on(Pages).filter("Status Code", "200"),
        ),
    ];
    qs.extend(more.into_iter().map(|(n, q)| (n.to_owned(), q)));
    qs
}

fn contract() -> Contract {
    let tables: BTreeMap<TableName, TableRows> = [
        (TableName::Pages, pages()),
        (TableName::Params, params()),
        (TableName::Redirects, redirects()),
    ]
    .into_iter()
    .collect();
    let paged: BTreeMap<TableName, PagedTable> = tables
        .iter()
        .map(|(name, t)| {
            let table =
                PagedTable::from_cells(*name, t.columns.clone(), &t.rows, Some(t.keys.clone()));
            (*name, table)
        })
        .collect();
    let cases = queries()
        .into_iter()
        .map(|(name, Q(query))| {
            let (answer, error) = match paged[&query.table].query(&query) {
                Ok(page) => (Some(page), None),
                Err(e) => (None, Some(IpcError::from(ViewError::from(e)).code)),
            };
            Case {
                name,
                query,
                answer,
                error,
            }
        })
        .collect();
    Contract { tables, cases }
}

/// One value as one line of JSON.
fn line<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("the contract serializes")
}

/// The contract as JSON, one table and one case a line (so that a change reads as the
/// cases it changes).
fn render(c: &Contract) -> String {
    let tables: Vec<String> = c
        .tables
        .iter()
        .map(|(name, t)| format!("{}:{}", line(name), line(t)))
        .collect();
    let cases: Vec<String> = c.cases.iter().map(line).collect();
    format!(
        "{{\"tables\":{{\n{}\n}},\n\"cases\":[\n{}\n]}}\n",
        tables.join(",\n"),
        cases.join(",\n")
    )
}

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/tests/contract/tables.json")
}

#[test]
fn committed_table_contract_is_current() {
    let fresh = render(&contract());
    let path = path();
    if std::env::var_os("DUSTPAN_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{} is stale: run `DUSTPAN_BLESS=1 cargo test -p view --test table_contract` and review the change",
        path.display()
    );
}

#[test]
fn the_contract_covers_what_it_claims() {
    let c = contract();
    let errors = c.cases.iter().filter(|c| c.error.is_some()).count();
    assert_eq!(errors, 6);
    // Every operator is exercised.
    for op in FilterOp::ALL {
        assert!(
            c.cases
                .iter()
                .any(|c| c.answer.is_some() && c.query.filters.iter().any(|f| f.op == op)),
            "no case answers {op:?}"
        );
    }
    let at_least = |name: &str| {
        c.cases
            .iter()
            .find(|c| c.name == name)
            .and_then(|c| c.answer.as_ref())
            .map(|a| a.matched)
            .unwrap()
    };
    // 301, 302 (as text), 404, 500, 1000.
    assert_eq!(at_least("at least a number"), 5);
    // Every title but "Shoes", "shoes sale", "😀 smile", "SHOES BIG" and "İstanbul",
    // the blank one included.
    assert_eq!(at_least("does not contain keeps empty cells"), 11);
    let capped = c
        .cases
        .iter()
        .find(|c| c.name == "at most 1000 rows")
        .and_then(|c| c.answer.as_ref())
        .unwrap();
    assert_eq!(capped.rows.len(), 1000);
    let blank = c
        .cases
        .iter()
        .find(|c| c.name == "blank search is no search")
        .and_then(|c| c.answer.as_ref())
        .unwrap();
    assert_eq!(blank.matched, blank.total);
}
