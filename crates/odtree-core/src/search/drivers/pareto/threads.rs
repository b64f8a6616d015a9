//! The root's splits on several threads ([`SearchConfig::n_jobs`](crate::SearchConfig)).
//!
//! The Pareto driver prunes nothing by an incumbent: each split's points are the sums of
//! its children's whole fronts, and a subproblem's front depends on its rows, depth and
//! budget alone. So the root's splits are independent. Each thread, with a search of its
//! own (its cursor and its store of fronts), takes them one at a time from a shared counter
//! and sends back their points; the threads share the fronts they make (a store of 64
//! shards, each behind a mutex), so that rows reached from two root splits are worked on
//! once when the threads do not reach them at the same time. The root merges the points in
//! the order of the candidates, as one thread would, so the front and the tree are one
//! thread's; the tree is read back through the shared fronts.
//!
//! One thread stops at the first split with a point of no error (it dominates every
//! other); the threads skip the splits after the first such split they know of.
//! A split that the budget (time limit, Ctrl-C) stopped before its points were complete is
//! left out, as one thread leaves out the splits it did not reach, and only complete fronts
//! are shared: every point of the front is a real tree. The root's progress is posted as
//! the splits are merged, after the threads end.

use super::{Front, Key, Pareto, Point, Split};
use crate::budget::Stop;
use crate::search::kernel::Level;
use crate::sync::lock;
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The fronts the threads share, by subproblem.
pub(super) struct SharedFronts {
    shards: Vec<Mutex<FxHashMap<Key, Front>>>,
}

/// How many shards the shared fronts are kept in (threads rarely wait on one another).
const SHARDS: usize = 64;

impl SharedFronts {
    fn new() -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
        }
    }

    fn shard(&self, key: &Key) -> &Mutex<FxHashMap<Key, Front>> {
        let mut hasher = FxHasher::default();
        key.hash(&mut hasher);
        &self.shards[hasher.finish() as usize % SHARDS]
    }

    /// The front of the subproblem `key`, if a thread made it.
    pub(super) fn get(&self, key: &Key) -> Option<Front> {
        lock(self.shard(key)).get(key).cloned()
    }

    /// Shares the complete `front` of `key`.
    pub(super) fn insert(&self, key: Key, front: Front) {
        lock(self.shard(&key)).entry(key).or_insert(front);
    }
}

impl Pareto<'_> {
    /// Whether the splits of the node `at` steps below the root, `level`'s candidates, are
    /// tried on several threads: at the root, with two candidates or more, while searching
    /// (not reading a tree back).
    pub(super) fn root_on_threads(&self, at: usize, level: &Level) -> bool {
        at == 0 && !self.reading && self.kernel.config.n_jobs > 1 && level.candidates.len() > 1
    }

    /// The points of each of `level`'s candidate splits of the root under `split`, in the
    /// candidates' order, found on threads; `None` for a split the budget stopped. Records
    /// the stop, and adds the threads' fronts to the count of those cached.
    pub(super) fn splits_on_threads(
        &mut self,
        level: &Level,
        split: &Split,
    ) -> Vec<Option<Vec<Point>>> {
        let candidates = &level.candidates;
        let threads = self.kernel.config.n_jobs.min(candidates.len());
        let next = AtomicUsize::new(0);
        let found: Vec<Mutex<Option<Vec<Point>>>> =
            candidates.iter().map(|_| Mutex::new(None)).collect();
        let stops: Mutex<Vec<Stop>> = Mutex::new(Vec::new());
        let cached = AtomicUsize::new(0);
        let shared = Arc::new(SharedFronts::new());
        // the first split known to have a point of no error: those after it are not needed
        let perfect = AtomicUsize::new(usize::MAX);
        let tolerance = self.tolerance;
        let kernel = &self.kernel;
        let (data, weights, objective, config) =
            (kernel.data, kernel.weights, kernel.objective, kernel.config);
        let budget = kernel.budget.without_feed();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let mut search = Pareto::new(data, weights, objective, config, budget.clone());
                    search.shared = Some(shared.clone());
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&feature) = candidates.get(i) else {
                            break;
                        };
                        if i > perfect.load(Ordering::Relaxed) {
                            continue;
                        }
                        if let Some(stop) = search.kernel.budget.check() {
                            lock(&stops).push(stop);
                            break;
                        }
                        let mut points = Vec::new();
                        search.split_points(level, feature, split, &mut points);
                        if let Some(stop) = search.kernel.budget.stopped() {
                            lock(&stops).push(stop);
                            break;
                        }
                        if points.iter().any(|p| p.fp + p.fn_ <= tolerance) {
                            perfect.fetch_min(i, Ordering::Relaxed);
                        }
                        *lock(&found[i]) = Some(points);
                    }
                    cached.fetch_add(search.fronts.len(), Ordering::Relaxed);
                });
            }
        });
        if let Some(&stop) = lock(&stops).first() {
            self.kernel.budget.stop(stop);
        }
        self.threads_cached += cached.into_inner();
        self.shared = Some(shared);
        found
            .into_iter()
            .map(|points| points.into_inner().unwrap_or_else(|p| p.into_inner()))
            .collect()
    }
}
