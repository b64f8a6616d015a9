//! The root's splits on several threads. Each thread searches with a fork of the search (the
//! same settings, the same kept subproblems) and takes every `n`-th feature of the root. The
//! set found is the same as on one thread.

use super::listing::Parts;
use super::{merged, Histogram, Rashomon};
use std::sync::Arc;

impl<'a> Rashomon<'a> {
    /// The same search splitting the root on `n_jobs` threads (at least 1), which share what
    /// they keep of the subproblems.
    pub fn with_threads(self, n_jobs: usize) -> Self {
        Self {
            n_jobs: n_jobs.max(1),
            ..self
        }
    }

    /// The forks a search of depth `depth` splits its root with; none on one thread.
    pub(super) fn forks(&self, depth: u32) -> Vec<Self> {
        let n = self.n_jobs.min(self.allowed.len());
        if depth == 0 || n < 2 {
            return Vec::new();
        }
        (0..n)
            .map(|_| Self {
                data: self.data,
                weights: self.weights,
                uniform: self.uniform,
                loss: self.loss.clone(),
                penalty: self.penalty,
                allowed: self.allowed.clone(),
                tolerance: self.tolerance,
                trivial_splits: self.trivial_splits,
                kept: self.kept.clone(),
                budget: self.budget.clone(),
                max_bytes: self.max_bytes,
                n_jobs: 1,
                earlier: self.earlier.clone(),
                widest: self.widest.clone(),
            })
            .collect()
    }

    /// Runs `work` on each fork in a thread of its own, with the root's features that fork
    /// takes; a stop in any fork stops this search.
    fn on_forks<T: Send>(
        &mut self,
        forks: &mut [Self],
        work: impl Fn(&mut Self, &[u32]) -> T + Sync,
    ) -> Vec<T> {
        let n = forks.len();
        let shares: Vec<Vec<u32>> = (0..n)
            .map(|t| self.allowed.iter().skip(t).step_by(n).copied().collect())
            .collect();
        let work = &work;
        let results = std::thread::scope(|scope| {
            let handles: Vec<_> = (forks.iter_mut().zip(&shares))
                .map(|(fork, share)| scope.spawn(move || work(fork, share)))
                .collect();
            (handles.into_iter())
                .map(|handle| {
                    handle
                        .join()
                        .unwrap_or_else(|e| std::panic::resume_unwind(e))
                })
                .collect()
        });
        if let Some(stop) = forks.iter().find_map(|fork| fork.budget.stopped()) {
            self.budget.stop(stop);
        }
        results
    }

    /// The least cost of a tree of depth at most `depth` over the `root` rows.
    pub(super) fn root_optimum(&mut self, forks: &mut [Self], root: &[u64], depth: u32) -> f64 {
        if forks.is_empty() {
            return self.optimum(root, depth);
        }
        let parts = self.on_forks(forks, |fork, features| {
            let mut best = f64::INFINITY;
            for &f in features {
                if fork.budget.check().is_some() {
                    break;
                }
                if let Some(cost) = fork.split_optimum(root, depth, f) {
                    best = best.min(cost);
                }
            }
            best
        });
        parts.into_iter().fold(self.leaf(root).0, f64::min)
    }

    /// The costs, with their counts, of every tree of depth at most `depth` over the `root`
    /// rows costing at most `bound`; `None` when the budget ran out.
    pub(super) fn root_histogram(
        &mut self,
        forks: &mut [Self],
        root: &[u64],
        depth: u32,
        bound: f64,
    ) -> Option<Histogram> {
        if forks.is_empty() {
            let histogram = self.histogram(root, depth, bound)?;
            let within = self.within(&histogram, bound).len();
            return Some(if within == histogram.len() {
                histogram
            } else {
                Arc::new(histogram[..within].to_vec())
            });
        }
        let parts = self.on_forks(forks, |fork, features| {
            let mut costs = Vec::new();
            for &f in features {
                fork.split_histogram(root, depth, f, bound, &mut costs)?;
            }
            Some(costs)
        });
        let leaf = self.histogram(root, 0, bound)?;
        let mut costs = self.within(&leaf, bound).to_vec();
        for part in parts {
            costs.extend(part?);
        }
        Some(Arc::new(merged(costs)))
    }

    /// Every tree of depth at most `depth` over the `root` rows costing at most `bound`, as
    /// the parts of arenas (one per thread) and their listed trees.
    pub(super) fn root_trees(
        &mut self,
        forks: &mut [Self],
        root: &[u64],
        depth: u32,
        bound: f64,
    ) -> Vec<(Parts, Vec<u32>)> {
        let (mut parts, mut tops) = (Parts::default(), Vec::new());
        if forks.is_empty() {
            // in no order: they are sorted when written out
            let tops = self
                .list(root, depth, bound, &mut parts)
                .unwrap_or_default();
            return vec![(parts, tops)];
        }
        let mut arenas = self.on_forks(forks, |fork, features| {
            let (mut parts, mut tops) = (Parts::default(), Vec::new());
            let node = fork.node(root, &mut parts);
            for &f in features {
                if fork.budget.check().is_some() {
                    break;
                }
                fork.split_trees(root, node, depth, f, bound, &mut parts, &mut tops);
            }
            (parts, tops)
        });
        self.trees(root, 0, bound, &mut parts, &mut tops);
        arenas.push((parts, tops));
        arenas
    }
}
