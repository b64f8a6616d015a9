//! The exact search of odtree-core for Python: the `Solver` class, with the objective picked
//! by name or given as a callback, the GIL released, progress reported and Ctrl-C handled.

use crate::callbacks::{ClassesCallback, Failure, Labels, RowsCallback, FAILED};
use crate::config::PyConfig;
use crate::convert::{matrix_of, rows_of, solution_to_dict};
use crate::error::to_py_err;
use crate::interrupt::{poll_while, Polled, Worker};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use odtree_core::objective::ByRows;
use odtree_core::{
    Budget, Dataset, Feed, Result, SearchConfig, Solution, Solver, Status, Task, TaskInputs,
};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

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

/// A dataset's bitsets, built once and solved many times.
#[pyclass(name = "Solver", module = "odtree._core", frozen)]
pub struct PySolver {
    solver: Arc<Solver>,
}

#[pymethods]
impl PySolver {
    /// Builds the solver from a 0/1 matrix (uint8, rows × features) and labels in 0..n_classes.
    #[new]
    fn new(x: PyReadonlyArray2<u8>, y: PyReadonlyArray1<u32>, n_classes: usize) -> PyResult<Self> {
        let (n_rows, _) = x.as_array().dim();
        let features = matrix_of(&x);
        let data = Dataset::new(&features, n_rows, y.as_slice()?, n_classes).map_err(to_py_err)?;
        Ok(Self {
            solver: Arc::new(Solver::new(data)),
        })
    }

    /// Whether exact searches keep their cache for the next search on this solver
    /// (`odtree_core::Solver::keep_work`); off frees what is kept.
    fn keep_work(&self, on: bool) {
        self.solver.keep_work(on);
    }

    /// Solves for the optimal tree under `config`; returns a dict of results (its keys are
    /// `SolveResult` in `odtree/_core.pyi`), or a list of them, one per quantile, for
    /// `"quantiles"`.
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
            Worker::Own,
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
