//! A page's stored text blocks as the analysis holds them: in memory, or spilled to a
//! temporary file.
//!
//! The blocks (`extract::blocks`' stored format, a few KB a page) are the largest part
//! of an audit's input, and the analysis reads each page's only a few times: to learn
//! the template, to lay out its main content, and when one of its pairs is compared.
//! The loader writes them to a [`Spill`] (an unnamed temporary file, removed when the
//! last handle is dropped) and keeps a [`StoredBlocks`] handle per page, so the
//! analysis's memory does not grow with every page's text: a read costs one `pread`,
//! served from the system's file cache while it has room.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// An unnamed temporary file the blocks of many pages are appended to.
#[derive(Debug)]
pub struct Spill {
    file: File,
    /// Bytes written so far: the next write's offset.
    end: AtomicU64,
}

impl Spill {
    /// A new spill file in the system's temporary folder (`TMPDIR`), removed by the
    /// system when the last handle to it is dropped.
    pub fn new() -> io::Result<Arc<Spill>> {
        Ok(Arc::new(Spill {
            file: tempfile::tempfile()?,
            end: AtomicU64::new(0),
        }))
    }

    /// `bytes` as a handle: written to the spill file, or held in memory when the
    /// write fails (a full disk slows nothing down and loses nothing).
    pub fn keep(self: &Arc<Self>, bytes: Vec<u8>) -> StoredBlocks {
        let Ok(len) = u32::try_from(bytes.len()) else {
            return StoredBlocks::from(bytes);
        };
        let at = self.end.fetch_add(u64::from(len), Ordering::Relaxed);
        match self.file.write_all_at(&bytes, at) {
            Ok(()) => StoredBlocks(Repr::Spilled {
                spill: Arc::clone(self),
                at,
                len,
            }),
            Err(_) => StoredBlocks::from(bytes),
        }
    }
}

/// One page's stored blocks: in memory, or a range of a [`Spill`] file.
#[derive(Clone)]
pub struct StoredBlocks(Repr);

#[derive(Clone)]
enum Repr {
    Held(Vec<u8>),
    Spilled {
        spill: Arc<Spill>,
        at: u64,
        len: u32,
    },
}

impl StoredBlocks {
    /// The stored bytes (read from the spill file when spilled).
    pub fn bytes(&self) -> io::Result<Cow<'_, [u8]>> {
        match &self.0 {
            Repr::Held(bytes) => Ok(Cow::Borrowed(bytes)),
            Repr::Spilled { spill, at, len } => {
                let mut buf = vec![0; *len as usize];
                spill.file.read_exact_at(&mut buf, *at)?;
                Ok(Cow::Owned(buf))
            }
        }
    }

    /// Their size in bytes.
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Held(bytes) => bytes.len(),
            Repr::Spilled { len, .. } => *len as usize,
        }
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether they live in a spill file rather than in memory.
    pub fn is_spilled(&self) -> bool {
        matches!(self.0, Repr::Spilled { .. })
    }
}

impl From<Vec<u8>> for StoredBlocks {
    fn from(bytes: Vec<u8>) -> Self {
        StoredBlocks(Repr::Held(bytes))
    }
}

impl std::fmt::Debug for StoredBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StoredBlocks({} bytes)", self.len())
    }
}

/// Equal when the bytes are (an unreadable spill compares unequal to anything).
impl PartialEq for StoredBlocks {
    fn eq(&self, other: &Self) -> bool {
        matches!((self.bytes(), other.bytes()), (Ok(a), Ok(b)) if a == b)
    }
}

/// Written as the bytes (a sequence of numbers, as a `Vec<u8>` is).
impl Serialize for StoredBlocks {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let bytes = self.bytes().map_err(serde::ser::Error::custom)?;
        <[u8]>::serialize(&bytes, s)
    }
}

/// Read as bytes, held in memory.
impl<'de> Deserialize<'de> for StoredBlocks {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<u8>::deserialize(d).map(StoredBlocks::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spilled_blocks_read_back_as_written_and_leave_memory() {
        let spill = Spill::new().unwrap();
        let pages: Vec<Vec<u8>> = (0..50u8).map(|i| vec![i; 100 + i as usize]).collect();
        let kept: Vec<StoredBlocks> = pages.iter().map(|p| spill.keep(p.clone())).collect();
        for (page, k) in pages.iter().zip(&kept) {
            assert!(k.is_spilled());
            assert_eq!(k.len(), page.len());
            assert_eq!(&*k.bytes().unwrap(), page.as_slice());
        }
        // Equality and serde see the bytes, wherever they are.
        assert_eq!(kept[7], StoredBlocks::from(pages[7].clone()));
        assert_ne!(kept[7], kept[8]);
        let json = serde_json::to_string(&kept[3]).unwrap();
        assert_eq!(json, serde_json::to_string(&pages[3]).unwrap());
        let back: StoredBlocks = serde_json::from_str(&json).unwrap();
        assert_eq!(back, kept[3]);
        assert!(!back.is_spilled());
    }

    #[test]
    fn empty_blocks_spill_and_read_as_empty() {
        let spill = Spill::new().unwrap();
        let k = spill.keep(Vec::new());
        assert!(k.is_empty());
        assert!(k.bytes().unwrap().is_empty());
    }
}
