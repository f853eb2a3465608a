//! The wording findings and fixes share: counted nouns, a URL's response after "which",
//! the verb after who links, where a template link sits, whether a server rule's text
//! holds a rule. Plain text functions over the crawl's vocabulary, below every module
//! that writes a sentence (they import nothing from the checks, the findings or the
//! rules' analysis).

use crate::input::LinkRegion;

/// Where a template link sits, as the site's part that carries it: "navigation",
/// "footer", ... or "template" when the pages do not say.
pub(crate) fn template_place(region: Option<LinkRegion>) -> &'static str {
    use LinkRegion as R;
    match region {
        Some(R::Navigation) => "navigation",
        Some(R::Header) => "header",
        Some(R::Footer) => "footer",
        Some(R::Sidebar) => "sidebar",
        Some(R::Main) => "page template (inside the main content)",
        Some(R::Body) | None => "template",
    }
}

/// A URL's response after "which" or the URL: "answers 404", "gets no response
/// (connect)", "was not fetched", "is blocked by robots.txt".
pub(crate) fn answer(describe: &str) -> String {
    match describe.strip_prefix("no response") {
        Some(rest) => format!("gets no response{rest}"),
        None if describe == "not fetched" => "was not fetched".to_owned(),
        None if describe == "blocked by robots.txt" => "is blocked by robots.txt".to_owned(),
        None => describe.to_owned(),
    }
}

/// `n` with the singular or plural noun: "1 URL", "3 URLs".
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The verb after the words naming who links to a URL: "1 internal page links",
/// "3 internal pages link", "A link in the site's footer, on 40 of its 40 pages, points".
pub(crate) fn link_verb(who: &str) -> &'static str {
    if who.starts_with("A link") {
        "points"
    } else if who.starts_with("1 ") {
        "links"
    } else {
        "link"
    }
}

/// Whether a server rule's text holds a rule, rather than only comments saying why none
/// is offered for that server.
pub fn server_rule_offered(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        !l.is_empty() && !l.starts_with('#')
    })
}
