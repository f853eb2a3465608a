//! One table held in memory, paged on demand: sort permutations computed once per
//! column and direction, a lower-cased search text per row built on the first search.

use crate::types::{Cell, Column, ColumnKind, MAX_LIMIT, TableName, TablePage, TableQuery};
use audit::export::{Cell as Value, ColumnType, TableData};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Why a query cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// The sort or filter names a column the table does not have.
    #[error("table {table:?} has no column {column:?}")]
    NoSuchColumn {
        /// The table.
        table: TableName,
        /// The key asked for.
        column: String,
    },
}

/// Separates cells in a row's search text (no cell contains it after lower-casing).
const CELL_SEPARATOR: char = '\u{1f}';

/// Row orders by (column, descending), computed on demand.
type Orders = Mutex<HashMap<(usize, bool), Arc<Vec<u32>>>>;

/// A table ready for paging.
pub struct PagedTable {
    name: TableName,
    columns: Vec<Column>,
    rows: Vec<Vec<Value>>,
    keys: Vec<String>,
    search_text: OnceLock<Vec<String>>,
    orders: Orders,
}

/// The stable id a column is named by in queries: its header's words in snake_case
/// (`Status Code` → `status_code`, `Title 1` → `title_1`). Every table's ids are
/// listed in a test, so that a header reworded does not silently rename a column.
pub fn column_key(title: &str) -> String {
    let mut key = String::with_capacity(title.len());
    let mut gap = false;
    for ch in title.chars() {
        if ch.is_ascii_alphanumeric() {
            if gap && !key.is_empty() {
                key.push('_');
            }
            key.push(ch.to_ascii_lowercase());
            gap = false;
        } else {
            gap = true;
        }
    }
    key
}

/// The table cell for an app cell.
fn value(cell: &Cell) -> Value {
    match cell {
        Cell::Text(s) => Value::Text(s.clone()),
        Cell::Number(n) => Value::Int(*n),
        Cell::Empty => Value::Empty,
    }
}

/// The app's cell for a table cell.
pub fn cell(value: &Value) -> Cell {
    match value {
        Value::Text(s) => Cell::Text(s.clone()),
        Value::Int(n) => Cell::Number(*n),
        Value::Empty => Cell::Empty,
    }
}

fn kind(t: ColumnType) -> ColumnKind {
    match t {
        ColumnType::Text => ColumnKind::Text,
        ColumnType::Number => ColumnKind::Number,
        ColumnType::Url => ColumnKind::Url,
    }
}

/// The columns of a table's headers.
pub fn columns(data: &TableData) -> Vec<Column> {
    data.headers
        .iter()
        .map(|h| Column {
            key: column_key(h.title),
            title: h.title.to_owned(),
            kind: kind(h.kind),
        })
        .collect()
}

/// Numbers before text before empty cells; numbers by value, text by bytes.
fn compare(a: &Value, b: &Value) -> Ordering {
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Int(_) => 0,
            Value::Text(s) if s.is_empty() => 2,
            Value::Text(_) => 1,
            Value::Empty => 2,
        }
    }
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Text(x), Value::Text(y)) if !x.is_empty() && !y.is_empty() => x.cmp(y),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn is_blank(v: &Value) -> bool {
    match v {
        Value::Empty => true,
        Value::Text(s) => s.is_empty(),
        Value::Int(_) => false,
    }
}

impl PagedTable {
    /// A table from its data; `keys` gives each row's stable key (row numbers when
    /// absent).
    pub fn new(name: TableName, data: TableData, keys: Option<Vec<String>>) -> PagedTable {
        let columns = columns(&data);
        let keys = keys.unwrap_or_else(|| (0..data.rows.len()).map(|i| i.to_string()).collect());
        PagedTable {
            name,
            columns,
            rows: data.rows,
            keys,
            search_text: OnceLock::new(),
            orders: Mutex::new(HashMap::new()),
        }
    }

    /// A table from the app's columns and cells (each row one cell per column); `keys`
    /// as in [`PagedTable::new`].
    pub fn from_cells(
        name: TableName,
        columns: Vec<Column>,
        rows: &[Vec<Cell>],
        keys: Option<Vec<String>>,
    ) -> PagedTable {
        let keys = keys.unwrap_or_else(|| (0..rows.len()).map(|i| i.to_string()).collect());
        PagedTable {
            name,
            columns,
            rows: rows.iter().map(|r| r.iter().map(value).collect()).collect(),
            keys,
            search_text: OnceLock::new(),
            orders: Mutex::new(HashMap::new()),
        }
    }

    /// The columns.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The rows, in the table's own order.
    pub fn rows(&self) -> &[Vec<Value>] {
        &self.rows
    }

    /// Row keys, in the table's own order.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    fn column(&self, key: &str) -> Result<usize, QueryError> {
        self.columns
            .iter()
            .position(|c| c.key == key)
            .ok_or_else(|| QueryError::NoSuchColumn {
                table: self.name,
                column: key.to_owned(),
            })
    }

    /// Row indices sorted by `column` (stable: ties keep the table's order; blank
    /// cells last in both directions). Computed once per column and direction.
    fn order(&self, column: usize, descending: bool) -> Arc<Vec<u32>> {
        let mut orders = self
            .orders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(o) = orders.get(&(column, descending)) {
            return Arc::clone(o);
        }
        let mut ix: Vec<u32> = (0..self.rows.len() as u32).collect();
        let rows = &self.rows;
        ix.sort_by(|&a, &b| {
            let (x, y) = (&rows[a as usize][column], &rows[b as usize][column]);
            match (is_blank(x), is_blank(y)) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) if descending => compare(y, x),
                (false, false) => compare(x, y),
            }
        });
        let ix = Arc::new(ix);
        orders.insert((column, descending), Arc::clone(&ix));
        ix
    }

    fn search_text(&self) -> &[String] {
        self.search_text.get_or_init(|| {
            self.rows
                .iter()
                .map(|row| {
                    let mut text = String::new();
                    for (i, c) in row.iter().enumerate() {
                        if i > 0 {
                            text.push(CELL_SEPARATOR);
                        }
                        text.push_str(&c.as_text().to_lowercase());
                    }
                    text
                })
                .collect()
        })
    }

    /// Answers a query: sort, search, filters, then the page.
    pub fn query(&self, q: &TableQuery) -> Result<TablePage, QueryError> {
        let filters: Vec<(usize, &str)> = q
            .filters
            .iter()
            .map(|f| Ok((self.column(&f.column)?, f.equals.as_str())))
            .collect::<Result<_, QueryError>>()?;
        let order = match &q.sort {
            Some(s) => Some(self.order(self.column(&s.column)?, s.descending)),
            None => None,
        };
        let needle = q
            .search
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_lowercase);
        let haystack = needle.as_ref().map(|_| self.search_text());
        let keep = |i: u32| -> bool {
            let row = &self.rows[i as usize];
            filters.iter().all(|&(c, v)| row[c].as_text() == v)
                && match (&needle, haystack) {
                    (Some(n), Some(h)) => h[i as usize].contains(n.as_str()),
                    _ => true,
                }
        };
        let limit = q.limit.min(MAX_LIMIT) as usize;
        let offset = q.offset as usize;
        let all = || -> Box<dyn Iterator<Item = u32> + '_> {
            match &order {
                Some(o) => Box::new(o.iter().copied()),
                None => Box::new(0..self.rows.len() as u32),
            }
        };
        let (matched, page): (usize, Vec<u32>) = if filters.is_empty() && needle.is_none() {
            let page = all().skip(offset).take(limit).collect();
            (self.rows.len(), page)
        } else {
            let mut matched = 0usize;
            let mut page = Vec::with_capacity(limit.min(1024));
            for i in all() {
                if keep(i) {
                    if matched >= offset && page.len() < limit {
                        page.push(i);
                    }
                    matched += 1;
                }
            }
            (matched, page)
        };
        Ok(TablePage {
            table: self.name,
            columns: self.columns.clone(),
            total: self.rows.len() as u32,
            matched: matched as u32,
            offset: q.offset,
            rows: page
                .iter()
                .map(|&i| self.rows[i as usize].iter().map(cell).collect())
                .collect(),
            row_keys: page
                .iter()
                .map(|&i| self.keys[i as usize].clone())
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{ColumnFilter, SortSpec};
    use audit::export::Header;

    fn table() -> PagedTable {
        let data = TableData {
            headers: vec![
                Header {
                    title: "Address",
                    kind: ColumnType::Url,
                },
                Header {
                    title: "Status Code",
                    kind: ColumnType::Number,
                },
                Header {
                    title: "Title 1",
                    kind: ColumnType::Text,
                },
            ],
            rows: vec![
                vec!["https://a/".into(), Value::Int(200), "Home".into()],
                vec!["https://b/".into(), Value::Int(30), "Shoes".into()],
                vec!["https://c/".into(), Value::Empty, "".into()],
                vec!["https://d/".into(), Value::Int(1000), "SHOES sale".into()],
            ],
        };
        PagedTable::new(TableName::Pages, data, None)
    }

    fn query(sort: Option<(&str, bool)>, search: Option<&str>) -> TableQuery {
        TableQuery {
            table: TableName::Pages,
            sort: sort.map(|(c, d)| SortSpec {
                column: c.into(),
                descending: d,
            }),
            search: search.map(str::to_owned),
            filters: vec![],
            offset: 0,
            limit: 10,
        }
    }

    fn addresses(page: &TablePage) -> Vec<String> {
        page.rows
            .iter()
            .map(|r| match &r[0] {
                Cell::Text(s) => s.clone(),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn keys_are_snake_case_words() {
        assert_eq!(column_key("Status Code"), "status_code");
        assert_eq!(column_key("Title 1"), "title_1");
        assert_eq!(column_key("Self-Referencing"), "self_referencing");
        assert_eq!(column_key("Address"), "address");
        assert_eq!(column_key("URLs now"), "urls_now");
        assert_eq!(column_key(" Hops (max) "), "hops_max");
    }

    #[test]
    fn numbers_sort_numerically_and_blanks_go_last() {
        let t = table();
        let up = t.query(&query(Some(("status_code", false)), None)).unwrap();
        assert_eq!(
            addresses(&up),
            ["https://b/", "https://a/", "https://d/", "https://c/"]
        );
        let down = t.query(&query(Some(("status_code", true)), None)).unwrap();
        assert_eq!(
            addresses(&down),
            ["https://d/", "https://a/", "https://b/", "https://c/"]
        );
    }

    #[test]
    fn search_is_case_insensitive_over_every_cell() {
        let t = table();
        let page = t
            .query(&query(Some(("title_1", false)), Some("shoes")))
            .unwrap();
        assert_eq!(page.matched, 2);
        assert_eq!(page.total, 4);
        assert_eq!(addresses(&page), ["https://d/", "https://b/"]);
        assert_eq!(page.row_keys, ["3", "1"]);
        let by_number = t.query(&query(None, Some("100"))).unwrap();
        assert_eq!(addresses(&by_number), ["https://d/"]);
    }

    #[test]
    fn filters_match_exactly_and_pages_are_cut() {
        let t = table();
        let mut q = query(None, None);
        q.filters = vec![ColumnFilter {
            column: "status_code".into(),
            equals: "200".into(),
        }];
        assert_eq!(addresses(&t.query(&q).unwrap()), ["https://a/"]);
        let mut q = query(Some(("address", true)), None);
        q.offset = 1;
        q.limit = 2;
        let page = t.query(&q).unwrap();
        assert_eq!(page.matched, 4);
        assert_eq!(addresses(&page), ["https://c/", "https://b/"]);
    }

    #[test]
    fn unknown_columns_are_errors() {
        let err = table()
            .query(&query(Some(("nope", false)), None))
            .unwrap_err();
        assert!(err.to_string().contains("nope"));
    }
}
