//! Proven subtrees shared by the threads of one search (`drivers/exact/parallel.rs`): each
//! thread keeps its own cache, and also posts every subproblem it proves here, keyed by its
//! path, where the other threads find it before solving it again.

use crate::data::Item;
use crate::subproblem::{Cost, Decision, Limits};
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Mutex;

/// The proven optima of one path: (limits, cost, decision) for each limits proven.
type Proven<C> = Vec<(Limits, C, Decision)>;

/// Proven subproblems by path, in shards locked one at a time.
#[derive(Debug)]
pub(crate) struct SharedStore<C> {
    shards: Vec<Mutex<HashMap<Vec<Item>, Proven<C>>>>,
    hasher: RandomState,
}

/// Shards: enough that threads rarely wait for one another.
const SHARDS: usize = 64;

impl<C: Cost> SharedStore<C> {
    /// An empty store.
    pub fn new() -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            hasher: RandomState::new(),
        }
    }

    fn shard(&self, path: &[Item]) -> std::sync::MutexGuard<'_, HashMap<Vec<Item>, Proven<C>>> {
        let at = self.hasher.hash_one(path) as usize % SHARDS;
        // a thread that panicked holding the lock leaves the entries valid
        self.shards[at]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The proven optimum of the subproblem at `path` within `limits`, if a thread posted it.
    pub fn get(&self, path: &[Item], limits: Limits) -> Option<(C, Decision)> {
        let shard = self.shard(path);
        let proven = shard.get(path)?;
        (proven.iter())
            .find(|(at, ..)| *at == limits)
            .map(|&(_, cost, decision)| (cost, decision))
    }

    /// Posts the proven optimum of the subproblem at `path` within `limits`.
    pub fn put(&self, path: &[Item], limits: Limits, cost: C, decision: Decision) {
        let mut shard = self.shard(path);
        let proven = shard.entry(path.to_vec()).or_default();
        if !proven.iter().any(|(at, ..)| *at == limits) {
            proven.push((limits, cost, decision));
        }
    }
}
