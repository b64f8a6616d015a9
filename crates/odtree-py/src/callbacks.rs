//! Python callbacks as objectives (PyDL8.5's `error_function` and `fast_error_function`).
//!
//! The search runs without the GIL; each call takes it for the call only. Results are kept
//! per leaf (its rows, or its class weights), so no leaf is evaluated twice while memory
//! allows: a memory limit counts them, and frees them when it needs room. An exception
//! stops the search and is raised again from `solve`, except `KeyboardInterrupt`, which
//! stops it like Ctrl-C (the best tree so far is returned). After a failure the function
//! is not called again: leaves not yet costed cost [`FAILED`].

use numpy::PyArray1;
use odtree_core::objective::{Capabilities, Leaf, Objective};
use odtree_core::stats::{ClassWeights, RowEvaluator, Statistics, Weights};
use odtree_core::Dataset;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The cost given to a leaf whose callback failed: the search is stopping, and no tree
/// holding that leaf may look good meanwhile.
pub const FAILED: f64 = 1e300;

/// Bytes a remembered result takes besides its key's elements: the key's vector header, the
/// value, and the hash table's slot and control byte.
const ENTRY_BYTES: usize = 48;

/// At most this many characters of an unusable result are quoted in an error message.
const QUOTED: usize = 80;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What the callbacks of one search share: the first exception, the name of the first
/// function that failed, and the search's stop flag.
pub struct Failure {
    error: Mutex<Option<PyErr>>,
    name: Mutex<Option<&'static str>>,
    failed: AtomicBool,
    interrupt: Arc<AtomicBool>,
}

impl Failure {
    /// Failures stop the search through `interrupt`.
    pub fn new(interrupt: Arc<AtomicBool>) -> Arc<Self> {
        Arc::new(Self {
            error: Mutex::new(None),
            name: Mutex::new(None),
            failed: AtomicBool::new(false),
            interrupt,
        })
    }

    fn record(&self, name: &'static str, error: PyErr) {
        let keyboard = Python::attach(|py| error.is_instance_of::<PyKeyboardInterrupt>(py));
        lock(&self.name).get_or_insert(name);
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

    /// The parameter name of the first function that failed.
    pub fn name(&self) -> Option<&'static str> {
        *lock(&self.name)
    }
}

/// A short description of an unusable result: its type, and its text cut to [`QUOTED`]
/// characters.
fn quote(result: &Bound<'_, PyAny>) -> String {
    let text = result.to_string();
    let kind = result
        .get_type()
        .name()
        .map_or_else(|_| "object".to_owned(), |name| name.to_string());
    match text.char_indices().nth(QUOTED) {
        Some((cut, _)) => format!("a {kind} ({}...)", &text[..cut]),
        None => format!("a {kind} ({text})"),
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
            "{name} must return a number or an (error, class index) pair, not {}",
            quote(result)
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
    let Some(label) = label else {
        return Ok((error, None)); // cannot happen: every arm without a label returned above
    };
    let index: i64 = label.extract().map_err(|_| {
        PyValueError::new_err(format!(
            "{name} returned class index {}, not an int",
            quote(&label)
        ))
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
    /// The parameter the function was given as, for messages.
    name: &'static str,
    labels: Labels,
    failure: Arc<Failure>,
    memo: Mutex<HashMap<K, V>>,
    /// Bytes the remembered results hold (an estimate from their sizes).
    bytes: AtomicUsize,
}

impl<K: Eq + Hash, V: Copy> Callback<K, V> {
    /// Calls `function` for every new `K`; its first exception goes to `failure`.
    pub fn new(
        function: Py<PyAny>,
        name: &'static str,
        labels: Labels,
        failure: Arc<Failure>,
    ) -> Self {
        Self {
            function,
            name,
            labels,
            failure,
            memo: Mutex::new(HashMap::new()),
            bytes: AtomicUsize::new(0),
        }
    }

    /// The remembered result for `key`, or `call`'s (remembered if it succeeds). After a
    /// failure, no call is made and `failed` stands in.
    fn remembered(
        &self,
        key: &K,
        key_bytes: usize,
        failed: V,
        call: impl FnOnce(Python<'_>) -> PyResult<V>,
    ) -> V
    where
        K: Clone,
    {
        if let Some(&value) = lock(&self.memo).get(key) {
            return value;
        }
        if self.failure.happened() {
            return failed;
        }
        match Python::attach(call) {
            Ok(value) => {
                lock(&self.memo).insert(key.clone(), value);
                self.bytes
                    .fetch_add(key_bytes + ENTRY_BYTES, Ordering::Relaxed);
                value
            }
            Err(error) => {
                self.failure.record(self.name, error);
                failed
            }
        }
    }

    fn held(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    fn forget(&self) {
        let mut memo = lock(&self.memo);
        memo.clear();
        memo.shrink_to_fit();
        self.bytes.store(0, Ordering::Relaxed);
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
        let key = rows.to_vec();
        let (error, label) = self.remembered(&key, 4 * rows.len(), (FAILED, 0), |py| {
            let ids = PyArray1::from_iter(py, rows.iter().map(|&row| i64::from(row)));
            let result = self.function.bind(py).call1((ids,))?;
            parse(self.name, &result, self.labels).map(|(error, label)| (error, label.unwrap_or(0)))
        });
        out[1] = error;
        out[2] = f64::from(label);
    }

    fn held_bytes(&self) -> usize {
        self.held()
    }

    fn release(&self) {
        self.forget()
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
        let failed = Leaf {
            cost: FAILED,
            label: 0,
        };
        self.remembered(&key, 8 * key.len(), failed, |py| {
            let weights = PyArray1::from_slice(py, stats);
            let result = self.function.bind(py).call1((weights,))?;
            let (cost, label) = parse(self.name, &result, self.labels)?;
            let heaviest = stats
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
                .map_or(0, |(class, _)| class as u32);
            Ok(Leaf {
                cost,
                label: label.unwrap_or(heaviest),
            })
        })
    }

    fn costly(&self) -> bool {
        true
    }

    fn held_bytes(&self) -> usize {
        self.held()
    }

    fn release(&self) {
        self.forget()
    }

    /// Any function of the class weights may be costed by the depth-2 solver; only the
    /// similarity bound assumes misclassification.
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            depth2: true,
            similarity_bound: false,
            gain_order: true,
            equal_rows: false,
        }
    }
}
