//! A URL's inlinks and outlinks page by page, and links as CSV: one URL's (the detail
//! pane's export) and every link of an audit ("All inlinks" ordered by the linked URL,
//! "All outlinks" ordered by the linking page).

use crate::error::ViewError;
use crate::types::{LINK_PAGE_MAX, LinkDirection, LinkPage};
use crate::url_detail::UrlIndex;
use audit::export::{ColumnType, csv_cell};
use audit::{AuditInput, LinkRow, UrlId};
use std::io::Write;
use std::path::Path;

/// The file `dustpan export` writes every link into, ordered for `direction`.
pub fn all_links_file(direction: LinkDirection) -> &'static str {
    match direction {
        LinkDirection::Inlinks => "all_inlinks.csv",
        LinkDirection::Outlinks => "all_outlinks.csv",
    }
}

/// The columns of a links CSV file, as SEO tools name them, with what each holds.
pub const LINK_HEADERS: [(&str, ColumnType); 7] = [
    ("Source", ColumnType::Url),
    ("Destination", ColumnType::Url),
    ("Anchor", ColumnType::Text),
    ("Link Position", ColumnType::Text),
    ("Type", ColumnType::Text),
    ("Follow", ColumnType::Text),
    ("Status Code", ColumnType::Number),
];

/// A page of the links of `id`: at most `limit` (capped at [`LINK_PAGE_MAX`]) from
/// `offset` on, with the total.
pub fn link_page(
    input: &AuditInput,
    index: &UrlIndex,
    id: UrlId,
    direction: LinkDirection,
    offset: u32,
    limit: u32,
) -> LinkPage {
    let rows = index.link_rows(id, direction);
    let limit = limit.min(LINK_PAGE_MAX) as usize;
    LinkPage {
        url: index.url(input, id).to_owned(),
        direction,
        offset,
        total: rows.len() as u32,
        links: rows
            .iter()
            .skip(offset as usize)
            .take(limit)
            .map(|&row| index.link_view(input, row, direction))
            .collect(),
    }
}

/// Writes link rows of `input.links` as CSV (see [`LINK_HEADERS`]); text spreadsheet-safe,
/// URLs exact, like every table of the export. Answers the rows written.
fn write_rows<W: Write>(
    input: &AuditInput,
    index: &UrlIndex,
    rows: impl Iterator<Item = LinkRow>,
    out: W,
) -> csv::Result<usize> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(LINK_HEADERS.iter().map(|(title, _)| *title))?;
    let mut n = 0;
    for l in rows {
        let l = &l;
        let anchor = l.to.and_then(|to| index.anchor(input, l.from, to));
        let status = l.to.and_then(|to| index.status(input, to));
        let cells: [String; 7] = [
            index.url(input, l.from).to_owned(),
            l.to.map_or_else(String::new, |to| index.url(input, to).to_owned()),
            anchor.unwrap_or_default().to_owned(),
            l.region.map_or("", |r| r.as_str()).to_owned(),
            l.kind.found_via_words(l.nofollow).to_owned(),
            if l.nofollow { "false" } else { "true" }.to_owned(),
            status.map_or_else(String::new, |s| s.to_string()),
        ];
        w.write_record(
            cells
                .iter()
                .zip(LINK_HEADERS)
                .map(|(cell, (_, kind))| csv_cell(cell, kind).into_owned()),
        )?;
        n += 1;
    }
    w.flush()?;
    Ok(n)
}

/// Writes the inlinks or outlinks of `id` as CSV to `path`; answers the rows written.
pub fn export_url_links(
    input: &AuditInput,
    index: &UrlIndex,
    id: UrlId,
    direction: LinkDirection,
    path: &Path,
) -> Result<usize, ViewError> {
    let file = std::fs::File::create(path).map_err(|e| ViewError::io(path, e))?;
    let rows = index
        .link_rows(id, direction)
        .iter()
        .filter_map(|&row| input.links.get(row as usize));
    write_rows(input, index, rows, std::io::BufWriter::new(file))
        .map_err(|e| ViewError::Csv(path.display().to_string(), e))
}

/// The rows of every link, for "All inlinks" grouped by the linked URL (in the order
/// the audit found the URLs; links whose href did not resolve left out) or for "All
/// outlinks" grouped by the linking page; within a group, in stored order.
fn all_rows(input: &AuditInput, index: &UrlIndex, direction: LinkDirection) -> Vec<u32> {
    input
        .urls
        .iter()
        .flat_map(|u| index.link_rows(u.id, direction).iter().copied())
        .collect()
}

/// Writes every link of the audit as CSV to `path` ("All inlinks" or "All outlinks");
/// answers the rows written.
pub fn export_all_links(
    input: &AuditInput,
    index: &UrlIndex,
    direction: LinkDirection,
    path: &Path,
) -> Result<usize, ViewError> {
    let file = std::fs::File::create(path).map_err(|e| ViewError::io(path, e))?;
    // Every row read in one pass (the rows are asked for out of order).
    let links: Vec<LinkRow> = input.links.iter().collect();
    let rows = all_rows(input, index, direction)
        .into_iter()
        .filter_map(|row| links.get(row as usize).cloned());
    write_rows(input, index, rows, std::io::BufWriter::new(file))
        .map_err(|e| ViewError::Csv(path.display().to_string(), e))
}
