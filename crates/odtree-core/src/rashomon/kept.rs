//! What a Rashomon search keeps of its subproblems, shared by the threads of one search:
//! optima and histograms in shards, each behind its own lock, so that threads rarely wait
//! for one another; and what it all takes, to keep to a memory limit.

use super::{Histogram, Key, Solved};
use crate::sync::lock;
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Shards: enough that threads rarely wait for one another.
const SHARDS: usize = 64;

/// The optima and histograms of subproblems.
pub(super) struct Kept {
    optima: Vec<Mutex<FxHashMap<Key, Solved>>>,
    /// Per subproblem: the budget its histogram covers, and the histogram.
    histograms: Vec<Mutex<FxHashMap<Key, (f64, Histogram)>>>,
    /// Bytes kept, as counted.
    held: AtomicUsize,
    wipes: AtomicUsize,
}

impl Kept {
    /// Nothing kept yet.
    pub fn new() -> Self {
        Self {
            optima: (0..SHARDS).map(|_| Mutex::default()).collect(),
            histograms: (0..SHARDS).map(|_| Mutex::default()).collect(),
            held: AtomicUsize::new(0),
            wipes: AtomicUsize::new(0),
        }
    }

    /// The shard of `key`.
    fn shard(key: &[u64]) -> usize {
        let mut hasher = FxHasher::default();
        key.hash(&mut hasher);
        (hasher.finish() >> 32) as usize % SHARDS
    }

    /// The kept optimum of `key`, with its leaf.
    pub fn optimum(&self, key: &[u64]) -> Option<Solved> {
        lock(&self.optima[Self::shard(key)]).get(key).copied()
    }

    /// Keeps the optimum of `key`, with its leaf.
    pub fn keep_optimum(&self, key: Key, solved: Solved) {
        lock(&self.optima[Self::shard(&key)]).insert(key, solved);
    }

    /// The kept histogram of `key`, with the budget it covers.
    pub fn histogram(&self, key: &[u64]) -> Option<(f64, Histogram)> {
        lock(&self.histograms[Self::shard(key)]).get(key).cloned()
    }

    /// Keeps the histogram of `key`, covering `bound`, unless another thread has kept one
    /// covering more.
    pub fn keep_histogram(&self, key: Key, bound: f64, histogram: Histogram) {
        let mut shard = lock(&self.histograms[Self::shard(&key)]);
        match shard.get(&key) {
            Some(&(covered, _)) if covered > bound => {}
            _ => {
                shard.insert(key, (bound, histogram));
            }
        }
    }

    /// Counts `bytes` more kept, and wipes everything when that passes `max_bytes`.
    pub fn count(&self, bytes: usize, max_bytes: Option<usize>) {
        let held = self.held.fetch_add(bytes, Ordering::Relaxed) + bytes;
        let Some(most) = max_bytes else {
            return;
        };
        // one thread wipes: the one that takes the count back to 0 first
        if held > most && self.held.swap(0, Ordering::Relaxed) > most {
            for shard in &self.optima {
                *lock(shard) = FxHashMap::default();
            }
            for shard in &self.histograms {
                *lock(shard) = FxHashMap::default();
            }
            self.wipes.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many times everything was wiped.
    pub fn wipes(&self) -> usize {
        self.wipes.load(Ordering::Relaxed)
    }
}
