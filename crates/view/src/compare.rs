//! Two opened audits compared: the diff crate's sections as app tables.

use crate::open::OpenAudit;
use crate::table::column_key;
use crate::types::{Cell, Column, ColumnKind, CountItem, DiffSection, DiffView};
use audit::export::ColumnType;

/// A column holds numbers when every non-empty cell is an integer.
fn numeric(rows: &[Vec<String>], column: usize) -> bool {
    let mut any = false;
    for r in rows {
        match r.get(column).map(String::as_str) {
            None | Some("") => {}
            Some(s) if s.parse::<i64>().is_ok() => any = true,
            Some(_) => return false,
        }
    }
    any
}

/// What changed from `old` to `new`.
pub fn compare(old: &OpenAudit, new: &OpenAudit) -> DiffView {
    let d = diff::diff((old.input(), old.analysis()), (new.input(), new.analysis()));
    let sections = d
        .sections()
        .into_iter()
        .map(|t| {
            let kinds: Vec<ColumnKind> = (0..t.headers.len())
                .map(|i| {
                    if t.headers[i].kind == ColumnType::Url {
                        ColumnKind::Url
                    } else if numeric(&t.rows, i) {
                        ColumnKind::Number
                    } else {
                        ColumnKind::Text
                    }
                })
                .collect();
            let rows: Vec<Vec<Cell>> = t
                .rows
                .iter()
                .map(|r| {
                    r.iter()
                        .zip(&kinds)
                        .map(|(c, k)| match (k, c.parse::<i64>()) {
                            (_, _) if c.is_empty() => Cell::Empty,
                            (ColumnKind::Number, Ok(n)) => Cell::Number(n),
                            _ => Cell::Text(c.clone()),
                        })
                        .collect()
                })
                .collect();
            DiffSection {
                key: t.key.to_owned(),
                title: t.title.to_owned(),
                columns: t
                    .headers
                    .iter()
                    .zip(&kinds)
                    .map(|(h, k)| Column {
                        key: column_key(h.title),
                        title: h.title.to_owned(),
                        kind: *k,
                    })
                    .collect(),
                total: rows.len() as u32,
                rows,
            }
        })
        .collect();
    DiffView {
        old_audit: old.id(),
        new_audit: new.id(),
        summary: d
            .summary()
            .into_iter()
            .map(|(label, count)| CountItem {
                label: label.to_owned(),
                count: count as u32,
            })
            .collect(),
        sections,
        warnings: warnings(old, new, &d.warnings),
    }
}

/// The diff's coverage warnings, with each audit's recorded stop (a limit or a budget).
fn warnings(old: &OpenAudit, new: &OpenAudit, coverage: &[String]) -> Vec<String> {
    let mut out: Vec<String> = [("older", old), ("newer", new)]
        .into_iter()
        .filter_map(|(which, a)| {
            let stop = a.audit().stop.as_ref()?;
            Some(format!(
                "the {which} audit (audit {}) stopped at {stop}",
                a.id()
            ))
        })
        .collect();
    out.extend(coverage.iter().cloned());
    out
}
