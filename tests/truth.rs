//! The fixture audit scored against the fixture's own oracle (`fixture::answers`): which
//! fetched URLs are one page. Pairwise precision and recall of the clusters over every
//! fetched URL the oracle states, and no fix anywhere that would redirect or
//! canonicalize a page to a page that is not the same page.

use crate::golden::demo_analysis;
use audit::Fix;
use fixture::answers::{self, SiteFacts, SiteVariant};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The oracle's page for a URL: follow its redirects (to a target that answers 200) and
/// its `duplicate_of`; a URL that is none of these is its own page.
fn truth<'a>(facts: &'a SiteFacts, url: &'a str) -> &'a str {
    let mut at = url;
    for _ in 0..10 {
        let Some(f) = facts.get(at) else {
            return at;
        };
        let hop = f
            .location
            .filter(|_| (300..400).contains(&f.status))
            .or(f.meta_refresh);
        if let Some(to) = hop {
            match facts.get(to) {
                Some(t) if t.status == 200 || (300..400).contains(&t.status) => at = to,
                _ => return at,
            }
        } else if let Some(d) = f.duplicate_of {
            at = d;
        } else {
            return at;
        }
    }
    at
}

/// Pairs of URLs (sorted) grouped together by `group`.
fn pairs(groups: &BTreeMap<String, Vec<String>>) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for members in groups.values() {
        for (i, a) in members.iter().enumerate() {
            for b in &members[i + 1..] {
                out.insert(if a < b {
                    (a.clone(), b.clone())
                } else {
                    (b.clone(), a.clone())
                });
            }
        }
    }
    out
}

#[test]
fn clusters_match_the_oracle_and_no_fix_joins_different_pages() {
    let demo = demo_analysis();
    let analysis = &demo.analysis;
    let facts = answers::site(SiteVariant::Before);
    let fetched: BTreeSet<&str> = demo
        .fetched
        .iter()
        .map(String::as_str)
        .filter(|u| facts.get(u).is_some())
        .collect();
    let mut audit_groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut clustered: HashMap<&str, &str> = HashMap::new();
    for c in &analysis.clusters {
        for m in &c.members {
            clustered.insert(m.url.as_str(), c.preferred_url.as_str());
        }
    }
    let mut truth_groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for &u in &fetched {
        let group = clustered.get(u).copied().unwrap_or(u);
        audit_groups
            .entry(group.to_owned())
            .or_default()
            .push(u.to_owned());
        truth_groups
            .entry(truth(&facts, u).to_owned())
            .or_default()
            .push(u.to_owned());
    }
    let (got, want) = (pairs(&audit_groups), pairs(&truth_groups));
    let right = got.intersection(&want).count();
    let precision = right as f64 / got.len().max(1) as f64;
    let recall = right as f64 / want.len().max(1) as f64;
    let wrong: Vec<_> = got.difference(&want).take(20).collect();
    let missed: Vec<_> = want.difference(&got).take(20).collect();
    eprintln!(
        "{} fetched URLs in the oracle, {} audit pairs, {} true pairs, {right} right: \
         precision {precision:.3}, recall {recall:.3}",
        fetched.len(),
        got.len(),
        want.len()
    );
    assert!(
        precision >= 0.99,
        "precision {precision:.3}; wrongly merged: {wrong:#?}"
    );
    assert!(recall >= 0.95, "recall {recall:.3}; missed: {missed:#?}");

    // No fix points a page at another page.
    for f in &analysis.findings {
        for fix in &f.fixes {
            let (from, to) = match fix {
                Fix::Redirect { from, to, .. } => (from, to),
                Fix::SetCanonical { page, href } => (page, href),
                _ => continue,
            };
            // Between two pages that serve content (a fix that repairs a redirect loop
            // or a chain into an error joins no two pages).
            let serves = |u: &str| facts.get(truth(&facts, u)).is_some_and(|f| f.status == 200);
            if from == to || !serves(from) || !serves(to) {
                continue;
            }
            assert_eq!(
                truth(&facts, from),
                truth(&facts, to),
                "{} proposes {fix} between two different pages",
                f.key
            );
        }
    }
}

#[test]
fn a_listing_template_canonical_is_one_finding_with_one_fix_and_no_merge() {
    let demo = demo_analysis();
    let analysis = &demo.analysis;
    let pages: Vec<String> = (2..=answers::FIELD_NOTES_PAGES)
        .map(|n| format!("{}/field-notes/page/{n}/", answers::ORIGIN))
        .collect();
    // The listing's pages stay pages of their own: no cluster holds two of them.
    let first = format!("{}/field-notes/", answers::ORIGIN);
    for c in &analysis.clusters {
        let held: Vec<&str> = c
            .members
            .iter()
            .map(|m| m.url.as_str())
            .filter(|u| *u == first || pages.iter().any(|p| p == u))
            .collect();
        assert!(held.len() <= 1, "{held:?} in one cluster");
    }
    let found: Vec<&audit::Finding> = analysis
        .findings
        .iter()
        .filter(|f| f.urls.iter().any(|u| pages.contains(u)))
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    let f = found[0];
    assert_eq!(f.id.code(), "CANON-TO-UNRELATED");
    assert_eq!(f.urls, pages);
    let stranded = (answers::FIELD_NOTES_PAGES - 1) * answers::FIELD_NOTES_PER_PAGE;
    assert!(
        f.evidence.iter().any(|e| e.contains(&format!(
            "{stranded} pages are linked only from these pages"
        ))),
        "{:#?}",
        f.evidence
    );
    match f.fixes.as_slice() {
        [
            Fix::SelfCanonicalForPattern {
                pages: fixed,
                example,
                ..
            },
        ] => {
            assert_eq!(fixed, &pages);
            assert_eq!(example[1], format!("{}/field-notes/", answers::ORIGIN));
        }
        other => panic!("{other:#?}"),
    }
}

/// Every pair of pages the audit calls identical (identical-content evidence, a same-key
/// merge confirmed by content, or a canonical whose pages' content is identical), fetched
/// again with curl from a fresh fixture server and compared, block for block and in the
/// same order: an "identical text" claim on the whole body, an "identical main content"
/// claim on `<main>` (the site's template, which the fixture keeps outside `<main>`, may
/// differ). The text is read by the fixture's own reader (`fixture::visible`), not by
/// Dustpan's extractor.
#[test]
fn every_identical_content_claim_survives_curl_and_diff() {
    use audit::{CanonicalContent, Confirmation, EvidenceKind, Sameness};
    let demo = demo_analysis();
    let mut url_of = HashMap::new();
    for c in &demo.analysis.clusters {
        for m in &c.members {
            url_of.insert(m.url_id, m.url.as_str());
        }
    }
    let mut claims: BTreeSet<(&str, &str, bool)> = BTreeSet::new();
    for c in &demo.analysis.clusters {
        for m in &c.members {
            for e in &m.evidence {
                let of = match &e.kind {
                    EvidenceKind::IdenticalContent { of }
                    | EvidenceKind::Canonical {
                        content: CanonicalContent::Identical { of },
                        ..
                    }
                    | EvidenceKind::SameKey {
                        confirmed_by: Confirmation::IdenticalContent { of },
                        ..
                    } => *of,
                    _ => continue,
                };
                let (a, b) = (url_of[&e.from], url_of[&e.to]);
                claims.insert((a.min(b), a.max(b), of == Sameness::Text));
            }
        }
    }
    let whole = claims.iter().filter(|c| c.2).count();
    assert!(
        whole >= 20 && claims.len() > whole,
        "{whole} identical-text claims of {}: {claims:#?}",
        claims.len()
    );

    let site = crate::util::Site::start(fixture::FixtureConfig {
        log_requests: false,
        ..fixture::FixtureConfig::default()
    });
    let port = site.server.port();
    let curl = |url: &str| -> String {
        let out = std::process::Command::new("curl")
            .args([
                "--silent",
                "--show-error",
                "--compressed",
                "--max-time",
                "20",
            ])
            // Every host and port of the audit, on the fixture's loopback port.
            .args(["--connect-to", &format!("::127.0.0.1:{port}")])
            .arg("--cacert")
            .arg(&site.ca)
            .arg(url)
            .output()
            .expect("curl runs (scripts/setup-desktop.sh installs it)");
        assert!(
            out.status.success(),
            "curl {url}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let mut failed = Vec::new();
    for &(a, b, whole_text) in &claims {
        let blocks = if whole_text { body_blocks } else { main_blocks };
        let (ta, tb) = (blocks(&curl(a)), blocks(&curl(b)));
        if ta != tb {
            let only_a: Vec<&String> = ta.iter().filter(|x| !tb.contains(x)).take(3).collect();
            let only_b: Vec<&String> = tb.iter().filter(|x| !ta.contains(x)).take(3).collect();
            let reordered = only_a.is_empty() && only_b.is_empty();
            let claim = if whole_text { "text" } else { "main content" };
            failed.push(if reordered {
                format!("{a} vs {b} (identical {claim}): the same blocks in another order")
            } else {
                format!(
                    "{a} vs {b} (identical {claim}):\n  only in the first: {only_a:?}\n  only in the second: {only_b:?}"
                )
            });
        }
    }
    eprintln!(
        "{} identical-content claims re-fetched with curl",
        claims.len()
    );
    assert!(
        failed.is_empty(),
        "{} of {} identical claims do not survive curl + diff:\n{}",
        failed.len(),
        claims.len(),
        failed.join("\n")
    );
}

/// The text blocks of a page's whole `<body>`, in order.
fn body_blocks(html: &str) -> Vec<String> {
    use fixture::visible::{blocks, head_body};
    blocks(head_body(html).1)
}

/// The text blocks of a page's `<main>` (of its `<body>` when it has none), in order.
fn main_blocks(html: &str) -> Vec<String> {
    use fixture::visible::{blocks, head_body, main_of};
    let main = main_of(html);
    blocks(if main.is_empty() {
        head_body(html).1
    } else {
        main
    })
}
