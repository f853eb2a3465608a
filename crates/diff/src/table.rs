//! The diff as tables: one per section, shared by the CSV files and the desktop app.

use crate::{AuditDiff, ClusterChange, ClusterChangeKind, FindingRef};
use audit::Action;
use audit::export::{ColumnType, Header, csv_cell};
use std::io::Write;

/// One section of a diff as a table of text cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffTable {
    /// A stable key (`findings`, `clusters`, ...), also the CSV file's name without `.csv`.
    pub key: &'static str,
    /// A title for people.
    pub title: &'static str,
    /// Column headers with what each column holds, stated here for every reader (the
    /// app shows and sorts a column by it, never by its cells): a URL column is written
    /// exactly; a number column holds integers, but for a status column's words where a
    /// URL got no answer (`no response (timeout)`, `not fetched`).
    pub headers: Vec<Header>,
    /// Rows, each with one cell per header.
    pub rows: Vec<Vec<String>>,
}

impl DiffTable {
    /// The CSV file name: `{key}.csv`.
    pub fn file_name(&self) -> String {
        format!("{}.csv", self.key)
    }

    /// Writes the table as CSV (RFC 4180, a header row) as the report's export writes its
    /// cells ([`audit::export::csv_cell`]): URL columns exactly as crawled, other text
    /// spreadsheet-safe.
    pub fn write_csv<W: Write>(&self, out: W) -> csv::Result<()> {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(self.headers.iter().map(|h| h.title))?;
        for row in &self.rows {
            w.write_record(
                row.iter()
                    .zip(&self.headers)
                    .map(|(c, h)| csv_cell(c, h.kind).into_owned()),
            )?;
        }
        w.flush()?;
        Ok(())
    }
}

fn text(title: &'static str) -> Header {
    Header {
        title,
        kind: ColumnType::Text,
    }
}

fn number(title: &'static str) -> Header {
    Header {
        title,
        kind: ColumnType::Number,
    }
}

fn url(title: &'static str) -> Header {
    Header {
        title,
        kind: ColumnType::Url,
    }
}

fn lines(v: &[String]) -> String {
    v.join("\n")
}

fn role(r: audit::Role) -> String {
    r.as_str().to_owned()
}

fn action(a: Action) -> &'static str {
    a.as_str()
}

fn urls(n: usize) -> String {
    if n == 1 {
        "1 URL".to_owned()
    } else {
        format!("{n} URLs")
    }
}

/// "gained 3 URLs; preferred URL changed; 2 URLs now redirect to the preferred URL".
fn describe(c: &ClusterChange) -> String {
    let mut parts = vec![match c.kind {
        ClusterChangeKind::Formed => format!("formed with {}", urls(c.new_size)),
        ClusterChangeKind::Dissolved => format!("dissolved (had {})", urls(c.old_size)),
        ClusterChangeKind::Grew => format!("gained {}", urls(c.added.len())),
        ClusterChangeKind::Shrank => format!("lost {}", urls(c.removed.len())),
        ClusterChangeKind::Regrouped => format!(
            "gained {}, lost {}",
            urls(c.added.len()),
            urls(c.removed.len())
        ),
        ClusterChangeKind::Changed => "same URLs".to_owned(),
    }];
    if c.preferred_changed() {
        parts.push("preferred URL changed".to_owned());
    }
    let redirecting = c.now_redirecting();
    if redirecting > 0 {
        parts.push(format!(
            "{} now {} to the preferred URL",
            urls(redirecting),
            if redirecting == 1 {
                "redirects"
            } else {
                "redirect"
            }
        ));
    }
    let other = c.members.len() - redirecting;
    if other > 0 {
        parts.push(format!("{} changed role or fix", urls(other)));
    }
    parts.join("; ")
}

fn finding_row(change: &str, f: &FindingRef) -> Vec<String> {
    vec![
        change.to_owned(),
        f.severity.as_str().to_owned(),
        f.code.clone(),
        f.title.clone(),
        f.summary.clone(),
        lines(&f.urls),
        f.key.clone(),
    ]
}

/// An optional URL as a cell: empty when there is none.
fn opt(s: &Option<String>) -> String {
    s.clone().unwrap_or_default()
}

impl AuditDiff {
    /// Every section as a table, in a fixed order, empty ones included.
    pub fn sections(&self) -> Vec<DiffTable> {
        vec![
            self.findings_table(),
            self.clusters_table(),
            self.members_table(),
            self.preferred_table(),
            self.responses_table(),
            self.not_compared_table(),
            self.canonicals_table(),
            self.urls_table(),
            self.sitemap_table(),
        ]
    }

    /// `findings`: the findings new, resolved and on URLs not crawled this time.
    fn findings_table(&self) -> DiffTable {
        DiffTable {
            key: "findings",
            title: "Findings new and resolved",
            headers: vec![
                text("Change"),
                text("Severity"),
                text("Finding"),
                text("Title"),
                text("Summary"),
                url("Addresses"),
                text("Key"),
            ],
            rows: self
                .findings
                .new
                .iter()
                .map(|f| finding_row("new", f))
                .chain(
                    self.findings
                        .resolved
                        .iter()
                        .map(|f| finding_row("resolved", f)),
                )
                .chain(
                    self.findings
                        .not_crawled
                        .iter()
                        .map(|f| finding_row("not crawled", f)),
                )
                .chain(
                    self.findings
                        .not_in_older
                        .iter()
                        .map(|f| finding_row("not in the older audit", f)),
                )
                .collect(),
        }
    }

    /// `clusters`: the clusters formed, changed and dissolved.
    fn clusters_table(&self) -> DiffTable {
        DiffTable {
            key: "clusters",
            title: "Clusters formed, changed and dissolved",
            headers: vec![
                text("Change"),
                url("Preferred URL"),
                url("Previous preferred URL"),
                number("URLs before"),
                number("URLs now"),
                text("What changed"),
                url("URLs added"),
                url("URLs removed"),
            ],
            rows: self
                .clusters
                .iter()
                .map(|c| (c.kind.as_str(), c))
                .chain(
                    self.clusters_not_comparable
                        .iter()
                        .map(|c| ("not comparable: one audit did not fetch its URLs", c)),
                )
                .map(|(change, c)| {
                    vec![
                        change.to_owned(),
                        opt(&c.new_preferred),
                        opt(&c.old_preferred),
                        c.old_size.to_string(),
                        c.new_size.to_string(),
                        describe(c),
                        lines(&c.added),
                        lines(&c.removed),
                    ]
                })
                .collect(),
        }
    }

    /// `cluster_members`: the URLs that joined or left a cluster or changed role or fix.
    fn members_table(&self) -> DiffTable {
        let mut member_rows = Vec::new();
        for c in &self.clusters {
            let label = c.label();
            let row = |url: &str, change: &str, roles: [String; 2], fixes: [&str; 2]| {
                let [rb, rn] = roles;
                let [fb, fnow] = fixes;
                vec![
                    label.to_owned(),
                    url.to_owned(),
                    change.to_owned(),
                    rb,
                    rn,
                    fb.to_owned(),
                    fnow.to_owned(),
                ]
            };
            for u in &c.added {
                member_rows.push(row(u, "joined", Default::default(), ["", ""]));
            }
            for u in &c.removed {
                member_rows.push(row(u, "left", Default::default(), ["", ""]));
            }
            for m in &c.members {
                member_rows.push(row(
                    &m.url,
                    "role or fix changed",
                    [role(m.old_role), role(m.new_role)],
                    [action(m.old_action), action(m.new_action)],
                ));
            }
        }
        DiffTable {
            key: "cluster_members",
            title: "Cluster members that joined, left or changed role",
            headers: vec![
                url("Cluster"),
                url("URL"),
                text("Change"),
                text("Role before"),
                text("Role now"),
                text("Fix before"),
                text("Fix now"),
            ],
            rows: member_rows,
        }
    }

    /// `preferred`: the clusters whose preferred URL changed.
    fn preferred_table(&self) -> DiffTable {
        DiffTable {
            key: "preferred",
            title: "Preferred URLs that changed",
            headers: vec![
                url("Previous preferred URL"),
                url("Preferred URL now"),
                number("URLs now"),
            ],
            rows: self
                .preferred_changes()
                .map(|c| {
                    vec![
                        opt(&c.old_preferred),
                        opt(&c.new_preferred),
                        c.new_size.to_string(),
                    ]
                })
                .collect(),
        }
    }

    /// `responses`: the status codes and redirects that changed.
    fn responses_table(&self) -> DiffTable {
        DiffTable {
            key: "responses",
            title: "Status codes and redirects that changed",
            headers: vec![
                url("URL"),
                number("Status before"),
                number("Status now"),
                url("Redirect before"),
                url("Redirect now"),
            ],
            rows: self
                .responses
                .iter()
                .map(|r| {
                    vec![
                        r.url.clone(),
                        r.old_status.clone(),
                        r.new_status.clone(),
                        opt(&r.old_target),
                        opt(&r.new_target),
                    ]
                })
                .collect(),
        }
    }

    /// `not_compared`: the URLs one audit's own configuration kept out, with why.
    fn not_compared_table(&self) -> DiffTable {
        DiffTable {
            key: "not_compared",
            title: "URLs not compared: an audit's own crawl rules or limits kept them out",
            headers: vec![
                url("URL"),
                number("Status before"),
                number("Status now"),
                text("Why not compared"),
            ],
            rows: self
                .not_compared
                .iter()
                .map(|n| {
                    vec![
                        n.url.clone(),
                        n.old_status.clone(),
                        n.new_status.clone(),
                        n.why.clone(),
                    ]
                })
                .collect(),
        }
    }

    /// `canonicals`: the canonicals that changed.
    fn canonicals_table(&self) -> DiffTable {
        DiffTable {
            key: "canonicals",
            title: "Canonicals that changed",
            headers: vec![url("URL"), url("Canonical before"), url("Canonical now")],
            rows: self
                .canonicals
                .iter()
                .map(|c| vec![c.url.clone(), lines(&c.old), lines(&c.new)])
                .collect(),
        }
    }

    /// `urls`: the URLs added to and removed from the crawl.
    fn urls_table(&self) -> DiffTable {
        DiffTable {
            key: "urls",
            title: "URLs added to and removed from the crawl",
            headers: vec![text("Change"), url("URL"), number("Status")],
            rows: self
                .urls
                .iter()
                .map(|u| {
                    vec![
                        u.change.as_str().to_owned(),
                        u.url.clone(),
                        u.status.clone(),
                    ]
                })
                .collect(),
        }
    }

    /// `sitemap_entries`: the sitemap entries added and removed.
    fn sitemap_table(&self) -> DiffTable {
        DiffTable {
            key: "sitemap_entries",
            title: "Sitemap entries added and removed",
            headers: vec![text("Change"), url("Sitemap"), url("URL")],
            rows: self
                .sitemap_entries
                .iter()
                .map(|e| {
                    vec![
                        e.change.as_str().to_owned(),
                        e.sitemap.clone(),
                        e.url.clone(),
                    ]
                })
                .collect(),
        }
    }
}
