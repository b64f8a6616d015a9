//! The root's splits on several threads ([`SearchConfig::n_jobs`](crate::SearchConfig)).
//!
//! Each thread runs an engine of its own (its cursor, and a copy of this engine's cache as
//! the first trees left it), posts the subproblems it proves to a store all threads read
//! (`kernel/shared.rs`), and takes the root's candidate splits one at a time, in branching
//! order, from a shared counter. The threads share the trees they find: each split is
//! searched for trees cheaper than the cheapest the splits before it found, the bound one
//! thread searches it under once those are done, or a looser one while some still run (never
//! a tighter one: a later split's tree is not used, as one thread would not have it yet).
//! Afterwards the splits' results are read in branching order, as one thread would have found
//! them, so the root keeps the same split whatever the number of threads; the winning split
//! is then solved once more on this engine, whose cache the tree is extracted from. That
//! solve reads the store too, copying each subtree it takes from there whole into this cache.
//! The first trees (the lookahead trees) run on one thread, so that the cache they leave is
//! the one one thread leaves (see `runs_parallel`).
//!
//! Under a memory limit, each thread's cache gets an equal share of what this engine's does
//! not hold, and wipes within it as one thread's would; the threads then share no store (it
//! would grow outside the limit). A share too small for a thread's start, or a thread that
//! runs out of it, sends the node back to one thread.

use super::{Engine, Frame, Node, Splits};
use crate::budget::Stop;
use crate::cache::KeyIndex;
use crate::objective::Objective;
use crate::search::kernel::shared::SharedStore;
use crate::search::kernel::Level;
use crate::search::{MemoryLimits, SearchConfig};
use crate::subproblem::{Cost, Decision, Limits};
use crate::sync::lock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

impl<I: KeyIndex, O: Objective, C: Cost> Engine<'_, I, O, C> {
    /// Whether the splits of the node `level` holds, within `limits`, are tried on several
    /// threads: at the root of the data (where each thread's engine starts) and of a search
    /// within the root's own limits (the proof and its bound passes; not a restricted round,
    /// nor a lookahead tree's shallower search), with an objective that does not call back
    /// into Python and, under a memory limit, room for every thread's cache.
    ///
    /// The lookahead trees run on one thread because the subproblems they leave in the cache
    /// pick between subtrees of equal cost later: an optimal subtree stored there is reused
    /// for a deeper limit when no deeper tree can cost less, where a fresh search might find
    /// another of the same cost first. On threads, the lookahead would leave the root's cache
    /// only its winning split's subproblems, and the tree would depend on the thread count.
    pub(super) fn runs_parallel(&self, level: &Level, limits: Limits) -> bool {
        self.config.n_jobs > 1
            && limits == self.root_limits
            && self.frames.len() == 1
            && self.path.is_empty()
            && self.width.is_none()
            && !self.objective.costly()
            && level.candidates.len() > 1
            && self.thread_memory(self.threads(level)).is_some()
    }

    fn threads(&self, level: &Level) -> usize {
        self.config.n_jobs.min(level.candidates.len())
    }

    /// The memory limits of each of `threads` threads: an equal share of what this engine
    /// does not hold, if at least twice what a thread holds as it starts (its working memory
    /// and a copy of this cache); `None` if smaller.
    fn thread_memory(&self, threads: usize) -> Option<MemoryLimits> {
        let memory = self.config.memory;
        let share = |most: Option<usize>, held: usize, start: usize| match most {
            None => Some(None),
            Some(most) => {
                let share = most.checked_sub(held)? / threads;
                (share >= 2 * start).then_some(Some(share))
            }
        };
        let cache = self.cache.bytes();
        let held = self.working_bytes + self.objective.held_bytes() + cache;
        Some(MemoryLimits {
            max_bytes: share(memory.max_bytes, held, self.working_bytes + cache)?,
            max_entries: share(memory.max_entries, self.cache.len(), self.cache.len() + 8)?,
            ..memory
        })
    }

    /// Tries the node's splits on `config.n_jobs` threads and improves `split` as trying
    /// them in order on this thread would. Returns false, with `split` unchanged, when a
    /// thread ran out of its share of a memory limit: the node's splits are then for this
    /// thread to try.
    pub(super) fn branch_parallel(
        &mut self,
        level: &mut Level,
        node: &Node<'_, C>,
        split: &mut Splits<C>,
    ) -> bool {
        let n = level.candidates.len();
        let threads = self.threads(level);
        let bounded = self.config.memory.is_bounded();
        let config = SearchConfig {
            memory: self
                .thread_memory(threads)
                .expect("checked by runs_parallel"),
            ..self.config.clone()
        };
        let config = &config;
        let start = *split;
        let next = AtomicUsize::new(0);
        let done = AtomicBool::new(false);
        let found: Mutex<Vec<Option<Splits<C>>>> = Mutex::new(vec![None; n]);
        let stop: Mutex<Option<Stop>> = Mutex::new(None);
        let (data, weights, objective) = (self.data, self.weights, self.objective);
        // each thread starts from what this engine's cache holds (the first trees' work)
        let caches = Mutex::new(vec![self.cache.clone(); threads]);
        let tolerance = self.tolerance;
        let budget = self.budget.clone();
        let store = (!bounded).then(|| Arc::new(SharedStore::new()));
        let spent = Mutex::new(Vec::with_capacity(threads));
        let shared = &*level;
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let mut worker =
                        Engine::<I, O, C>::new(data, weights, objective, config, budget.clone());
                    worker.tolerance = tolerance;
                    worker.shared = store.clone();
                    worker.extracts = false;
                    worker.cache = lock(&caches).pop().expect("one cache per thread");
                    let mut level = shared.clone();
                    if bounded {
                        worker.note_loop(&level.candidates);
                    }
                    let id = worker.insert_current();
                    let handle = worker.cache.handle(id);
                    worker.frames.push(Frame {
                        handle,
                        limits: node.limits,
                        depth: 0,
                        feature: None,
                        position: 0,
                        best: None,
                        created: 0,
                    });
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= n || done.load(Ordering::Relaxed) {
                            break;
                        }
                        // the cheapest tree the splits before this one found
                        let ub = lock(&found)[..index]
                            .iter()
                            .filter_map(|mine| Some(mine.as_ref()?.best?.0))
                            .fold(start.ub, |ub, cost| ub.min(cost, 0.0));
                        let mut mine = Splits {
                            ub,
                            best: None,
                            refined: C::INFINITY,
                        };
                        worker.try_split(&mut level, index, node, &mut mine);
                        if let Some((cost, _)) = mine.best {
                            if !worker.below(node.bound, cost) {
                                done.store(true, Ordering::Relaxed);
                            }
                        }
                        lock(&found)[index] = Some(mine);
                        if let Some(reason) = worker.budget.stopped() {
                            lock(&stop).get_or_insert(reason);
                            done.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                    lock(&spent).push(worker.cache.stats());
                });
            }
        });
        self.cache.count_copies(&lock(&spent));
        match *lock(&stop) {
            Some(Stop::MemoryLimit) => return false,
            Some(reason) => self.budget.stop(reason),
            None => {}
        }
        // the splits in branching order, as one thread finds them; the bound the winner beat
        let mut beaten = start.ub;
        for mine in lock(&found).iter().flatten() {
            split.refined = split.refined.min(mine.refined, self.tolerance);
            if let Some((cost, decision)) = mine.best {
                if self.below(cost, split.ub) {
                    beaten = split.ub;
                    split.ub = cost;
                    split.best = Some((cost, decision));
                    if !self.below(node.bound, cost) {
                        break;
                    }
                }
            }
        }
        // the winner's subtrees, in this engine's cache, searched under the bound one thread
        // would have searched them under
        if let Some((_, Decision::Split { feature, .. })) = split.best {
            let index = (level.candidates.iter())
                .position(|&f| f == feature)
                .expect("the winner is a candidate");
            let mut again = Splits {
                ub: beaten,
                best: None,
                refined: C::INFINITY,
            };
            // with the threads' store, whose subtrees it copies in whole
            let alone = std::mem::replace(&mut self.shared, store);
            self.try_split(level, index, node, &mut again);
            self.shared = alone;
            split.best = again.best;
            if let Some((cost, _)) = again.best {
                split.ub = cost;
                if self.proving() && node.limits == self.root_limits {
                    self.note_progress(cost.objective());
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::budget::Budget;
    use crate::cache::WipeStrategy;
    use crate::data::Dataset;
    use crate::search::{MemoryLimits, SearchConfig};
    use crate::solver::{Solver, Status};
    use crate::task::Task;
    use proptest::prelude::*;

    /// A problem: features (row-major), labels, targets, weights (`None`: unit weights).
    type Problem = (Vec<u8>, Vec<u32>, Vec<f64>, Option<Vec<f64>>);

    fn problems() -> impl Strategy<Value = Problem> {
        (10usize..=120, 2usize..=9, any::<bool>()).prop_flat_map(
            |(n_rows, n_features, weighted)| {
                let weights = if weighted {
                    prop::collection::vec(prop_oneof![Just(0.0), 0.5f64..3.0], n_rows)
                        .prop_map(Some)
                        .boxed()
                } else {
                    Just(None).boxed()
                };
                (
                    prop::collection::vec(0u8..=1, n_rows * n_features),
                    // few distinct targets and labels, so that ties between trees are common
                    prop::collection::vec(0u32..3, n_rows),
                    prop::collection::vec((0i32..4).prop_map(f64::from), n_rows),
                    weights,
                )
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

        /// With 1, 2 and 4 threads the search proves the same optimum, for class counts and
        /// squared error, under node limits, the leaf penalty and the lexicographic order;
        /// with unit weights it returns the same tree. (With real weights, two subtrees whose
        /// costs differ by rounding noise alone may go either way, as they may for one thread
        /// after another search.)
        #[test]
        fn threads_give_the_tree_of_one(
            (x, y, targets, weights) in problems(),
            depth in 1u32..=4,
            max_nodes in prop_oneof![Just(None), (1u32..=6).prop_map(Some)],
            leaf_penalty in prop_oneof![Just(0.0), Just(0.5)],
            lexicographic in any::<bool>(),
        ) {
            let n_rows = y.len();
            prop_assume!(weights.as_ref().is_none_or(|w| w.iter().any(|&w| w > 0.0)));
            let data = Dataset::new(&x, n_rows, &y, 3).unwrap();
            let solver = Solver::new(data);
            for task in [Task::Misclassification, Task::SquaredError(targets.clone())] {
                let solve = |n_jobs| {
                    let config = SearchConfig {
                        max_depth: depth,
                        max_nodes,
                        leaf_penalty,
                        lexicographic,
                        n_jobs,
                        ..SearchConfig::default()
                    };
                    let solutions = solver
                        .solve_task(task.clone(), &config, weights.as_deref(), Budget::default())
                        .unwrap();
                    assert_eq!(solutions[0].status, Status::Optimal);
                    solutions.into_iter().next().unwrap()
                };
                let one = solve(1);
                for n_jobs in [2, 4] {
                    let many = solve(n_jobs);
                    let gap = (many.objective - one.objective).abs();
                    prop_assert!(gap <= 1e-9 * (1.0 + one.objective.abs()),
                        "{:?} with {} threads: {} against {}", task, n_jobs, many.objective, one.objective);
                    // with unit weights, ties between subtrees go the same way
                    if weights.is_none() {
                        prop_assert_eq!(&many.tree, &one.tree, "{:?} with {} threads", task, n_jobs);
                    }
                }
            }
        }

        /// A solver that keeps its work, searched on 2 threads (whose winning split takes
        /// subtrees from the threads' store), and then again on one thread under other
        /// limits, returns each time a fresh search's optimum, and a tree that costs it: the
        /// subtrees it took were copied into its cache whole (one missing would be extracted
        /// as a leaf). Without a leaf penalty the tree is the fresh search's.
        #[test]
        fn threads_leave_a_whole_cache(
            (x, y, _, _) in problems(),
            depth in 2u32..=4,
            then_depth in 1u32..=4,
            leaf_penalty in prop_oneof![Just(0.0), Just(0.5)],
        ) {
            let n_rows = y.len();
            let data = Dataset::new(&x, n_rows, &y, 3).unwrap();
            let kept = Solver::new(data.clone());
            kept.keep_work(true);
            let fresh = Solver::new(data);
            let solve = |solver: &Solver, max_depth, n_jobs| {
                let config = SearchConfig {
                    max_depth,
                    leaf_penalty,
                    n_jobs,
                    ..SearchConfig::default()
                };
                let solutions = solver
                    .solve_task(Task::Misclassification, &config, None, Budget::default())
                    .unwrap();
                solutions.into_iter().next().unwrap()
            };
            for (max_depth, n_jobs) in [(depth, 2), (then_depth, 1), (depth, 1)] {
                let again = solve(&kept, max_depth, n_jobs);
                let alone = solve(&fresh, max_depth, 1);
                prop_assert_eq!(again.objective, alone.objective);
                // (with a leaf penalty a kept cache may break a tie between optimal trees
                // otherwise, on one thread too)
                if leaf_penalty == 0.0 {
                    prop_assert_eq!(&again.tree, &alone.tree, "depth {} on {} threads",
                        max_depth, n_jobs);
                }
                let leaves = again.tree.nodes().iter().filter(|node| node.feature.is_none());
                let cost: f64 = leaves.map(|leaf| leaf.leaf_cost).sum();
                prop_assert!((cost - again.objective).abs() < 1e-9,
                    "depth {} on {} threads: the tree costs {}, the optimum {}",
                    max_depth, n_jobs, cost, again.objective);
            }
        }

        /// Under a cap on the cache's keys, small enough that the threads wipe, 1 and 3
        /// threads prove the same optimum, and the keys held at once stay under the cap.
        #[test]
        fn threads_keep_a_memory_limit(
            (x, y, _, _) in problems(),
            depth in 2u32..=4,
            max_entries in prop_oneof![Just(30usize), Just(60), Just(150)],
            strategy in prop_oneof![Just(WipeStrategy::Reuses), Just(WipeStrategy::All)],
        ) {
            let n_rows = y.len();
            let data = Dataset::new(&x, n_rows, &y, 3).unwrap();
            let solver = Solver::new(data);
            let solve = |n_jobs| {
                let config = SearchConfig {
                    max_depth: depth,
                    n_jobs,
                    memory: MemoryLimits {
                        max_entries: Some(max_entries),
                        strategy,
                        ..MemoryLimits::default()
                    },
                    ..SearchConfig::default()
                };
                let solutions = solver
                    .solve_task(Task::Misclassification, &config, None, Budget::default())
                    .unwrap();
                solutions.into_iter().next().unwrap()
            };
            let one = solve(1);
            let many = solve(3);
            prop_assert_eq!(one.status, Status::Optimal);
            prop_assert_eq!(many.status, Status::Optimal);
            prop_assert_eq!(many.objective, one.objective);
            prop_assert!(many.cache.peak_entries <= max_entries,
                "{} keys held under a cap of {}", many.cache.peak_entries, max_entries);
        }
    }
}
