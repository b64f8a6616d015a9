//! F1-score and balanced accuracy over every threshold: weighted misclassification searches
//! of the exact search, as `search/metric.rs` runs them over binary features.

use super::loss::ClassLoss;
use super::rows::NumericData;
use super::{solve, ContinuousConfig, NumericNode, NumericSolution};
use crate::budget::Budget;
use crate::error::{OdtError, Result};
use crate::objective::Metric;
use crate::search::metric::{maximise, relabelled, Weighted};
use std::time::Instant;

/// The tree of greatest `metric` over every threshold of `data`'s columns, for two classes
/// (`labels` 0 and 1, class 1 positive) and one weight per row, within `config`'s limits.
/// `config.upper_bound`, when finite, is a loss (1 − metric) some tree reaches: only trees
/// of smaller loss are searched for, and the status is `Infeasible` (the tree a leaf) when
/// none has one. The solution's objective is the loss of its tree; ties between trees of
/// the same metric go to the first the searches find. Takes no leaf penalty.
pub fn solve_metric(
    data: &NumericData,
    labels: &[u32],
    weights: &[f64],
    metric: Metric,
    config: &ContinuousConfig,
    budget: Budget,
) -> Result<NumericSolution> {
    if config.leaf_penalty != 0.0 {
        return Err(OdtError::InvalidParameter(
            "F1-score and balanced accuracy take no leaf penalty".into(),
        ));
    }
    if labels.len() != weights.len() || labels.iter().any(|&l| l > 1) {
        return Err(OdtError::InvalidData(
            "F1-score and balanced accuracy need one label, 0 or 1, per row".into(),
        ));
    }
    let started = Instant::now();
    let mut totals = [0.0; 2];
    for (&label, &weight) in labels.iter().zip(weights) {
        totals[label as usize] += weight;
    }
    let start = config
        .upper_bound
        .is_finite()
        .then_some(1.0 - config.upper_bound);
    let best = maximise(metric, totals, start, &budget, |fp, fn_, bound, budget| {
        let costs = vec![0.0, fp, fn_, 0.0];
        let loss = ClassLoss::new(labels.to_vec(), weights.to_vec(), 2, Some(costs));
        let searched = ContinuousConfig {
            upper_bound: bound,
            ..config.clone()
        };
        let mut solution = solve(data, &loss, &searched, budget.clone());
        let errors = relabel(&mut solution.nodes);
        let status = solution.status;
        Ok(Weighted::new(solution, status, errors))
    })?;
    let mut solution = (best.found.or(best.last)).expect("the searches return a tree");
    solution.objective = 1.0 - best.value;
    solution.lower_bound = best.progress.last().map_or(0.0, |end| end[2]);
    solution.status = best.status;
    solution.seconds = started.elapsed().as_secs_f64();
    Ok(solution)
}

/// Gives each node its misclassified weight as its loss, and each branching node its
/// majority class (see [`relabelled`]). Returns the tree's false positives and false
/// negatives.
fn relabel(nodes: &mut [NumericNode]) -> (f64, f64) {
    let mut errors = [0.0; 2];
    for node in nodes {
        let leaf = node.column.is_none();
        let (label, misclassified) = relabelled(leaf, node.label as u32, &node.stats, &mut errors);
        node.label = label as usize;
        node.value = f64::from(label);
        node.loss = misclassified;
    }
    (errors[0], errors[1])
}
