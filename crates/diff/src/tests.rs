//! The diff of hand-made audits run through the real analysis.

use crate::{ClusterChangeKind, Presence, diff};
use audit::{
    AnalysisConfig, AuditInput, CanonicalRow, DeclarationSource, FetchRow, LinkRow, RedirectRow,
    SitemapEntryRow, SitemapRow, UrlRow, analyse,
};

/// A small site: URLs with a status, a text fingerprint, an optional redirect target and
/// canonical, listed in one sitemap or not. `order` gives each URL's id, so the same site
/// can be "crawled" in another order.
struct Page {
    url: &'static str,
    status: u16,
    text: u64,
    redirect: Option<&'static str>,
    canonical: Option<&'static str>,
    in_sitemap: bool,
}

fn page(url: &'static str, text: u64) -> Page {
    Page {
        url,
        status: 200,
        text,
        redirect: None,
        canonical: None,
        in_sitemap: true,
    }
}

/// A fingerprint far (about 32 bits) from every other one.
fn spread(text: u64) -> u64 {
    text.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn build(pages: &[Page], order: &[usize]) -> AuditInput {
    assert_eq!(pages.len(), order.len());
    let id_of = |url: &str| -> u32 {
        let i = pages.iter().position(|p| p.url == url).expect("known URL");
        order[i] as u32 + 1
    };
    let mut input = AuditInput {
        sitemaps: vec![SitemapRow {
            id: 1,
            url: "https://example.com/sitemap.xml".into(),
            kind: "urlset".into(),
            status: Some(200),
            ..SitemapRow::default()
        }],
        ..AuditInput::default()
    };
    let mut rows: Vec<(u32, &Page)> = pages.iter().map(|p| (id_of(p.url), p)).collect();
    rows.sort_by_key(|r| r.0);
    for (id, p) in rows {
        input.urls.push(UrlRow {
            id,
            url: p.url.into(),
            ..UrlRow::default()
        });
        let content = p.status == 200 && p.redirect.is_none();
        input.fetches.push(FetchRow {
            url_id: id,
            status: Some(p.status),
            redirect_to: p.redirect.map(id_of),
            text_hash: content.then_some(spread(p.text)),
            simhash: content.then_some(spread(p.text)),
            word_count: Some(if content { 300 } else { 0 }),
            ..FetchRow::default()
        });
        if let Some(to) = p.redirect {
            input.redirects.push(RedirectRow {
                from: id,
                to: Some(id_of(to)),
                status: p.status,
                ..RedirectRow::default()
            });
        }
        if let Some(c) = p.canonical {
            input.canonicals.push(CanonicalRow {
                page: id,
                position: 0,
                target: Some(id_of(c)),
                href_raw: c.into(),
                source: DeclarationSource::LinkElement,
                in_head: true,
            });
        }
        if p.in_sitemap {
            input.sitemap_entries.push(SitemapEntryRow {
                sitemap_id: 1,
                url_id: Some(id),
                loc_raw: p.url.into(),
            });
        }
        if p.url != "https://example.com/" {
            input.links.push(LinkRow {
                from: id_of("https://example.com/"),
                to: Some(id),
                ..LinkRow::default()
            });
        }
    }
    input
}

fn before() -> Vec<Page> {
    vec![
        page("https://example.com/", 1),
        page("https://example.com/shoes", 2),
        Page {
            in_sitemap: false,
            ..page("https://example.com/shoes/", 2)
        },
        page("https://example.com/hats", 3),
        page("https://example.com/socks", 4),
        Page {
            status: 301,
            redirect: Some("https://example.com/socks"),
            ..page("https://example.com/old-socks", 0)
        },
    ]
}

#[test]
fn the_same_site_crawled_in_another_order_gives_an_empty_diff() {
    let pages = before();
    let cfg = AnalysisConfig::default();
    let a = build(&pages, &[0, 1, 2, 3, 4, 5]);
    let b = build(&pages, &[5, 3, 1, 4, 0, 2]);
    let (x, y) = (analyse(&a, &cfg), analyse(&b, &cfg));
    assert!(!x.clusters.is_empty() && !x.findings.is_empty());
    let d = diff((&a, &x), (&b, &y));
    assert!(d.is_empty(), "{d:#?}");
    assert!(d.sections().iter().all(|t| t.rows.is_empty()));
    assert_eq!(
        d.summary()
            .iter()
            .find(|(l, _)| *l == crate::PERSISTING)
            .map(|s| s.1),
        Some(x.findings.len())
    );
}

#[test]
fn a_fixed_duplicate_a_new_page_and_a_new_canonical() {
    let cfg = AnalysisConfig::default();
    let old_pages = before();
    let mut new_pages = before();
    // /shoes/ now 301s to /shoes; /hats declares itself canonical; /socks is gone (404)
    // with its redirect; /boots is new.
    new_pages[2] = Page {
        status: 301,
        redirect: Some("https://example.com/shoes"),
        in_sitemap: false,
        ..page("https://example.com/shoes/", 0)
    };
    new_pages[3].canonical = Some("https://example.com/hats");
    new_pages.remove(5);
    new_pages[4] = Page {
        status: 404,
        in_sitemap: false,
        ..page("https://example.com/socks", 0)
    };
    new_pages.push(page("https://example.com/boots", 9));
    let a = build(&old_pages, &[0, 1, 2, 3, 4, 5]);
    let b = build(&new_pages, &[2, 0, 4, 1, 3, 5]);
    let (x, y) = (analyse(&a, &cfg), analyse(&b, &cfg));
    let d = diff((&a, &x), (&b, &y));

    let responses: Vec<(&str, &str, &str)> = d
        .responses
        .iter()
        .map(|r| (r.url.as_str(), r.old_status.as_str(), r.new_status.as_str()))
        .collect();
    assert_eq!(
        responses,
        vec![
            ("https://example.com/shoes/", "200", "301"),
            ("https://example.com/socks", "200", "404"),
        ]
    );
    assert_eq!(
        d.responses[0].new_target.as_deref(),
        Some("https://example.com/shoes")
    );

    let canonicals: Vec<(&str, Vec<String>, Vec<String>)> = d
        .canonicals
        .iter()
        .map(|c| (c.url.as_str(), c.old.clone(), c.new.clone()))
        .collect();
    assert_eq!(
        canonicals,
        vec![(
            "https://example.com/hats",
            vec![],
            vec!["https://example.com/hats".to_owned()]
        )]
    );

    let urls: Vec<(Presence, &str)> = d.urls.iter().map(|u| (u.change, u.url.as_str())).collect();
    assert_eq!(
        urls,
        vec![
            (Presence::Added, "https://example.com/boots"),
            (Presence::Removed, "https://example.com/old-socks"),
        ]
    );
    let entries: Vec<(Presence, &str)> = d
        .sitemap_entries
        .iter()
        .map(|e| (e.change, e.url.as_str()))
        .collect();
    assert_eq!(
        entries,
        vec![
            (Presence::Added, "https://example.com/boots"),
            (Presence::Removed, "https://example.com/old-socks"),
            (Presence::Removed, "https://example.com/socks"),
        ]
    );

    // The /shoes cluster stays, its slash variant now redirects; the /socks cluster
    // (old-socks redirecting to it) dissolved.
    let shoes = d
        .clusters
        .iter()
        .find(|c| c.label() == "https://example.com/shoes")
        .expect("the /shoes cluster changed");
    assert_eq!(shoes.kind, ClusterChangeKind::Changed);
    assert_eq!(shoes.now_redirecting(), 1);
    assert!(d.clusters.iter().any(
        |c| c.kind == ClusterChangeKind::Dissolved && c.label() == "https://example.com/socks"
    ));
    assert_eq!(d.clusters.len(), 2, "{:#?}", d.clusters);

    // Findings: compared by key, new and resolved sets are disjoint and cover the change.
    let all_old: Vec<&str> = x.findings.iter().map(|f| f.key.as_str()).collect();
    let all_new: Vec<&str> = y.findings.iter().map(|f| f.key.as_str()).collect();
    for f in &d.findings.resolved {
        assert!(all_old.contains(&f.key.as_str()) && !all_new.contains(&f.key.as_str()));
    }
    for f in &d.findings.new {
        assert!(all_new.contains(&f.key.as_str()) && !all_old.contains(&f.key.as_str()));
    }
    assert!(
        d.findings.resolved.iter().any(|f| f.code == "DUP-SLASH"),
        "{:#?}",
        d.findings
    );

    // The tables carry the same rows, spreadsheet-safe once written.
    let sections = d.sections();
    let rows = |key: &str| {
        sections
            .iter()
            .find(|t| t.key == key)
            .map(|t| t.rows.len())
            .unwrap_or(usize::MAX)
    };
    assert_eq!(rows("responses"), 2);
    assert_eq!(rows("urls"), 2);
    assert_eq!(rows("sitemap_entries"), 3);
    assert_eq!(
        rows("findings"),
        d.findings.new.len() + d.findings.resolved.len()
    );
}

#[test]
fn csv_cells_are_spreadsheet_safe() {
    use audit::export::{ColumnType, Header};
    let text = |title| Header {
        title,
        kind: ColumnType::Text,
    };
    let table = crate::DiffTable {
        key: "t",
        title: "T",
        headers: vec![text("A"), text("B")],
        rows: vec![vec!["=HYPERLINK(\"x\")".into(), "a,\"b\"\nc".into()]],
    };
    let mut out = Vec::new();
    table.write_csv(&mut out).expect("writes");
    assert_eq!(
        String::from_utf8(out).expect("UTF-8"),
        "A,B\n\"'=HYPERLINK(\"\"x\"\")\",\"a,\"\"b\"\"\nc\"\n"
    );
}

/// A URL column keeps the URL as crawled, as the report's export does: a `'` inserted
/// after its `;` would make it another URL. The text columns beside it stay defused.
#[test]
fn csv_url_columns_keep_the_exact_url() {
    let url = "https://example.com/a;=1+1?b=1;-2";
    let d = crate::AuditDiff {
        urls: vec![crate::UrlChange {
            change: crate::Presence::Added,
            url: url.to_owned(),
            status: "=1+1".to_owned(),
        }],
        responses: vec![crate::ResponseChange {
            url: url.to_owned(),
            old_status: "200".to_owned(),
            new_status: "301".to_owned(),
            old_target: None,
            new_target: Some(format!("{url}/x")),
        }],
        ..Default::default()
    };
    let csv = |key: &str| {
        let table = d.sections().into_iter().find(|t| t.key == key).unwrap();
        let mut out = Vec::new();
        table.write_csv(&mut out).expect("writes");
        String::from_utf8(out).expect("UTF-8")
    };
    assert_eq!(
        csv("urls"),
        format!("Change,URL,Status\nadded,{url},'=1+1\n")
    );
    assert_eq!(
        csv("responses"),
        format!(
            "URL,Status before,Status now,Redirect before,Redirect now\n{url},200,301,,{url}/x\n"
        )
    );
}

#[test]
fn findings_on_urls_the_newer_audit_did_not_fetch_are_not_crawled_not_resolved() {
    let cfg = AnalysisConfig::default();
    let full = build(&before(), &[0, 1, 2, 3, 4, 5]);
    // The newer audit stopped at a limit: it found /shoes/ but never fetched it.
    let mut capped = build(&before(), &[0, 1, 2, 3, 4, 5]);
    let slash = capped
        .urls
        .iter()
        .find(|u| u.url == "https://example.com/shoes/")
        .unwrap()
        .id;
    capped.fetches.retain(|f| f.url_id != slash);
    for u in &mut capped.urls {
        if u.id == slash {
            u.state = audit::UrlState::Queued;
        }
    }
    let (x, y) = (analyse(&full, &cfg), analyse(&capped, &cfg));
    let d = diff((&full, &x), (&capped, &y));
    assert!(
        d.findings
            .resolved
            .iter()
            .all(|f| !f.urls.iter().any(|u| u == "https://example.com/shoes/")),
        "{:#?}",
        d.findings.resolved
    );
    assert!(
        d.findings
            .not_crawled
            .iter()
            .any(|f| f.urls.iter().any(|u| u == "https://example.com/shoes/")),
        "{:#?}",
        d.findings
    );
    assert_eq!(
        d.warnings[0],
        "the newer audit stopped at a limit: 1 URLs it found were not crawled"
    );
    let rows = &d.sections()[0].rows;
    assert!(rows.iter().any(|r| r[0] == "not crawled"), "{rows:?}");
}

/// The same rule the other way: what an older audit stopped at a limit never fetched is
/// not new in the newer one, neither a finding, nor a cluster, nor a status.
#[test]
fn what_the_older_audit_did_not_fetch_is_not_new_nor_a_status_change() {
    let cfg = AnalysisConfig::default();
    let full = build(&before(), &[0, 1, 2, 3, 4, 5]);
    let mut capped = build(&before(), &[0, 1, 2, 3, 4, 5]);
    let slash = capped
        .urls
        .iter()
        .find(|u| u.url == "https://example.com/shoes/")
        .unwrap()
        .id;
    capped.fetches.retain(|f| f.url_id != slash);
    for u in &mut capped.urls {
        if u.id == slash {
            u.state = audit::UrlState::Queued;
        }
    }
    let (x, y) = (analyse(&capped, &cfg), analyse(&full, &cfg));
    let d = diff((&capped, &x), (&full, &y));
    let on_slash = |f: &crate::FindingRef| f.urls.iter().any(|u| u == "https://example.com/shoes/");
    assert!(
        !d.findings.new.iter().any(on_slash),
        "{:#?}",
        d.findings.new
    );
    assert!(
        d.findings.not_in_older.iter().any(on_slash),
        "{:#?}",
        d.findings
    );
    assert!(d.responses.is_empty(), "{:#?}", d.responses);
    assert_eq!(d.not_compared.len(), 1, "{:#?}", d.not_compared);
    assert!(
        d.not_compared[0]
            .why
            .starts_with("the older audit stopped before fetching it"),
        "{:?}",
        d.not_compared[0]
    );
    assert!(
        !d.clusters
            .iter()
            .any(|c| c.kind == ClusterChangeKind::Formed),
        "{:#?}",
        d.clusters
    );
    assert_eq!(d.clusters_not_comparable.len(), 1, "{d:#?}");
    assert_eq!(
        d.warnings[0],
        "the older audit stopped at a limit: 1 URLs it found were not crawled"
    );
    assert!(
        d.warnings
            .iter()
            .any(|w| w.starts_with("the older audit is partial") && w.contains("1 clusters")),
        "{:?}",
        d.warnings
    );
    assert!(
        d.warnings
            .iter()
            .any(|w| w.starts_with("1 URLs are not compared")),
        "{:?}",
        d.warnings
    );
    let summary: std::collections::HashMap<_, _> = d.summary().into_iter().collect();
    assert_eq!(summary[crate::NOT_COMPARED], 1);
    let rows = &d.sections()[0].rows;
    assert!(
        rows.iter().any(|r| r[0] == "not in the older audit"),
        "{rows:?}"
    );
}

/// An older audit whose own configuration kept URLs out (an exclude pattern, nofollow not
/// followed) has no status for them: they are not compared, counted apart with the
/// reason in words, and no finding or cluster on them is new. What the site decided
/// (robots.txt) stays a change.
#[test]
fn what_the_older_audit_s_own_rules_kept_out_is_not_compared() {
    let cfg = AnalysisConfig::default();
    let mut narrow = build(&before(), &[0, 1, 2, 3, 4, 5]);
    let id = |input: &AuditInput, url: &str| input.urls.iter().find(|u| u.url == url).unwrap().id;
    let kept_out = [
        ("https://example.com/shoes", audit::ReasonKind::OutOfScope),
        ("https://example.com/shoes/", audit::ReasonKind::OutOfScope),
        ("https://example.com/hats", audit::ReasonKind::Nofollow),
        ("https://example.com/socks", audit::ReasonKind::RobotsTxt),
    ];
    for (url, kind) in kept_out {
        let gone = id(&narrow, url);
        narrow.fetches.retain(|f| f.url_id != gone);
        narrow.sitemap_entries.retain(|e| e.url_id != Some(gone));
        let row = narrow.urls.iter_mut().find(|u| u.id == gone).unwrap();
        row.state = if kind == audit::ReasonKind::RobotsTxt {
            audit::UrlState::Blocked
        } else {
            audit::UrlState::Skipped
        };
        row.reason = Some(kind.into());
    }
    // A URL the older audit never met, that its pattern would keep out.
    let mut wider = before();
    wider.push(page("https://example.com/shoes/boots", 9));
    let mut order: Vec<usize> = (0..before().len()).collect();
    order.push(before().len());
    let full_more = build(&wider, &order);
    let rules = crate::CrawlRules::new(&[], &["shoes".to_owned()]);
    let none = crate::CrawlRules::default();
    let (x, y) = (analyse(&narrow, &cfg), analyse(&full_more, &cfg));
    let d = crate::diff_with_rules((&narrow, &x), (&full_more, &y), [&rules, &none]);
    let changed: Vec<&str> = d.responses.iter().map(|r| r.url.as_str()).collect();
    assert_eq!(changed, ["https://example.com/socks"], "{:#?}", d.responses);
    let not: Vec<(&str, &str)> = d
        .not_compared
        .iter()
        .map(|n| (n.url.as_str(), n.why.as_str()))
        .collect();
    assert_eq!(
        not,
        [
            (
                "https://example.com/hats",
                "outside the older audit's crawl rules: found only through nofollow links, not followed"
            ),
            (
                "https://example.com/shoes",
                "outside the older audit's crawl rules: excluded by pattern `shoes`"
            ),
            (
                "https://example.com/shoes/",
                "outside the older audit's crawl rules: excluded by pattern `shoes`"
            ),
            (
                "https://example.com/shoes/boots",
                "outside the older audit's crawl rules: excluded by pattern `shoes`"
            ),
        ]
    );
    assert!(d.urls.is_empty(), "{:#?}", d.urls);
    let on_kept_out = |f: &crate::FindingRef| {
        f.urls
            .iter()
            .any(|u| u.contains("/shoes") || u.ends_with("/hats"))
    };
    assert!(!d.findings.new.iter().any(on_kept_out), "{:#?}", d.findings);
    assert!(
        !d.clusters
            .iter()
            .any(|c| c.kind == ClusterChangeKind::Formed),
        "{:#?}",
        d.clusters
    );
    let summary: std::collections::HashMap<_, _> = d.summary().into_iter().collect();
    assert_eq!(summary[crate::NOT_COMPARED], 4);
    assert_eq!(summary["status or redirect changes"], 1);
    let table = d
        .sections()
        .into_iter()
        .find(|t| t.key == "not_compared")
        .unwrap();
    assert_eq!(table.rows.len(), 4);
    assert_eq!(table.rows[1][1], "not fetched (skipped)");
    assert_eq!(table.rows[1][2], "200");
    // The other way round, the newer audit's rules kept them out: nothing about them is
    // resolved, dissolved or removed.
    let back = crate::diff_with_rules((&full_more, &y), (&narrow, &x), [&none, &rules]);
    assert_eq!(back.not_compared.len(), 4, "{:#?}", back.not_compared);
    assert!(
        back.not_compared
            .iter()
            .all(|n| n.why.starts_with("outside the newer audit's crawl rules: ")),
        "{:#?}",
        back.not_compared
    );
    assert!(back.urls.is_empty(), "{:#?}", back.urls);
    assert!(
        !back.findings.resolved.iter().any(on_kept_out),
        "{:#?}",
        back.findings
    );
    assert!(
        !back
            .clusters
            .iter()
            .any(|c| c.kind == ClusterChangeKind::Dissolved),
        "{:#?}",
        back.clusters
    );
    assert!(
        !back
            .warnings
            .iter()
            .any(|w| w.contains("older audit is partial")),
        "{:?}",
        back.warnings
    );
    // Without the patterns the reason is still said, less precisely.
    let plain = diff((&narrow, &x), (&full_more, &y));
    assert_eq!(
        plain.not_compared[1].why,
        "outside the older audit's crawl rules: outside its hosts or patterns"
    );
}

/// The tables state what their columns hold: a reader never guesses from the cells. A
/// status is a number column (words where a URL got no answer).
#[test]
fn every_column_states_what_it_holds() {
    use audit::export::ColumnType;
    let d = crate::AuditDiff::default();
    for t in d.sections() {
        for h in &t.headers {
            let want = if h.title.starts_with("Status")
                || ["URLs before", "URLs now"].contains(&h.title)
            {
                ColumnType::Number
            } else if h.title.contains("URL")
                || h.title.starts_with("Canonical")
                || h.title.starts_with("Redirect")
                || ["Addresses", "Cluster", "Sitemap"].contains(&h.title)
            {
                ColumnType::Url
            } else {
                ColumnType::Text
            };
            assert_eq!(h.kind, want, "{}: {}", t.key, h.title);
        }
    }
}
