//! Long work off the Python thread: the GIL released, a time limit, and Ctrl-C turned into
//! "stop and keep what was found".

use odtree_core::Budget;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, OnceLock};
use std::time::{Duration, Instant};

/// Ctrl-C as every thread sees it. Python runs its signal handlers, and so raises
/// `KeyboardInterrupt`, in the main thread only: a search polled from another thread would
/// never hear of a Ctrl-C. The first such search chains a handler of its own before
/// Python's (which still runs, so the main thread raises as before, and Python's handler as
/// `signal.getsignal` shows it is unchanged) that counts the SIGINTs the process receives.
mod sigints {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Once;

    static RECEIVED: AtomicUsize = AtomicUsize::new(0);
    static COUNTING: Once = Once::new();

    /// How many SIGINTs the process has received since the first call (0 where signals
    /// cannot be counted).
    pub fn received() -> usize {
        #[cfg(unix)]
        COUNTING.call_once(|| {
            let count = || {
                RECEIVED.fetch_add(1, Ordering::Relaxed);
            };
            // SAFETY: the action only increments an atomic, which is async-signal-safe.
            let _ = unsafe { signal_hook::low_level::register(signal_hook::consts::SIGINT, count) };
        });
        #[cfg(not(unix))]
        COUNTING.call_once(|| {});
        RECEIVED.load(Ordering::Relaxed)
    }
}

/// Whether the calling thread is Python's main thread, where `check_signals` sees Ctrl-C.
fn on_main_thread(py: Python<'_>) -> bool {
    let same = || -> PyResult<bool> {
        let threading = py.import("threading")?;
        let current = threading.call_method0("current_thread")?;
        Ok(current.is(&threading.call_method0("main_thread")?))
    };
    same().unwrap_or(true)
}

/// How often the waiting thread looks for Ctrl-C while the work runs.
pub const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// How long the calling thread first waits for the work by spinning rather than sleeping:
/// the result of a small search is then taken without waiting for the thread to be woken
/// (tens of microseconds on a loaded machine, more than such a search takes).
const SPIN: Duration = Duration::from_micros(300);

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

/// What the calling thread saw while [`poll_while`]'s work ran.
pub struct Polled<T> {
    /// The work's result; `None` if its thread panicked.
    pub result: Option<T>,
    /// How many Ctrl-C arrived.
    pub sigints: u32,
    /// The first exception raised by another signal handler or by the poll hook.
    pub error: Option<PyErr>,
    /// Whether the poll hook asked the work to stop.
    pub stop_asked: bool,
}

/// Where [`poll_while`]'s work runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Worker {
    /// A thread started for it: for work that calls back into Python, which could wait
    /// on another search queued behind it in a pool.
    Own,
    /// One of rayon's pooled threads, which are kept: a small search then costs no thread
    /// start (a tenth of a millisecond), and its allocations find the thread's caches warm.
    /// For work that never calls Python. Called from a pooled thread, a thread of its own,
    /// so that a search never waits on one queued behind it; and in a process forked after
    /// the pool started, which has none of its threads (see [`pool_is_ours`]).
    Pooled,
    /// The calling thread, with the GIL released and no polling: for work of a few
    /// milliseconds at most, where a thread hop can cost more than the work (in a fresh
    /// process, a pooled thread's first run of a small search took 0.1–0.2 ms more). A Ctrl-C arriving
    /// meanwhile is left to Python, which raises it when the call returns. For work that
    /// never calls Python.
    Inline,
}

/// Whether rayon's pool, if started, was started by this process. A process forked from one
/// whose pool was running inherits the pool's bookkeeping but none of its threads, so work
/// sent to the pool would never run (multiprocessing's default start on Linux forks).
fn pool_is_ours() -> bool {
    static STARTED_BY: OnceLock<u32> = OnceLock::new();
    *STARTED_BY.get_or_init(std::process::id) == std::process::id()
}

/// Runs `work` on a `worker` thread with the GIL released. Every [`SIGNAL_POLL`], and once
/// more when the work is done, the calling thread runs `on_poll` (which returns whether
/// the work should stop) and looks for signals; a Ctrl-C, a stop asked by `on_poll`, or an
/// exception raised by either raises `interrupt`, which the work sees through its budget.
/// Off Python's main thread, Ctrl-C is the SIGINTs counted since the call began.
/// A panic in the work is caught here, never carried across the boundary.
pub fn poll_while<T, W, P>(
    py: Python<'_>,
    interrupt: &AtomicBool,
    worker: Worker,
    work: W,
    mut on_poll: P,
) -> Polled<T>
where
    T: Send,
    W: FnOnce() -> T + Send,
    P: FnMut(Python<'_>) -> PyResult<bool> + Send,
{
    if worker == Worker::Inline {
        let result = py.detach(|| std::panic::catch_unwind(AssertUnwindSafe(work)).ok());
        return Polled {
            result,
            sigints: 0,
            error: None,
            stop_asked: false,
        };
    }
    // off the main thread, Ctrl-C is counted here (see `sigints`)
    let mut counted = (!on_main_thread(py)).then(sigints::received);
    py.detach(|| {
        let (sender, receiver) = mpsc::channel();
        let job = move || {
            // `None` when the work panicked
            let _ = sender.send(std::panic::catch_unwind(AssertUnwindSafe(work)).ok());
        };
        let mut wait = move || {
            let (mut sigints, mut error, mut stop_asked) = (0u32, None::<PyErr>, false);
            let mut poll = || {
                Python::attach(|py| {
                    match on_poll(py) {
                        Ok(stop) => stop_asked |= stop,
                        Err(raised) => {
                            error.get_or_insert(raised);
                        }
                    }
                    if let Err(raised) = py.check_signals() {
                        if raised.is_instance_of::<PyKeyboardInterrupt>(py) {
                            sigints += 1;
                        } else {
                            error.get_or_insert(raised);
                        }
                    }
                    if let Some(seen) = counted.as_mut() {
                        let now = sigints::received();
                        sigints += u32::try_from(now - *seen).unwrap_or(u32::MAX);
                        *seen = now;
                    }
                    if sigints > 0 || stop_asked || error.is_some() {
                        interrupt.store(true, Ordering::Relaxed);
                    }
                })
            };
            let spin_until = Instant::now() + SPIN;
            let result = loop {
                let next = if Instant::now() < spin_until {
                    match receiver.try_recv() {
                        Ok(result) => Ok(result),
                        Err(mpsc::TryRecvError::Empty) => {
                            std::thread::yield_now();
                            continue;
                        }
                        Err(mpsc::TryRecvError::Disconnected) => {
                            Err(mpsc::RecvTimeoutError::Disconnected)
                        }
                    }
                } else {
                    receiver.recv_timeout(SIGNAL_POLL)
                };
                match next {
                    Ok(result) => break result,
                    Err(mpsc::RecvTimeoutError::Disconnected) => break None,
                    Err(mpsc::RecvTimeoutError::Timeout) => poll(),
                }
            };
            poll(); // a Ctrl-C, or events, that came as the work ended
            Polled {
                result,
                sigints,
                error,
                stop_asked,
            }
        };
        if worker == Worker::Pooled && rayon::current_thread_index().is_none() && pool_is_ours() {
            rayon::in_place_scope(|scope| {
                scope.spawn(|_| job());
                wait()
            })
        } else {
            std::thread::scope(|scope| {
                scope.spawn(job);
                wait()
            })
        }
    })
}

/// Runs `work` through [`poll_while`] under a budget of `time_limit` seconds whose
/// interrupt flag a Ctrl-C raises. The work sees the stop through its budget and returns
/// what it has. Returns its result and whether a Ctrl-C arrived (also one that came as the
/// work ended, which it did not see). A second Ctrl-C before the work has wound down raises
/// `KeyboardInterrupt`, and an exception raised by another signal handler is raised here.
/// The work runs on a pooled thread ([`Worker::Pooled`]) or, when `worker` says so, on the
/// calling thread ([`Worker::Inline`]); either way it must not call Python.
pub fn run_interruptible<T, F>(
    py: Python<'_>,
    time_limit: Option<f64>,
    worker: Worker,
    work: F,
) -> PyResult<(T, bool)>
where
    T: Send,
    F: FnOnce(Budget) -> T + Send,
{
    let interrupt = Arc::new(AtomicBool::new(false));
    let budget = Budget::new(duration_of(time_limit)?, Some(interrupt.clone()));
    let polled = poll_while(py, &interrupt, worker, move || work(budget), |_| Ok(false));
    if let Some(error) = polled.error {
        return Err(error);
    }
    if polled.sigints > 1 {
        return Err(PyKeyboardInterrupt::new_err(
            "second interrupt during the work",
        ));
    }
    let result = polled
        .result
        .ok_or_else(|| PyRuntimeError::new_err("the worker thread failed (internal error)"))?;
    Ok((result, polled.sigints == 1))
}
