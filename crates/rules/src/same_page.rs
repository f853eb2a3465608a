//! Whether two fetched answers are one page: the one notion of "same page" that the
//! crawl's own DUST rules (learned during the crawl), the rules `dustpan learn` checks by
//! fetching sample pairs and the validation samples fetched after a crawl are all judged
//! by.
//!
//! * [`Pair::Same`]: their visible text is identical.
//! * [`Pair::Close`]: not identical, but only a little apart: a form (a reply form's
//!   heading naming the comment replied to), a counter, a date. Their SimHashes are at
//!   most [`DIFFERENT_DISTANCE`] bits apart. Near-identical text never confirms a rule
//!   (a rule confirmed on such pairs would merge different pages, as near-identical
//!   evidence never merges in the analysis), and one such pair says too little to
//!   reject one.
//! * [`Pair::Different`]: decisively two pages (SimHashes further apart than
//!   [`DIFFERENT_DISTANCE`]), or the same text blocks in another order: a sort order,
//!   which on a listing of several pages shows other items first (where the blocks are
//!   known).
//!
//! Fetched answers show more than their texts ([`answers`]): a redirect from one URL
//! to the other, a page beside a "not found", two URLs a page offers side by side as
//! choices.

use canon::Policy;
use std::collections::HashSet;

/// Two pages whose SimHashes differ by more than this many bits (of 64) are decisively
/// different pages: the analysis's `AnalysisConfig::different_distance` (its default),
/// the distance from which a rule that gives two pages one key does not hold.
pub const DIFFERENT_DISTANCE: u32 = 9;

/// What one pair of answers shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pair {
    /// One page: identical visible text.
    Same,
    /// Not identical, but only a little apart (a form, a counter, a date).
    Close,
    /// Decisively two pages.
    Different,
}

/// The text fingerprints of a fetched HTML page: the hash of its visible text and its
/// SimHash (see the `extract` crate), and where known its text blocks' order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Text {
    /// xxh3 of the normalized visible text.
    pub hash: u64,
    /// The SimHash of its words, when the page has any.
    pub simhash: Option<u64>,
    /// Its text blocks in order and as a set ([`blocks_order`]).
    pub blocks: Option<BlockOrder>,
    /// The hash ([`key_hash`]) of the equivalence key of the URL its canonical names,
    /// when it declares one.
    pub canonical: Option<u64>,
}

/// The hash a [`Text::canonical`] holds for an equivalence key.
pub fn key_hash(key: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(key.as_bytes())
}

/// The [`Text::canonical`] of a page at `url` whose canonical link names `canonical`: the
/// hash of its key under `policy`, when it names a page of the same origin. A canonical
/// on another host says which host the site prefers, not which of its URLs are one page.
pub fn canonical_key(url: &str, canonical: &str, policy: &Policy) -> Option<u64> {
    let page = canon::equivalence_key(url, policy).ok()?;
    let named = canon::equivalence_key(canonical, policy).ok()?;
    (origin(&page) == origin(&named)).then(|| key_hash(&named))
}

/// Whether one of two pages, at equivalence keys `ka` and `kb`, names the other as its
/// canonical, or both name the same page (two reply pages of one post): a site's own
/// word that two pages a little apart (a reply form naming the comment) are one page.
/// Close texts without it say nothing: an old revision of a wiki page reads a little
/// apart from the article too.
pub fn declared_one(a: Text, ka: &str, b: Text, kb: &str) -> bool {
    a.canonical == Some(key_hash(kb))
        || b.canonical == Some(key_hash(ka))
        || (a.canonical.is_some() && a.canonical == b.canonical)
}

/// A page's text blocks (`extract::Page::blocks`) hashed in their order and regardless
/// of it: two pages with the same set and another order show the same items sorted
/// another way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockOrder {
    /// The block hashes in order.
    pub ordered: u64,
    /// The block hashes as a multiset.
    pub unordered: u64,
}

/// The [`BlockOrder`] of a page's text blocks, given by their hashes in document order.
pub fn blocks_order(hashes: impl IntoIterator<Item = u64>) -> BlockOrder {
    let mut ordered = xxhash_rust::xxh3::Xxh3::new();
    let mut unordered = 0u64;
    for hash in hashes {
        ordered.update(&hash.to_le_bytes());
        unordered = unordered.wrapping_add(xxhash_rust::xxh3::xxh3_64(&hash.to_le_bytes()));
    }
    BlockOrder {
        ordered: ordered.digest(),
        unordered,
    }
}

/// Two pages' visible texts compared: identical, a little apart or decisively different
/// (the same blocks in another order included). Without SimHashes to measure, texts that
/// are not identical are different.
pub fn text_pair(a: Text, b: Text) -> Pair {
    if a.hash == b.hash {
        return Pair::Same;
    }
    if let (Some(x), Some(y)) = (a.blocks, b.blocks)
        && x.unordered == y.unordered
        && x.ordered != y.ordered
    {
        return Pair::Different;
    }
    match (a.simhash, b.simhash) {
        (Some(x), Some(y)) if (x ^ y).count_ones() <= DIFFERENT_DISTANCE => Pair::Close,
        _ => Pair::Different,
    }
}

/// Why two answers are decisively two pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Apart {
    /// Their visible texts are far apart.
    Text,
    /// One page offers both URLs, or one of them, as choices.
    Offered,
    /// One answered with a page, the other that there is none (404, 410).
    Missing,
}

/// What one pair of fetched answers shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Answers {
    /// One page: identical visible text, or one URL redirects to the other.
    Same,
    /// Not identical, but only a little apart (a form, a counter, a date).
    Close,
    /// Decisively two pages.
    Different(Apart),
}

impl Answers {
    /// What the pair showed, in a few words.
    pub fn describe(self) -> &'static str {
        match self {
            Answers::Same => "one page",
            Answers::Close => "texts a little apart",
            Answers::Different(Apart::Text) => "different texts",
            Answers::Different(Apart::Offered) => "offered side by side as choices",
            Answers::Different(Apart::Missing) => "one of them is not found",
        }
    }
}

/// One fetched answer, as [`answers`] compares it.
#[derive(Clone, Copy, Debug)]
pub struct Answer<'a> {
    /// The URL requested.
    pub url: &'a str,
    /// Its HTTP status (`None`: no response).
    pub status: Option<u16>,
    /// Where it redirects or refreshes to.
    pub location: Option<&'a str>,
    /// Its text fingerprints, for an HTML page.
    pub text: Option<Text>,
    /// The URLs its links point at.
    pub links: &'a [String],
}

/// Whether two answers are one page: one redirects (or refreshes) to the other, or
/// their visible text is identical ([`text_pair`]), or a little apart with one naming
/// the other as its canonical ([`declared_one`]: a reply form's heading naming the
/// comment); `None` when they say nothing (an error, a redirect elsewhere, a page that
/// is not HTML). A page beside a "not found" (404, 410) is two pages.
///
/// Two URLs a page offers as choices are two pages, even where today's data makes them
/// read the same: one of the two pages links to both (the "last 7 days" and "last 30
/// days" links of a change list, the sort links of a listing), or one links to the other
/// whose own page has no link to itself (a control whose current choice is not a link).
/// A duplicate's link to its original that both pages carry (the template's link to the
/// page itself) and a link a page makes to itself alone (a login link naming the page)
/// say nothing, and neither do links between two hosts (the pages of a host alias link
/// to the site's own host) or to a fragment of the page itself, nor a pager's link to
/// page 1 beside the list's own link (`/list?page=1` is `/list`). A canonical declared
/// between the two outweighs the links: the reply link of a comment is offered beside
/// the post, yet the reply page names the post as itself.
pub fn answers(a: &Answer<'_>, b: &Answer<'_>, policy: &Policy) -> Option<Answers> {
    let key = |u: &str| canon::equivalence_key(u, policy).ok();
    // A redirect or a meta refresh from one URL of the pair to the other: the site
    // itself says they are one page.
    let leads = |from: &Answer<'_>, to: &Answer<'_>| {
        from.location
            .and_then(key)
            .is_some_and(|k| key(to.url).is_some_and(|t| t == k))
    };
    if leads(a, b) || leads(b, a) {
        return Some(Answers::Same);
    }
    let ok = |f: &Answer<'_>| f.status.is_some_and(|s| (200..300).contains(&s));
    let gone = |f: &Answer<'_>| matches!(f.status, Some(404 | 410));
    if (ok(a) && gone(b)) || (gone(a) && ok(b)) {
        return Some(Answers::Different(Apart::Missing));
    }
    if !ok(a) || !ok(b) {
        return None;
    }
    let (ta, tb) = (a.text?, b.text?);
    let keys = key(a.url).zip(key(b.url));
    // One page names the other as its canonical: the site's own word that they are one
    // page, a reply form's heading or a control's link notwithstanding.
    let declared = keys
        .as_ref()
        .is_some_and(|(ka, kb)| declared_one(ta, ka, tb, kb));
    match text_pair(ta, tb) {
        Pair::Same | Pair::Close if declared => return Some(Answers::Same),
        Pair::Same => {}
        Pair::Close => return Some(Answers::Close),
        Pair::Different => return Some(Answers::Different(Apart::Text)),
    }
    let Some((ka, kb)) = keys else {
        return Some(Answers::Same);
    };
    if origin(&ka) != origin(&kb) {
        return Some(Answers::Same);
    }
    // A link to a fragment of the page itself (`href="#"`, a "back to top" or a menu
    // toggle) points at no page: it is not a choice the page offers.
    let link_keys = |page: &Answer<'_>| -> HashSet<String> {
        let own = ::url::Url::parse(page.url).map_or_else(|_| page.url.to_owned(), String::from);
        page.links
            .iter()
            .filter(|l| l.split_once('#').is_none_or(|(doc, _)| doc != own))
            .filter_map(|l| key(l))
            .collect()
    };
    // A list and its page 1 (`/list` and `/list?page=1`) are one page spelled two ways:
    // a pager offers page 1 beside the list's own link, not as another choice.
    if first_page_of(&ka, &kb) || first_page_of(&kb, &ka) {
        return Some(Answers::Same);
    }
    let (from_a, from_b) = (link_keys(a), link_keys(b));
    let (a_to_a, a_to_b) = (from_a.contains(&ka), from_a.contains(&kb));
    let (b_to_a, b_to_b) = (from_b.contains(&ka), from_b.contains(&kb));
    let offered =
        (a_to_a && a_to_b) || (b_to_a && b_to_b) || (a_to_b && !b_to_b) || (b_to_a && !a_to_a);
    Some(if offered {
        Answers::Different(Apart::Offered)
    } else {
        Answers::Same
    })
}

/// Whether `page` is page 1 of the list at `list` (`/list?page=1`, `/list/page/1/`).
fn first_page_of(page: &str, list: &str) -> bool {
    crate::url::page_number(page) == Some(1)
        && crate::url::without_page_number(page).is_some_and(|l| l == list)
}

/// The scheme, host and port of a URL (the text before its path).
fn origin(url: &str) -> &str {
    &url[..crate::url::split(url).origin_end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_apart_is_close_and_other_text_is_different() {
        let t = |hash, simhash| Text {
            hash,
            simhash: Some(simhash),
            blocks: None,
            canonical: None,
        };
        assert_eq!(text_pair(t(1, 5), t(1, 99)), Pair::Same);
        // "Reply to Ann" instead of "Leave a reply": a few bits apart.
        assert_eq!(text_pair(t(1, 0), t(2, 0b111)), Pair::Close);
        assert_eq!(text_pair(t(1, 0), t(2, 0x3ff)), Pair::Different);
        let bare = Text {
            hash: 2,
            simhash: None,
            blocks: None,
            canonical: None,
        };
        assert_eq!(text_pair(t(1, 0), bare), Pair::Different);
    }

    #[test]
    fn the_same_blocks_in_another_order_are_a_sort_order_another_page() {
        let page = |hash, order: &[u64]| Text {
            hash,
            simhash: Some(0),
            blocks: Some(blocks_order(order.iter().copied())),
            canonical: None,
        };
        // A listing sorted another way: a few SimHash bits apart, but the same items.
        assert_eq!(
            text_pair(page(1, &[10, 20, 30]), page(2, &[30, 10, 20])),
            Pair::Different
        );
        // A reply form naming the comment: one block changed, close.
        assert_eq!(
            text_pair(page(1, &[10, 20, 30]), page(2, &[10, 20, 31])),
            Pair::Close
        );
    }

    /// A fetched answer, owned.
    #[derive(Default)]
    struct Fetched {
        url: String,
        status: Option<u16>,
        location: Option<String>,
        text: Option<Text>,
        links: Vec<String>,
    }

    impl Fetched {
        fn answer(&self) -> Answer<'_> {
            Answer {
                url: &self.url,
                status: self.status,
                location: self.location.as_deref(),
                text: self.text,
                links: &self.links,
            }
        }
    }

    fn page(url: &str, status: u16, text: u64, simhash: u64) -> Fetched {
        Fetched {
            url: url.to_owned(),
            status: Some(status),
            text: Some(Text {
                hash: text,
                simhash: Some(simhash),
                blocks: None,
                canonical: None,
            }),
            ..Fetched::default()
        }
    }

    fn redirect(url: &str, to: &str) -> Fetched {
        Fetched {
            url: url.to_owned(),
            status: Some(301),
            location: Some(to.to_owned()),
            ..Fetched::default()
        }
    }

    fn pair(a: &Fetched, b: &Fetched) -> Option<Answers> {
        answers(&a.answer(), &b.answer(), &Policy::default())
    }

    #[test]
    fn a_redirect_from_one_url_to_the_other_is_one_page() {
        let short = redirect("https://example.test/a", "https://example.test/a/");
        let long = page("https://example.test/a/", 200, 1, 1);
        assert_eq!(pair(&short, &long), Some(Answers::Same));
        assert_eq!(pair(&long, &short), Some(Answers::Same));
        // A redirect elsewhere says nothing about the pair.
        let elsewhere = redirect("https://example.test/b", "https://example.test/");
        let b = page("https://example.test/b/", 200, 2, 2);
        assert_eq!(pair(&elsewhere, &b), None);
    }

    #[test]
    fn a_sample_never_fetched_is_not_checked() {
        let refused = Fetched {
            url: "http://10.0.0.1/a".to_owned(),
            ..Fetched::default()
        };
        let a = page("https://example.test/a", 200, 1, 1);
        assert_eq!(pair(&refused, &a), None);
    }

    #[test]
    fn answers_a_little_apart_are_close() {
        let a = page("https://example.test/post/", 200, 1, 0);
        // The comment form reads "Reply to Ann" instead of "Leave a reply": 2 bits apart.
        let reply = page("https://example.test/post/?replytocom=5", 200, 2, 0b11);
        assert_eq!(pair(&a, &reply), Some(Answers::Close));
        let other = page("https://example.test/other/", 200, 3, u64::MAX);
        assert_eq!(pair(&a, &other), Some(Answers::Different(Apart::Text)));
    }

    /// The reply page of a comment names the post as its canonical: one page, although
    /// it reads a little apart ("Reply to Ann") and the post links to it beside itself
    /// (its comments' Reply links), as WordPress serves them.
    #[test]
    fn a_page_a_little_apart_that_names_the_other_canonical_is_one_page() {
        let post = "https://example.test/post/";
        let key = |u: &str| key_hash(&canon::equivalence_key(u, &Policy::default()).unwrap());
        let mut a = page(post, 200, 1, 0);
        a.links = vec![post.to_owned(), format!("{post}?replytocom=5#respond")];
        let mut reply = page(&format!("{post}?replytocom=5"), 200, 2, 0b11);
        reply.links = vec![format!("{post}#respond")];
        assert_eq!(pair(&a, &reply), Some(Answers::Close));
        if let Some(t) = reply.text.as_mut() {
            t.canonical = Some(key(post));
        }
        assert_eq!(pair(&a, &reply), Some(Answers::Same));
        assert_eq!(pair(&reply, &a), Some(Answers::Same));
        // Two reply pages of the post, each naming the post: one page too.
        let mut other_reply = page(&format!("{post}?replytocom=6"), 200, 4, 0b101);
        if let Some(t) = other_reply.text.as_mut() {
            t.canonical = Some(key(post));
        }
        assert_eq!(pair(&reply, &other_reply), Some(Answers::Same));
        // A canonical elsewhere says nothing about the pair.
        if let Some(t) = reply.text.as_mut() {
            t.canonical = Some(key("https://example.test/other/"));
        }
        assert_eq!(pair(&a, &reply), Some(Answers::Close));
        // Nor does it make decisively different texts one page.
        let mut other = page("https://example.test/other/", 200, 3, u64::MAX);
        if let Some(t) = other.text.as_mut() {
            t.canonical = Some(key(post));
        }
        assert_eq!(pair(&a, &other), Some(Answers::Different(Apart::Text)));
    }

    /// Two filter pages that name a page on another host as their canonical (a site
    /// served under a second host) say nothing of each other.
    #[test]
    fn a_canonical_on_another_host_names_no_page_of_the_pair() {
        let policy = Policy::default();
        let url = "http://127.0.0.1:8080/reviews?days=7";
        assert_eq!(
            canonical_key(url, "https://example.test/reviews", &policy),
            None
        );
        let same = canonical_key(url, "http://127.0.0.1:8080/reviews", &policy);
        let key = canon::equivalence_key("http://127.0.0.1:8080/reviews", &policy).unwrap();
        assert_eq!(same, Some(key_hash(&key)));
    }

    #[test]
    fn a_page_beside_a_not_found_is_two_pages() {
        let a = page("https://example.test/item?id=3", 200, 1, 1);
        let mut missing = page("https://example.test/item", 404, 2, 2);
        assert_eq!(pair(&a, &missing), Some(Answers::Different(Apart::Missing)));
        // A server error or a refusal says nothing.
        missing.status = Some(503);
        assert_eq!(pair(&a, &missing), None);
        missing.status = Some(403);
        assert_eq!(pair(&a, &missing), None);
    }

    /// `href="#"` (a menu toggle) on both pages is no link to a choice: the reviews in
    /// their default order, with and without the order named, are one page.
    #[test]
    fn a_link_to_a_fragment_of_the_page_itself_offers_nothing() {
        let list = "http://shop.example/p/1/reviews/";
        let mut named = page(&format!("{list}?sort_by=score"), 200, 1, 1);
        named.links = vec![format!("{list}?sort_by=score#"), list.to_owned()];
        let mut default = page(list, 200, 1, 1);
        default.links = vec![format!("{list}#"), list.to_owned()];
        assert_eq!(pair(&named, &default), Some(Answers::Same));
    }

    /// A page served under the server's IP address links to the site's own host, the
    /// same path included: the links of a host alias are not choices.
    #[test]
    fn a_host_alias_linking_to_the_site_is_one_page() {
        let mut on_ip = page("http://192.0.2.7/post/", 200, 1, 1);
        on_ip.links = vec![
            "http://blog.example/post/".into(),
            "http://blog.example/".into(),
        ];
        let mut on_host = page("http://blog.example/post/", 200, 1, 1);
        on_host.links = vec!["http://blog.example/".into()];
        assert_eq!(pair(&on_ip, &on_host), Some(Answers::Same));
        // On one host the same links are a choice.
        let mut sorted = page("http://blog.example/list?sort=new", 200, 1, 1);
        sorted.links = vec!["http://blog.example/list".into()];
        let mut list = page("http://blog.example/list", 200, 1, 1);
        list.links = vec!["http://blog.example/list?sort=new".into()];
        assert_eq!(
            pair(&sorted, &list),
            Some(Answers::Different(Apart::Offered))
        );
    }

    /// A listing links its page 1 beside its own URL (the pager, and the category
    /// menu): the two spell one page, not two choices; page 2 stays a page of its own.
    #[test]
    fn a_list_and_its_page_one_are_one_page_though_both_are_linked() {
        let list = "http://shop.example/category/books_1/";
        let one = format!("{list}?page=1");
        let links = vec![list.to_owned(), one.clone(), format!("{list}?page=2")];
        let mut first = page(&one, 200, 1, 1);
        first.links = links.clone();
        let mut plain = page(list, 200, 1, 1);
        plain.links = links.clone();
        assert_eq!(pair(&first, &plain), Some(Answers::Same));
        assert_eq!(pair(&plain, &first), Some(Answers::Same));
        // Page 2 read the same today (one page of items): still offered as a choice.
        let mut second = page(&format!("{list}?page=2"), 200, 1, 1);
        second.links = links;
        assert_eq!(
            pair(&second, &plain),
            Some(Answers::Different(Apart::Offered))
        );
    }
}
