//! Content fingerprints of visible text: an exact hash and a 64-bit SimHash.

use crate::blocks::TextBlock;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// Hamming distance between two SimHashes: the number of differing bits (0..=64).
pub fn simhash_distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// Similarity of two SimHashes in `0.0..=1.0`: `1 - distance / 64`.
pub fn similarity(a: u64, b: u64) -> f64 {
    1.0 - f64::from(simhash_distance(a, b)) / 64.0
}

/// Characters of scripts written without spaces between words: each such character is
/// a word of its own, so that Chinese or Japanese text gets meaningful shingles.
fn is_unspaced_script(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF      // Thai, Lao
        | 0x1000..=0x109F    // Myanmar
        | 0x1780..=0x17FF    // Khmer
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x3FFFF) // CJK extensions B..
}

/// Size of the buffer of normalized text handed to the hasher at once.
const CHUNK: usize = 8 * 1024;

/// `EXPAND[b]` has byte `j` set to 1 when bit `j` of `b` is set: adding it to a `u64`
/// increments eight byte-wide bit counters at once.
static EXPAND: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            if b & (1 << j) != 0 {
                table[b] |= 1 << (8 * j);
            }
            j += 1;
        }
        b += 1;
    }
    table
};

/// SimHash bit voting: counts, for each of the 64 bits, how many feature hashes have it
/// set. Counting is done in byte-wide lanes (eight counters per `u64`) and flushed into
/// `u32`s every 255 features, so that one feature costs eight table look-ups and adds.
struct BitVotes {
    lanes: [u64; 8],
    in_lanes: u32,
    ones: [u64; 64],
    total: u64,
}

impl BitVotes {
    fn new() -> BitVotes {
        BitVotes {
            lanes: [0; 8],
            in_lanes: 0,
            ones: [0; 64],
            total: 0,
        }
    }

    fn add(&mut self, h: u64) {
        for (k, lane) in self.lanes.iter_mut().enumerate() {
            *lane += EXPAND[((h >> (8 * k)) & 0xff) as usize];
        }
        self.in_lanes += 1;
        self.total += 1;
        if self.in_lanes == 255 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        for (k, lane) in self.lanes.iter_mut().enumerate() {
            for j in 0..8 {
                self.ones[8 * k + j] += (*lane >> (8 * j)) & 0xff;
            }
            *lane = 0;
        }
        self.in_lanes = 0;
    }

    /// Bit `i` is set when more than half of the features have bit `i` set (the sign of
    /// the classic +1/-1 sum).
    fn finish(mut self) -> u64 {
        self.flush();
        let mut out = 0u64;
        for (bit, ones) in self.ones.iter().enumerate() {
            if 2 * ones > self.total {
                out |= 1 << bit;
            }
        }
        out
    }
}

/// Streaming fingerprinter: feed it the visible text in document order.
///
/// The normalized text is built in `buf`; every word is a contiguous range of it. Words
/// are hashed in batches when `buf` is flushed rather than as soon as they end: hashing
/// bytes that were stored a moment ago stalls on store-to-load forwarding, which made
/// word hashing the most expensive step of the whole extraction.
pub(crate) struct Fingerprinter {
    hasher: Xxh3,
    /// Normalized text not yet handed to `hasher`.
    buf: String,
    /// Start in `buf` of the word being read, if any.
    word_start: Option<usize>,
    /// Finished words in `buf`, not yet hashed.
    ranges: Vec<(usize, usize)>,
    /// Whitespace (or a block edge) was seen since the last character emitted.
    pending_space: bool,
    /// Something was emitted already (so a pending space is not leading).
    started: bool,
    /// The first two word hashes (for the short-text fallback).
    first: [u64; 2],
    /// The two most recent word hashes.
    prev: [u64; 2],
    words: u64,
    votes: BitVotes,
    /// Every word hash in order (up to [`MAX_BLOCK_WORDS`]), for the text blocks.
    word_hashes: Vec<u64>,
    /// Where each text block starts (word index) and whether it is site chrome.
    block_starts: Vec<(u32, bool)>,
}

/// Words of a page that are cut into text blocks at most.
const MAX_BLOCK_WORDS: usize = 1 << 18;

impl Fingerprinter {
    pub(crate) fn new() -> Fingerprinter {
        Fingerprinter {
            hasher: Xxh3::new(),
            buf: String::with_capacity(CHUNK + 64),
            word_start: None,
            ranges: Vec::with_capacity(CHUNK / 4),
            pending_space: false,
            started: false,
            first: [0; 2],
            prev: [0; 2],
            words: 0,
            votes: BitVotes::new(),
            word_hashes: Vec::new(),
            block_starts: vec![(0, false)],
        }
    }

    /// A word boundary that is not whitespace in the source (a block element's edge);
    /// the text that follows starts a new text block, inside site chrome or not.
    pub(crate) fn boundary(&mut self, chrome: bool) {
        self.pending_space = true;
        self.end_word();
        let at = u32::try_from(self.words as usize + self.ranges.len()).unwrap_or(u32::MAX);
        match self.block_starts.last_mut() {
            Some(last) if last.0 == at => last.1 = chrome,
            _ => self.block_starts.push((at, chrome)),
        }
    }

    /// Feeds visible text.
    pub(crate) fn push(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii_alphanumeric() {
                // A run of ASCII letters and digits, handled in bulk.
                let start = i;
                let mut upper = false;
                while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                    upper |= bytes[i].is_ascii_uppercase();
                    i += 1;
                }
                self.emit_sep();
                let from = self.buf.len();
                if self.word_start.is_none() {
                    self.word_start = Some(from);
                }
                self.buf.push_str(&text[start..i]);
                if upper {
                    self.buf[from..].make_ascii_lowercase();
                }
                // The word surely ends at an ASCII non-alphanumeric; at a non-ASCII
                // character or at the end of this text node it may go on.
                if i < bytes.len() && bytes[i] < 0x80 {
                    self.end_word();
                }
            } else if b < 0x80 {
                i += 1;
                self.end_word();
                if matches!(b, b'\t'..=b'\r' | b' ') {
                    self.pending_space = true;
                    continue;
                }
                self.emit_sep();
                self.buf.push(b as char);
            } else {
                // Slow path for one non-ASCII character.
                let Some(c) = text[i..].chars().next() else {
                    break;
                };
                i += c.len_utf8();
                self.push_char(c);
            }
            if self.buf.len() >= CHUNK && self.word_start != Some(0) {
                self.flush();
            }
        }
    }

    fn push_char(&mut self, c: char) {
        if c.is_whitespace() {
            self.pending_space = true;
            self.end_word();
            return;
        }
        self.emit_sep();
        for l in c.to_lowercase() {
            if is_unspaced_script(l) {
                self.end_word();
                self.word_start = Some(self.buf.len());
                self.buf.push(l);
                self.end_word();
            } else if l.is_alphanumeric() {
                if self.word_start.is_none() {
                    self.word_start = Some(self.buf.len());
                }
                self.buf.push(l);
            } else {
                self.end_word();
                self.buf.push(l);
            }
        }
    }

    fn emit_sep(&mut self) {
        if self.pending_space {
            if self.started {
                self.buf.push(' ');
            }
            self.pending_space = false;
        }
        self.started = true;
    }

    fn end_word(&mut self) {
        if let Some(start) = self.word_start.take() {
            self.ranges.push((start, self.buf.len()));
        }
    }

    /// Hashes the finished words, then hands the text before the current word (if any)
    /// to the text hasher.
    fn flush(&mut self) {
        let mut ranges = std::mem::take(&mut self.ranges);
        for &(start, end) in &ranges {
            let h = xxh3_64(&self.buf.as_bytes()[start..end]);
            self.word_done(h);
        }
        ranges.clear();
        self.ranges = ranges;
        let keep_from = self.word_start.unwrap_or(self.buf.len());
        if keep_from > 0 {
            self.hasher.update(&self.buf.as_bytes()[..keep_from]);
            self.buf.drain(..keep_from);
            self.word_start = self.word_start.map(|_| 0);
        }
    }

    /// Records a finished word by its hash.
    fn word_done(&mut self, h: u64) {
        if self.words < 2 {
            self.first[self.words as usize] = h;
        } else {
            self.votes
                .add(crate::blocks::shingle_hash(self.prev[0], self.prev[1], h));
        }
        if self.word_hashes.len() < MAX_BLOCK_WORDS {
            self.word_hashes.push(h);
        }
        self.prev = [self.prev[1], h];
        self.words += 1;
    }

    /// Returns `(text_hash, simhash, word_count)` and the text blocks.
    pub(crate) fn finish_with_blocks(mut self) -> ((u64, u64, u64), Vec<TextBlock>) {
        self.end_word();
        self.flush();
        let blocks = crate::blocks::build(&self.word_hashes, &self.block_starts);
        (self.finish(), blocks)
    }

    /// Returns `(text_hash, simhash, word_count)`.
    pub(crate) fn finish(mut self) -> (u64, u64, u64) {
        self.end_word();
        self.flush();
        let text_hash = self.hasher.digest();
        if self.words < 3 {
            for i in 0..self.words.min(2) as usize {
                self.votes.add(self.first[i]);
            }
        }
        let simhash = self.votes.finish();
        (text_hash, simhash, self.words)
    }
}

/// Fingerprints a piece of plain text exactly as [`crate::extract`] fingerprints a
/// page's visible text: `(text_hash, simhash, word_count)`.
pub fn fingerprint_text(text: &str) -> (u64, u64, u64) {
    let mut f = Fingerprinter::new();
    f.push(text);
    f.finish()
}

/// The normalized form whose xxh3 is the text hash: whitespace runs collapsed to one
/// space, trimmed, lowercased (exposed for tests and for explaining a match).
pub fn normalize_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending = true;
            continue;
        }
        if pending && !out.is_empty() {
            out.push(' ');
        }
        pending = false;
        out.extend(c.to_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_hash_is_xxh3_of_normalized_text() {
        let t = "  Hello,\n\t WORLD \u{a0} again ";
        let (h, _, n) = fingerprint_text(t);
        assert_eq!(normalize_text(t), "hello, world again");
        assert_eq!(h, xxh3_64(b"hello, world again"));
        assert_eq!(n, 3);
    }

    #[test]
    fn chunking_does_not_change_hash() {
        let text = "Ab Cd ".repeat(5_000);
        let (h1, s1, n1) = fingerprint_text(&text);
        let mut f = Fingerprinter::new();
        for piece in text.as_bytes().chunks(7) {
            f.push(std::str::from_utf8(piece).unwrap_or_default());
        }
        assert_eq!(f.finish(), (h1, s1, n1));
        assert_eq!(h1, xxh3_64(normalize_text(&text).as_bytes()));
    }

    #[test]
    fn short_texts_fall_back_to_words() {
        let (_, s0, n0) = fingerprint_text("");
        assert_eq!((s0, n0), (0, 0));
        let (_, s1, n1) = fingerprint_text("Hello");
        assert_eq!(n1, 1);
        assert_eq!(s1, xxh3_64(b"hello"));
        let (_, s2, _) = fingerprint_text("hello world");
        assert_ne!(s2, 0);
    }

    #[test]
    fn stable_values() {
        // Fingerprints are stored: they must never change between runs or releases.
        let (h, s, n) = fingerprint_text("The quick brown fox jumps over the lazy dog.");
        assert_eq!(n, 9);
        assert_eq!(h, xxh3_64(b"the quick brown fox jumps over the lazy dog."));
        // Pinned: a change here means stored fingerprints would stop matching.
        assert_eq!(h, 0xbebf_b979_847e_b870);
        assert_eq!(s, 0x75a5_b714_549a_617a);
    }

    #[test]
    fn bit_votes_match_the_plus_minus_one_sum() {
        let hashes: Vec<u64> = (0..1_000u64).map(|i| xxh3_64(&i.to_le_bytes())).collect();
        for n in [1, 2, 3, 254, 255, 256, 511, 1_000] {
            let mut votes = BitVotes::new();
            let mut sums = [0i64; 64];
            for &h in &hashes[..n] {
                votes.add(h);
                for (bit, sum) in sums.iter_mut().enumerate() {
                    *sum += if (h >> bit) & 1 == 1 { 1 } else { -1 };
                }
            }
            let want = sums
                .iter()
                .enumerate()
                .filter(|(_, s)| **s > 0)
                .fold(0u64, |acc, (bit, _)| acc | (1 << bit));
            assert_eq!(votes.finish(), want, "{n} features");
        }
    }

    proptest::proptest! {
        #[test]
        fn streaming_matches_the_documented_definition(
            text in "(\\PC|[ \t\n]|[A-Za-z]{1,6}|\u{a0}|\u{130}){0,80}",
            cuts in proptest::collection::vec(0usize..400, 0..6),
        ) {
            let (h, s, n) = fingerprint_text(&text);
            proptest::prop_assert_eq!(h, xxh3_64(normalize_text(&text).as_bytes()));
            // Feeding the same text in pieces (as text nodes arrive) changes nothing.
            let mut f = Fingerprinter::new();
            let mut last = 0;
            let mut cuts: Vec<usize> = cuts
                .into_iter()
                .map(|c| c.min(text.len()))
                .filter(|&c| text.is_char_boundary(c))
                .collect();
            cuts.sort_unstable();
            for c in cuts {
                f.push(&text[last..c]);
                last = c;
            }
            f.push(&text[last..]);
            proptest::prop_assert_eq!(f.finish(), (h, s, n));
        }
    }

    #[test]
    fn cjk_characters_are_words() {
        let (_, _, n) = fingerprint_text("日本語のテキスト");
        assert_eq!(n, 8);
    }

    #[test]
    fn distance_and_similarity() {
        assert_eq!(simhash_distance(0, u64::MAX), 64);
        assert_eq!(simhash_distance(0b1011, 0b0001), 2);
        assert!((similarity(7, 7) - 1.0).abs() < f64::EPSILON);
        assert!(similarity(0, u64::MAX).abs() < f64::EPSILON);
    }
}
