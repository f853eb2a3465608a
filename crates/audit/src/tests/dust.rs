//! DUST rule mining, the parameter classifier, validation and carried rules.

use super::{B, check};
use crate::dust::substitution;
use crate::*;

fn story_site(ids: std::ops::RangeInclusive<u64>) -> B {
    let mut b = B::new();
    for k in ids {
        b.page(&format!("http://example.com/story?id={k}"), 100 + k);
        b.page(&format!("http://example.com/story_{k}"), 100 + k);
    }
    b
}

fn rule<'a>(a: &'a Analysis, id: &str) -> &'a DustRule {
    a.learned
        .rules
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no rule {id} in {:#?}", a.learned.rules))
}

const STORY: &str = "replace:/story?id==>/story_";

#[test]
fn substitutions_from_pairs() {
    assert_eq!(
        substitution("http://e.com/story?id=5", "http://e.com/story_5", 64),
        Some(("/story?id=".into(), "/story_".into(), NextChar::Digit))
    );
    assert_eq!(
        substitution("http://e.com/a/12/print", "http://e.com/a/12", 64),
        Some(("/print".into(), "".into(), NextChar::End))
    );
    // Query-only differences belong to the parameter classifier; other hosts are not rules.
    assert_eq!(
        substitution("http://e.com/a?x=1", "http://e.com/a", 64),
        None
    );
    assert_eq!(substitution("http://e.com/a", "http://f.com/a", 64), None);
}

#[test]
fn mines_the_story_id_rule() {
    let b = story_site(1..=10);
    let a = b.analyse();
    let r = rule(&a, STORY);
    assert_eq!(
        r.kind,
        DustRuleKind::Replace {
            from: "/story?id=".into(),
            to: "/story_".into(),
            next: vec![NextChar::Digit]
        }
    );
    assert_eq!(
        (r.support, r.applicable, r.agreed, r.status),
        (10, 10, 10, RuleStatus::Confirmed)
    );
    assert_eq!(r.precision, 1.0);
    assert_eq!(
        a.learned
            .predicts_duplicate("http://example.com/story?id=77")
            .as_deref(),
        Some("http://example.com/story_77")
    );
    assert_eq!(
        a.learned
            .predicts_duplicate("http://example.com/story?id=abc"),
        None
    );
    assert_eq!(
        a.learned.predicts_duplicate("http://example.com/story_77"),
        None
    );
    // Every pair is a cluster explained by the rule, reported as a URL-pattern duplicate.
    assert_eq!(a.clusters.len(), 10);
    for c in &a.clusters {
        assert!(c.preferred_url.contains("story_"));
        assert_eq!(
            c.members[1].evidence[0].kind,
            EvidenceKind::Dust { rule: STORY.into() }
        );
    }
    // One rule, one finding: the ten URLs of its pattern, each with a canonical (a page
    // the same by content may diverge, so it is never redirected).
    assert_eq!(a.findings_with(FindingId::DupDust).count(), 1);
    assert_eq!(a.findings.len(), 1);
    assert!(matches!(
        a.findings[0].fixes[..],
        [crate::Fix::ForPattern {
            urls: 10,
            canonical: true,
            ..
        }]
    ));
    assert!(
        a.clusters
            .iter()
            .all(|c| c.members[1].action == crate::Action::Canonical)
    );
    let id = a.params.iter().find(|p| p.name == "id").unwrap();
    assert_eq!(id.class, ParamClass::ChangesContent);
}

#[test]
fn mines_an_irrelevant_parameter() {
    let mut b = B::new();
    for k in 1..=10 {
        b.page(&format!("https://example.com/p/{k}?ref=home"), 200 + k);
        b.page(&format!("https://example.com/p/{k}"), 200 + k);
    }
    b.page("https://example.com/list", 300)
        .page("https://example.com/list?page=2", 301);
    b.page("https://example.com/list?page=3", 302);
    let a = b.analyse();
    let r = rule(&a, "drop_param:ref");
    assert_eq!(
        (r.support, r.applicable, r.status),
        (10, 10, RuleStatus::Confirmed)
    );
    let stats = |name: &str| a.params.iter().find(|p| p.name == name).unwrap().clone();
    let r = stats("ref");
    assert_eq!(
        (r.urls, r.identical, r.near, r.different, r.class, r.verdict),
        (
            10,
            10,
            0,
            0,
            ParamClass::NeverMatters,
            ParamVerdict::Ignored
        )
    );
    assert_eq!(stats("page").class, ParamClass::ChangesContent);
    assert!(a.learned.rules.iter().all(|r| r.id != "drop_param:page"));
    assert_eq!(
        a.learned
            .predicts_duplicate("https://example.com/p/99?ref=home&x=1")
            .as_deref(),
        Some("https://example.com/p/99?x=1")
    );
    assert_eq!(a.findings_with(FindingId::DupParam).count(), 1);
    let c = a
        .clusters
        .iter()
        .find(|c| c.preferred_url.ends_with("/p/3"))
        .unwrap();
    assert_eq!(
        c.members[1].evidence[0].kind,
        EvidenceKind::Dust {
            rule: "drop_param:ref".into()
        }
    );
}

#[test]
fn a_sort_parameter_only_reorders() {
    let mut b = B::new();
    for k in 1..=4u64 {
        let s = super::sim(400 + k);
        b.page_sim(&format!("https://example.com/c{k}?sort=asc"), 400 + k, s);
        b.page_sim(
            &format!("https://example.com/c{k}?sort=desc"),
            500 + k,
            s ^ 0b11,
        );
    }
    let a = b.analyse();
    let sort = a.params.iter().find(|p| p.name == "sort").unwrap();
    assert_eq!((sort.near, sort.class), (4, ParamClass::ReordersOnly));
}

#[test]
fn a_weak_rule_needs_validation_and_measurement_decides() {
    let mut b = B::new();
    for k in 1..=2 {
        b.page(&format!("https://example.com/item?id={k}"), 600 + k);
        b.page(&format!("https://example.com/item_{k}"), 600 + k);
    }
    b.page("https://example.com/item?id=3", 603)
        .page("https://example.com/item?id=4", 604);
    let a = b.analyse();
    let r = rule(&a, "replace:/item?id==>/item_").clone();
    assert_eq!(
        (r.support, r.unverified, r.status),
        (2, 2, RuleStatus::NeedsValidation)
    );
    // Unconfirmed, the rule explains nothing: the pairs are plain identical content.
    check(
        &a,
        "DUP-CONTENT https://example.com/item?id=1 https://example.com/item?id=2",
    );
    let cfg = AnalysisConfig::default();
    let candidates = validation_candidates(&b.input, &cfg, &r, 10);
    let pairs: Vec<(&str, &str)> = candidates
        .iter()
        .map(|c| (c.url.as_str(), c.rewritten.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            (
                "https://example.com/item?id=3",
                "https://example.com/item_3"
            ),
            (
                "https://example.com/item?id=4",
                "https://example.com/item_4"
            )
        ]
    );
    assert_eq!(validation_candidates(&b.input, &cfg, &r, 1).len(), 1);
    let fetched = |c: &ValidationCandidate, text: u64| ValidationFetch {
        rule_id: r.id.clone(),
        candidate: c.clone(),
        status: Some(200),
        text_hash: Some(text),
        simhash: Some(super::sim(text)),
    };
    let report = measure_validation(&[fetched(&candidates[0], 603), fetched(&candidates[1], 999)]);
    assert_eq!(
        (report.tested, report.agreed, report.false_positives),
        (2, 1, 1)
    );
    assert_eq!(report.false_positive_rate, 0.5);
    let mut rejected = r.clone();
    rejected.apply_validation(&report, cfg.dust.min_support, cfg.dust.min_precision);
    assert_eq!(rejected.status, RuleStatus::Rejected);
    let good = measure_validation(&[fetched(&candidates[0], 603), fetched(&candidates[1], 604)]);
    let mut confirmed = r;
    confirmed.apply_validation(&good, cfg.dust.min_support, cfg.dust.min_precision);
    assert_eq!(
        (confirmed.precision, confirmed.status),
        (1.0, RuleStatus::Confirmed)
    );
}

#[test]
fn validation_samples_fold_into_the_analysis() {
    let mut b = B::new();
    for k in 1..=2 {
        b.page(&format!("https://example.com/item?id={k}"), 600 + k);
        b.page(&format!("https://example.com/item_{k}"), 600 + k);
    }
    b.page("https://example.com/item?id=3", 603)
        .page("https://example.com/item?id=4", 604);
    let before = b.analyse();
    let r = rule(&before, "replace:/item?id==>/item_").clone();
    let mut cfg = AnalysisConfig::default();
    let sample = |text: &[u64]| -> Vec<ValidationFetch> {
        validation_candidates(&b.input, &AnalysisConfig::default(), &r, 10)
            .into_iter()
            .zip(text)
            .map(|(candidate, &t)| ValidationFetch {
                rule_id: r.id.clone(),
                candidate,
                status: Some(200),
                text_hash: Some(t),
                simhash: Some(super::sim(t)),
            })
            .collect()
    };
    // Both rewritten pages have the text of their originals: confirmed, and the pairs
    // that were plain identical content are now explained by the rule.
    cfg.validations = sample(&[603, 604]);
    let a = analyse(&b.input, &cfg);
    let v = rule(&a, &r.id);
    assert_eq!(
        (v.status, v.applicable, v.agreed),
        (RuleStatus::Confirmed, 4, 4)
    );
    let report = v.validation.as_ref().unwrap();
    assert_eq!((report.tested, report.false_positives), (2, 0));
    check(
        &a,
        "DUP-DUST https://example.com/item?id=1 https://example.com/item?id=2",
    );
    // Both differ: rejected, with a false-positive rate of 1; the findings stay.
    cfg.validations = sample(&[1, 2]);
    let a = analyse(&b.input, &cfg);
    let v = rule(&a, &r.id);
    assert_eq!(v.status, RuleStatus::Rejected);
    assert_eq!(v.validation.as_ref().unwrap().false_positive_rate, 1.0);
    check(
        &a,
        "DUP-CONTENT https://example.com/item?id=1 https://example.com/item?id=2",
    );
    // Samples of another rule change nothing.
    cfg.validations = sample(&[603, 604]);
    for v in &mut cfg.validations {
        v.rule_id = "replace:/x=>/y".into();
    }
    assert_eq!(
        rule(&analyse(&b.input, &cfg), &r.id).status,
        RuleStatus::NeedsValidation
    );
}

#[test]
fn learned_rules_serialize_and_carry_into_the_next_audit() {
    let first = story_site(1..=10).analyse();
    let json = serde_json::to_string(&first.learned).unwrap();
    let carried: LearnedRules = serde_json::from_str(&json).unwrap();
    assert_eq!(carried, first.learned);

    // The next crawl skipped the predicted duplicates: only one pair was fetched.
    let mut b = B::new();
    for k in 1..=10u64 {
        b.page(&format!("http://example.com/story_{k}"), 100 + k);
        b.skipped(
            &format!("http://example.com/story?id={k}"),
            "predicted_duplicate",
        );
    }
    b.page("http://example.com/story?id=50", 150)
        .page("http://example.com/story_50", 150);
    let cfg = AnalysisConfig {
        learned: Some(carried),
        ..AnalysisConfig::default()
    };
    let a = analyse(&b.input, &cfg);
    let r = rule(&a, STORY);
    assert_eq!(
        (r.status, r.applicable, r.agreed),
        (RuleStatus::Confirmed, 11, 11)
    );
    let c = a
        .clusters
        .iter()
        .find(|c| c.preferred_url.ends_with("story_50"))
        .unwrap();
    assert_eq!(
        c.members[1].evidence[0].kind,
        EvidenceKind::Dust { rule: STORY.into() }
    );
}

#[test]
fn predictions_of_carried_rules_are_counted_and_checked() {
    let rules = story_site(1..=10).analyse().learned;
    let mut b = B::new();
    for k in 1..=6u64 {
        b.page(&format!("http://example.com/story_{k}"), 100 + k);
        b.skipped(
            &format!("http://example.com/story?id={k}"),
            PREDICTED_DUPLICATE,
        );
    }
    // The verification sample: one right, one wrong; a pair whose twin answered 404
    // is wrong too; a redirect says nothing.
    b.page("http://example.com/story?id=7", 107)
        .page("http://example.com/story_7", 107)
        .page("http://example.com/story?id=8", 108)
        .page("http://example.com/story_8", 999)
        .page("http://example.com/story?id=9", 109)
        .status("http://example.com/story_9", 404)
        .redirect(
            "http://example.com/story?id=10",
            "http://example.com/story_10",
            301,
        )
        .page("http://example.com/story_10", 110)
        .skipped("http://example.com/story?id=11", "max_depth");
    let check = check_predictions(&b.input, &rules, 3);
    assert_eq!(
        check,
        PredictionCheck {
            skipped: 6,
            checked: 3,
            wrong: 2
        }
    );
    assert!((check.wrong_rate() - 2.0 / 3.0).abs() < 1e-9);
    assert_eq!(
        check_predictions(&AuditInput::default(), &rules, 3),
        PredictionCheck::default()
    );
}

#[test]
fn every_parameter_gets_a_verdict_with_its_evidence() {
    let mut b = B::new();
    let u = |p: &str| format!("https://example.com{p}");
    b.page(&u("/"), 1).start(&u("/"));
    for k in 0..6u64 {
        let item = u(&format!("/item/{k}"));
        b.page(&item, 100 + k)
            .page(&format!("{item}?utm_source=news"), 100 + k)
            .page(&format!("{item}?foo=1"), 100 + k)
            .page(&format!("{item}?sessionid=a81f3c2d9e7b4a60{k}"), 100 + k);
        // Numbered pages of a list differ.
        b.page(&u(&format!("/list?page={}", k + 1)), 200 + k);
        // A colour filter with few values narrows the list.
        b.page(
            &u(&format!("/list?color={}", ["red", "blue"][k as usize % 2])),
            300 + k % 2,
        );
    }
    // An id names the page: many values.
    for k in 0..20u64 {
        b.page(&u(&format!("/show?id={k}")), 400 + k);
    }
    b.page(&u("/list"), 299).page(&u("/show"), 499);
    let a = b.analyse();
    let verdict = |name: &str| {
        a.params
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no verdict for {name}: {:#?}", a.params))
    };
    assert_eq!(verdict("utm_source").verdict, ParamVerdict::Tracking);
    assert_eq!(verdict("sessionid").verdict, ParamVerdict::Session);
    assert_eq!(verdict("foo").verdict, ParamVerdict::Ignored);
    assert_eq!(verdict("page").verdict, ParamVerdict::Pagination);
    assert_eq!(verdict("color").verdict, ParamVerdict::Filter);
    assert_eq!(verdict("id").verdict, ParamVerdict::ChangesContent);
    for p in &a.params {
        assert!(!p.evidence.is_empty(), "{p:#?}");
    }
    assert!(
        verdict("foo").evidence.contains("6 identical"),
        "{}",
        verdict("foo").evidence
    );
}

#[test]
fn a_carried_parameter_rule_measured_again_leaves_other_rules_evidence_in_place() {
    // A crawl carried `drop_param:ref` (learned earlier, or during its own crawl), and
    // the audit also learns the story substitution: each duplicate names its own rule.
    // The carried story rule has too few pairs here to be mined again, so the carried
    // rules are measured in their stored order, the parameter first.
    let story = rule(&story_site(1..=10).analyse(), STORY).clone();
    let mut carried = LearnedRules {
        policy: canon::Policy::seo(),
        rules: vec![
            DustRule::new(DustRuleKind::DropParam { name: "ref".into() }),
            story,
        ],
    };
    carried.rules[0].status = RuleStatus::Confirmed;
    let mut b = story_site(1..=2);
    for k in 1..=6u64 {
        b.page(&format!("http://example.com/p/{k}"), 500 + k)
            .page(&format!("http://example.com/p/{k}?ref=home"), 500 + k);
    }
    let cfg = AnalysisConfig {
        learned: Some(carried),
        ..AnalysisConfig::default()
    };
    let a = analyse(&b.input, &cfg);
    let mut named = Vec::new();
    for c in &a.clusters {
        for m in &c.members {
            for e in &m.evidence {
                if let EvidenceKind::Dust { rule } = &e.kind {
                    let want = if m.url.contains("story") {
                        STORY
                    } else {
                        "drop_param:ref"
                    };
                    assert_eq!(rule, want, "{}", m.url);
                    named.push(rule.clone());
                }
            }
        }
    }
    assert!(named.iter().any(|r| r == STORY), "{:#?}", a.clusters);
}
