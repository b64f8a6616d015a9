//! Rashomon sets (`odtree_core::rashomon`) for Python.

use crate::convert::matrix_of;
use crate::error::to_py_err;
use crate::interrupt::{run_interruptible, Worker};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use odtree_core::rashomon::Rashomon;
use odtree_core::Dataset;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Every tree of depth at most `max_depth` over the 0/1 matrix `x` whose cost (misclassified
/// weight, or with `targets` the weighted `criterion` of each leaf: `"squared_error"` around
/// its mean, `"absolute_error"` around its median, `"quantile"` the pinball loss of
/// `quantile` around that quantile; plus `leaf_penalty` per leaf) is at most `(1 + epsilon)` times the least, splitting
/// only on the `allowed` features (all by default). Returns a dict: `optimum`, `bound`,
/// `count` (the set's size, counted without building it), the listed trees (the cheapest
/// `max_trees`, or all, in cost order) as flat arrays: `costs`, `sizes` (each tree's number of
/// nodes), `codes` (the trees one after another, each in pre-order, a split as its feature, a
/// leaf as `-1 - class`), `node_weights` (each node's class weights in the same order, one run
/// of `n_classes` per node, or with `targets` three numbers per node: its weight, then for
/// squared error the weighted sums of the targets and their squares, for the other criteria
/// the weight times its median or quantile and its loss) and `node_rows` (each node's rows) and `stopped` (`None`, `"time_limit"` or `"interrupted"`: then the set is
/// that of the last budget step completed), and `wipes`: how often the kept optima and
/// histograms were wiped to stay within `max_bytes` (then computed again as needed). With
/// `trivial_splits=False` a tree with a split whose two children are leaves predicting the
/// same class is left out (classes only). With `columns` (the input column of each
/// feature, a column's thresholds ascending), thresholds of a column that split a node's rows
/// alike make one split. The root's splits are searched on `n_jobs` threads. The GIL is released while it runs.
#[pyfunction]
#[pyo3(signature = (x, labels, n_classes, weights, *, max_depth, leaf_penalty, epsilon,
                    max_trees=None, allowed=None, time_limit=None, max_bytes=None,
                    targets=None, criterion="squared_error", quantile=0.5,
                    trivial_splits=true, n_jobs=1, columns=None))]
#[allow(clippy::too_many_arguments)]
pub fn rashomon_set<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<u8>,
    labels: PyReadonlyArray1<u32>,
    n_classes: usize,
    weights: PyReadonlyArray1<f64>,
    max_depth: u32,
    leaf_penalty: f64,
    epsilon: f64,
    max_trees: Option<usize>,
    allowed: Option<Vec<u32>>,
    time_limit: Option<f64>,
    max_bytes: Option<usize>,
    targets: Option<PyReadonlyArray1<f64>>,
    criterion: &str,
    quantile: f64,
    trivial_splits: bool,
    n_jobs: usize,
    columns: Option<Vec<u32>>,
) -> PyResult<Bound<'py, PyDict>> {
    let n_rows = x.as_array().nrows();
    let matrix = matrix_of(&x).into_owned();
    let labels = labels.as_array().to_vec();
    let weights = weights.as_array().to_vec();
    let n_features = x.as_array().ncols() as u32;
    let allowed = allowed.unwrap_or_else(|| (0..n_features).collect());
    let targets = targets.map(|t| t.as_array().to_vec());
    // the pinball's quantile and scale; `None` for squared error
    let pinball = match criterion {
        "squared_error" => None,
        "absolute_error" => Some((0.5, 2.0)),
        "quantile" => Some((quantile, 1.0)),
        other => {
            return Err(PyValueError::new_err(format!(
                "criterion must be 'squared_error', 'absolute_error' or 'quantile', got {other:?}"
            )))
        }
    };
    let worker = if small(max_depth, allowed.len(), n_rows) {
        Worker::Inline
    } else {
        Worker::Pooled
    };
    let (found, _) = run_interruptible(py, time_limit, worker, move |budget| {
        let data = Dataset::new(&matrix, n_rows, &labels, n_classes)?;
        let search = Rashomon::new(&data, &weights, leaf_penalty, &allowed, budget)?
            .with_max_bytes(max_bytes)
            .with_trivial_splits(trivial_splits)
            .with_threads(n_jobs);
        let search = match &columns {
            Some(columns) => search.with_columns(columns)?,
            None => search,
        };
        match (&targets, pinball) {
            (Some(targets), None) => search.with_targets(targets)?,
            (Some(targets), Some((q, scale))) => search.with_quantile(targets, q, scale)?,
            (None, _) => search,
        }
        .search(max_depth, epsilon, max_trees)
    })?;
    let found = found.map_err(to_py_err)?;
    let out = PyDict::new(py);
    out.set_item("optimum", found.optimum)?;
    out.set_item("bound", found.bound)?;
    out.set_item("count", found.count)?;
    // flat arrays, so that Python makes four objects whatever the number of trees
    let trees = found.trees;
    out.set_item("costs", PyArray1::from_vec(py, trees.costs))?;
    out.set_item("sizes", PyArray1::from_vec(py, trees.sizes))?;
    out.set_item("codes", PyArray1::from_vec(py, trees.codes))?;
    out.set_item("node_weights", PyArray1::from_vec(py, trees.weights))?;
    out.set_item("node_rows", PyArray1::from_vec(py, trees.rows))?;
    out.set_item("stopped", found.stopped.map(|stop| stop.as_str()))?;
    out.set_item("wipes", found.wipes)?;
    Ok(out)
}

/// Whether a Rashomon search is small enough to run on the calling thread
/// ([`Worker::Inline`]): depth at most 2 over at most 16 features and 1,024 rows. It lists
/// at most 16 × 17² trees, in a few milliseconds at most.
fn small(max_depth: u32, n_features: usize, n_rows: usize) -> bool {
    max_depth <= 2 && n_features <= 16 && n_rows <= 1024
}
