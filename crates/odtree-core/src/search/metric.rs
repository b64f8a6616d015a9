//! F1-score and balanced accuracy through weighted misclassification, the exact search's
//! fastest objective, with every bound and cache it has.
//!
//! Both metrics rank trees by their (false positives, false negatives). Balanced accuracy
//! is linear in them: `1 − (FP / N + FN / P) / 2` for N negative and P positive weight, so
//! its best tree is the one of least cost with a false positive costing `1 / N` and a false
//! negative `1 / P`: one search.
//!
//! The F1-score `2 (P − FN) / (2P + FP − FN)` is a ratio, maximised by Dinkelbach's method:
//! a tree scores at least `λ` exactly when `λ FP + (2 − λ) FN ≤ 2P (1 − λ)`, so the tree of
//! least cost under the false positive cost `λ` and the false negative cost `2 − λ` scores
//! more than `λ` if any does. Starting from plain misclassification (`λ = 1`), each search
//! after the first takes the best score so far as `λ` and asks only for a tree cheaper than
//! the best tree so far costs under it (the exact search's upper bound). The scores rise
//! strictly, so the searches end; the last finds no tree under the bound, which proves the
//! best tree optimal.
//!
//! Unlike the Pareto driver (`drivers/pareto`), these searches do not find the root's whole
//! front of (false positives, false negatives); they find only its best point.

use crate::budget::Budget;
use crate::error::Result;
use crate::objective::{CostMatrix, Metric};
use crate::search::drivers::check_metric;
use crate::search::SearchConfig;
use crate::solver::{Solution, Solver, Status};
use crate::stats::Weights;
use crate::tree::Tree;
use std::time::Instant;

/// The class index of the positive class; class 0 is the negative one.
const POSITIVE: usize = 1;

impl Solver {
    /// The tree of greatest `metric` (F1-score, balanced accuracy) for two classes, class 1
    /// positive, found by searches of weighted misclassification (see the module's doc).
    /// The solution's objective is the metric's loss, 1 − metric, and its front is empty
    /// ([`Solver::solve_front`] finds the whole front). Ties between trees of the same
    /// metric go to the first tree the searches find.
    ///
    /// `budget`'s feed hears the loss of each better tree, after the search that found it;
    /// its time limit and interrupt hold across all the searches.
    pub fn solve_metric(
        &self,
        metric: Metric,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
    ) -> Result<Solution> {
        config.validate()?;
        check_metric(self.data(), config)?;
        let start = Instant::now();
        let [negatives, positives] = self.class_totals(weights)?;
        let mut best = Best::new(metric, negatives, positives, &budget, start);
        // the leaves' better point, before any search, so that a watcher hears at once
        best.offer_leaf();
        let searches = budget.without_feed();
        let proven = match metric {
            Metric::BalancedAccuracy => {
                let cost = |total: f64| if total > 0.0 { 1.0 / total } else { 0.0 };
                let (fp, fn_) = (cost(negatives), cost(positives));
                let largest = fp.max(fn_);
                let solution =
                    self.weighted(config, weights, &searches, fp / largest, fn_ / largest)?;
                best.status = solution.status;
                best.offer(solution);
                best.status == Status::Optimal
            }
            Metric::F1 => self.dinkelbach(&mut best, config, weights, &searches)?,
        };
        let mut solution = best.finish();
        if !proven {
            solution.lower_bound = 0.0;
        }
        Ok(solution)
    }

    /// The F1-score's searches, from plain misclassification on, keeping the best tree in
    /// `best`; whether it is proven optimal.
    fn dinkelbach(
        &self,
        best: &mut Best<'_>,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: &Budget,
    ) -> Result<bool> {
        // below the best tree's cost by more than rounding: a tree found under the bound
        // scores more than the best one
        let slack = 1e-12 * (best.negatives + best.positives);
        let mut lambda = 1.0_f64;
        let mut bound = f64::INFINITY;
        loop {
            let fp_cost = lambda / (2.0 - lambda); // the false negative's cost scaled to 1
            let searched = SearchConfig {
                upper_bound: bound,
                ..config.clone()
            };
            let solution = self.weighted(&searched, weights, budget, fp_cost, 1.0)?;
            let status = solution.status;
            if status == Status::Infeasible {
                return Ok(true); // no tree scores more than the best one
            }
            let better = best.offer(solution);
            if status != Status::Optimal {
                best.status = status;
                return Ok(false);
            }
            if !better || best.value >= 1.0 {
                return Ok(true);
            }
            lambda = best.value;
            let fp_cost = lambda / (2.0 - lambda);
            bound = fp_cost * best.fp + best.fn_ - slack;
        }
    }

    /// The best tree when a false positive costs `fp_cost` and a false negative `fn_cost`
    /// (each at most 1, so that the similarity bound holds).
    fn weighted(
        &self,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: &Budget,
        fp_cost: f64,
        fn_cost: f64,
    ) -> Result<Solution> {
        let costs = vec![0.0, fp_cost, fn_cost, 0.0];
        self.solve_objective(config, weights, budget.clone(), |_, _| {
            CostMatrix::new(costs, 2)
        })
    }

    /// The weight of each class among the rows of non-zero weight.
    fn class_totals(&self, weights: Option<&[f64]>) -> Result<[f64; 2]> {
        let weights = Weights::new(weights, self.data().n_rows())?;
        let mut totals = [0.0; 2];
        for (row, &label) in self.data().labels().iter().enumerate() {
            totals[label as usize] += weights.of(row);
        }
        Ok(totals)
    }
}

/// The best tree the searches have found for the metric, and how they went.
struct Best<'b> {
    metric: Metric,
    negatives: f64,
    positives: f64,
    /// The best tree's solution, its metric, and its errors.
    solution: Option<Solution>,
    value: f64,
    fp: f64,
    fn_: f64,
    /// How the last search ended, when it did not prove its tree.
    status: Status,
    /// (seconds, loss, bound) of each better tree, as posted to the feed.
    progress: Vec<[f64; 3]>,
    budget: &'b Budget,
    start: Instant,
}

impl<'b> Best<'b> {
    fn new(
        metric: Metric,
        negatives: f64,
        positives: f64,
        budget: &'b Budget,
        start: Instant,
    ) -> Self {
        Self {
            metric,
            negatives,
            positives,
            solution: None,
            value: f64::NEG_INFINITY,
            fp: 0.0,
            fn_: 0.0,
            status: Status::Optimal,
            progress: Vec::new(),
            budget,
            start,
        }
    }

    /// Posts the better of the root's two leaves (a search returns at least as good a tree).
    fn offer_leaf(&mut self) {
        let score = |fp, fn_| self.metric.value(fp, fn_, self.positives, self.negatives);
        let value = score(self.negatives, 0.0).max(score(0.0, self.positives));
        self.post(1.0 - value);
    }

    /// Keeps `solution`'s tree when it scores more than the best one; whether it does.
    fn offer(&mut self, mut solution: Solution) -> bool {
        let (fp, fn_) = relabel(&mut solution.tree);
        let value = self.metric.value(fp, fn_, self.positives, self.negatives);
        if self.solution.is_some() && value <= self.value {
            return false;
        }
        solution.node_losses = solution.tree.nodes().iter().map(|n| n.leaf_cost).collect();
        (self.value, self.fp, self.fn_) = (value, fp, fn_);
        self.solution = Some(solution);
        self.post(1.0 - value);
        true
    }

    fn post(&mut self, loss: f64) {
        let event = [self.start.elapsed().as_secs_f64(), loss, 0.0];
        self.progress.push(event);
        self.budget.post(event);
    }

    /// The best tree's solution, its objective the metric's loss.
    fn finish(self) -> Solution {
        let solution = self.solution.expect("the first search returns a tree");
        let loss = 1.0 - self.value;
        let seconds = self.start.elapsed().as_secs_f64();
        let mut progress = self.progress;
        progress.push([seconds, loss, loss]);
        Solution {
            objective: loss,
            lower_bound: loss,
            status: self.status,
            seconds,
            progress,
            front: Vec::new(),
            ..solution
        }
    }
}

/// Gives each node of `tree` its misclassified weight as its leaf cost, and each branching
/// node its majority class (ties to the negative one), as the Pareto driver's trees have;
/// the leaves keep the labels the costs chose. Returns the tree's false positives and false
/// negatives.
fn relabel(tree: &mut Tree) -> (f64, f64) {
    let (mut fp, mut fn_) = (0.0, 0.0);
    for node in tree.nodes_mut() {
        let [negative, positive] = [node.stats[0], node.stats[POSITIVE]];
        if !node.is_leaf() {
            node.label = u32::from(positive > negative);
            node.value = f64::from(node.label);
        }
        node.leaf_cost = if node.label == 1 { negative } else { positive };
        if node.is_leaf() {
            if node.label == 1 {
                fp += negative;
            } else {
                fn_ += positive;
            }
        }
    }
    (fp, fn_)
}
