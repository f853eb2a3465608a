//! Migration mapping: an old site's pages matched to a rebuilt site's URLs (new paths,
//! a new theme, pages rewritten a little, pages gone) by what they show. Pages are real
//! HTML through the real extractor.

use super::main_content::prose;
use super::*;
use crate::migrate::{MatchBasis, migrate};

/// A page of the old theme: a header, `main`, a sidebar of recent posts, a footer.
fn old_theme(title: &str, body: &str) -> String {
    format!(
        "<html><head><title>{title} | Old shop</title></head><body>\
         <div id=\"top\"><a href=\"/\">Old shop</a> <a href=\"/help.html\">Help</a></div>\
         <div class=\"content\"><h1>{title}</h1>{body}</div>\
         <div class=\"side\"><p>{}</p></div><div id=\"foot\"><p>{}</p></div></body></html>",
        prose(7001, 300),
        prose(7002, 120)
    )
}

/// The same content in the new theme: other template text around it.
fn new_theme(title: &str, body: &str) -> String {
    format!(
        "<html><head><title>{title} - New shop</title></head><body>\
         <header><nav><a href=\"/\">New shop</a></nav></header>\
         <main><h1>{title}</h1>{body}</main>\
         <div class=\"widgets\"><p>{}</p></div><footer><p>{}</p></footer></body></html>",
        prose(8001, 250),
        prose(8002, 90)
    )
}

fn old(path: &str) -> String {
    format!("https://old.example{path}")
}

fn new(path: &str) -> String {
    format!("https://www.new.example{path}")
}

#[test]
fn pages_moved_to_new_paths_and_a_new_theme_map_by_their_content() {
    let (mut a, mut b) = (B::new(), B::new());
    // Twelve articles: the new site moves them under /journal/YEAR/ with new slugs.
    for k in 0..12u64 {
        let title = format!("Field guide {k}");
        let body = format!(
            "<p>{}</p><p>{}</p>",
            prose(100 + k, 120),
            prose(200 + k, 80)
        );
        a.page_html(
            &old(&format!("/articles/guide-{k}.html")),
            &old_theme(&title, &body),
        );
        b.page_html(
            &new(&format!("/journal/2026/field-guide-no-{k}/")),
            &new_theme(&title, &body),
        );
    }
    // Rewritten a little: one paragraph of five changed, the title kept.
    let edited = |k: u64, last: u64| {
        (0..5)
            .map(|p| {
                format!(
                    "<p>{}</p>",
                    prose(if p == 4 { last } else { 300 + 10 * k + p }, 60)
                )
            })
            .collect::<String>()
    };
    a.page_html(
        &old("/care/waxing.html"),
        &old_theme("Waxing boots", &edited(1, 901)),
    );
    b.page_html(
        &new("/care/boot-waxing/"),
        &new_theme("Waxing boots", &edited(1, 902)),
    );
    // The same title and heading over a page rewritten from scratch.
    a.page_html(
        &old("/about.html"),
        &old_theme("About us", &format!("<p>{}</p>", prose(500, 90))),
    );
    b.page_html(
        &new("/company/"),
        &new_theme("About us", &format!("<p>{}</p>", prose(501, 90))),
    );
    // Kept at its URL on the same host: nothing to redirect.
    b.page_html(
        &old("/help.html"),
        &new_theme("Help", &format!("<p>{}</p>", prose(600, 90))),
    );
    a.page_html(
        &old("/help.html"),
        &old_theme("Help", &format!("<p>{}</p>", prose(600, 90))),
    );
    // Gone: nothing like it on the new site; linked from two old pages.
    a.page_html(
        &old("/careers.html"),
        &old_theme("Careers", &format!("<p>{}</p>", prose(700, 90))),
    );
    a.link(&old("/articles/guide-0.html"), &old("/careers.html"));
    a.link(&old("/articles/guide-1.html"), &old("/careers.html"));
    // Not pages: a redirect and an error of the old site are not mapped.
    a.redirect(&old("/old-home"), &old("/help.html"), 301);
    a.status(&old("/missing"), 404);

    let cfg = AnalysisConfig::default();
    let m = migrate(&a.input, &cfg, &b.input, &cfg, &analyse(&b.input, &cfg));
    let row = |u: &str| {
        m.rows
            .iter()
            .find(|r| r.old_url == u)
            .unwrap_or_else(|| panic!("{u}: {m:#?}"))
    };
    for k in 0..12u64 {
        let r = row(&old(&format!("/articles/guide-{k}.html")));
        assert_eq!(
            r.new_url.as_deref(),
            Some(new(&format!("/journal/2026/field-guide-no-{k}/")).as_str()),
            "{r:?}"
        );
        assert_eq!(r.basis, MatchBasis::IdenticalMainContent, "{r:?}");
        assert_eq!(r.confidence, 95);
    }
    let waxing = row(&old("/care/waxing.html"));
    assert_eq!(
        waxing.new_url.as_deref(),
        Some(new("/care/boot-waxing/").as_str())
    );
    assert!(
        matches!(waxing.basis, MatchBasis::NearMainContent { percent } if percent >= 50),
        "{waxing:?}"
    );
    let about = row(&old("/about.html"));
    assert_eq!(about.new_url.as_deref(), Some(new("/company/").as_str()));
    assert_eq!(about.basis, MatchBasis::TitleAndH1);
    let help = row(&old("/help.html"));
    assert_eq!(help.basis, MatchBasis::SameUrl);
    let careers = row(&old("/careers.html"));
    assert_eq!(
        (careers.basis, careers.new_url.as_deref()),
        (MatchBasis::Unmatched, None)
    );
    assert_eq!(careers.inlinks, 2);
    assert!(
        m.rows
            .iter()
            .all(|r| !r.old_url.ends_with("/old-home") && !r.old_url.ends_with("/missing"))
    );
    assert_eq!((m.kept(), m.mapped(), m.unmatched()), (1, 14, 1));
    // Unmatched last, most linked first; the redirect map holds the 14 mapped pages.
    assert_eq!(m.rows.last().unwrap().old_url, old("/careers.html"));
    let files = m.fix_files();
    assert_eq!(files.redirects.len(), 14);
    assert!(
        files
            .redirects
            .iter()
            .all(|r| r.status == 301 && r.target.starts_with("https://www.new.example/"))
    );
    let csv = m.csv();
    assert!(
        csv.starts_with("old_url,new_url,confidence,basis,inlinks,log_requests\n"),
        "{csv}"
    );
    assert!(
        csv.contains("https://old.example/careers.html,,0,no match,2,0"),
        "{csv}"
    );
}

#[test]
fn a_domain_move_keeps_paths_and_pages_without_content_map_by_path() {
    let (mut a, mut b) = (B::new(), B::new());
    for k in 0..6u64 {
        let body = format!("<p>{}</p>", prose(40 + k, 150));
        a.page_html(
            &old(&format!("/p/{k}")),
            &old_theme(&format!("Page {k}"), &body),
        );
        b.page_html(
            &new(&format!("/p/{k}")),
            &new_theme(&format!("Page {k}"), &body),
        );
    }
    // A short page (under min_words) with a new title: only its path says where it went.
    a.page_html(&old("/tiny"), &old_theme("Tiny", "<p>two words</p>"));
    b.page_html(&new("/tiny"), &new_theme("Renamed", "<p>other words</p>"));
    let cfg = AnalysisConfig::default();
    let m = migrate(&a.input, &cfg, &b.input, &cfg, &analyse(&b.input, &cfg));
    let tiny = m.rows.iter().find(|r| r.old_url == old("/tiny")).unwrap();
    assert_eq!(
        (tiny.basis, tiny.new_url.as_deref()),
        (MatchBasis::SamePath, Some(new("/tiny").as_str()))
    );
    assert_eq!(m.mapped(), 7, "{m:#?}");
}

/// The old site's copy of a post and the post itself, moved together: the new site still
/// serves both, one cluster. The copy is redirected to that cluster's preferred URL, where
/// the new site's own plan sends its duplicate, not to the duplicate.
#[test]
fn a_match_that_is_a_duplicate_on_the_new_site_maps_to_its_preferred_url() {
    let (mut a, mut b) = (B::new(), B::new());
    let body = format!("<p>{}</p><p>{}</p>", prose(901, 140), prose(902, 90));
    for slug in ["stone-foundry", "stone-foundry-copy"] {
        a.page_html(
            &old(&format!("/posts/{slug}/")),
            &old_theme("Stone foundry", &body),
        );
        b.page_html(
            &new(&format!("/journal/2024/{slug}/")),
            &new_theme("Stone foundry", &body),
        );
    }
    // Another page, so the new site is more than the one cluster.
    let other = format!("<p>{}</p>", prose(903, 150));
    a.page_html(&old("/about/"), &old_theme("About", &other));
    b.page_html(&new("/about/"), &new_theme("About", &other));
    let cfg = AnalysisConfig::default();
    let analysis = analyse(&b.input, &cfg);
    let id = |u: &str| b.input.urls.iter().find(|r| r.url == u).unwrap().id;
    let copy = new("/journal/2024/stone-foundry-copy/");
    let cluster = analysis
        .cluster_of(id(&copy))
        .expect("the copies are one cluster");
    let preferred = cluster.preferred_url.clone();
    assert!(cluster.members.iter().any(|m| m.url == copy));
    let m = migrate(&a.input, &cfg, &b.input, &cfg, &analysis);
    let to = |u: &str| {
        m.rows
            .iter()
            .find(|r| r.old_url == old(u))
            .and_then(|r| r.new_url.clone())
    };
    // Both old pages go to the one preferred URL; the other page to its own.
    assert_eq!(
        to("/posts/stone-foundry-copy/").as_deref(),
        Some(preferred.as_str())
    );
    assert_eq!(
        to("/posts/stone-foundry/").as_deref(),
        Some(preferred.as_str())
    );
    assert_eq!(to("/about/"), Some(new("/about/")));
    // The map is clean on the new site: no redirect to a duplicate.
    let sim = m.simulate(&b.input, &cfg, &analysis);
    assert!(sim.clean(), "{sim:#?}");
}
