//! Every URL's equivalence key under the audit policy, stored compactly: most URLs are
//! already in key form, so a key is only kept where it differs from the URL's text.

use crate::site::Site;
use xxhash_rust::xxh3::xxh3_64;

/// The keys of one audit.
pub(crate) struct Keys {
    /// The key where it differs from the URL's rfc3986 text.
    own: Vec<Option<Box<str>>>,
    /// canon could not form a key (not http(s), invalid).
    invalid: Vec<bool>,
    /// `(xxh3 of the key, URL index)`, sorted: equal keys are adjacent.
    index: Vec<(u64, u32)>,
}

impl Keys {
    /// Recomputes every key from the stored raw URL (the row's `url`, falling back on
    /// its rfc3986 text), on all cores.
    pub(crate) fn compute(site: &Site<'_>) -> Keys {
        let rows = &site.input.urls;
        let policy = &site.cfg.policy;
        let one = |i: usize| -> (Option<Box<str>>, bool) {
            let row = &rows[i];
            let key = canon::equivalence_key(row.found_url(), policy)
                .or_else(|_| canon::equivalence_key(site.url(i as u32), policy));
            match key {
                Ok(k) if k == site.url(i as u32) => (None, false),
                Ok(k) => (Some(k.into_boxed_str()), false),
                Err(_) => (None, true),
            }
        };
        let n = rows.len();
        let mut own: Vec<Option<Box<str>>> = vec![None; n];
        let mut invalid = vec![false; n];
        let fill = |from: usize, own: &mut [Option<Box<str>>], invalid: &mut [bool]| {
            for (k, (o, bad)) in own.iter_mut().zip(invalid.iter_mut()).enumerate() {
                (*o, *bad) = one(from + k);
            }
        };
        let threads = std::thread::available_parallelism()
            .map_or(1, |t| t.get())
            .min(8);
        if threads < 2 || n < 20_000 {
            fill(0, &mut own, &mut invalid);
        } else {
            let chunk = n.div_ceil(threads);
            std::thread::scope(|s| {
                for (t, (o, bad)) in own
                    .chunks_mut(chunk)
                    .zip(invalid.chunks_mut(chunk))
                    .enumerate()
                {
                    s.spawn(move || fill(t * chunk, o, bad));
                }
            });
        }
        let mut keys = Keys {
            own,
            invalid,
            index: Vec::new(),
        };
        let mut index: Vec<(u64, u32)> = (0..n as u32)
            .filter_map(|i| keys.get(site, i).map(|k| (xxh3_64(k.as_bytes()), i)))
            .collect();
        index.sort_unstable();
        keys.index = index;
        keys
    }

    /// The key of URL `i`, if canon could form one.
    pub(crate) fn get<'k>(&'k self, site: &'k Site<'_>, i: u32) -> Option<&'k str> {
        if self.invalid[i as usize] {
            return None;
        }
        Some(
            self.own[i as usize]
                .as_deref()
                .unwrap_or_else(|| site.url(i)),
        )
    }

    /// URL `i` is already in its key's form.
    pub(crate) fn is_key_form(&self, i: u32) -> bool {
        !self.invalid[i as usize] && self.own[i as usize].is_none()
    }

    /// URLs whose key canon could not form.
    pub(crate) fn invalid_count(&self) -> usize {
        self.invalid.iter().filter(|&&x| x).count()
    }

    /// A URL with this key, preferring one with content.
    pub(crate) fn find(&self, site: &Site<'_>, key: &str) -> Option<u32> {
        let h = xxh3_64(key.as_bytes());
        let from = self.index.partition_point(|&(x, _)| x < h);
        let mut found = None;
        for &(x, i) in &self.index[from..] {
            if x != h {
                break;
            }
            if self.get(site, i) == Some(key) {
                if site.content(i).is_some() {
                    return Some(i);
                }
                found.get_or_insert(i);
            }
        }
        found
    }

    /// Groups of two or more URLs sharing a key hash (callers verify the keys).
    pub(crate) fn hash_runs(&self) -> impl Iterator<Item = &[(u64, u32)]> {
        self.index
            .chunk_by(|a, b| a.0 == b.0)
            .filter(|run| run.len() >= 2)
    }
}
