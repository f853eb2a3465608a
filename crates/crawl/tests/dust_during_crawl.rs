//! DUST learned during the crawl, on loopback: a catalogue whose every product link
//! comes twice, once as `/p/N` and once as `/p/N?view=full`, a parameter that never
//! changes the page. Once the pages fetched show it, the crawl skips the `?view=full`
//! URLs (fetching one in ten to check), saving at least a fifth of the fetches; where
//! the rule stops holding, the checked sample catches it and the rule is dropped.
//!
//! A blog whose every comment has a `?replytocom=N` link: the reply page is the post
//! with its reply form's heading naming the comment, a page only a little apart from the
//! post, never a wrong prediction. And a catalogue whose every URL is queued before the
//! rule is confirmed: the queued duplicates are skipped when their turn comes.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use crawl::CrawlConfig;
use store::{AuditStatus, ReasonKind, Store, UrlState};
use support::audit::crawl_into;
use support::{Reply, Request, Server};

/// Products.
const PRODUCTS: usize = 600;

/// The catalogue: `/` links the first products; product N links the next three, each
/// twice. With `broken_from`, `?view=full` shows another page from that product on.
fn catalogue(broken_from: usize) -> impl Fn(&Request) -> Reply + Clone {
    move |r: &Request| {
        let (path, query) = r.path.split_once('?').unwrap_or((&r.path, ""));
        let links = |from: usize| {
            let mut s = String::new();
            for k in from..(from + 3).min(PRODUCTS) {
                s.push_str(&format!(
                    r#"<a href="/p/{k}">Product {k}</a> <a href="/p/{k}?view=full">details</a> "#
                ));
            }
            s
        };
        if path == "/" {
            return Reply::html(format!(
                "<html><body><main>{}</main></body></html>",
                links(0)
            ));
        }
        let Some(k) = path
            .strip_prefix("/p/")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&k| k < PRODUCTS)
        else {
            return Reply::not_found();
        };
        let shown = if query == "view=full" && k >= broken_from {
            k + 100_000
        } else {
            k
        };
        Reply::html(format!(
            "<html><head><title>Product {shown}</title></head><body><main><h1>Product {shown}</h1>\
             <p>Product number {shown} is a sturdy item made by hand of fine materials number \
             {shown}, shipped in a box labelled {shown}, sold with a guarantee {shown}.</p>{}\
             </main></body></html>",
            links(3 * k + 1)
        ))
    }
}

async fn crawl(server: &Server, learn: bool) -> (Store, tempfile::TempDir, crawl::CrawlSummary) {
    let dir = tempfile::tempdir().unwrap();
    let config = CrawlConfig {
        learn_dust: learn,
        probe_variants: false,
        ..CrawlConfig::for_url(&format!("http://127.0.0.1:{}/", server.port()))
    };
    let (store, summary) = crawl_into(&dir.path().join("audit.sqlite"), &config).await;
    assert_eq!(summary.status, AuditStatus::Finished);
    (store, dir, summary)
}

fn requests(server: &Server) -> usize {
    server
        .log()
        .iter()
        .filter(|r| r.path.starts_with("/p/"))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parameter_that_never_changes_the_page_saves_a_fifth_of_the_fetches() {
    let plain = Server::start(|_| catalogue(usize::MAX)).await;
    let (_s, _d, without) = crawl(&plain, false).await;
    let fetched_without = requests(&plain);
    assert_eq!(fetched_without, 2 * PRODUCTS);
    assert!(without.dust.is_none());

    let server = Server::start(|_| catalogue(usize::MAX)).await;
    let (store, _dir, summary) = crawl(&server, true).await;
    let fetched = requests(&server);
    let saved = fetched_without - fetched;
    eprintln!("{fetched} of {fetched_without} product fetches made; {saved} saved");
    assert!(
        saved * 5 >= fetched_without,
        "{saved} of {fetched_without} fetches saved"
    );
    let dust = summary.dust.unwrap();
    assert!(
        dust.rules >= 1 && (dust.dropped, dust.wrong) == (0, 0),
        "{dust:?}"
    );
    assert!(dust.verified > 0, "{dust:?}");
    // Every URL skipped is recorded as a predicted duplicate, and is a `?view=full` URL.
    let urls = store.urls(summary.audit).await.unwrap();
    let skipped: Vec<&store::UrlRow> = urls
        .iter()
        .filter(|u| u.state == UrlState::Skipped)
        .collect();
    assert_eq!(skipped.len(), saved);
    assert!(skipped.iter().all(|u| u.url.ends_with("?view=full")
        && u.reason.as_ref().map(|r| r.kind) == Some(ReasonKind::DustDuplicate)));
    // The rule is kept with the audit, for a resume and for the analysis.
    let config = crawl::audit_config(&store, summary.audit).await.unwrap();
    let rules = config.learned_during_crawl.unwrap();
    assert!(
        rules.confirmed().any(|r| r.id == "drop_param:view"),
        "{rules:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_that_stops_holding_is_dropped_by_its_check() {
    // From product 300 on, `?view=full` is another page.
    let server = Server::start(|_| catalogue(300)).await;
    let (store, _dir, summary) = crawl(&server, true).await;
    let dust = summary.dust.unwrap();
    assert!(dust.rules >= 1 && dust.dropped == dust.rules, "{dust:?}");
    assert!(dust.wrong >= 1, "{dust:?}");
    // After the drop, every `?view=full` URL is fetched again.
    let urls = store.urls(summary.audit).await.unwrap();
    let last_skipped = urls
        .iter()
        .filter(|u| u.state == UrlState::Skipped)
        .map(|u| u.id)
        .max()
        .unwrap_or_default();
    let later_fetched = urls
        .iter()
        .filter(|u| u.id > last_skipped && u.url.ends_with("?view=full"))
        .all(|u| u.state == UrlState::Done);
    assert!(later_fetched);
    let config = crawl::audit_config(&store, summary.audit).await.unwrap();
    let rules = config.learned_during_crawl.unwrap();
    assert!(rules.confirmed().next().is_none(), "{rules:?}");
    assert!(
        rules
            .rules
            .iter()
            .any(|r| r.id == "drop_param:view" && r.status == rules::RuleStatus::Rejected)
    );
}

/// Blog posts.
const POSTS: usize = 120;
/// Comments on each post, each with a reply link.
const COMMENTS: usize = 4;

/// Words of a post's text, from its number.
fn prose(k: usize, words: usize) -> String {
    const WORDS: [&str; 16] = [
        "river", "boots", "stitch", "leather", "mountain", "coffee", "winter", "map", "harbour",
        "lantern", "wool", "compass", "meadow", "anvil", "kettle", "saddle",
    ];
    (0..words)
        .map(|i| WORDS[(k * 7 + i * i * 3 + i / 5) % WORDS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// The blog: `/` links the first posts; post K links the next three and carries its
/// comments, each with a reply link `?replytocom=ID`. The reply page is the post with the
/// reply form's heading "Reply to NAME" (and a cancel link) instead of "Leave a reply",
/// and names the post as its canonical, as a blog CMS writes it on every post.
fn blog(r: &Request) -> Reply {
    let (path, query) = r.path.split_once('?').unwrap_or((&r.path, ""));
    let next = |from: usize| {
        (from..(from + 3).min(POSTS))
            .map(|k| format!(r#"<li><a href="/post/{k}">Post {k}</a></li>"#))
            .collect::<String>()
    };
    if path == "/" {
        return Reply::html(format!(
            "<html><body><main><ul>{}</ul></main></body></html>",
            next(0)
        ));
    }
    let Some(k) = path
        .strip_prefix("/post/")
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&k| k < POSTS)
    else {
        return Reply::not_found();
    };
    let names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"];
    let mut comments = String::new();
    for c in 0..COMMENTS {
        let id = 10 * k + c;
        comments.push_str(&format!(
            r#"<li id="comment-{id}"><p>{} wrote: {}</p><a rel="nofollow" href="/post/{k}?replytocom={id}#respond">Reply</a></li>"#,
            names[(k + c) % names.len()],
            prose(k * 31 + c, 14)
        ));
    }
    let heading = query
        .strip_prefix("replytocom=")
        .and_then(|id| id.parse::<usize>().ok())
        .filter(|id| id / 10 == k && id % 10 < COMMENTS)
        .map_or_else(
            || "Leave a reply".to_owned(),
            |id| {
                format!(
                    r##"Reply to {} <a href="/post/{k}#respond">Cancel reply</a>"##,
                    names[(k + id % 10) % names.len()]
                )
            },
        );
    Reply::html(format!(
        "<html><head><title>Post {k}</title><link rel=\"canonical\" href=\"/post/{k}\"></head><body><main><h1>Post {k}</h1><p>{}</p>\
         <ol>{comments}</ol><div id=\"respond\"><h3>{heading}</h3><form method=\"post\" \
         action=\"/comment\"><textarea name=\"comment\"></textarea><button>Post comment</button>\
         </form></div><ul>{}</ul></main></body></html>",
        prose(k, 160),
        next(3 * k + 1)
    ))
}

fn replies(server: &Server) -> usize {
    server
        .log()
        .iter()
        .filter(|r| r.path.contains("replytocom="))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_to_comment_parameter_saves_a_fifth_of_its_fetches_with_no_wrong_prediction() {
    let plain = Server::start(|_| blog).await;
    let (_s, _d, _) = crawl(&plain, false).await;
    let without = replies(&plain);
    assert_eq!(without, POSTS * COMMENTS);

    let server = Server::start(|_| blog).await;
    let (store, _dir, summary) = crawl(&server, true).await;
    let fetched = replies(&server);
    let saved = without - fetched;
    let dust = summary.dust.clone().unwrap();
    eprintln!("{fetched} of {without} reply fetches made; {saved} saved; {dust:?}");
    assert!(saved * 5 >= without, "{saved} of {without} saved; {dust:?}");
    assert_eq!((dust.wrong, dust.dropped), (0, 0), "{dust:?}");
    assert!(dust.verified > 0 && dust.close > 0, "{dust:?}");
    let urls = store.urls(summary.audit).await.unwrap();
    let skipped: Vec<&store::UrlRow> = urls
        .iter()
        .filter(|u| u.state == UrlState::Skipped)
        .collect();
    assert_eq!(skipped.len(), saved);
    assert!(skipped.iter().all(|u| u.url.contains("?replytocom=")
        && u.reason.as_ref().map(|r| r.kind) == Some(ReasonKind::DustDuplicate)));
    let config = crawl::audit_config(&store, summary.audit).await.unwrap();
    let rules = config.learned_during_crawl.unwrap();
    assert!(
        rules.confirmed().any(|r| r.id == "drop_param:replytocom"),
        "{rules:?}"
    );
}

/// A catalogue whose home page links every product twice (`/p/N` and `/p/N?view=full`):
/// every URL is queued before the first page teaches anything.
fn flat(r: &Request) -> Reply {
    let (path, query) = r.path.split_once('?').unwrap_or((&r.path, ""));
    if path == "/" {
        let links: String = (0..PRODUCTS / 2)
            .map(|k| {
                format!(
                    r#"<a href="/p/{k}">Product {k}</a> <a href="/p/{k}?view=full">details</a> "#
                )
            })
            .collect();
        return Reply::html(format!("<html><body><main>{links}</main></body></html>"));
    }
    let Some(k) = path
        .strip_prefix("/p/")
        .and_then(|n| n.parse::<usize>().ok())
    else {
        return Reply::not_found();
    };
    let _ = query;
    Reply::html(format!(
        "<html><head><title>Product {k}</title></head><body><main><h1>Product {k}</h1>\
         <p>{}</p></main></body></html>",
        prose(k, 60)
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicates_queued_before_the_rule_was_confirmed_are_skipped_too() {
    let server = Server::start(|_| flat).await;
    let (store, _dir, summary) = crawl(&server, true).await;
    let views = server
        .log()
        .iter()
        .filter(|r| r.path.ends_with("?view=full"))
        .count();
    let saved = PRODUCTS / 2 - views;
    let dust = summary.dust.clone().unwrap();
    eprintln!(
        "{views} of {} ?view=full fetches made; {dust:?}",
        PRODUCTS / 2
    );
    assert!(saved * 5 >= PRODUCTS / 2, "{saved} saved; {dust:?}");
    assert_eq!(dust.wrong, 0, "{dust:?}");
    let urls = store.urls(summary.audit).await.unwrap();
    let skipped = urls
        .iter()
        .filter(|u| {
            u.state == UrlState::Skipped
                && u.reason.as_ref().map(|r| r.kind) == Some(ReasonKind::DustDuplicate)
        })
        .count();
    assert_eq!(skipped, saved);
}

/// A shop whose every listing links a sort order: `?sort=name` shows the same products
/// in another order. On a listing of several pages the first page of another order shows
/// other products, so a sort order is never a parameter that leaves the page alone.
fn shop(r: &Request) -> Reply {
    let (path, query) = r.path.split_once('?').unwrap_or((&r.path, ""));
    let listings = 150;
    if path == "/" {
        let links: String = (0..listings)
            .map(|k| format!(r#"<a href="/list/{k}">List {k}</a> "#))
            .collect();
        return Reply::html(format!("<html><body><main>{links}</main></body></html>"));
    }
    let Some(k) = path
        .strip_prefix("/list/")
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&k| k < listings)
    else {
        return Reply::not_found();
    };
    let mut items: Vec<String> = (0..3)
        .map(|i| format!("<div class=\"item\"><p>{}</p></div>", prose(k * 10 + i, 25)))
        .collect();
    if query == "sort=name" {
        items.reverse();
    }
    Reply::html(format!(
        "<html><head><title>List {k}</title></head><body><main><h1>List {k}</h1>\
         <p>{}</p><p><a href=\"/list/{k}?sort=name\">Sort by name</a></p>{}</main></body></html>",
        prose(k, 400),
        items.concat()
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sort_order_showing_the_same_items_in_another_order_is_never_skipped() {
    let server = Server::start(|_| shop).await;
    let (_store, _dir, summary) = crawl(&server, true).await;
    let sorted = server
        .log()
        .iter()
        .filter(|r| r.path.ends_with("?sort=name"))
        .count();
    let dust = summary.dust.clone().unwrap();
    eprintln!("{sorted} of 150 sorted listings fetched; {dust:?}");
    assert_eq!(sorted, 150, "{dust:?}");
    assert_eq!(dust.rules, 0, "{dust:?}");
}
