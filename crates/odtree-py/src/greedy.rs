//! The greedy learner of odtree-core for Python: typed columns in, the tree as flat arrays out.

use crate::interrupt::run_interruptible;
use crate::to_py_err;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use odtree_core::budget::Stop;
use odtree_core::greedy::{
    Column, Criterion, GreedyConfig, GreedyLearner, GreedyTree, Table, Test,
};
use pyo3::exceptions::PyValueError;
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
    let (grown, interrupted) = run_interruptible(py, time_limit, move |mut budget| {
        let mut table = Table::new(columns, labels, n_classes)?;
        if let Some(weights) = weights {
            table = table.with_weights(&weights)?;
        }
        let tree = GreedyLearner::new(&table, config)?.build_within(&allowed, &mut budget)?;
        Ok::<_, odtree_core::OdtError>((tree, budget.stopped()))
    })?;
    let (tree, stopped) = grown.map_err(to_py_err)?;
    let stopped = stopped.or(interrupted.then_some(Stop::Interrupted));
    let dict = tree_to_dict(py, &tree)?;
    dict.set_item("stopped", stopped.map(Stop::as_str))?;
    Ok(dict)
}

/// The columns in feature order, after checking the shapes.
pub(crate) fn columns_of(
    numeric: PyReadonlyArray2<f64>,
    categorical: PyReadonlyArray2<u32>,
    categorical_columns: &[usize],
    n_rows: usize,
) -> PyResult<Vec<Column>> {
    let (numeric, categorical) = (numeric.as_array(), categorical.as_array());
    if numeric.nrows() != n_rows || categorical.nrows() != n_rows {
        return Err(PyValueError::new_err(format!(
            "numeric has {} rows and categorical {}, but there are {n_rows} labels",
            numeric.nrows(),
            categorical.nrows()
        )));
    }
    let n_features = numeric.ncols() + categorical.ncols();
    let increasing = categorical_columns.windows(2).all(|pair| pair[0] < pair[1]);
    if categorical_columns.len() != categorical.ncols()
        || !increasing
        || categorical_columns
            .last()
            .is_some_and(|&last| last >= n_features)
    {
        return Err(PyValueError::new_err(format!(
            "categorical_columns must list {} increasing feature numbers below {n_features}",
            categorical.ncols()
        )));
    }
    let (mut next_numeric, mut next_categorical) = (0, 0);
    let columns = (0..n_features)
        .map(|feature| {
            if categorical_columns.get(next_categorical) == Some(&feature) {
                next_categorical += 1;
                Column::Categorical(categorical.column(next_categorical - 1).to_vec())
            } else {
                next_numeric += 1;
                Column::Numeric(numeric.column(next_numeric - 1).to_vec())
            }
        })
        .collect();
    Ok(columns)
}

/// The tree as flat numpy arrays (see [`greedy_tree`]).
pub(crate) fn tree_to_dict<'py>(
    py: Python<'py>,
    tree: &GreedyTree,
) -> PyResult<Bound<'py, PyDict>> {
    let nodes = tree.nodes();
    let child = |branch: usize| -> Vec<i64> {
        nodes
            .iter()
            .map(|node| {
                node.split
                    .as_ref()
                    .map_or(-1, |s| s.children[branch] as i64)
            })
            .collect()
    };
    let tests: Vec<Option<Test>> = nodes
        .iter()
        .map(|node| node.split.as_ref().map(|s| s.test))
        .collect();
    let feature: Vec<i64> = tests
        .iter()
        .map(|test| test.map_or(-2, |t| t.feature() as i64))
        .collect();
    let threshold: Vec<f64> = tests
        .iter()
        .map(|test| match test {
            Some(Test::Threshold { threshold, .. }) => *threshold,
            _ => f64::NAN,
        })
        .collect();
    let category: Vec<i64> = tests
        .iter()
        .map(|test| match test {
            Some(Test::Category { code, .. }) => i64::from(*code),
            _ => -1,
        })
        .collect();
    let counts: Vec<Vec<i64>> = nodes
        .iter()
        .map(|node| node.class_counts.iter().map(|&c| c as i64).collect())
        .collect();
    let weights: Vec<Vec<f64>> = nodes.iter().map(|n| n.class_weights.clone()).collect();
    let weighted_rows: Vec<f64> = weights.iter().map(|w| w.iter().sum()).collect();
    let rows: Vec<i64> = nodes.iter().map(|node| node.n_rows as i64).collect();
    let label: Vec<i64> = nodes
        .iter()
        .map(|node| i64::from(node.majority_class()))
        .collect();
    let gain: Vec<f64> = nodes
        .iter()
        .map(|node| node.split.as_ref().map_or(0.0, |s| s.gain))
        .collect();
    let used: Vec<i64> = tree.used_features().iter().map(|&f| f as i64).collect();
    let dict = PyDict::new(py);
    dict.set_item("children_true", PyArray1::from_vec(py, child(0)))?;
    dict.set_item("children_false", PyArray1::from_vec(py, child(1)))?;
    dict.set_item("feature", PyArray1::from_vec(py, feature))?;
    dict.set_item("threshold", PyArray1::from_vec(py, threshold))?;
    dict.set_item("category", PyArray1::from_vec(py, category))?;
    dict.set_item("class_counts", PyArray2::from_vec2(py, &counts)?)?;
    dict.set_item("class_weights", PyArray2::from_vec2(py, &weights)?)?;
    dict.set_item("n_node_samples", PyArray1::from_vec(py, rows))?;
    dict.set_item(
        "weighted_n_node_samples",
        PyArray1::from_vec(py, weighted_rows),
    )?;
    dict.set_item("label", PyArray1::from_vec(py, label))?;
    dict.set_item("gain", PyArray1::from_vec(py, gain))?;
    dict.set_item("used_features", PyArray1::from_vec(py, used))?;
    Ok(dict)
}
