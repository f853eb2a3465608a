//! Whether two fetched pages' texts are one page: the one notion the crawl's own DUST
//! rules (`online.rs`) and the rules `dustpan learn` checks by fetching sample pairs are
//! judged by (`learn` adds what only samples show: redirects between the two URLs,
//! a 404 beside a page, two URLs offered side by side as choices).
//!
//! * [`Pair::Same`]: their visible text is identical.
//! * [`Pair::Close`]: not identical, but only a little apart: a form (a reply form's
//!   heading naming the comment replied to), a counter, a date. Their SimHashes are at
//!   most [`DIFFERENT_DISTANCE`] bits apart. One such pair says too little to reject a
//!   rule, and near-identical text never merges pages in the analysis either.
//! * [`Pair::Different`]: decisively two pages (SimHashes further apart than
//!   [`DIFFERENT_DISTANCE`]), or the same text blocks in another order: a sort order,
//!   which on a listing of several pages shows other items first (where the blocks are
//!   known).

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

/// Whether one of two pages, at equivalence keys `ka` and `kb`, names the other as its
/// canonical: a site's own word that two pages a little apart (a reply form naming the
/// comment) are one page. Close texts without it say nothing: an old revision of a
/// wiki page reads a little apart from the article too.
pub fn declared_one(a: Text, ka: &str, b: Text, kb: &str) -> bool {
    a.canonical == Some(key_hash(kb)) || b.canonical == Some(key_hash(ka))
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
