//! Several quantile trees in one search (thesis §8.2.2).
//!
//! The search walks the lattice of paths once for all quantiles. Each node keeps, per
//! quantile, a lower bound and the optimal split once known; a leaf's losses for every
//! quantile come from one ordered pass over its targets. A node is asked, per quantile, for a
//! subtree cheaper than that quantile's upper bound, and a split is abandoned only when its
//! first child is too costly for every quantile still open: pruning happens only where every
//! quantile allows. The result is one optimal tree per quantile.
//!
//! This search keys its cache by path and has no memory limit, node limit or depth-2 solver
//! (quantile losses need the rows, so that solver never applies).

use super::SearchConfig;
use crate::budget::{Budget, Stop};
use crate::cover::Cover;
use crate::data::{item, item_feature, Dataset, Item};
use crate::objective::{ByRows, Objective, Pinball};
use crate::stats::Weights;
use crate::tree::{Tree, TreeBuilder};
use std::collections::HashMap;

/// What a node is known to cost for one quantile.
#[derive(Clone, Copy, Debug, Default)]
struct Known {
    lower_bound: f64,
    /// The optimal cost and split (`None`: a leaf), once solved.
    solution: Option<(f64, Option<u32>)>,
}

/// The answer of a node for one quantile.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    /// The optimal cost (possibly above the bound asked).
    Solved(f64),
    /// No subtree costs less than the bound.
    Infeasible,
}

/// One search for every quantile of `quantiles`.
pub(crate) struct QuantileSearch<'a> {
    data: &'a Dataset,
    weights: &'a Weights,
    config: &'a SearchConfig,
    quantiles: &'a [f64],
    losses: Pinball,
    cover: Cover,
    path: Vec<Item>,
    on_path: Vec<bool>,
    cache: HashMap<Vec<Item>, Vec<Known>>,
    tolerance: f64,
    budget: Budget,
}

/// The trees and how the search ended.
pub(crate) struct QuantileTrees {
    /// One tree per quantile, in order.
    pub trees: Vec<Tree>,
    /// Proven lower bounds on each quantile's optimum.
    pub lower_bounds: Vec<f64>,
    /// Nodes the search cached.
    pub nodes: usize,
    /// Why the search stopped early, if it did.
    pub stopped: Option<Stop>,
}

impl<'a> QuantileSearch<'a> {
    /// A search of `data` weighted by `weights` for the pinball losses of `targets`.
    pub fn new(
        data: &'a Dataset,
        weights: &'a Weights,
        config: &'a SearchConfig,
        targets: &[f64],
        quantiles: &'a [f64],
        budget: Budget,
    ) -> Self {
        Self {
            data,
            weights,
            config,
            quantiles,
            losses: Pinball::new(targets, 0.5, 1.0),
            cover: Cover::new(weights.support()),
            path: Vec::new(),
            on_path: vec![false; data.n_features()],
            cache: HashMap::new(),
            tolerance: 0.0,
            budget,
        }
    }

    /// Solves every quantile and extracts its tree.
    pub fn run(mut self) -> QuantileTrees {
        // the root's leaf costs set the scale of rounding noise (as in the engine)
        let (_, leaf, _) = self.leaves();
        self.tolerance = 1e-9 * leaf.iter().copied().fold(0.0, f64::max);
        let depth = self.config.max_depth.min(self.data.n_features() as u32);
        let unbounded = vec![f64::INFINITY; self.quantiles.len()];
        self.solve(depth, &unbounded);
        let root = self.cache.get(&self.path).cloned().unwrap_or_default();
        let stopped = self.budget.stopped();
        let trees: Vec<Tree> = (0..self.quantiles.len())
            .map(|q| self.extract(q, depth))
            .collect();
        let lower_bounds = trees
            .iter()
            .zip(&root)
            .map(|(tree, known)| match stopped {
                None => tree.cost(),
                Some(_) => known.lower_bound,
            })
            .collect();
        QuantileTrees {
            trees,
            lower_bounds,
            nodes: self.cache.len(),
            stopped,
        }
    }

    /// The weight of the current node's rows, each quantile's leaf cost (penalty included)
    /// and each quantile's leaf value.
    fn leaves(&self) -> (f64, Vec<f64>, Vec<f64>) {
        let rows = self.cover.rows();
        let mut losses = vec![0.0; self.quantiles.len()];
        let mut values = vec![0.0; self.quantiles.len()];
        let weight = self.losses.losses(
            self.quantiles,
            &rows,
            self.weights,
            &mut losses,
            &mut values,
        );
        losses
            .iter_mut()
            .for_each(|l| *l += self.config.leaf_penalty);
        (weight, losses, values)
    }

    fn below(&self, a: f64, b: f64) -> bool {
        a < b - self.tolerance
    }

    fn push(&mut self, test: Item) {
        let at = self.path.partition_point(|&x| x < test);
        self.path.insert(at, test);
        self.on_path[item_feature(test) as usize] = true;
        self.cover.intersect(self.data.item_mask(test));
    }

    fn pop(&mut self, test: Item) {
        let at = self.path.partition_point(|&x| x < test);
        self.path.remove(at);
        self.on_path[item_feature(test) as usize] = false;
        self.cover.backtrack();
    }

    /// Solves the current node with `depth` tests left, per quantile under `ub` (exclusive).
    fn solve(&mut self, depth: u32, ub: &[f64]) -> Vec<Outcome> {
        let n_q = self.quantiles.len();
        let mut known = self
            .cache
            .get(&self.path)
            .cloned()
            .unwrap_or_else(|| vec![Known::default(); n_q]);
        let mut out: Vec<Outcome> = known
            .iter()
            .map(|k| match k.solution {
                Some((cost, _)) => Outcome::Solved(cost),
                None => Outcome::Infeasible,
            })
            .collect();
        let open: Vec<usize> = (0..n_q)
            .filter(|&q| known[q].solution.is_none() && self.below(known[q].lower_bound, ub[q]))
            .collect();
        if open.is_empty() {
            return out;
        }
        let (_, leaf, _) = self.leaves();
        let rows = self.cover.count();
        let min_rows = self.config.min_samples_leaf;
        if depth == 0 || rows < 2 * min_rows || self.budget.check().is_some() {
            for &q in &open {
                known[q].solution = Some((leaf[q], None));
                out[q] = Outcome::Solved(leaf[q]);
            }
            self.cache.insert(self.path.clone(), known);
            return out;
        }
        // the leaf is every open quantile's first incumbent
        let mut best: Vec<Option<(f64, Option<u32>)>> = vec![None; n_q];
        let mut bound = vec![f64::NEG_INFINITY; n_q];
        for &q in &open {
            bound[q] = ub[q];
            if self.below(leaf[q], ub[q]) {
                best[q] = Some((leaf[q], None));
                bound[q] = leaf[q];
            }
        }
        for f in 0..self.data.n_features() as u32 {
            if self.on_path[f as usize] {
                continue;
            }
            let positive = self.cover.count_within(self.data.item_mask(item(f, true)));
            if positive < min_rows || rows - positive < min_rows {
                continue;
            }
            let first = self.child(item(f, false), depth - 1, &bound);
            let second_ub: Vec<f64> = (0..n_q)
                .map(|q| match first[q] {
                    Outcome::Solved(cost) if self.below(cost, bound[q]) => bound[q] - cost,
                    _ => f64::NEG_INFINITY,
                })
                .collect();
            // the split is abandoned only when its first child rules it out for every quantile
            if second_ub.iter().all(|&u| u == f64::NEG_INFINITY) {
                continue;
            }
            let second = self.child(item(f, true), depth - 1, &second_ub);
            for q in 0..n_q {
                if let (Outcome::Solved(a), Outcome::Solved(b)) = (first[q], second[q]) {
                    if second_ub[q] > f64::NEG_INFINITY && self.below(a + b, bound[q]) {
                        best[q] = Some((a + b, Some(f)));
                        bound[q] = a + b;
                    }
                }
            }
            if self.budget.stopped().is_some() {
                break;
            }
        }
        for &q in &open {
            match best[q] {
                Some((cost, split)) => {
                    known[q].solution = Some((cost, split));
                    out[q] = Outcome::Solved(cost);
                }
                None => {
                    if self.budget.stopped().is_none() {
                        known[q].lower_bound = known[q].lower_bound.max(ub[q]);
                    }
                    out[q] = Outcome::Infeasible;
                }
            }
        }
        self.cache.insert(self.path.clone(), known);
        out
    }

    fn child(&mut self, test: Item, depth: u32, ub: &[f64]) -> Vec<Outcome> {
        self.push(test);
        let outcome = self.solve(depth, ub);
        self.pop(test);
        outcome
    }

    /// Quantile `q`'s best tree, rebuilt from the cache (a node never solved is a leaf).
    fn extract(&mut self, q: usize, depth: u32) -> Tree {
        let objective = ByRows::new(Pinball::new(&[], self.quantiles[q], 1.0));
        let statistics = objective.statistics(self.data, self.weights);
        let mut builder = TreeBuilder::new(&objective, statistics);
        self.extract_node(&mut builder, q, depth);
        builder.finish()
    }

    fn extract_node(&mut self, builder: &mut TreeBuilder<ByRows<Pinball>>, q: usize, depth: u32) {
        let (weight, leaf, value) = self.leaves();
        let stats = [weight, leaf[q], value[q]];
        let rows = self.cover.count();
        let split = self
            .cache
            .get(&self.path)
            .and_then(|known| known[q].solution)
            .and_then(|(_, split)| split)
            .filter(|_| depth > 0);
        let Some(feature) = split else {
            builder.leaf(&stats, rows);
            return;
        };
        let node = builder.open(feature, &stats, rows);
        let mut kids = [0; 2];
        for (value, kid) in [false, true].into_iter().zip(&mut kids) {
            *kid = builder.len();
            self.push(item(feature, value));
            self.extract_node(builder, q, depth - 1);
            self.pop(item(feature, value));
        }
        builder.close(node, kids);
    }
}
