//! The content evidence of rendered pages: where a page was rendered, its fingerprints,
//! main content and titles come from the rendered DOM (what a search engine indexes),
//! not from the served HTML. A single-page app serves one shell for every route: the
//! shells are identical, the routes' rendered contents are not.

use super::main_content::prose;
use super::*;

fn u(path: &str) -> String {
    format!("https://docs.example{path}")
}

/// The shell every route serves: a title and a loading notice, the same for all.
fn shell() -> String {
    format!(
        "<html><head><title>Docs</title></head><body><div id=\"app\"><p>{}</p></div>\
         <script src=\"/app.js\"></script></body></html>",
        prose(1, 40)
    )
}

/// A route as its script renders it: the sidebar every route shows, then the article.
fn rendered_route(h1: &str, seed: u64) -> String {
    let sidebar: String = ["Home", "Install", "Guide", "Config", "Plugins"]
        .iter()
        .map(|p| format!("<li><a href=\"/{}\">{p}</a></li>", p.to_lowercase()))
        .collect();
    format!(
        "<html><head><title>{h1} - Docs</title></head><body>\
         <aside class=\"sidebar\"><ul>{sidebar}</ul><p>{}</p></aside>\
         <main><h1>{h1}</h1><p>{}</p></main></body></html>",
        prose(500, 120),
        prose(seed, 150)
    )
}

/// Page `path` serves the shell and renders `html`.
fn route(b: &mut B, path: &str, html: &str) {
    let url = u(path);
    b.page_html(&url, &shell());
    b.rendered_html(&url, html);
}

fn cluster_of<'a>(a: &'a Analysis, url: &str) -> Option<&'a Cluster> {
    a.clusters
        .iter()
        .find(|c| c.members.iter().any(|m| m.url == url))
}

#[test]
fn rendered_routes_are_compared_by_their_rendered_content() {
    let mut b = B::new();
    let pages = [
        ("/", "Home"),
        ("/install", "Install"),
        ("/guide", "Guide"),
        ("/config", "Config"),
        ("/plugins", "Plugins"),
    ];
    for (k, (path, h1)) in pages.iter().enumerate() {
        route(&mut b, path, &rendered_route(h1, 10 + k as u64));
    }
    // A heading's anchor link of the guide: the same route, the same rendered content.
    route(&mut b, "/guide?id=setup", &rendered_route("Guide", 12));
    let a = b.analyse();

    // The shells are one text; the routes are not one page.
    for (x, _) in &pages {
        for (y, _) in &pages {
            if x < y {
                let cx = cluster_of(&a, &u(x)).map(|c| c.id);
                let cy = cluster_of(&a, &u(y)).map(|c| c.id);
                assert!(
                    cx.is_none() || cx != cy,
                    "{x} and {y} merged on their shells: {:#?}",
                    a.clusters
                );
            }
        }
    }
    // The anchor's URL renders the guide: a duplicate of it.
    let guide = cluster_of(&a, &u("/guide")).expect("the guide's cluster");
    assert!(
        guide.members.iter().any(|m| m.url == u("/guide?id=setup")),
        "{:#?}",
        a.clusters
    );
    assert_eq!(guide.members.len(), 2, "{:#?}", guide.members);
}
