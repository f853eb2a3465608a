//! Client-ready output: an Excel workbook with one sheet per table, and a self-contained
//! HTML report of the overview and the issues.
//!
//! The workbook writes every cell as a value (text as text, integers as numbers, never
//! a formula), so crawled text that looks like a formula stays text. The HTML report
//! carries no script and loads nothing: its styles are inline, its content security
//! policy allows no script, no image and no connection, and every crawled string in it
//! is escaped ([`escape_html`]).

use crate::error::ViewError;
use crate::tables;
use crate::types::{IssueView, Overview, TableName};
use audit::export::{Cell, ColumnType, TableData};
use audit::{Analysis, AuditInput};
use rust_xlsxwriter::{Format, Workbook};
use std::fmt::Write as _;
use std::path::Path;

/// The most data rows a sheet holds (Excel's row limit less the header row); a table
/// with more is cut there, and its sheet says so in its last row.
pub const SHEET_ROWS: usize = 1_048_575 - 1;

/// The most characters Excel keeps in one cell; a longer value is cut there.
const CELL_CHARS: usize = 32_767;

/// One sheet of a written workbook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sheet {
    /// Its name (the table's file name without `.csv`, at most 31 characters).
    pub name: String,
    /// Data rows written.
    pub rows: usize,
    /// Rows of the table left out at the sheet's row limit.
    pub cut: usize,
}

/// The sheet name of a table: its CSV file's name without `.csv`.
pub fn sheet_name(name: TableName) -> String {
    let file = tables::file_name(name);
    let stem = file.strip_suffix(".csv").unwrap_or(file);
    stem.chars().take(31).collect()
}

/// A cell's text as Excel keeps it: at most [`CELL_CHARS`] characters.
fn cell_text(text: &str) -> &str {
    match text.char_indices().nth(CELL_CHARS) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// Writes the workbook: one sheet per table the app shows (the access-log table only
/// for an audit of an access log; the External table's rows are `external`, built from
/// the audit's own hosts as [`crate::external::external_links`] does), a bold frozen
/// header row with filters on every sheet. Answers the sheets written.
pub fn export_workbook(
    input: &AuditInput,
    analysis: &Analysis,
    external: &TableData,
    path: &Path,
) -> Result<Vec<Sheet>, ViewError> {
    let fail = |e| ViewError::Workbook(path.display().to_string(), e);
    let mut book = Workbook::new();
    let bold = Format::new().set_bold();
    let mut sheets = Vec::new();
    for name in TableName::ALL {
        if name == TableName::LogWaste && analysis.log_waste.is_empty() {
            continue;
        }
        let built;
        let data = if name == TableName::External {
            external
        } else {
            built = tables::build(name, input, analysis).0;
            &built
        };
        let sheet = book.add_worksheet();
        let title = sheet_name(name);
        sheet.set_name(&title).map_err(fail)?;
        for (col, h) in data.headers.iter().enumerate() {
            let col = col as u16;
            sheet
                .write_string_with_format(0, col, h.title, &bold)
                .map_err(fail)?;
            let width = match h.kind {
                ColumnType::Url => 60.0,
                ColumnType::Number => 12.0,
                ColumnType::Text => 24.0,
            };
            sheet.set_column_width(col, width).map_err(fail)?;
        }
        let written = data.rows.len().min(SHEET_ROWS);
        for (r, row) in data.rows.iter().take(written).enumerate() {
            let r = r as u32 + 1;
            for (col, cell) in row.iter().enumerate() {
                let col = col as u16;
                match cell {
                    Cell::Text(s) => {
                        sheet.write_string(r, col, cell_text(s)).map_err(fail)?;
                    }
                    // Integers above 2^53 lose their last digits as numbers: text then.
                    Cell::Int(n) if n.unsigned_abs() < (1 << 53) => {
                        sheet.write_number(r, col, *n as f64).map_err(fail)?;
                    }
                    Cell::Int(n) => {
                        sheet.write_string(r, col, n.to_string()).map_err(fail)?;
                    }
                    Cell::Empty => {}
                }
            }
        }
        let cut = data.rows.len() - written;
        if cut > 0 {
            let note = format!(
                "{cut} more rows are not in this sheet (Excel's row limit): the CSV export has them all"
            );
            sheet
                .write_string(written as u32 + 1, 0, note)
                .map_err(fail)?;
        }
        if !data.headers.is_empty() {
            let last = data.headers.len() as u16 - 1;
            sheet.autofilter(0, 0, written as u32, last).map_err(fail)?;
        }
        sheet.set_freeze_panes(1, 0).map_err(fail)?;
        sheets.push(Sheet {
            name: title,
            rows: written,
            cut,
        });
    }
    book.save(path).map_err(fail)?;
    Ok(sheets)
}

/// `text` escaped for HTML text and quoted attribute values: `& < > " '` as character
/// references, and control characters other than tab and line breaks (which HTML does
/// not allow) as U+FFFD.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A time in ms since the epoch as `2026-11-27 13:16 UTC`.
fn when(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.strftime("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|_| "an unknown time".to_owned())
}

/// The report's styles: inline, so the file needs nothing beside it.
const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#1d2330}\
h1{font-size:1.5em;margin-bottom:.2em}h2{margin-top:2em;border-bottom:1px solid #ccd}\
.url{font-family:ui-monospace,monospace;word-break:break-all}.muted{color:#5b6275}\
table{border-collapse:collapse;width:100%;margin:.5em 0}th,td{border:1px solid #ccd;padding:.3em .5em;text-align:left;vertical-align:top}\
th{background:#eef0f5}td.n{text-align:right;font-variant-numeric:tabular-nums}\
.error{color:#a40e26;font-weight:600}.warning{color:#8a5a00;font-weight:600}.notice{color:#2f5c9e;font-weight:600}\
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1.5em}dt{color:#5b6275}dd{margin:0}";

/// A two-column table of counts, or "None." when there are none.
fn counts(out: &mut String, caption: &str, items: &[crate::types::CountItem]) {
    let _ = write!(out, "<h3>{}</h3>", escape_html(caption));
    if items.iter().all(|i| i.count == 0) {
        out.push_str("<p class=\"muted\">None.</p>");
        return;
    }
    out.push_str("<table><tbody>");
    for i in items.iter().filter(|i| i.count > 0) {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td></tr>",
            escape_html(&i.label),
            i.count
        );
    }
    out.push_str("</tbody></table>");
}

/// The HTML report of an audit: its overview and every issue with why it matters and
/// how to fix it. One self-contained document, no script.
pub fn html_report(overview: &Overview, issues: &[IssueView]) -> String {
    let o = overview;
    let mut out = String::with_capacity(16 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
    );
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    let _ = write!(
        out,
        "<title>Site audit of {}</title><style>{STYLE}</style></head><body>",
        escape_html(&o.start_url)
    );
    let _ = write!(
        out,
        "<h1>Site audit</h1><p class=\"url\">{}</p>",
        escape_html(&o.start_url)
    );
    let ended = match o.finished_at {
        Some(end) => format!("ended {}", when(end)),
        None => "not ended".to_owned(),
    };
    let _ = write!(
        out,
        "<p class=\"muted\">Audit {}, started {}, {ended}; {}.</p>",
        o.audit_id,
        when(o.started_at),
        escape_html(o.status.as_str())
    );
    out.push_str("<h2>Overview</h2><dl>");
    let mut row = |label: &str, value: String| {
        let _ = write!(out, "<dt>{label}</dt><dd>{value}</dd>");
    };
    row("Pages fetched", o.pages.to_string());
    row("URLs known", o.urls.to_string());
    row("Duplicate clusters", o.clusters.to_string());
    row("URLs in clusters", o.clustered_urls.to_string());
    if let Some(scheme) = &o.preferred_scheme {
        row("Preferred scheme", escape_html(scheme));
    }
    row("Normalization policy", escape_html(&o.policy));
    match &o.stop {
        Some(stop) => row(
            "Coverage",
            format!(
                "The crawl stopped at a limit before it covered the site: {}",
                escape_html(stop)
            ),
        ),
        None => row("Coverage", "The crawl covered the site.".to_owned()),
    }
    out.push_str("</dl>");
    counts(&mut out, "Findings by severity", &o.findings_by_severity);
    counts(&mut out, "Status codes", &o.status_codes);
    counts(&mut out, "Clusters by cause", &o.clusters_by_cause);
    out.push_str("<h2>Issues</h2>");
    if issues.is_empty() {
        out.push_str("<p>No issues found.</p>");
    } else {
        out.push_str(
            "<table><thead><tr><th>Severity</th><th>Issue</th><th>Findings</th><th>URLs</th><th>Why it matters</th><th>How to fix it</th></tr></thead><tbody>",
        );
        for i in issues {
            let severity = i.severity.as_str();
            let _ = write!(
                out,
                "<tr><td class=\"{severity}\">{severity}</td><td><strong>{}</strong><br><span class=\"muted\">{}</span></td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td>{}",
                escape_html(&i.title),
                escape_html(&i.code),
                i.findings,
                i.urls,
                escape_html(&i.why),
                escape_html(&i.how_to_fix),
            );
            if !i.example_fix.is_empty() {
                let _ = write!(
                    out,
                    "<br><span class=\"muted\">For example: {}</span>",
                    escape_html(&i.example_fix)
                );
            }
            out.push_str("</td></tr>");
        }
        out.push_str("</tbody></table>");
    }
    out.push_str("</body></html>\n");
    out
}

/// Writes [`html_report`] to `path`.
pub fn export_html(
    overview: &Overview,
    issues: &[IssueView],
    path: &Path,
) -> Result<(), ViewError> {
    std::fs::write(path, html_report(overview, issues)).map_err(|e| ViewError::io(path, e))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn crawled_text_is_escaped() {
        assert_eq!(
            escape_html("<script>alert('x')</script>&\"\u{1b}[31m"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;\u{FFFD}[31m"
        );
        assert_eq!(escape_html("plain text"), "plain text");
    }

    #[test]
    fn long_cells_are_cut_at_excels_limit() {
        let long = "é".repeat(CELL_CHARS + 5);
        assert_eq!(cell_text(&long).chars().count(), CELL_CHARS);
        assert_eq!(cell_text("short"), "short");
    }

    #[test]
    fn every_table_has_a_valid_sheet_name() {
        let names: std::collections::HashSet<String> =
            TableName::ALL.into_iter().map(sheet_name).collect();
        assert_eq!(names.len(), TableName::ALL.len());
        for n in names {
            assert!(!n.is_empty() && n.chars().count() <= 31, "{n}");
            assert!(!n.contains(['[', ']', ':', '*', '?', '/', '\\']), "{n}");
        }
    }
}
