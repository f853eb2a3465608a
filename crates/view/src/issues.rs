//! The Issues view: one row per finding kind present in an audit, ranked by a priority,
//! and the table of the URLs each kind names.
//!
//! **Ranking.** Site errors come first: every kind whose severity is error (a broken
//! internal link, a redirect loop or a redirect to an error, a canonical to an error
//! or a noindex page, a sitemap listing an error, ...) and an indexable page
//! canonicalised away to an unrelated page (`CANON-TO-UNRELATED`). A site error on
//! one real page outranks a warning about any number of URL variants: a broken page
//! loses visitors and rankings today, while a duplicate variant only costs crawling
//! and consolidation. Within each of the two groups the priority orders:
//!
//! Priority = severity weight × log2(1 + distinct URLs), with weights error 3,
//! warning 2, notice 1: an error on one URL (3.0) ranks with a warning on about two
//! (2 × log2 3 ≈ 3.17), and a kind on many URLs outranks one on a few without the URL
//! count swamping severity (a notice needs 64 URLs to reach an error on three). A
//! URL-variant rule's finding counts the site's pages it concerns
//! ([`audit::Finding::affects`]), never the variants Dustpan made up.

use crate::family::family_of;
use crate::types::{IssueView, Severity};
use audit::export::{Cell, ColumnType, Header, TableData};
use audit::{Analysis, FindingId, Fix};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

/// The weight of a severity in [`priority`].
pub fn severity_weight(s: Severity) -> f64 {
    match s {
        Severity::Error => 3.0,
        Severity::Warning => 2.0,
        Severity::Notice => 1.0,
    }
}

/// An issue's priority: severity weight × log2(1 + URLs), rounded to two decimals.
pub fn priority(severity: Severity, urls: u32) -> f64 {
    let p = severity_weight(severity) * (1.0 + f64::from(urls)).log2();
    (p * 100.0).round() / 100.0
}

/// The kind of change a fix asks for, as the "how to fix" line counts it.
fn fix_kind(f: &Fix) -> &'static str {
    match f {
        Fix::Redirect { .. } => "301 redirects",
        Fix::SetCanonical { .. } => "canonical tags to set",
        Fix::SelfCanonicalForPattern { .. } => "canonical templates to fix",
        Fix::RemoveCanonical { .. } => "canonical tags to remove",
        Fix::MoveCanonicalToHead { .. } => "canonical tags to move into <head>",
        Fix::UpdateLinks { .. }
        | Fix::UpdateTemplateLink { .. }
        | Fix::UpdateLinksForPattern { .. } => "internal links to change",
        Fix::RemoveLinks { .. } | Fix::RemoveLinksForPattern { .. } => "internal links to remove",
        Fix::AddLinks { .. } => "internal links to add",
        Fix::SitemapRemove { .. } | Fix::SitemapReplace { .. } | Fix::SitemapAdd { .. } => {
            "sitemap entries to change"
        }
        Fix::ReviewNearDuplicate { .. } | Fix::ReviewParameters { .. } => "pages to review",
        Fix::ForPattern {
            canonical: true, ..
        } => "URL patterns to canonicalise",
        Fix::ForPattern { .. } => "URL patterns to redirect",
        Fix::AllowInRobots { .. } | Fix::DisallowInRobots { .. } => "robots.txt changes",
        Fix::DisableRule { .. } => "normalization rules to turn off",
        Fix::RebuildSitemap { .. } | Fix::DeclareSitemap { .. } => "sitemaps to fix",
        Fix::Serve { .. } => "URLs to serve with 200",
        Fix::DistinctValue { .. } => "shared titles, headings and descriptions to rewrite",
        Fix::DistinctValueForPattern { .. } => {
            "templates to give their own titles, headings and descriptions"
        }
        Fix::ServerRule { .. } => "server rules",
        Fix::SetHreflang { .. } | Fix::RemoveHreflang { .. } => "hreflang annotations to change",
    }
}

/// Whether a kind is a site error, ranked before every other kind (see the module
/// docs).
pub fn site_error(id: FindingId) -> bool {
    id.severity() == audit::Severity::Error || id == FindingId::CanonToUnrelated
}

/// Every finding kind present in `analysis`: site errors first, then the others, each
/// group highest priority first (ties by code).
pub fn issues(analysis: &Analysis) -> Vec<IssueView> {
    struct Acc<'a> {
        findings: u32,
        urls: HashSet<&'a str>,
        /// Pages concerned by findings that name only examples of them.
        pages: u32,
        fixes: BTreeMap<&'static str, u32>,
        example: Option<String>,
    }
    let mut by_kind: BTreeMap<FindingId, Acc> = BTreeMap::new();
    for f in &analysis.findings {
        let acc = by_kind.entry(f.id).or_insert_with(|| Acc {
            findings: 0,
            urls: HashSet::new(),
            pages: 0,
            fixes: BTreeMap::new(),
            example: None,
        });
        acc.findings += 1;
        // A finding whose URLs are examples (a URL-variant rule's made-up variants)
        // counts the site's pages it concerns.
        match f.affects {
            Some(n) => acc.pages = acc.pages.saturating_add(n),
            None => acc.urls.extend(f.urls.iter().map(String::as_str)),
        }
        for fix in &f.fixes {
            *acc.fixes.entry(fix_kind(fix)).or_default() += 1;
        }
        if acc.example.is_none() {
            acc.example = f.fixes.first().map(ToString::to_string);
        }
    }
    let mut out: Vec<IssueView> = by_kind
        .into_iter()
        .map(|(id, acc)| {
            let severity = Severity::from(id.severity());
            let urls = (acc.urls.len() as u32).saturating_add(acc.pages);
            let mut fixes: Vec<(&str, u32)> = acc.fixes.into_iter().collect();
            fixes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            let how_to_fix = if fixes.is_empty() {
                "No change is proposed automatically: review the URLs below.".to_owned()
            } else {
                let parts: Vec<String> = fixes.iter().map(|(k, n)| format!("{k}: {n}")).collect();
                format!("{}.", parts.join("; "))
            };
            IssueView {
                code: id.code().to_owned(),
                title: id.title().to_owned(),
                severity,
                family: family_of(id),
                tier: id.tier().into(),
                findings: acc.findings,
                urls,
                priority: priority(severity, urls),
                why: id.why().to_owned(),
                how_to_fix,
                example_fix: acc.example.unwrap_or_default(),
            }
        })
        .collect();
    let error = |i: &IssueView| FindingId::from_code(&i.code).is_some_and(site_error);
    out.sort_by(|a, b| {
        error(b)
            .cmp(&error(a))
            .then_with(|| b.priority.total_cmp(&a.priority))
            .then_with(|| a.code.cmp(&b.code))
    });
    out
}

/// One row per URL a finding names (`IssueUrls`), with row keys `"{finding key}\n{url}"`.
/// A finding's own texts (its code, summary, fix, evidence) are held once and shared by
/// its rows: a finding on a million URLs repeats them a million times.
pub fn issue_urls(analysis: &Analysis) -> (TableData, Vec<String>) {
    let mut rows = Vec::new();
    let mut keys = Vec::new();
    for f in &analysis.findings {
        let shared = |s: String| Cell::Text(Arc::from(s));
        let fix: Vec<String> = f.fixes.iter().map(ToString::to_string).collect();
        let finding = [
            shared(f.id.code().to_owned()),
            shared(f.severity.as_str().to_owned()),
            shared(f.summary.clone()),
            shared(fix.join("\n")),
            shared(f.evidence.join("\n")),
            shared(f.title.to_string()),
        ];
        let [code, severity, summary, fix, evidence, title] = &finding;
        let mut seen = HashSet::new();
        for url in &f.urls {
            if !seen.insert(url.as_str()) {
                continue;
            }
            keys.push(format!("{}\n{url}", f.key));
            rows.push(vec![
                code.clone(),
                severity.clone(),
                Cell::Text(url.as_str().into()),
                summary.clone(),
                fix.clone(),
                evidence.clone(),
                title.clone(),
            ]);
        }
    }
    let header = |title, kind| Header { title, kind };
    let data = TableData {
        headers: vec![
            header("Issue", ColumnType::Text),
            header("Severity", ColumnType::Text),
            header("Address", ColumnType::Url),
            header("Summary", ColumnType::Text),
            header("Fix", ColumnType::Text),
            header("Evidence", ColumnType::Text),
            header("Title", ColumnType::Text),
        ],
        rows,
    };
    (data, keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priority_weighs_severity_by_the_log_of_urls() {
        assert_eq!(priority(Severity::Error, 1), 3.0);
        assert_eq!(priority(Severity::Warning, 1), 2.0);
        assert_eq!(priority(Severity::Notice, 1), 1.0);
        assert_eq!(priority(Severity::Warning, 3), 4.0);
        assert_eq!(priority(Severity::Notice, 63), 6.0);
        assert_eq!(priority(Severity::Error, 0), 0.0);
        // Rounded to two decimals: 2 × log2(3) = 3.1699…
        assert_eq!(priority(Severity::Warning, 2), 3.17);
        // A warning on two URLs outranks an error on one; an error on 3 URLs ties a
        // notice on 63.
        assert!(priority(Severity::Warning, 2) > priority(Severity::Error, 1));
        assert_eq!(priority(Severity::Error, 3), priority(Severity::Notice, 63));
        // Never lower with more URLs (rounding may tie close neighbours).
        let mut last = 0.0;
        for n in 1..2000 {
            let p = priority(Severity::Notice, n);
            assert!(p >= last, "{n}");
            last = p;
        }
        assert!(priority(Severity::Notice, 100) > priority(Severity::Notice, 50));
        assert!(priority(Severity::Error, u32::MAX).is_finite());
    }

    /// A finding of `id` naming `urls`, concerning `affects` pages when given.
    fn finding(id: &str, urls: &[&str], affects: Option<u32>) -> audit::Finding {
        let code = FindingId::from_code(id).unwrap();
        serde_json::from_value(serde_json::json!({
            "id": id,
            "key": format!("{} {}", code.code(), urls.join(" ")),
            "severity": code.severity(),
            "title": code.title(),
            "why": code.why(),
            "summary": "",
            "urls": urls,
            "evidence": [],
            "fixes": [],
            "affects": affects,
        }))
        .unwrap()
    }

    #[test]
    fn a_site_error_on_one_page_outranks_warnings_about_url_variants() {
        let analysis = Analysis {
            findings: vec![
                // Upper-case and parameter variants serve every page of the site.
                finding(
                    "VARIANT-DUPLICATE",
                    &["https://example.com/A", "https://example.com/a"],
                    Some(400),
                ),
                finding(
                    "DUP-PARAM",
                    &[
                        "https://example.com/a?utm_source=x",
                        "https://example.com/a",
                    ],
                    None,
                ),
                // One real page links a URL that answers 404.
                finding("LINK-BROKEN", &["https://example.com/gone"], None),
                // An indexable page declares an unrelated page canonical.
                finding(
                    "CANON-TO-UNRELATED",
                    &["https://example.com/b", "https://example.com/c"],
                    None,
                ),
            ],
            ..Analysis::default()
        };
        let ranked = issues(&analysis);
        let codes: Vec<&str> = ranked.iter().map(|i| i.code.as_str()).collect();
        assert_eq!(
            codes,
            [
                "CANON-TO-UNRELATED",
                "LINK-BROKEN",
                "VARIANT-DUPLICATE",
                "DUP-PARAM"
            ]
        );
        // The variant rule counts the site's pages it concerns, not its examples.
        assert_eq!(ranked[2].urls, 400);
        assert!(ranked[2].priority > ranked[0].priority);
    }

    #[test]
    fn different_pages_sharing_a_title_are_an_issue_with_their_pages() {
        use audit::{AuditInput, FetchRow, UrlRow};
        let pages = ["/roundup/1", "/roundup/2", "/roundup/3"];
        let input = AuditInput {
            urls: (1..)
                .zip(pages)
                .map(|(id, p)| UrlRow {
                    id,
                    url: format!("https://example.com{p}"),
                    ..UrlRow::default()
                })
                .collect(),
            fetches: (1..)
                .zip(pages)
                .map(|(id, _)| FetchRow {
                    url_id: id,
                    status: Some(200),
                    content_type: Some("text/html".into()),
                    title: Some("Weekly roundup".into()),
                    text_hash: Some(u64::from(id)),
                    word_count: Some(300),
                    ..FetchRow::default()
                })
                .collect(),
            ..AuditInput::default()
        };
        let analysis = audit::analyse(&input, &audit::AnalysisConfig::default());
        let ranked = issues(&analysis);
        let issue = ranked
            .iter()
            .find(|i| i.code == "TITLE-DUPLICATE")
            .expect("an issue for the shared title");
        assert_eq!((issue.findings, issue.urls), (1, 3));
        assert_eq!(issue.family, crate::types::Family::Duplicates);
        assert_eq!(
            issue.how_to_fix,
            "shared titles, headings and descriptions to rewrite: 1."
        );
        assert!(
            issue
                .example_fix
                .starts_with("Give each of the 3 pages a title of its own")
        );
        let (data, _) = issue_urls(&analysis);
        let named: Vec<String> = data
            .rows
            .iter()
            .filter(|r| r[0].as_text() == "TITLE-DUPLICATE")
            .map(|r| r[2].as_text().into_owned())
            .collect();
        assert_eq!(named, pages.map(|p| format!("https://example.com{p}")));
    }

    #[test]
    fn no_findings_no_issues() {
        assert!(issues(&Analysis::default()).is_empty());
        let (data, keys) = issue_urls(&Analysis::default());
        assert!(data.rows.is_empty() && keys.is_empty());
    }
}
