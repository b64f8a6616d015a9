//! Rashomon sets: every tree of depth at most `d` whose cost is within a budget, counted
//! without being built, and listed best first.
//!
//! A tree's cost is its leaves' misclassified weight plus a penalty per leaf; a leaf predicts
//! its heaviest class (ties to the lowest), and a split must leave rows on both sides. With
//! targets instead of classes ([`Rashomon::with_targets`]) a leaf costs the weighted squared
//! error around its rows' weighted mean, or ([`Rashomon::with_quantile`]) the weighted pinball
//! loss around their weighted quantile (absolute error around the median is twice that of
//! quantile 0.5). Two trees differ when their splits differ; without
//! trivial splits ([`Rashomon::with_trivial_splits`]) a tree with a split whose two children
//! are leaves predicting the same class is left out. A subproblem is a set of rows and a
//! depth; for each one the search keeps its optimum and, for the widest budget it is asked
//! for (found by a first pass, `widest.rs`), the sorted costs of all its subtrees within that
//! budget with how many subtrees have each cost (SORTD's sorted lists, NeurIPS 2025, as
//! histograms). A split's costs are the sums of its children's, and a child is only asked for
//! the costs its sibling's optimum leaves room for, so no tree outside the budget is ever
//! counted or built.

use crate::budget::{Budget, Stop};
use crate::data::{item, Dataset};
use crate::error::{OdtError, Result};
use crate::objective::{check_targets, Pinball};
use crate::stats::Weights;
use kept::Kept;
use rustc_hash::FxHashMap;
use std::sync::Arc;
use widest::Widest;

mod kept;
mod listing;
#[cfg(test)]
mod tests;
mod threads;
mod widest;

/// A tree in pre-order: a split on feature `f` is `f` (its child where `f` is 0 comes next,
/// then the other), a leaf predicting class `c` is `-1 - c`.
pub type Codes = Vec<i64>;

pub use listing::{Listed, ListedTrees};

/// Subtree costs, sorted, each with the number of subtrees that have it.
type Histogram = Arc<Vec<(f64, u128)>>;

/// A set of rows, as a bitset.
type Rows = smallvec::SmallVec<[u64; 8]>;

/// The most classes whose weights a node counts on the stack.
const FEW: usize = 8;

/// A set of rows and the depth left: the rows' words, then the depth.
type Key = Box<[u64]>;

/// The key of `rows` at `depth`.
fn key(rows: &[u64], depth: u32) -> Key {
    rows.iter().copied().chain([u64::from(depth)]).collect()
}

/// `find` given the key of `rows` at `depth`, built in a buffer kept per thread rather than
/// allocated: most keys are only looked up.
fn with_key<T>(rows: &[u64], depth: u32, find: impl FnOnce(&[u64]) -> T) -> T {
    thread_local! {
        static PROBE: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    PROBE.with_borrow_mut(|probe| {
        probe.clear();
        probe.extend_from_slice(rows);
        probe.push(u64::from(depth));
        find(probe)
    })
}

/// A subproblem solved: its optimum, and its leaf's cost and class.
#[derive(Clone, Copy)]
struct Solved {
    cost: f64,
    leaf: f64,
    class: u32,
}

/// The search over one dataset.
pub struct Rashomon<'a> {
    data: &'a Dataset,
    weights: &'a [f64],
    /// The weight every row has, when they all have the same: then the classes' weights are
    /// counted from the class masks.
    uniform: Option<f64>,
    /// What a leaf costs.
    loss: Loss<'a>,
    penalty: f64,
    /// The features a split may test, ascending.
    allowed: Vec<u32>,
    tolerance: f64,
    /// Whether a split whose two children are leaves predicting the same class is counted.
    trivial_splits: bool,
    /// The subproblems' optima and histograms, shared with the search's threads.
    kept: Arc<Kept>,
    budget: Budget,
    /// Most bytes the kept optima and histograms may take; past it both are wiped (each is
    /// computed again when needed).
    max_bytes: Option<usize>,
    /// Threads for the root's splits (1: none).
    n_jobs: usize,
    /// Per feature, the allowed threshold of its column just below it, if any (see
    /// [`Rashomon::with_columns`]); empty when features have no columns.
    earlier: Vec<Option<u32>>,
    /// The widest budget each subproblem of the current pass is asked for (see
    /// `widest.rs`); empty under a memory limit.
    widest: Widest,
}

/// What a leaf costs, besides the penalty.
#[derive(Clone)]
enum Loss<'a> {
    /// The weight of the rows outside its heaviest class.
    Classes,
    /// The weighted squared error of these targets (one per row) around their weighted mean.
    Squared(&'a [f64]),
    /// The weighted pinball loss around the weighted quantile (the weights again, in the
    /// pinball's own form).
    Pinball(Box<(Pinball, Weights)>),
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct RashomonSet {
    /// The least cost of a tree.
    pub optimum: f64,
    /// The budget: every tree costing at most this much (up to rounding) is in the set.
    pub bound: f64,
    /// How many trees the set holds.
    pub count: u128,
    /// The trees listed, cheapest first (ties in the order of their codes): all of them, or
    /// the cheapest `max_trees`.
    pub trees: ListedTrees,
    /// Why the search stopped early, if it did: then `bound`, `count` and `trees` are those of
    /// the last budget completed, a prefix of the full set in cost order.
    pub stopped: Option<Stop>,
    /// How many times the kept optima and histograms were wiped to keep to the memory limit.
    pub wipes: usize,
}

impl<'a> Rashomon<'a> {
    /// A search over `data` with one weight per row (rows of weight 0 count for nothing, but
    /// still keep a child non-empty: leave them out beforehand), `penalty` per leaf, splits on
    /// the `allowed` features.
    pub fn new(
        data: &'a Dataset,
        weights: &'a [f64],
        penalty: f64,
        allowed: &[u32],
        budget: Budget,
    ) -> Result<Self> {
        if weights.len() != data.n_rows() {
            return Err(OdtError::InvalidData(format!(
                "{} weights for {} rows",
                weights.len(),
                data.n_rows()
            )));
        }
        if weights.iter().any(|w| !w.is_finite() || *w < 0.0) || !penalty.is_finite() {
            return Err(OdtError::InvalidData(
                "weights must be finite and non-negative, and the leaf penalty finite".into(),
            ));
        }
        if let Some(&f) = allowed.iter().find(|&&f| f as usize >= data.n_features()) {
            return Err(OdtError::InvalidParameter(format!(
                "feature {f} is not in 0..{}",
                data.n_features()
            )));
        }
        let mut allowed = allowed.to_vec();
        allowed.sort_unstable();
        allowed.dedup();
        let total: f64 = weights.iter().sum();
        Ok(Self {
            data,
            weights,
            uniform: (weights.first().copied()).filter(|&w| weights.iter().all(|&v| v == w)),
            loss: Loss::Classes,
            penalty,
            allowed,
            // rounding noise of sums in other orders, relative to the numbers summed
            tolerance: 1e-9 * (total + penalty.abs() * (data.n_rows() as f64 + 1.0)),
            trivial_splits: true,
            kept: Arc::new(Kept::new()),
            budget,
            max_bytes: None,
            n_jobs: 1,
            earlier: Vec::new(),
            widest: Widest::default(),
        })
    }

    /// The same search for regression: a leaf costs the weighted squared error of `targets`
    /// (one per row) around their weighted mean, and its codes are `-1`.
    pub fn with_targets(self, targets: &'a [f64]) -> Result<Self> {
        check_targets(targets, self.data.n_rows())?;
        let scale: f64 = (targets.iter())
            .zip(self.weights)
            .map(|(t, w)| w * t * t)
            .sum();
        Ok(Self {
            loss: Loss::Squared(targets),
            tolerance: self.tolerance + 1e-9 * scale,
            ..self
        })
    }

    /// The same search for quantile regression: a leaf costs `scale` times the weighted
    /// pinball loss of quantile `quantile` ∈ (0, 1) of `targets` (one per row) around their
    /// weighted quantile, and its codes are `-1`. Absolute error is quantile 0.5, scale 2.
    pub fn with_quantile(self, targets: &[f64], quantile: f64, scale: f64) -> Result<Self> {
        check_targets(targets, self.data.n_rows())?;
        if !(quantile > 0.0 && quantile < 1.0 && scale.is_finite() && scale > 0.0) {
            return Err(OdtError::InvalidParameter(format!(
                "the quantile must be in (0, 1) and the scale positive, got {quantile} and \
                 {scale}"
            )));
        }
        let size: f64 = (targets.iter())
            .zip(self.weights)
            .map(|(t, w)| w * t.abs())
            .sum();
        let weights = Weights::new(Some(self.weights), self.data.n_rows())?;
        Ok(Self {
            loss: Loss::Pinball(Box::new((Pinball::new(targets, quantile, scale), weights))),
            tolerance: self.tolerance + 1e-9 * scale * size,
            ..self
        })
    }

    /// The same search with (`true`, the default) or without the trees that hold a trivial
    /// split: one whose two children are leaves predicting the same class. Such a split
    /// changes no prediction. TREEFARMS leaves them out. With a leaf penalty of at least 0 the
    /// optimum is the same either way: a trivial split never costs less than the leaf it
    /// replaces.
    pub fn with_trivial_splits(self, keep: bool) -> Self {
        Self {
            trivial_splits: keep,
            ..self
        }
    }

    /// Whether a split into children solved as `left` and `right` makes trivial splits that
    /// must be left out: the two leaves' costs when both children, as leaves, predict the
    /// same class.
    fn trivial_pair(&self, left: Solved, right: Solved) -> Option<(f64, f64)> {
        if self.trivial_splits || !matches!(self.loss, Loss::Classes) {
            return None;
        }
        (left.class == right.class).then_some((left.leaf, right.leaf))
    }

    /// The same search keeping at most `max_bytes` of optima and histograms: past it, both
    /// are wiped and computed again as needed (the set found is the same, only slower). The
    /// trees listed are not counted.
    pub fn with_max_bytes(self, max_bytes: Option<usize>) -> Self {
        Self { max_bytes, ..self }
    }

    /// The bytes of a key and of a map entry around it.
    fn key_bytes(&self) -> usize {
        8 * self.data.n_words() + 64
    }

    /// Every row, as a bitset.
    fn all_rows(&self) -> Rows {
        let mut rows: Rows = smallvec::smallvec![u64::MAX; self.data.n_words()];
        let tail = self.data.n_rows() % 64;
        if tail != 0 {
            rows[self.data.n_words() - 1] = (1u64 << tail) - 1;
        }
        rows
    }

    /// The statistics of `rows`: the weight of each class; for squared error the weight and
    /// the weighted sums of the targets and of their squares; for the pinball loss the
    /// weight, the weight times the quantile, and the loss.
    fn class_weights(&self, rows: &[u64]) -> Vec<f64> {
        match &self.loss {
            Loss::Classes => {
                let n_classes = self.data.n_classes();
                if let Some(weight) = self.uniform {
                    let mut counts = vec![0u64; n_classes];
                    self.class_counts(rows, &mut counts);
                    return counts.into_iter().map(|n| n as f64 * weight).collect();
                }
                let mut stats = vec![0.0; n_classes];
                for row in rows_of(rows) {
                    stats[self.data.labels()[row] as usize] += self.weights[row];
                }
                stats
            }
            Loss::Squared(targets) => {
                let mut stats = vec![0.0; 3];
                for row in rows_of(rows) {
                    let (w, t) = (self.weights[row], targets[row]);
                    stats[0] += w;
                    stats[1] += w * t;
                    stats[2] += w * t * t;
                }
                stats
            }
            Loss::Pinball(pinball) => {
                let (pinball, weights) = pinball.as_ref();
                let listed: Vec<u32> = rows_of(rows).map(|row| row as u32).collect();
                let (mut loss, mut value) = ([0.0], [0.0]);
                let total = pinball.losses(
                    &[pinball.quantile()],
                    &listed,
                    weights,
                    &mut loss,
                    &mut value,
                );
                vec![total, total * value[0], loss[0]]
            }
        }
    }

    /// The number of rows of each class among `rows`, counted in integers, which add
    /// without a float's latency.
    fn class_counts(&self, rows: &[u64], counts: &mut [u64]) {
        self.class_counts_of(rows.iter().copied(), counts);
    }

    /// [`Rashomon::class_counts`] of the rows of `words`, a bitset given word by word.
    fn class_counts_of(&self, words: impl Iterator<Item = u64>, counts: &mut [u64]) {
        let masks = self.data.class_masks();
        for (bits, classes) in words.zip(masks.chunks_exact(counts.len())) {
            for (count, &mask) in counts.iter_mut().zip(classes) {
                *count += u64::from((bits & mask).count_ones());
            }
        }
    }

    /// The weight of each row, when they all weigh the same and the leaves are costed by
    /// classes, at most [`FEW`] of them: then a node's class weights are counted on the stack.
    fn counted(&self) -> Option<f64> {
        let few = matches!(self.loss, Loss::Classes) && self.data.n_classes() <= FEW;
        self.uniform.filter(|_| few)
    }

    /// The cost and class of a leaf of `counts` rows of each class, each of weight `weight`:
    /// the class weights of [`Rashomon::class_weights`], for [`Rashomon::leaf_of`].
    fn leaf_of_counts(&self, counts: &[u64; FEW], weight: f64) -> (f64, u32) {
        let stats = counts.map(|n| n as f64 * weight);
        self.leaf_of(&[], &stats[..self.data.n_classes()])
    }

    /// The cost and class of a leaf over `rows` (class 0 for regression).
    fn leaf(&self, rows: &[u64]) -> (f64, u32) {
        if let Some(weight) = self.counted() {
            let mut counts = [0u64; FEW];
            self.class_counts(rows, &mut counts[..self.data.n_classes()]);
            return self.leaf_of_counts(&counts, weight);
        }
        self.leaf_of(rows, &self.class_weights(rows))
    }

    /// The cost and class of a leaf over `rows`, whose statistics are `stats`.
    fn leaf_of(&self, rows: &[u64], stats: &[f64]) -> (f64, u32) {
        match &self.loss {
            Loss::Classes => {
                let mut best = 0;
                for (c, &weight) in stats.iter().enumerate() {
                    if weight > stats[best] {
                        best = c;
                    }
                }
                let total: f64 = stats.iter().sum();
                (total - stats[best] + self.penalty, best as u32)
            }
            Loss::Squared(targets) => {
                let mean = if stats[0] > 0.0 {
                    stats[1] / stats[0]
                } else {
                    0.0
                };
                let error: f64 = rows_of(rows)
                    .map(|row| self.weights[row] * (targets[row] - mean).powi(2))
                    .sum();
                (error + self.penalty, 0)
            }
            Loss::Pinball(_) => (stats[2] + self.penalty, 0),
        }
    }

    /// The two children of a split of `rows` on `feature`, if both hold rows and no earlier
    /// threshold of its column splits `rows` the same way.
    fn split(&self, rows: &[u64], feature: u32) -> Option<(Rows, Rows)> {
        let zero = self.data.item_mask(item(feature, false));
        let one = self.data.item_mask(item(feature, true));
        let left: Rows = rows.iter().zip(zero).map(|(r, m)| r & m).collect();
        let right: Rows = rows.iter().zip(one).map(|(r, m)| r & m).collect();
        let holds = |side: &[u64]| side.iter().any(|&w| w != 0);
        if !(holds(&left) && holds(&right)) {
            return None;
        }
        if let Some(&Some(earlier)) = self.earlier.get(feature as usize) {
            let zero = self.data.item_mask(item(earlier, false));
            if rows
                .iter()
                .zip(zero)
                .zip(&left[..])
                .all(|((r, m), l)| r & m == *l)
            {
                return None; // the same split as the earlier threshold's
            }
        }
        Some((left, right))
    }

    /// The same search with the features' `columns` (one per feature): the features of a
    /// column are its thresholds, ascending (a row has the feature when its value is at most
    /// the threshold). A node then splits on one threshold per gap between its rows' values,
    /// the lowest: two thresholds that split its rows the same way make one split, not two.
    pub fn with_columns(self, columns: &[u32]) -> Result<Self> {
        if columns.len() != self.data.n_features() {
            return Err(OdtError::InvalidParameter(format!(
                "{} columns for {} features",
                columns.len(),
                self.data.n_features()
            )));
        }
        let mut earlier = vec![None; columns.len()];
        let mut last: FxHashMap<u32, u32> = FxHashMap::default();
        for &f in &self.allowed {
            earlier[f as usize] = last.insert(columns[f as usize], f);
        }
        Ok(Self { earlier, ..self })
    }

    /// The least cost of a tree of depth at most `depth` over `rows`; once the budget has run
    /// out, only an upper bound of it (and not kept).
    fn optimum(&mut self, rows: &[u64], depth: u32) -> f64 {
        self.solved(rows, depth).cost
    }

    /// [`Rashomon::solved`] at depth 1 for rows of one weight: a split's class counts are
    /// those of its side of ones, counted without building the sides, and the other side's
    /// by difference, each child costed as [`Rashomon::leaf`] costs it.
    fn depth_one(&self, rows: &[u64], weight: f64) -> Solved {
        let n_classes = self.data.n_classes();
        let mut counts = [0u64; FEW];
        self.class_counts(rows, &mut counts[..n_classes]);
        let n_rows: u64 = counts.iter().sum();
        let (leaf, class) = self.leaf_of_counts(&counts, weight);
        let mut best = leaf;
        for &f in &self.allowed {
            let one = self.data.item_mask(item(f, true));
            let mut ones = [0u64; FEW];
            let sides = rows.iter().zip(one).map(|(r, m)| r & m);
            self.class_counts_of(sides, &mut ones[..n_classes]);
            let n_ones: u64 = ones.iter().sum();
            if n_ones == 0 || n_ones == n_rows {
                continue; // a side without rows
            }
            let zeros = std::array::from_fn(|c| counts[c] - ones[c]);
            let cost = self.leaf_of_counts(&zeros, weight).0 + self.leaf_of_counts(&ones, weight).0;
            best = best.min(cost);
        }
        Solved {
            cost: best,
            leaf,
            class,
        }
    }

    /// [`Rashomon::optimum`], with the leaf over `rows`.
    fn solved(&mut self, rows: &[u64], depth: u32) -> Solved {
        if depth == 0 && self.counted().is_some() {
            // a leaf of rows of one weight: its class counts take less than a look-up
            let (leaf, class) = self.leaf(rows);
            return Solved {
                cost: leaf,
                leaf,
                class,
            };
        }
        if let Some(solved) = with_key(rows, depth, |key| self.kept.optimum(key)) {
            return solved;
        }
        if let (1, Some(weight), true) = (depth, self.counted(), self.earlier.is_empty()) {
            let solved = self.depth_one(rows, weight);
            if self.budget.check().is_none() {
                self.kept.keep_optimum(key(rows, depth), solved);
                self.kept.count(self.key_bytes() + 24, self.max_bytes);
            }
            return solved;
        }
        let (leaf, class) = self.leaf(rows);
        let mut best = leaf;
        if depth > 0 {
            for at in 0..self.allowed.len() {
                if self.budget.check().is_some() {
                    return Solved {
                        cost: best,
                        leaf,
                        class,
                    };
                }
                if let Some(cost) = self.split_optimum(rows, depth, self.allowed[at]) {
                    best = best.min(cost);
                }
            }
        }
        let solved = Solved {
            cost: best,
            leaf,
            class,
        };
        if self.budget.stopped().is_some() {
            return solved; // a child's answer was cut short: not the optimum
        }
        self.kept.keep_optimum(key(rows, depth), solved);
        self.kept.count(self.key_bytes() + 24, self.max_bytes);
        solved
    }

    /// The least cost of a tree over `rows` of depth at most `depth` (at least 1) splitting
    /// on `feature` first; `None` when the split leaves a side empty.
    fn split_optimum(&mut self, rows: &[u64], depth: u32, feature: u32) -> Option<f64> {
        let (left, right) = self.split(rows, feature)?;
        Some(self.optimum(&left, depth - 1) + self.optimum(&right, depth - 1))
    }

    /// The two sides of the split of `rows` (of depth at most `depth`, at least 1) on
    /// `feature`, with their optima, when both hold rows and the cheapest tree under the
    /// split costs at most `bound`: the only splits a tree of the set can start with.
    fn split_within(
        &mut self,
        rows: &[u64],
        depth: u32,
        feature: u32,
        bound: f64,
    ) -> Option<(Rows, Rows, Solved, Solved)> {
        let (left, right) = self.split(rows, feature)?;
        let (solved_left, solved_right) = (
            self.solved(&left, depth - 1),
            self.solved(&right, depth - 1),
        );
        (solved_left.cost + solved_right.cost <= bound + self.tolerance).then_some((
            left,
            right,
            solved_left,
            solved_right,
        ))
    }

    /// The costs of every tree of depth at most `depth` over `rows` costing at most `bound`,
    /// with their counts, and maybe more (see [`Rashomon::within`]); `None` when the budget
    /// ran out.
    fn histogram(&mut self, rows: &[u64], depth: u32, bound: f64) -> Option<Histogram> {
        if let Some((covered, histogram)) = with_key(rows, depth, |key| self.kept.histogram(key)) {
            if covered >= bound {
                return Some(histogram);
            }
        }
        if self.budget.check().is_some() {
            return None;
        }
        let bound = self.widened(rows, depth, bound);
        let mut costs = Vec::new();
        let leaf = self.leaf(rows).0;
        if leaf <= bound + self.tolerance {
            costs.push((leaf, 1u128));
        }
        if depth > 0 {
            for at in 0..self.allowed.len() {
                self.split_histogram(rows, depth, self.allowed[at], bound, &mut costs)?;
            }
        }
        let histogram = Arc::new(merged(costs));
        let bytes = self.key_bytes() + 32 * histogram.len();
        self.kept
            .keep_histogram(key(rows, depth), bound, histogram.clone());
        self.kept.count(bytes, self.max_bytes);
        Some(histogram)
    }

    /// The entries of `histogram` that cost at most `bound`.
    fn within<'h>(&self, histogram: &'h [(f64, u128)], bound: f64) -> &'h [(f64, u128)] {
        &histogram[..histogram.partition_point(|&(c, _)| c <= bound + self.tolerance)]
    }

    /// Appends to `costs` the costs, with their counts, of the trees over `rows` of depth at
    /// most `depth` (at least 1) splitting on `feature` first and costing at most `bound`;
    /// `None` when the budget ran out.
    fn split_histogram(
        &mut self,
        rows: &[u64],
        depth: u32,
        feature: u32,
        bound: f64,
        costs: &mut Vec<(f64, u128)>,
    ) -> Option<()> {
        let Some((left, right, solved_left, solved_right)) =
            self.split_within(rows, depth, feature, bound)
        else {
            return Some(());
        };
        let (low_left, low_right) = (solved_left.cost, solved_right.cost);
        // the pair of two leaves is one of the pairs of their costs' buckets
        let trivial = self.trivial_pair(solved_left, solved_right);
        if depth == 1 {
            // two leaves: one tree, unless it is a trivial split left out
            if trivial.is_none() {
                costs.push((low_left + low_right, 1));
            }
            return Some(());
        }
        let lefts = self.histogram(&left, depth - 1, bound - low_right)?;
        let rights = self.histogram(&right, depth - 1, bound - low_left)?;
        let rights = self.within(&rights, bound - low_left);
        for &(cost, count) in self.within(&lefts, bound - low_right) {
            for &(other, times) in rights {
                if cost + other > bound + self.tolerance {
                    break;
                }
                let pairs = count.saturating_mul(times);
                let pairs = match trivial {
                    Some(leaves) if leaves == (cost, other) => pairs - 1,
                    _ => pairs,
                };
                if pairs > 0 {
                    costs.push((cost + other, pairs));
                }
            }
        }
        Some(())
    }

    /// The set of trees of depth at most `depth` costing at most `(1 + epsilon)` times the
    /// optimum, counted, and listed cheapest first (at most `max_trees` of them).
    ///
    /// The budget is reached in steps, each counted and listed in full: the optimum, then,
    /// under a time limit, 1/16, 1/8, 1/4 and 1/2 of the room above it, then all of it. When
    /// the time runs out (or an interrupt comes) the last completed step is returned: the
    /// cheapest trees of the set, in cost order.
    pub fn search(
        &mut self,
        depth: u32,
        epsilon: f64,
        max_trees: Option<usize>,
    ) -> Result<RashomonSet> {
        if !(epsilon.is_finite() && epsilon >= 0.0) {
            return Err(OdtError::InvalidParameter(format!(
                "epsilon must be finite and at least 0, got {epsilon}"
            )));
        }
        let root = self.all_rows();
        let mut forks = self.forks(depth);
        let optimum = self.root_optimum(&mut forks, &root, depth);
        let room = epsilon * optimum.abs();
        let mut found = RashomonSet {
            optimum,
            bound: optimum,
            count: 0,
            trees: ListedTrees::default(),
            stopped: None,
            wipes: 0,
        };
        if self.budget.stopped().is_some() {
            found.stopped = self.budget.stopped();
            return Ok(found); // no proven optimum: an empty set, the empty prefix of the order
        }
        let steps: &[f64] = if self.budget.deadline().is_some() {
            &[0.0, 1.0 / 16.0, 0.125, 0.25, 0.5, 1.0]
        } else {
            &[0.0, 1.0]
        };
        for &share in steps {
            let bound = optimum + share * room;
            if share > 0.0 && room == 0.0 {
                break;
            }
            let histogram = self
                .widen(&mut forks, &root, depth, bound)
                .and_then(|()| self.root_histogram(&mut forks, &root, depth, bound));
            let Some(histogram) = histogram else {
                found.stopped = self.budget.stopped();
                found.wipes = self.kept.wipes();
                return Ok(found);
            };
            let count = histogram
                .iter()
                .fold(0u128, |n, &(_, k)| n.saturating_add(k));
            // the cheapest `max_trees`: every tree up to the cost where they are reached
            let upto = match max_trees {
                Some(most) => {
                    let mut seen = 0u128;
                    let at = histogram.iter().position(|&(_, k)| {
                        seen = seen.saturating_add(k);
                        seen >= most as u128
                    });
                    at.map_or(bound, |at| histogram[at].0)
                }
                None => bound,
            };
            if upto < bound {
                let _ = self.widen(&mut forks, &root, depth, upto);
            }
            let arenas = self.root_trees(&mut forks, &root, depth, upto);
            if self.budget.stopped().is_some() {
                found.stopped = self.budget.stopped();
                found.wipes = self.kept.wipes();
                return Ok(found);
            }
            let trees = ListedTrees::sorted(
                &arenas,
                max_trees.unwrap_or(usize::MAX),
                self.data.n_features(),
                self.data.n_classes(),
            );
            found = RashomonSet {
                optimum,
                bound,
                count,
                trees,
                stopped: None,
                wipes: self.kept.wipes(),
            };
        }
        Ok(found)
    }
}

/// `costs` sorted, with the counts of equal costs added up.
fn merged(mut costs: Vec<(f64, u128)>) -> Vec<(f64, u128)> {
    costs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let mut merged: Vec<(f64, u128)> = Vec::with_capacity(costs.len());
    for (cost, count) in costs {
        match merged.last_mut() {
            Some(last) if last.0 == cost => last.1 = last.1.saturating_add(count),
            _ => merged.push((cost, count)),
        }
    }
    merged
}

/// The number of rows in a bitset.
fn count_rows(rows: &[u64]) -> u32 {
    rows.iter().map(|w| w.count_ones()).sum()
}

/// The rows of a bitset, ascending.
fn rows_of(rows: &[u64]) -> impl Iterator<Item = usize> + '_ {
    rows.iter().enumerate().flat_map(|(w, &word)| {
        let mut bits = word;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let row = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                row
            })
        })
    })
}
