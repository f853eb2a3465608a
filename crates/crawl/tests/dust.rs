//! Learned DUST rules in the crawler, on the fixture site: predicted duplicates are
//! skipped (a verification sample is fetched), and validation samples are fetched
//! within the audit's scope and robots.txt.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;
use crawl::CrawlConfig;
use fixture::{FixtureConfig, FixtureServer};
use store::{ReasonKind, Store, UrlState};
use support::audit::{crawl_into, fixture_config};

fn config(server: &FixtureServer) -> CrawlConfig {
    CrawlConfig {
        include_subdomains: true,
        ..fixture_config(server, vec![server.base_url()], fixture::HOSTS)
    }
}

/// The story rule as an audit of the fixture learns it.
fn story_rules() -> audit::LearnedRules {
    audit::LearnedRules {
        policy: canon::Policy::seo(),
        rules: vec![audit::DustRule {
            id: "replace:/story?id==>/story_".into(),
            kind: audit::DustRuleKind::Replace {
                from: "/story?id=".into(),
                to: "/story_".into(),
                next: vec![audit::NextChar::Digit],
            },
            support: 10,
            applicable: 10,
            agreed: 10,
            precision: 1.0,
            unverified: 0,
            status: audit::RuleStatus::Confirmed,
            examples: Vec::new(),
            validation: None,
        }],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn learned_rules_skip_predicted_duplicates_but_fetch_a_sample() {
    let server = FixtureServer::start(FixtureConfig::default())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(&server);
    config.learned_rules = Some(story_rules());
    config.dust_check_every = 4;
    // The carried rule alone (the crawl's own learning has its own tests).
    config.learn_dust = false;
    let (store, summary) = crawl_into(&dir.path().join("dust.sqlite"), &config).await;
    let urls = store.urls(summary.audit).await.unwrap();
    let state = |u: &str| {
        urls.iter()
            .find(|r| r.url == u)
            .map(|r| (r.state, r.reason.clone()))
    };
    let mut skipped = 0;
    let mut fetched = 0;
    for k in 1..=10 {
        // The sitemap lists /story_N, so it is queued before /story?id=N is found.
        assert_eq!(
            state(&format!("https://example.test/story_{k}")).unwrap().0,
            UrlState::Done
        );
        match state(&format!("https://example.test/story?id={k}")).unwrap() {
            (UrlState::Skipped, Some(r)) if r.kind == ReasonKind::DustDuplicate => skipped += 1,
            (UrlState::Done, _) => fetched += 1,
            other => panic!("story?id={k}: {other:?}"),
        }
    }
    // Predictions 0, 4 and 8 are the verification sample.
    assert_eq!((skipped, fetched), (7, 3));
    let requested: Vec<String> = server.requests().iter().map(|r| r.url()).collect();
    let asked = requested
        .iter()
        .filter(|u| u.starts_with("https://example.test/story?id="))
        .count();
    assert_eq!(asked, 3, "skipped URLs are never requested");

    let input = load::load(&store, summary.audit).await.unwrap();
    let check = audit::check_predictions(&input, config.learned_rules.as_ref().unwrap(), 3);
    assert_eq!((check.skipped, check.checked, check.wrong), (7, 3, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn samples_are_fetched_within_scope_and_robots_txt() {
    let server = FixtureServer::start(FixtureConfig::default())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("sample.sqlite"))
        .await
        .unwrap();
    let config = config(&server);
    let audit = crawl::create_audit(&store, &config).await.unwrap();
    let urls: Vec<String> = [
        "https://example.test/story_3",
        "https://example.test/story_99",
        "https://example.test/search?q=boots",
        "https://elsewhere.test/story_3",
        "https://example.test/story?id=3",
        "not a url",
    ]
    .map(str::to_owned)
    .to_vec();
    let got = crawl::fetch_samples(&store, audit, &config, &urls)
        .await
        .unwrap();
    let seen: Vec<(Option<u16>, Option<&str>)> = got
        .iter()
        .map(|s| (s.status, s.error_kind.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [
            (Some(200), None),
            (Some(404), None),
            (None, Some("robots_txt")),
            (None, Some("out_of_scope")),
            (Some(200), None),
            (None, Some("invalid_url")),
        ]
    );
    assert!(got[0].text_hash.is_some());
    assert_eq!(got[0].text_hash, got[4].text_hash, "story_3 = story?id=3");
    let requested: Vec<String> = server.requests().iter().map(|r| r.url()).collect();
    assert!(!requested.iter().any(|u| u.contains("/search")));
    assert!(!requested.iter().any(|u| u.contains("elsewhere")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fixture_s_reply_to_comment_links_are_learned_and_mostly_skipped_with_no_wrong_prediction()
 {
    let server = FixtureServer::start(FixtureConfig::default())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (store, summary) = crawl_into(&dir.path().join("replies.sqlite"), &config(&server)).await;
    let facts = fixture::answers::site(fixture::answers::SiteVariant::Before);
    let replies: Vec<&str> = facts
        .urls
        .iter()
        .filter(|f| f.url.contains("?replytocom="))
        .map(|f| f.url)
        .collect();
    let total = (fixture::answers::JOURNAL_POSTS * fixture::answers::JOURNAL_COMMENTS) as usize;
    assert_eq!(replies.len(), total);
    let urls = store.urls(summary.audit).await.unwrap();
    let (mut skipped, mut fetched) = (0usize, 0usize);
    for r in &replies {
        match urls
            .iter()
            .find(|u| u.url == *r)
            .map(|u| (u.state, u.reason.clone()))
        {
            Some((UrlState::Skipped, Some(reason))) if reason.kind == ReasonKind::DustDuplicate => {
                skipped += 1;
            }
            Some((UrlState::Done, _)) => fetched += 1,
            other => panic!("{r}: {other:?}"),
        }
    }
    let asked = server
        .requests()
        .iter()
        .filter(|r| r.url().contains("?replytocom="))
        .count();
    let dust = summary.dust.clone().unwrap();
    eprintln!("{fetched} of {total} reply pages fetched, {skipped} skipped; {dust:?}");
    assert_eq!(asked, fetched, "skipped URLs are never requested");
    assert!(
        skipped * 5 >= total,
        "{skipped} of {total} skipped; {dust:?}"
    );
    let learned = crawl::audit_config(&store, summary.audit)
        .await
        .unwrap()
        .learned_during_crawl
        .unwrap();
    // The reply rule is confirmed and never dropped: no prediction of it was wrong.
    assert!(
        learned.confirmed().any(|r| r.id == "drop_param:replytocom"),
        "{learned:?}"
    );
    // Each reply page fetched is one page with its post by the verdict the crawl judges
    // its checks with: identical, or a little apart (the reply form's heading).
    let text = |url: &str| {
        let id = urls.iter().find(|u| u.url == url).map(|u| u.id);
        let store = &store;
        async move {
            let f = store.fetch(summary.audit, id?).await.unwrap()?;
            Some(crawl::same_page::Text {
                hash: f.text_hash?,
                simhash: f.simhash,
                blocks: None,
                canonical: None,
            })
        }
    };
    let mut close = 0;
    for r in &replies {
        let Some(reply) = text(r).await else { continue };
        let post = facts.get(r).and_then(|f| f.duplicate_of).unwrap();
        let post = text(post).await.unwrap();
        let verdict = crawl::same_page::text_pair(reply, post);
        assert_ne!(verdict, crawl::same_page::Pair::Different, "{r}");
        close += usize::from(verdict == crawl::same_page::Pair::Close);
    }
    assert_eq!(
        close, fetched,
        "every reply page reads a little apart from its post"
    );
    eprintln!(
        "{:?}",
        learned
            .rules
            .iter()
            .map(|r| (&r.id, r.status))
            .collect::<Vec<_>>()
    );
    // Every URL skipped as a predicted duplicate is a duplicate by the oracle.
    for u in urls.iter().filter(|u| {
        u.state == UrlState::Skipped
            && u.reason.as_ref().map(|r| r.kind) == Some(ReasonKind::DustDuplicate)
    }) {
        let fact = facts.get(&u.url);
        eprintln!(
            "skipped {} ({:?})",
            u.url,
            fact.and_then(|f| f.duplicate_of)
        );
        assert!(
            fact.is_some_and(|f| f.duplicate_of.is_some()),
            "{} skipped, but it is a page of its own; rules: {:?}",
            u.url,
            learned
                .rules
                .iter()
                .map(|r| (&r.id, r.status))
                .collect::<Vec<_>>()
        );
    }
}
