//! Main content: the template learned from the site, identical main content as strong
//! evidence, near-identical main content as weak evidence (reviewed, never merged).
//! Pages are real HTML run through the real extractor.

use super::*;

fn u(path: &str) -> String {
    format!("https://shop.example{path}")
}

/// Deterministic prose: `n` words of paragraph `seed`, different for every seed.
pub(super) fn prose(seed: u64, n: usize) -> String {
    const WORDS: &[&str] = &[
        "canvas", "leather", "stitched", "weather", "trail", "summit", "harbour", "lantern",
        "copper", "meadow", "granite", "willow", "ember", "ridge", "tundra", "saddle", "compass",
        "river", "thistle", "orchard", "glacier", "bramble", "falcon", "cedar", "quarry", "marble",
        "hollow", "beacon", "timber", "prairie", "cobalt", "juniper", "anchor", "sparrow",
        "basalt", "heather", "lagoon", "pepper", "walnut", "zephyr",
    ];
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            WORDS[(x % WORDS.len() as u64) as usize]
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A page of a theme with no HTML5 semantics: a header div, a big sidebar div (a
/// "recent posts" widget listing `recent`, a category list, an about text), a footer
/// div, around `main_html`.
fn themed(title: &str, recent: &[&str], main_html: &str) -> String {
    let posts: String = recent
        .iter()
        .map(|p| format!("<li><a href=\"/news/{p}\">{p} news story headline</a></li>"))
        .collect();
    format!(
        "<html><head><title>{title} | Shop</title></head><body>\
         <div id=\"top\"><a href=\"/\">Shop</a> <a href=\"/about\">About</a> <a href=\"/help\">Help</a></div>\
         <div class=\"content\">{main_html}</div>\
         <div class=\"sidebar\"><h3>Recent posts</h3><ul>{posts}</ul>\
         <h3>Categories</h3><ul><li>Boots and shoes</li><li>Jackets and coats</li><li>Tents and shelters</li><li>Packs and bags</li></ul>\
         <div class=\"about\"><p>{}</p><p>{}</p></div></div>\
         <div id=\"bottom\"><p>{}</p></div></body></html>",
        prose(9001, 600),
        prose(9002, 400),
        prose(9003, 200)
    )
}

const RECENT: &[&str] = &["spring", "summer", "autumn", "winter", "rain"];

fn article(h1: &str, seed: u64, words: usize) -> String {
    format!("<h1>{h1}</h1><p>{}</p>", prose(seed, words))
}

/// A site of distinct short pages in a heavy template.
fn services_site(recent: &[&str]) -> B {
    let mut b = B::new();
    let pages = [
        ("/services/", "Services"),
        ("/services/workshops/pricing/", "Workshop pricing"),
        ("/services/repairs/", "Repairs"),
        ("/services/rentals/", "Rentals"),
        ("/about", "About us"),
        ("/help", "Help"),
        ("/contact", "Contact"),
        ("/", "Home"),
    ];
    for (k, (path, h1)) in pages.iter().enumerate() {
        b.page_html(
            &u(path),
            &themed(h1, recent, &article(h1, k as u64, 34 + k)),
        );
    }
    b
}

#[test]
fn the_template_does_not_make_different_short_pages_duplicates() {
    let b = services_site(RECENT);
    // The whole pages are near-identical by SimHash (the template is ~1,250 words, the
    // main content 34-41, as on a real CMS): within the 3 bits that a whole-page
    // fingerprint treats as near-identical.
    let f = |p: &str| {
        let id = b.input.urls.iter().find(|r| r.url == u(p)).unwrap().id;
        b.input.fetches.iter().find(|f| f.url_id == id).unwrap()
    };
    let (x, y) = (f("/services/"), f("/services/workshops/pricing/"));
    let whole = (x.simhash.unwrap() ^ y.simhash.unwrap()).count_ones();
    assert!(whole <= 3, "whole pages {whole} bits apart");
    let a = b.analyse();
    assert!(a.clusters.is_empty(), "{:#?}", a.clusters);
    assert!(a.findings_with(FindingId::DupNear).next().is_none());
    assert!(a.stats.template_blocks > 0);
    // The pages table's main-content word count is the article alone.
    let id = b
        .input
        .urls
        .iter()
        .find(|r| r.url == u("/services/"))
        .unwrap()
        .id;
    let words = a
        .main_words
        .iter()
        .find(|&&(i, _)| i == id)
        .map(|&(_, w)| w);
    assert_eq!(words, Some(1 + 34));
}

#[test]
fn a_sidebar_change_changes_no_cluster() {
    let mut before = services_site(RECENT);
    let mut after = services_site(&["sale", "spring", "summer", "autumn", "winter"]);
    for b in [&mut before, &mut after] {
        // One real duplicate (a print version without the sidebar) and one near pair.
        b.page_html(
            &u("/services/?print=1"),
            &format!(
                "<html><head><title>Services | Shop</title></head><body>{}</body></html>",
                article("Services", 0, 34)
            ),
        );
    }
    let (x, y) = (before.analyse(), after.analyse());
    let shape = |a: &Analysis| {
        a.clusters
            .iter()
            .map(|c| {
                let mut m: Vec<String> = c.members.iter().map(|m| m.url.clone()).collect();
                m.sort();
                m
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(shape(&x), shape(&y));
    assert_eq!(
        shape(&x),
        vec![vec![u("/services/"), u("/services/?print=1")]]
    );
    assert_eq!(render(&x), render(&y));
}

/// A listing of `items` (product teasers as `<li>`), in that order.
fn listing(title: &str, items: &[u64]) -> String {
    let lis: String = items
        .iter()
        .map(|&i| {
            format!(
                "<li><a href=\"/p/{i}\">Product {i}</a> {}</li>",
                prose(500 + i, 12)
            )
        })
        .collect();
    themed(
        title,
        RECENT,
        &format!(
            "<h1>{title}</h1><p>Showing {} products</p>\
             <select><option>Sort by price</option><option>Sort by name</option></select><ul>{lis}</ul>",
            items.len()
        ),
    )
}

#[test]
fn listings_are_one_page_only_when_they_list_the_same_items_in_the_same_order() {
    let mut b = B::new();
    let page1: Vec<u64> = (1..=12).collect();
    let page2: Vec<u64> = (13..=24).collect();
    b.page_html(&u("/catalogue/"), &listing("Catalogue", &page1));
    // Page 1 spelled out: the same page. The same items in another order: not
    // identical (its visible text differs), near-identical, said so.
    let mut sorted = page1.clone();
    sorted.reverse();
    b.page_html(&u("/catalogue/?sort=price"), &listing("Catalogue", &sorted));
    b.page_html(&u("/catalogue/?page=1"), &listing("Catalogue", &page1));
    // Page 2 and a category sharing 11 of page 2's 12 items: different pages.
    b.page_html(&u("/catalogue/?page=2"), &listing("Catalogue", &page2));
    let mut cat: Vec<u64> = (13..=23).collect();
    cat.push(99);
    b.page_html(&u("/catalogue/c/boots/"), &listing("Boots", &cat));
    let mut cat2: Vec<u64> = (14..=24).collect();
    cat2.push(98);
    b.page_html(
        &u("/catalogue/?page=2&color=red"),
        &listing("Catalogue", &cat2),
    );
    // Enough other pages for the template to be learned.
    for k in 0..6u64 {
        let h1 = format!("Product {k}");
        b.page_html(
            &u(&format!("/p/{k}")),
            &themed(&h1, RECENT, &article(&h1, 700 + k, 80)),
        );
    }
    let a = b.analyse();
    let clusters: Vec<Vec<String>> = a
        .clusters
        .iter()
        .map(|c| c.members.iter().map(|m| m.url.clone()).collect())
        .collect();
    assert_eq!(
        clusters,
        vec![vec![u("/catalogue/"), u("/catalogue/?page=1")]]
    );
    let sorted_pair = a
        .findings_with(FindingId::DupNear)
        .find(|f| f.urls.contains(&u("/catalogue/?sort=price")))
        .expect("the sorted listing is near-identical to the catalogue");
    assert!(
        sorted_pair
            .evidence
            .iter()
            .any(|e| e.contains("the same text blocks in another order")),
        "{sorted_pair:#?}"
    );
    // Near-identical listings are for review: no canonical, no redirect, no chain.
    for f in a.findings_with(FindingId::DupNear) {
        assert!(
            f.fixes
                .iter()
                .all(|x| matches!(x, Fix::ReviewNearDuplicate { .. })),
            "{f:#?}"
        );
    }
    for f in &a.findings {
        for fix in &f.fixes {
            if let Fix::SetCanonical { page, href }
            | Fix::Redirect {
                from: page,
                to: href,
                ..
            } = fix
                && page != href
            {
                assert!(
                    page.starts_with(&u("/catalogue/?")) && href == &u("/catalogue/"),
                    "{f:#?}"
                );
            }
        }
    }
}

#[test]
fn pages_titled_apart_never_merge_on_main_content_alone() {
    let mut b = services_site(RECENT);
    // Two tag archives listing the same posts, with their own title and heading in a
    // page header (chrome): same main content, but they name themselves differently.
    let body = format!("<p>{}</p><p>{}</p>", prose(31, 40), prose(32, 40));
    for tag in ["boots", "hiking"] {
        b.page_html(
            &u(&format!("/tag/{tag}/")),
            &format!(
                "<html><head><title>Tag {tag}</title></head><body><header><h1>Tag: {tag}</h1></header>\
                 <main>{body}</main></body></html>"
            ),
        );
    }
    let a = b.analyse();
    assert!(a.clusters.is_empty(), "{:#?}", a.clusters);
}

#[test]
fn unreadable_blocks_are_counted_and_fall_back_to_the_whole_text() {
    let mut b = B::new();
    b.page_html(&u("/a"), &themed("A", RECENT, &article("A", 1, 50)));
    b.page_html(&u("/b"), &themed("A", RECENT, &article("A", 1, 50)));
    for f in &mut b.input.fetches {
        f.blocks = Some(vec![42, 1, 2].into());
    }
    let a = b.analyse();
    assert_eq!(a.stats.unreadable_blocks, 2);
    assert_eq!(a.clusters.len(), 1);
}

/// A shop of `n` products, each with a "write a review" page: the product's text, plus a
/// review form instead of the product page's "No reviews yet" line. Both lines recur on
/// every page of their kind, so frequency alone calls them template.
fn shop_with_review_pages(n: u64) -> B {
    let mut b = B::new();
    for k in 0..n {
        let h1 = format!("Trail boot model {k}");
        let text = article(&h1, 800 + k, 90);
        b.page_html(
            &u(&format!("/catalogue/boot-{k}/")),
            &themed(
                &h1,
                RECENT,
                &format!("{text}<p>No reviews yet. Be the first to write one.</p>"),
            ),
        );
        b.page_html(
            &u(&format!("/catalogue/boot-{k}/reviews/add/")),
            &themed(
                &h1,
                RECENT,
                &format!(
                    "{text}<form><label>Your name</label><input name=n>\
                     <label>Title of your review</label><input name=t>\
                     <label>Score</label><select><option>5 stars</option><option>1 star</option></select>\
                     <button>Save review</button></form>"
                ),
            ),
        );
    }
    for (k, path) in ["/", "/about", "/help", "/contact"].iter().enumerate() {
        let h1 = format!("Page {k}");
        b.page_html(
            &u(path),
            &themed(&h1, RECENT, &article(&h1, 900 + k as u64, 60)),
        );
    }
    b
}

#[test]
fn a_line_frequent_on_one_kind_of_page_is_never_left_out_of_an_identity_claim() {
    let a = shop_with_review_pages(8).analyse();
    // The review page differs from its product page by a line and a form (curl and diff
    // show it): never "identical content", never merged, never a canonical or redirect.
    assert!(a.clusters.is_empty(), "{:#?}", a.clusters);
    for f in &a.findings {
        assert!(f.id != FindingId::DupContent, "{f:#?}");
        for fix in &f.fixes {
            assert!(
                !matches!(fix, Fix::SetCanonical { page, href } if page != href),
                "{f:#?}"
            );
            assert!(!matches!(fix, Fix::Redirect { .. }), "{f:#?}");
        }
    }
    // The template that every kind of page carries is still learned as such, and the
    // lines of one kind of page are counted apart.
    assert!(a.stats.template_blocks > a.stats.type_template_blocks);
    assert!(a.stats.type_template_blocks >= 2, "{:#?}", a.stats);
}

#[test]
fn pages_that_differ_only_in_host_wide_template_are_identical() {
    let mut b = shop_with_review_pages(8);
    // A copy of a product page whose sidebar lost a widget block that every kind of
    // page carries: the same main content, so one page.
    let h1 = "Trail boot model 3";
    let text = article(h1, 803, 90);
    let copy = themed(
        h1,
        RECENT,
        &format!("{text}<p>No reviews yet. Be the first to write one.</p>"),
    )
    .replace("<h3>Categories</h3>", "");
    b.page_html(&u("/old-shop/boot-3.html"), &copy);
    let a = b.analyse();
    let clusters: Vec<Vec<String>> = a
        .clusters
        .iter()
        .map(|c| c.members.iter().map(|m| m.url.clone()).collect())
        .collect();
    assert_eq!(
        clusters,
        vec![vec![u("/catalogue/boot-3/"), u("/old-shop/boot-3.html")]]
    );
    // The claim says what is identical: the main content, not the whole text.
    let copy = &a.clusters[0].members[1];
    assert_eq!(
        copy.evidence[0].kind,
        EvidenceKind::IdenticalContent {
            of: Sameness::MainContent
        }
    );
    assert_eq!(copy.evidence[0].kind.to_string(), "identical main content");
    let finding = a
        .findings_with(FindingId::DupContent)
        .find(|f| f.urls.contains(&u("/old-shop/boot-3.html")))
        .expect("the copy is a duplicate");
    assert!(
        finding
            .evidence
            .iter()
            .all(|e| !e.contains("identical text")),
        "{finding:#?}"
    );
}

/// A blog's listing pages: a category description shared by every page of the listing,
/// then the page's own five posts with their excerpts.
fn blog_listing(page: u64) -> String {
    let items: String = (0..5)
        .map(|k| {
            let post = page * 5 + k;
            format!(
                "<h2><a href=\"/blog/post-{post}/\">Post {post}</a></h2><p>{}</p>",
                prose(1000 + post, 14)
            )
        })
        .collect();
    themed(
        "Journal",
        RECENT,
        &format!("<h1>Journal</h1><p>{}</p>{items}", prose(77, 70)),
    )
}

#[test]
fn a_template_canonical_from_page_n_to_page_1_is_one_finding_and_no_merge() {
    let mut b = B::new();
    b.page_html(&u("/blog/"), &blog_listing(0));
    b.canonical(&u("/blog/"), &u("/blog/"));
    for page in 1..6u64 {
        let url = u(&format!("/blog/page/{}/", page + 1));
        b.page_html(&url, &blog_listing(page));
        b.canonical(&url, &u("/blog/"));
        b.link(&u("/blog/"), &url);
    }
    for post in 0..30u64 {
        let url = u(&format!("/blog/post-{post}/"));
        let h1 = format!("Post {post}");
        b.page_html(&url, &themed(&h1, RECENT, &article(&h1, 1000 + post, 80)));
        b.link(&u(&format!("/blog/page/{}/", post / 5 + 1)), &url);
    }
    let a = b.analyse();
    // The listing pages share their description, so they are partly alike, but each
    // lists other posts: the canonical is a template mistake, not a duplicate.
    assert!(a.clusters.is_empty(), "{:#?}", a.clusters);
    let f = only(&a, FindingId::CanonToUnrelated);
    assert_eq!(f.urls.len(), 5, "{f:#?}");
    assert!(f.summary.contains("paginated listings"), "{}", f.summary);
    assert!(
        f.evidence
            .iter()
            .any(|e| e.contains("25 pages are linked only")),
        "{:#?}",
        f.evidence
    );
    match f.fixes.as_slice() {
        [Fix::SelfCanonicalForPattern { pages, example, .. }] => {
            assert_eq!(pages.len(), 5);
            assert_eq!(example[1], u("/blog/"));
        }
        other => panic!("{other:#?}"),
    }
    // Nobody is told to change the links to the listing pages.
    assert_eq!(a.findings_with(FindingId::CanonLinked).count(), 0);
    // The fix files set each page's own URL as its canonical.
    let files = FixFiles::from_analysis(&a);
    let page2 = files
        .canonicals
        .iter()
        .find(|c| c.page == u("/blog/page/2/"))
        .expect("page 2 in canonicals_to_set");
    assert_eq!(page2.href, u("/blog/page/2/"));
}

#[test]
fn a_canonical_merges_near_identical_pages_and_says_so() {
    let mut b = services_site(RECENT);
    let body = prose(4242, 300);
    let post = |form: &str| {
        themed(
            "A long post",
            RECENT,
            &format!("<h1>A long post</h1><p>{body}</p><h3>{form}</h3>"),
        )
    };
    b.page_html(&u("/post/"), &post("Leave a reply"));
    b.page_html(
        &u("/post/?replytocom=5"),
        &post("Reply to Ann Cancel reply"),
    );
    b.canonical(&u("/post/?replytocom=5"), &u("/post/"));
    let a = b.analyse();
    let c = a
        .cluster_of(
            b.input
                .urls
                .iter()
                .find(|r| r.url == u("/post/"))
                .unwrap()
                .id,
        )
        .expect("one cluster");
    let reply = c
        .members
        .iter()
        .find(|m| m.url == u("/post/?replytocom=5"))
        .unwrap();
    assert!(
        matches!(
            reply.evidence[0].kind,
            EvidenceKind::Canonical {
                content: CanonicalContent::Near { percent },
                ..
            } if (90..100).contains(&percent)
        ),
        "{:#?}",
        reply.evidence
    );
}
