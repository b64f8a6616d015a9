//! Long work off the Python thread: the GIL released, a time limit, and Ctrl-C turned into
//! "stop and keep what was found".

use odtree_core::Budget;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// How often the waiting thread looks for Ctrl-C while the work runs.
pub const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// `time_limit` seconds as a duration; `None` for no limit, and for a limit beyond what a
/// `Duration` holds (~5.8e11 years).
pub fn duration_of(time_limit: Option<f64>) -> PyResult<Option<Duration>> {
    match time_limit {
        None => Ok(None),
        Some(s) if s >= 0.0 && s.is_finite() => Ok(Duration::try_from_secs_f64(s).ok()),
        Some(s) => Err(PyValueError::new_err(format!(
            "time_limit must be a finite number ≥ 0, got {s}"
        ))),
    }
}

/// Runs `work` on a worker thread with the GIL released, under a budget of `time_limit`
/// seconds whose interrupt flag a Ctrl-C raises; the calling thread looks for signals every
/// [`SIGNAL_POLL`], and once more when the work is done. The work sees the stop through its
/// budget and returns what it has. Returns its result and whether a Ctrl-C arrived (also one
/// that came as the work ended, which it did not see). A second Ctrl-C before the work has
/// wound down raises `KeyboardInterrupt`, and an exception raised by another signal handler
/// is raised here.
pub fn run_interruptible<T, F>(
    py: Python<'_>,
    time_limit: Option<f64>,
    work: F,
) -> PyResult<(T, bool)>
where
    T: Send,
    F: FnOnce(Budget) -> T + Send,
{
    let interrupt = Arc::new(AtomicBool::new(false));
    let budget = Budget::new(duration_of(time_limit)?, Some(interrupt.clone()));
    let (result, sigints, error) = py.detach(|| {
        std::thread::scope(|scope| {
            let (sender, receiver) = mpsc::channel();
            let worker = scope.spawn(move || {
                let _ = sender.send(work(budget));
            });
            let (mut sigints, mut error) = (0u32, None::<PyErr>);
            let mut poll = || {
                Python::attach(|py| {
                    if let Err(raised) = py.check_signals() {
                        interrupt.store(true, Ordering::Relaxed);
                        if raised.is_instance_of::<PyKeyboardInterrupt>(py) {
                            sigints += 1;
                        } else {
                            error.get_or_insert(raised);
                        }
                    }
                })
            };
            let result = loop {
                match receiver.recv_timeout(SIGNAL_POLL) {
                    Ok(result) => break Some(result),
                    Err(mpsc::RecvTimeoutError::Disconnected) => break None,
                    Err(mpsc::RecvTimeoutError::Timeout) => poll(),
                }
            };
            poll(); // a Ctrl-C that came as the work ended
                    // a panic in the work is caught here, never carried across the boundary
            let joined = worker.join().is_ok();
            (result.filter(|_| joined), sigints, error)
        })
    });
    if let Some(error) = error {
        return Err(error);
    }
    if sigints > 1 {
        return Err(PyKeyboardInterrupt::new_err(
            "second interrupt during the work",
        ));
    }
    let result = result
        .ok_or_else(|| PyRuntimeError::new_err("the worker thread failed (internal error)"))?;
    Ok((result, sigints == 1))
}
