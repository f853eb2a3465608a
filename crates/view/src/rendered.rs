//! Raw and rendered side by side in the Pages and Canonicals tables: for an audit that
//! rendered its pages, each rendered value (canonical, meta robots, title, first `<h1>`,
//! word count) sits beside the served HTML's, and the render's outcome closes the Pages
//! row. An audit that did not render keeps its tables as exported.

use audit::export::{Cell, ColumnType, Header, TableData};
use audit::{AuditInput, RenderedPage, UrlId};
use std::collections::HashMap;

/// Header of the Pages column with the rendered title.
pub const RENDERED_TITLE: &str = "Rendered Title";
/// Header of the rendered first `<h1>`.
pub const RENDERED_H1: &str = "Rendered H1";
/// Header of the rendered robots metas.
pub const RENDERED_META_ROBOTS: &str = "Rendered Meta Robots";
/// Header of the rendered canonical (Pages and Canonicals).
pub const RENDERED_CANONICAL: &str = "Rendered Canonical";
/// Header of the rendered word count.
pub const RENDERED_WORD_COUNT: &str = "Rendered Word Count";
/// Header of the render's outcome.
pub const RENDER_OUTCOME: &str = "Render Outcome";

/// What a rendered canonical row of the Canonicals table says in its Source column when
/// the served HTML declares none.
const RENDERED_ONLY: &str = "rendered DOM only";

/// The rendered side of an audit, by URL id.
struct Renders<'a> {
    page: HashMap<UrlId, &'a RenderedPage>,
    url: HashMap<UrlId, &'a str>,
}

impl<'a> Renders<'a> {
    fn new(input: &'a AuditInput) -> Renders<'a> {
        Renders {
            page: input.renders.iter().map(|r| (r.url_id, r)).collect(),
            url: input.urls.iter().map(|u| (u.id, u.found_url())).collect(),
        }
    }

    /// The canonical a rendered page's head names: its target's URL, else the href as
    /// written (`None`: none, or the page's DOM was not read).
    fn canonical(&self, r: &RenderedPage) -> Option<String> {
        if !r.outcome.has_dom() {
            return None;
        }
        if let Some(url) = r.canonical.and_then(|t| self.url.get(&t)) {
            return Some((*url).to_owned());
        }
        r.canonical_href.clone().filter(|h| !h.is_empty())
    }
}

fn text(v: Option<String>) -> Cell {
    v.map_or(Cell::Empty, Cell::from)
}

/// Inserts a column titled `title` after the column titled `after` (at the end when
/// there is none), its cells given per row.
fn insert_after(
    data: &mut TableData,
    after: &str,
    title: &'static str,
    kind: ColumnType,
    cells: impl IntoIterator<Item = Cell>,
) {
    let at = data
        .headers
        .iter()
        .position(|h| h.title == after)
        .map_or(data.headers.len(), |p| p + 1);
    data.headers.insert(at, Header { title, kind });
    let mut cells = cells.into_iter();
    for row in &mut data.rows {
        row.insert(at.min(row.len()), cells.next().unwrap_or(Cell::Empty));
    }
}

/// The Pages table (one row per URL, in the input's order) with the rendered columns,
/// when the audit rendered.
pub(crate) fn pages(data: &mut TableData, input: &AuditInput) {
    if input.renders.is_empty() || data.rows.len() != input.urls.len() {
        return;
    }
    let r = Renders::new(input);
    let of = |f: &dyn Fn(&RenderedPage) -> Cell| -> Vec<Cell> {
        input
            .urls
            .iter()
            .map(|u| r.page.get(&u.id).map_or(Cell::Empty, |p| f(p)))
            .collect()
    };
    let dom = |p: &RenderedPage, v: Cell| if p.outcome.has_dom() { v } else { Cell::Empty };
    let title = of(&|p| dom(p, text(p.title.clone())));
    let h1 = of(&|p| dom(p, text(p.h1.clone())));
    let robots = of(&|p| dom(p, text(p.meta_robots.clone())));
    let canonical = of(&|p| text(r.canonical(p)));
    let words = of(&|p| dom(p, p.word_count.map_or(Cell::Empty, |w| Cell::Int(w.into()))));
    let outcome = of(&|p| Cell::from(p.outcome.as_str()));
    insert_after(data, "Title 1", RENDERED_TITLE, ColumnType::Text, title);
    insert_after(data, "H1-1", RENDERED_H1, ColumnType::Text, h1);
    insert_after(
        data,
        "Meta Robots 1",
        RENDERED_META_ROBOTS,
        ColumnType::Text,
        robots,
    );
    insert_after(
        data,
        "Canonical Link Element 1",
        RENDERED_CANONICAL,
        ColumnType::Url,
        canonical,
    );
    insert_after(
        data,
        "Word Count",
        RENDERED_WORD_COUNT,
        ColumnType::Number,
        words,
    );
    insert_after(data, "Found Via", RENDER_OUTCOME, ColumnType::Text, outcome);
}

/// The Canonicals table (one row per declaration, in the input's order) with the
/// rendered canonical of each row's page beside the declared one, and a row for each
/// rendered page whose rendered head names a canonical its served HTML does not
/// declare, when the audit rendered.
pub(crate) fn canonicals(data: &mut TableData, input: &AuditInput) {
    if input.renders.is_empty() || data.rows.len() != input.canonicals.len() {
        return;
    }
    let r = Renders::new(input);
    let rendered = |page: UrlId| r.page.get(&page).and_then(|p| r.canonical(p));
    let cells: Vec<Cell> = input
        .canonicals
        .iter()
        .map(|c| text(rendered(c.page)))
        .collect();
    insert_after(
        data,
        "Canonical Link Element",
        RENDERED_CANONICAL,
        ColumnType::Url,
        cells,
    );
    let declared: std::collections::HashSet<UrlId> =
        input.canonicals.iter().map(|c| c.page).collect();
    let width = data.headers.len();
    let source = data.headers.iter().position(|h| h.title == "Source");
    let column = data
        .headers
        .iter()
        .position(|h| h.title == RENDERED_CANONICAL);
    for p in &input.renders {
        let (Some(canonical), Some(url)) = (r.canonical(p), r.url.get(&p.url_id)) else {
            continue;
        };
        if declared.contains(&p.url_id) {
            continue;
        }
        let mut row = vec![Cell::Empty; width];
        row[0] = Cell::from(*url);
        if let Some(s) = source {
            row[s] = RENDERED_ONLY.into();
        }
        if let Some(c) = column {
            row[c] = Cell::from(canonical);
        }
        data.rows.push(row);
    }
}

#[cfg(test)]
mod tests {
    use crate::table::columns;
    use crate::tables::build;
    use crate::types::TableName;
    use audit::{
        Analysis, AuditInput, CanonicalRow, DeclarationSource, FetchRow, RenderOutcome,
        RenderedPage, UrlRow,
    };

    fn url(id: u32, path: &str) -> UrlRow {
        UrlRow {
            id,
            url: format!("https://app.example{path}"),
            ..UrlRow::default()
        }
    }

    /// Three pages: `/a` declares itself canonical and its script changes the canonical
    /// to `/`; `/b` declares none and its script adds one; `/c` timed out.
    fn rendered_audit() -> AuditInput {
        let mut input = AuditInput {
            urls: vec![url(1, "/"), url(2, "/a"), url(3, "/b"), url(4, "/c")],
            ..AuditInput::default()
        };
        for id in 1..=4 {
            input.fetches.push(FetchRow {
                url_id: id,
                status: Some(200),
                content_type: Some("text/html".into()),
                title: Some("App".into()),
                word_count: Some(3),
                ..FetchRow::default()
            });
        }
        input.canonicals.push(CanonicalRow {
            page: 2,
            position: 0,
            target: Some(2),
            href_raw: "https://app.example/a".into(),
            source: DeclarationSource::LinkElement,
            in_head: true,
        });
        input.renders = vec![
            RenderedPage {
                url_id: 2,
                title: Some("Page A".into()),
                h1: Some("A".into()),
                meta_robots: Some("robots: noindex".into()),
                noindex: true,
                canonical: Some(1),
                canonical_href: Some("/".into()),
                word_count: Some(250),
                ..RenderedPage::default()
            },
            RenderedPage {
                url_id: 3,
                title: Some("Page B".into()),
                canonical: Some(3),
                canonical_href: Some("/b".into()),
                word_count: Some(120),
                ..RenderedPage::default()
            },
            RenderedPage {
                url_id: 4,
                outcome: RenderOutcome::Timeout,
                title: Some("never read".into()),
                ..RenderedPage::default()
            },
        ];
        input
    }

    fn cell(data: &audit::export::TableData, row: usize, key: &str) -> String {
        let at = columns(data)
            .iter()
            .position(|c| c.key == key)
            .unwrap_or_else(|| panic!("no column {key}"));
        data.rows[row][at].as_text().into_owned()
    }

    #[test]
    fn the_pages_table_shows_each_rendered_value_beside_the_raw_one() {
        let input = rendered_audit();
        let (data, keys) = build(TableName::Pages, &input, &Analysis::default());
        let keys_of: Vec<String> = columns(&data).into_iter().map(|c| c.key).collect();
        let after = |raw: &str, rendered: &str| {
            let at = keys_of.iter().position(|k| k == raw).unwrap();
            assert_eq!(keys_of[at + 1], rendered, "{keys_of:?}");
        };
        after("title_1", "rendered_title");
        after("h1_1", "rendered_h1");
        after("meta_robots_1", "rendered_meta_robots");
        after("canonical_link_element_1", "rendered_canonical");
        after("word_count", "rendered_word_count");
        after("found_via", "render_outcome");
        assert_eq!(keys.map(|k| k.len()), Some(4));
        assert!(data.rows.iter().all(|r| r.len() == data.headers.len()));
        // `/a`: the raw canonical is itself, the rendered one the home page.
        assert_eq!(
            cell(&data, 1, "canonical_link_element_1"),
            "https://app.example/a"
        );
        assert_eq!(cell(&data, 1, "rendered_canonical"), "https://app.example/");
        assert_eq!(cell(&data, 1, "title_1"), "App");
        assert_eq!(cell(&data, 1, "rendered_title"), "Page A");
        assert_eq!(cell(&data, 1, "rendered_h1"), "A");
        assert_eq!(cell(&data, 1, "rendered_meta_robots"), "robots: noindex");
        assert_eq!(cell(&data, 1, "rendered_word_count"), "250");
        assert_eq!(cell(&data, 1, "render_outcome"), "rendered");
        // The home page was not rendered; `/c` timed out: no rendered value is shown.
        assert_eq!(cell(&data, 0, "rendered_title"), "");
        assert_eq!(cell(&data, 0, "render_outcome"), "");
        assert_eq!(cell(&data, 3, "rendered_title"), "");
        assert_eq!(cell(&data, 3, "render_outcome"), "timeout");
    }

    #[test]
    fn the_canonicals_table_adds_the_rendered_canonical_and_script_only_ones() {
        let input = rendered_audit();
        let (data, _) = build(TableName::Canonicals, &input, &Analysis::default());
        let keys: Vec<String> = columns(&data).into_iter().map(|c| c.key).collect();
        assert_eq!(
            keys.join(" "),
            "address canonical_link_element rendered_canonical source in_head \
             canonical_status_code self_referencing"
        );
        assert_eq!(data.rows.len(), 2, "{:?}", data.rows);
        assert_eq!(cell(&data, 0, "address"), "https://app.example/a");
        assert_eq!(cell(&data, 0, "rendered_canonical"), "https://app.example/");
        assert_eq!(cell(&data, 1, "address"), "https://app.example/b");
        assert_eq!(cell(&data, 1, "canonical_link_element"), "");
        assert_eq!(
            cell(&data, 1, "rendered_canonical"),
            "https://app.example/b"
        );
        assert_eq!(cell(&data, 1, "source"), "rendered DOM only");
    }

    #[test]
    fn an_audit_that_did_not_render_keeps_the_exported_columns() {
        let mut input = rendered_audit();
        input.renders.clear();
        for name in [TableName::Pages, TableName::Canonicals] {
            let (data, _) = build(name, &input, &Analysis::default());
            assert!(
                columns(&data).iter().all(|c| !c.key.starts_with("render")),
                "{name:?}"
            );
        }
    }
}
