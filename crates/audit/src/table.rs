//! A table as typed data, the one source of the CSV files and of the app's tables: its
//! cells, its column headers and types, and how a cell is written to CSV so that a
//! spreadsheet opening the file runs nothing from the crawled text.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, LazyLock};

/// `cell`, defused for spreadsheets: a `'` before `= + - @ \t \r` at its start, and
/// after each `;` or tab (where spreadsheets of many locales start a new cell), an
/// opening `"` there included (`;"=1+1"` is a quoted formula cell in a `;`-reading);
/// and every control character but the tab and the line breaks (an ESC or BEL from a
/// crawled title) replaced by U+FFFD, so no cell carries a terminal escape. URL columns
/// are written exactly instead ([`ColumnType::Url`], see [`TableData::write_csv`]).
pub fn spreadsheet_safe(cell: &str) -> Cow<'_, str> {
    let formula = |b: u8| matches!(b, b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r');
    let bytes = cell.as_bytes();
    let separator = |i: usize| matches!(bytes[i], b';' | b'\t');
    // A spreadsheet in a locale that splits on `;` or a tab starts a new cell after
    // each, quoted or not: a formula character there is defused too.
    let after_separator = |i: usize| {
        formula(bytes[i])
            && ((i > 0 && separator(i - 1)) || (i > 1 && bytes[i - 1] == b'"' && separator(i - 2)))
    };
    let risky = |i: usize| (i == 0 && formula(bytes[0])) || after_separator(i);
    let control = |c: char| c.is_control() && !matches!(c, '\t' | '\n' | '\r');
    if !(0..bytes.len()).any(risky) && !cell.chars().any(control) {
        return Cow::Borrowed(cell);
    }
    let mut out = String::with_capacity(cell.len() + 2);
    for (i, c) in cell.char_indices() {
        if risky(i) {
            out.push('\'');
        }
        out.push(if control(c) { '\u{FFFD}' } else { c });
    }
    Cow::Owned(out)
}

/// A text cell as CSV writes it: a URL column's URL exactly as crawled (a URL starts
/// with its scheme, so no comma-separated reading takes it for a formula, and a `'`
/// inserted after a `;` in it would make it another URL), any other text
/// [`spreadsheet_safe`]. A spreadsheet that splits cells on `;` (its locale's default)
/// could read `=...` after a `;` in a URL as a formula: the files are comma-separated,
/// and are opened as such through the spreadsheet's import (File > Import, separator
/// comma).
pub fn csv_cell(text: &str, kind: ColumnType) -> Cow<'_, str> {
    match kind {
        ColumnType::Url => Cow::Borrowed(text),
        _ => spreadsheet_safe(text),
    }
}

/// One cell of a table: text, an integer, or nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Text (made spreadsheet-safe when written as CSV). Shared: a text many rows
    /// repeat (a finding's fix on each of its URLs' rows) is held once.
    Text(Arc<str>),
    /// An integer (sorts numerically).
    Int(i64),
    /// No value (an empty CSV cell).
    Empty,
}

impl Cell {
    /// The cell as CSV writes it (before [`spreadsheet_safe`]).
    pub fn as_text(&self) -> Cow<'_, str> {
        match self {
            Cell::Text(s) => Cow::Borrowed(s),
            Cell::Int(n) => Cow::Owned(n.to_string()),
            Cell::Empty => Cow::Borrowed(""),
        }
    }
}

/// The empty text, held once: most tables leave many cells blank.
static EMPTY: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from(""));

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        if s.is_empty() {
            return Cell::Text(Arc::clone(&EMPTY));
        }
        Cell::Text(s.into())
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::from(s.as_str())
    }
}

impl From<Arc<str>> for Cell {
    fn from(s: Arc<str>) -> Cell {
        Cell::Text(s)
    }
}

impl From<bool> for Cell {
    fn from(b: bool) -> Cell {
        static WORDS: LazyLock<[Arc<str>; 2]> =
            LazyLock::new(|| [Arc::from("false"), Arc::from("true")]);
        Cell::Text(Arc::clone(&WORDS[usize::from(b)]))
    }
}

/// Texts a column repeats (a content type, an indexability reason), held once each: a
/// table of a million rows holds a handful of them, not a million copies.
#[derive(Default)]
pub struct Words(HashMap<Box<str>, Arc<str>>);

impl Words {
    /// The cell of `text`, shared with every earlier cell of the same text.
    pub fn cell(&mut self, text: &str) -> Cell {
        if let Some(shared) = self.0.get(text) {
            return Cell::Text(Arc::clone(shared));
        }
        let cell = Cell::from(text);
        if let Cell::Text(shared) = &cell {
            self.0.insert(text.into(), Arc::clone(shared));
        }
        cell
    }
}

impl<T: Into<i64>> From<Option<T>> for Cell {
    fn from(n: Option<T>) -> Cell {
        n.map_or(Cell::Empty, |n| Cell::Int(n.into()))
    }
}

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// Free text.
    Text,
    /// Integers.
    Number,
    /// URLs.
    Url,
}

/// A column header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The header as SEO tools name it.
    pub title: &'static str,
    /// What the column holds.
    pub kind: ColumnType,
}

pub(crate) const fn text(title: &'static str) -> Header {
    Header {
        title,
        kind: ColumnType::Text,
    }
}

pub(crate) const fn number(title: &'static str) -> Header {
    Header {
        title,
        kind: ColumnType::Number,
    }
}

pub(crate) const fn url(title: &'static str) -> Header {
    Header {
        title,
        kind: ColumnType::Url,
    }
}

/// A table as typed data: the one source of the CSV export and the app's tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableData {
    /// The columns.
    pub headers: Vec<Header>,
    /// The rows, each with one cell per header.
    pub rows: Vec<Vec<Cell>>,
}

impl TableData {
    pub(crate) fn new(headers: &[Header]) -> TableData {
        TableData {
            headers: headers.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Writes the table as CSV (RFC 4180, spreadsheet-safe text, URLs exact: see
    /// [`csv_cell`]); returns the number of data rows.
    pub fn write_csv<W: Write>(&self, out: W) -> csv::Result<usize> {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(self.headers.iter().map(|h| h.title))?;
        for row in &self.rows {
            w.write_record(row.iter().zip(&self.headers).map(|(c, h)| {
                match c {
                    Cell::Text(s) => csv_cell(s, h.kind),
                    other => other.as_text(),
                }
                .into_owned()
            }))?;
        }
        w.flush()?;
        Ok(self.rows.len())
    }
}
