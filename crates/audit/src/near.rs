//! Near-duplicate pairs among 64-bit SimHashes without comparing every pair.
//!
//! Pigeonhole (Manku, Jain, Das Sarma, WWW 2007): cut the 64 bits into `k + 1` blocks;
//! two hashes at Hamming distance at most `k` differ in at most `k` blocks, so they are
//! equal on at least one. For each block the hashes are sorted by that block's value
//! and only hashes in the same run are compared. With the default `k = 3` that is 4
//! blocks of 16 bits: on a million unrelated pages a run holds about 15 hashes, so the
//! work is about 4 × 65,536 × C(15, 2) ≈ 28 million XOR-and-popcount operations.
//!
//! A run longer than [`MAX_RUN`] (many hashes agreeing on a block: a site-wide template)
//! is not compared all-pairs: each hash is compared with its [`WINDOW`] neighbours in
//! full-hash order instead, which keeps the cost linear; a near pair inside such a run
//! can then be missed, never invented.

/// Runs up to this length are compared all-pairs.
pub(crate) const MAX_RUN: usize = 2048;
/// In longer runs, each hash is compared with this many following hashes.
pub(crate) const WINDOW: usize = 64;

/// Calls `pair(a, b, distance)` for pairs of items whose hashes are within `k` bits.
///
/// `items` are `(simhash, payload)` with **distinct** hashes (callers merge equal hashes
/// first). A pair may be reported more than once (once per block it agrees on).
pub(crate) fn near_pairs(items: &[(u64, u32)], k: u32, mut pair: impl FnMut(u32, u32, u32)) {
    if items.len() < 2 {
        return;
    }
    let blocks = (k + 1).min(64);
    let width = 64 / blocks;
    let mut order: Vec<u32> = (0..items.len() as u32).collect();
    for b in 0..blocks {
        let shift = b * width;
        let bits = if b + 1 == blocks { 64 - shift } else { width };
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let block = |i: u32| (items[i as usize].0 >> shift) & mask;
        order.sort_unstable_by_key(|&i| (block(i), items[i as usize].0));
        let mut start = 0;
        while start < order.len() {
            let value = block(order[start]);
            let mut end = start + 1;
            while end < order.len() && block(order[end]) == value {
                end += 1;
            }
            let run = &order[start..end];
            let reach = if run.len() <= MAX_RUN {
                run.len()
            } else {
                WINDOW + 1
            };
            for (x, &i) in run.iter().enumerate() {
                for &j in run.iter().skip(x + 1).take(reach - 1) {
                    let d = (items[i as usize].0 ^ items[j as usize].0).count_ones();
                    if d <= k {
                        pair(items[i as usize].1, items[j as usize].1, d);
                    }
                }
            }
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(items: &[(u64, u32)], k: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for (x, a) in items.iter().enumerate() {
            for b in &items[x + 1..] {
                if (a.0 ^ b.0).count_ones() <= k {
                    out.push((a.1.min(b.1), a.1.max(b.1)));
                }
            }
        }
        out.sort_unstable();
        out
    }

    fn banded(items: &[(u64, u32)], k: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        near_pairs(items, k, |a, b, _| out.push((a.min(b), a.max(b))));
        out.sort_unstable();
        out.dedup();
        out
    }

    #[test]
    fn banding_finds_exactly_the_brute_force_pairs() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut items = Vec::new();
        for i in 0..400u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            items.push((x, i * 4));
            // Three near copies at distances 1, 3 and 4 (the last is not near for k = 3).
            items.push((x ^ (1 << (i % 64)), i * 4 + 1));
            items.push((x ^ 0b1011 << (i % 60), i * 4 + 2));
            items.push((x ^ 0x8000_0000_8000_8001, i * 4 + 3));
        }
        for k in [0, 3, 5] {
            assert_eq!(banded(&items, k), brute(&items, k), "k = {k}");
        }
        assert!(!banded(&items, 3).is_empty());
    }

    #[test]
    fn a_flip_in_every_block_is_out_of_reach() {
        let a = 0u64;
        let b = 1 | 1 << 16 | 1 << 32 | 1 << 48;
        assert!(banded(&[(a, 0), (b, 1)], 3).is_empty());
        assert_eq!(banded(&[(a, 0), (b, 1)], 4), vec![(0, 1)]);
    }
}
