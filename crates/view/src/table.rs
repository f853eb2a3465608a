//! One table held in memory, paged on demand: sort permutations computed once per
//! column and direction, a lower-cased search text per row built on the first search,
//! a lower-cased copy of a column built on the first text filter over it, its numbers on
//! the first number filter. Column
//! filters ([`ColumnFilter`]) are compiled once per query (numbers parsed, patterns
//! built), then tested row by row; the same view can be written as CSV
//! ([`PagedTable::write_csv`]).

use crate::error::ViewError;
use crate::types::{
    Cell, Column, ColumnFilter, ColumnKind, FilterOp, MAX_LIMIT, MAX_PATTERN_LEN, TableName,
    TablePage, TableQuery, ViewQuery,
};
use audit::export::{Cell as Value, ColumnType, TableData, csv_cell};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Why a query cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// The sort or filter names a column the table does not have.
    #[error("table {table:?} has no column {column:?}")]
    NoSuchColumn {
        /// The table.
        table: TableName,
        /// The key asked for.
        column: String,
    },
    /// A number operator's value is not a number.
    #[error("the filter on {column} needs a number, not {value:?}")]
    NotANumber {
        /// The column's key.
        column: String,
        /// The value given.
        value: String,
    },
    /// A `between` filter without its upper bound.
    #[error("the filter on {column} needs two numbers (between)")]
    MissingUpper {
        /// The column's key.
        column: String,
    },
    /// A regular expression longer than [`MAX_PATTERN_LEN`] bytes.
    #[error("the pattern of the filter on {column} is longer than {MAX_PATTERN_LEN} bytes")]
    PatternTooLong {
        /// The column's key.
        column: String,
    },
    /// A regular expression that does not compile.
    #[error("the pattern of the filter on {column} is not a valid regular expression: {reason}")]
    BadPattern {
        /// The column's key.
        column: String,
        /// Why, as the regex crate says it.
        reason: String,
    },
}

/// The compiled program size a filter's regular expression may take (the regex crate's
/// `size_limit`; its lazy DFA gets the same).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Row orders by (column, descending), computed on demand.
type Orders = Mutex<HashMap<(usize, bool), Arc<Vec<u32>>>>;

/// Lower-cased cell texts by column, computed on demand: see [`lower_column`].
type Lowered = Mutex<HashMap<usize, LoweredColumn>>;

/// One column's cells lower-cased, one per row.
type LoweredColumn = Arc<Vec<Arc<str>>>;

/// Cell numbers by column (NaN where a cell holds none), computed on demand.
type Numbers = Mutex<HashMap<usize, Arc<Vec<f64>>>>;

/// A table ready for paging.
pub struct PagedTable {
    name: TableName,
    columns: Vec<Column>,
    rows: Vec<Vec<Value>>,
    keys: Vec<String>,
    orders: Orders,
    lowered: Lowered,
    numbers: Numbers,
}

/// Rows of built tables an open audit keeps. Past it, the tables used least recently
/// are dropped and built again when next asked for: at a million pages a table of a
/// million rows holds 300 MB to 1 GB, and every table built at once held 4.2 GB.
pub(crate) const TABLE_ROWS_KEPT: usize = 2_500_000;

/// The built tables of an open audit, by slot, each with when it was last asked for.
pub(crate) struct TableCache {
    slots: Vec<Option<(Arc<PagedTable>, u64)>>,
    clock: u64,
    rows_kept: usize,
}

impl TableCache {
    /// A cache of `slots` tables that keeps up to `rows_kept` rows (always the table
    /// asked for last, whatever its size).
    pub(crate) fn new(slots: usize, rows_kept: usize) -> TableCache {
        TableCache {
            slots: vec![None; slots],
            clock: 0,
            rows_kept,
        }
    }

    /// The table in `slot`, if built and kept.
    pub(crate) fn get(&mut self, slot: usize) -> Option<Arc<PagedTable>> {
        self.clock += 1;
        let clock = self.clock;
        let (table, used) = self.slots.get_mut(slot)?.as_mut()?;
        *used = clock;
        Some(Arc::clone(table))
    }

    /// Keeps `table` in `slot` (or the one another caller kept there first, which it
    /// answers), then drops the least recently used others while the rows kept exceed
    /// the budget. A dropped table lives on while a caller still holds it.
    pub(crate) fn keep(&mut self, slot: usize, table: Arc<PagedTable>) -> Arc<PagedTable> {
        if let Some(kept) = self.get(slot) {
            return kept;
        }
        let Some(place) = self.slots.get_mut(slot) else {
            return table;
        };
        *place = Some((Arc::clone(&table), self.clock));
        loop {
            let rows: usize = self.slots.iter().flatten().map(|(t, _)| t.rows.len()).sum();
            if rows <= self.rows_kept {
                break;
            }
            let oldest = self
                .slots
                .iter()
                .enumerate()
                .filter(|&(k, held)| k != slot && held.is_some())
                .min_by_key(|(_, held)| held.as_ref().map_or(0, |(_, used)| *used))
                .map(|(k, _)| k);
            match oldest {
                Some(k) => self.slots[k] = None,
                None => break,
            }
        }
        table
    }

    /// The slots holding a built table.
    #[cfg(test)]
    fn held(&self) -> Vec<usize> {
        (0..self.slots.len())
            .filter(|&k| self.slots[k].is_some())
            .collect()
    }
}

/// A number as a filter reads it, in its value or in a text cell: an optional sign,
/// ASCII digits with an optional decimal point (`300`, `-1`, `0.95`, `.5`), surrounded by
/// nothing but white space. No exponents, separators, `inf` or `NaN`.
pub fn parse_number(text: &str) -> Option<f64> {
    let t = text.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !all_digits(int) || !all_digits(frac) {
        return None;
    }
    t.parse().ok()
}

/// The number a filter compares in a cell: an integer, or text that is a number.
fn cell_number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(n) => Some(*n as f64),
        Value::Text(s) => parse_number(s),
        Value::Empty => None,
    }
}

/// How a compiled filter tests a cell.
enum Test {
    /// A text operator on the column's lower-cased texts, with the lower-cased value.
    Text {
        op: FilterOp,
        needle: String,
        lowered: LoweredColumn,
    },
    /// A regular expression on the cell's text.
    Regex(regex::Regex),
    /// A number operator on the column's numbers; `between` has `low <= high`.
    Number {
        op: FilterOp,
        low: f64,
        high: f64,
        numbers: Arc<Vec<f64>>,
    },
}

/// One [`ColumnFilter`] ready to run.
struct Compiled {
    column: usize,
    test: Test,
}

impl Compiled {
    fn keeps(&self, row: u32, cells: &[Value]) -> bool {
        match &self.test {
            Test::Text {
                op,
                needle,
                lowered,
            } => {
                let text: &str = &lowered[row as usize];
                match op {
                    FilterOp::Contains => text.contains(needle.as_str()),
                    FilterOp::NotContains => !text.contains(needle.as_str()),
                    FilterOp::NotEquals => text != needle,
                    FilterOp::StartsWith => text.starts_with(needle.as_str()),
                    FilterOp::EndsWith => text.ends_with(needle.as_str()),
                    _ => text == needle,
                }
            }
            Test::Regex(re) => re.is_match(&cells[self.column].as_text()),
            Test::Number {
                op,
                low,
                high,
                numbers,
            } => {
                let x = numbers[row as usize];
                if x.is_nan() {
                    return false;
                }
                match op {
                    FilterOp::Ne => x != *low,
                    FilterOp::Lt => x < *low,
                    FilterOp::Le => x <= *low,
                    FilterOp::Gt => x > *low,
                    FilterOp::Ge => x >= *low,
                    FilterOp::Between => *low <= x && x <= *high,
                    _ => x == *low,
                }
            }
        }
    }
}

/// A search compiled: the lower-cased needle and the columns it looks in.
struct Search {
    needle: String,
    /// Each column's lower-cased texts; `None` for a column of numbers only, whose
    /// cells are written out as the search reaches them.
    columns: Vec<Option<LoweredColumn>>,
}

impl Search {
    /// Whether any cell of row `i` contains the needle.
    fn finds(&self, i: u32, cells: &[Value]) -> bool {
        let needle = self.needle.as_str();
        self.columns
            .iter()
            .zip(cells)
            .any(|(lowered, cell)| match lowered {
                Some(texts) => texts[i as usize].contains(needle),
                None => match cell {
                    Value::Int(n) => n.to_string().contains(needle),
                    _ => false,
                },
            })
    }
}

/// A query's row selection, compiled: filters, the search needle, the order.
struct Plan {
    filters: Vec<Compiled>,
    needle: Option<Search>,
    order: Option<Arc<Vec<u32>>>,
}

impl Plan {
    fn is_everything(&self) -> bool {
        self.filters.is_empty() && self.needle.is_none()
    }
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
        Cell::Text(s) => Value::Text(s.as_str().into()),
        Cell::Number(n) => Value::Int(*n),
        Cell::Empty => Value::Empty,
    }
}

/// The app's cell for a table cell.
pub fn cell(value: &Value) -> Cell {
    match value {
        Value::Text(s) => Cell::Text(s.to_string()),
        Value::Int(n) => Cell::Number(*n),
        Value::Empty => Cell::Empty,
    }
}

/// How the app shows a column of a kind.
pub(crate) fn kind(t: ColumnType) -> ColumnKind {
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

/// The cells of `column` lower-cased, one per row. A text that lower-casing leaves as it
/// is (most URLs) is the cell's own; rows that share one text (a finding's fix on each
/// of its URLs) share its lower-cased copy too: a column costs a pointer a row beyond
/// the texts that change.
fn lower_column(rows: &[Vec<Value>], column: usize) -> Vec<Arc<str>> {
    let empty: Arc<str> = Arc::from("");
    let mut last: Option<(Arc<str>, Arc<str>)> = None;
    rows.iter()
        .map(|row| match &row[column] {
            Value::Text(s) => match &last {
                Some((source, lowered)) if Arc::ptr_eq(source, s) => Arc::clone(lowered),
                _ => {
                    let lowered = lower_shared(s);
                    last = Some((Arc::clone(s), Arc::clone(&lowered)));
                    lowered
                }
            },
            Value::Int(n) => Arc::from(n.to_string()),
            Value::Empty => Arc::clone(&empty),
        })
        .collect()
}

/// `text` lower-cased, the same allocation when that changes nothing.
fn lower_shared(text: &Arc<str>) -> Arc<str> {
    if text
        .bytes()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
    {
        return Arc::clone(text);
    }
    let lowered = text.to_lowercase();
    if lowered == **text {
        Arc::clone(text)
    } else {
        lowered.into()
    }
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
            orders: Mutex::new(HashMap::new()),
            lowered: Mutex::new(HashMap::new()),
            numbers: Mutex::new(HashMap::new()),
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
            orders: Mutex::new(HashMap::new()),
            lowered: Mutex::new(HashMap::new()),
            numbers: Mutex::new(HashMap::new()),
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

    /// What a search looks in: the lower-cased texts of every column that holds text.
    fn search_columns(&self) -> Vec<Option<LoweredColumn>> {
        (0..self.columns.len())
            .map(|c| {
                self.rows
                    .iter()
                    .any(|row| matches!(row[c], Value::Text(_)))
                    .then(|| self.lowered(c))
            })
            .collect()
    }

    /// The lower-cased texts of `column`, one per row. Computed once per column.
    fn lowered(&self, column: usize) -> LoweredColumn {
        let mut lowered = self
            .lowered
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(
            lowered
                .entry(column)
                .or_insert_with(|| Arc::new(lower_column(&self.rows, column))),
        )
    }

    /// The numbers of `column`, one per row (NaN for a cell without one). Computed once
    /// per column.
    fn numbers(&self, column: usize) -> Arc<Vec<f64>> {
        let mut numbers = self
            .numbers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(numbers.entry(column).or_insert_with(|| {
            Arc::new(
                self.rows
                    .iter()
                    .map(|row| cell_number(&row[column]).unwrap_or(f64::NAN))
                    .collect(),
            )
        }))
    }

    /// Checks a filter and prepares it: the value lower-cased, parsed or compiled.
    fn compile(&self, f: &ColumnFilter) -> Result<Compiled, QueryError> {
        let column = self.column(&f.column)?;
        let number = |v: &str| {
            parse_number(v).ok_or_else(|| QueryError::NotANumber {
                column: f.column.clone(),
                value: v.to_owned(),
            })
        };
        let test = match f.op {
            FilterOp::Regex => {
                if f.value.len() > MAX_PATTERN_LEN {
                    return Err(QueryError::PatternTooLong {
                        column: f.column.clone(),
                    });
                }
                let re = regex::RegexBuilder::new(&f.value)
                    .case_insensitive(true)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .dfa_size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|e| QueryError::BadPattern {
                        column: f.column.clone(),
                        reason: e.to_string(),
                    })?;
                Test::Regex(re)
            }
            FilterOp::Between => {
                let upper = f.upper.as_deref().ok_or_else(|| QueryError::MissingUpper {
                    column: f.column.clone(),
                })?;
                let (a, b) = (number(&f.value)?, number(upper)?);
                Test::Number {
                    op: f.op,
                    low: a.min(b),
                    high: a.max(b),
                    numbers: self.numbers(column),
                }
            }
            op if op.is_numeric() => {
                let v = number(&f.value)?;
                Test::Number {
                    op,
                    low: v,
                    high: v,
                    numbers: self.numbers(column),
                }
            }
            op => Test::Text {
                op,
                needle: f.value.to_lowercase(),
                lowered: self.lowered(column),
            },
        };
        Ok(Compiled { column, test })
    }

    /// Compiles what a view asks: every filter checked, the order and the search text
    /// built when needed.
    fn plan(&self, q: &ViewQuery) -> Result<Plan, QueryError> {
        let filters = q
            .filters
            .iter()
            .map(|f| self.compile(f))
            .collect::<Result<Vec<_>, _>>()?;
        let order = match &q.sort {
            Some(s) => Some(self.order(self.column(&s.column)?, s.descending)),
            None => None,
        };
        let needle = q
            .search
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|n| Search {
                needle: n.to_lowercase(),
                columns: self.search_columns(),
            });
        Ok(Plan {
            filters,
            needle,
            order,
        })
    }

    /// The rows of a plan, in its order.
    fn selected<'p>(&'p self, plan: &'p Plan) -> Box<dyn Iterator<Item = u32> + 'p> {
        let all: Box<dyn Iterator<Item = u32> + 'p> = match &plan.order {
            Some(o) => Box::new(o.iter().copied()),
            None => Box::new(0..self.rows.len() as u32),
        };
        if plan.is_everything() {
            return all;
        }
        Box::new(all.filter(move |&i| {
            let row = &self.rows[i as usize];
            plan.filters.iter().all(|f| f.keeps(i, row))
                && plan.needle.as_ref().is_none_or(|s| s.finds(i, row))
        }))
    }

    /// The rows a view shows, in its order (indices into [`PagedTable::rows`]).
    pub fn matching(&self, q: &ViewQuery) -> Result<Vec<u32>, QueryError> {
        let plan = self.plan(q)?;
        Ok(self.selected(&plan).collect())
    }

    /// Answers a query: sort, search, filters, then the page.
    pub fn query(&self, q: &TableQuery) -> Result<TablePage, QueryError> {
        let plan = self.plan(&ViewQuery::from(q))?;
        let limit = q.limit.min(MAX_LIMIT) as usize;
        let offset = q.offset as usize;
        let (matched, page): (usize, Vec<u32>) = if plan.is_everything() {
            let page = self.selected(&plan).skip(offset).take(limit).collect();
            (self.rows.len(), page)
        } else {
            let mut matched = 0usize;
            let mut page = Vec::with_capacity(limit.min(1024));
            for i in self.selected(&plan) {
                if matched >= offset && page.len() < limit {
                    page.push(i);
                }
                matched += 1;
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

    /// Writes the rows a view shows, in its order, as CSV with the table's columns (the
    /// export's format: RFC 4180, text made spreadsheet-safe); returns the rows written.
    pub fn write_csv_to<W: Write>(&self, q: &ViewQuery, out: W) -> Result<usize, ViewError> {
        let plan = self.plan(q)?;
        self.write_plan(&plan, out)
    }

    fn write_plan<W: Write>(&self, plan: &Plan, out: W) -> Result<usize, ViewError> {
        let csv_error = |e: csv::Error| ViewError::Csv("the view".to_owned(), e);
        let mut w = csv::Writer::from_writer(out);
        w.write_record(self.columns.iter().map(|c| c.title.as_str()))
            .map_err(csv_error)?;
        let mut written = 0usize;
        let mut record: Vec<std::borrow::Cow<'_, str>> = Vec::with_capacity(self.columns.len());
        for i in self.selected(plan) {
            record.clear();
            record.extend(self.rows[i as usize].iter().zip(&self.columns).map(
                |(c, column)| match c {
                    Value::Text(s) if column.kind == ColumnKind::Url => {
                        csv_cell(s, ColumnType::Url)
                    }
                    Value::Text(s) => csv_cell(s, ColumnType::Text),
                    other => other.as_text(),
                },
            ));
            w.write_record(record.iter().map(|c| c.as_bytes()))
                .map_err(csv_error)?;
            written += 1;
        }
        w.flush().map_err(|e| csv_error(e.into()))?;
        Ok(written)
    }

    /// Writes the rows a view shows to the file `path` ([`PagedTable::write_csv_to`]);
    /// a view that cannot be answered creates no file.
    pub fn write_csv(&self, q: &ViewQuery, path: &Path) -> Result<usize, ViewError> {
        if q.table != self.name {
            return Err(ViewError::Invalid(format!(
                "the view is of table {:?}, not {:?}",
                q.table, self.name
            )));
        }
        let plan = self.plan(q)?;
        let file = std::fs::File::create(path).map_err(|e| ViewError::io(path, e))?;
        self.write_plan(&plan, std::io::BufWriter::new(file))
            .map_err(|e| match e {
                ViewError::Csv(_, e) => ViewError::Csv(path.display().to_string(), e),
                other => other,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::SortSpec;
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

    /// A table of `n` rows.
    fn rows(n: usize) -> Arc<PagedTable> {
        let data = TableData {
            headers: vec![Header {
                title: "Address",
                kind: ColumnType::Url,
            }],
            rows: (0..n)
                .map(|i| vec![format!("https://a/{i}").into()])
                .collect(),
        };
        Arc::new(PagedTable::new(TableName::Pages, data, None))
    }

    #[test]
    fn the_cache_drops_the_tables_used_least_recently_past_its_rows() {
        let mut cache = TableCache::new(4, 10);
        assert!(cache.get(0).is_none());
        cache.keep(0, rows(4));
        cache.keep(1, rows(4));
        assert_eq!(cache.held(), [0, 1]);
        // Table 0 asked for again: table 1 is now the least recently used.
        assert_eq!(cache.get(0).unwrap().rows().len(), 4);
        cache.keep(2, rows(4));
        assert_eq!(cache.held(), [0, 2]);
        // A table past the budget on its own is kept alone, and answered.
        let big = cache.keep(3, rows(25));
        assert_eq!(big.rows().len(), 25);
        assert_eq!(cache.held(), [3]);
        // Another caller's table built meanwhile is the one answered.
        let first = cache.keep(1, rows(2));
        let second = cache.keep(1, rows(3));
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(second.rows().len(), 2);
        // Out of range: answered, not kept.
        assert_eq!(cache.keep(9, rows(1)).rows().len(), 1);
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

    /// A million rows of one finding repeat its fix: the lower-cased copies a search
    /// and a text filter build are the cells' own texts, or one copy for all the rows
    /// that share a text, never one a row.
    #[test]
    fn lower_cased_columns_share_what_the_cells_share() {
        let fix: Arc<str> = Arc::from("Give Each Page Its Own H1");
        let rows: Vec<Vec<Value>> = (0..4)
            .map(|i| {
                vec![
                    Value::Text(format!("https://a/{i}").into()),
                    Value::Text(Arc::clone(&fix)),
                ]
            })
            .collect();
        let urls = lower_column(&rows, 0);
        for (row, lowered) in rows.iter().zip(&urls) {
            let Value::Text(url) = &row[0] else {
                unreachable!()
            };
            assert!(
                Arc::ptr_eq(url, lowered),
                "a lower-case URL is its own copy"
            );
        }
        let fixes = lower_column(&rows, 1);
        assert_eq!(&*fixes[0], "give each page its own h1");
        assert!(fixes.iter().all(|f| Arc::ptr_eq(f, &fixes[0])));
        let t = PagedTable::new(
            TableName::IssueUrls,
            TableData {
                headers: vec![
                    Header {
                        title: "Address",
                        kind: ColumnType::Url,
                    },
                    Header {
                        title: "Fix",
                        kind: ColumnType::Text,
                    },
                ],
                rows,
            },
            None,
        );
        assert_eq!(t.query(&query(None, Some("OWN h1"))).unwrap().matched, 4);
        assert_eq!(t.query(&query(None, Some("a/3"))).unwrap().matched, 1);
        // Cells are searched one by one: a needle across two cells finds nothing.
        assert_eq!(t.query(&query(None, Some("/3give"))).unwrap().matched, 0);
    }

    #[test]
    fn filters_match_exactly_and_pages_are_cut() {
        let t = table();
        let mut q = query(None, None);
        q.filters = vec![ColumnFilter::new("status_code", FilterOp::Equals, "200")];
        assert_eq!(addresses(&t.query(&q).unwrap()), ["https://a/"]);
        let mut q = query(Some(("address", true)), None);
        q.offset = 1;
        q.limit = 2;
        let page = t.query(&q).unwrap();
        assert_eq!(page.matched, 4);
        assert_eq!(addresses(&page), ["https://c/", "https://b/"]);
    }

    fn filtered(t: &PagedTable, filters: Vec<ColumnFilter>) -> Result<Vec<String>, QueryError> {
        let mut q = query(None, None);
        q.filters = filters;
        t.query(&q).map(|p| addresses(&p))
    }

    #[test]
    fn text_operators_ignore_case_and_treat_empty_cells_as_empty_text() {
        let t = table();
        let f = |op, v: &str| filtered(&t, vec![ColumnFilter::new("title_1", op, v)]).unwrap();
        assert_eq!(f(FilterOp::Contains, "SHOES"), ["https://b/", "https://d/"]);
        assert_eq!(
            f(FilterOp::NotContains, "shoes"),
            ["https://a/", "https://c/"]
        );
        assert_eq!(f(FilterOp::Equals, "shoes"), ["https://b/"]);
        assert_eq!(f(FilterOp::Equals, ""), ["https://c/"]);
        assert_eq!(
            f(FilterOp::NotEquals, ""),
            ["https://a/", "https://b/", "https://d/"]
        );
        assert_eq!(f(FilterOp::StartsWith, "shoes "), ["https://d/"]);
        assert_eq!(f(FilterOp::EndsWith, "E"), ["https://a/", "https://d/"]);
        // Numbers compare as their digits; an empty cell as empty text.
        let s = |op, v: &str| filtered(&t, vec![ColumnFilter::new("status_code", op, v)]).unwrap();
        assert_eq!(s(FilterOp::Contains, "00"), ["https://a/", "https://d/"]);
        assert_eq!(s(FilterOp::Equals, ""), ["https://c/"]);
    }

    #[test]
    fn number_operators_compare_values_and_skip_empty_cells() {
        let t = table();
        let s = |op, v: &str| filtered(&t, vec![ColumnFilter::new("status_code", op, v)]).unwrap();
        assert_eq!(s(FilterOp::Ge, "200"), ["https://a/", "https://d/"]);
        assert_eq!(s(FilterOp::Gt, "200"), ["https://d/"]);
        assert_eq!(s(FilterOp::Lt, "200"), ["https://b/"]);
        assert_eq!(s(FilterOp::Le, " 200 "), ["https://a/", "https://b/"]);
        assert_eq!(s(FilterOp::Eq, "30.0"), ["https://b/"]);
        // The empty cell is not a number: not even "not 30".
        assert_eq!(s(FilterOp::Ne, "30"), ["https://a/", "https://d/"]);
        let between = |a: &str, b: &str| {
            filtered(&t, vec![ColumnFilter::between("status_code", a, b)]).unwrap()
        };
        assert_eq!(between("30", "200"), ["https://a/", "https://b/"]);
        assert_eq!(between("200", "30"), ["https://a/", "https://b/"]);
        assert_eq!(between("1000", "1000"), ["https://d/"]);
    }

    #[test]
    fn filters_combine_with_search_and_sort() {
        let t = table();
        let mut q = query(Some(("status_code", true)), Some("shoes"));
        q.filters = vec![ColumnFilter::new("status_code", FilterOp::Ge, "30")];
        assert_eq!(
            addresses(&t.query(&q).unwrap()),
            ["https://d/", "https://b/"]
        );
        q.filters.push(ColumnFilter::new(
            "address",
            FilterOp::Regex,
            "^HTTPS://[bc]/$",
        ));
        let page = t.query(&q).unwrap();
        assert_eq!(addresses(&page), ["https://b/"]);
        assert_eq!(page.matched, 1);
    }

    #[test]
    fn bad_filters_are_typed_errors() {
        let t = table();
        let err = |f: ColumnFilter| filtered(&t, vec![f]).unwrap_err();
        assert!(matches!(
            err(ColumnFilter::new("status_code", FilterOp::Ge, ">=300")),
            QueryError::NotANumber { .. }
        ));
        for not_a_number in ["", "1e3", "inf", "NaN", "1,000", "0x10", "."] {
            assert_eq!(parse_number(not_a_number), None, "{not_a_number:?}");
        }
        assert_eq!(parse_number(" -1.5 "), Some(-1.5));
        assert_eq!(parse_number("+.5"), Some(0.5));
        assert!(matches!(
            err(ColumnFilter::new("status_code", FilterOp::Between, "1")),
            QueryError::MissingUpper { .. }
        ));
        let bad = err(ColumnFilter::new("title_1", FilterOp::Regex, "(unclosed"));
        assert!(matches!(bad, QueryError::BadPattern { .. }), "{bad:?}");
        let ipc = crate::IpcError::from(ViewError::from(bad));
        assert_eq!(ipc.code, crate::ErrorCode::InvalidInput);
        assert!(ipc.message.contains("title_1"), "{}", ipc.message);
        let long = "a".repeat(MAX_PATTERN_LEN + 1);
        assert!(matches!(
            err(ColumnFilter::new("title_1", FilterOp::Regex, long)),
            QueryError::PatternTooLong { .. }
        ));
        // A pattern within the length cap whose program is too big is refused too.
        let huge = err(ColumnFilter::new(
            "title_1",
            FilterOp::Regex,
            "\\w{1000}{1000}",
        ));
        assert!(matches!(huge, QueryError::BadPattern { .. }), "{huge:?}");
    }

    #[test]
    fn the_old_equals_form_still_reads() {
        let f: ColumnFilter =
            serde_json::from_str(r#"{"column":"cause","equals":"redirect"}"#).unwrap();
        assert_eq!(f, ColumnFilter::new("cause", FilterOp::Equals, "redirect"));
        let json =
            serde_json::to_value(ColumnFilter::between("status_code", "300", "399")).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"column": "status_code", "op": "between", "value": "300", "upper": "399"})
        );
    }

    #[test]
    fn the_view_is_written_as_csv_in_its_order() {
        let mut t = table();
        t.rows[0][2] = "=cmd()".into();
        let view = ViewQuery {
            table: TableName::Pages,
            sort: Some(SortSpec {
                column: "status_code".into(),
                descending: true,
            }),
            search: None,
            filters: vec![ColumnFilter::new("status_code", FilterOp::Ge, "200")],
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("view.csv");
        assert_eq!(t.write_csv(&view, &path).unwrap(), 2);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "Address,Status Code,Title 1\nhttps://d/,1000,SHOES sale\nhttps://a/,200,'=cmd()\n"
        );
        // A view that cannot be answered writes no file.
        let mut bad = view.clone();
        bad.filters[0].value = "x".into();
        let missing = dir.path().join("bad.csv");
        assert!(t.write_csv(&bad, &missing).is_err());
        assert!(!missing.exists());
        let mut other = view;
        other.table = TableName::Params;
        assert!(t.write_csv(&other, &missing).is_err());
    }

    #[test]
    fn unknown_columns_are_errors() {
        let err = table()
            .query(&query(Some(("nope", false)), None))
            .unwrap_err();
        assert!(err.to_string().contains("nope"));
    }
}
