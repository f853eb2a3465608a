//! Titles, first headings and meta descriptions shared by different pages.

use super::{B, check, only};
use crate::*;

fn u(path: &str) -> String {
    format!("https://example.com{path}")
}

/// Pages with unrelated text (never one page), each with the title, h1 and description
/// given.
fn site(pages: &[(&str, &str, &str, &str)]) -> B {
    let mut b = B::new();
    for (k, (path, title, h1, description)) in pages.iter().enumerate() {
        b.page(&u(path), 100 + k as u64)
            .texts(&u(path), title, h1, description);
    }
    b
}

#[test]
fn different_pages_sharing_a_title_are_one_finding_per_value() {
    let b = site(&[
        ("/roundup/1", "Weekly roundup", "Roundup 1", "Our week."),
        ("/roundup/2", "Weekly roundup", "Roundup 2", "Our week."),
        (
            "/roundup/3",
            "Weekly roundup",
            "Roundup 3",
            "The third week.",
        ),
        ("/pricing", "Pricing", "Pricing", "What it costs."),
        ("/plans", "Pricing", "Plans", "What plans cost."),
        ("/about", "About us", "About us", "Who we are."),
    ]);
    let a = b.analyse();
    check(
        &a,
        "TITLE-DUPLICATE https://example.com/roundup/1 https://example.com/roundup/2 https://example.com/roundup/3
         TITLE-DUPLICATE https://example.com/plans https://example.com/pricing
         META-DESCRIPTION-DUPLICATE https://example.com/roundup/1 https://example.com/roundup/2",
    );
    let f = a
        .findings_with(FindingId::TitleDuplicate)
        .find(|f| f.urls.len() == 3)
        .unwrap();
    assert_eq!(
        f.summary,
        "3 different pages share the title \"Weekly roundup\"."
    );
    assert_eq!(f.key, "TITLE-DUPLICATE weekly roundup");
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(
        f.fixes[0].to_string(),
        "Give each of the 3 pages a title of its own that says what sets it apart from the \
         others: https://example.com/roundup/1, https://example.com/roundup/2 and \
         https://example.com/roundup/3. Where a template or a default of the site writes the \
         title, change it there, so that it writes each page's own."
    );
    // Every shared value, with every page, for the export.
    let values: Vec<(MetaElement, &str, usize)> = a
        .duplicate_values
        .iter()
        .map(|v| (v.element, v.value.as_str(), v.pages.len()))
        .collect();
    assert_eq!(
        values,
        [
            (MetaElement::Title, "Weekly roundup", 3),
            (MetaElement::Title, "Pricing", 2),
            (MetaElement::MetaDescription, "Our week.", 2),
        ]
    );
}

#[test]
fn the_urls_of_one_page_count_once_through_its_preferred_url() {
    let mut b = site(&[
        ("/a", "Shoes", "Shoes", "Shoes for all."),
        ("/b", "Shoes", "Boots", "Boots for all."),
    ]);
    // /a served again on www and with a tracking parameter: one page, one cluster.
    for copy in [
        "https://www.example.com/a",
        "https://example.com/a?utm_source=x",
    ] {
        b.page(copy, 100)
            .texts(copy, "Shoes", "Shoes", "Shoes for all.");
    }
    // Alone, the copies share everything with /a and nothing is reported.
    let mut alone = B::new();
    for url in [u("/a"), "https://www.example.com/a".to_owned()] {
        alone
            .page(&url, 100)
            .texts(&url, "Shoes", "Shoes", "Shoes for all.");
    }
    let only_copies = alone.analyse();
    assert_eq!(only_copies.clusters.len(), 1);
    assert!(
        only_copies.duplicate_values.is_empty(),
        "{:#?}",
        only_copies.duplicate_values
    );
    assert_eq!(
        only_copies.findings_with(FindingId::TitleDuplicate).count(),
        0
    );

    let a = b.analyse();
    let f = only(&a, FindingId::TitleDuplicate);
    assert_eq!(f.urls, [u("/a"), u("/b")]);
    let cluster = a.cluster_of(a.duplicate_values[0].pages[0].url_id).unwrap();
    assert_eq!(cluster.preferred_url, u("/a"));
    assert_eq!(
        f.evidence[0],
        format!(
            "https://example.com/a, the preferred URL of cluster {} (3 URLs)",
            cluster.id
        )
    );
    assert_eq!(f.evidence[1], "https://example.com/b");
    let p = &a.duplicate_values[0].pages[0];
    assert_eq!((p.cluster, p.cluster_urls), (Some(cluster.id), 3));
    assert_eq!(a.findings_with(FindingId::H1Duplicate).count(), 0);
}

#[test]
fn only_indexable_html_pages_of_the_site_are_compared() {
    let mut b = site(&[
        ("/a", "Sale", "", ""),
        ("/noindex", "Sale", "", ""),
        ("/blocked", "Sale", "", ""),
        ("/elsewhere", "Sale", "", ""),
        ("/pdf", "Sale", "", ""),
        ("/gone", "Sale", "", ""),
        ("/a/", "Sale", "", ""),
    ]);
    b.noindex(&u("/noindex"))
        .blocked(&u("/blocked"))
        .canonical(&u("/elsewhere"), &u("/a"))
        .status(&u("/gone"), 404)
        // A URL Dustpan made up: no page of the site.
        .probe(&u("/a/"), &u("/a"), ProbeRule::TrailingSlash);
    b.input
        .fetches
        .iter_mut()
        .find(|f| f.url_id == 5)
        .unwrap()
        .content_type = Some("application/pdf".into());
    let a = b.analyse();
    assert_eq!(
        a.findings_with(FindingId::TitleDuplicate).count(),
        0,
        "{:#?}",
        a.findings
    );
    assert!(a.duplicate_values.is_empty());

    // Error pages answering 200 share their title: a soft 404, not a title to rewrite.
    let b = site(&[
        ("/x", "Page not found", "Not found", ""),
        ("/y", "Page not found", "Not found", ""),
    ]);
    assert!(b.analyse().duplicate_values.is_empty());
}

#[test]
fn values_compare_trimmed_whitespace_collapsed_ignoring_case_and_empty_is_none() {
    let b = site(&[
        ("/a", "  Weekly   roundup ", "", "  "),
        ("/b", "weekly Roundup", "", " "),
        ("/c", "Weekly roundup", "", ""),
        ("/d", "Weekly roundup!", "", ""),
    ]);
    let a = b.analyse();
    let f = only(&a, FindingId::TitleDuplicate);
    assert_eq!(f.urls, [u("/a"), u("/b"), u("/c")]);
    // The most common spelling stands for the value.
    assert_eq!(
        f.summary,
        "3 different pages share the title \"Weekly roundup\"."
    );
    assert!(
        f.evidence
            .contains(&"Written 2 ways: \"Weekly roundup\", \"weekly Roundup\" (compared ignoring letter case)".to_owned()),
        "{:#?}",
        f.evidence
    );
    assert_eq!(
        a.findings_with(FindingId::MetaDescriptionDuplicate).count(),
        0
    );
}

#[test]
fn a_lists_numbered_pages_share_its_first_pages_title() {
    let b = site(&[
        ("/blog/", "Blog", "Blog", "Latest posts."),
        ("/blog/page/2/", "Blog", "Blog", "Latest posts."),
        ("/blog/page/3/", "Blog", "Blog", "Latest posts."),
        ("/list?sort=a", "List", "", ""),
        ("/list?sort=a&page=2", "List", "", ""),
        // Numbered pages whose first page is no page of the group.
        ("/tags/page/2", "Tags", "", ""),
        ("/tags/page/3", "Tags", "", ""),
    ]);
    let a = b.analyse();
    assert!(a.duplicate_values.is_empty(), "{:#?}", a.duplicate_values);
    check(&a, "");

    // Another page with the list's title is a duplicate; the numbered pages count with
    // their first page.
    let mut b = b;
    b.page(&u("/news"), 900)
        .texts(&u("/news"), "Blog", "News", "News.");
    let a = b.analyse();
    let f = only(&a, FindingId::TitleDuplicate);
    assert_eq!(f.urls, [u("/blog/"), u("/news")]);
    assert_eq!(
        f.evidence[0],
        "https://example.com/blog/; counted with it: 2 later pages of its list \
         (https://example.com/blog/page/2/, https://example.com/blog/page/3/)"
    );
    let p = &a.duplicate_values[0].pages[0];
    assert_eq!(p.later_pages, [u("/blog/page/2/"), u("/blog/page/3/")]);
}

#[test]
fn hreflang_alternates_are_versions_of_one_page() {
    let mut b = site(&[
        ("/en/pricing", "Pricing", "Pricing", ""),
        ("/de/pricing", "Pricing", "Preise", ""),
    ]);
    b.hreflang(&u("/en/pricing"), "de", &u("/de/pricing"))
        .hreflang(&u("/de/pricing"), "en", &u("/en/pricing"));
    let a = b.analyse();
    assert!(a.duplicate_values.is_empty(), "{:#?}", a.duplicate_values);
    assert_eq!(a.findings_with(FindingId::TitleDuplicate).count(), 0);
}

#[test]
fn the_fix_lists_max_listed_pages_and_the_export_every_one() {
    let pages: Vec<String> = (0..5).map(|k| format!("/p{k}")).collect();
    let rows: Vec<(&str, &str, &str, &str)> = pages
        .iter()
        .map(|p| (p.as_str(), "Product", "Product", "A product."))
        .collect();
    let b = site(&rows);
    let config = AnalysisConfig {
        max_listed: 2,
        ..AnalysisConfig::default()
    };
    let a = b.analyse_config(&config);
    let f = only(&a, FindingId::H1Duplicate);
    assert_eq!(f.urls.len(), 5);
    assert_eq!(f.severity, Severity::Notice);
    assert_eq!(
        f.fixes[0].to_string(),
        "Give each of the 5 pages a first heading (<h1>) of its own that says what sets it \
         apart from the others: https://example.com/p0, https://example.com/p1 and 3 more \
         pages. Where a template or a default of the site writes the first heading (<h1>), \
         change it there, so that it writes each page's own."
    );
    assert!(
        f.evidence
            .contains(&"And 3 more pages (duplicate_metadata.csv lists every one)".to_owned())
    );
    let input = &b.input;
    let t = export::table_data(export::Table::DuplicateMetadata, input, &a);
    let titles: Vec<&str> = t.headers.iter().map(|h| h.title).collect();
    assert_eq!(
        titles,
        [
            "Element",
            "Value",
            "Pages",
            "Address",
            "Cluster",
            "Cluster URLs",
            "Counted With"
        ]
    );
    // Three elements, five pages each.
    assert_eq!(t.rows.len(), 15);
    let first: Vec<String> = t.rows[0].iter().map(|c| c.as_text().into_owned()).collect();
    assert_eq!(
        first,
        [
            "title",
            "Product",
            "5",
            "https://example.com/p0",
            "",
            "1",
            ""
        ]
    );
}

#[test]
fn pages_that_may_be_one_page_point_to_the_near_duplicate_review() {
    let mut b = B::new();
    let s = super::sim(7000);
    b.page_sim(&u("/red-sneaker"), 1, s)
        .page_sim(&u("/blue-sneaker"), 2, s ^ 0b11)
        .texts(&u("/red-sneaker"), "Sneaker", "", "")
        .texts(&u("/blue-sneaker"), "Sneaker", "", "");
    let a = b.analyse();
    assert_eq!(a.findings_with(FindingId::DupNear).count(), 1);
    let f = only(&a, FindingId::TitleDuplicate);
    assert!(
        f.evidence.iter().any(|e| e.starts_with(
            "https://example.com/blue-sneaker and https://example.com/red-sneaker also have \
             near-identical main content"
        )),
        "{:#?}",
        f.evidence
    );
}

#[test]
fn a_listings_filters_sharing_its_title_name_the_template() {
    let b = site(&[
        ("/catalogue/", "Catalogue", "", ""),
        ("/catalogue/?color=red", "Catalogue", "", ""),
        ("/catalogue/?size=l&sort=price", "Catalogue", "", ""),
    ]);
    let a = b.analyse();
    let f = only(&a, FindingId::TitleDuplicate);
    assert!(
        f.evidence.contains(
            &"All 3 pages are https://example.com/catalogue/ with other query parameters \
              (color, size, sort): one template writes the title whatever the parameters \
              select"
                .to_owned()
        ),
        "{:#?}",
        f.evidence
    );
}

#[test]
fn a_lists_filtered_and_sorted_views_count_with_it_and_ids_do_not() {
    let mut b = B::new();
    // A filter the classifier sees change the page among a few values.
    for (k, path) in [
        "/shoes",
        "/shoes?color=red",
        "/shoes?color=blue",
        "/shoes?color=black",
    ]
    .into_iter()
    .enumerate()
    {
        b.page(&u(path), 300 + k as u64)
            .texts(&u(path), "Shoes", "", "");
    }
    // A view only the www alias served: a view of the same list.
    let www = "https://www.example.com/shoes?color=green&color=red";
    b.page(www, 350).texts(www, "Shoes", "", "");
    let a = b.analyse();
    let verdict =
        |a: &Analysis, name: &str| a.params.iter().find(|p| p.name == name).map(|p| p.verdict);
    assert_eq!(verdict(&a, "color"), Some(ParamVerdict::Filter));
    assert!(a.duplicate_values.is_empty(), "{:#?}", a.duplicate_values);

    b.page(&u("/boots"), 400)
        .texts(&u("/boots"), "Shoes", "", "");
    let a = b.analyse();
    let f = only(&a, FindingId::TitleDuplicate);
    assert_eq!(f.urls, [u("/boots"), u("/shoes")]);
    assert_eq!(
        a.duplicate_values[0].pages[1].views,
        [
            u("/shoes?color=black"),
            u("/shoes?color=blue"),
            u("/shoes?color=red"),
            www.to_owned()
        ]
    );

    // A parameter that names the page (many values) makes pages of their own.
    let mut b = B::new();
    for k in 0..20 {
        let url = u(&format!("/product?id={k}"));
        b.page(&url, 500 + k).texts(&url, "Product", "", "");
    }
    let a = b.analyse();
    assert_eq!(verdict(&a, "id"), Some(ParamVerdict::ChangesContent));
    assert_eq!(only(&a, FindingId::TitleDuplicate).urls.len(), 20);
}

/// A shop whose "write a review" page repeats its product's title, heading and
/// description: one cause, one finding per element, with the template fix, not one
/// finding per product.
#[test]
fn pairs_of_one_url_pattern_sharing_values_are_one_finding_per_element() {
    let mut pages: Vec<(String, String, String, String)> = Vec::new();
    for n in 1..=5 {
        let (title, h1, description) = (
            format!("Map {n} | Shop"),
            format!("Map {n}"),
            format!("A map of place {n}."),
        );
        for path in [format!("/p/map-{n}/"), format!("/p/map-{n}/reviews/add/")] {
            pages.push((path, title.clone(), h1.clone(), description.clone()));
        }
    }
    // Two pages that share a title for another reason stay a finding of their own.
    pages.push((
        "/pricing".into(),
        "Pricing".into(),
        "Pricing".into(),
        "Costs.".into(),
    ));
    pages.push((
        "/plans".into(),
        "Pricing".into(),
        "Plans".into(),
        "Plans.".into(),
    ));
    let list: Vec<(&str, &str, &str, &str)> = pages
        .iter()
        .map(|(a, b, c, d)| (a.as_str(), b.as_str(), c.as_str(), d.as_str()))
        .collect();
    let a = site(&list).analyse();
    let keys: Vec<&str> = a.findings.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "TITLE-DUPLICATE pattern example.com  -> reviews/add/",
            "TITLE-DUPLICATE pricing",
            "H1-DUPLICATE pattern example.com  -> reviews/add/",
            "META-DESCRIPTION-DUPLICATE pattern example.com  -> reviews/add/",
        ],
        "{}",
        super::render(&a)
    );
    let f = &a.findings[0];
    assert_eq!(
        f.summary,
        "5 pairs of pages on example.com share a title: each pair is a page and the same URL \
         with `reviews/add/` added, so one template writes the same title on both."
    );
    assert_eq!(
        f.fixes[0].to_string(),
        "In the template of the second page of each of the 5 pairs (a page and the same URL \
         with `reviews/add/` added), write a title of its own that says what that page is for \
         (for example, https://example.com/p/map-1/reviews/add/ repeats the title of \
         https://example.com/p/map-1/); duplicate_metadata.csv lists every page."
    );
    // Every page stays in the export's table.
    assert_eq!(
        a.duplicate_values
            .iter()
            .filter(|v| v.element == MetaElement::Title)
            .map(|v| v.pages.len())
            .sum::<usize>(),
        12
    );
}
