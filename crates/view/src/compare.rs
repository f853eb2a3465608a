//! Two opened audits compared: the diff crate's sections as app tables.

use crate::open::OpenAudit;
use crate::table::{column_key, kind};
use crate::types::{Cell, Column, CountItem, DiffSection, DiffView};
use audit::export::ColumnType;

/// One of the diff's tables as an app section: columns of the kinds the diff states,
/// and in a number column an integer cell as a number (a status column's words, for a
/// URL that got no answer, stay text).
fn section(t: diff::DiffTable) -> DiffSection {
    let rows: Vec<Vec<Cell>> = t
        .rows
        .into_iter()
        .map(|r| {
            r.into_iter()
                .zip(&t.headers)
                .map(|(c, h)| match h.kind {
                    _ if c.is_empty() => Cell::Empty,
                    ColumnType::Number => c.parse::<i64>().map_or(Cell::Text(c), Cell::Number),
                    _ => Cell::Text(c),
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
            .map(|h| Column {
                key: column_key(h.title),
                title: h.title.to_owned(),
                kind: kind(h.kind),
            })
            .collect(),
        total: rows.len() as u32,
        rows,
    }
}

/// What changed from `old` to `new`.
pub fn compare(old: &OpenAudit, new: &OpenAudit) -> DiffView {
    let (old_rules, new_rules) = (crawl_rules(old.audit()), crawl_rules(new.audit()));
    let d = diff::diff_with_rules(
        (old.input(), old.analysis()),
        (new.input(), new.analysis()),
        [&old_rules, &new_rules],
    );
    let sections = d.sections().into_iter().map(section).collect();
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
        warnings: {
            // Why the older audit is partial, besides a recorded limit: it did not run to
            // its end, or it fetched only the URLs listed to it.
            let a = old.audit();
            let list = serde_json::from_str::<serde_json::Value>(&a.config_json)
                .is_ok_and(|c| c.get("list").is_some_and(|l| !l.is_null()));
            let why = [
                (
                    a.status == store::AuditStatus::Cancelled,
                    "it was cancelled before it finished",
                ),
                (
                    a.status == store::AuditStatus::Failed,
                    "it stopped on an error before it finished",
                ),
                (
                    a.status == store::AuditStatus::Running,
                    "it has not finished",
                ),
                (
                    list,
                    "it is a list audit, which fetched only the URLs listed to it",
                ),
            ];
            let mut out: Vec<String> = why
                .into_iter()
                .filter(|(yes, _)| *yes)
                .map(|(_, because)| {
                    format!("the older audit (audit {}) is partial: {because}", old.id())
                })
                .collect();
            out.extend(warnings(old, new, &d.warnings));
            out
        },
    }
}

/// The include / exclude patterns of an audit's stored configuration, for
/// [`diff::diff_with_rules`] (none when it cannot be read).
pub fn crawl_rules(row: &store::Audit) -> diff::CrawlRules {
    crawl::stored_config(row).map_or_else(
        |_| diff::CrawlRules::default(),
        |c| diff::CrawlRules::new(&c.include_patterns, &c.exclude_patterns),
    )
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

impl DiffView {
    /// This diff with rows `offset..offset + limit` of each section kept (each section's
    /// `total` still counts them all), of the section keyed `section` only when one is
    /// named. For readers that page through a long diff (the MCP server).
    pub fn paged(
        mut self,
        section: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<DiffView, crate::ViewError> {
        if let Some(key) = section {
            if !self.sections.iter().any(|s| s.key == key) {
                let keys: Vec<&str> = self.sections.iter().map(|s| s.key.as_str()).collect();
                return Err(crate::ViewError::Invalid(format!(
                    "no diff section {key:?}: one of {}",
                    keys.join(", ")
                )));
            }
            self.sections.retain(|s| s.key == key);
        }
        for s in &mut self.sections {
            let rows = std::mem::take(&mut s.rows);
            s.rows = rows
                .into_iter()
                .skip(offset as usize)
                .take(limit as usize)
                .collect();
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ColumnKind;

    #[test]
    fn a_section_has_the_column_kinds_the_diff_states() {
        let table = diff::AuditDiff {
            urls: vec![
                diff::UrlChange {
                    change: diff::Presence::Added,
                    url: "https://example.com/a".to_owned(),
                    status: "200".to_owned(),
                },
                diff::UrlChange {
                    change: diff::Presence::Added,
                    url: "https://example.com/b".to_owned(),
                    status: "no response (timeout)".to_owned(),
                },
            ],
            ..Default::default()
        }
        .sections()
        .into_iter()
        .find(|t| t.key == "urls")
        .expect("a urls table");
        let s = section(table);
        let kinds: Vec<ColumnKind> = s.columns.iter().map(|c| c.kind).collect();
        assert_eq!(
            kinds,
            [ColumnKind::Text, ColumnKind::Url, ColumnKind::Number]
        );
        assert_eq!(s.rows[0][2], Cell::Number(200));
        assert_eq!(s.rows[1][2], Cell::Text("no response (timeout)".to_owned()));
        assert_eq!(s.total, 2);
    }
}
