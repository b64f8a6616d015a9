//! Python bindings for odtree-core: array conversion, GIL release, Ctrl-C and error mapping.
//! Every decision about the search lives in odtree-core; this crate only translates.

mod callbacks;
mod config;
mod distinct;
mod greedy;
mod interrupt;
mod numeric;

use callbacks::{ClassesCallback, Failure, Labels, RowsCallback, FAILED};
use config::PyConfig;
use interrupt::{poll_while, Polled};
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use odtree_core::objective::ByRows;
use odtree_core::{
    Budget, Dataset, Feed, OdtError, Result, SearchConfig, Solution, Solver, Status, Task,
    TaskInputs,
};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

fn to_py_err(error: OdtError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// What a search minimises: a built-in objective, or a Python callback.
enum Objective {
    BuiltIn(Task),
    Rows(RowsCallback),
    Classes(ClassesCallback),
}

impl Objective {
    /// Solves with this objective: one solution, or one per quantile.
    fn solve(
        self,
        solver: &Solver,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
    ) -> Result<Vec<Solution>> {
        let one = match self {
            Objective::BuiltIn(task) => return solver.solve_task(task, config, weights, budget),
            Objective::Rows(callback) => {
                solver.solve_objective(config, weights, budget, |_, _| Ok(ByRows::new(callback)))
            }
            Objective::Classes(callback) => {
                solver.solve_objective(config, weights, budget, |_, _| Ok(callback))
            }
        };
        one.map(|solution| vec![solution])
    }
}

/// Copies a 2-D float array row by row.
fn rows_of(array: PyReadonlyArray2<f64>) -> (Vec<f64>, usize) {
    let array = array.as_array();
    (array.iter().copied().collect(), array.ncols())
}

/// A dataset's bitsets, built once and solved many times.
#[pyclass(name = "Solver", module = "odtree._core", frozen)]
struct PySolver {
    solver: Arc<Solver>,
}

#[pymethods]
impl PySolver {
    /// Builds the solver from a 0/1 matrix (uint8, rows × features) and labels in 0..n_classes.
    #[new]
    fn new(x: PyReadonlyArray2<u8>, y: PyReadonlyArray1<u32>, n_classes: usize) -> PyResult<Self> {
        let (n_rows, _) = x.as_array().dim();
        let copied: Vec<u8>;
        let features = match x.as_slice() {
            Ok(contiguous) => contiguous,
            Err(_) => {
                copied = x.as_array().iter().copied().collect();
                &copied
            }
        };
        let data = Dataset::new(features, n_rows, y.as_slice()?, n_classes).map_err(to_py_err)?;
        Ok(Self {
            solver: Arc::new(Solver::new(data)),
        })
    }

    /// Solves for the optimal tree under `config`; returns a dict of results (see
    /// `odtree._base`), or a list of them, one per quantile, for `"quantiles"`.
    ///
    /// The GIL is released while the search runs. A Ctrl-C stops the search and the best tree
    /// so far is returned with status "interrupted"; a second Ctrl-C before the search has
    /// wound down raises KeyboardInterrupt.
    ///
    /// `objective` picks what is minimised: a built-in objective by name
    /// (`odtree_core::Task::NAMES`, with `cost_matrix`, `targets`, `quantile`, `quantiles` or
    /// `points` as it needs), or a Python callback `function`: "error_function" (rows) or
    /// "fast_error_function" (class weights). With `labelled`, the callback must return a
    /// class index with its error; without, the index is ignored (rows) or optional, the
    /// heaviest class standing in (class weights).
    ///
    /// `progress(seconds, objective, bound)` is called with the GIL, in this thread, for each
    /// better tree the search finds; when it returns true the search stops (status
    /// "stopped"), and what it raises stops the search and is raised here.
    #[pyo3(signature = (config, *, objective="misclassification", sample_weight=None,
                        cost_matrix=None, targets=None, quantile=0.5, quantiles=None,
                        points=None, function=None, labelled=true, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn solve<'py>(
        &self,
        py: Python<'py>,
        config: &PyConfig,
        objective: &str,
        sample_weight: Option<PyReadonlyArray1<f64>>,
        cost_matrix: Option<PyReadonlyArray2<f64>>,
        targets: Option<PyReadonlyArray1<f64>>,
        quantile: f64,
        quantiles: Option<PyReadonlyArray1<f64>>,
        points: Option<PyReadonlyArray2<f64>>,
        function: Option<Py<PyAny>>,
        labelled: bool,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let weights: Option<Vec<f64>> = sample_weight.map(|w| w.as_array().to_vec());
        let interrupt = Arc::new(AtomicBool::new(false));
        let failure = Failure::new(interrupt.clone());
        let n_classes = self.solver.data().n_classes();
        let labels = |optional| {
            if labelled {
                Labels::Required(n_classes)
            } else {
                optional
            }
        };
        let needs_function =
            |name: &str| PyValueError::new_err(format!("objective {name:?} needs function"));
        let task = match objective {
            "error_function" => Objective::Rows(RowsCallback::new(
                function.ok_or_else(|| needs_function(objective))?,
                "error_function",
                labels(Labels::Ignored),
                failure.clone(),
            )),
            "fast_error_function" => Objective::Classes(ClassesCallback::new(
                function.ok_or_else(|| needs_function(objective))?,
                "fast_error_function",
                labels(Labels::Optional(n_classes)),
                failure.clone(),
            )),
            name => {
                let inputs = TaskInputs {
                    cost_matrix: cost_matrix.map(|c| rows_of(c).0),
                    targets: targets.map(|t| t.as_array().to_vec()),
                    quantile,
                    quantiles: quantiles.map(|q| q.as_array().to_vec()),
                    points: points.map(rows_of),
                };
                Objective::BuiltIn(Task::from_name(name, inputs).map_err(to_py_err)?)
            }
        };
        let several = matches!(task, Objective::BuiltIn(Task::Quantiles { .. }));
        let mut budget = Budget::new(config.time_limit, Some(interrupt.clone()));
        let feed: Feed = Arc::new(Mutex::new(Vec::new()));
        if progress.is_some() {
            budget = budget.with_feed(feed.clone());
        }
        let search = config.search.clone();
        let solver = &self.solver;
        let watched = |py: Python<'_>| match &progress {
            // each new event, also those posted as the search ended
            Some(progress) => watch(py, progress, &feed),
            None => Ok(false),
        };
        let Polled {
            result,
            sigints,
            error: other_error,
            stop_asked,
        } = poll_while(
            py,
            &interrupt,
            move || task.solve(solver, &search, weights.as_deref(), budget),
            watched,
        );
        if let Some(error) = failure.take().or(other_error) {
            return Err(error);
        }
        if sigints > 1 {
            return Err(PyKeyboardInterrupt::new_err(
                "second interrupt during the search",
            ));
        }
        let mut solutions = result
            .ok_or_else(|| PyRuntimeError::new_err("the search thread failed (internal error)"))?
            .map_err(to_py_err)?;
        if failure.happened() {
            // a callback was interrupted: some leaf went uncosted, so nothing is proven, and
            // a tree holding such a leaf has no cost to report
            let name = failure.name().unwrap_or("the callback");
            if solutions.iter().any(|s| s.objective >= FAILED) {
                return Err(PyKeyboardInterrupt::new_err(format!(
                    "{name} was interrupted before it had costed a whole tree"
                )));
            }
            for solution in &mut solutions {
                solution.status = Status::Interrupted;
                solution.lower_bound = solution.lower_bound.min(0.0);
            }
        }
        if stop_asked && sigints == 0 {
            for solution in &mut solutions {
                if solution.status == Status::Interrupted {
                    solution.status = Status::Stopped;
                }
            }
        }
        if several {
            let dicts = solutions
                .iter()
                .map(|solution| solution_to_dict(py, solution))
                .collect::<PyResult<Vec<_>>>()?;
            return Ok(PyList::new(py, dicts)?.into_any());
        }
        Ok(solution_to_dict(py, &solutions[0])?.into_any())
    }

    /// Number of rows, features and classes.
    #[getter]
    fn shape(&self) -> (usize, usize, usize) {
        let data = self.solver.data();
        (
            data.n_rows(),
            self.solver.n_input_features(),
            data.n_classes(),
        )
    }
}

/// Calls `progress` for each event posted to `feed` since the last call; true when one of
/// the calls asked the search to stop.
fn watch(py: Python<'_>, progress: &Py<PyAny>, feed: &Feed) -> PyResult<bool> {
    let events: Vec<[f64; 3]> = {
        let mut posted = feed.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        std::mem::take(&mut *posted)
    };
    let mut stop = false;
    for [seconds, objective, bound] in events {
        stop |= progress
            .call1(py, (seconds, objective, bound))?
            .is_truthy(py)?;
    }
    Ok(stop)
}

/// Converts a solution into plain Python and numpy values.
fn solution_to_dict<'py>(py: Python<'py>, solution: &Solution) -> PyResult<Bound<'py, PyDict>> {
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

/// The compiled core of odtree.
#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PySolver>()?;
    module.add_class::<PyConfig>()?;
    module.add_function(wrap_pyfunction!(greedy::greedy_tree, module)?)?;
    module.add_function(wrap_pyfunction!(numeric::solve_numeric, module)?)?;
    module.add_class::<distinct::PyDistinctTreeSearch>()?;
    module.add_function(wrap_pyfunction!(distinct::backward_elimination, module)?)?;
    Ok(())
}
