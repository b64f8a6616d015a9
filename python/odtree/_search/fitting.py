"""One fit at a time per estimator object: a second thread's fit, or a fit from inside the
object's own progress callback, raises instead of leaving the object with parts of two fits."""

from __future__ import annotations

import functools
import threading
import time

from .progress import CALLING_BACK

#: The estimators being fitted, by id, with the thread fitting each.
_fitting: dict[int, int] = {}
_fitting_lock = threading.Lock()


def one_fit_at_a_time(fit):
    """Wraps ``fit`` so that it records when it started (for the time limit), and raises
    instead of letting two threads fit the same object at once, which would leave it with
    parts of two fits."""

    @functools.wraps(fit)
    def guarded(self, *args, **kwargs):
        key, thread = id(self), threading.get_ident()
        with _fitting_lock:
            owner = _fitting.get(key)
            if owner is not None and owner != thread:
                raise RuntimeError(
                    f"{type(self).__name__}.fit is already running on this object in another "
                    "thread; give each thread its own copy (sklearn.base.clone)")
            if owner == thread and getattr(CALLING_BACK, "active", False):
                raise RuntimeError(
                    f"{type(self).__name__}.fit was called from inside its own progress "
                    "callback; fit a copy (sklearn.base.clone) after this fit returns")
            _fitting[key] = thread
        try:
            if owner is None:
                self._fit_started = time.monotonic()
            return fit(self, *args, **kwargs)
        finally:
            if owner is None:
                with _fitting_lock:
                    del _fitting[key]

    return guarded
