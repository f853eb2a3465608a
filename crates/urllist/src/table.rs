//! CSV files with a URL column: `Address` (Screaming Frog's exports), `URL` or `Loc`, in
//! any case, in a header among the first lines (an export may start with a title line).

use std::io::Read;

use crate::SearchConsole;
use crate::input::{Counted, HEADER_LINES, last_crawled_column, url_column};
use crate::{Collector, Options, RejectKind, to_url};

/// Longest CSV record read, in bytes: past it the rest of the file is not read.
pub(crate) const MAX_RECORD_BYTES: u64 = 1 << 20;

/// Reads a CSV file into `out`.
pub(crate) fn read(reader: impl Read, delimiter: u8, options: &Options, out: &mut Collector) {
    let (counted, count) = Counted::new(reader, MAX_RECORD_BYTES, true);
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(counted);
    let mut record = csv::ByteRecord::new();
    let mut column = None;
    // A Search Console export: its `Last crawled` column.
    let mut crawled = None;
    let mut records = 0usize;
    loop {
        count.reset_record();
        match csv.read_byte_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                let line = count.line_at(csv.position().byte());
                out.stopped(line, &std::io::Error::other(e.to_string()));
                break;
            }
        }
        records += 1;
        // The CSV reader's own line numbers go wrong after CRLF line ends: they are
        // counted from the record's byte offset instead.
        let line = count.line_at(record.position().map_or(0, csv::Position::byte));
        let text = || {
            let cells: Vec<String> = record
                .iter()
                .map(|c| String::from_utf8_lossy(c).into_owned())
                .collect();
            cells.join(&char::from(delimiter).to_string())
        };
        let Some(col) = column else {
            let cells: Vec<String> = record
                .iter()
                .map(|c| String::from_utf8_lossy(c).into_owned())
                .collect();
            column = url_column(&cells);
            crawled = column.and(last_crawled_column(&cells));
            if column.is_none() && records > HEADER_LINES {
                out.reject(
                    line,
                    RejectKind::NoUrlCell,
                    "no header with a URL column (Address, URL or Loc) before this row".into(),
                    text().as_bytes(),
                );
            }
            continue;
        };
        let Some(cell) = record
            .get(col)
            .filter(|c| !c.iter().all(u8::is_ascii_whitespace))
        else {
            out.reject(
                line,
                RejectKind::NoUrlCell,
                "the URL column is empty".into(),
                text().as_bytes(),
            );
            continue;
        };
        let Ok(cell) = std::str::from_utf8(cell) else {
            out.reject(
                line,
                RejectKind::NotUtf8,
                "the URL cell is not UTF-8 text".into(),
                cell,
            );
            continue;
        };
        match to_url(cell.trim(), options.site.as_ref()) {
            Ok(url) if crawled.is_some() => {
                let last_crawled = crawled
                    .and_then(|c| record.get(c))
                    .and_then(|c| crate::console::field(&String::from_utf8_lossy(c)));
                let facts = SearchConsole {
                    reasons: options.reason.iter().cloned().collect(),
                    last_crawled,
                    ..SearchConsole::default()
                };
                out.console(&url, line, facts);
            }
            Ok(url) => out.url(&url, line),
            Err((kind, reason)) => out.reject(line, kind, reason, cell.as_bytes()),
        }
    }
    out.list.lines = count.lines();
}
