//! The root's columns on several threads ([`ContinuousConfig::threads`]).
//!
//! Each thread runs a search of its own (its sweeper, its row lists and a copy of the
//! store as the search before it left it) and takes the root's columns one at a time, in
//! order of promise, from a shared counter. The threads share the cheapest tree found so
//! far: each column is searched for trees no dearer than it, plus a margin of rounding
//! noise, so that a tree tying with it is found too. The columns' results are then read in
//! order of promise, each kept only where it is cheaper than those before it, as one thread
//! trying them in turn keeps it.
//!
//! So the tree is one thread's: a node keeps the first tree of least cost in an order that
//! does not depend on the bound it is searched under (the columns in order of promise, each
//! column's thresholds in a fixed bisection order, [`crate::continuous::queue`]); a bound
//! only rules candidates out, never one of least cost. With costs that are not sums of
//! exact numbers (squared error), two trees whose costs differ by rounding alone may go
//! either way.
//!
//! Under a memory limit each thread gets an equal share of what this search does not hold,
//! with an empty store, and wipes within it; the peaks are added up. A share smaller than
//! twice a thread's working memory leaves the columns to one thread, as does a work limit
//! ([`ContinuousConfig::max_work`]), which is there to stop at the same point on every
//! machine.

use super::{Found, Node, Search};
use crate::budget::Stop;
use crate::continuous::loss::Loss;
use crate::continuous::rows::Rows;
use crate::continuous::ContinuousConfig;
use crate::sync::lock;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The bound a column is searched under: the node's own, or, on threads, also the cheapest
/// tree any thread has found (plus a margin, so that ties are found).
pub(super) enum Limit<'s> {
    /// One thread: the bound the node was given.
    Own(f64),
    /// Several threads: the node's bound and the cheapest tree found so far.
    Shared(f64, &'s Cheapest),
}

impl Limit<'_> {
    /// Trees are looked for below this.
    pub(super) fn get(&self) -> f64 {
        match self {
            Limit::Own(bound) => *bound,
            Limit::Shared(bound, cheapest) => bound.min(with_ties(cheapest.get())),
        }
    }

    /// Tells the other threads of a tree costing `cost`.
    pub(super) fn offer(&self, cost: f64) {
        if let Limit::Shared(_, cheapest) = self {
            cheapest.offer(cost);
        }
    }
}

/// A bound a little above `cost`, so that a search under it finds a tree tying with one of
/// that cost: by a share of it far above the rounding noise of summed statistics, and far
/// below a real difference.
pub fn with_ties(cost: f64) -> f64 {
    cost + 1e-9 * cost.abs().max(1.0)
}

/// The cheapest cost any thread has found, as the bits of an `f64` (costs are never
/// negative, so their bits order as they do).
pub(super) struct Cheapest(AtomicU64);

impl Cheapest {
    fn new() -> Self {
        Self(AtomicU64::new(f64::INFINITY.to_bits()))
    }

    fn get(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }

    fn offer(&self, cost: f64) {
        self.0.fetch_min(cost.max(0.0).to_bits(), Ordering::Relaxed);
    }
}

/// What one column gave: its cheapest tree (if it found one below its limit) and a lower
/// bound on its other thresholds.
type ColumnResult = (Option<Found>, f64);

/// What one thread held against its memory limits.
#[derive(Default)]
struct Spent {
    peak_bytes: usize,
    peak_stored: usize,
    wipes: usize,
}

impl<L: Loss> Search<'_, L> {
    /// Whether the columns of `rows` (in `order`) are tried on several threads: at the root
    /// (see [`Self::set_root`]), in the exact search (not an anytime pass), without a work
    /// limit, with two columns or more and, under a memory limit, room for each thread.
    pub(super) fn on_threads(&self, rows: &Rows, order: &[usize]) -> bool {
        self.config.threads > 1
            && self.root == Some(rows.key)
            && self.tries.is_none()
            && self.config.max_work == u64::MAX
            && order.len() > 1
            && self.thread_config(self.threads(order)).is_some()
    }

    fn threads(&self, order: &[usize]) -> usize {
        self.config.threads.min(order.len())
    }

    /// The limits of each of `threads` threads: an equal share of the memory this search
    /// does not hold, if at least twice a thread's working memory (and 8 row sets); `None`
    /// if smaller.
    fn thread_config(&self, threads: usize) -> Option<ContinuousConfig> {
        let memory = &self.memory;
        let bounded = memory.max_bytes != usize::MAX || memory.max_stored != usize::MAX;
        if !bounded {
            return Some(ContinuousConfig {
                threads: 1,
                ..self.config.clone()
            });
        }
        let held = self.held_bytes();
        let max_bytes = memory.max_bytes.checked_sub(held)? / threads;
        let max_stored = memory.max_stored.checked_sub(self.store.len())? / threads;
        (max_bytes >= 2 * memory.working && max_stored >= 8).then(|| ContinuousConfig {
            threads: 1,
            max_bytes: max_bytes.min(self.config.max_bytes),
            max_stored: max_stored.min(self.config.max_stored),
            ..self.config.clone()
        })
    }

    /// Tries the columns of the node `at` (in `order`) on several threads, under `bound`,
    /// and improves `best` as trying them in turn on this thread would. Returns a lower
    /// bound on the cost of the thresholds that found no tree.
    pub(super) fn columns_on_threads(
        &mut self,
        at: &Node,
        order: &[usize],
        bound: f64,
        best: &mut Option<Found>,
    ) -> f64 {
        let threads = self.threads(order);
        let config = self.thread_config(threads).expect("checked by on_threads");
        let shared_store = config.max_bytes == usize::MAX && config.max_stored == usize::MAX;
        let cheapest = Cheapest::new();
        if let Some(found) = best.as_ref() {
            cheapest.offer(found.cost);
        }
        let next = AtomicUsize::new(0);
        let results: Vec<Mutex<Option<ColumnResult>>> =
            order.iter().map(|_| Mutex::new(None)).collect();
        let stops: Mutex<Vec<Stop>> = Mutex::new(Vec::new());
        let spent: Mutex<Vec<Spent>> = Mutex::new(Vec::new());
        let this = &*self;
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let mut search = Search::new(
                        this.data,
                        this.loss,
                        &config,
                        this.budget.clone(),
                        this.keys,
                    );
                    search.work_left = this.work_left;
                    if shared_store {
                        search.store = this.store.clone();
                    }
                    let limit = Limit::Shared(bound, &cheapest);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&column) = order.get(i) else { break };
                        let mut found = None;
                        let floor = search.try_column(at, column, &limit, &mut found);
                        *lock(&results[i]) = Some((found, floor));
                        if let Some(stop) = search.stopped() {
                            lock(&stops).push(stop);
                            // the other threads stop at their next check of the budget
                            next.store(order.len(), Ordering::Relaxed);
                            break;
                        }
                    }
                    let memory = search.memory();
                    lock(&spent).push(Spent {
                        peak_bytes: memory.peak_bytes,
                        peak_stored: memory.peak_stored,
                        wipes: memory.wipes,
                    });
                });
            }
        });
        let spent = spent.into_inner().unwrap_or_else(|p| p.into_inner());
        self.count_threads_memory(&spent);
        if let Some(&stop) = stops
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .first()
        {
            self.stopped = Some(stop);
        }
        let mut floor = f64::INFINITY;
        for result in results {
            let Some((found, column_floor)) =
                result.into_inner().unwrap_or_else(|p| p.into_inner())
            else {
                continue;
            };
            floor = floor.min(column_floor);
            let limit = best.as_ref().map_or(bound, |b| b.cost);
            if let Some(found) = found.filter(|found| found.cost < limit) {
                *best = Some(found);
            }
        }
        floor
    }

    /// Adds what the threads held to this search's peaks and wipes.
    fn count_threads_memory(&mut self, spent: &[Spent]) {
        let held = self.held_bytes();
        let memory = &mut self.memory;
        let bytes: usize = spent.iter().map(|s| s.peak_bytes).sum();
        let stored: usize = spent.iter().map(|s| s.peak_stored).sum();
        memory.peak_bytes = memory.peak_bytes.max(held + bytes);
        memory.peak_stored = memory.peak_stored.max(self.store.len() + stored);
        memory.wipes += spent.iter().map(|s| s.wipes).sum::<usize>();
    }
}
