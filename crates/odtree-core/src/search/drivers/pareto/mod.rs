//! The Pareto driver (MurTree §4.8.6): for a binary task, the front of non-dominated
//! (false positives, false negatives) pairs of all trees within the limits, at every
//! subproblem. A metric that is not a sum over leaves, such as the F1-score, is optimal at a
//! point of the root's front, since it never gets worse when either count falls.
//!
//! A subproblem is a cover (the rows reaching a node), a depth and a budget of branching
//! nodes; its front is the two leaves' points and, for each valid split, the sums of the
//! children's fronts under each share of the budget. The driver walks with the kernel's
//! cursor and evaluates nodes with its scan (the class weights of every split's children,
//! `min_samples_leaf`); fronts are kept in a store of their own, by the cover's rows, so
//! paths that reach the same rows share them (the dataset cache). Each point remembers how
//! it was made, so the tree of any root point is read back from the cache. When the budget
//! runs out, the features not yet tried are skipped: every front is then made of real trees,
//! only perhaps not all the best ones.

mod depth2;
mod threads;

use threads::SharedFronts;

use super::{Driver, Inputs, SearchOutcome};
use crate::budget::{Budget, Stop};
use crate::cache::{CacheReport, KeyIndex, TrieIndex};
use crate::data::{item, Dataset};
use crate::error::{OdtError, Result};
use crate::objective::{Metric, Misclassification};
use crate::search::kernel::counts::Counters;
use crate::search::kernel::{Kernel, Level};
use crate::search::SearchConfig;
use crate::stats::Weights;
use crate::tree::{Tree, TreeNode};
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::time::Instant;

/// The class index of the positive class; class 0 is the negative one.
const POSITIVE: usize = 1;

/// The driver of the tree of greatest `metric` for two classes, class 1 positive, through
/// the Pareto fronts of every subproblem. Its outcome's objective is the metric's loss,
/// 1 − metric, and its front is the root's.
pub(crate) struct ParetoDriver {
    /// The metric to maximise.
    pub metric: Metric,
}

impl Driver for ParetoDriver {
    type Objectives = Misclassification;

    fn check(&self, data: &Dataset, config: &SearchConfig) -> Result<()> {
        check_metric(data, config)
    }

    fn objectives(
        &mut self,
        data: &Dataset,
        weights: &Weights,
        _config: &SearchConfig,
    ) -> Result<Misclassification> {
        Ok(Misclassification::for_data(data, weights))
    }

    /// Keeps its fronts in a store of its own, keyed by rows: the key index is not used.
    fn search<I: KeyIndex>(
        &self,
        objective: &Misclassification,
        inputs: Inputs<'_>,
    ) -> Vec<SearchOutcome> {
        let Inputs {
            data,
            weights,
            config,
            budget,
        } = inputs;
        let outcome = Pareto::new(data, weights, objective, config, budget).run(self.metric);
        let loss = 1.0 - outcome.value;
        vec![SearchOutcome {
            tree: outcome.tree,
            objective: loss,
            lower_bound: if outcome.stopped.is_some() { 0.0 } else { loss },
            infeasible: false,
            cache: CacheReport {
                entries: outcome.cache_entries,
                peak_entries: outcome.cache_entries,
                created: outcome.cache_entries,
                ..CacheReport::default()
            },
            stopped: outcome.stopped,
            progress: Vec::new(),
            front: outcome.front,
        }]
    }
}

/// Refuses what a search for a metric of the (false positives, false negatives) cannot take:
/// other than two classes, a leaf penalty, the lexicographic order, an upper bound or
/// monotonic constraints.
pub(crate) fn check_metric(data: &Dataset, config: &SearchConfig) -> Result<()> {
    let invalid = |what: &str| Err(OdtError::InvalidParameter(what.into()));
    if data.n_classes() != 2 {
        return invalid("F1-score and balanced accuracy need exactly two classes");
    }
    if config.leaf_penalty != 0.0 || config.lexicographic || config.upper_bound.is_finite() {
        return invalid(
            "F1-score and balanced accuracy take no leaf penalty (ccp_alpha), \
             lexicographic order or upper bound",
        );
    }
    if config.is_monotonic() {
        return invalid("F1-score and balanced accuracy take no monotonic constraints");
    }
    Ok(())
}

/// How a point of a front was made.
#[derive(Clone, Copy, Debug, PartialEq)]
enum How {
    /// A leaf predicting the positive class, or the negative one.
    Leaf { positive: bool },
    /// A split on `feature`: the left child (feature 0) has `left_nodes` of the budget, and
    /// the points are those of the children's fronts at the given indices.
    Split {
        feature: u32,
        left_nodes: u32,
        left: u32,
        right: u32,
    },
}

/// What the splits of a node share: its class weights, its depth left, and the shares of
/// its branching nodes below the split (the left child's, from `shares`; the right child's,
/// the rest of `shared`).
struct Split {
    totals: [f64; 2],
    depth: u32,
    shares: std::ops::RangeInclusive<u32>,
    shared: u32,
}

/// One non-dominated (false positives, false negatives) pair and how it is reached.
#[derive(Clone, Copy, Debug)]
struct Point {
    fp: f64,
    fn_: f64,
    how: How,
}

/// The front of a subproblem, by increasing false positives (and so decreasing false
/// negatives).
type Front = Arc<Vec<Point>>;

/// A cover's rows, its remaining depth and its node budget.
type Key = (Vec<(u32, u64)>, u32, u32);

/// The outcome of a Pareto search.
#[derive(Clone, Debug)]
pub struct ParetoOutcome {
    /// The tree of the best root point for the metric.
    pub tree: Tree,
    /// The root's front, as (false positives, false negatives), by increasing false positives.
    pub front: Vec<[f64; 2]>,
    /// The metric's value of the tree.
    pub value: f64,
    /// Why the search stopped early, if it did.
    pub stopped: Option<Stop>,
    /// Fronts cached.
    pub cache_entries: usize,
}

/// A Pareto search over one binary dataset.
pub struct Pareto<'a> {
    kernel: Kernel<'a, TrieIndex, Misclassification, f64>,
    fronts: FxHashMap<Key, Front>,
    /// Pair counts of the depth-2 fronts, built on first use.
    counters: Option<Counters>,
    /// Whether the tree is being read back: the depth-2 fronts keep no child fronts, so
    /// those of depth 1 are made again then, in full even after a stop, as first made.
    reading: bool,
    /// Relative tolerance under which two counts are the same (sums in other orders).
    tolerance: f64,
    /// The metric of the run, for the progress of the root's front.
    metric: Option<Metric>,
    /// The least loss (1 − metric) of the root's points posted so far.
    posted: f64,
    /// Fronts the threads of the root's splits cached (see `threads.rs`).
    threads_cached: usize,
    /// The fronts the root's threads share, once they run (see `threads.rs`).
    shared: Option<Arc<SharedFronts>>,
    /// When the last event was posted (seconds since the start).
    last_post: f64,
    started: Instant,
}

/// Seconds between two events while the root's front has no better point: a watcher sees
/// the search going, and its callback can stop it.
const HEARTBEAT: f64 = 0.5;

impl<'a> Pareto<'a> {
    /// A search over `data` (two classes, class 1 positive) with `weights`, whose class
    /// weights `objective` holds, within `config`'s limits and `budget`.
    pub fn new(
        data: &'a Dataset,
        weights: &'a Weights,
        objective: &'a Misclassification,
        config: &'a SearchConfig,
        budget: Budget,
    ) -> Self {
        let kernel = Kernel::new(data, weights, objective, config, budget);
        let (totals, _) = count(&kernel);
        Self {
            kernel,
            fronts: FxHashMap::default(),
            counters: None,
            reading: false,
            // relative to the total weight, so that the fronts do not change with its scale
            tolerance: 1e-12 * (totals[0] + totals[1]),
            metric: None,
            posted: f64::INFINITY,
            threads_cached: 0,
            shared: None,
            last_post: 0.0,
            started: Instant::now(),
        }
    }

    /// Finds the root's front under the depth and node limits and the tree of its best point
    /// for `metric` (ties: fewer errors, then fewer false positives).
    pub fn run(mut self, metric: Metric) -> ParetoOutcome {
        self.metric = Some(metric);
        let config = self.kernel.config;
        let depth = config.max_depth.min(self.kernel.data.n_features() as u32);
        let nodes = config.max_nodes.unwrap_or(u32::MAX).min(full_nodes(depth));
        let front = self.front(depth, nodes);
        let (totals, _) = count(&self.kernel);
        let (negatives, positives) = (totals[0], totals[POSITIVE]);
        let score = |p: &Point| metric.value(p.fp, p.fn_, positives, negatives);
        let best = (0..front.len())
            .max_by(|&a, &b| {
                let (pa, pb) = (&front[a], &front[b]);
                score(pa)
                    .total_cmp(&score(pb))
                    .then((pb.fp + pb.fn_).total_cmp(&(pa.fp + pa.fn_)))
                    .then(pb.fp.total_cmp(&pa.fp))
            })
            .expect("a front holds at least one leaf");
        let value = score(&front[best]);
        let mut nodes_out = Vec::new();
        // the tree is read back from fronts made in full (by this thread, or read from the
        // store the root's threads shared), even after a stop
        let stopped = self.kernel.budget.stopped();
        let budget = std::mem::take(&mut self.kernel.budget);
        self.reading = true;
        self.extract(depth, nodes, best, &mut nodes_out);
        self.kernel.budget = budget;
        ParetoOutcome {
            tree: Tree::from_nodes(nodes_out),
            front: front.iter().map(|p| [p.fp, p.fn_]).collect(),
            value,
            stopped,
            cache_entries: self.fronts.len() + self.threads_cached,
        }
    }

    /// The front of the kernel's current node with `depth` levels and `nodes` branching
    /// nodes left.
    fn front(&mut self, depth: u32, nodes: u32) -> Front {
        let nodes = nodes.min(full_nodes(depth));
        let (totals, rows) = count(&self.kernel);
        let leaves = leaf_front(totals);
        if depth == 0 || nodes == 0 || leaves.len() == 1 || !self.kernel.splittable(rows) {
            return Arc::new(leaves);
        }
        let key: Key = (self.kernel.cover.pairs().collect(), depth, nodes);
        if let Some(front) = self.fronts.get(&key) {
            return front.clone();
        }
        if let Some(front) = self.shared.as_ref().and_then(|shared| shared.get(&key)) {
            self.fronts.insert(key, front.clone());
            return front;
        }
        let at = self.kernel.path.len();
        let config = self.kernel.config;
        if depth == 2 && config.depth2_solver && config.min_leaf_weight <= 0.0 {
            if let Some(weight) = self.kernel.weights.uniform() {
                // a stop while counting leaves the leaves, as the general walk's first look at
                // the budget does
                let points = self
                    .depth2_front(totals, rows, nodes, weight)
                    .unwrap_or(leaves);
                let front = Arc::new(points);
                if at == 0 {
                    self.note_root(&front, totals);
                }
                self.keep(key, front.clone());
                return front;
            }
        }
        let mut points = leaves;
        let child_cap = full_nodes(depth - 1);
        let shared = nodes - 1;
        let (low, high) = (shared.saturating_sub(child_cap), shared.min(child_cap));
        // the valid splits, each with its positive child's class weights
        let mut level = std::mem::take(&mut self.kernel.levels[at]);
        self.kernel.scan(&mut level, &totals, rows);
        if at == 0 {
            self.note_root(&points, totals); // the best leaf, before any split
        }
        let split = Split {
            totals,
            depth,
            shares: low..=high,
            shared,
        };
        if self.root_on_threads(at, &level) {
            for points_of_split in self.splits_on_threads(&level, &split) {
                // a split the budget left unfinished is left out, as one not reached
                let Some(points_of_split) = points_of_split else {
                    continue;
                };
                points.extend(points_of_split);
                if self.merge(&mut points, at, totals) {
                    break;
                }
            }
        } else {
            for &feature in &level.candidates {
                if !self.reading && self.kernel.budget.check().is_some() {
                    break;
                }
                self.heartbeat();
                self.split_points(&level, feature, &split, &mut points);
                if self.merge(&mut points, at, totals) {
                    break;
                }
            }
        }
        self.kernel.levels[at] = level;
        let front = Arc::new(non_dominated(points, self.tolerance));
        self.keep(key, front.clone());
        front
    }

    /// Stores `front` under `key`, and in the store the root's threads share when it is
    /// complete (made before any stop).
    fn keep(&mut self, key: Key, front: Front) {
        if let Some(shared) = &self.shared {
            if self.kernel.budget.stopped().is_none() {
                shared.insert(key.clone(), front.clone());
            }
        }
        self.fronts.insert(key, front);
    }

    /// Appends the points of the split on `feature` (one of `level`'s candidates) under
    /// every share of the nodes in `split`.
    fn split_points(&mut self, level: &Level, feature: u32, split: &Split, out: &mut Vec<Point>) {
        let slot = feature as usize * 2;
        let positive = [level.positive[slot], level.positive[slot + 1]];
        let totals = split.totals;
        let negative = [totals[0] - positive[0], totals[1] - positive[1]];
        let depth = split.depth - 1;
        for left_nodes in split.shares.clone() {
            let left = self.child_front(feature, false, negative, depth, left_nodes);
            let right = self.child_front(feature, true, positive, depth, split.shared - left_nodes);
            for (i, a) in left.iter().enumerate() {
                for (j, b) in right.iter().enumerate() {
                    out.push(Point {
                        fp: a.fp + b.fp,
                        fn_: a.fn_ + b.fn_,
                        how: How::Split {
                            feature,
                            left_nodes,
                            left: i as u32,
                            right: j as u32,
                        },
                    });
                }
            }
        }
    }

    /// Keeps the non-dominated `points` of the node `at` steps below the root (whose class
    /// weights are `totals`). Returns whether a point with no error is among them: it
    /// dominates every other, so nothing better is left to find.
    fn merge(&mut self, points: &mut Vec<Point>, at: usize, totals: [f64; 2]) -> bool {
        *points = non_dominated(std::mem::take(points), self.tolerance);
        if at == 0 {
            self.note_root(points, totals);
        }
        (points.first()).is_some_and(|p| p.fp + p.fn_ <= self.tolerance)
    }

    /// Posts the best loss (1 − metric) among the root's `points` so far when it improves
    /// on the last one posted, so that a watcher sees the search go (and can stop it).
    fn note_root(&mut self, points: &[Point], totals: [f64; 2]) {
        let Some(metric) = self.metric else { return };
        let (negatives, positives) = (totals[0], totals[POSITIVE]);
        let loss = points
            .iter()
            .map(|p| 1.0 - metric.value(p.fp, p.fn_, positives, negatives))
            .fold(f64::INFINITY, f64::min);
        if loss < self.posted {
            self.posted = loss;
            self.post();
        }
    }

    /// Posts the last loss again when [`HEARTBEAT`] has passed since the last event.
    fn heartbeat(&mut self) {
        if self.posted.is_finite()
            && self.started.elapsed().as_secs_f64() - self.last_post >= HEARTBEAT
        {
            self.post();
        }
    }

    fn post(&mut self) {
        self.last_post = self.started.elapsed().as_secs_f64();
        self.kernel.budget.post([self.last_post, self.posted, 0.0]);
    }

    /// The front of the child where `feature` is `value`, whose class weights are `totals`.
    fn child_front(
        &mut self,
        feature: u32,
        value: bool,
        totals: [f64; 2],
        depth: u32,
        nodes: u32,
    ) -> Front {
        if depth == 0 || nodes == 0 {
            return Arc::new(leaf_front(totals));
        }
        self.kernel.push(item(feature, value));
        let front = self.front(depth, nodes);
        self.kernel.pop(item(feature, value));
        front
    }

    /// Appends, in pre-order, the nodes of the tree of point `at` of the current node's front.
    fn extract(&mut self, depth: u32, nodes: u32, at: usize, out: &mut Vec<TreeNode>) {
        let nodes = nodes.min(full_nodes(depth));
        let point = self.front(depth, nodes)[at];
        let (totals, rows) = count(&self.kernel);
        let label = match point.how {
            How::Leaf { positive } => u32::from(positive),
            How::Split { .. } => u32::from(totals[POSITIVE] > totals[0]),
        };
        let index = out.len();
        out.push(TreeNode {
            feature: None,
            left: 0,
            right: 0,
            stats: totals.to_vec(),
            rows,
            weight: totals[0] + totals[1],
            label,
            value: f64::from(label),
            leaf_cost: if label == 1 {
                totals[0]
            } else {
                totals[POSITIVE]
            },
        });
        if let How::Split {
            feature,
            left_nodes,
            left,
            right,
        } = point.how
        {
            out[index].feature = Some(feature);
            for (value, child_nodes, child_at) in [
                (false, left_nodes, left),
                (true, nodes - 1 - left_nodes, right),
            ] {
                let child = out.len() as u32;
                if value {
                    out[index].right = child;
                } else {
                    out[index].left = child;
                }
                self.kernel.push(item(feature, value));
                self.extract(depth - 1, child_nodes, child_at as usize, out);
                self.kernel.pop(item(feature, value));
            }
        }
    }
}

/// The class weights of the kernel's current node and its row count.
fn count(kernel: &Kernel<'_, TrieIndex, Misclassification, f64>) -> ([f64; 2], u32) {
    let mut totals = [0.0; 2];
    let rows = kernel.statistics.count(&kernel.cover, None, &mut totals);
    (totals, rows)
}

/// Most branching nodes a tree of `depth` levels has.
fn full_nodes(depth: u32) -> u32 {
    if depth >= 31 {
        u32::MAX
    } else {
        (1u32 << depth) - 1
    }
}

/// The points of the two leaves of a node with class weights `totals`: predicting positive
/// errs on the negatives, predicting negative on the positives. One point when pure.
fn leaf_front(totals: [f64; 2]) -> Vec<Point> {
    let positive = Point {
        fp: totals[0],
        fn_: 0.0,
        how: How::Leaf { positive: true },
    };
    let negative = Point {
        fp: 0.0,
        fn_: totals[POSITIVE],
        how: How::Leaf { positive: false },
    };
    match (totals[0] == 0.0, totals[POSITIVE] == 0.0) {
        (true, _) => vec![positive],
        (false, true) => vec![negative],
        _ => vec![negative, positive],
    }
}

/// The points no other point dominates (at most as many of both errors, within `tolerance`),
/// by increasing false positives; of equal points, the first given.
fn non_dominated(mut points: Vec<Point>, tolerance: f64) -> Vec<Point> {
    // stable: among equal pairs the earliest (a leaf before a split) stays
    points.sort_by(|a, b| a.fp.total_cmp(&b.fp).then(a.fn_.total_cmp(&b.fn_)));
    let mut kept: Vec<Point> = Vec::new();
    for point in points {
        // a point as good in false positives but better in false negatives replaces the last
        while kept
            .last()
            .is_some_and(|last| point.fp <= last.fp + tolerance && point.fn_ < last.fn_ - tolerance)
        {
            kept.pop();
        }
        match kept.last() {
            Some(last) if point.fn_ >= last.fn_ - tolerance => {}
            _ => kept.push(point),
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(fp: f64, fn_: f64) -> Point {
        Point {
            fp,
            fn_,
            how: How::Leaf { positive: true },
        }
    }

    #[test]
    fn non_dominated_keeps_the_staircase() {
        let points = vec![
            point(3.0, 1.0),
            point(0.0, 5.0),
            point(1.0, 5.0),
            point(2.0, 2.0),
            point(3.0, 2.0),
            point(4.0, 0.0),
        ];
        let kept: Vec<[f64; 2]> = non_dominated(points, 1e-12)
            .iter()
            .map(|p| [p.fp, p.fn_])
            .collect();
        assert_eq!(kept, vec![[0.0, 5.0], [2.0, 2.0], [3.0, 1.0], [4.0, 0.0]]);
    }

    #[test]
    fn metrics_of_a_perfect_and_an_empty_classifier() {
        assert_eq!(Metric::F1.value(0.0, 0.0, 4.0, 6.0), 1.0);
        assert_eq!(
            Metric::F1.value(6.0, 0.0, 4.0, 6.0),
            2.0 * 4.0 / (8.0 + 6.0)
        );
        assert_eq!(Metric::F1.value(0.0, 4.0, 4.0, 6.0), 0.0);
        assert_eq!(Metric::BalancedAccuracy.value(0.0, 4.0, 4.0, 6.0), 0.5);
        assert_eq!(Metric::BalancedAccuracy.value(3.0, 2.0, 4.0, 6.0), 0.5);
    }
}
