//! Python callbacks as objectives (PyDL8.5's `error_function` and `fast_error_function`).
//!
//! The search runs without the GIL; each call takes it for the call only. Results are kept
//! per leaf (its rows, or its class weights), so no leaf is evaluated twice. An exception
//! stops the search and is raised again from `solve`, except `KeyboardInterrupt`, which
//! stops it like Ctrl-C (the best tree so far is returned).

use numpy::PyArray1;
use odtree_core::objective::{Capabilities, Leaf, Objective};
use odtree_core::stats::{ClassWeights, RowEvaluator, Statistics, Weights};
use odtree_core::Dataset;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The cost given to a leaf whose callback failed: the search is stopping, and no tree
/// holding that leaf may look good meanwhile.
const FAILED: f64 = 1e300;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What the callbacks of one search share: the first exception, and the search's stop flag.
pub struct Failure {
    error: Mutex<Option<PyErr>>,
    failed: AtomicBool,
    interrupt: Arc<AtomicBool>,
}

impl Failure {
    /// Failures stop the search through `interrupt`.
    pub fn new(interrupt: Arc<AtomicBool>) -> Arc<Self> {
        Arc::new(Self {
            error: Mutex::new(None),
            failed: AtomicBool::new(false),
            interrupt,
        })
    }

    fn record(&self, error: PyErr) {
        let keyboard = Python::attach(|py| error.is_instance_of::<PyKeyboardInterrupt>(py));
        if !keyboard {
            lock(&self.error).get_or_insert(error);
        }
        self.failed.store(true, Ordering::Relaxed);
        self.interrupt.store(true, Ordering::Relaxed);
    }

    /// Whether a callback failed (a `KeyboardInterrupt` included).
    pub fn happened(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// The exception a callback raised, if any.
    pub fn take(&self) -> Option<PyErr> {
        lock(&self.error).take()
    }
}

/// How a callback's class index is read.
#[derive(Clone, Copy, Debug)]
pub enum Labels {
    /// Required, below this many classes (a classifier).
    Required(usize),
    /// Optional, below this many classes; a leaf without one predicts its heaviest class.
    Optional(usize),
    /// Ignored (a task without classes).
    Ignored,
}

/// Reads a callback's result: an error, or an (error, class index) pair.
fn parse(name: &str, result: &Bound<'_, PyAny>, labels: Labels) -> PyResult<(f64, Option<u32>)> {
    let (error, label) = match result.extract::<(Bound<PyAny>, Bound<PyAny>)>() {
        Ok((error, label)) => (error, Some(label)),
        Err(_) => (result.clone(), None),
    };
    let error: f64 = error.extract().map_err(|_| {
        PyValueError::new_err(format!(
            "{name} must return a number or an (error, class index) pair, not {result}"
        ))
    })?;
    if !error.is_finite() || error < 0.0 {
        return Err(PyValueError::new_err(format!(
            "{name} returned {error}: errors must be finite and non-negative"
        )));
    }
    let k = match (labels, &label) {
        (Labels::Ignored, _) | (Labels::Optional(_), None) => return Ok((error, None)),
        (Labels::Required(_), None) => {
            return Err(PyValueError::new_err(format!(
                "{name} must return an (error, class index) pair for a classifier"
            )))
        }
        (Labels::Required(k) | Labels::Optional(k), Some(_)) => k,
    };
    let label = label.expect("matched above");
    let index: i64 = label.extract().map_err(|_| {
        PyValueError::new_err(format!("{name} returned class index {label}, not an int"))
    })?;
    let index = u32::try_from(index)
        .ok()
        .filter(|&i| (i as usize) < k)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "{name} returned class index {index}; there are {k} classes"
            ))
        })?;
    Ok((error, Some(index)))
}

/// A Python leaf function, called once per distinct `K` (what it is given) and remembered.
pub struct Callback<K, V> {
    function: Py<PyAny>,
    labels: Labels,
    failure: Arc<Failure>,
    memo: Mutex<HashMap<K, V>>,
}

impl<K, V> Callback<K, V> {
    /// Calls `function` for every new `K`; its first exception goes to `failure`.
    pub fn new(function: Py<PyAny>, labels: Labels, failure: Arc<Failure>) -> Self {
        Self {
            function,
            labels,
            failure,
            memo: Mutex::new(HashMap::new()),
        }
    }
}

/// `error_function(rows)`: the rows of a leaf as an int64 array, sorted.
pub type RowsCallback = Callback<Vec<u32>, (f64, u32)>;

impl RowEvaluator for RowsCallback {
    fn n_stats(&self) -> usize {
        3
    }

    fn labels(&self) -> bool {
        matches!(self.labels, Labels::Required(_))
    }

    fn evaluate(&self, rows: &[u32], weights: &Weights, out: &mut [f64]) {
        out[0] = rows.iter().map(|&row| weights.of(row as usize)).sum();
        let known = lock(&self.memo).get(rows).copied();
        let (error, label) = known.unwrap_or_else(|| {
            let result = Python::attach(|py| {
                let ids = PyArray1::from_iter(py, rows.iter().map(|&row| i64::from(row)));
                let result = self.function.bind(py).call1((ids,))?;
                parse("error_function", &result, self.labels)
                    .map(|(error, label)| (error, label.unwrap_or(0)))
            });
            match result {
                Ok(value) => {
                    lock(&self.memo).insert(rows.to_vec(), value);
                    value
                }
                Err(error) => {
                    self.failure.record(error);
                    (FAILED, 0)
                }
            }
        });
        out[1] = error;
        out[2] = f64::from(label);
    }
}

/// `fast_error_function(class_weights)`: the weight of each class in a leaf (memoised by
/// the weights' bits).
pub type ClassesCallback = Callback<Vec<u64>, Leaf>;

impl Objective for ClassesCallback {
    fn statistics<'a>(&'a self, data: &'a Dataset, weights: &'a Weights) -> Statistics<'a> {
        Statistics::Classes(ClassWeights::new(data, weights))
    }

    fn leaf(&self, stats: &[f64]) -> Leaf {
        let key: Vec<u64> = stats.iter().map(|w| w.to_bits()).collect();
        if let Some(&leaf) = lock(&self.memo).get(&key) {
            return leaf;
        }
        let result = Python::attach(|py| {
            let weights = PyArray1::from_slice(py, stats);
            let result = self.function.bind(py).call1((weights,))?;
            parse("fast_error_function", &result, self.labels)
        });
        match result {
            Ok((cost, label)) => {
                let heaviest = stats
                    .iter()
                    .enumerate()
                    .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
                    .map_or(0, |(class, _)| class as u32);
                let leaf = Leaf {
                    cost,
                    label: label.unwrap_or(heaviest),
                };
                lock(&self.memo).insert(key, leaf);
                leaf
            }
            Err(error) => {
                self.failure.record(error);
                Leaf {
                    cost: FAILED,
                    label: 0,
                }
            }
        }
    }

    /// Any function of the class weights may be costed by the depth-2 solver; only the
    /// similarity bound assumes misclassification.
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            depth2: true,
            similarity_bound: false,
            gain_order: true,
        }
    }
}
