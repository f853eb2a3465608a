//! Every finding and fix reads as a sentence a site owner can act on, in the singular
//! and in the plural: one site where each problem concerns one page or URL, one where it
//! concerns many, and every text the analysis writes checked for number agreement and
//! for fragments that are not sentences.

use super::B;
use crate::*;

fn u(path: &str) -> String {
    format!("https://example.com{path}")
}

/// A site with each problem `n` times over: `n` pages linking to a broken URL, a
/// redirect and a canonicalised page; `n` duplicates on the www host and with a
/// tracking parameter; a redirect loop; a crawler trap of `n` URLs; a sitemap listing
/// a redirect.
fn site(n: u64) -> B {
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    b.page(&u("/target"), 2)
        .redirect(&u("/old"), &u("/target"), 301)
        .status(&u("/gone"), 404)
        .page(&u("/copy"), 3)
        .page(&u("/original"), 4)
        .canonical(&u("/copy"), &u("/original"));
    for k in 0..n {
        let p = u(&format!("/p{k}"));
        b.page(&p, 100 + k)
            .link(&p, &u("/old"))
            .link(&p, &u("/gone"))
            .link(&p, &u("/copy"))
            .link(&u("/"), &p);
        b.page(&format!("https://www.example.com/p{k}"), 100 + k);
        b.page(&u(&format!("/p{k}?utm_source=x")), 100 + k);
        b.skipped(&u(&format!("/cal/{k}")), "trap: over 2 URLs like /cal/#");
    }
    b.redirect(&u("/loop"), &u("/loop"), 301)
        .link(&u("/"), &u("/loop"));
    b.listed(&u("/sitemap.xml"), &u("/old"))
        .listed(&u("/sitemap.xml"), &u("/"));
    b
}

/// Texts that do not agree in number or are not sentences.
fn faults(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for bad in [
        "(s)",
        "which no response",
        "fix: status",
        "fix: ",
        "; fix",
        "pages, link to",
    ] {
        if text.contains(bad) {
            out.push(format!("`{bad}` in: {text}"));
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    for w in words.windows(3) {
        let plural_noun = |s: &str| {
            let s = s.trim_matches(|c: char| !c.is_alphanumeric());
            [
                "pages",
                "URLs",
                "redirects",
                "links",
                "pairs",
                "sitemaps",
                "hops",
                "words",
                "more",
            ]
            .contains(&s)
        };
        // "1 pages", "1 internal pages", "1 crawled pages"
        if w[0] == "1" && (plural_noun(w[1]) || (plural_noun(w[2]) && !w[1].ends_with(','))) {
            out.push(format!("`1 {} {}` in: {text}", w[1], w[2]));
        }
    }
    out
}

fn check_all(a: &Analysis) -> Vec<String> {
    let mut out = Vec::new();
    for f in &a.findings {
        out.extend(faults(&f.summary));
        for e in &f.evidence {
            out.extend(faults(e));
        }
        for fix in &f.fixes {
            let text = fix.to_string();
            out.extend(faults(&text));
            if !text.ends_with('.') {
                out.push(format!("a fix that is not a sentence: {text}"));
            }
        }
        if !f.summary.ends_with('.') {
            out.push(format!("a summary that is not a sentence: {}", f.summary));
        }
    }
    out
}

#[test]
fn every_text_agrees_in_number_in_the_singular_and_the_plural() {
    for n in [1, 2, 12] {
        let a = site(n).analyse();
        for id in [
            FindingId::LinkBroken,
            FindingId::LinkToRedirect,
            FindingId::CanonLinked,
            FindingId::DupHost,
            FindingId::DupParam,
            FindingId::RedirectLoop,
            FindingId::Trap,
            FindingId::SitemapRedirect,
        ] {
            assert!(
                a.findings_with(id).count() > 0,
                "{n}: no {id} finding: {:#?}",
                a.findings
            );
        }
        let faults = check_all(&a);
        assert!(faults.is_empty(), "with {n}:\n{}", faults.join("\n"));
    }
}

#[test]
fn the_checker_sees_the_faults_it_names() {
    assert_eq!(faults("1 internal pages link to x.").len(), 1);
    assert_eq!(faults("Change links on a and 1 more pages.").len(), 1);
    assert_eq!(faults("3 pair(s) of pages.").len(), 1);
    assert!(faults("1 internal page links to x; 12 pages link to y.").is_empty());
}

#[test]
fn a_link_on_most_pages_is_one_template_fix() {
    let a = site(12).analyse();
    let f = a
        .findings_with(FindingId::LinkToRedirect)
        .find(|f| f.urls[0] == u("/old"))
        .unwrap();
    assert!(
        f.summary
            .starts_with("A link in the site's template, on 12 of its"),
        "{}",
        f.summary
    );
    assert!(f.summary.contains("pages, points to"), "{}", f.summary);
    assert!(
        matches!(
            &f.fixes[..],
            [Fix::UpdateTemplateLink {
                pages: 12,
                to: Some(_),
                ..
            }]
        ),
        "{:#?}",
        f.fixes
    );
    // On a few pages of many, the pages are listed.
    let a = site(2).analyse();
    let f = a
        .findings_with(FindingId::LinkToRedirect)
        .find(|f| f.urls[0] == u("/old"))
        .unwrap();
    assert!(
        matches!(&f.fixes[..], [Fix::UpdateLinks { .. }]),
        "{:#?}",
        f.fixes
    );
}
