//! The one home of the conversions between numpy or Python values and the core's: input
//! arrays in, solutions and trees out as dicts of numpy arrays (their keys are typed in
//! `python/odtree/_core.pyi`).

use numpy::{PyArray1, PyArray2, PyReadonlyArray2};
use odtree_core::continuous::{NumericNode, NumericSolution};
use odtree_core::greedy::Selection;
use odtree_core::greedy::{Column, GreedyTree, Test};
use odtree_core::Solution;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::borrow::Cow;

/// A 0/1 matrix (uint8, rows × features) as one row-major slice, copied only when the array
/// is not contiguous.
pub fn matrix_of<'a>(x: &'a PyReadonlyArray2<u8>) -> Cow<'a, [u8]> {
    match x.as_slice() {
        Ok(contiguous) => Cow::Borrowed(contiguous),
        Err(_) => Cow::Owned(x.as_array().iter().copied().collect()),
    }
}

/// Copies a 2-D float array row by row.
pub fn rows_of(array: PyReadonlyArray2<f64>) -> (Vec<f64>, usize) {
    let array = array.as_array();
    (array.iter().copied().collect(), array.ncols())
}

/// The columns in feature order, after checking the shapes.
pub fn columns_of(
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

/// Converts a solution into plain Python and numpy values.
pub fn solution_to_dict<'py>(py: Python<'py>, solution: &Solution) -> PyResult<Bound<'py, PyDict>> {
    let nodes = solution.tree.nodes();
    let leaf = -1i64;
    let n_stats = nodes.first().map_or(0, |n| n.stats.len());
    let dict = PyDict::new(py);
    let left: Vec<i64> = nodes
        .iter()
        .map(|n| if n.is_leaf() { leaf } else { n.left as i64 })
        .collect();
    let right: Vec<i64> = nodes
        .iter()
        .map(|n| if n.is_leaf() { leaf } else { n.right as i64 })
        .collect();
    let feature: Vec<i64> = nodes
        .iter()
        .map(|n| n.feature.map_or(-2, i64::from))
        .collect();
    let value: Vec<Vec<f64>> = nodes.iter().map(|n| n.stats.clone()).collect();
    let rows: Vec<i64> = nodes.iter().map(|n| n.rows as i64).collect();
    let weight: Vec<f64> = nodes.iter().map(|n| n.weight).collect();
    let label: Vec<i64> = nodes.iter().map(|n| n.label as i64).collect();
    let leaf_value: Vec<f64> = nodes.iter().map(|n| n.value).collect();
    dict.set_item("children_left", PyArray1::from_vec(py, left))?;
    dict.set_item("children_right", PyArray1::from_vec(py, right))?;
    dict.set_item("feature", PyArray1::from_vec(py, feature))?;
    let value = if value.is_empty() {
        PyArray2::zeros(py, [0, n_stats], false)
    } else {
        PyArray2::from_vec2(py, &value)?
    };
    dict.set_item("value", value)?;
    dict.set_item("n_node_samples", PyArray1::from_vec(py, rows))?;
    dict.set_item("weighted_n_node_samples", PyArray1::from_vec(py, weight))?;
    dict.set_item("label", PyArray1::from_vec(py, label))?;
    dict.set_item("leaf_value", PyArray1::from_vec(py, leaf_value))?;
    dict.set_item(
        "node_loss",
        PyArray1::from_vec(py, solution.node_losses.clone()),
    )?;
    dict.set_item("objective", solution.objective)?;
    dict.set_item("lower_bound", solution.lower_bound)?;
    dict.set_item("status", solution.status.as_str())?;
    for (name, value) in solution.cache.fields() {
        dict.set_item(name, value)?;
    }
    dict.set_item("seconds", solution.seconds)?;
    let progress: Vec<Vec<f64>> = solution.progress.iter().map(|row| row.to_vec()).collect();
    dict.set_item("progress", PyArray2::from_vec2(py, &progress)?)?;
    let front: Vec<Vec<f64>> = solution.front.iter().map(|point| point.to_vec()).collect();
    let front = if front.is_empty() {
        PyArray2::zeros(py, [0, 2], false)
    } else {
        PyArray2::from_vec2(py, &front)?
    };
    dict.set_item("pareto_front", front)?;
    Ok(dict)
}

/// A solution over numeric columns as plain Python and numpy values (see
/// `numeric::solve_numeric`).
pub fn numeric_solution_to_dict<'py>(
    py: Python<'py>,
    solution: &NumericSolution,
) -> PyResult<Bound<'py, PyDict>> {
    let nodes = &solution.nodes;
    let dict = PyDict::new(py);
    let child = |pick: fn(&_) -> usize| -> Vec<i64> {
        nodes
            .iter()
            .map(|n: &NumericNode| {
                if n.column.is_some() {
                    pick(n) as i64
                } else {
                    -1
                }
            })
            .collect()
    };
    dict.set_item("children_left", PyArray1::from_vec(py, child(|n| n.left)))?;
    dict.set_item("children_right", PyArray1::from_vec(py, child(|n| n.right)))?;
    let feature: Vec<i64> = nodes
        .iter()
        .map(|n| n.column.map_or(-2, |c| c as i64))
        .collect();
    dict.set_item("feature", PyArray1::from_vec(py, feature))?;
    let threshold: Vec<f64> = nodes.iter().map(|n| n.threshold).collect();
    dict.set_item("threshold", PyArray1::from_vec(py, threshold))?;
    let value: Vec<Vec<f64>> = nodes.iter().map(|n| n.stats.clone()).collect();
    dict.set_item("value", PyArray2::from_vec2(py, &value)?)?;
    let rows: Vec<i64> = nodes.iter().map(|n| n.rows as i64).collect();
    dict.set_item("n_node_samples", PyArray1::from_vec(py, rows))?;
    let weight: Vec<f64> = nodes.iter().map(|n| n.weight).collect();
    dict.set_item("weighted_n_node_samples", PyArray1::from_vec(py, weight))?;
    let label: Vec<i64> = nodes.iter().map(|n| n.label as i64).collect();
    dict.set_item("label", PyArray1::from_vec(py, label))?;
    let leaf_value: Vec<f64> = nodes.iter().map(|n| n.value).collect();
    dict.set_item("leaf_value", PyArray1::from_vec(py, leaf_value))?;
    let node_loss: Vec<f64> = nodes.iter().map(|n| n.loss).collect();
    dict.set_item("node_loss", PyArray1::from_vec(py, node_loss))?;
    dict.set_item("objective", solution.objective)?;
    dict.set_item("lower_bound", solution.lower_bound)?;
    dict.set_item("status", solution.status.as_str())?;
    dict.set_item("cache_entries", solution.stored)?;
    dict.set_item("cache_peak_entries", solution.peak_stored)?;
    dict.set_item("cache_peak_bytes", solution.peak_bytes)?;
    dict.set_item("n_wipes", solution.wipes)?;
    dict.set_item("seconds", solution.seconds)?;
    Ok(dict)
}

/// A greedy (C4.5) tree as flat numpy arrays (see `greedy::greedy_tree`).
pub fn greedy_tree_to_dict<'py>(
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

/// The outcome of a backward elimination as a dict (see `distinct::backward_elimination`).
pub fn selection_to_dict<'py>(
    py: Python<'py>,
    selection: Selection,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let (subsets, errors): (Vec<Vec<usize>>, Vec<usize>) = selection.trace.into_iter().unzip();
    dict.set_item("trace_features", subsets)?;
    dict.set_item("trace_errors", errors)?;
    dict.set_item("n_built", selection.n_built)?;
    dict.set_item("stopped", selection.stopped.map(|stop| stop.as_str()))?;
    Ok(dict)
}
