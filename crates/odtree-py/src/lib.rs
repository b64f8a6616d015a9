//! Python bindings for odtree-core: array conversion, GIL release, Ctrl-C and error mapping.
//! Every decision about the search lives in odtree-core; this crate only translates.

mod callbacks;

use callbacks::{ClassesCallback, Failure, Labels, RowsCallback, FAILED};
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use odtree_core::objective::{
    check_targets, ByRows, CentroidDistance, CostMatrix, Pinball, SquaredError,
};
use odtree_core::{
    Branching, Budget, CacheKind, ChildOrder, Dataset, MemoryLimits, OdtError, Result,
    SearchConfig, Solution, Solver, Status, WipeStrategy,
};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// How often the waiting thread looks for Ctrl-C while the search runs.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

fn to_py_err(error: OdtError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

fn unknown(what: &str, value: &str) -> PyErr {
    PyValueError::new_err(format!("unknown {what} {value:?}"))
}

/// What a search minimises, with the data it needs.
enum Task {
    Misclassification,
    CostMatrix(Vec<f64>),
    SquaredError(Vec<f64>),
    Pinball(Vec<f64>, f64, f64),
    Centroid(Vec<f64>, usize),
    Rows(RowsCallback),
    Classes(ClassesCallback),
    /// Targets and quantiles, solved in one search with one tree per quantile.
    Quantiles(Vec<f64>, Vec<f64>),
}

impl Task {
    /// Solves with this objective: one solution, or one per quantile.
    fn solve(
        self,
        solver: &Solver,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
    ) -> Result<Vec<Solution>> {
        let k = solver.data().n_classes();
        let one = match self {
            Task::Misclassification => solver.solve(config, weights, budget),
            Task::CostMatrix(costs) => {
                solver.solve_objective(config, weights, budget, |_, _| CostMatrix::new(costs, k))
            }
            Task::SquaredError(targets) => {
                solver.solve_objective(config, weights, budget, |_, weights| {
                    SquaredError::new(&targets, weights)
                })
            }
            Task::Pinball(targets, quantile, scale) => {
                solver.solve_objective(config, weights, budget, |data, _| {
                    check_targets(&targets, data.n_rows())?;
                    Ok(ByRows::new(Pinball::new(&targets, quantile, scale)))
                })
            }
            Task::Centroid(points, dim) => {
                solver.solve_objective(config, weights, budget, |_, weights| {
                    Ok(ByRows::new(CentroidDistance::new(points, dim, weights)?))
                })
            }
            Task::Rows(callback) => {
                solver.solve_objective(config, weights, budget, |_, _| Ok(ByRows::new(callback)))
            }
            Task::Classes(callback) => {
                solver.solve_objective(config, weights, budget, |_, _| Ok(callback))
            }
            Task::Quantiles(targets, quantiles) => {
                return solver.solve_quantiles(config, weights, budget, &targets, &quantiles)
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

    /// Solves for the optimal tree; returns a dict of results (see `odtree._classes`).
    ///
    /// The GIL is released while the search runs. A Ctrl-C stops the search and the best tree
    /// so far is returned with status "interrupted"; a second Ctrl-C before the search has
    /// wound down raises KeyboardInterrupt.
    ///
    /// `search` picks the preset ("murtree" or "dl85"); each switch left at `None` keeps the
    /// preset's choice.
    ///
    /// `objective` picks what is minimised: "misclassification", "cost_matrix" (with
    /// `cost_matrix`), "squared_error", "absolute_error" or "quantile" (with `targets` and
    /// `quantile`), "quantiles" (with `targets` and `quantiles`: one search, and a list of
    /// results, one per quantile), "centroid" (with `points`), or a Python callback `function`:
    /// "error_function" (rows) or "fast_error_function" (class weights). With `labelled`,
    /// the callback must return a class index with its error; without, the index is ignored
    /// (rows) or optional, the heaviest class standing in (class weights).
    #[pyo3(signature = (*, max_depth, min_samples_leaf, upper_bound, search, max_nodes=None,
                        leaf_penalty=0.0, lexicographic=false, cache=None, branching=None, depth2=None,
                        incremental=None, similarity_bound=None, child_order=None,
                        memory_limit=None, max_cache_entries=None, wipe_strategy="reuses",
                        wipe_factor=0.1, sample_weight=None, time_limit=None,
                        objective="misclassification", cost_matrix=None, targets=None,
                        quantile=0.5, quantiles=None, points=None, function=None,
                        labelled=true))]
    #[allow(clippy::too_many_arguments)]
    fn solve<'py>(
        &self,
        py: Python<'py>,
        max_depth: u32,
        min_samples_leaf: u32,
        upper_bound: f64,
        search: &str,
        max_nodes: Option<u32>,
        leaf_penalty: f64,
        lexicographic: bool,
        cache: Option<&str>,
        branching: Option<&str>,
        depth2: Option<bool>,
        incremental: Option<bool>,
        similarity_bound: Option<bool>,
        child_order: Option<&str>,
        memory_limit: Option<usize>,
        max_cache_entries: Option<usize>,
        wipe_strategy: &str,
        wipe_factor: f64,
        sample_weight: Option<PyReadonlyArray1<f64>>,
        time_limit: Option<f64>,
        objective: &str,
        cost_matrix: Option<PyReadonlyArray2<f64>>,
        targets: Option<PyReadonlyArray1<f64>>,
        quantile: f64,
        quantiles: Option<PyReadonlyArray1<f64>>,
        points: Option<PyReadonlyArray2<f64>>,
        function: Option<Py<PyAny>>,
        labelled: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut config = match search {
            "murtree" => SearchConfig::default(),
            "dl85" => SearchConfig::dl85(),
            other => return Err(unknown("search", other)),
        };
        config.max_depth = max_depth;
        config.min_samples_leaf = min_samples_leaf;
        config.upper_bound = upper_bound;
        config.max_nodes = max_nodes;
        config.leaf_penalty = leaf_penalty;
        config.lexicographic = lexicographic;
        if let Some(cache) = cache {
            config.cache = match cache {
                "trie" => CacheKind::Trie,
                "hash" => CacheKind::Hash,
                "dataset" => CacheKind::Dataset,
                other => return Err(unknown("cache", other)),
            };
        }
        if let Some(branching) = branching {
            config.branching = match branching {
                "in_order" => Branching::InOrder,
                "gain_asc" => Branching::GainAscending,
                "gain_desc" => Branching::GainDescending,
                "gini" => Branching::Gini,
                other => return Err(unknown("branching", other)),
            };
        }
        if let Some(child_order) = child_order {
            config.child_order = match child_order {
                "left_first" => ChildOrder::LeftFirst,
                "larger_error_first" => ChildOrder::LargerLeafCostFirst,
                other => return Err(unknown("child_order", other)),
            };
        }
        config.memory = MemoryLimits {
            max_bytes: memory_limit,
            max_entries: max_cache_entries,
            strategy: match wipe_strategy {
                "reuses" => WipeStrategy::Reuses,
                "descendants" => WipeStrategy::Descendants,
                "all" => WipeStrategy::All,
                other => return Err(unknown("wipe_strategy", other)),
            },
            wipe_factor,
        };
        config.depth2 = depth2.unwrap_or(config.depth2);
        config.incremental = incremental.unwrap_or(config.incremental);
        config.similarity_bound = similarity_bound.unwrap_or(config.similarity_bound);
        config.validate().map_err(to_py_err)?;
        let weights: Option<Vec<f64>> = sample_weight.map(|w| w.as_array().to_vec());
        if time_limit.is_some_and(|t| t.is_nan() || t < 0.0 || t.is_infinite()) {
            return Err(PyValueError::new_err(
                "time_limit must be a finite number ≥ 0",
            ));
        }
        let interrupt = Arc::new(AtomicBool::new(false));
        let failure = Failure::new(interrupt.clone());
        let n_classes = self.solver.data().n_classes();
        let missing =
            |what: &str| PyValueError::new_err(format!("objective {objective:?} needs {what}"));
        let targets = targets.map(|t| t.as_array().to_vec());
        let task = match objective {
            "misclassification" => Task::Misclassification,
            "cost_matrix" => {
                Task::CostMatrix(rows_of(cost_matrix.ok_or_else(|| missing("cost_matrix"))?).0)
            }
            "squared_error" => Task::SquaredError(targets.ok_or_else(|| missing("targets"))?),
            "absolute_error" => Task::Pinball(targets.ok_or_else(|| missing("targets"))?, 0.5, 2.0),
            "quantile" => Task::Pinball(targets.ok_or_else(|| missing("targets"))?, quantile, 1.0),
            "centroid" => {
                let (points, dim) = rows_of(points.ok_or_else(|| missing("points"))?);
                Task::Centroid(points, dim)
            }
            "error_function" => Task::Rows(RowsCallback::new(
                function.ok_or_else(|| missing("function"))?,
                "error_function",
                if labelled {
                    Labels::Required(n_classes)
                } else {
                    Labels::Ignored
                },
                failure.clone(),
            )),
            "fast_error_function" => Task::Classes(ClassesCallback::new(
                function.ok_or_else(|| missing("function"))?,
                "fast_error_function",
                if labelled {
                    Labels::Required(n_classes)
                } else {
                    Labels::Optional(n_classes)
                },
                failure.clone(),
            )),
            "quantiles" => Task::Quantiles(
                targets.ok_or_else(|| missing("targets"))?,
                quantiles
                    .ok_or_else(|| missing("quantiles"))?
                    .as_array()
                    .to_vec(),
            ),
            other => return Err(unknown("objective", other)),
        };
        let several = matches!(task, Task::Quantiles(..));
        // a limit beyond what a Duration holds (~5.8e11 years) means no limit
        let time_limit = time_limit.and_then(|t| Duration::try_from_secs_f64(t).ok());
        let budget = Budget::new(time_limit, Some(interrupt.clone()));
        let solver = self.solver.clone();
        let (sender, receiver) = mpsc::channel();
        let worker = std::thread::spawn(move || {
            let result = task.solve(&solver, &config, weights.as_deref(), budget);
            let _ = sender.send(result);
        });
        let flag = interrupt.clone();
        let (result, sigints, other_error) = py.detach(move || {
            let (mut sigints, mut other_error) = (0u32, None::<PyErr>);
            let result = loop {
                match receiver.recv_timeout(SIGNAL_POLL) {
                    Ok(result) => break Some(result),
                    Err(mpsc::RecvTimeoutError::Disconnected) => break None,
                    Err(mpsc::RecvTimeoutError::Timeout) => Python::attach(|py| {
                        if let Err(error) = py.check_signals() {
                            flag.store(true, Ordering::Relaxed);
                            if error.is_instance_of::<PyKeyboardInterrupt>(py) {
                                sigints += 1;
                            } else {
                                other_error = Some(error);
                            }
                        }
                    }),
                }
            };
            (result, sigints, other_error)
        });
        let _ = worker.join();
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
    dict.set_item("cache_entries", solution.cache_entries)?;
    dict.set_item("cache_bytes", solution.cache_bytes)?;
    dict.set_item("cache_peak_entries", solution.cache_peak_entries)?;
    dict.set_item("cache_peak_bytes", solution.cache_peak_bytes)?;
    dict.set_item("n_wipes", solution.wipes)?;
    dict.set_item("cache_created_entries", solution.cache_created)?;
    dict.set_item("seconds", solution.seconds)?;
    Ok(dict)
}

/// The compiled core of odtree.
#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PySolver>()?;
    Ok(())
}
