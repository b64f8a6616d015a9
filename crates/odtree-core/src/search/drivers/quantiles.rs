//! Several quantile trees in one search (thesis §8.2.2): a driver of the kernel over a vector
//! of costs, one per quantile.
//!
//! The driver walks the lattice depth first once for all quantiles. Each quantile is a lane of
//! the store: every lane of a node is its own subproblem, with its own bounds and best tree. A
//! node is asked, per lane, for a subtree cheaper than that lane's upper bound, and a split is
//! abandoned only when it is ruled out in every lane still open, so pruning happens only where
//! every quantile allows. Node limits divide a split's branching nodes between its children as
//! the depth-first driver does; subproblems of depth ≤ 2 go to the depth-2 solver. Under
//! a memory limit the driver tells the store what it can still reach (its stack, the children
//! it is trying, each lane's best trees), and after the search it solves again the parts of the
//! best trees that were wiped anyway.

use super::{check_costs, proven_bound, Driver, Inputs, SearchOutcome};
use crate::budget::Budget;
use crate::cache::{Handle, KeyIndex};
use crate::data::{item, Dataset, Item};
use crate::error::{OdtError, Result};
use crate::objective::{check_targets, Objective, QuantileLane, QuantileSet};
use crate::search::kernel::depth2::{pinball::QuantilePairs, Rules};
use crate::search::kernel::{Kernel, Level, Outcome};
use crate::search::memory::{self, Reach, Resolve, Spared, REPAIR_ROUNDS};
use crate::search::SearchConfig;
use crate::stats::Weights;
use crate::subproblem::{Decision, Limits};
use crate::tree::TreeBuilder;
use std::ops::{Deref, DerefMut};

/// The driver of one tree per quantile of `quantiles`, each in (0, 1), for the pinball loss
/// of `targets`, under the same limits as a search of one quantile (but for the
/// lexicographic order).
pub(crate) struct QuantilesDriver<'t> {
    /// One target per row.
    pub targets: &'t [f64],
    /// The quantiles, one lane each, in order.
    pub quantiles: &'t [f64],
}

impl Driver for QuantilesDriver<'_> {
    type Objectives = QuantileSet;

    fn check(&self, data: &Dataset, config: &SearchConfig) -> Result<()> {
        let invalid = |what: &str| Err(OdtError::InvalidParameter(what.into()));
        let quantiles = self.quantiles;
        if quantiles.is_empty() || quantiles.iter().any(|q| !(*q > 0.0 && *q < 1.0)) {
            return invalid("quantiles must be in (0, 1), at least one");
        }
        if quantiles.len() > u32::MAX as usize {
            return invalid("too many quantiles");
        }
        check_targets(self.targets, data.n_rows())?;
        if config.lexicographic {
            return invalid("several quantiles are solved without the lexicographic order");
        }
        if config.is_monotonic() {
            return invalid("quantile trees take no monotonic constraints");
        }
        Ok(())
    }

    fn objectives(
        &mut self,
        data: &Dataset,
        weights: &Weights,
        config: &SearchConfig,
    ) -> Result<QuantileSet> {
        let set = QuantileSet::new(self.targets, self.quantiles);
        for lane in 0..self.quantiles.len() {
            check_costs(
                &QuantileLane::new(&set, lane, config.leaf_penalty),
                data,
                weights,
            )?;
        }
        Ok(set)
    }

    fn search<I: KeyIndex>(&self, set: &QuantileSet, inputs: Inputs<'_>) -> Vec<SearchOutcome> {
        let Inputs {
            data,
            weights,
            config,
            budget,
        } = inputs;
        // the first lane orders the candidate splits
        let first = QuantileLane::new(set, 0, config.leaf_penalty);
        Quantiles::<I>::new(data, weights, set, &first, config, budget).run()
    }
}

/// A node on the recursion stack, as the wipe needs to know it.
#[derive(Clone, Debug)]
struct Frame {
    handle: Handle,
    limits: Limits,
    /// Length of the trail at this node.
    depth: usize,
    /// The feature whose children are being solved.
    feature: Option<u32>,
    /// Each lane's best split so far.
    best: Vec<Option<Decision>>,
}

/// Per lane: what the node asks of a child (an exclusive upper bound; `-∞`: nothing).
type Bounds = Vec<f64>;

/// The multi-quantile driver.
struct Quantiles<'a, I: KeyIndex> {
    kernel: Kernel<'a, I, QuantileLane<'a>, f64>,
    set: &'a QuantileSet,
    /// Each lane's rounding tolerance (relative to its own root leaf cost).
    tolerances: Vec<f64>,
    pairs: QuantilePairs,
    frames: Vec<Frame>,
    root_limits: Limits,
    repaired: usize,
}

impl<'a, I: KeyIndex> Deref for Quantiles<'a, I> {
    type Target = Kernel<'a, I, QuantileLane<'a>, f64>;
    fn deref(&self) -> &Self::Target {
        &self.kernel
    }
}

impl<I: KeyIndex> DerefMut for Quantiles<'_, I> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.kernel
    }
}

impl<'a, I: KeyIndex> Quantiles<'a, I> {
    /// Prepares a search of `data` weighted by `weights` for every quantile of `set`; `first`
    /// is the objective of lane 0, which orders the candidate splits.
    pub fn new(
        data: &'a Dataset,
        weights: &'a Weights,
        set: &'a QuantileSet,
        first: &'a QuantileLane<'a>,
        config: &'a SearchConfig,
        budget: Budget,
    ) -> Self {
        let mut kernel = Kernel::new(data, weights, first, config, budget);
        kernel.lanes = set.quantiles().len();
        if config.memory.is_bounded() && config.depth2_solver {
            kernel.working_bytes += QuantilePairs::bytes(data, set.quantiles().len());
        }
        Self {
            kernel,
            set,
            tolerances: Vec::new(),
            pairs: QuantilePairs::default(),
            frames: Vec::new(),
            root_limits: Limits::normalised(0, 0),
            repaired: 0,
        }
    }

    fn lanes(&self) -> usize {
        self.set.quantiles().len()
    }

    /// `a < b` in `lane`, beyond rounding noise.
    #[inline]
    fn below_in(&self, lane: usize, a: f64, b: f64) -> bool {
        a < b - self.tolerances[lane]
    }

    /// Each lane's leaf cost of a node with statistics `stats`.
    fn leaf_costs(&self, stats: &[f64]) -> Vec<f64> {
        let per_leaf = self.config.leaf_penalty;
        stats[1..=self.lanes()]
            .iter()
            .map(|c| c + per_leaf)
            .collect()
    }

    /// Solves every lane and extracts its tree: one outcome per quantile, in order.
    pub fn run(mut self) -> Vec<SearchOutcome> {
        let mut stats = vec![0.0; self.statistics.len()];
        let rows = self.statistics.count(&self.cover, None, &mut stats);
        let root_leaf = self.leaf_costs(&stats);
        // as in a search of one quantile: relative to its root leaf cost
        self.tolerances = root_leaf.iter().map(|c| 1e-9 * c).collect();
        self.kernel.tolerance = self.tolerances.iter().copied().fold(0.0, f64::max);
        let max_depth = self.config.max_depth.min(self.data.n_features() as u32);
        let limits = Limits::normalised(max_depth, self.config.max_nodes.unwrap_or(u32::MAX));
        self.root_limits = limits;
        let upper_bound = vec![self.config.upper_bound; self.lanes()];
        let outcomes = self.solve(limits, &upper_bound, &stats, rows);
        let infeasible: Vec<bool> = outcomes
            .iter()
            .enumerate()
            .map(|(lane, outcome)| {
                matches!(outcome, Outcome::Infeasible(_))
                    || !self.below_in(lane, outcome.bound(), upper_bound[lane])
            })
            .collect();
        if self.config.memory.is_bounded() {
            for _ in 0..REPAIR_ROUNDS {
                let repaired: usize = (0..self.lanes())
                    .filter(|&lane| !infeasible[lane])
                    .map(|lane| memory::repair(&mut self, limits.in_lane(lane as u32), &stats))
                    .sum();
                self.repaired += repaired;
                if self.budget.stopped().is_some() || repaired == 0 {
                    break;
                }
            }
        }
        let report = self.cache_report(self.repaired);
        let stopped = self.budget.stopped();
        let root = self.cache.find(self.key());
        (0..self.lanes())
            .map(|lane| {
                let objective = QuantileLane::new(self.set, lane, self.config.leaf_penalty);
                let limits = limits.in_lane(lane as u32);
                let tree = if infeasible[lane] {
                    let mut builder = TreeBuilder::new(&objective, self.statistics);
                    builder.leaf(&stats, rows);
                    builder.finish()
                } else {
                    self.extract_as(&objective, limits, &stats, rows)
                };
                let root_bound = root.map_or(0.0, |id| self.cache.known(id, limits).lower_bound);
                SearchOutcome {
                    lower_bound: proven_bound(
                        &tree,
                        infeasible[lane],
                        stopped,
                        root_bound,
                        self.config,
                    ),
                    objective: tree.cost(),
                    tree,
                    infeasible: infeasible[lane],
                    cache: report,
                    stopped,
                    progress: Vec::new(),
                    front: Vec::new(),
                }
            })
            .collect()
    }

    /// Solves the current node within `limits` (lane 0; each lane `lane` of them is asked),
    /// looking in each lane for a subtree cheaper than `ub[lane]`.
    fn solve(&mut self, limits: Limits, ub: &[f64], stats: &[f64], rows: u32) -> Vec<Outcome<f64>> {
        let leaf = self.leaf_costs(stats);
        if limits.is_leaf() || self.config.memory.is_bounded() && !memory::make_room(self) {
            return leaf.iter().map(|&c| Outcome::Solved(c, 0)).collect();
        }
        let id = self.insert_current();
        let handle = self.cache.handle(id);
        let lanes = self.lanes();
        let mut out = vec![Outcome::Infeasible(0.0); lanes];
        let mut open = vec![false; lanes];
        let mut bounds = vec![0.0; lanes];
        for lane in 0..lanes {
            let known = self.cache.known(id, limits.in_lane(lane as u32));
            if let Some((cost, decision)) = known.solution {
                out[lane] = Outcome::Solved(cost, decision.size());
            } else if !self.below_in(lane, known.lower_bound, ub[lane]) {
                out[lane] = Outcome::Infeasible(known.lower_bound);
            } else {
                open[lane] = true;
                bounds[lane] = known.lower_bound;
            }
        }
        let too_few = !self.splittable(rows);
        let stopped = open.contains(&true) && self.budget.check().is_some();
        for lane in 0..lanes {
            // a leaf no dearer than the lower bound is optimal
            if open[lane] && (too_few || stopped || !self.below_in(lane, bounds[lane], leaf[lane]))
            {
                let at = limits.in_lane(lane as u32);
                out[lane] = self.store(handle, at, leaf[lane], Decision::Leaf);
                open[lane] = false;
            }
        }
        if !open.contains(&true) {
            return out;
        }
        let depth = self.path.len();
        let mut level = std::mem::take(&mut self.levels[depth]);
        if self.config.depth2_solver && limits.depth <= 2 {
            self.valid_splits(&mut level, rows);
            self.solve_pairs(&level, id, limits, &leaf, &open, &mut out);
        } else {
            self.scan(&mut level, stats, rows);
            self.order(&mut level, stats);
            self.frames.push(Frame {
                handle,
                limits,
                depth: self.trail.len(),
                feature: None,
                best: vec![None; lanes],
            });
            let node = Node {
                handle,
                limits,
                ub,
                rows,
                leaf: &leaf,
                bounds: &bounds,
                open: &open,
            };
            self.branch(&mut level, &node, stats, &mut out);
            self.frames.pop();
        }
        self.levels[depth] = level;
        out
    }

    /// Solves the open lanes of a node of depth ≤ 2 with the depth-2 solver.
    fn solve_pairs(
        &mut self,
        level: &Level,
        id: u32,
        limits: Limits,
        leaf: &[f64],
        open: &[bool],
        out: &mut [Outcome<f64>],
    ) {
        let kernel = &mut self.kernel;
        let (data, weights, config) = (kernel.data, kernel.weights, kernel.config);
        let objectives: Vec<QuantileLane> = (0..leaf.len())
            .map(|lane| QuantileLane::new(self.set, lane, config.leaf_penalty))
            .collect();
        let rules: Vec<Rules<QuantileLane>> = (objectives.iter().zip(&self.tolerances))
            .map(|(objective, &tolerance)| Rules {
                data,
                weights,
                objective,
                statistics: objective.statistics(data, weights),
                min_samples_leaf: config.min_samples_leaf,
                min_samples_split: config.min_samples_split,
                min_leaf_weight: config.min_leaf_weight,
                tolerance,
                incremental: false,
                costly: false,
            })
            .collect();
        let trees = self.pairs.solve(
            &rules,
            self.set,
            &kernel.cover,
            &level.candidates,
            leaf,
            limits.depth,
            &mut kernel.budget,
        );
        for (lane, trees) in trees.iter().enumerate().filter(|(lane, _)| open[*lane]) {
            let (cost, decision) = trees[limits.nodes as usize - 1];
            let handle = kernel.cache.handle(id);
            out[lane] = kernel.store(handle, limits.in_lane(lane as u32), cost, decision);
        }
    }

    /// Tries every candidate split of the node and every division of its branching nodes
    /// between the children, for the open lanes.
    fn branch(&mut self, level: &mut Level, node: &Node, stats: &[f64], out: &mut [Outcome<f64>]) {
        let lanes = self.lanes();
        let len = stats.len();
        let mut bound: Bounds = (0..lanes)
            .map(|lane| {
                if node.open[lane] {
                    node.ub[lane]
                } else {
                    f64::NEG_INFINITY
                }
            })
            .collect();
        let mut best: Vec<Option<(f64, Decision)>> = vec![None; lanes];
        for lane in (0..lanes).filter(|&lane| node.open[lane]) {
            if self.below_in(lane, node.leaf[lane], bound[lane]) {
                best[lane] = Some((node.leaf[lane], Decision::Leaf));
                bound[lane] = node.leaf[lane];
            }
        }
        let limits = node.limits;
        'features: for index in 0..level.candidates.len() {
            let f = level.candidates[index];
            self.frame().feature = Some(f);
            let slot = f as usize * len..(f as usize + 1) * len;
            let positive = &level.positive[slot.clone()];
            let negative = &level.negatives[slot];
            let positive_rows = level.positive_rows[f as usize];
            let sides = [
                (item(f, false), negative, node.rows - positive_rows),
                (item(f, true), positive, positive_rows),
            ];
            for (left, right) in limits.divisions() {
                let child_limits = [left, right];
                let [first_bound, second_bound] =
                    [0, 1].map(|k| self.known_bounds(sides[k].0, child_limits[k], sides[k].1));
                let first_ub: Bounds = (0..lanes)
                    .map(|lane| {
                        let together = first_bound[lane] + second_bound[lane];
                        if self.below_in(lane, together, bound[lane]) {
                            bound[lane] - second_bound[lane]
                        } else {
                            f64::NEG_INFINITY
                        }
                    })
                    .collect();
                if first_ub.iter().all(|&u| u == f64::NEG_INFINITY) {
                    continue;
                }
                let (test, child_stats, rows) = sides[0];
                let first = self.child(test, child_limits[0], &first_ub, child_stats, rows);
                let second_ub: Bounds = (0..lanes)
                    .map(|lane| match first[lane] {
                        Outcome::Solved(cost, _)
                            if first_ub[lane] > f64::NEG_INFINITY
                                && self.below_in(lane, cost + second_bound[lane], bound[lane]) =>
                        {
                            bound[lane] - cost
                        }
                        _ => f64::NEG_INFINITY,
                    })
                    .collect();
                if second_ub.iter().any(|&u| u > f64::NEG_INFINITY) {
                    let (test, child_stats, rows) = sides[1];
                    let second = self.child(test, child_limits[1], &second_ub, child_stats, rows);
                    for lane in 0..lanes {
                        let (Outcome::Solved(a, left), Outcome::Solved(b, right)) =
                            (first[lane], second[lane])
                        else {
                            continue;
                        };
                        if second_ub[lane] > f64::NEG_INFINITY
                            && self.below_in(lane, a + b, bound[lane])
                        {
                            let split = Decision::Split {
                                feature: f,
                                left,
                                right,
                                lanes: None,
                            };
                            bound[lane] = a + b;
                            best[lane] = Some((a + b, split));
                            self.frame().best[lane] = Some(split);
                        }
                    }
                }
                if self.budget.stopped().is_some() {
                    break 'features;
                }
            }
            // every lane has met its lower bound: no split can do better
            if (0..lanes).all(|lane| !self.below_in(lane, node.bounds[lane], bound[lane])) {
                break;
            }
        }
        let id = self.current(node.handle);
        for lane in (0..lanes).filter(|&lane| node.open[lane]) {
            let at = limits.in_lane(lane as u32);
            out[lane] = match best[lane] {
                Some((cost, decision)) => self.store(node.handle, at, cost, decision),
                None => {
                    if self.budget.stopped().is_none() {
                        self.cache.raise(id, at, node.ub[lane]);
                    }
                    Outcome::Infeasible(self.cache.known(id, at).lower_bound)
                }
            };
        }
    }

    /// Solves the child reached by `test`, asking each lane for a subtree cheaper than `ub`.
    fn child(
        &mut self,
        test: Item,
        limits: Limits,
        ub: &[f64],
        stats: &[f64],
        rows: u32,
    ) -> Vec<Outcome<f64>> {
        self.push(test);
        let outcome = self.solve(limits, ub, stats, rows);
        self.pop(test);
        outcome
    }

    /// Per lane, what the store already proves about the child reached by `test` within
    /// `limits`: its cost if solved, else its lower bound (its leaf cost when only a leaf fits).
    fn known_bounds(&mut self, test: Item, limits: Limits, stats: &[f64]) -> Vec<f64> {
        if limits.is_leaf() {
            return self.leaf_costs(stats);
        }
        let id = self.find_child(test);
        (0..self.lanes())
            .map(|lane| {
                id.map_or(0.0, |id| {
                    let known = self.cache.known(id, limits.in_lane(lane as u32));
                    known.solution.map_or(known.lower_bound, |(cost, _)| cost)
                })
            })
            .collect()
    }

    /// The deepest frame; only `branch` calls this, inside the frame `solve` pushed.
    fn frame(&mut self) -> &mut Frame {
        self.frames
            .last_mut()
            .expect("branching happens inside a frame")
    }
}

/// What `branch` knows of the node it branches.
struct Node<'n> {
    handle: Handle,
    limits: Limits,
    ub: &'n [f64],
    rows: u32,
    /// Each lane's leaf cost and proven lower bound, and whether it is still to be solved.
    leaf: &'n [f64],
    bounds: &'n [f64],
    open: &'n [bool],
}

impl<I: KeyIndex> Resolve<f64> for Quantiles<'_, I> {
    fn lane_leaf(&self, limits: Limits, stats: &[f64]) -> f64 {
        self.leaf_costs(stats)[limits.lane as usize]
    }

    /// Solves the lane alone (every other lane asks for nothing).
    fn resolve(&mut self, limits: Limits, cost: f64, stats: &[f64], rows: u32) -> f64 {
        let lane = limits.lane as usize;
        let mut ub = vec![f64::NEG_INFINITY; self.lanes()];
        ub[lane] = cost + 2.0 * self.tolerances[lane];
        self.solve(limits.in_lane(0), &ub, stats, rows)[lane].bound()
    }
}

impl<I: KeyIndex> Reach for Quantiles<'_, I> {
    /// The root and each lane's best tree, and for every node on the stack: the node, both
    /// children of the split it is trying, and each lane's best split so far.
    fn protected(&self) -> Vec<u32> {
        let lanes = 0..self.lanes() as u32;
        let roots: Vec<Limits> = lanes.map(|lane| self.root_limits.in_lane(lane)).collect();
        let frames = self.frames.iter().map(|frame| Spared {
            handle: frame.handle,
            depth: frame.depth,
            feature: frame.feature,
            best: (frame.best.iter().enumerate())
                .filter_map(|(lane, best)| Some((frame.limits.in_lane(lane as u32), (*best)?)))
                .collect(),
        });
        self.protected_with(&roots, frames)
    }

    /// No tiers: wipes rank keys by the strategy's score alone.
    fn tiers(&self) -> Vec<u8> {
        Vec::new()
    }
}
