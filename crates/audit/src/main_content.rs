//! Main content: each page's text with the site's template removed.
//!
//! The crawl stores each page's visible text outside HTML5 chrome (`nav`, `aside`, page
//! `header` / `footer`) as text blocks (`extract::blocks`). Many sites put their
//! template in plain `div`s, so the template is also learned from the site itself: a
//! block whose hash appears on at least [`TEMPLATE_SHARE`] of a host's distinct pages
//! (and on at least [`TEMPLATE_MIN_PAGES`] of them) is template there (a "recent posts"
//! widget, a category list, a cookie notice). What remains, in document order, is the
//! page's main content:
//!
//! * `hash`: xxh3 of its block hashes in document order (host-wide template left out,
//!   see below): two pages with the same `hash` show the same text in the same order.
//!   The same items in another order (a listing sorted differently) are not identical;
//! * `reordered`: the same over the block hashes sorted, so that a pair whose `hash`
//!   differs but whose `reordered` agrees is the same blocks in another order (a sort
//!   order of one listing): near-identical, said so in its finding, never merged;
//! * `words`: its word count;
//! * `shingles`: the sorted set of its word 3-shingle hashes, whose Jaccard similarity
//!   measures near-identical content ([`near_pairs`]). Only a 32-value MinHash
//!   signature per page is held; a page's set is rebuilt from its stored blocks when a
//!   pair is compared (the candidates the signatures propose, a canonical's page and
//!   target), so the analysis holds the blocks once rather than a second copy of every
//!   page's text as shingles.
//!
//! A host with fewer than [`TEMPLATE_MIN_PAGES`] distinct pages has no learned template:
//! there is too little to tell template from content.
//!
//! Frequency alone also swallows lines that belong to one kind of page: "No reviews yet"
//! on most product pages, the labels of the review form on every "write a review" page.
//! Such a block is left out of the similarity (it says nothing about which product a
//! page shows), but never out of an identity claim: `hash` leaves out only the blocks
//! that are template across the whole host, spread over several *page types* (URL
//! shapes: the path's depth and its segments, a segment kept when it recurs on at least
//! [`TEMPLATE_MIN_PAGES`] pages of the host, numbers written `#`, anything else `*`).
//! A frequent block is host-wide when the page types other than its most common one
//! carry at least [`HOST_WIDE_SPREAD`] of its pages (and at least two of them). Two
//! pages with the same `hash` differ at most in blocks that every kind of page of the
//! site carries: the header, the menus, the footer, the sidebar widgets.

use crate::StoredBlocks;
use crate::urlparts::{split, strip_www};
use extract::blocks::BlockReader;
use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_64;

/// A block on at least this share of a host's distinct pages is template.
pub const TEMPLATE_SHARE: f64 = 0.3;
/// ... and on at least this many of them.
pub const TEMPLATE_MIN_PAGES: u32 = 5;
/// A frequent block is template across the whole host (left out of identity claims too)
/// when page types other than its most common one carry at least this share of its pages.
pub const HOST_WIDE_SPREAD: f64 = 0.1;

/// MinHash rows per band and bands for the near-duplicate candidates: with 8 bands of
/// 4 rows, a pair at Jaccard 0.9 becomes a candidate with probability 0.9996, at 0.5
/// with 0.40 (then dropped by the exact comparison). `ROWS * BANDS` is a power of two
/// (the bins of the one-permutation signature).
const ROWS: usize = 4;
const BANDS: usize = 8;
/// Pages sharing one band value are compared all-pairs up to this many; in a longer run
/// each page is compared with its [`WINDOW`] neighbours (a pair can then be missed,
/// never invented).
const MAX_RUN: usize = 512;
const WINDOW: usize = 64;

/// MinHash values per page signature.
const SIG: usize = ROWS * BANDS;

/// Shingles (4 bytes each) that the near-duplicate pass keeps built at once, over the
/// candidate pages it compares; past that it starts again (2M: 8 MiB).
const SHINGLE_CACHE: usize = 2 << 20;

/// Every page's main content, indexed like the site's URLs; `'p` is the analysis
/// input, whose stored blocks give a page's shingles when they are compared.
#[derive(Default)]
pub(crate) struct MainContent<'p> {
    /// Hash of the main content with only host-wide template left out, in document
    /// order (0: none: not a 2xx page with stored blocks).
    hash: Vec<u64>,
    /// The same blocks' hash in sorted order (0: none).
    reordered: Vec<u64>,
    /// Words of main content.
    words: Vec<u32>,
    /// Per URL, its entry in `signatures` (`u32::MAX`: no main-content shingles).
    sig_of: Vec<u32>,
    /// The MinHash signature of each page with main-content shingles.
    signatures: Vec<[u32; SIG]>,
    /// Per URL, its stored blocks and host index, when it has main content.
    blocks: Vec<Option<(&'p StoredBlocks, u32)>>,
    /// Every `(host, block hash)` that is template (left out of the shingles).
    template: rustc_hash::FxHashSet<(u32, u64)>,
    /// Stored blocks that could not be read (a newer format, or cut short).
    pub unreadable: u32,
    /// Distinct template blocks learned, over all hosts.
    pub template_blocks: u32,
    /// Of those, the blocks frequent within one page type only (not host-wide).
    pub type_blocks: u32,
}

impl MainContent<'_> {
    /// Main content hash and word count of page `i`, when its blocks were stored.
    pub(crate) fn get(&self, i: u32) -> Option<(u64, u32)> {
        match self.hash.get(i as usize) {
            Some(&h) if h != 0 => Some((h, self.words[i as usize])),
            _ => None,
        }
    }

    /// Whether pages `a` and `b` show the same main-content blocks in another order (a
    /// listing sorted differently): not identical, the same items.
    pub(crate) fn reordered(&self, a: u32, b: u32) -> bool {
        let (Some(&x), Some(&y)) = (
            self.reordered.get(a as usize),
            self.reordered.get(b as usize),
        ) else {
            return false;
        };
        x != 0 && x == y && self.hash[a as usize] != self.hash[b as usize]
    }

    /// Words of main content of page `i`, when known.
    pub(crate) fn words(&self, i: u32) -> Option<u32> {
        self.get(i).map(|(_, w)| w)
    }

    /// Whether page `i` has main-content shingles.
    fn has_shingles(&self, i: u32) -> bool {
        self.sig_of.get(i as usize).is_some_and(|&k| k != u32::MAX)
    }

    /// Page `i`'s main-content shingles, sorted and distinct, into `out` (empty when it
    /// has none): its blocks' shingles without any template block.
    fn shingles_into(&self, i: u32, out: &mut Vec<u32>) {
        out.clear();
        let Some(&Some((blocks, host))) = self.blocks.get(i as usize) else {
            return;
        };
        // Read without error when the main content was laid out; a spill file that
        // fails later gives no shingles (no pair claimed), never a panic.
        let Ok(blocks) = blocks.bytes() else {
            return;
        };
        for b in BlockReader::new(&blocks).into_iter().flatten().flatten() {
            if !self.template.contains(&(host, b.hash)) {
                out.extend(b.shingles());
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    /// Page `i`'s main-content shingles, sorted and distinct.
    pub(crate) fn shingles(&self, i: u32) -> Vec<u32> {
        let mut out = Vec::new();
        self.shingles_into(i, &mut out);
        out
    }

    /// Jaccard similarity of two pages' main-content shingles, when both have some.
    pub(crate) fn similarity(&self, a: u32, b: u32) -> Option<f64> {
        if !self.has_shingles(a) || !self.has_shingles(b) {
            return None;
        }
        Some(jaccard(&self.shingles(a), &self.shingles(b)))
    }
}

/// Jaccard similarity of two sorted sets.
pub(crate) fn jaccard(x: &[u32], y: &[u32]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = x.len() + y.len() - common;
    if union == 0 {
        1.0
    } else {
        common as f64 / union as f64
    }
}

/// What learning main content reads of one URL, by its index: its URL, its visible
/// text's hash and its stored text blocks when the site serves it (2xx, no redirect),
/// `None` for any other URL.
pub(crate) type Served<'u, 'p> = Option<(&'u str, Option<u64>, Option<&'p StoredBlocks>)>;

/// A page main content is learned from: served, with stored blocks that all read.
struct Page<'u, 'p> {
    /// Its URL index.
    i: u32,
    /// Its URL.
    url: &'u str,
    /// Its visible text's hash: each distinct text counts once toward the template.
    text_hash: Option<u64>,
    /// Its stored text blocks.
    blocks: &'p StoredBlocks,
}

/// Each host's template: the blocks on a large enough share of its distinct pages.
struct Template {
    /// Distinct pages carrying each block, by `(host, block hash)`.
    df: FxHashMap<(u32, u64), u32>,
    /// Per host, the distinct pages from which a block is template (`u32::MAX` when the
    /// host has fewer than [`TEMPLATE_MIN_PAGES`] distinct pages).
    threshold: Vec<u32>,
}

impl Template {
    /// Whether the block is template on the host.
    fn is_template(&self, host: u32, hash: u64) -> bool {
        self.df
            .get(&(host, hash))
            .is_some_and(|&c| c >= self.threshold[host as usize])
    }

    /// Every `(host, block hash)` that is template.
    fn set(&self) -> rustc_hash::FxHashSet<(u32, u64)> {
        self.df
            .iter()
            .filter(|&(&(host, _), &c)| c >= self.threshold[host as usize])
            .map(|(&key, _)| key)
            .collect()
    }

    /// Distinct template blocks, over all hosts.
    fn blocks(&self) -> u32 {
        self.df
            .iter()
            .filter(|&(&(host, _), &c)| c >= self.threshold[host as usize])
            .count() as u32
    }
}

/// Learns each host's template and computes every page's main content, for the `n`
/// URLs of a site as `served` shows them.
pub(crate) fn learn<'u, 'p>(n: usize, served: impl Fn(u32) -> Served<'u, 'p>) -> MainContent<'p> {
    let mut out = MainContent::default();
    let pages = readable_pages(n, served, &mut out.unreadable);
    if pages.is_empty() {
        return out;
    }
    let host_of = hosts(&pages);
    let (template, distinct_pages) = learn_template(&pages, &host_of);
    out.template_blocks = template.blocks();
    let host_wide = host_wide_blocks(&pages, &host_of, &template, &distinct_pages);
    out.type_blocks = out.template_blocks - host_wide.len() as u32;
    lay_out(&mut out, n, &pages, &host_of, &template, &host_wide);
    out
}

/// The served pages whose stored blocks all read, in URL order; counts in `unreadable`
/// those whose blocks do not (a newer format, or cut short).
fn readable_pages<'u, 'p>(
    n: usize,
    served: impl Fn(u32) -> Served<'u, 'p>,
    unreadable: &mut u32,
) -> Vec<Page<'u, 'p>> {
    let mut pages = Vec::new();
    for i in 0..n as u32 {
        let Some((url, text_hash, blocks)) = served(i) else {
            continue;
        };
        if let Some(blocks) = blocks {
            let readable = blocks.bytes().is_ok_and(|bytes| {
                BlockReader::new(&bytes).is_ok_and(|mut r| r.all(|b| b.is_ok()))
            });
            if readable {
                pages.push(Page {
                    i,
                    url,
                    text_hash,
                    blocks,
                });
            } else {
                *unreadable += 1;
            }
        }
    }
    pages
}

/// Each page's host, as an index, without `www.`: a host alias serves the same template.
fn hosts(pages: &[Page<'_, '_>]) -> Vec<u32> {
    let mut hosts: FxHashMap<&str, u32> = FxHashMap::default();
    pages
        .iter()
        .map(|p| {
            let host = strip_www(split(p.url).host);
            let next = hosts.len() as u32;
            *hosts.entry(host).or_insert(next)
        })
        .collect()
}

/// A page's distinct block hashes, sorted, into `out`.
fn sorted_blocks(blocks: &StoredBlocks, out: &mut Vec<u64>) {
    out.clear();
    let Ok(blocks) = blocks.bytes() else {
        return;
    };
    out.extend(
        BlockReader::new(&blocks)
            .into_iter()
            .flatten()
            .flatten()
            .map(|b| b.hash),
    );
    out.sort_unstable();
    out.dedup();
}

/// Document frequency of each block per host, over distinct pages (one count per
/// distinct visible text, so exact copies of a page do not make it template), and the
/// template it gives; with the positions in `pages` of those distinct pages.
fn learn_template(pages: &[Page<'_, '_>], host_of: &[u32]) -> (Template, Vec<usize>) {
    let hosts = host_of.iter().map(|&h| h as usize + 1).max().unwrap_or(0);
    let mut distinct: Vec<u32> = vec![0; hosts];
    let mut df: FxHashMap<(u32, u64), u32> = FxHashMap::default();
    let mut seen_text: rustc_hash::FxHashSet<(u32, u64)> = Default::default();
    let mut page_blocks: Vec<u64> = Vec::new();
    let mut distinct_pages: Vec<usize> = Vec::new();
    for (k, p) in pages.iter().enumerate() {
        let host = host_of[k];
        let text = p.text_hash.unwrap_or(p.i as u64);
        if !seen_text.insert((host, text)) {
            continue;
        }
        distinct[host as usize] += 1;
        distinct_pages.push(k);
        sorted_blocks(p.blocks, &mut page_blocks);
        for &h in &page_blocks {
            *df.entry((host, h)).or_insert(0) += 1;
        }
    }
    let threshold: Vec<u32> = distinct
        .iter()
        .map(|&d| {
            if d < TEMPLATE_MIN_PAGES {
                u32::MAX
            } else {
                TEMPLATE_MIN_PAGES.max((f64::from(d) * TEMPLATE_SHARE).ceil() as u32)
            }
        })
        .collect();
    (Template { df, threshold }, distinct_pages)
}

/// The template blocks that are template across the host's page types (see the module
/// docs), not of one type only: their pages counted per page type, over the same
/// distinct pages.
fn host_wide_blocks(
    pages: &[Page<'_, '_>],
    host_of: &[u32],
    template: &Template,
    distinct_pages: &[usize],
) -> rustc_hash::FxHashSet<(u32, u64)> {
    let types = page_types(pages, host_of);
    let mut page_blocks: Vec<u64> = Vec::new();
    let mut per_type: FxHashMap<(u32, u64, u32), u32> = FxHashMap::default();
    for &k in distinct_pages {
        let host = host_of[k];
        sorted_blocks(pages[k].blocks, &mut page_blocks);
        for &h in &page_blocks {
            if template.is_template(host, h) {
                *per_type.entry((host, h, types[k])).or_insert(0) += 1;
            }
        }
    }
    let mut largest: FxHashMap<(u32, u64), u32> = FxHashMap::default();
    for (&(host, h, _), &c) in &per_type {
        let m = largest.entry((host, h)).or_insert(0);
        *m = (*m).max(c);
    }
    largest
        .into_iter()
        .filter(|&(key, most)| {
            let all = template.df[&key];
            let elsewhere = all - most;
            elsewhere >= 2 && f64::from(elsewhere) >= HOST_WIDE_SPREAD * f64::from(all)
        })
        .map(|(key, _)| key)
        .collect()
}

/// Every page's main content into `out`, indexed like the site's `n` URLs: the hash of
/// its blocks without host-wide template, in document order and sorted, its words, and
/// the MinHash signature of its shingles without any template block (the blocks are kept
/// by reference, to rebuild the shingles when a pair is compared).
fn lay_out<'p>(
    out: &mut MainContent<'p>,
    n: usize,
    pages: &[Page<'_, 'p>],
    host_of: &[u32],
    template: &Template,
    host_wide: &rustc_hash::FxHashSet<(u32, u64)>,
) {
    out.hash = vec![0; n];
    out.reordered = vec![0; n];
    out.words = vec![0; n];
    out.sig_of = vec![u32::MAX; n];
    out.blocks = vec![None; n];
    out.template = template.set();
    let mut page_blocks: Vec<u64> = Vec::new();
    for (k, p) in pages.iter().enumerate() {
        let i = p.i;
        let host = host_of[k];
        page_blocks.clear();
        let mut words = 0u32;
        let mut sig = [u32::MAX; SIG];
        let mut shingles = false;
        let Ok(bytes) = p.blocks.bytes() else {
            continue;
        };
        for b in BlockReader::new(&bytes).into_iter().flatten().flatten() {
            // Identity leaves out host-wide template only; similarity and word counts
            // leave out every frequent block.
            if !host_wide.contains(&(host, b.hash)) {
                page_blocks.push(b.hash);
            }
            if template.is_template(host, b.hash) {
                continue;
            }
            words = words.saturating_add(b.words);
            for s in b.shingles() {
                shingles = true;
                sign(&mut sig, s);
            }
        }
        if shingles {
            out.sig_of[i as usize] = out.signatures.len() as u32;
            out.signatures.push(sig);
        }
        out.blocks[i as usize] = Some((p.blocks, host));
        // 0 means "none": an empty main content still has a hash of its own.
        out.hash[i as usize] = hash_blocks(&page_blocks);
        page_blocks.sort_unstable();
        out.reordered[i as usize] = hash_blocks(&page_blocks);
        out.words[i as usize] = words;
    }
    out.signatures.shrink_to_fit();
}

/// One hash of a sequence of block hashes, never 0 (0 means "none").
fn hash_blocks(blocks: &[u64]) -> u64 {
    let bytes: Vec<u8> = blocks.iter().flat_map(|h| h.to_le_bytes()).collect();
    xxh3_64(&bytes).max(1)
}

/// Each page's type (see the module docs), as a small id per entry of `pages`.
fn page_types(pages: &[Page<'_, '_>], host_of: &[u32]) -> Vec<u32> {
    fn segments(url: &str) -> impl Iterator<Item = (usize, &str)> {
        split(url)
            .path
            .split('/')
            .filter(|s| !s.is_empty())
            .enumerate()
    }
    let numeric = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    // Pages per (host, depth, segment), each path counted once.
    let mut seen_paths: rustc_hash::FxHashSet<(u32, &str)> = Default::default();
    let mut recurring: FxHashMap<(u32, usize, String), u32> = FxHashMap::default();
    for (k, p) in pages.iter().enumerate() {
        if !seen_paths.insert((host_of[k], split(p.url).path)) {
            continue;
        }
        for (d, s) in segments(p.url) {
            if !numeric(s) {
                *recurring
                    .entry((host_of[k], d, s.to_ascii_lowercase()))
                    .or_insert(0) += 1;
            }
        }
    }
    let mut ids: FxHashMap<String, u32> = FxHashMap::default();
    let mut shape = String::new();
    pages
        .iter()
        .zip(host_of)
        .map(|(p, &host)| {
            shape.clear();
            shape.push_str(&host.to_string());
            for (d, s) in segments(p.url) {
                shape.push('/');
                if numeric(s) {
                    shape.push('#');
                    continue;
                }
                let key = (host, d, s.to_ascii_lowercase());
                if recurring
                    .get(&key)
                    .is_some_and(|&c| c >= TEMPLATE_MIN_PAGES)
                {
                    shape.push_str(&key.2);
                } else {
                    shape.push('*');
                }
            }
            let next = ids.len() as u32;
            *ids.entry(shape.clone()).or_insert(next)
        })
        .collect()
}

/// One-permutation MinHash (Li, Owen, Zhang 2012): the shingle hashes are already
/// uniform, so their top bits pick one of `ROWS * BANDS` bins and each bin keeps its
/// smallest value; an empty bin holds `u32::MAX`. Adds one shingle to `sig` (the order
/// and repeats of a set's shingles do not change its signature).
fn sign(sig: &mut [u32; SIG], s: u32) {
    const BITS: u32 = SIG.trailing_zeros();
    let bin = (s >> (32 - BITS)) as usize;
    let v = s << BITS >> BITS;
    if v < sig[bin] {
        sig[bin] = v;
    }
}

/// Signature values two candidate pages must share before their shingle sets are
/// compared. Each value agrees with probability about the pair's Jaccard similarity, so
/// a pair at `threshold` shares `SIG * threshold` on average: the bound lies six standard
/// deviations under that. At 0.9 it is 18 of 32, and a pair exactly at the threshold
/// falls under it with probability about 1e-7 (the binomial tail; 8e-12 at 0.95),
/// four thousand times less often than the bands themselves miss such a pair (0.0004).
/// Pages that met in a band by chance (a site built from a few shared paragraphs has
/// many such pairs, and their number grows with the square of its pages) share far
/// fewer and are never compared.
fn min_agreement(threshold: f64) -> usize {
    let (n, t) = (SIG as f64, threshold.clamp(0.0, 1.0));
    let bound = n * t - 6.0 * (n * t * (1.0 - t)).sqrt();
    // Truncation keeps the bound at or under the real one; a negative one filters nothing.
    bound.max(0.0) as usize
}

/// Pairs of pages whose main contents are near-identical: Jaccard similarity of their
/// shingle sets at least `threshold` (exact, on the candidates MinHash LSH proposes
/// whose signatures share at least [`min_agreement`] values).
/// `eligible` says which pages take part. Returns `(a, b, similarity)` with `a < b`.
pub(crate) fn near_pairs(
    main: &MainContent<'_>,
    n: usize,
    threshold: f64,
    eligible: impl Fn(u32) -> bool,
) -> Vec<(u32, u32, f64)> {
    let pages: Vec<u32> = (0..n as u32)
        .filter(|&i| main.has_shingles(i) && eligible(i))
        .collect();
    let signatures: Vec<&[u32; SIG]> = pages
        .iter()
        .map(|&i| &main.signatures[main.sig_of[i as usize] as usize])
        .collect();
    let agreement = min_agreement(threshold);
    // Keys hold a page's position in `pages`, in the same order as its URL index.
    let mut keys: Vec<(u64, u32)> = Vec::with_capacity(pages.len());
    let mut candidates: Vec<(u32, u32)> = Vec::new();
    for band in 0..BANDS {
        keys.clear();
        for (k, sig) in signatures.iter().enumerate() {
            let mut bytes = [0u8; ROWS * 4];
            for (r, chunk) in bytes.chunks_exact_mut(4).enumerate() {
                chunk.copy_from_slice(&sig[band * ROWS + r].to_le_bytes());
            }
            keys.push((xxh3_64(&bytes), k as u32));
        }
        keys.sort_unstable();
        for run in keys.chunk_by(|a, b| a.0 == b.0) {
            let reach = if run.len() <= MAX_RUN {
                run.len()
            } else {
                WINDOW + 1
            };
            for (x, &(_, a)) in run.iter().enumerate() {
                for &(_, b) in run.iter().skip(x + 1).take(reach - 1) {
                    let (sa, sb) = (signatures[a as usize], signatures[b as usize]);
                    if sa.iter().zip(sb).filter(|(u, v)| u == v).count() >= agreement {
                        let (a, b) = (pages[a as usize], pages[b as usize]);
                        candidates.push((a.min(b), a.max(b)));
                    }
                }
            }
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    similar(main, candidates, threshold, SHINGLE_CACHE)
}

/// The `(a, b)` pairs, sorted, whose Jaccard similarity is at least `threshold`, with
/// it. Their shingle sets are built from the pages' blocks as the pairs come (one page
/// is usually in several), and kept while they hold at most `cache` shingles.
fn similar(
    main: &MainContent<'_>,
    pairs: Vec<(u32, u32)>,
    threshold: f64,
    cache: usize,
) -> Vec<(u32, u32, f64)> {
    let mut built: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    let mut held = 0usize;
    let mut set_a: Vec<u32> = Vec::new();
    let mut current = None;
    pairs
        .into_iter()
        .filter_map(|(a, b)| {
            if current != Some(a) {
                main.shingles_into(a, &mut set_a);
                current = Some(a);
            }
            if !built.contains_key(&b) {
                let set = main.shingles(b);
                if held + set.len() > cache {
                    built.clear();
                    held = 0;
                }
                held += set.len();
                built.insert(b, set);
            }
            let s = jaccard(&set_a, &built[&b]);
            (s >= threshold).then_some((a, b, s))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jaccard_of_sorted_sets() {
        assert!((jaccard(&[1, 2, 3, 4], &[2, 3, 4, 5]) - 0.6).abs() < 1e-9);
        assert!((jaccard(&[1], &[1]) - 1.0).abs() < 1e-9);
        assert!(jaccard(&[1], &[2]).abs() < 1e-9);
    }

    /// Each set as one page's one stored block, of its own hash, spilled to a file as
    /// the loader does.
    fn stored(sets: &[Vec<u32>]) -> Vec<StoredBlocks> {
        let spill = crate::Spill::new().unwrap();
        sets.iter()
            .enumerate()
            .map(|(k, s)| {
                spill.keep(extract::blocks::encode(&[extract::blocks::TextBlock {
                    hash: k as u64 + 1,
                    words: 100,
                    shingles: s.clone(),
                }]))
            })
            .collect()
    }

    /// The main content of pages with these stored blocks, on one host without template.
    fn with_blocks(blocks: &[StoredBlocks]) -> MainContent<'_> {
        let pages: Vec<Page<'_, '_>> = blocks
            .iter()
            .enumerate()
            .map(|(i, b)| Page {
                i: i as u32,
                url: "https://example.test/",
                text_hash: None,
                blocks: b,
            })
            .collect();
        let template = Template {
            df: FxHashMap::default(),
            threshold: vec![u32::MAX],
        };
        let mut m = MainContent::default();
        let host_of = vec![0; pages.len()];
        lay_out(
            &mut m,
            pages.len(),
            &pages,
            &host_of,
            &template,
            &Default::default(),
        );
        m
    }

    /// Pseudo-random shingle hashes from `seed` (xorshift).
    fn xorshift(mut x: u64) -> impl FnMut() -> u32 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u32
        }
    }

    #[test]
    fn lsh_finds_every_pair_above_the_threshold_and_no_other() {
        // 40 random sets of 200 shingles; page 2k+1 is page 2k with `k` shingles changed.
        let mut rnd = xorshift(0x2545_F491_4F6C_DD1D);
        let mut sets = Vec::new();
        for k in 0..20usize {
            let a: Vec<u32> = (0..200).map(|_| rnd()).collect();
            let mut b = a.clone();
            for s in b.iter_mut().take(k) {
                *s = rnd();
            }
            sets.push(a);
            sets.push(b);
        }
        let blocks = stored(&sets);
        let main = with_blocks(&blocks);
        let found = near_pairs(&main, sets.len(), 0.9, |_| true);
        let mut want = Vec::new();
        for a in 0..sets.len() as u32 {
            for b in a + 1..sets.len() as u32 {
                if jaccard(&main.shingles(a), &main.shingles(b)) >= 0.9 {
                    want.push((a, b));
                }
            }
        }
        let got: Vec<(u32, u32)> = found.iter().map(|&(a, b, _)| (a, b)).collect();
        assert_eq!(got, want);
        // The same similarities whether the shingle sets are kept or built again.
        let all: Vec<(u32, u32)> = (0..sets.len() as u32)
            .flat_map(|a| (a + 1..sets.len() as u32).map(move |b| (a, b)))
            .collect();
        assert_eq!(
            similar(&main, all.clone(), 0.0, 0),
            similar(&main, all, 0.0, usize::MAX)
        );
        // k = 10 of 200 changed: Jaccard 190/210 = 0.905; k = 11: 0.896.
        assert!(got.contains(&(20, 21)));
        assert!(!got.contains(&(22, 23)));
    }

    #[test]
    fn pairs_at_the_threshold_share_enough_signature_values_and_chance_pairs_do_not() {
        assert_eq!(min_agreement(0.9), 18);
        assert_eq!(min_agreement(1.0), SIG);
        assert_eq!(min_agreement(0.5), 0);
        let mut rnd = xorshift(0x9E37_79B9_7F4A_7C15);
        let signature = |set: &[u32]| {
            let mut sig = [u32::MAX; SIG];
            for &s in set {
                sign(&mut sig, s);
            }
            sig
        };
        let agree =
            |a: &[u32; SIG], b: &[u32; SIG]| a.iter().zip(b).filter(|(u, v)| u == v).count();
        let bound = min_agreement(0.9);
        let (mut fewest, mut chance_over) = (SIG, 0);
        for _ in 0..5_000 {
            // Jaccard 190/210 = 0.905: 10 of 200 shingles changed.
            let a: Vec<u32> = (0..200).map(|_| rnd()).collect();
            let mut b = a.clone();
            for s in b.iter_mut().take(10) {
                *s = rnd();
            }
            fewest = fewest.min(agree(&signature(&a), &signature(&b)));
            // Jaccard 60/340 = 0.18: pages sharing a few paragraphs.
            let mut c: Vec<u32> = a[..60].to_vec();
            c.extend((0..140).map(|_| rnd()));
            if agree(&signature(&a), &signature(&c)) >= bound {
                chance_over += 1;
            }
        }
        assert!(
            fewest >= bound,
            "a pair at 0.905 shared only {fewest} values"
        );
        assert_eq!(chance_over, 0, "pairs at 0.18 over the bound");
    }
}
