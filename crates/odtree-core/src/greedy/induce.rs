//! Top-down induction: the learner's settings and the loop that grows a tree on a set of
//! allowed features.

use super::gain::{NLogN, NodeCounts};
use super::scan::{ColumnBest, Scanner};
use super::table::Table;
use super::tree::{GreedyNode, GreedyTree, Split};
use super::weights::{Unweighted, Weighing, Weighted};
use crate::budget::Budget;
use crate::error::{OdtError, Result};

/// The score that ranks the columns' best tests at a node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Criterion {
    /// Information gain (ID3; C4.5's `-g`).
    InformationGain,
    /// Gain ratio: information gain divided by the entropy of the branch sizes (C4.5's
    /// default), without C4.5's filter "gain at least the average" (see the module docs).
    #[default]
    GainRatio,
}

impl Criterion {
    /// The names accepted by [`Criterion::from_name`].
    pub const NAMES: [&'static str; 2] = ["entropy", "gain_ratio"];

    /// The criterion named `"entropy"` (information gain) or `"gain_ratio"`.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "entropy" => Ok(Criterion::InformationGain),
            "gain_ratio" => Ok(Criterion::GainRatio),
            _ => Err(OdtError::InvalidParameter(format!(
                "criterion must be one of {:?}, got {name:?}",
                Self::NAMES
            ))),
        }
    }

    /// The score of a column's best test (larger is better).
    fn score(self, best: &ColumnBest) -> f64 {
        match self {
            Criterion::InformationGain => best.gain.gain as f64,
            Criterion::GainRatio => best.gain.ratio(),
        }
    }
}

/// Settings of the greedy learner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GreedyConfig {
    /// What ranks the columns at a node.
    pub criterion: Criterion,
    /// A test is allowed only if both of its branches hold at least this many rows (C4.5's
    /// `-m`); at least 1. Rows are counted whatever their weights (rows of weight zero are
    /// left out), so that the admissible tests do not depend on the scale of the weights.
    pub min_cases: usize,
    /// Nodes at this depth become leaves; `None`: no limit.
    pub max_depth: Option<usize>,
    /// A column takes part only if its best test gains at least this many bits per row (per
    /// unit of weight, on a weighted table); 0 allows every test, even one that gains nothing.
    pub min_gain: f64,
    /// A test is allowed only if both of its branches weigh at least this much (the rows'
    /// weights summed, one per row without weights; scikit-learn's `min_weight_fraction_leaf`
    /// times the total weight); 0: no limit.
    pub min_leaf_weight: f64,
}

impl Default for GreedyConfig {
    fn default() -> Self {
        Self {
            criterion: Criterion::default(),
            min_cases: 2,
            max_depth: None,
            min_gain: 0.0,
            min_leaf_weight: 0.0,
        }
    }
}

/// A greedy tree learner over one table; build as many trees as wanted, each on its own set
/// of allowed features.
pub struct GreedyLearner<'a> {
    table: &'a Table,
    config: GreedyConfig,
    nlogn: NLogN,
}

/// Where a subtree is grown from: its rows, its depth, and the budget it grows within.
struct Start<'b> {
    rows: Vec<u32>,
    depth: usize,
    budget: &'b mut Budget,
}

/// A node waiting to be grown: its rows, depth, and the parent slot that will point to it.
struct Pending {
    rows: Vec<u32>,
    depth: usize,
    parent: Option<(usize, usize)>,
}

impl<'a> GreedyLearner<'a> {
    /// The learner of `table` with `config`, checked.
    pub fn new(table: &'a Table, config: GreedyConfig) -> Result<Self> {
        if config.min_cases == 0 {
            return Err(OdtError::InvalidParameter(
                "min_cases must be at least 1".into(),
            ));
        }
        if !(config.min_leaf_weight >= 0.0 && config.min_leaf_weight.is_finite()) {
            return Err(OdtError::InvalidParameter(format!(
                "min_leaf_weight must be a finite number >= 0, got {}",
                config.min_leaf_weight
            )));
        }
        if !(config.min_gain >= 0.0 && config.min_gain.is_finite()) {
            return Err(OdtError::InvalidParameter(format!(
                "min_gain must be a finite number >= 0, got {}",
                config.min_gain
            )));
        }
        // counts above the number of rows occur only with weights, whose terms are computed
        let largest_count = match table.row_weights() {
            Some(weights) => table.n_rows().min(weights.total() as usize),
            None => table.n_rows(),
        };
        Ok(Self {
            table,
            config,
            nlogn: NLogN::new(largest_count),
        })
    }

    /// The rows that the root holds: all of them, but those of weight zero.
    fn root_rows(&self) -> Vec<u32> {
        let rows = 0..self.table.n_rows() as u32;
        match self.table.row_weights() {
            Some(weights) => rows
                .filter(|&row| weights.units()[row as usize] > 0)
                .collect(),
            None => rows.collect(),
        }
    }

    /// The tree `DT(allowed)`: grown top-down on the whole table, splitting only on the
    /// features in `allowed` (any order, repeats ignored). An empty set gives a single leaf.
    /// Rows of weight zero take no part.
    pub fn build(&self, allowed: &[usize]) -> Result<GreedyTree> {
        self.build_within(allowed, &mut Budget::default())
    }

    /// [`Self::build`] within `budget`: once it is spent, the nodes not yet grown stay
    /// leaves, and `budget.stopped()` says why (the tree is then the part grown so far,
    /// depth first).
    pub fn build_within(&self, allowed: &[usize], budget: &mut Budget) -> Result<GreedyTree> {
        let allowed = self.checked(allowed)?;
        Ok(GreedyTree::from_nodes(self.grow(
            &allowed,
            self.root_rows(),
            0,
            budget,
        )))
    }

    /// The tree `DT(allowed)` from `tree = DT(allowed ∪ {removed})`, rebuilding only the
    /// subtrees under the top-most nodes that test `removed` (spec A.7, Property 3): every
    /// other node sees the same rows and keeps its best test, which is still allowed.
    /// `removed` must not be in `allowed`, and `tree` must come from this learner.
    pub fn build_without(
        &self,
        tree: &GreedyTree,
        allowed: &[usize],
        removed: usize,
    ) -> Result<GreedyTree> {
        let allowed = self.checked(allowed)?;
        if allowed.binary_search(&removed).is_ok() {
            return Err(OdtError::InvalidParameter(format!(
                "removed feature {removed} is still allowed"
            )));
        }
        let mut nodes = Vec::with_capacity(tree.nodes().len());
        let rows = self.root_rows();
        self.copy_without(tree, 0, rows, 0, &allowed, removed, &mut nodes);
        Ok(GreedyTree::from_nodes(nodes))
    }

    /// Appends to `out`, in pre-order, node `id` of `tree` with its subtree, whose rows are
    /// `rows` at `depth`; a node testing `removed` is replaced by a subtree grown anew.
    #[allow(clippy::too_many_arguments)]
    fn copy_without(
        &self,
        tree: &GreedyTree,
        id: usize,
        rows: Vec<u32>,
        depth: usize,
        allowed: &[usize],
        removed: usize,
        out: &mut Vec<GreedyNode>,
    ) {
        let node = &tree.nodes()[id];
        let Some(split) = &node.split else {
            out.push(node.clone());
            return;
        };
        if split.test.feature() == removed {
            let offset = out.len();
            out.extend(
                self.grow(allowed, rows, depth, &mut Budget::default())
                    .into_iter()
                    .map(|mut grown| {
                        if let Some(split) = grown.split.as_mut() {
                            split.children = split.children.map(|child| child + offset);
                        }
                        grown
                    }),
            );
            return;
        }
        let copy = out.len();
        out.push(node.clone());
        let (test, children) = (split.test, split.children);
        let (holds, fails): (Vec<u32>, Vec<u32>) = rows
            .into_iter()
            .partition(|&row| test.holds(self.table, row as usize));
        for (branch, rows) in [holds, fails].into_iter().enumerate() {
            let child = out.len();
            if let Some(split) = out[copy].split.as_mut() {
                split.children[branch] = child;
            }
            self.copy_without(
                tree,
                children[branch],
                rows,
                depth + 1,
                allowed,
                removed,
                out,
            );
        }
    }

    /// `allowed` sorted without repeats, after checking that every feature exists.
    fn checked(&self, allowed: &[usize]) -> Result<Vec<usize>> {
        let n_features = self.table.n_features();
        if let Some(&feature) = allowed.iter().find(|&&f| f >= n_features) {
            return Err(OdtError::InvalidParameter(format!(
                "allowed feature {feature} is not in 0..{n_features}"
            )));
        }
        let mut allowed = allowed.to_vec();
        allowed.sort_unstable();
        allowed.dedup();
        Ok(allowed)
    }

    /// The subtree grown on `rows` at `depth` with the sorted `allowed` features, its nodes
    /// in pre-order and numbered from 0.
    fn grow(
        &self,
        allowed: &[usize],
        rows: Vec<u32>,
        depth: usize,
        budget: &mut Budget,
    ) -> Vec<GreedyNode> {
        let at = Start {
            rows,
            depth,
            budget,
        };
        match self.table.row_weights() {
            None => self.grow_with(Unweighted, allowed, at, |units| units as f64),
            Some(weights) => self.grow_with(Weighted::new(weights.units()), allowed, at, |units| {
                weights.value(units)
            }),
        }
    }

    /// [`Self::grow`], the rows counted by `weighing`; `weight_of` turns units into weights.
    fn grow_with<W: Weighing>(
        &self,
        weighing: W,
        allowed: &[usize],
        at: Start,
        weight_of: impl Fn(u64) -> f64,
    ) -> Vec<GreedyNode> {
        let Start {
            rows,
            depth,
            budget,
        } = at;
        let n_classes = self.table.n_classes();
        let min_units = least_units(self.config.min_leaf_weight, &weight_of);
        let mut scanner = Scanner::new(&self.nlogn, self.config.min_cases, n_classes, weighing)
            .with_min_units(min_units);
        let mut nodes: Vec<GreedyNode> = Vec::new();
        let mut class_units = vec![0; n_classes]; // reused from node to node
        let mut stack = vec![Pending {
            rows,
            depth,
            parent: None,
        }];
        // depth first, the first child before the second: the nodes come out in pre-order
        while let Some(pending) = stack.pop() {
            let id = nodes.len();
            if let Some((parent, branch)) = pending.parent {
                if let Some(split) = nodes[parent].split.as_mut() {
                    split.children[branch] = id;
                }
            }
            let mut class_counts = vec![0; n_classes];
            class_units.fill(0);
            for &row in &pending.rows {
                let class = self.table.labels()[row as usize] as usize;
                class_counts[class] += 1;
                class_units[class] += weighing.units_of(row);
            }
            let node = NodeCounts::new::<W>(&self.nlogn, &class_units, pending.rows.len());
            // a node reached, or left unfinished, once the budget is spent stays a leaf
            let best = self.best_split(allowed, &pending, &node, &mut scanner, budget);
            let (n_rows, total) = (pending.rows.len(), node.total());
            let class_weights = class_units.iter().map(|&units| weight_of(units)).collect();
            let Some(best) = best else {
                nodes.push(GreedyNode {
                    class_counts,
                    class_weights,
                    n_rows,
                    split: None,
                });
                continue;
            };
            let (holds, fails): (Vec<u32>, Vec<u32>) = pending
                .rows
                .iter()
                .partition(|&&row| best.test.holds(self.table, row as usize));
            nodes.push(GreedyNode {
                class_counts,
                class_weights,
                n_rows,
                split: Some(Split {
                    test: best.test,
                    gain: best.gain.bits(total),
                    children: [0, 0],
                }),
            });
            for (branch, rows) in [(1, fails), (0, holds)] {
                stack.push(Pending {
                    rows,
                    depth: pending.depth + 1,
                    parent: Some((id, branch)),
                });
            }
        }
        nodes
    }

    /// The split of a node (`pending`, of class counts `node`), or `None` to make it a leaf:
    /// pure, too small for two branches of `min_cases` rows, at the depth limit, or with no
    /// allowed test, or once `budget` is spent: it is read before each column, so that a
    /// Ctrl-C or the time limit never waits for the scan of every column of a large node.
    /// Columns are scanned by increasing index and replaced only by a strictly better score,
    /// so ties go to the lowest index.
    fn best_split<W: Weighing>(
        &self,
        allowed: &[usize],
        pending: &Pending,
        node: &NodeCounts,
        scanner: &mut Scanner<W>,
        budget: &mut Budget,
    ) -> Option<ColumnBest> {
        let n_rows = pending.rows.len();
        // every row counts at least one unit, so one class holding all units holds all rows
        let pure = node.counts().contains(&node.total());
        let too_deep = self.config.max_depth.is_some_and(|d| pending.depth >= d);
        if pure || too_deep || n_rows < 2 * self.config.min_cases || !scanner.may_split(node) {
            return None;
        }
        let columns = self.table.columns();
        let labels = self.table.labels();
        let mut best: Option<(f64, ColumnBest)> = None;
        for &feature in allowed {
            if budget.check_now().is_some() {
                return None;
            }
            let Some(candidate) =
                scanner.best(feature, &columns[feature], labels, &pending.rows, node)
            else {
                continue;
            };
            if candidate.gain.bits(node.total()) < self.config.min_gain {
                continue;
            }
            let score = self.config.criterion.score(&candidate);
            if best.as_ref().is_none_or(|(top, _)| score > *top) {
                best = Some((score, candidate));
            }
        }
        best.map(|(_, candidate)| candidate)
    }
}

/// The fewest units that weigh at least `least` (within rounding noise) by `weight_of`, which
/// grows with the units; 0 when `least` is 0.
fn least_units(least: f64, weight_of: impl Fn(u64) -> f64) -> u64 {
    if least <= 0.0 {
        return 0;
    }
    let target = least * (1.0 - 1e-12);
    // beyond every total weight (2^53 units)
    let (mut low, mut high) = (0u64, 1u64 << 54);
    while low < high {
        let middle = low + (high - low) / 2;
        if weight_of(middle) >= target {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    low
}
