//! The specialised solver for subproblems of depth at most 2 (MurTree §4.3, spec §5.4d).
//!
//! It counts the statistics of every single feature and every pair of features within the
//! cover once, derives the four cells of each pair by subtraction, and picks the best root and
//! the best child splits from those counts alone, without creating any cache entry.
//!
//! Two-class data with unit weights and a minority-class leaf cost takes a faster path: pair
//! counts kept up to date incrementally ([`Counters`]), and a branch-free scan of each root's
//! row of counts in integers; the children's features are recovered for the winners only.

mod pairs;
pub(crate) mod pinball;
mod rows;
mod two_class;

use super::counts::Counters;
use super::sums::{KeptSums, SumCounters};
use super::Cost;
use crate::budget::Budget;
use crate::cover::Cover;
use crate::data::Dataset;
use crate::objective::{Leaf, Objective};
use crate::stats::{Statistics, Weights};
use crate::subproblem::Decision;
use rows::RowCosts;

/// Reusable buffers of the depth-2 solver.
#[derive(Debug, Default)]
pub(crate) struct Depth2<C> {
    /// `gathered[i * n_words + k]`: the cover's k-th non-zero word restricted to candidate i.
    gathered: Vec<u64>,
    /// `classes[k * n_classes + c]`: class masks of the cover's k-th non-zero word.
    classes: Vec<u64>,
    /// Candidate i restricted to each class, for one i at a time.
    by_class: Vec<u64>,
    /// Leaf costs of each root's left / right child.
    leaves: Vec<(f64, f64)>,
    /// Best subtree of each root's left / right child: (cost, split feature's position among
    /// the candidates).
    best_left: Vec<(C, Option<u32>)>,
    best_right: Vec<(C, Option<u32>)>,
    /// Each feature's position among the candidates (kept-sums path only).
    position: Vec<u32>,
    /// Statistics of the pairs (weighted path only), `[(i * n + j) * len]`, and their row counts.
    pair_stats: Vec<f64>,
    pair_rows: Vec<u32>,
    /// Per-row candidate lists (weighted path only).
    present: Vec<u32>,
    /// Four cells and one pair of statistics.
    cells: Vec<f64>,
    pair: Vec<f64>,
    /// The leaf costs of one root's row of pairs (kept-sums path only).
    row_costs: RowCosts,
    /// The objective of each child's best split so far, by feature number: left children,
    /// then right ones (kept-sums path only).
    mirror: Vec<f64>,
    /// The children each pair of a root's row may improve (kept-sums path only).
    marks: Vec<u8>,
    /// Pair counts of the two-class path, built on first use.
    counters: Option<Counters>,
    /// Pair sums of the weighted path, kept across nodes, built on first use.
    sums: Option<SumCounters>,
    /// The pinball path's node, its rows in the order of their targets.
    ranked: pinball::RankedNode,
    /// Single-feature counts (rows, class-1 rows) of the two-class path.
    singles: Vec<(i32, i32)>,
    /// Fewest errors of each root's left / right child when it splits (two-class path).
    split_errors: Vec<(i32, i32)>,
}

/// The largest number of features for which the two-class path keeps its pair counts.
const MAX_COUNTED_FEATURES: usize = 4096;

/// Bytes of pair statistics above which the weighted path counts pairs one root at a time
/// (memory linear in the candidates) instead of all at once (quadratic).
const PAIR_TABLE_BYTES: usize = 64 << 20;

/// What the depth-2 solver needs to know about the node.
pub(crate) struct Node<'a> {
    pub cover: &'a Cover,
    /// Candidate features (valid splits of the node), in branching order.
    pub candidates: &'a [u32],
    /// `singles[f * len..]`: statistics of the rows of the node where feature f is 1.
    pub singles: &'a [f64],
    /// Statistics of the rows where feature f is 0, the same way, when they are not additive
    /// (empty otherwise).
    pub negatives: &'a [f64],
    /// Row counts matching `singles`.
    pub single_rows: &'a [u32],
    pub stats: &'a [f64],
    pub rows: u32,
    pub leaf: Leaf,
}

/// Limits shared by every cell.
pub(crate) struct Rules<'a, O> {
    pub data: &'a Dataset,
    pub weights: &'a Weights,
    pub objective: &'a O,
    pub statistics: Statistics<'a>,
    pub min_samples_leaf: u32,
    /// A child of the root splits only if it holds at least this many rows.
    pub min_samples_split: u32,
    /// Each leaf weighs at least this much (0: no limit).
    pub min_leaf_weight: f64,
    pub tolerance: f64,
    /// Whether pair counts may be updated by row differences.
    pub incremental: bool,
    /// Whether each leaf cost may take long (a Python callback): the budget is then read
    /// before each, instead of every few steps.
    pub costly: bool,
}

/// The best subtrees with one, two and three branching nodes (`[0]`, `[1]`, `[2]`), each with
/// its cost; a smaller tree replaces a larger one that is no better (MurTree §4.3).
pub(crate) type Trees<C> = [(C, Decision); 3];

/// Keeps the smaller tree where a larger one is no better.
fn prefer_smaller<C: Cost>(trees: &mut Trees<C>, tolerance: f64) {
    for k in 1..3 {
        if !trees[k].0.below(trees[k - 1].0, tolerance) {
            trees[k] = trees[k - 1];
        }
    }
}

/// At most how many bytes the pair counts of `n_features` features take: the two-class
/// path's two count sets, or the weighted path's kept sums or table of statistics of
/// `n_stats` numbers per pair while they are small enough (a search uses one of them).
pub(crate) fn pair_bytes(n_features: usize, n_stats: usize) -> usize {
    let pairs = n_features * n_features;
    let counted = if n_features <= MAX_COUNTED_FEATURES {
        2 * 2 * pairs * std::mem::size_of::<i32>()
    } else {
        0
    };
    let table = if pairs * n_stats * std::mem::size_of::<f64>() <= PAIR_TABLE_BYTES {
        pairs * (n_stats * std::mem::size_of::<f64>() + std::mem::size_of::<u32>())
    } else {
        0
    };
    let kept = SumCounters::bytes(n_features, n_stats);
    let kept = if kept <= PAIR_TABLE_BYTES { kept } else { 0 };
    counted.max(table).max(kept)
}

/// The trees of a node whose solve the budget cut short: the leaf, for every node limit (a
/// valid tree, which the engine does not record as proven).
fn leaves_only<C: Cost>(node: &Node) -> Trees<C> {
    [(C::leaf(node.leaf.cost), Decision::Leaf); 3]
}

impl<C: Cost> Depth2<C> {
    /// Whether the pair statistics of `len` numbers are kept across nodes: the weighted
    /// path's statistics (not the popcounts of uniformly weighted classes), while the sums of
    /// every pair of features are small enough.
    pub fn keeps_sums<O: Objective>(rules: &Rules<O>, len: usize) -> bool {
        let popcounts =
            matches!(rules.statistics, Statistics::Classes(_)) && rules.weights.uniform().is_some();
        rules.statistics.additive()
            && !popcounts
            && SumCounters::bytes(rules.data.n_features(), len) <= PAIR_TABLE_BYTES
    }

    /// The kept pair sums (see [`keeps_sums`](Self::keeps_sums)) moved to the rows of
    /// `cover`; their diagonal holds each feature's statistics. `None` if the budget ran out.
    pub fn kept_sums<O: Objective>(
        &mut self,
        rules: &Rules<O>,
        cover: &Cover,
        len: usize,
        budget: &mut Budget,
    ) -> Option<KeptSums<'_>> {
        let statistics = rules.statistics;
        let counters = self
            .sums
            .get_or_insert_with(|| SumCounters::new(rules.data, len, rules.incremental));
        counters.sum(
            cover,
            |row, out| {
                statistics.of_row(row, out);
            },
            budget,
        )
    }

    /// The optimal subtrees of depth ≤ `depth_left` (1 or 2) with at most 1, 2 and 3
    /// branching nodes. The budget is checked as the counting goes; when it runs out, the
    /// trees returned are leaves (the caller sees the stop in `budget`).
    pub fn solve<O: Objective>(
        &mut self,
        rules: &Rules<O>,
        node: &Node,
        depth_left: u32,
        budget: &mut Budget,
    ) -> Trees<C> {
        if depth_left >= 2 && node.candidates.len() >= 2 && rules.data.n_classes() == 2 {
            if let (Some(weight), Some(per_leaf)) = (
                rules.weights.uniform(),
                rules.objective.two_class_minority(),
            ) {
                if rules.data.n_features() <= MAX_COUNTED_FEATURES {
                    return self.solve_two_class(rules, node, weight, per_leaf, budget);
                }
            }
        }
        let len = node.stats.len();
        let n = node.candidates.len();
        self.leaves.clear();
        self.best_left.clear();
        self.best_right.clear();
        self.cells.resize(4 * len, 0.0);
        let additive = rules.statistics.additive();
        for &f in node.candidates {
            if rules.costly && budget.exhausted(true) {
                return leaves_only(node);
            }
            let f = f as usize;
            let single = &node.singles[f * len..(f + 1) * len];
            let rest = if additive {
                let rest = &mut self.cells[..len];
                rest.iter_mut()
                    .zip(node.stats.iter().zip(single))
                    .for_each(|(r, (s, p))| *r = s - p);
                &self.cells[..len]
            } else {
                &node.negatives[f * len..(f + 1) * len]
            };
            let costs = (
                rules.objective.leaf_cost(rest),
                rules.objective.leaf_cost(single),
            );
            self.leaves.push(costs);
            self.best_left.push((C::leaf(costs.0), None));
            self.best_right.push((C::leaf(costs.1), None));
        }
        if depth_left >= 2 && n >= 2 {
            let complete = match (rules.statistics, rules.weights.uniform()) {
                (Statistics::Classes(_), Some(weight)) => {
                    self.count_pairs_uniform(rules, node, weight, budget)
                }
                (statistics, _) if !additive => match statistics.pinball() {
                    Some((pinball, weights)) => {
                        self.pinball_pairs(rules, node, pinball, weights, budget)
                    }
                    // the engine calls this solver with no other statistics
                    None => false,
                },
                (statistics, _) => self.count_pairs(rules, node, budget, |row, out| {
                    statistics.of_row(row, out);
                }),
            };
            if !complete {
                return leaves_only(node);
            }
        }
        self.combine(node.leaf.cost, node.candidates, rules.tolerance)
    }

    /// The best trees of a node whose leaf costs `leaf` and whose candidates' leaves and
    /// children's best splits are known (`leaves`, `best_left`, `best_right`).
    fn combine(&self, leaf: f64, candidates: &[u32], tol: f64) -> Trees<C> {
        let leaf = (C::leaf(leaf), Decision::Leaf);
        let mut trees = [leaf; 3];
        let mut relax = |slot: usize, cost: C, feature: u32, left, right| {
            if cost.below(trees[slot].0, tol) {
                trees[slot] = (
                    cost,
                    Decision::Terminal {
                        feature,
                        left,
                        right,
                    },
                );
            }
        };
        for (i, &feature) in candidates.iter().enumerate() {
            let (leaf_left, leaf_right) = (C::leaf(self.leaves[i].0), C::leaf(self.leaves[i].1));
            let feature_of =
                |(cost, at): (C, Option<u32>)| (cost, at.map(|at| candidates[at as usize]));
            let (left, right) = (
                feature_of(self.best_left[i]),
                feature_of(self.best_right[i]),
            );
            relax(0, leaf_left + leaf_right, feature, None, None);
            if !(leaf_left + right.0).below(left.0 + leaf_right, 0.0) {
                relax(1, left.0 + leaf_right, feature, left.1, None);
            } else {
                relax(1, leaf_left + right.0, feature, None, right.1);
            }
            relax(2, left.0 + right.0, feature, left.1, right.1);
        }
        prefer_smaller(&mut trees, tol);
        trees
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::item;
    use crate::objective::SquaredError;
    use proptest::prelude::*;

    /// A depth-2 problem over all rows of a dataset: the node's cover and singles.
    struct Parts {
        cover: Cover,
        candidates: Vec<u32>,
        singles: Vec<f64>,
        single_rows: Vec<u32>,
        stats: Vec<f64>,
    }

    impl Parts {
        fn new(data: &Dataset, weights: &Weights, objective: &SquaredError) -> Self {
            let statistics = objective.statistics(data, weights);
            let cover = Cover::new(weights.support());
            let (n, len) = (data.n_features(), statistics.len());
            let mut singles = vec![0.0; n * len];
            let mut single_rows = vec![0; n];
            for f in 0..n {
                let mask = data.item_mask(item(f as u32, true));
                single_rows[f] =
                    statistics.count(&cover, Some(mask), &mut singles[f * len..(f + 1) * len]);
            }
            let mut stats = vec![0.0; len];
            statistics.count(&cover, None, &mut stats);
            let candidates = (0..n as u32).collect();
            Self {
                cover,
                candidates,
                singles,
                single_rows,
                stats,
            }
        }

        fn node(&self, objective: &SquaredError) -> Node<'_> {
            Node {
                cover: &self.cover,
                candidates: &self.candidates,
                singles: &self.singles,
                negatives: &[],
                single_rows: &self.single_rows,
                stats: &self.stats,
                rows: self.cover.count(),
                leaf: objective.leaf(&self.stats),
            }
        }
    }

    fn rules<'a>(
        data: &'a Dataset,
        weights: &'a Weights,
        objective: &'a SquaredError,
    ) -> Rules<'a, SquaredError> {
        Rules {
            data,
            weights,
            objective,
            statistics: objective.statistics(data, weights),
            min_samples_leaf: 1,
            min_samples_split: 2,
            min_leaf_weight: 0.0,
            tolerance: 0.0,
            incremental: false,
            costly: false,
        }
    }

    proptest! {
        #[test]
        fn pairs_by_root_match_pairs_by_row(
            x in prop::collection::vec(0u8..=1, 90 * 5),
            targets in prop::collection::vec(-5.0f64..5.0, 90),
            w in prop::collection::vec(0.0f64..2.0, 90),
        ) {
            let data = Dataset::new(&x, 90, &[0; 90], 1).unwrap();
            prop_assume!(w.iter().any(|&v| v > 0.0));
            let weights = Weights::new(Some(&w), 90).unwrap();
            let objective = SquaredError::new(&targets, &weights).unwrap();
            let parts = Parts::new(&data, &weights, &objective);
            let node = parts.node(&objective);
            let rules = rules(&data, &weights, &objective);
            let Statistics::Sums(vectors) = rules.statistics else { unreachable!() };
            let contribution = |row: usize, out: &mut [f64]| out.copy_from_slice(vectors.of(row));
            let mut solvers = [Depth2::<f64>::default(), Depth2::<f64>::default()];
            for solver in &mut solvers {
                solver.cells.resize(4 * parts.stats.len(), 0.0);
                solver.best_left = vec![(f64::INFINITY, None); parts.candidates.len()];
                solver.best_right = vec![(f64::INFINITY, None); parts.candidates.len()];
            }
            let mut budget = Budget::default();
            prop_assert!(solvers[0].count_pairs_by_row(&rules, &node, &mut budget, contribution));
            prop_assert!(solvers[1].count_pairs_by_root(&rules, &node, &mut budget, contribution));
            for (a, b) in solvers[0].best_left.iter().zip(&solvers[1].best_left)
                .chain(solvers[0].best_right.iter().zip(&solvers[1].best_right))
            {
                prop_assert!((a.0 - b.0).abs() <= 1e-9 * (1.0 + a.0.abs()), "{:?} {:?}", a, b);
            }
        }
    }

    /// A problem: features (row-major), labels, targets, weights (`None`: unit weights) and
    /// the number of classes.
    type Problem = (Vec<u8>, Vec<u32>, Vec<f64>, Option<Vec<f64>>, usize);

    /// A random problem too large for the brute force.
    fn problems() -> impl Strategy<Value = Problem> {
        (20usize..=300, 2usize..=14, 2usize..=4, any::<bool>()).prop_flat_map(
            |(n_rows, n_features, n_classes, weighted)| {
                let weights = if weighted {
                    prop::collection::vec(
                        prop_oneof![Just(0.0), 0.25f64..4.0, (1u32..4).prop_map(f64::from)],
                        n_rows,
                    )
                    .prop_map(Some)
                    .boxed()
                } else {
                    Just(None).boxed()
                };
                (
                    // features of varied density, so that some splits are lopsided
                    prop::collection::vec(0u8..=3, n_rows * n_features)
                        .prop_map(|x| x.into_iter().map(|v| (v == 0) as u8).collect()),
                    prop::collection::vec(0u32..n_classes as u32, n_rows),
                    prop::collection::vec(-20.0f64..20.0, n_rows),
                    weights,
                    Just(n_classes),
                )
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// On problems of every size the brute force cannot reach, the depth-2 solver and the
        /// general search (each child solved on its own) agree on every subproblem of depth
        /// ≤ 2, under every node limit and least leaf weight, for class counts, squared error
        /// and pinball losses.
        #[test]
        fn the_depth2_solver_matches_the_general_search(
            (x, y, targets, weights, n_classes) in problems(),
            depth in 1u32..=2,
            max_nodes in prop_oneof![Just(None), (1u32..=3).prop_map(Some)],
            min_samples_leaf in 1u32..=4,
            min_leaf_weight in prop_oneof![Just(0.0), 0.5f64..6.0],
        ) {
            use crate::search::SearchConfig;
            use crate::solver::{Solver, Status};
            use crate::task::Task;
            let n_rows = y.len();
            prop_assume!(weights.as_ref().is_none_or(|w| w.iter().any(|&w| w > 0.0)));
            let data = Dataset::new(&x, n_rows, &y, n_classes).unwrap();
            let solver = Solver::new(data);
            let tasks = [
                Task::Misclassification,
                Task::SquaredError(targets.clone()),
                Task::AbsoluteError(targets.clone()),
                Task::Quantile { targets: targets.clone(), quantile: 0.8 },
            ];
            for task in tasks {
                let objectives: Vec<f64> = [true, false]
                    .into_iter()
                    .map(|depth2_solver| {
                        let config = SearchConfig {
                            max_depth: depth,
                            max_nodes,
                            min_samples_leaf,
                            min_leaf_weight,
                            depth2_solver,
                            ..SearchConfig::default()
                        };
                        let solutions = solver
                            .solve_task(task.clone(), &config, weights.as_deref(), Budget::default())
                            .unwrap();
                        assert_eq!(solutions[0].status, Status::Optimal);
                        solutions[0].objective
                    })
                    .collect();
                prop_assert!((objectives[0] - objectives[1]).abs() <= 1e-9 * (1.0 + objectives[1].abs()),
                    "{:?}: depth-2 solver {} against the general search {}", task, objectives[0], objectives[1]);
            }
        }
    }

    #[test]
    fn a_spent_budget_returns_leaves() {
        let x: Vec<u8> = (0..64 * 4)
            .map(|i| ((i * 7 + i / 5) % 3 == 0) as u8)
            .collect();
        let targets: Vec<f64> = (0..64).map(|i| (i % 5) as f64).collect();
        let data = Dataset::new(&x, 64, &[0; 64], 1).unwrap();
        let weights = Weights::new(None, 64).unwrap();
        let objective = SquaredError::new(&targets, &weights).unwrap();
        let parts = Parts::new(&data, &weights, &objective);
        let node = parts.node(&objective);
        let rules = rules(&data, &weights, &objective);
        let mut solver = Depth2::<f64>::default();
        let solved = solver.solve(&rules, &node, 2, &mut Budget::default());
        assert!(solved[2].0 < node.leaf.cost, "the data has a useful split");
        let mut spent = Budget::new(Some(std::time::Duration::ZERO), None);
        let cut = solver.solve(&rules, &node, 2, &mut spent);
        assert!(spent.stopped().is_some());
        assert!(cut
            .iter()
            .all(|&(cost, decision)| cost == node.leaf.cost && decision == Decision::Leaf));
    }
}
