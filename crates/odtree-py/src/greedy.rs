//! The greedy learner of odtree-core for Python: typed columns in, the tree as flat arrays out.

use crate::convert::{columns_of, greedy_tree_to_dict};
use crate::error::to_py_err;
use crate::interrupt::{run_interruptible, Worker};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use odtree_core::budget::Stop;
use odtree_core::greedy::{Criterion, GreedyConfig, GreedyLearner, Table};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The learner's settings from the Python arguments.
pub fn config_of(
    criterion: &str,
    min_cases: usize,
    max_depth: Option<usize>,
    min_gain: f64,
) -> PyResult<GreedyConfig> {
    Ok(GreedyConfig {
        criterion: Criterion::from_name(criterion).map_err(to_py_err)?,
        min_cases,
        max_depth,
        min_gain,
        ..GreedyConfig::default()
    })
}

/// Grows a greedy C4.5-style tree (see `odtree_core::greedy`) and returns it as a dict of
/// arrays, one entry per node in pre-order.
///
/// The features are numbered `0..n_numeric + n_categorical`: `categorical_columns` (strictly
/// increasing) gives the numbers of the columns of `categorical` (uint32 codes), and the
/// columns of `numeric` (finite float64) take the other numbers in order. `allowed_features`
/// restricts the splits to those features (all by default). `sample_weight` (float64, one per
/// row, non-negative, not all zero) weighs the rows; rows of weight zero take no part;
/// `min_leaf_weight` is the least weight of each branch of a test. The GIL is released while
/// the tree grows. After `time_limit` seconds, or on Ctrl-C, the nodes not yet grown stay
/// leaves (each node's scan finishes first).
///
/// Keys: `children_true` and `children_false` (the child holding the rows where the node's
/// test holds or fails; -1 at leaves), `feature` (-2 at leaves), `threshold` (of `x <= t`
/// tests, else NaN), `category` (the code of `x == code` tests, else -1), `class_counts`
/// (rows, nodes × classes), `class_weights` (their weights, nodes × classes; the counts
/// without weights), `n_node_samples`, `weighted_n_node_samples`, `label` (the class of
/// largest weight, lowest on ties), `gain` (bits per row, 0 at leaves), `used_features`, and
/// `stopped` (`None`, `"time_limit"` or `"interrupted"`).
#[pyfunction]
#[pyo3(signature = (numeric, categorical, categorical_columns, labels, n_classes, *,
                    criterion="gain_ratio", min_cases=2, max_depth=None, min_gain=0.0,
                    allowed_features=None, sample_weight=None, min_leaf_weight=0.0,
                    time_limit=None))]
#[allow(clippy::too_many_arguments)]
pub fn greedy_tree<'py>(
    py: Python<'py>,
    numeric: PyReadonlyArray2<f64>,
    categorical: PyReadonlyArray2<u32>,
    categorical_columns: Vec<usize>,
    labels: PyReadonlyArray1<u32>,
    n_classes: usize,
    criterion: &str,
    min_cases: usize,
    max_depth: Option<usize>,
    min_gain: f64,
    allowed_features: Option<Vec<usize>>,
    sample_weight: Option<PyReadonlyArray1<f64>>,
    min_leaf_weight: f64,
    time_limit: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let config = GreedyConfig {
        min_leaf_weight,
        ..config_of(criterion, min_cases, max_depth, min_gain)?
    };
    let labels = labels.as_array().to_vec();
    let columns = columns_of(numeric, categorical, &categorical_columns, labels.len())?;
    let allowed = allowed_features.unwrap_or_else(|| (0..columns.len()).collect());
    let weights = sample_weight.map(|w| w.as_array().to_vec());
    let (grown, interrupted) =
        run_interruptible(py, time_limit, Worker::Pooled, move |mut budget| {
            let mut table = Table::new(columns, labels, n_classes)?;
            if let Some(weights) = weights {
                table = table.with_weights(&weights)?;
            }
            let tree = GreedyLearner::new(&table, config)?.build_within(&allowed, &mut budget)?;
            Ok::<_, odtree_core::OdtError>((tree, budget.stopped()))
        })?;
    let (tree, stopped) = grown.map_err(to_py_err)?;
    let stopped = stopped.or(interrupted.then_some(Stop::Interrupted));
    let dict = greedy_tree_to_dict(py, &tree)?;
    dict.set_item("stopped", stopped.map(Stop::as_str))?;
    Ok(dict)
}
