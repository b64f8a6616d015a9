//! What a solve minimises, named as in the Python API, with the data each objective needs
//! and how it is solved: the one file that names the built-in objectives (STreeD's task
//! registry).
//!
//! Bindings read an objective's name and inputs into a [`Task`], and
//! [`Solver::solve_task`] builds the objective and solves. Names are checked here, once: an
//! unknown name or a missing input is an error that says which.

use crate::budget::Budget;
use crate::error::{OdtError, Result};
use crate::objective::{
    check_targets, ByRows, CentroidDistance, CostMatrix, Metric, Pinball, SquaredError,
};
use crate::search::SearchConfig;
use crate::solver::{Solution, Solver};

/// A built-in objective and its data.
#[derive(Clone, Debug, PartialEq)]
pub enum Task {
    /// Weighted misclassification.
    Misclassification,
    /// A cost per (true, predicted) class pair, row by row.
    CostMatrix(Vec<f64>),
    /// Squared error of one target per row.
    SquaredError(Vec<f64>),
    /// Absolute error of one target per row.
    AbsoluteError(Vec<f64>),
    /// Pinball loss of one quantile.
    Quantile {
        /// One target per row.
        targets: Vec<f64>,
        /// The quantile, in (0, 1).
        quantile: f64,
    },
    /// One tree per quantile, found in one search.
    Quantiles {
        /// One target per row.
        targets: Vec<f64>,
        /// The quantiles, each in (0, 1).
        quantiles: Vec<f64>,
    },
    /// A metric of the false positives and negatives of two classes (class 1 positive),
    /// maximised through searches of weighted misclassification.
    Metric(Metric),
    /// The same metric maximised through the Pareto fronts of every subproblem, the root's
    /// whole front found too.
    Front(Metric),
    /// Distances of the points to their leaf's centroid.
    Centroid {
        /// One point per row, row after row.
        points: Vec<f64>,
        /// Coordinates per point.
        dim: usize,
    },
}

/// The inputs a caller may give with an objective's name; each objective takes what it needs.
#[derive(Clone, Debug, Default)]
pub struct TaskInputs {
    /// `cost_matrix[i * k + j]`: predicting class j for a row of class i.
    pub cost_matrix: Option<Vec<f64>>,
    /// One regression target per row.
    pub targets: Option<Vec<f64>>,
    /// The quantile of `"quantile"`.
    pub quantile: f64,
    /// The quantiles of `"quantiles"`.
    pub quantiles: Option<Vec<f64>>,
    /// Points and their dimension, for `"centroid"`.
    pub points: Option<(Vec<f64>, usize)>,
}

impl Task {
    /// The names [`Task::from_name`] knows.
    pub const NAMES: [&'static str; 11] = [
        "misclassification",
        "cost_matrix",
        "squared_error",
        "absolute_error",
        "quantile",
        "quantiles",
        "centroid",
        "f1",
        "balanced_accuracy",
        "f1_front",
        "balanced_accuracy_front",
    ];

    /// The objective called `name`, with what it needs from `inputs`.
    pub fn from_name(name: &str, inputs: TaskInputs) -> Result<Self> {
        let missing =
            |what: &str| OdtError::InvalidParameter(format!("objective {name:?} needs {what}"));
        let targets = || inputs.targets.clone().ok_or_else(|| missing("targets"));
        Ok(match name {
            "misclassification" => Task::Misclassification,
            "cost_matrix" => Task::CostMatrix(
                inputs
                    .cost_matrix
                    .clone()
                    .ok_or_else(|| missing("cost_matrix"))?,
            ),
            "squared_error" => Task::SquaredError(targets()?),
            "absolute_error" => Task::AbsoluteError(targets()?),
            "quantile" => Task::Quantile {
                targets: targets()?,
                quantile: inputs.quantile,
            },
            "quantiles" => Task::Quantiles {
                targets: targets()?,
                quantiles: inputs
                    .quantiles
                    .clone()
                    .ok_or_else(|| missing("quantiles"))?,
            },
            "centroid" => {
                let (points, dim) = inputs.points.clone().ok_or_else(|| missing("points"))?;
                Task::Centroid { points, dim }
            }
            other => {
                if let Some(metric) = Metric::from_name(other) {
                    return Ok(Task::Metric(metric));
                }
                let front = other.strip_suffix("_front").and_then(Metric::from_name);
                if let Some(metric) = front {
                    return Ok(Task::Front(metric));
                }
                return Err(OdtError::InvalidParameter(format!(
                    "unknown objective {other:?}: expected one of {}",
                    Self::NAMES.join(", ")
                )));
            }
        })
    }
}

impl Solver {
    /// Solves for the built-in objective `task`: one solution, or one per quantile for
    /// [`Task::Quantiles`].
    pub fn solve_task(
        &self,
        task: Task,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
    ) -> Result<Vec<Solution>> {
        let k = self.data().n_classes();
        let one = match task {
            Task::Misclassification => self.solve(config, weights, budget),
            Task::CostMatrix(costs) => {
                let keep = self.keep(config, weights, "cost matrix", &costs);
                self.solve_kept(config, weights, budget, keep, |_, _| {
                    CostMatrix::new(costs, k)
                })
            }
            Task::SquaredError(targets) => {
                let keep = self.keep(config, weights, "squared error", &targets);
                self.solve_kept(config, weights, budget, keep, |_, weights| {
                    SquaredError::new(&targets, weights)
                })
            }
            Task::AbsoluteError(targets) => {
                self.solve_objective(config, weights, budget, |data, _| {
                    check_targets(&targets, data.n_rows())?;
                    Ok(ByRows::new(Pinball::absolute(&targets)))
                })
            }
            Task::Quantile { targets, quantile } => {
                if !(quantile > 0.0 && quantile < 1.0) {
                    return Err(OdtError::InvalidParameter(format!(
                        "quantile must be in (0, 1), got {quantile}"
                    )));
                }
                self.solve_objective(config, weights, budget, |data, _| {
                    check_targets(&targets, data.n_rows())?;
                    Ok(ByRows::new(Pinball::new(&targets, quantile, 1.0)))
                })
            }
            Task::Centroid { points, dim } => {
                self.solve_objective(config, weights, budget, |_, weights| {
                    Ok(ByRows::new(CentroidDistance::new(points, dim, weights)?))
                })
            }
            Task::Quantiles { targets, quantiles } => {
                return self.solve_quantiles(config, weights, budget, &targets, &quantiles)
            }
            Task::Metric(metric) => self.solve_metric(metric, config, weights, budget),
            Task::Front(metric) => self.solve_front(metric, config, weights, budget),
        };
        one.map(|solution| vec![solution])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_need_their_inputs() {
        let inputs = TaskInputs {
            targets: Some(vec![1.0]),
            quantile: 0.3,
            ..TaskInputs::default()
        };
        assert_eq!(
            Task::from_name("quantile", inputs.clone()),
            Ok(Task::Quantile {
                targets: vec![1.0],
                quantile: 0.3
            })
        );
        let error = Task::from_name("centroid", inputs.clone()).unwrap_err();
        assert!(error.to_string().contains("needs points"));
        let error = Task::from_name("gini", inputs).unwrap_err();
        assert!(error
            .to_string()
            .contains("expected one of misclassification"));
    }

    /// Each node's loss is its leaf cost without the penalty: the leaves' losses add up to
    /// the objective less one penalty per leaf, and the root's is the one-leaf tree's loss.
    #[test]
    fn node_losses_are_leaf_costs_without_the_penalty() {
        use crate::budget::Budget;
        use crate::data::Dataset;
        let x = [0, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1];
        let data = Dataset::new(&x, 6, &[0, 0, 0, 0, 0, 0], 2).unwrap();
        let targets = vec![1.0, 4.0, 2.0, 8.0, 3.0, 5.0];
        let config = SearchConfig {
            max_depth: 2,
            leaf_penalty: 0.5,
            ..SearchConfig::default()
        };
        let task = Task::SquaredError(targets.clone());
        let solution = Solver::new(data)
            .solve_task(task, &config, None, Budget::default())
            .unwrap()
            .remove(0);
        let nodes = solution.tree.nodes();
        let leaves: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].is_leaf()).collect();
        let losses: f64 = leaves.iter().map(|&i| solution.node_losses[i]).sum();
        let penalties = 0.5 * leaves.len() as f64;
        assert!((losses + penalties - solution.objective).abs() < 1e-9);
        let mean = targets.iter().sum::<f64>() / 6.0;
        let root: f64 = targets.iter().map(|y| (y - mean) * (y - mean)).sum();
        assert!((solution.node_losses[0] - root).abs() < 1e-9);
    }
}
