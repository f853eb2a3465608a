//! Fix simulation on a small site built by hand: Dustpan's own plan simulates clean,
//! and plans with a chain, a loop, a redirect to a 404 and a canonical to a redirect
//! are reported.

use audit::simulate::{Plan, ProblemKind, simulate};
use audit::{AnalysisConfig, AuditInput, FetchRow, LinkRow, RedirectLine, UrlRow, analyse};

const HOME: &str = "https://s.test/";

fn url(id: u32, u: &str) -> UrlRow {
    UrlRow {
        id,
        url: u.into(),
        ..UrlRow::default()
    }
}

fn page(id: u32, text: u64, title: &str) -> FetchRow {
    FetchRow {
        url_id: id,
        status: Some(200),
        content_type: Some("text/html".into()),
        text_hash: Some(text),
        simhash: Some(text.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        word_count: Some(300),
        title: Some(title.into()),
        ..FetchRow::default()
    }
}

fn link(from: u32, to: u32) -> LinkRow {
    LinkRow {
        from,
        to: Some(to),
        ..LinkRow::default()
    }
}

/// A home page linking to /a, its duplicate /a/, /b and /c; /gone answers 404.
fn site() -> AuditInput {
    AuditInput {
        urls: vec![
            url(1, HOME),
            url(2, "https://s.test/a"),
            url(3, "https://s.test/a/"),
            url(4, "https://s.test/b"),
            url(5, "https://s.test/c"),
            url(6, "https://s.test/gone"),
        ],
        fetches: vec![
            page(1, 1, "Home"),
            page(2, 2, "A"),
            page(3, 2, "A"),
            page(4, 4, "B"),
            page(5, 5, "C"),
            FetchRow {
                url_id: 6,
                status: Some(404),
                ..FetchRow::default()
            },
        ],
        links: vec![link(1, 2), link(1, 3), link(1, 4), link(1, 5), link(4, 1)].into(),
        ..AuditInput::default()
    }
}

/// The preferred URL of the site's one cluster (/a and /a/), and its other member.
fn preferred_and_duplicate(before: &audit::Analysis) -> (String, String) {
    let cluster = &before.clusters[0];
    let preferred = cluster.preferred_url.clone();
    let duplicate = cluster
        .members
        .iter()
        .find(|m| m.url != preferred)
        .map_or_else(|| panic!("no duplicate of {preferred}"), |m| m.url.clone());
    (preferred, duplicate)
}

fn line(source: &str, target: &str) -> RedirectLine {
    RedirectLine {
        source: source.into(),
        target: target.into(),
        status: 301,
        today: None,
    }
}

#[test]
fn dustpans_own_plan_is_clean() {
    let input = site();
    let config = AnalysisConfig::default();
    let before = analyse(&input, &config);
    assert_eq!(before.clusters.len(), 1, "{:#?}", before.clusters);
    let plan = Plan::of(&input, &before);
    assert!(
        !plan.fixes.redirects.is_empty() || !plan.fixes.canonicals.is_empty(),
        "the duplicate gets a fix"
    );
    let sim = simulate(&input, &config, &before, &plan);
    assert!(sim.clean(), "{:#?}", sim.problems);
    // The duplicate's finding is resolved on the simulated site.
    assert!(!sim.findings.resolved.is_empty(), "{:#?}", sim.findings);
}

#[test]
fn a_broken_plan_is_reported() {
    let input = site();
    let config = AnalysisConfig::default();
    let before = analyse(&input, &config);
    let mut plan = Plan::of(&input, &before);
    let r = &mut plan.fixes.redirects;
    // A chain: /old -> /b -> /c.
    r.push(line("https://s.test/old", "https://s.test/b"));
    r.push(line("https://s.test/b", "https://s.test/c"));
    // A redirect to a 404.
    r.push(line("https://s.test/was", "https://s.test/gone"));
    // A loop.
    r.push(line("https://s.test/p", "https://s.test/q"));
    r.push(line("https://s.test/q", "https://s.test/p"));
    // A canonical naming a URL the plan redirects.
    plan.fixes.canonicals.push(audit::CanonicalTag {
        page: "https://s.test/c".into(),
        href: "https://s.test/b".into(),
        present: false,
    });
    let sim = simulate(&input, &config, &before, &plan);
    assert!(!sim.clean());
    let has =
        |kind: ProblemKind, url: &str| sim.problems.iter().any(|p| p.kind == kind && p.url == url);
    assert!(
        has(ProblemKind::RedirectChain, "https://s.test/old"),
        "{:#?}",
        sim.problems
    );
    assert!(
        has(ProblemKind::RedirectToError, "https://s.test/was"),
        "{:#?}",
        sim.problems
    );
    assert!(
        has(ProblemKind::RedirectLoop, "https://s.test/p"),
        "{:#?}",
        sim.problems
    );
    assert!(
        has(ProblemKind::CanonicalToRedirect, "https://s.test/c"),
        "{:#?}",
        sim.problems
    );
    // /b's content is on no other page: redirecting it away loses it.
    assert!(
        has(ProblemKind::ContentLost, "https://s.test/b"),
        "{:#?}",
        sim.problems
    );
    // /c names /b canonical, which redirects: no indexable page keeps /c's content.
    assert!(
        has(ProblemKind::ContentLost, "https://s.test/c"),
        "{:#?}",
        sim.problems
    );
}

#[test]
fn a_page_whose_only_link_is_removed_is_an_orphan() {
    let input = site();
    let config = AnalysisConfig::default();
    let before = analyse(&input, &config);
    let mut plan = Plan::of(&input, &before);
    plan.links.push(audit::simulate::LinkChange {
        page: None,
        from: "https://s.test/c".into(),
        to: None,
    });
    let sim = simulate(&input, &config, &before, &plan);
    assert_eq!(sim.count(ProblemKind::Orphan), 1, "{:#?}", sim.problems);
    assert_eq!(sim.problems[0].url, "https://s.test/c");
}

#[test]
fn plan_files_read_back_and_bad_ones_are_errors() {
    let fixes = audit::simulate::read_fix_files(
        Some("source,target,status,change,site_status,site_target\nhttps://s.test/a/,https://s.test/a,301,changed,302,https://s.test/a\n"),
        Some("page,canonical,present\nhttps://s.test/x,https://s.test/a,false\n"),
        Some("action,sitemap,loc,replacement\nreplace,https://s.test/sitemap.xml,https://s.test/a/,https://s.test/a\nadd,https://s.test/sitemap.xml,https://s.test/b,\n"),
    )
    .unwrap();
    assert_eq!(fixes.redirects.len(), 1);
    assert_eq!(fixes.redirects[0].today.as_ref().unwrap().status, 302);
    assert_eq!(fixes.canonicals[0].href, "https://s.test/a");
    assert_eq!(
        fixes.sitemap_remove[0].with.as_deref(),
        Some("https://s.test/a")
    );
    assert_eq!(fixes.sitemap_add[0].loc, "https://s.test/b");
    let err = audit::simulate::read_fix_files(Some("source,target,status\na,b,200\n"), None, None)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "redirect_map.csv line 2: status `200` is not a redirect status"
    );
    let err = audit::simulate::read_fix_files(None, Some("url,href\n"), None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "canonicals_to_set.csv line 1: no `page` column"
    );
    let err = audit::simulate::read_fix_files(None, None, Some("action,sitemap,loc\nmove,s,l\n"))
        .unwrap_err();
    assert!(err.to_string().contains("action `move`"), "{err}");
}

#[test]
fn a_plan_that_leaves_the_duplicate_is_unresolved_and_a_redirect_to_it_non_preferred() {
    let input = site();
    let config = AnalysisConfig::default();
    let before = analyse(&input, &config);
    let (preferred, duplicate) = preferred_and_duplicate(&before);
    // Nothing for the cluster, and an old URL sent to the duplicate.
    let plan = Plan {
        fixes: audit::FixFiles {
            redirects: vec![line("https://s.test/old", &duplicate)],
            ..audit::FixFiles::default()
        },
        ..Plan::default()
    };
    let sim = simulate(&input, &config, &before, &plan);
    let kinds: Vec<ProblemKind> = sim.problems.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [
            ProblemKind::RedirectToNonPreferred,
            ProblemKind::ClusterUnresolved
        ],
        "{:#?}",
        sim.problems
    );
    assert_eq!(sim.problems[0].url, "https://s.test/old");
    assert_eq!(sim.problems[1].url, preferred);
}

#[test]
fn the_plan_files_read_back_exactly() {
    // A `;` followed by a formula character is a URL, not a spreadsheet formula: the
    // plan files keep it as it is, so the plan read back names the same URLs.
    let fixes = audit::FixFiles {
        redirects: vec![RedirectLine {
            source: "https://s.test/a;=1+1,x".into(),
            target: "https://s.test/b;-2\"q\"".into(),
            status: 308,
            today: None,
        }],
        canonicals: vec![audit::CanonicalTag {
            page: "https://s.test/p;@x".into(),
            href: "https://s.test/p".into(),
            present: true,
        }],
        sitemap_add: vec![audit::SitemapChange {
            sitemap: "https://s.test/sitemap.xml".into(),
            loc: "https://s.test/n;+1".into(),
            with: None,
        }],
        sitemap_remove: vec![audit::SitemapChange {
            sitemap: "https://s.test/sitemap.xml".into(),
            loc: "https://s.test/o".into(),
            with: Some("https://s.test/o;=2".into()),
        }],
        ..audit::FixFiles::default()
    };
    let back = audit::simulate::read_fix_files(
        Some(&fixes.redirects_csv()),
        Some(&fixes.canonicals_csv()),
        Some(&fixes.sitemap_csv()),
    )
    .unwrap();
    assert_eq!(back, fixes);
}

#[test]
fn a_migration_map_is_checked_on_the_new_site() {
    // The new site: site(), and /moved, which redirects to /b.
    let mut input = site();
    input.urls.push(url(7, "https://s.test/moved"));
    input.fetches.push(FetchRow {
        url_id: 7,
        status: Some(301),
        redirect_to: Some(4),
        ..FetchRow::default()
    });
    input.redirects.push(audit::RedirectRow {
        from: 7,
        to: Some(4),
        status: 301,
        kind: audit::HopKind::Http,
        hop_index: 0,
    });
    let config = AnalysisConfig::default();
    let before = analyse(&input, &config);
    let (preferred, duplicate) = preferred_and_duplicate(&before);
    let map = |rows: &[(&str, &str)]| {
        Plan::migration(audit::FixFiles {
            redirects: rows.iter().map(|(s, t)| line(s, t)).collect(),
            ..audit::FixFiles::default()
        })
    };

    // The old site's URLs, which the new audit never saw, to its preferred pages: clean,
    // though the new site's own duplicate is not resolved (its own plan's business).
    let good = [
        ("https://old.test/a", preferred.as_str()),
        ("https://old.test/b", "https://s.test/b"),
    ];
    let sim = simulate(&input, &config, &before, &map(&good));
    assert!(sim.clean(), "{:#?}", sim.problems);
    assert_eq!(sim.applied.redirects, 2);
    // The same rows as Dustpan's own kind of plan would flag that duplicate.
    let mut own = map(&good);
    own.migration = false;
    let sim = simulate(&input, &config, &before, &own);
    assert_eq!(
        sim.count(ProblemKind::ClusterUnresolved),
        1,
        "{:#?}",
        sim.problems
    );

    // Edited by hand: a row to a 404, one to a URL the new audit never fetched, one to a
    // URL that redirects, one to the non-preferred duplicate, and one redirecting a page
    // the new site serves.
    let mut rows = good.to_vec();
    rows.extend([
        ("https://old.test/gone", "https://s.test/gone"),
        ("https://old.test/never", "https://s.test/never"),
        ("https://old.test/hop", "https://s.test/moved"),
        ("https://old.test/dup", duplicate.as_str()),
        ("https://s.test/c", "https://s.test/b"),
    ]);
    let sim = simulate(&input, &config, &before, &map(&rows));
    let has =
        |kind: ProblemKind, url: &str| sim.problems.iter().any(|p| p.kind == kind && p.url == url);
    for (kind, url) in [
        (ProblemKind::RedirectToError, "https://old.test/gone"),
        (ProblemKind::RedirectToError, "https://old.test/never"),
        (ProblemKind::RedirectChain, "https://old.test/hop"),
        (ProblemKind::RedirectToNonPreferred, "https://old.test/dup"),
        (ProblemKind::PageTakenOut, "https://s.test/c"),
    ] {
        assert!(has(kind, url), "{kind:?} {url}: {:#?}", sim.problems);
    }
    for url in ["https://old.test/a", "https://old.test/b"] {
        assert!(
            !sim.problems.iter().any(|p| p.url == url),
            "{url}: {:#?}",
            sim.problems
        );
    }
    let gone = sim
        .problems
        .iter()
        .find(|p| p.url == "https://old.test/gone")
        .unwrap();
    assert!(gone.detail.ends_with("which answers 404"), "{gone:?}");
}
