//! Learning on small lists whose rules are known.

use super::*;

fn wiki_list() -> Vec<String> {
    let mut urls = Vec::new();
    for k in 0..20 {
        let t = format!("Article_{k:03}");
        urls.push(format!("https://wiki.test/wiki/{t}"));
        urls.push(format!("https://wiki.test/w/index.php?title={t}"));
        if k % 2 == 0 {
            urls.push(format!("https://wiki.test/wiki/{t}?foo=1"));
        }
        if k % 4 == 0 {
            urls.push(format!(
                "https://wiki.test/w/index.php?title={t}&action=edit"
            ));
            urls.push(format!("https://mirror.wiki.test/wiki/{t}"));
        }
    }
    urls
}

fn ids(l: &Learned) -> Vec<&str> {
    l.candidates.iter().map(|c| c.rule.id.as_str()).collect()
}

#[test]
fn a_wiki_list_yields_its_substitution_its_parameter_and_its_host_alias() {
    let l = learn(wiki_list(), &Options::default());
    let ids = ids(&l);
    // index.php is the directory's index under the seo policy: /w/?title=.
    assert!(ids.contains(&"replace:/w/?title==>/wiki/"), "{ids:#?}");
    assert!(ids.contains(&"drop_param:foo"), "{ids:#?}");
    assert!(
        ids.contains(&"host:https://mirror.wiki.test=>https://wiki.test"),
        "{ids:#?}"
    );
    // Edit pages are a candidate too (the list cannot tell): fetching decides.
    assert!(ids.contains(&"drop_param:action"), "{ids:#?}");
    let sub = l
        .candidates
        .iter()
        .find(|c| c.rule.id == "replace:/w/?title==>/wiki/")
        .unwrap();
    assert!(sub.rule.support >= 20, "{}", sub.rule.support);
    assert!(!sub.pairs.is_empty());
    for &(a, b) in &sub.pairs {
        assert!(l.urls[a as usize].contains("index.php"));
        assert!(l.urls[b as usize].contains("/wiki/"));
    }
}

#[test]
fn groups_follow_the_rules_given_and_nothing_else() {
    let l = learn(wiki_list(), &Options::default());
    let pick = |id: &str| &l.candidates.iter().find(|c| c.rule.id == id).unwrap().rule;
    let confirmed = [
        pick("replace:/w/?title==>/wiki/"),
        pick("drop_param:foo"),
        pick("host:https://mirror.wiki.test=>https://wiki.test"),
    ];
    let groups = group(&l, &confirmed);
    let of = |url: &str| {
        let i = l.urls.iter().position(|u| u == url).unwrap() as u32;
        groups.iter().position(|g| g.members.contains(&i)).unwrap()
    };
    let page = of("https://wiki.test/wiki/Article_000");
    assert_eq!(of("https://wiki.test/w/index.php?title=Article_000"), page);
    assert_eq!(of("https://wiki.test/wiki/Article_000?foo=1"), page);
    assert_eq!(of("https://mirror.wiki.test/wiki/Article_000"), page);
    // The edit page stays apart: its rule was not confirmed.
    assert_ne!(
        of("https://wiki.test/w/index.php?title=Article_000&action=edit"),
        page
    );
    assert_ne!(of("https://wiki.test/wiki/Article_001"), page);
    assert_eq!(groups[0].members.len(), 4);
}

#[test]
fn rare_or_generic_parts_give_no_rule() {
    // Numbered pages share every envelope with each other: no substitution between
    // numbers, and one pair is not enough support.
    let mut urls: Vec<String> = (0..50)
        .map(|k| format!("https://s.test/page/{k}"))
        .collect();
    urls.push("https://s.test/a/x".into());
    urls.push("https://s.test/b/x".into());
    let l = learn(urls, &Options::default());
    assert!(l.candidates.is_empty(), "{:#?}", ids(&l));
}

#[test]
fn a_rewrite_cycle_ends() {
    let a = DustRule::new(DustRuleKind::Replace {
        from: "/a/".into(),
        to: "/b/".into(),
        next: vec![NextChar::Letter],
    });
    let b = DustRule::new(DustRuleKind::Replace {
        from: "/b/".into(),
        to: "/a/".into(),
        next: vec![NextChar::Letter],
    });
    let out = rewrite("https://s.test/a/x", &[&a, &b]);
    assert!(out == "https://s.test/a/x" || out == "https://s.test/b/x");
}

#[test]
fn a_parameter_never_seen_absent_is_probed_without_it() {
    let urls: Vec<String> = (0..6)
        .flat_map(|i| {
            [
                format!("https://w.test/log?page=A{i}"),
                format!("https://w.test/log?type=p&page=A{i}#x"),
            ]
        })
        .collect();
    let learned = learn(urls, &Options::default());
    let page = learned
        .candidates
        .iter()
        .find(|c| c.rule.id == "drop_param:page")
        .expect("a page candidate");
    let probes: Vec<&str> = page
        .rewrite_probes
        .iter()
        .map(|(_, u)| u.as_str())
        .collect();
    // One per context of other parameters, each the listed URL without `page`.
    assert_eq!(probes.len(), 2, "{probes:?}");
    assert!(probes.contains(&"https://w.test/log"), "{probes:?}");
    assert!(
        probes.contains(&"https://w.test/log?type=p#x"),
        "{probes:?}"
    );
    for (a, u) in &page.rewrite_probes {
        assert!(learned.urls[*a as usize].contains("page=A"));
        assert!(!u.contains("page="));
    }
    // A parameter the list also shows absent needs no probe.
    let mut urls: Vec<String> = (0..6).map(|i| format!("https://w.test/a{i}?s=1")).collect();
    urls.extend((0..6).map(|i| format!("https://w.test/a{i}")));
    let learned = learn(urls, &Options::default());
    let s = learned
        .candidates
        .iter()
        .find(|c| c.rule.id == "drop_param:s")
        .expect("an s candidate");
    assert!(s.rewrite_probes.is_empty());
}

/// A shop whose products answer under any slug before the id: the list holds an old
/// slug of each (`-old` inserted before the id) and a category under a second parent.
fn slug_list() -> Vec<String> {
    let mut urls = Vec::new();
    for k in 1..=12 {
        let slug = format!(
            "walking-the-{}-river-{k:03}",
            ["red", "green", "blue"][k % 3]
        );
        urls.push(format!("https://shop.test/catalogue/{slug}_{k}/"));
        urls.push(format!("https://shop.test/catalogue/{slug}-old_{k}/"));
        urls.push(format!("https://shop.test/catalogue/{slug}_{k}/reviews/"));
    }
    for c in ["books", "gear", "gifts", "maps"] {
        urls.push(format!("https://shop.test/catalogue/category/{c}_1/"));
        urls.push(format!("https://shop.test/catalogue/category/x-{c}_1/"));
    }
    urls
}

#[test]
fn a_word_inserted_in_the_middle_of_a_path_is_a_substitution() {
    let l = learn(slug_list(), &Options::default());
    let ids = ids(&l);
    assert!(ids.contains(&"replace:-old_=>_"), "{ids:#?}");
    assert!(ids.contains(&"replace:/x-=>/"), "{ids:#?}");
    let old = l
        .candidates
        .iter()
        .find(|c| c.rule.id == "replace:-old_=>_")
        .unwrap();
    assert_eq!(old.rule.support, 12);
    // The rule rewrites each old slug to its product, and its pairs are such.
    for &(a, b) in &old.pairs {
        let (a, b) = (&l.urls[a as usize], &l.urls[b as usize]);
        assert!(a.contains("-old_"), "{a}");
        assert_eq!(old.rule.apply(a).as_deref(), Some(b.as_str()));
    }
    assert_eq!(old.rule.precision, 1.0);
    // Different products share no middle part: no rule between two slugs.
    assert!(
        !ids.iter()
            .any(|i| i.contains("-red-") || i.contains("-green-")),
        "{ids:#?}"
    );
}

#[test]
fn a_rule_with_the_support_of_a_more_specific_one_is_not_a_second_candidate() {
    // The default order of each product's reviews: `/reviews/?sort=score` and
    // `/reviews/`. `?sort=score` → `` shows the same pairs as `/reviews/?sort=score` →
    // `/reviews/`: one candidate, the specific one.
    let mut urls = Vec::new();
    for k in 0..10 {
        urls.push(format!("https://shop.test/p/{k}/reviews/"));
        urls.push(format!("https://shop.test/p/{k}/reviews/?sort=score"));
    }
    let l = learn(urls, &Options::default());
    let ids = ids(&l);
    let sort: Vec<&&str> = ids.iter().filter(|i| i.contains("sort=score")).collect();
    assert_eq!(sort.len(), 1, "{ids:#?}");
    assert!(
        ids.contains(&"replace:/reviews/?sort=score=>/reviews/"),
        "{ids:#?}"
    );
    // A more specific rule with less support than the general one is kept beside it.
    let mut urls = Vec::new();
    for k in 0..10 {
        urls.push(format!("https://shop.test/p/{k}/reviews/"));
        urls.push(format!("https://shop.test/p/{k}/reviews/?sort=score"));
        if k < 5 {
            urls.push(format!("https://shop.test/c/{k}/"));
            urls.push(format!("https://shop.test/c/{k}/?sort=score"));
        }
    }
    let l = learn(urls, &Options::default());
    let both = super::tests::ids(&l);
    assert!(
        both.contains(&"replace:/reviews/?sort=score=>/reviews/"),
        "{both:#?}"
    );
    assert!(both.contains(&"replace:/?sort=score=>/"), "{both:#?}");
}

#[test]
fn a_candidate_the_confirmed_rules_compose_is_explained() {
    // Three forms of each page: `/p/N`, `/p/N/amp` and `/p/N/print`. `/print` → `/amp`
    // is a candidate too, but the two rules to the plain form join its pairs.
    let mut urls = Vec::new();
    for k in 0..6 {
        for tail in ["", "/amp", "/print"] {
            urls.push(format!("https://s.test/p/{k}{tail}"));
        }
    }
    let l = learn(urls, &Options::default());
    let ids = ids(&l);
    let find = |id: &str| {
        l.candidates
            .iter()
            .find(|c| c.rule.id == id)
            .unwrap_or_else(|| panic!("{id} in {ids:#?}"))
    };
    let amp = find("replace:/amp=>");
    let print = find("replace:/print=>");
    let composed = find("replace:/print=>/amp");
    assert!(explained(&l, composed, &[&amp.rule, &print.rule]));
    // One of the two alone does not join its pairs, and no rule explains nothing.
    assert!(!explained(&l, composed, &[&amp.rule]));
    assert!(!explained(&l, composed, &[&print.rule]));
    assert!(!explained(&l, amp, &[]));
    assert!(!explained(&l, amp, &[&print.rule]));
}

#[test]
fn rules_that_overlap_join_what_each_of_them_joins() {
    // A listing's first page under `LIST/page/1/` (a meta refresh to `LIST/`), and the
    // slash-less forms of both: `/page/1/` → `/` and `/page/1/` → `/page/1` both hold,
    // and the slash rule joins `LIST/` with `LIST`.
    let mut urls = Vec::new();
    for t in ["maps", "rivers", "towns", "roads"] {
        urls.push(format!("https://s.test/tags/{t}/"));
        urls.push(format!("https://s.test/tags/{t}"));
        urls.push(format!("https://s.test/tags/{t}/page/1/"));
        urls.push(format!("https://s.test/tags/{t}/page/1"));
    }
    let l = learn(urls, &Options::default());
    let rule = |from: &str, to: &str| {
        DustRule::new(DustRuleKind::Replace {
            from: from.into(),
            to: to.into(),
            next: vec![NextChar::End],
        })
    };
    let (first, slash, page) = (
        rule("/page/1/", "/"),
        rule("/", ""),
        rule("/page/1/", "/page/1"),
    );
    let groups = group(&l, &[&page, &first, &slash]);
    assert_eq!(groups.len(), 4, "{groups:#?}");
    assert!(groups.iter().all(|g| g.members.len() == 4), "{groups:#?}");
    assert!(
        groups
            .iter()
            .any(|g| g.canonical == "https://s.test/tags/maps"),
        "{groups:#?}"
    );
}

#[test]
fn a_host_and_its_ip_address_serving_the_same_paths_are_a_host_alias() {
    // As many URLs under each origin, and names of one length: the alias still has one
    // direction, toward the host name.
    let mut urls = Vec::new();
    for k in 0..8 {
        urls.push(format!("http://localhost:8080/p/{k}"));
        urls.push(format!("http://127.0.0.1:8080/p/{k}"));
    }
    let l = learn(urls, &Options::default());
    let ids = ids(&l);
    assert!(
        ids.contains(&"host:http://127.0.0.1:8080=>http://localhost:8080"),
        "{ids:#?}"
    );
    assert!(
        !ids.iter().any(|i| i.starts_with("host:http://localhost")),
        "{ids:#?}"
    );
    // A twin with fewer URLs goes to the host with more, whatever their names (the seo
    // preset already joins `www.` and the bare host).
    let mut urls = Vec::new();
    for k in 0..8 {
        urls.push(format!("https://shop.example.test/p/{k}"));
        if k < 5 {
            urls.push(format!("https://m.test/p/{k}"));
        }
    }
    let l = learn(urls, &Options::default());
    let ids = super::tests::ids(&l);
    assert!(
        ids.contains(&"host:https://m.test=>https://shop.example.test"),
        "{ids:#?}"
    );
}
