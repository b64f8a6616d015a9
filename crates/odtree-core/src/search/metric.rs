//! F1-score and balanced accuracy through weighted misclassification, the exact searches'
//! fastest objective, with every bound and cache they have: over the binary features
//! ([`Solver::solve_metric`]) and over every threshold of numeric columns
//! ([`continuous::solve_metric`](crate::continuous::solve_metric)).
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
//! that line (the search's upper bound). The scores rise strictly, so the searches end; the
//! last finds no tree under its bound, which proves the best tree optimal.
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

/// What one weighted search found: its tree, the tree's false positives and negatives, and
/// how the search ended (`Infeasible`: no tree under its upper bound).
pub(crate) struct Weighted<T> {
    pub found: T,
    pub fp: f64,
    pub fn_: f64,
    pub status: Status,
}

impl<T> Weighted<T> {
    /// What a search found: `found`, ended with `status`, its tree's `(fp, fn_)`.
    pub fn new(found: T, status: Status, (fp, fn_): (f64, f64)) -> Self {
        Self {
            found,
            fp,
            fn_,
            status,
        }
    }
}

/// The best tree of the searches for a metric.
pub(crate) struct Maximised<T> {
    /// The tree (`None`: no search found one better than the `start` it was given).
    pub found: Option<T>,
    /// The last search's tree, when it was not kept.
    pub last: Option<T>,
    /// Its metric.
    pub value: f64,
    /// `Optimal` when proven (or, without a tree, when proven that none beats `start`:
    /// then `Infeasible`), else how the last search stopped.
    pub status: Status,
    /// (seconds, loss, bound) of each better tree, then the end.
    pub progress: Vec<[f64; 3]>,
}

/// Finds the tree of greatest `metric` for the class weights `[negatives, positives]` by
/// the weighted searches `search(fp_cost, fn_cost, upper_bound, budget)` (costs at most 1),
/// trees that score more than `start` only. `budget`'s feed hears the loss of each better
/// tree, after the search that found it; the searches get its time limit and interrupt.
pub(crate) fn maximise<T>(
    metric: Metric,
    [negatives, positives]: [f64; 2],
    start: Option<f64>,
    budget: &Budget,
    mut search: impl FnMut(f64, f64, f64, &Budget) -> Result<Weighted<T>>,
) -> Result<Maximised<T>> {
    let started = Instant::now();
    let searches = budget.without_feed();
    let mut best = Maximised {
        found: None,
        last: None,
        value: start.unwrap_or(f64::NEG_INFINITY),
        status: Status::Optimal,
        progress: Vec::new(),
    };
    // a better tree's loss, its bound not proven yet
    let post = |progress: &mut Vec<[f64; 3]>, loss: f64| {
        let event = [started.elapsed().as_secs_f64(), loss, 0.0];
        progress.push(event);
        budget.post(event);
    };
    let score = |fp: f64, fn_: f64| metric.value(fp, fn_, positives, negatives);
    if start.is_none() {
        // the leaves' better point, before any search, so that a watcher hears at once
        let leaf = score(negatives, 0.0).max(score(0.0, positives));
        post(&mut best.progress, 1.0 - leaf);
    }
    // below a line by more than rounding: a tree found under the bound scores more
    let slack = 1e-12 * (negatives + positives);
    let (fp_cost, fn_cost, mut bound) = match metric {
        Metric::BalancedAccuracy => {
            let cost = |total: f64| if total > 0.0 { 1.0 / total } else { 0.0 };
            let (fp, fn_) = (cost(negatives), cost(positives));
            let largest = fp.max(fn_);
            // loss (FP / N + FN / P) / 2 under `start`'s
            let bound = start.map_or(f64::INFINITY, |v| 2.0 * (1.0 - v) / largest - slack);
            (fp / largest, fn_ / largest, bound)
        }
        Metric::F1 => {
            let lambda = start.unwrap_or(1.0);
            let bound = start.map_or(f64::INFINITY, |v| f1_line(v, positives) - slack);
            (lambda / (2.0 - lambda), 1.0, bound)
        }
    };
    let mut costs = (fp_cost, fn_cost);
    loop {
        let weighted = search(costs.0, costs.1, bound, &searches)?;
        if weighted.status == Status::Infeasible {
            best.last = Some(weighted.found);
            break; // no tree scores more than the best (or than `start`)
        }
        let value = score(weighted.fp, weighted.fn_);
        let better = value > best.value;
        if better {
            best.value = value;
            best.found = Some(weighted.found);
            post(&mut best.progress, 1.0 - value);
        } else {
            best.last = Some(weighted.found);
        }
        if weighted.status != Status::Optimal {
            best.status = weighted.status;
            break;
        }
        if metric == Metric::BalancedAccuracy || !better || best.value >= 1.0 {
            break; // one search answers balanced accuracy; F1 has no better tree
        }
        let lambda = best.value;
        costs = (lambda / (2.0 - lambda), 1.0);
        bound = f1_line(lambda, positives) - slack;
    }
    if best.found.is_none() && best.status == Status::Optimal {
        best.status = Status::Infeasible; // proven: nothing scores more than `start`
    }
    let loss = 1.0 - best.value;
    let proven = if best.status == Status::Optimal {
        loss
    } else {
        0.0
    };
    best.progress
        .push([started.elapsed().as_secs_f64(), loss, proven]);
    Ok(best)
}

/// The cost, a false positive costing `λ / (2 − λ)` and a false negative 1, under which a
/// tree scores more than `λ`: `2P (1 − λ) / (2 − λ)`.
fn f1_line(lambda: f64, positives: f64) -> f64 {
    2.0 * positives * (1.0 - lambda) / (2.0 - lambda)
}

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
        let totals = self.class_totals(weights)?;
        let best = maximise(metric, totals, None, &budget, |fp, fn_, bound, budget| {
            let searched = SearchConfig {
                upper_bound: bound,
                ..config.clone()
            };
            let costs = vec![0.0, fp, fn_, 0.0];
            let mut solution =
                self.solve_objective(&searched, weights, budget.clone(), |_, _| {
                    CostMatrix::new(costs, 2)
                })?;
            let errors = relabel(&mut solution.tree);
            solution.node_losses = solution.tree.nodes().iter().map(|n| n.leaf_cost).collect();
            let status = solution.status;
            Ok(Weighted::new(solution, status, errors))
        })?;
        let loss = 1.0 - best.value;
        let solution = best.found.expect("the first search returns a tree");
        Ok(Solution {
            objective: loss,
            lower_bound: best.progress.last().map_or(0.0, |end| end[2]),
            status: best.status,
            seconds: start.elapsed().as_secs_f64(),
            progress: best.progress,
            front: Vec::new(),
            ..solution
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

/// Gives each node of `tree` its misclassified weight as its leaf cost, and each branching
/// node its majority class, as the Pareto driver's trees have (see [`relabelled`]). Returns
/// the tree's false positives and false negatives.
fn relabel(tree: &mut Tree) -> (f64, f64) {
    let mut errors = [0.0; 2];
    for node in tree.nodes_mut() {
        let (label, misclassified) =
            relabelled(node.is_leaf(), node.label, &node.stats, &mut errors);
        node.label = label;
        node.value = f64::from(label);
        node.leaf_cost = misclassified;
    }
    (errors[0], errors[1])
}

/// A node's class and misclassified weight, from its `label` and class weights `stats`
/// (negative, positive): a leaf keeps the label its costs chose and adds its errors to
/// `errors` (false positives, false negatives); a branching node takes its majority class,
/// ties to the negative one.
pub(crate) fn relabelled(
    leaf: bool,
    label: u32,
    stats: &[f64],
    errors: &mut [f64; 2],
) -> (u32, f64) {
    let [negative, positive] = [stats[0], stats[POSITIVE]];
    if !leaf {
        let label = u32::from(positive > negative);
        return (label, if label == 1 { negative } else { positive });
    }
    if label == 1 {
        errors[0] += negative;
        (label, negative)
    } else {
        errors[1] += positive;
        (label, positive)
    }
}
