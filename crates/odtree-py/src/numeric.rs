//! The exact search over every threshold of numeric columns, for Python.

use crate::convert::numeric_solution_to_dict;
use crate::error::to_py_err;
use crate::interrupt::{run_interruptible, Worker};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use odtree_core::continuous::loss::{ClassLoss, SquaredLoss};
use odtree_core::continuous::pinball::PinballLoss;
use odtree_core::continuous::rows::NumericData;
use odtree_core::continuous::{solve, solve_metric, ContinuousConfig};
use odtree_core::search::Metric;
use odtree_core::OdtError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The optimal tree over every threshold `x <= t` (a midpoint between two distinct values)
/// of the columns of `X` (float64, no NaN; infinities allowed), for `labels` (uint32 codes
/// below `n_classes`, misclassification or the row-major `cost_matrix`, true class by
/// predicted class) or, when `targets` is given, for squared error (`quantile=None`) or the
/// pinball loss of `quantile` times `scale` (absolute error: 0.5 and 2), with at most `max_depth`
/// levels and `max_nodes` splits (`None`: as many as the depth allows), leaves of
/// `min_samples_leaf` rows and `min_weight_leaf` weight at least, and nodes of
/// `min_samples_split` rows at least to split. `max_bytes` bounds the memory the search
/// holds, `max_stored` the row sets its store holds: the store is wiped rather than outgrow
/// them (the status is "memory_limit" only when the sorted columns alone pass `max_bytes`).
/// `max_work` bounds the work, in rows times columns swept: a search that runs out stops
/// with the status "time_limit", at the same point on every machine, and makes no anytime
/// passes. `threads` is how many threads the root's columns are tried on (the same tree
/// whatever their number; for squared error and pinball losses, up to trees whose costs
/// differ by rounding alone).
/// With `metric` (`"f1"` or `"balanced_accuracy"`, two classes, class 1 positive), the tree
/// of greatest metric instead, by weighted searches: `objective` is then its loss,
/// 1 − metric, and `upper_bound` a loss. Rows of weight zero are left out. The GIL is
/// released; Ctrl-C and `time_limit` stop the search with the best tree found. Only trees costing less than `upper_bound` are searched for: when none
/// does, the status is "infeasible" and the tree a single leaf.
///
/// Keys: `children_left` (rows with `x <= threshold`) and `children_right` (-1 at leaves),
/// `feature` (the column, -2 at leaves), `threshold`, `value` (each node's statistics: class
/// weights, or weight and sums of the centred targets), `n_node_samples`,
/// `weighted_n_node_samples`, `label`, `leaf_value`, `objective`, `lower_bound`, `status`,
/// `cache_entries`, `cache_peak_entries`, `cache_peak_bytes`, `n_wipes` and `seconds`.
#[pyfunction]
#[pyo3(signature = (x, weights, *, labels=None, n_classes=1, cost_matrix=None, metric=None, targets=None,
                    quantile=None, scale=1.0, max_depth=2, max_nodes=None, min_samples_leaf=1, min_samples_split=2,
                    min_weight_leaf=0.0, leaf_penalty=0.0,
                    upper_bound=f64::INFINITY, time_limit=None, max_bytes=None, max_stored=None,
                    max_work=None, threads=1))]
#[allow(clippy::too_many_arguments)]
pub fn solve_numeric<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<f64>,
    weights: PyReadonlyArray1<f64>,
    labels: Option<PyReadonlyArray1<u32>>,
    n_classes: usize,
    cost_matrix: Option<PyReadonlyArray2<f64>>,
    metric: Option<&str>,
    targets: Option<PyReadonlyArray1<f64>>,
    quantile: Option<f64>,
    scale: f64,
    max_depth: u32,
    max_nodes: Option<u64>,
    min_samples_leaf: usize,
    min_samples_split: usize,
    min_weight_leaf: f64,
    leaf_penalty: f64,
    upper_bound: f64,
    time_limit: Option<f64>,
    max_bytes: Option<usize>,
    max_stored: Option<usize>,
    max_work: Option<u64>,
    threads: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let shape = x.as_array().dim();
    let values: Vec<f64> = x.as_array().iter().copied().collect();
    let weights = weights.as_array().to_vec();
    if weights.len() != shape.0 {
        return Err(PyValueError::new_err(format!(
            "{} weights for {} rows",
            weights.len(),
            shape.0
        )));
    }
    if !(min_weight_leaf >= 0.0 && min_weight_leaf.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "min_weight_leaf must be a finite number ≥ 0, got {min_weight_leaf}"
        )));
    }
    // the columns are sorted in the worker, under the time limit and Ctrl-C
    let sorted = || NumericData::new(&values, shape.0, shape.1);
    let config = ContinuousConfig {
        max_depth,
        max_nodes: max_nodes.unwrap_or(u64::MAX),
        min_samples_leaf,
        min_samples_split,
        min_weight_leaf,
        leaf_penalty,
        upper_bound,
        max_bytes: max_bytes.unwrap_or(usize::MAX),
        max_stored: max_stored.unwrap_or(usize::MAX),
        max_work: max_work.unwrap_or(u64::MAX),
        threads: threads.max(1),
    };
    let solution = match (targets, labels) {
        (Some(targets), _) => {
            let targets = targets.as_array().to_vec();
            if targets.len() != shape.0 {
                return Err(to_py_err(OdtError::InvalidData(
                    "one target per row".into(),
                )));
            }
            match quantile {
                None => {
                    let loss = SquaredLoss::new(&targets, weights);
                    run_interruptible(py, time_limit, Worker::Pooled, |budget| {
                        sorted().map(|data| solve(&data, &loss, &config, budget))
                    })?
                    .0
                }
                Some(q) if q > 0.0 && q < 1.0 && scale > 0.0 => {
                    let loss = PinballLoss::new(&targets, weights, q, scale);
                    run_interruptible(py, time_limit, Worker::Pooled, |budget| {
                        sorted().map(|data| solve(&data, &loss, &config, budget))
                    })?
                    .0
                }
                Some(q) => {
                    return Err(PyValueError::new_err(format!(
                        "quantile must lie in (0, 1) and scale be positive, got {q} and {scale}"
                    )))
                }
            }
        }
        (None, Some(labels)) => {
            let labels = labels.as_array().to_vec();
            if labels.len() != shape.0 || labels.iter().any(|&c| c as usize >= n_classes) {
                return Err(to_py_err(OdtError::InvalidData(format!(
                    "one label below {n_classes} per row"
                ))));
            }
            if let Some(name) = metric {
                let metric = Metric::from_name(name).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "unknown metric {name:?}: expected \"f1\" or \"balanced_accuracy\""
                    ))
                })?;
                if n_classes != 2 || cost_matrix.is_some() {
                    return Err(PyValueError::new_err(
                        "a metric needs two classes and no cost matrix",
                    ));
                }
                let found = run_interruptible(py, time_limit, Worker::Pooled, |budget| {
                    sorted().and_then(|data| {
                        solve_metric(&data, &labels, &weights, metric, &config, budget)
                    })
                })?
                .0;
                return numeric_solution_to_dict(py, &found.map_err(to_py_err)?);
            }
            let costs = cost_matrix.map(|c| c.as_array().iter().copied().collect::<Vec<_>>());
            if costs
                .as_ref()
                .is_some_and(|c| c.len() != n_classes * n_classes)
            {
                return Err(to_py_err(OdtError::InvalidData(format!(
                    "the cost matrix must be {n_classes} by {n_classes}"
                ))));
            }
            let loss = ClassLoss::new(labels, weights, n_classes, costs);
            run_interruptible(py, time_limit, Worker::Pooled, |budget| {
                sorted().map(|data| solve(&data, &loss, &config, budget))
            })?
            .0
        }
        (None, None) => return Err(PyValueError::new_err("give labels or targets")),
    };
    numeric_solution_to_dict(py, &solution.map_err(to_py_err)?)
}
