//! Locks shared between the search's threads.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Takes `mutex`, also when a thread panicked while holding it: every value the search's
/// threads guard stays valid between updates, so a panic elsewhere leaves it readable.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
