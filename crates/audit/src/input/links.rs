//! An audit's links as the analysis holds them: packed ten bytes a row, in memory or
//! spilled to a temporary file.
//!
//! The links are the largest table of an audit (about 80 a page on a typical site: 8
//! million rows at 100,000 pages) and the analysis reads them only in whole passes (the
//! inlink index, the link checks, the exports). A [`Links`] made with
//! [`Links::spilled`] (the loader's) writes each full buffer of packed rows to an
//! unnamed temporary file and reads it back a buffer at a time in each pass, so the
//! analysis's memory does not grow with the link count. One made with
//! [`Links::default`] (tests, synthetic audits) holds its rows in memory. Either way a
//! row reads back exactly as pushed, in order.

use super::{LinkRow, UrlId};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use vocab::{LinkKind, LinkRegion};

/// Bytes of one packed row: from (4), to (4), flags (1), kind (1).
const ROW: usize = 10;
/// Packed rows buffered before a spilled table writes them out, and read per `pread`.
const CHUNK_ROWS: usize = 8192;

/// Flag bits of a packed row; the region's index + 1 (0: none) in the bits above.
const HAS_TO: u8 = 1;
const NOFOLLOW: u8 = 2;
const REGION_SHIFT: u32 = 2;

/// The links of an audit (see the module docs), read back with [`Links::iter`].
#[derive(Default)]
pub struct Links {
    /// The spill file and the bytes written to it; `None` while held in memory.
    file: Option<(Arc<File>, u64)>,
    /// Packed rows not yet written out (all of them when held in memory).
    tail: Vec<u8>,
    len: usize,
    /// Whether every row's `from` is at least the previous row's.
    unsorted: bool,
    last_from: UrlId,
    /// Whether a write to the spill file failed: rows stay in memory from then on.
    write_failed: bool,
}

impl Links {
    /// An empty table that spills to an unnamed temporary file (removed with its last
    /// handle), or holds its rows in memory when no temporary file can be made. A write
    /// that fails (a full disk) keeps the rows in memory from then on: nothing is lost.
    pub fn spilled() -> Links {
        match tempfile::tempfile() {
            Ok(file) => Links {
                file: Some((Arc::new(file), 0)),
                ..Links::default()
            },
            Err(_) => Links::default(),
        }
    }

    /// Appends a row.
    pub fn push(&mut self, link: LinkRow) {
        if link.from < self.last_from {
            self.unsorted = true;
        }
        self.last_from = link.from;
        self.len += 1;
        self.tail.extend_from_slice(&pack(&link));
        if self.tail.len() >= CHUNK_ROWS * ROW && !self.write_failed {
            self.write_out();
        }
    }

    fn write_out(&mut self) {
        let Some((file, end)) = &mut self.file else {
            return;
        };
        match file.write_all_at(&self.tail, *end) {
            Ok(()) => {
                *end += self.tail.len() as u64;
                self.tail.clear();
            }
            Err(_) => self.write_failed = true,
        }
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the rows are in order of their linking page (as the store lists them),
    /// so a page's links are contiguous.
    pub fn is_sorted_by_from(&self) -> bool {
        !self.unsorted
    }

    /// Every row, in the order pushed. A spilled table is read a buffer at a time; a
    /// read that fails (a disk error: the file is the process's own) ends the pass, as
    /// a page whose spilled text blocks cannot be read has none.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            links: self,
            file_at: 0,
            buf: Vec::new(),
            pos: 0,
            in_tail: self.file.is_none(),
        }
    }

    /// Row `row` (0-based, in the order pushed); `None` past the end or when a spilled
    /// row cannot be read. One `pread` for a spilled row: for one page of rows, not
    /// for a whole pass (use [`Links::iter`]).
    pub fn get(&self, row: usize) -> Option<LinkRow> {
        if row >= self.len {
            return None;
        }
        let at = (row * ROW) as u64;
        let written = self.file.as_ref().map_or(0, |(_, end)| *end);
        if at >= written {
            let at = (at - written) as usize;
            return self.tail.get(at..at + ROW).map(unpack);
        }
        let (file, _) = self.file.as_ref()?;
        let mut buf = [0u8; ROW];
        file.read_exact_at(&mut buf, at).ok()?;
        Some(unpack(&buf))
    }

    /// Keeps the rows `keep` accepts, changed as it leaves them, in order.
    pub fn retain_mut(&mut self, mut keep: impl FnMut(&mut LinkRow) -> bool) {
        let mut out = self.empty_like();
        for mut l in self.iter() {
            if keep(&mut l) {
                out.push(l);
            }
        }
        *self = out;
    }

    /// Keeps the rows `keep` accepts, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&LinkRow) -> bool) {
        self.retain_mut(|l| keep(l));
    }

    /// An empty table held where this one is (spilled or in memory).
    fn empty_like(&self) -> Links {
        if self.file.is_some() {
            Links::spilled()
        } else {
            Links::default()
        }
    }
}

/// A pass over a [`Links`].
pub struct Iter<'a> {
    links: &'a Links,
    /// The next offset to read in the spill file.
    file_at: u64,
    /// The chunk read from the file.
    buf: Vec<u8>,
    /// The next row's offset in `buf`, or in the table's tail once `in_tail`.
    pos: usize,
    in_tail: bool,
}

impl Iterator for Iter<'_> {
    type Item = LinkRow;

    fn next(&mut self) -> Option<LinkRow> {
        if self.in_tail {
            let row = self.links.tail.get(self.pos..self.pos + ROW)?;
            self.pos += ROW;
            return Some(unpack(row));
        }
        if self.pos + ROW > self.buf.len() {
            let (file, end) = self.links.file.as_ref()?;
            let left = end.saturating_sub(self.file_at);
            if left == 0 {
                self.in_tail = true;
                self.pos = 0;
                return self.next();
            }
            let take = left.min((CHUNK_ROWS * ROW) as u64) as usize;
            self.buf.resize(take, 0);
            if file.read_exact_at(&mut self.buf, self.file_at).is_err() {
                return None;
            }
            self.file_at += take as u64;
            self.pos = 0;
        }
        let row = unpack(&self.buf[self.pos..self.pos + ROW]);
        self.pos += ROW;
        Some(row)
    }
}

impl<'a> IntoIterator for &'a Links {
    type Item = LinkRow;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

fn pack(l: &LinkRow) -> [u8; ROW] {
    let mut row = [0u8; ROW];
    row[..4].copy_from_slice(&l.from.to_le_bytes());
    row[4..8].copy_from_slice(&l.to.unwrap_or(0).to_le_bytes());
    let region = l
        .region
        .and_then(|r| LinkRegion::ALL.iter().position(|&x| x == r))
        .map_or(0, |i| i as u8 + 1);
    let mut flags = region << REGION_SHIFT;
    if l.to.is_some() {
        flags |= HAS_TO;
    }
    if l.nofollow {
        flags |= NOFOLLOW;
    }
    row[8] = flags;
    row[9] = LinkKind::ALL
        .iter()
        .position(|&k| k == l.kind)
        .unwrap_or_default() as u8;
    row
}

fn unpack(row: &[u8]) -> LinkRow {
    let word = |at: usize| u32::from_le_bytes([row[at], row[at + 1], row[at + 2], row[at + 3]]);
    let flags = row[8];
    let region = (flags >> REGION_SHIFT) as usize;
    LinkRow {
        from: word(0),
        to: (flags & HAS_TO != 0).then(|| word(4)),
        nofollow: flags & NOFOLLOW != 0,
        region: region
            .checked_sub(1)
            .and_then(|i| LinkRegion::ALL.get(i).copied()),
        kind: LinkKind::ALL
            .get(row[9] as usize)
            .copied()
            .unwrap_or_default(),
    }
}

impl FromIterator<LinkRow> for Links {
    fn from_iter<I: IntoIterator<Item = LinkRow>>(rows: I) -> Self {
        let mut links = Links::default();
        links.extend(rows);
        links
    }
}

impl Extend<LinkRow> for Links {
    fn extend<I: IntoIterator<Item = LinkRow>>(&mut self, rows: I) {
        for l in rows {
            self.push(l);
        }
    }
}

impl From<Vec<LinkRow>> for Links {
    fn from(rows: Vec<LinkRow>) -> Self {
        rows.into_iter().collect()
    }
}

/// A copy held where the original is (a spilled table's copy spills to a file of its own).
impl Clone for Links {
    fn clone(&self) -> Self {
        let mut out = self.empty_like();
        out.extend(self.iter());
        out
    }
}

impl std::fmt::Debug for Links {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Links({} rows)", self.len)
    }
}

/// Equal when the rows are, in order.
impl PartialEq for Links {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

/// Written as the sequence of rows, as a `Vec<LinkRow>` is.
impl Serialize for Links {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// Read as a sequence of rows, held in memory.
impl<'de> Deserialize<'de> for Links {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<LinkRow>::deserialize(d).map(Links::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every combination of the packed fields, and ids at their limits.
    fn rows() -> Vec<LinkRow> {
        let mut out = Vec::new();
        let regions = std::iter::once(None).chain(LinkRegion::ALL.iter().copied().map(Some));
        for (i, region) in regions.enumerate() {
            for (j, &kind) in LinkKind::ALL.iter().enumerate() {
                for nofollow in [false, true] {
                    for to in [None, Some(0), Some(u32::MAX), Some((i * 31 + j) as u32)] {
                        out.push(LinkRow {
                            from: (out.len() / 3) as u32,
                            to,
                            nofollow,
                            region,
                            kind,
                        });
                    }
                }
            }
        }
        out
    }

    #[test]
    fn rows_read_back_as_pushed_held_or_spilled() {
        let want = rows();
        // Enough rows to write several chunks out and leave a tail.
        let many: Vec<LinkRow> = want
            .iter()
            .cycle()
            .take(CHUNK_ROWS * 3 + 17)
            .cloned()
            .collect();
        for rows in [&want, &many] {
            let held: Links = rows.iter().cloned().collect();
            let mut spilled = Links::spilled();
            spilled.extend(rows.iter().cloned());
            for links in [&held, &spilled] {
                assert_eq!(links.len(), rows.len());
                assert_eq!(links.iter().collect::<Vec<_>>(), *rows);
                // A second pass, and two at once, read the same rows.
                let mut a = links.iter();
                let mut b = links.iter();
                for r in rows.iter() {
                    assert_eq!(a.next().as_ref(), Some(r));
                    assert_eq!(b.next().as_ref(), Some(r));
                }
                assert_eq!(a.next(), None);
                for i in [0, 1, rows.len() / 2, rows.len() - 1] {
                    assert_eq!(links.get(i).as_ref(), Some(&rows[i]), "row {i}");
                }
                assert_eq!(links.get(rows.len()), None);
            }
            assert_eq!(held, spilled);
        }
        let spilled = {
            let mut l = Links::spilled();
            l.extend(many.iter().cloned());
            l
        };
        assert!(
            spilled.tail.len() < many.len() * ROW,
            "rows were written out"
        );
        assert!(
            !spilled.is_sorted_by_from(),
            "the cycle goes back to page 0"
        );
    }

    #[test]
    fn retain_clone_and_serde_keep_the_rows() {
        let want = rows();
        let mut links = Links::spilled();
        links.extend(want.iter().cloned());
        assert!(links.is_sorted_by_from());
        let copy = links.clone();
        assert_eq!(copy, links);
        links.retain_mut(|l| {
            l.nofollow = false;
            l.to.is_some()
        });
        let kept: Vec<LinkRow> = want
            .iter()
            .filter(|l| l.to.is_some())
            .map(|l| LinkRow {
                nofollow: false,
                ..l.clone()
            })
            .collect();
        assert_eq!(links.iter().collect::<Vec<_>>(), kept);
        assert_eq!(copy.len(), want.len(), "the copy is its own");
        let json = serde_json::to_string(&copy).unwrap();
        assert_eq!(json, serde_json::to_string(&want).unwrap());
        let back: Links = serde_json::from_str(&json).unwrap();
        assert_eq!(back, copy);
    }
}
