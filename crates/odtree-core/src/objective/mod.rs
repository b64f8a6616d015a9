//! Objectives: what a leaf costs and what it predicts, and which search techniques they allow.
//!
//! An objective defines the [`Statistics`] the search keeps for every node, and costs a leaf
//! from its statistics alone. The search minimises the sum of leaf costs. Each objective lives
//! in its own module; `docs/guide.md` ("Adding an objective") walks through writing one.

mod centroid;
mod cost_matrix;
mod metric;
mod misclassification;
mod pinball;
mod quantiles;
mod rows;
mod squared_error;

pub use centroid::CentroidDistance;
pub use cost_matrix::CostMatrix;
pub use metric::Metric;
pub use misclassification::Misclassification;
pub use pinball::Pinball;
pub use quantiles::{QuantileLane, QuantileSet};
pub use rows::ByRows;
pub use squared_error::{check_targets, SquaredError};

use crate::data::Dataset;
use crate::stats::{Statistics, Weights};

/// The cost of turning a set of rows into a leaf, and the leaf's prediction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leaf {
    /// The leaf's contribution to the objective.
    pub cost: f64,
    /// The predicted class index (0 where the task has no classes).
    pub label: u32,
}

/// Search techniques an objective allows; the engine switches off the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// The specialised depth-2 solver (needs additive statistics and leaf costs).
    pub depth2: bool,
    /// The similarity lower bound (needs costs that drop by at most the weight removed, or,
    /// for a pinball loss, by at most each removed row's loss at the farthest target).
    pub similarity_bound: bool,
    /// Ordering candidate splits by information gain (needs class statistics).
    pub gain_order: bool,
    /// The equal-rows bound: rows with the same features share a leaf in every tree, and a
    /// leaf costs at least what the groups of equal rows in it cost as leaves of their own
    /// (true of a least, over the leaf's predictions, of a sum of per-row losses).
    pub equal_rows: bool,
}

/// An objective that is a sum of leaf costs, each a function of the leaf's rows.
pub trait Objective: Sync {
    /// The statistics the search computes for every node of `data` weighted by `weights`.
    fn statistics<'a>(&'a self, data: &'a Dataset, weights: &'a Weights) -> Statistics<'a>;
    /// The cost and label of a leaf with these statistics.
    fn leaf(&self, stats: &[f64]) -> Leaf;
    /// The cost alone; objectives override it when the label is costly to settle.
    #[inline]
    fn leaf_cost(&self, stats: &[f64]) -> f64 {
        self.leaf(stats).cost
    }
    /// The leaf's prediction as a number: its class index, unless the objective predicts a
    /// value (a regression target).
    fn leaf_value(&self, stats: &[f64]) -> f64 {
        f64::from(self.leaf(stats).label)
    }
    /// The cost and label of a leaf with these statistics that must predict class `label`
    /// (a monotonicity constraint's restriction); `None` where the objective cannot restrict
    /// its leaves' predictions.
    fn forced_leaf(&self, stats: &[f64], label: u32) -> Option<Leaf> {
        let _ = (stats, label);
        None
    }
    /// Techniques this objective allows.
    fn capabilities(&self) -> Capabilities;
    /// The size of the numbers this objective's costs are computed from, for the rows whose
    /// statistics are `root`: rounding noise in a cost is a tiny fraction of it, so the search
    /// treats costs closer than 1e-9 of it as equal. Costs in the same units as the weights
    /// use the total weight; the default is the cost of the leaf of all rows.
    fn cost_scale(&self, root: &[f64]) -> f64 {
        self.leaf_cost(root)
    }
    /// Whether one leaf cost may take long (a Python callback): the search then reads the
    /// clock before each, so that it stops on time.
    fn costly(&self) -> bool {
        false
    }
    /// Bytes this objective holds besides its data, such as a callback's remembered results;
    /// a memory limit counts them.
    fn held_bytes(&self) -> usize {
        0
    }
    /// Frees what [`held_bytes`](Self::held_bytes) counts (results that can be computed
    /// again), when the memory limit needs room.
    fn release(&self) {}
    /// The least cost of any leaf: a fixed penalty per leaf, as leaf costs are never
    /// negative. Every tree then costs at least this per leaf, which bounds its size.
    fn least_leaf(&self) -> f64 {
        0.0
    }
    /// `Some(c)` when, for two classes, a leaf with class weights `[a, b]` costs
    /// `min(a, b) + c`: the depth-2 solver then works on integer counts.
    fn two_class_minority(&self) -> Option<f64> {
        None
    }
}

/// An objective with a fixed cost added per leaf: the sparse objective of MurTree §4.8.3 and
/// scikit-learn's cost-complexity pruning, in objective units.
#[derive(Clone, Debug)]
pub struct Penalised<O> {
    inner: O,
    per_leaf: f64,
}

impl<O> Penalised<O> {
    /// `inner` plus `per_leaf` for every leaf.
    pub fn new(inner: O, per_leaf: f64) -> Self {
        Self { inner, per_leaf }
    }
}

impl<O: Objective> Objective for Penalised<O> {
    fn statistics<'a>(&'a self, data: &'a Dataset, weights: &'a Weights) -> Statistics<'a> {
        self.inner.statistics(data, weights)
    }

    #[inline]
    fn leaf(&self, class_weights: &[f64]) -> Leaf {
        let leaf = self.inner.leaf(class_weights);
        Leaf {
            cost: leaf.cost + self.per_leaf,
            ..leaf
        }
    }

    #[inline]
    fn leaf_cost(&self, class_weights: &[f64]) -> f64 {
        self.inner.leaf_cost(class_weights) + self.per_leaf
    }

    fn forced_leaf(&self, stats: &[f64], label: u32) -> Option<Leaf> {
        let leaf = self.inner.forced_leaf(stats, label)?;
        Some(Leaf {
            cost: leaf.cost + self.per_leaf,
            ..leaf
        })
    }

    /// A fixed cost per leaf keeps every technique valid: the similarity bound compares trees
    /// of the same shape, whose penalties are equal.
    fn leaf_value(&self, stats: &[f64]) -> f64 {
        self.inner.leaf_value(stats)
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn least_leaf(&self) -> f64 {
        self.inner.least_leaf() + self.per_leaf
    }

    fn two_class_minority(&self) -> Option<f64> {
        self.inner.two_class_minority().map(|c| c + self.per_leaf)
    }

    fn cost_scale(&self, root: &[f64]) -> f64 {
        self.inner.cost_scale(root) + self.per_leaf
    }

    fn costly(&self) -> bool {
        self.inner.costly()
    }

    fn held_bytes(&self) -> usize {
        self.inner.held_bytes()
    }

    fn release(&self) {
        self.inner.release()
    }
}
