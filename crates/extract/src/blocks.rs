//! Text blocks: the page's visible text cut at block-element edges, the unit from which
//! an analysis of many pages tells a site's template from each page's main content.
//!
//! A block is the text between two block-level edges (`<p>`, `<li>`, `<div>`, `<h2>`,
//! `<br>`, ...). For each block the extractor keeps:
//!
//! * `hash`: xxh3-64 of the little-endian bytes of its word hashes (each word hashed as
//!   in the text hash: xxh3-64 of its lower-cased UTF-8), so punctuation and whitespace
//!   do not matter and the same paragraph on two pages has the same hash;
//! * `words`: its word count;
//! * `shingles`: a sample of the low 32 bits of the hashes of its word 3-shingles (the
//!   same shingles as the SimHash): the one in [`SHINGLE_SAMPLE`] whose value is a
//!   multiple of it (Broder's "mod m" sample: the same shingle is kept on every page, so
//!   the Jaccard similarity of two pages' samples estimates that of their shingle sets);
//!   for a block of one or two words, the low 32 bits of its `hash`, always kept.
//!
//! Blocks inside site chrome by HTML5 semantics (`<nav>`, `<aside>`, and `<header>` /
//! `<footer>` outside `<main>` and `<article>`) are left out: they are never main
//! content. What recurs across a site's pages is template too, but that takes the whole
//! site to see: the analysis learns it from the blocks' hashes.
//!
//! The blocks are stored as one compact byte string ([`encode`], read back by
//! [`BlockReader`]), version 1:
//!
//! ```text
//! u8 version (1), then per block:
//!   u64 LE hash, varint words, varint n, n × u32 LE shingle hashes
//! ```

use xxhash_rust::xxh3::xxh3_64;

/// The stored format's version byte.
pub const BLOCKS_VERSION: u8 = 1;
/// One word 3-shingle in this many is kept (by value, see the module docs): a quarter
/// of the storage and analysis memory of keeping them all.
pub const SHINGLE_SAMPLE: u32 = 4;
/// Shingles kept per page at most (the first ones in document order): enough to compare
/// the main content of a page of about 8,000 words, bounded for hostile ones.
pub const MAX_PAGE_SHINGLES: usize = 2_048;
/// Blocks kept per page at most.
pub const MAX_PAGE_BLOCKS: usize = 4_096;

/// One block of visible text outside the site chrome (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TextBlock {
    /// xxh3-64 of its word hashes.
    pub hash: u64,
    /// Its word count.
    pub words: u32,
    /// A sample of the low 32 bits of its word 3-shingle hashes (or of `hash` for a block
    /// under three words); empty once the page's [`MAX_PAGE_SHINGLES`] are used up.
    pub shingles: Vec<u32>,
}

/// Hash of three consecutive word hashes: the shingle feature shared with the SimHash.
pub(crate) fn shingle_hash(a: u64, b: u64, c: u64) -> u64 {
    let mut shingle = [0u8; 24];
    shingle[..8].copy_from_slice(&a.to_le_bytes());
    shingle[8..16].copy_from_slice(&b.to_le_bytes());
    shingle[16..].copy_from_slice(&c.to_le_bytes());
    xxh3_64(&shingle)
}

/// Builds the blocks of a page from its word hashes and block starts.
///
/// `starts` are `(first word index, chrome)` in increasing word order; a block runs to
/// the next start. Chrome blocks and empty blocks are left out.
pub(crate) fn build(words: &[u64], starts: &[(u32, bool)]) -> Vec<TextBlock> {
    let mut out = Vec::new();
    let mut shingles_left = MAX_PAGE_SHINGLES;
    let mut bytes = Vec::new();
    for (k, &(start, chrome)) in starts.iter().enumerate() {
        let end = starts
            .get(k + 1)
            .map_or(words.len(), |&(s, _)| (s as usize).min(words.len()));
        let start = (start as usize).min(end);
        if chrome || start == end {
            continue;
        }
        if out.len() == MAX_PAGE_BLOCKS {
            break;
        }
        let w = &words[start..end];
        bytes.clear();
        for h in w {
            bytes.extend_from_slice(&h.to_le_bytes());
        }
        let hash = xxh3_64(&bytes);
        let mut shingles = Vec::new();
        if w.len() < 3 {
            if shingles_left > 0 {
                shingles.push(hash as u32);
                shingles_left -= 1;
            }
        } else {
            shingles.extend(
                w.windows(3)
                    .map(|s| shingle_hash(s[0], s[1], s[2]) as u32)
                    .filter(|s| s % SHINGLE_SAMPLE == 0)
                    .take(shingles_left),
            );
            shingles_left -= shingles.len();
        }
        out.push(TextBlock {
            hash,
            words: u32::try_from(w.len()).unwrap_or(u32::MAX),
            shingles,
        });
    }
    out
}

fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Encodes blocks in the stored format (see the module docs).
pub fn encode(blocks: &[TextBlock]) -> Vec<u8> {
    let shingles: usize = blocks.iter().map(|b| b.shingles.len()).sum();
    let mut out = Vec::with_capacity(1 + blocks.len() * 12 + shingles * 4);
    out.push(BLOCKS_VERSION);
    for b in blocks {
        out.extend_from_slice(&b.hash.to_le_bytes());
        put_varint(&mut out, b.words);
        put_varint(
            &mut out,
            u32::try_from(b.shingles.len()).unwrap_or(u32::MAX),
        );
        for s in &b.shingles {
            out.extend_from_slice(&s.to_le_bytes());
        }
    }
    out
}

/// Why stored blocks could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlocksError {
    /// The version byte is not one this build reads.
    Version(u8),
    /// The bytes end inside a block.
    Truncated,
}

impl std::fmt::Display for BlocksError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BlocksError::Version(v) => write!(f, "text blocks of unknown format version {v}"),
            BlocksError::Truncated => f.write_str("text blocks cut short"),
        }
    }
}

impl std::error::Error for BlocksError {}

/// One block read back from the stored format, borrowing its shingles.
#[derive(Debug, Clone, Copy)]
pub struct BlockRef<'a> {
    /// xxh3-64 of its word hashes.
    pub hash: u64,
    /// Its word count.
    pub words: u32,
    shingles: &'a [u8],
}

impl<'a> BlockRef<'a> {
    /// How many shingle hashes it holds.
    pub fn shingle_count(&self) -> usize {
        self.shingles.len() / 4
    }

    /// Its shingle hashes.
    pub fn shingles(&self) -> impl Iterator<Item = u32> + 'a {
        self.shingles
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
    }
}

/// Reads blocks from the stored format without copying.
pub struct BlockReader<'a> {
    rest: &'a [u8],
    failed: bool,
}

impl<'a> BlockReader<'a> {
    /// Starts reading `bytes` (the empty string reads as no blocks).
    pub fn new(bytes: &'a [u8]) -> Result<BlockReader<'a>, BlocksError> {
        match bytes.split_first() {
            None => Ok(BlockReader {
                rest: &[],
                failed: false,
            }),
            Some((&BLOCKS_VERSION, rest)) => Ok(BlockReader {
                rest,
                failed: false,
            }),
            Some((&v, _)) => Err(BlocksError::Version(v)),
        }
    }

    fn varint(&mut self) -> Option<u32> {
        let mut v: u32 = 0;
        for shift in (0..35).step_by(7) {
            let (&b, rest) = self.rest.split_first()?;
            self.rest = rest;
            v |= u32::from(b & 0x7f).checked_shl(shift)?;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }

    fn next_block(&mut self) -> Option<BlockRef<'a>> {
        if self.rest.len() < 8 {
            return None;
        }
        let (h, rest) = self.rest.split_at(8);
        self.rest = rest;
        let hash = u64::from_le_bytes(h.try_into().ok()?);
        let words = self.varint()?;
        let n = self.varint()? as usize;
        let len = n.checked_mul(4)?;
        if self.rest.len() < len {
            return None;
        }
        let (shingles, rest) = self.rest.split_at(len);
        self.rest = rest;
        Some(BlockRef {
            hash,
            words,
            shingles,
        })
    }
}

impl<'a> Iterator for BlockReader<'a> {
    type Item = Result<BlockRef<'a>, BlocksError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() || self.failed {
            return None;
        }
        match self.next_block() {
            Some(b) => Some(Ok(b)),
            None => {
                self.failed = true;
                Some(Err(BlocksError::Truncated))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let blocks = vec![
            TextBlock {
                hash: u64::MAX,
                words: 300,
                shingles: vec![1, 2, u32::MAX],
            },
            TextBlock {
                hash: 7,
                words: 1,
                shingles: vec![7],
            },
        ];
        let bytes = encode(&blocks);
        let back: Vec<TextBlock> = BlockReader::new(&bytes)
            .unwrap()
            .map(|b| {
                let b = b.unwrap();
                TextBlock {
                    hash: b.hash,
                    words: b.words,
                    shingles: b.shingles().collect(),
                }
            })
            .collect();
        assert_eq!(back, blocks);
        assert_eq!(BlockReader::new(&[]).unwrap().count(), 0);
    }

    #[test]
    fn bad_bytes_are_errors_not_panics() {
        assert_eq!(BlockReader::new(&[9]).err(), Some(BlocksError::Version(9)));
        let bytes = encode(&[TextBlock {
            hash: 1,
            words: 5,
            shingles: vec![1, 2, 3],
        }]);
        for cut in 2..bytes.len() {
            let read: Vec<_> = BlockReader::new(&bytes[..cut]).unwrap().collect();
            assert!(
                matches!(read.last(), Some(Err(BlocksError::Truncated))),
                "{cut}"
            );
        }
        let mut huge = vec![BLOCKS_VERSION];
        huge.extend_from_slice(&[0; 8]);
        huge.extend_from_slice(&[0xff; 12]);
        assert!(BlockReader::new(&huge).unwrap().any(|b| b.is_err()));
    }

    #[test]
    fn chrome_and_empty_blocks_are_left_out() {
        let words = [1u64, 2, 3, 4, 5, 6];
        let blocks = build(&words, &[(0, false), (0, false), (2, true), (4, false)]);
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].words, 2);
        assert_eq!(blocks[0].shingles, vec![blocks[0].hash as u32]);
        assert_eq!(blocks[1].words, 2);
    }
}
