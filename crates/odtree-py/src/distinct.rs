//! Distinct-tree enumeration and backward elimination of odtree-core for Python.

use crate::convert::{columns_of, greedy_tree_to_dict, selection_to_dict};
use crate::error::to_py_err;
use crate::greedy::config_of;
use crate::interrupt::{run_interruptible, Worker};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use odtree_core::greedy::{
    backward_elimination as eliminate, DistinctTrees, Elimination, Fold, GreedyConfig,
    GreedyLearner, RemovalOrder, Table,
};
use odtree_core::Stop;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Why an enumeration call stopped early, by name: what stopped its budget, else
/// "interrupted" for a Ctrl-C that came as it ended (so that the iteration ends there).
fn stop_name(stopped: Option<Stop>, interrupted: bool) -> Option<&'static str> {
    match stopped {
        Some(stop) => Some(stop.as_str()),
        None => interrupted.then_some(Stop::Interrupted.as_str()),
    }
}

/// A resumable DTdistinct enumeration (`odtree_core::greedy::DistinctTrees`) over the
/// features of one table: the columns are given as for `greedy_tree`.
#[pyclass(name = "DistinctTreeSearch", module = "odtree._core")]
pub struct PyDistinctTreeSearch {
    table: Table,
    config: GreedyConfig,
    search: DistinctTrees,
}

#[pymethods]
impl PyDistinctTreeSearch {
    #[new]
    #[pyo3(signature = (numeric, categorical, categorical_columns, labels, n_classes, *,
                        criterion="gain_ratio", min_cases=2, max_depth=None, min_gain=0.0,
                        order="frontier_asc", incremental=true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        numeric: PyReadonlyArray2<f64>,
        categorical: PyReadonlyArray2<u32>,
        categorical_columns: Vec<usize>,
        labels: PyReadonlyArray1<u32>,
        n_classes: usize,
        criterion: &str,
        min_cases: usize,
        max_depth: Option<usize>,
        min_gain: f64,
        order: &str,
        incremental: bool,
    ) -> PyResult<Self> {
        let config = config_of(criterion, min_cases, max_depth, min_gain)?;
        let order = RemovalOrder::from_name(order).map_err(to_py_err)?;
        let labels = labels.as_array().to_vec();
        let columns = columns_of(numeric, categorical, &categorical_columns, labels.len())?;
        let table = Table::new(columns, labels, n_classes).map_err(to_py_err)?;
        GreedyLearner::new(&table, config).map_err(to_py_err)?;
        let features: Vec<usize> = (0..table.n_features()).collect();
        Ok(Self {
            table,
            config,
            search: DistinctTrees::new(&features, order, incremental),
        })
    }

    /// Up to `max_trees` further distinct trees, as `(used features, tree dict)` pairs (the
    /// dict as `greedy_tree` returns it), and why the call stopped early: `None` when it
    /// found `max_trees` trees or the search ended, else `"time_limit"` after `time_limit`
    /// seconds or `"interrupted"` (Ctrl-C), with the trees found until then. A later call
    /// goes on where this one stopped. The GIL is released while the search runs.
    #[pyo3(signature = (max_trees, time_limit=None))]
    fn next_batch<'py>(
        &mut self,
        py: Python<'py>,
        max_trees: usize,
        time_limit: Option<f64>,
    ) -> PyResult<(Bound<'py, PyList>, Option<&'static str>)> {
        let (table, config, search) = (&self.table, self.config, &mut self.search);
        let (outcome, interrupted) =
            run_interruptible(py, time_limit, Worker::Pooled, move |mut budget| {
                let learner = GreedyLearner::new(table, config)?;
                let mut found = Vec::new();
                while found.len() < max_trees {
                    match search.next_tree(&learner, &mut budget)? {
                        Some(tree) => found.push(tree),
                        None => break,
                    }
                }
                Ok((found, budget.stopped()))
            })?;
        let (found, stopped) = outcome.map_err(to_py_err)?;
        let batch = PyList::empty(py);
        for distinct in found {
            batch.append((distinct.features, greedy_tree_to_dict(py, &distinct.tree)?))?;
        }
        // a Ctrl-C during the conversion would be raised as this call returns, and the batch
        // lost with it: it stops the iteration after this batch instead
        let mut stopped = stop_name(stopped, interrupted);
        if let Err(error) = py.check_signals() {
            if !error.is_instance_of::<PyKeyboardInterrupt>(py) {
                return Err(error);
            }
            stopped = Some(Stop::Interrupted.as_str());
        }
        Ok((batch, stopped))
    }

    /// Runs the search on without returning the trees, until it ends, `time_limit` seconds
    /// pass or Ctrl-C; returns how many distinct trees it found in this call, and why it
    /// stopped early as `next_batch` does.
    #[pyo3(signature = (time_limit=None))]
    fn count(
        &mut self,
        py: Python<'_>,
        time_limit: Option<f64>,
    ) -> PyResult<(usize, Option<&'static str>)> {
        let (table, config, search) = (&self.table, self.config, &mut self.search);
        let (outcome, interrupted) =
            run_interruptible(py, time_limit, Worker::Pooled, move |mut budget| {
                let learner = GreedyLearner::new(table, config)?;
                let mut count = 0;
                while search.next_tree(&learner, &mut budget)?.is_some() {
                    count += 1;
                }
                Ok((count, budget.stopped()))
            })?;
        let (count, stopped) = outcome.map_err(to_py_err)?;
        Ok((count, stop_name(stopped, interrupted)))
    }

    /// Trees built so far.
    #[getter]
    fn n_built(&self) -> usize {
        self.search.n_built()
    }

    /// Distinct trees found so far.
    #[getter]
    fn n_found(&self) -> usize {
        self.search.n_found()
    }

    /// Whether every distinct tree has been found.
    #[getter]
    fn done(&self) -> bool {
        self.search.is_done()
    }
}

/// Backward elimination (`odtree_core::greedy::backward_elimination`) from all the features,
/// method `"psbe"` or `"sbe"`, scored on `folds`, a list of `(building rows, search rows)`.
/// Returns a dict: `trace_features` (the accepted subsets), `trace_errors` (their
/// misclassified search rows, summed over the folds), `n_built` and `stopped` (`None`, or
/// `"time_limit"` or `"interrupted"` when the limit or a Ctrl-C stopped it before it
/// converged). Each round's candidates are tried on `n_jobs` threads. The GIL is released
/// while it runs.
#[pyfunction]
#[pyo3(signature = (numeric, categorical, categorical_columns, labels, n_classes, folds, *,
                    criterion="gain_ratio", min_cases=2, max_depth=None, min_gain=0.0,
                    method="psbe", time_limit=None, n_jobs=1))]
#[allow(clippy::too_many_arguments)]
pub fn backward_elimination<'py>(
    py: Python<'py>,
    numeric: PyReadonlyArray2<f64>,
    categorical: PyReadonlyArray2<u32>,
    categorical_columns: Vec<usize>,
    labels: PyReadonlyArray1<u32>,
    n_classes: usize,
    folds: Vec<(Vec<usize>, Vec<usize>)>,
    criterion: &str,
    min_cases: usize,
    max_depth: Option<usize>,
    min_gain: f64,
    method: &str,
    time_limit: Option<f64>,
    n_jobs: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let config = config_of(criterion, min_cases, max_depth, min_gain)?;
    let method = Elimination::from_name(method).map_err(to_py_err)?;
    let labels = labels.as_array().to_vec();
    let columns = columns_of(numeric, categorical, &categorical_columns, labels.len())?;
    let folds: Vec<Fold> = folds
        .into_iter()
        .map(|(building, search)| Fold { building, search })
        .collect();
    // a Ctrl-C that came only as the elimination converged leaves its result whole
    let (selection, _) = run_interruptible(py, time_limit, Worker::Pooled, move |mut budget| {
        let table = Table::new(columns, labels, n_classes)?;
        let features: Vec<usize> = (0..table.n_features()).collect();
        eliminate(
            &table,
            &folds,
            config,
            &features,
            method,
            &mut budget,
            n_jobs,
        )
    })?;
    selection_to_dict(py, selection.map_err(to_py_err)?)
}
