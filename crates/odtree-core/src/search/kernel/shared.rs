//! What the threads of one search prove, shared (`drivers/exact/parallel.rs`): each thread
//! keeps its own cache, and also posts here, keyed by path, every subproblem it solves and
//! every lower bound it proves, where the other threads find them before searching it again.

use crate::data::Item;
use crate::subproblem::{Cost, Decision, Limits};
use crate::sync::lock;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Mutex;

/// What is proven of a subproblem within some limits: a lower bound of its cost, and its
/// optimal tree once solved.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Proven<C> {
    pub lower_bound: C,
    pub solution: Option<(C, Decision)>,
}

/// What is proven of one path, per limits.
type OfPath<C> = Vec<(Limits, Proven<C>)>;

/// Proven subproblems by path, in shards locked one at a time.
#[derive(Debug)]
pub(crate) struct SharedStore<C> {
    shards: Vec<Mutex<HashMap<Vec<Item>, OfPath<C>>>>,
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

    fn shard(&self, path: &[Item]) -> std::sync::MutexGuard<'_, HashMap<Vec<Item>, OfPath<C>>> {
        let at = self.hasher.hash_one(path) as usize % SHARDS;
        lock(&self.shards[at])
    }

    /// What a thread proved of the subproblem at `path` within `limits`, if any.
    pub fn get(&self, path: &[Item], limits: Limits) -> Option<Proven<C>> {
        let shard = self.shard(path);
        (shard.get(path)?.iter())
            .find(|(at, _)| *at == limits)
            .map(|&(_, proven)| proven)
    }

    /// Applies `change` to what is proven of the subproblem at `path` within `limits`.
    fn update(&self, path: &[Item], limits: Limits, change: impl FnOnce(&mut Proven<C>)) {
        let mut shard = self.shard(path);
        let of_path = shard.entry(path.to_vec()).or_default();
        let at = match of_path.iter().position(|(at, _)| *at == limits) {
            Some(at) => at,
            None => {
                let nothing = Proven {
                    lower_bound: C::ZERO,
                    solution: None,
                };
                of_path.push((limits, nothing));
                of_path.len() - 1
            }
        };
        change(&mut of_path[at].1);
    }

    /// Posts the optimal tree of the subproblem at `path` within `limits` (the first posted
    /// stays).
    pub fn solved(&self, path: &[Item], limits: Limits, cost: C, decision: Decision) {
        self.update(path, limits, |proven| {
            if proven.solution.is_none() {
                proven.solution = Some((cost, decision));
                proven.lower_bound = proven.lower_bound.max(cost);
            }
        });
    }

    /// Posts a proven lower bound of the subproblem at `path` within `limits`.
    pub fn raise(&self, path: &[Item], limits: Limits, bound: C) {
        self.update(path, limits, |proven| {
            proven.lower_bound = proven.lower_bound.max(bound);
        });
    }
}
