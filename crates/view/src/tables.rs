//! Every table of an opened audit as typed data: the CSV export's tables from
//! `audit::export`, plus the app's own (one row per cluster, parameters, DUST rules).

use crate::types::{Cause, TableName};
use audit::export::{Cell, ColumnType, Header, Table, TableData, fix_text, role_name};
use audit::{
    Analysis, AuditInput, Cluster, DustRuleKind, EvidenceKind, ParamClass, Role, RuleStatus,
};
use std::collections::BTreeMap;

/// The export table behind an app table, when there is one.
pub fn export_table(name: TableName) -> Option<Table> {
    Some(match name {
        TableName::Pages => Table::Pages,
        TableName::ClusterMembers => Table::Clusters,
        TableName::Findings => Table::Findings,
        TableName::Redirects => Table::Redirects,
        TableName::Canonicals => Table::Canonicals,
        TableName::SitemapEntries => Table::SitemapEntries,
        TableName::LinksToNonPreferred => Table::LinksToNonPreferred,
        TableName::UrlVariants => Table::UrlVariants,
        TableName::DuplicateMetadata => Table::DuplicateMetadata,
        TableName::Clusters
        | TableName::Params
        | TableName::DustRules
        | TableName::IssueUrls
        | TableName::External
        | TableName::LogWaste => {
            return None;
        }
    })
}

/// The file a table is exported under.
pub fn file_name(name: TableName) -> &'static str {
    match export_table(name) {
        Some(t) => t.file_name(),
        None => match name {
            TableName::Clusters => "cluster_list.csv",
            TableName::Params => "params.csv",
            TableName::IssueUrls => "issue_urls.csv",
            TableName::LogWaste => audit::LOG_WASTE_FILE,
            TableName::External => EXTERNAL_FILE,
            _ => "dust_rules.csv",
        },
    }
}

/// The file the External table is exported under.
pub const EXTERNAL_FILE: &str = "external_links.csv";

/// What made most of a cluster's merges, as the report names it.
pub fn cause_name(kind: &EvidenceKind) -> &'static str {
    Cause::of(kind).label()
}

/// A cluster's main cause: the kind of evidence most of its links are (ties go to the
/// stronger kind, the one listed first in [`Cause::ALL`]).
pub fn main_cause(c: &Cluster) -> Cause {
    let mut counts: BTreeMap<usize, usize> = BTreeMap::new();
    for m in &c.members {
        for e in &m.evidence {
            let cause = Cause::of(&e.kind);
            let rank = Cause::ALL.iter().position(|&x| x == cause).unwrap_or(0);
            *counts.entry(rank).or_default() += 1;
        }
    }
    let mut best: Option<(usize, usize)> = None;
    for (rank, n) in counts {
        if best.is_none_or(|(b, _)| n > b) {
            best = Some((n, rank));
        }
    }
    best.map_or(Cause::Other, |(_, rank)| Cause::ALL[rank])
}

/// A cluster's main cause, as the report names it.
pub fn cluster_cause(c: &Cluster) -> &'static str {
    main_cause(c).label()
}

/// The fix of a whole cluster, in one line.
pub fn cluster_fix(c: &Cluster) -> String {
    let redirects = c
        .members
        .iter()
        .filter(|m| m.action == audit::Action::Redirect301)
        .count();
    let canonicals = c
        .members
        .iter()
        .filter(|m| m.action == audit::Action::Canonical)
        .count();
    match (redirects, canonicals) {
        (0, 0) => String::new(),
        (1, 0) => fix_text(audit::Action::Redirect301, &c.preferred_url),
        (0, 1) => fix_text(audit::Action::Canonical, &c.preferred_url),
        _ => {
            let mut parts = Vec::new();
            if redirects > 0 {
                parts.push(format!("301 redirect {redirects} URL(s)"));
            }
            if canonicals > 0 {
                parts.push(format!("add rel=canonical on {canonicals} page(s)"));
            }
            format!("{} to {}", parts.join(", "), c.preferred_url)
        }
    }
}

fn header(title: &'static str, kind: ColumnType) -> Header {
    Header { title, kind }
}

/// One row per cluster.
fn clusters(analysis: &Analysis) -> TableData {
    let rows = analysis
        .clusters
        .iter()
        .map(|c| {
            let duplicates = c
                .members
                .iter()
                .filter(|m| m.role == Role::Duplicate)
                .count();
            vec![
                Cell::Int(i64::from(c.id)),
                Cell::from(c.preferred_url.clone()),
                Cell::Int(c.members.len() as i64),
                Cell::Int(duplicates as i64),
                Cell::from(cluster_cause(c).to_owned()),
                Cell::from(cluster_fix(c)),
            ]
        })
        .collect();
    TableData {
        headers: vec![
            header("Cluster", ColumnType::Number),
            header("Preferred URL", ColumnType::Url),
            header("Members", ColumnType::Number),
            header("Duplicates", ColumnType::Number),
            header("Cause", ColumnType::Text),
            header("Fix", ColumnType::Text),
        ],
        rows,
    }
}

fn param_class(c: ParamClass) -> &'static str {
    match c {
        ParamClass::ChangesContent => "changes content",
        ParamClass::ReordersOnly => "reorders only",
        ParamClass::NeverMatters => "never matters",
        ParamClass::Unknown => "unknown",
    }
}

/// The parameter classifier.
fn params(analysis: &Analysis) -> TableData {
    let rows = analysis
        .params
        .iter()
        .map(|p| {
            vec![
                Cell::from(p.name.clone()),
                Cell::Int(i64::from(p.urls)),
                Cell::from(p.verdict.as_str().to_owned()),
                Cell::from(p.evidence.clone()),
                Cell::from(param_class(p.class).to_owned()),
                Cell::Int(i64::from(p.identical)),
                Cell::Int(i64::from(p.near)),
                Cell::Int(i64::from(p.different)),
            ]
        })
        .collect();
    TableData {
        headers: vec![
            header("Parameter", ColumnType::Text),
            header("URLs", ColumnType::Number),
            header("Verdict", ColumnType::Text),
            header("Evidence", ColumnType::Text),
            header("Pages Compared", ColumnType::Text),
            header("Identical Pairs", ColumnType::Number),
            header("Near Pairs", ColumnType::Number),
            header("Different Pairs", ColumnType::Number),
        ],
        rows,
    }
}

fn rule_status(s: RuleStatus) -> &'static str {
    match s {
        RuleStatus::Confirmed => "confirmed",
        RuleStatus::NeedsValidation => "needs validation",
        RuleStatus::Rejected => "rejected",
    }
}

/// The learned DUST rules.
fn dust_rules(analysis: &Analysis) -> TableData {
    let rows = analysis
        .learned
        .rules
        .iter()
        .map(|r| {
            let rewrite = match &r.kind {
                DustRuleKind::Replace { from, to, .. } => format!("{from} → {to}"),
                DustRuleKind::DropParam { name } => format!("drop parameter {name}"),
                DustRuleKind::Host { from, to } => format!("{from} → {to} (host alias)"),
            };
            let example = r
                .examples
                .first()
                .map(|[a, b]| format!("{a} → {b}"))
                .unwrap_or_default();
            vec![
                Cell::from(r.id.clone()),
                Cell::from(rewrite),
                Cell::from(rule_status(r.status).to_owned()),
                Cell::Int(i64::from(r.support)),
                Cell::Int(i64::from(r.applicable)),
                Cell::Int(i64::from(r.agreed)),
                Cell::from(format!("{:.2}", r.precision)),
                Cell::from(example),
            ]
        })
        .collect();
    TableData {
        headers: vec![
            header("Rule", ColumnType::Text),
            header("Rewrite", ColumnType::Text),
            header("Status", ColumnType::Text),
            header("Support", ColumnType::Number),
            header("Applicable", ColumnType::Number),
            header("Agreed", ColumnType::Number),
            header("Precision", ColumnType::Text),
            header("Example", ColumnType::Text),
        ],
        rows,
    }
}

/// Builds one table, with its row keys when it has stable ones.
pub fn build(
    name: TableName,
    input: &AuditInput,
    analysis: &Analysis,
) -> (TableData, Option<Vec<String>>) {
    match name {
        TableName::Clusters => {
            let keys = analysis.clusters.iter().map(|c| c.id.to_string()).collect();
            (clusters(analysis), Some(keys))
        }
        TableName::Findings => {
            let keys = analysis.findings.iter().map(|f| f.key.clone()).collect();
            (
                audit::export::table_data(Table::Findings, input, analysis),
                Some(keys),
            )
        }
        TableName::ClusterMembers => {
            let keys = analysis
                .clusters
                .iter()
                .flat_map(|c| c.members.iter().map(move |m| format!("{} {}", c.id, m.url)))
                .collect();
            (
                audit::export::table_data(Table::Clusters, input, analysis),
                Some(keys),
            )
        }
        TableName::UrlVariants => {
            let keys = analysis
                .url_variants
                .iter()
                .map(|r| r.rule.as_str().to_owned())
                .collect();
            (
                audit::export::table_data(Table::UrlVariants, input, analysis),
                Some(keys),
            )
        }
        TableName::DuplicateMetadata => {
            let keys = analysis
                .duplicate_values
                .iter()
                .flat_map(|v| {
                    // A page has one value of each element.
                    v.pages
                        .iter()
                        .map(move |p| format!("{} {}", v.element.as_str(), p.url))
                })
                .collect();
            (
                audit::export::table_data(Table::DuplicateMetadata, input, analysis),
                Some(keys),
            )
        }
        TableName::Params => (params(analysis), None),
        TableName::DustRules => (dust_rules(analysis), None),
        TableName::IssueUrls => {
            let (data, keys) = crate::issues::issue_urls(analysis);
            (data, Some(keys))
        }
        TableName::LogWaste => (audit::log_waste_table(&analysis.log_waste), None),
        // Built from the audit's own hosts by `OpenAudit::table`; without them, no rows.
        TableName::External => (crate::external::empty(), None),
        TableName::Pages => {
            let keys = input
                .urls
                .iter()
                .map(|u| u.found_url().to_owned())
                .collect();
            let mut data = audit::export::table_data(Table::Pages, input, analysis);
            crate::rendered::pages(&mut data, input);
            (data, Some(keys))
        }
        TableName::Canonicals => {
            let mut data = audit::export::table_data(Table::Canonicals, input, analysis);
            crate::rendered::canonicals(&mut data, input);
            (data, None)
        }
        other => {
            let table = export_table(other).unwrap_or(Table::Pages);
            (audit::export::table_data(table, input, analysis), None)
        }
    }
}

/// A member's role, as the exports name it.
pub fn role(r: Role) -> &'static str {
    role_name(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::columns;

    /// Every table's column ids. They are what queries and the window name columns by,
    /// so a change here is a change of the app's contract.
    const KEYS: &[(TableName, &str)] = &[
        (
            TableName::Pages,
            "address content_type status_code indexability indexability_status title_1 \
             title_1_length meta_description_1 h1_1 meta_robots_1 x_robots_tag_1 \
             canonical_link_element_1 http_canonical_1 size_bytes word_count crawl_depth \
             inlinks unique_inlinks hash response_time redirect_url main_content_hash \
             main_content_word_count cluster preferred_url found_via",
        ),
        (
            TableName::Clusters,
            "cluster preferred_url members duplicates cause fix",
        ),
        (
            TableName::ClusterMembers,
            "cluster preferred_url address role status_code why_in_cluster evidence_tier \
             rules_fired fix reached_only_via_nofollow",
        ),
        (
            TableName::Findings,
            "finding severity evidence_tier title summary addresses fix why_it_matters \
             evidence key",
        ),
        (
            TableName::Redirects,
            "address hops final_address final_status_code chain problem",
        ),
        (
            TableName::Canonicals,
            "address canonical_link_element source in_head canonical_status_code \
             self_referencing",
        ),
        (
            TableName::SitemapEntries,
            "sitemap address status_code indexability preferred_url",
        ),
        (
            TableName::LinksToNonPreferred,
            "source destination preferred_url anchor_text link_position nofollow",
        ),
        (
            TableName::Params,
            "parameter urls verdict evidence pages_compared identical_pairs near_pairs different_pairs",
        ),
        (
            TableName::DustRules,
            "rule rewrite status support applicable agreed precision example",
        ),
        (
            TableName::IssueUrls,
            "issue severity address summary fix evidence title",
        ),
        (
            TableName::UrlVariants,
            "rule samples verdict duplicate redirect_temporary redirect_elsewhere different \
             canonical gone redirect_permanent error not_fetched unrendered example_variant \
             example_page example_answer nginx_rule apache_rule apache_htaccess_rule",
        ),
        (
            TableName::DuplicateMetadata,
            "element value pages address cluster cluster_urls counted_with",
        ),
        (
            TableName::LogWaste,
            "preferred_url cluster duplicates_requested verified_bot_requests_to_duplicates \
             unverified_bot_requests_to_duplicates fake_bot_requests_to_duplicates \
             other_requests_to_duplicates verified_bot_requests_to_preferred \
             unverified_bot_requests_to_preferred fake_bot_requests_to_preferred \
             other_requests_to_preferred",
        ),
        (
            TableName::External,
            "address host source anchor link_position follow linking_pages",
        ),
    ];

    #[test]
    fn the_log_waste_table_ranks_what_the_analysis_found() {
        let input = AuditInput::default();
        let mut analysis = Analysis::default();
        assert!(
            build(TableName::LogWaste, &input, &analysis)
                .0
                .rows
                .is_empty()
        );
        analysis.log_waste = vec![audit::LogWaste {
            cluster: 3,
            preferred_url: "https://example.test/shoes".into(),
            duplicates_requested: 2,
            duplicates: audit::LogRequests {
                verified_bots: 40,
                others: 5,
                ..audit::LogRequests::default()
            },
            preferred: audit::LogRequests {
                verified_bots: 7,
                others: 1,
                ..audit::LogRequests::default()
            },
        }];
        let (data, _) = build(TableName::LogWaste, &input, &analysis);
        assert_eq!(data.rows.len(), 1);
        assert_eq!(data.rows[0][0].as_text(), "https://example.test/shoes");
        assert_eq!(data.rows[0][3].as_text(), "40");
        assert_eq!(file_name(TableName::LogWaste), audit::LOG_WASTE_FILE);
    }

    #[test]
    fn column_ids_are_stable_and_unique() {
        let input = AuditInput::default();
        let analysis = Analysis::default();
        let mut found = Vec::new();
        for name in TableName::ALL {
            let (data, _) = build(name, &input, &analysis);
            let keys: Vec<String> = columns(&data).into_iter().map(|c| c.key).collect();
            let mut unique = keys.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), keys.len(), "{name:?}: {keys:?}");
            found.push((name, keys.join(" ")));
        }
        let expected: Vec<(TableName, String)> =
            KEYS.iter().map(|(n, k)| (*n, (*k).to_owned())).collect();
        assert_eq!(found, expected);
    }
}
