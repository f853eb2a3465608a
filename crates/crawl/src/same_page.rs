//! Whether two fetched answers are one page: the one notion the crawl's own DUST rules
//! (`online.rs`) and the rules `dustpan learn` checks by fetching sample pairs are judged
//! by.
//!
//! * [`Pair::Same`]: one URL redirects (or refreshes) to the other, or their visible
//!   text is identical (and the pages do not offer the two URLs side by side as two
//!   choices).
//! * [`Pair::Close`]: not identical, but only a little apart: a form (a reply form's
//!   heading naming the comment replied to), a counter, a date. Their SimHashes are at
//!   most [`DIFFERENT_DISTANCE`] bits apart. One such pair says too little to reject a
//!   rule, and near-identical text never merges pages in the analysis either.
//! * [`Pair::Different`]: decisively two pages (SimHashes further apart than
//!   [`DIFFERENT_DISTANCE`]), two choices a page offers side by side, or the same text
//!   blocks in another order: a sort order, which on a listing of several pages shows
//!   other items first (where the blocks are known).

use std::collections::HashSet;

use canon::Policy;

use crate::SampleFetch;

/// Two pages whose SimHashes differ by more than this many bits (of 64) are decisively
/// different pages: the analysis's `AnalysisConfig::different_distance` (its default),
/// the distance from which a rule that gives two pages one key does not hold.
pub const DIFFERENT_DISTANCE: u32 = 9;

/// What one pair of answers shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pair {
    /// One page: identical visible text, or one URL redirects to the other.
    Same,
    /// Not identical, but only a little apart (a form, a counter, a date).
    Close,
    /// Decisively two pages, or two choices a page offers side by side.
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

/// The [`BlockOrder`] of a page's text blocks.
pub fn blocks_order(blocks: &[extract::blocks::TextBlock]) -> BlockOrder {
    let mut ordered = xxhash_rust::xxh3::Xxh3::new();
    let mut unordered = 0u64;
    for b in blocks {
        ordered.update(&b.hash.to_le_bytes());
        unordered = unordered.wrapping_add(xxhash_rust::xxh3::xxh3_64(&b.hash.to_le_bytes()));
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

/// Whether two sample answers are one page (see the module docs); `None` when they say
/// nothing (an error, a redirect elsewhere, a page that is not HTML).
///
/// Two URLs a page offers as choices are two pages, even where today's data makes them
/// read the same: one of the two pages links to both (the "last 7 days" and "last 30
/// days" links of a change list, the sort links of a listing), or one links to the other
/// whose own page has no link to itself (a control whose current choice is not a link).
/// A duplicate's link to its original that both pages carry (the template's link to the
/// page itself) and a link a page makes to itself alone (a login link naming the page)
/// say nothing.
pub fn pair(a: &SampleFetch, b: &SampleFetch, policy: &Policy) -> Option<Pair> {
    let key = |u: &str| canon::equivalence_key(u, policy).ok();
    // A redirect or a meta refresh from one URL of the pair to the other: the site
    // itself says they are one page.
    let leads = |from: &SampleFetch, to: &SampleFetch| {
        from.location
            .as_deref()
            .and_then(key)
            .is_some_and(|k| key(&to.url).is_some_and(|t| t == k))
    };
    if leads(a, b) || leads(b, a) {
        return Some(Pair::Same);
    }
    let ok = |f: &SampleFetch| f.status.is_some_and(|s| (200..300).contains(&s));
    if !ok(a) || !ok(b) {
        return None;
    }
    let text = |f: &SampleFetch| {
        f.text_hash.map(|hash| Text {
            hash,
            simhash: f.simhash,
            blocks: None,
        })
    };
    let verdict = text_pair(text(a)?, text(b)?);
    if verdict != Pair::Same {
        return Some(verdict);
    }
    let (Some(ka), Some(kb)) = (key(&a.url), key(&b.url)) else {
        return Some(Pair::Same);
    };
    let link_keys = |page: &SampleFetch| -> HashSet<String> {
        page.links.iter().filter_map(|l| key(l)).collect()
    };
    let (from_a, from_b) = (link_keys(a), link_keys(b));
    let (a_to_a, a_to_b) = (from_a.contains(&ka), from_a.contains(&kb));
    let (b_to_a, b_to_b) = (from_b.contains(&ka), from_b.contains(&kb));
    let offered =
        (a_to_a && a_to_b) || (b_to_a && b_to_b) || (a_to_b && !b_to_b) || (b_to_a && !a_to_a);
    Some(if offered { Pair::Different } else { Pair::Same })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str, status: u16, text: u64, simhash: u64) -> SampleFetch {
        SampleFetch {
            url: url.to_owned(),
            status: Some(status),
            text_hash: Some(text),
            simhash: Some(simhash),
            ..SampleFetch::default()
        }
    }

    #[test]
    fn the_distance_is_the_analysis_s() {
        assert_eq!(
            DIFFERENT_DISTANCE,
            audit::AnalysisConfig::default().different_distance
        );
    }

    #[test]
    fn a_form_apart_is_close_and_other_text_is_different() {
        let t = |hash, simhash| Text {
            hash,
            simhash: Some(simhash),
            blocks: None,
        };
        assert_eq!(text_pair(t(1, 5), t(1, 99)), Pair::Same);
        // "Reply to Ann" instead of "Leave a reply": a few bits apart.
        assert_eq!(text_pair(t(1, 0), t(2, 0b111)), Pair::Close);
        assert_eq!(text_pair(t(1, 0), t(2, 0x3ff)), Pair::Different);
        let bare = Text {
            hash: 2,
            simhash: None,
            blocks: None,
        };
        assert_eq!(text_pair(t(1, 0), bare), Pair::Different);
    }

    #[test]
    fn the_same_blocks_in_another_order_are_a_sort_order_another_page() {
        let block = |hash| extract::blocks::TextBlock {
            hash,
            words: 5,
            shingles: Vec::new(),
        };
        let page = |hash, order: &[u64]| Text {
            hash,
            simhash: Some(0),
            blocks: Some(blocks_order(
                &order.iter().map(|&h| block(h)).collect::<Vec<_>>(),
            )),
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

    #[test]
    fn a_redirect_to_the_other_url_is_one_page_and_an_error_says_nothing() {
        let policy = Policy::seo();
        let short = SampleFetch {
            url: "https://example.test/a".to_owned(),
            status: Some(301),
            location: Some("https://example.test/a/".to_owned()),
            ..SampleFetch::default()
        };
        let long = page("https://example.test/a/", 200, 1, 1);
        assert_eq!(pair(&short, &long, &policy), Some(Pair::Same));
        assert_eq!(pair(&long, &short, &policy), Some(Pair::Same));
        let refused = SampleFetch {
            url: "http://10.0.0.1/a".to_owned(),
            error_kind: Some("address_refused".to_owned()),
            ..SampleFetch::default()
        };
        assert_eq!(pair(&refused, &long, &policy), None);
    }

    #[test]
    fn two_choices_a_page_offers_are_two_pages() {
        let policy = Policy::seo();
        let mut week = page("https://example.test/log?days=7", 200, 1, 1);
        let mut month = page("https://example.test/log?days=30", 200, 1, 1);
        let both = vec![week.url.clone(), month.url.clone()];
        week.links.clone_from(&both);
        month.links = both;
        assert_eq!(pair(&week, &month, &policy), Some(Pair::Different));
    }
}
