//! A single-page app audited with rendering: every route serves one shell and keeps
//! its title, so what the analysis claims about a page must rest on what the page
//! renders. The URL-variant probes (served, not rendered) claim no duplicate from the
//! shell; the routes the app does not know, rendering its "not found" view, are soft
//! 404s; RENDER-JS-LINKS counts the pages fetched, and says apart what it did not fetch.

use super::main_content::prose;
use super::*;

fn u(path: &str) -> String {
    format!("https://app.example{path}")
}

/// The shell every route serves.
const SHELL: &str = "<html><head><title>Docs</title></head><body><div id=\"app\"></div>\
<script src=\"/app.js\"></script></body></html>";

/// A route as the app renders it: the site's name in an `<h1>` and the sidebar (in
/// `<aside>`), then the article. The title stays the shell's.
fn rendered(article: &str) -> String {
    format!(
        "<html><head><title>Docs</title></head><body><aside><h1>Docs</h1><p>{}</p>\
         <ul><li><a href=\"/\">Home</a></li><li><a href=\"/guide\">Guide</a></li></ul>\
         </aside><main><article>{article}</article></main></body></html>",
        prose(500, 60)
    )
}

/// Page `path` serves the shell and renders `html`.
fn route(b: &mut B, path: &str, html: &str) {
    let url = u(path);
    b.page_html(&url, SHELL);
    b.rendered_html(&url, html);
}

/// `from`'s rendered DOM links to `to` (no served HTML does).
fn js_link(b: &mut B, from: &str, to: &str) {
    let (from, to) = (b.id(&u(from)), b.id(&u(to)));
    b.input.js_links.push(JsLinkRow { from, to });
}

fn app() -> B {
    let mut b = B::new();
    b.start(&u("/"));
    route(
        &mut b,
        "/",
        &rendered(&format!("<h1>Welcome</h1><p>{}</p>", prose(1, 150))),
    );
    route(
        &mut b,
        "/guide",
        &rendered(&format!("<h1>Guide</h1><p>{}</p>", prose(2, 150))),
    );
    for p in ["/missing-one", "/missing-two", "/missing-three"] {
        route(&mut b, p, &rendered("<h1>404 - Not Found</h1>"));
    }
    b
}

#[test]
fn routes_that_render_the_not_found_view_are_soft_404s_not_one_page() {
    let a = app().analyse();
    for c in &a.clusters {
        for m in &c.members {
            assert!(!m.url.contains("missing"), "{:#?}", a.clusters);
        }
    }
    for f in &a.findings {
        if matches!(f.id, FindingId::DupContent | FindingId::DupNear) {
            assert!(!f.urls.iter().any(|u| u.contains("missing")), "{f:#?}");
        }
    }
}

#[test]
fn a_rendered_error_heading_counts_like_an_error_title() {
    // An app whose "not found" view is the first heading of the page.
    let mut b = B::new();
    for p in ["/gone-one", "/gone-two"] {
        route(
            &mut b,
            p,
            &format!(
                "<html><head><title>Docs</title></head><body><main><h1>Page not found</h1>\
                 <p>{}</p></main></body></html>",
                prose(7, 40)
            ),
        );
    }
    let a = b.analyse();
    assert!(a.clusters.is_empty(), "{:#?}", a.clusters);
}

#[test]
fn variants_of_a_page_written_by_script_are_not_duplicates_by_their_shell() {
    let mut b = app();
    b.probe(&u("/index.html"), &u("/"), ProbeRule::IndexFile);
    b.page_html(&u("/index.html"), SHELL);
    b.probe(
        &u("/?utm_source=dustpan"),
        &u("/"),
        ProbeRule::TrackingParam,
    );
    b.page_html(&u("/?utm_source=dustpan"), SHELL);
    let a = b.analyse();
    let probes: Vec<&VariantProbe> = a.url_variants.iter().flat_map(|r| &r.probes).collect();
    assert_eq!(probes.len(), 2, "{probes:#?}");
    for p in &probes {
        assert_eq!(p.verdict, ProbeVerdict::Unrendered, "{p:#?}");
        assert!(
            p.answer.contains("cannot be told without rendering"),
            "{p:#?}"
        );
    }
    assert!(
        !a.findings
            .iter()
            .any(|f| f.id == FindingId::VariantDuplicate),
        "{:#?}",
        a.findings
    );
}

#[test]
fn variants_of_a_served_page_are_still_compared_by_their_served_text() {
    // The same shell, no rendering: the served HTML is the page, as before.
    let mut b = B::new();
    b.page_html(
        &u("/"),
        &format!("<html><body><p>{}</p></body></html>", prose(3, 80)),
    );
    b.probe(&u("/index.html"), &u("/"), ProbeRule::IndexFile);
    b.page_html(
        &u("/index.html"),
        &format!("<html><body><p>{}</p></body></html>", prose(3, 80)),
    );
    let a = b.analyse();
    let p = first_probe(&a);
    assert_eq!(p.verdict, ProbeVerdict::Duplicate, "{p:#?}");
}

/// The audit's one URL-variant probe.
fn first_probe(a: &Analysis) -> &VariantProbe {
    a.url_variants
        .iter()
        .flat_map(|r| &r.probes)
        .next()
        .unwrap()
}

#[test]
fn script_only_links_count_the_pages_fetched_and_name_the_rest_apart() {
    let mut b = app();
    for p in ["/guide", "/missing-one", "/missing-two", "/missing-three"] {
        js_link(&mut b, "/", p);
    }
    for (p, why) in [
        ("/guide?id=a", "dust_duplicate"),
        ("/guide?id=b", "dust_duplicate"),
        ("/deep", "max_depth"),
    ] {
        js_link(&mut b, "/guide", p);
        b.skipped(&u(p), why);
    }
    let a = b.analyse();
    let f = only(&a, FindingId::RenderJsLinks);
    assert!(f.summary.starts_with("4 pages of "), "{f:#?}");
    assert_eq!(f.urls.len(), 4, "{f:#?}");
    assert!(
        f.evidence.contains(
            &"3 other URLs of app.example/* that only script-written links lead to were not \
              fetched, so not counted here (by reason: 2 dust_duplicate, 1 max_depth)"
                .to_owned()
        ),
        "{f:#?}"
    );
}

#[test]
fn variants_of_a_served_page_a_script_adds_to_are_still_compared_by_their_served_text() {
    // Server-written pages, each with its own text, to which a script adds a banner: the
    // rendered text differs from the served one, but the served bytes are the page's.
    let mut b = B::new();
    for (path, seed) in [("/", 3), ("/about", 4)] {
        let served = format!(
            "<html><body><main><p>{}</p></main></body></html>",
            prose(seed, 80)
        );
        b.page_html(&u(path), &served);
        b.rendered_html(
            &u(path),
            &served.replace("</main>", "</main><div>We use cookies. Accept all?</div>"),
        );
    }
    b.probe(&u("/index.html"), &u("/"), ProbeRule::IndexFile);
    b.page_html(
        &u("/index.html"),
        &format!(
            "<html><body><main><p>{}</p></main></body></html>",
            prose(3, 80)
        ),
    );
    let a = b.analyse();
    let p = first_probe(&a);
    assert_eq!(p.verdict, ProbeVerdict::Duplicate, "{p:#?}");
}

#[test]
fn the_plan_for_a_rendered_app_simulates_clean() {
    // Two routes render the same page (docsify's `?id=` anchors of one page): the plan
    // sets a canonical, which the rendered page carries as the served one does.
    let mut b = app();
    let welcome = rendered(&format!("<h1>Welcome</h1><p>{}</p>", prose(1, 150)));
    route(&mut b, "/?id=install", &welcome);
    js_link(&mut b, "/", "/?id=install");
    js_link(&mut b, "/", "/guide");
    let config = AnalysisConfig::default();
    let before = analyse(&b.input, &config);
    let plan = crate::simulate::Plan::of(&b.input, &before);
    assert!(
        plan.fixes
            .canonicals
            .iter()
            .any(|c| c.page == u("/?id=install") && c.href == u("/")),
        "{:#?}",
        plan.fixes
    );
    let sim = crate::simulate::simulate(&b.input, &config, &before, &plan);
    assert!(sim.clean(), "{:#?}", sim.problems);
    assert!(sim.findings.new.is_empty(), "{:#?}", sim.findings.new);
}
