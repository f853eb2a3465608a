//! The seed examples of class `evidence` (canon's copy of shared/seeds/examples.tsv),
//! each turned into the crawl evidence its policy column names, must cluster.

use super::{B, check};
use crate::*;

struct Row {
    rule: String,
    input: String,
    expected: String,
    policy: String,
}

fn evidence_rows() -> Vec<Row> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../canon/tests/data/seed_examples.tsv"
    );
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|c| c.len() >= 5 && c[1] == "evidence")
        .map(|c| Row {
            rule: c[0].to_owned(),
            input: c[2].to_owned(),
            expected: c[3].trim_start_matches('=').to_owned(),
            policy: c[4].to_owned(),
        })
        .collect()
}

/// The cluster holding both URLs, and the evidence kind that put `input` in it.
fn joined(a: &Analysis, input: &str, expected: &str) -> EvidenceKind {
    let c = a
        .clusters
        .iter()
        .find(|c| c.members.iter().any(|m| m.url == input))
        .unwrap_or_else(|| panic!("{input} is in no cluster: {:#?}", a.clusters));
    assert!(c.members.iter().any(|m| m.url == expected), "{c:#?}");
    let member = c.members.iter().find(|m| m.url != c.preferred_url).unwrap();
    member.evidence[0].kind.clone()
}

#[test]
fn every_evidence_seed_clusters() {
    let rows = evidence_rows();
    assert_eq!(rows.len(), 3, "the seed file's evidence rows");
    for row in rows {
        let (input, expected) = (row.input.as_str(), row.expected.as_str());
        match row.policy.as_str() {
            "dns_or_redirect_evidence" => {
                let mut b = B::new();
                b.redirect(input, expected, 301).page(expected, 1);
                let a = b.analyse();
                assert_eq!(
                    joined(&a, input, expected),
                    EvidenceKind::Redirect {
                        status: 301,
                        via: HopKind::Http,
                        hops: 1
                    },
                    "{}",
                    row.rule
                );
                assert_eq!(a.clusters[0].preferred_url, expected);
                check(&a, "");
            }
            "learned_from_crawl" => {
                // The site serves ten stories both ways; the rule is learned from them.
                let mut b = B::new();
                for k in 0..10u64 {
                    let id = format!("xyz{k}");
                    b.page(&input.replace("xyz", &id), 10 + k)
                        .page(&expected.replace("xyz", &id), 10 + k);
                }
                b.page(input, 99).page(expected, 99);
                let a = b.analyse();
                assert!(
                    matches!(joined(&a, input, expected), EvidenceKind::Dust { .. }),
                    "{}",
                    row.rule
                );
                assert_eq!(
                    a.learned.predicts_duplicate(input).as_deref(),
                    Some(expected),
                    "{}",
                    row.rule
                );
            }
            "same_content" => {
                let mut b = B::new();
                b.page(input, 7).page(expected, 7);
                let a = b.analyse();
                assert_eq!(
                    joined(&a, input, expected),
                    EvidenceKind::IdenticalContent { of: Sameness::Text },
                    "{}",
                    row.rule
                );
                check(
                    &a,
                    &format!(
                        "DUP-CONTENT {} {}",
                        a.clusters[0].members[1].url, a.clusters[0].preferred_url
                    ),
                );
            }
            other => panic!("unknown evidence policy {other:?} for {input}"),
        }
    }
}
