"""One uniform runner per optimal-tree solver, and the worker that times one run.

``run(solver_name, X, y, depth, time_limit)`` fits a fresh estimator once and returns
``dict(objective, optimal, timed_out, seconds)``:

- ``objective``: training misclassifications of the returned tree (``None`` if no tree);
- ``optimal``: the solver proved the tree optimal;
- ``timed_out``: the solver stopped at its time limit;
- ``seconds``: wall time of the ``fit`` call alone (imports and data conversion excluded).

Every solver gets the 0/1 features as given, with min leaf size 1 and no node-count limit.

Run as a script (``python benchmarks/_solvers.py JOB_JSON``), this module is the worker that
``compare.py`` starts once per run, so that a crashing or memory-hungry solver cannot take the
harness down. The worker prints one JSON object on stdout; anything the solver prints is
discarded at the file-descriptor level.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

#: Fits that take less than this many seconds are repeated and the fastest run is kept.
REPEAT_BELOW_SECONDS = 0.05
#: At most this many fits per run ...
MAX_REPEATS = 5
#: ... and no new fit once the fits so far took this many seconds in total.
MAX_REPEAT_SECONDS = 0.5


def load_dataset(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """Read a benchmark file: whitespace-separated integers, class first, one row per line.

    Handles CRLF line endings. Returns ``(X, y)`` with ``X`` as uint8 0/1 features and
    ``y`` as int64 class labels.
    """
    rows = [line.split() for line in Path(path).read_text().splitlines() if line.strip()]
    table = np.array(rows, dtype=np.int64)
    X, y = table[:, 1:], table[:, 0]
    if not np.isin(X, (0, 1)).all():
        raise ValueError(f"{path}: features must be 0 or 1")
    return X.astype(np.uint8), y


@dataclass(frozen=True)
class Solver:
    """How to build, feed and read one solver.

    ``make(depth, time_limit)`` returns an unfitted estimator (importing the package happens
    here, before the timer starts); ``read(estimator, X, y)`` returns ``objective``,
    ``optimal`` and ``timed_out`` from the fitted estimator's attributes. ``dtype`` is the
    feature dtype the solver validates to, so that conversion happens outside the timer.
    """

    distribution: str
    dtype: type
    make: Callable[[int, float | None], Any]
    read: Callable[[Any, np.ndarray, np.ndarray], dict]


def _make_odtree(depth, time_limit):
    from odtree import OptimalTreeClassifier

    return OptimalTreeClassifier(max_depth=depth, min_samples_leaf=1, time_limit=time_limit)


def _read_odtree(clf, X, y):
    return {
        "objective": float(clf.objective_),
        "optimal": bool(clf.optimal_),
        "timed_out": clf.status_ == "time_limit",
    }


@functools.cache
def _streed_on_binary_features():
    """``STreeDClassifier`` with its binarizer bypassed.

    pystreed 1.4.0 has no switch to skip its ``Binarizer``. On all-0/1 input the binarizer is
    an identity that still scans every column (about 35 ms on pendigits), so it is skipped:
    the solver then sees the columns exactly as given. ``load_dataset`` guarantees 0/1.
    """
    from pystreed import STreeDClassifier

    class BinarySTreeDClassifier(STreeDClassifier):
        def _binarize_data(self, X, y=None, categorical_columns=None, reset=True):
            return X

    return BinarySTreeDClassifier


def _make_pystreed(depth, time_limit):
    return _streed_on_binary_features()(
        optimization_task="accuracy",
        max_depth=depth,
        max_num_nodes=None,
        min_leaf_node_size=1,
        # pystreed requires a finite positive limit.
        time_limit=1e9 if time_limit is None else time_limit,
        hyper_tune=False,
    )


def _read_pystreed(clf, X, y):
    # pystreed deletes fit_result when it found no tree: for the accuracy task, only when the
    # time limit stopped it first.
    if not hasattr(clf, "fit_result"):
        return {"objective": None, "optimal": False, "timed_out": True}
    # fit_result.score() is the accuracy; count the errors exactly instead.
    optimal = clf.fit_result.is_optimal()
    return {
        "objective": float(np.count_nonzero(clf.predict(X) != y)),
        "optimal": optimal,
        # For the accuracy task only the time limit stops the search before a proof.
        "timed_out": not optimal,
    }


def _make_pytrees(depth, time_limit):
    from pytrees import DL85Classifier

    return DL85Classifier(
        max_depth=depth,
        min_sup=1,
        max_time=math.inf if time_limit is None else time_limit,
    )


def _read_pytrees(clf, X, y):
    found = clf.tree_ is not None
    return {
        "objective": float(clf.train_error_) if found else None,
        "optimal": clf.status_ == "optimal",
        "timed_out": clf.status_ == "time_limit",
    }


def _make_pydl85(depth, time_limit):
    import dl85Optimizer  # noqa: F401  (pydl85 imports it inside fit: import it untimed)
    from pydl85 import DL85Classifier

    return DL85Classifier(
        max_depth=depth,
        min_sup=1,
        time_limit=0 if time_limit is None else time_limit,  # 0 means no limit
    )


def _read_pydl85(clf, X, y):
    found = clf.tree_ is not None
    return {
        "objective": float(clf.error_) if found else None,
        "optimal": found and not clf.timeout_,
        "timed_out": bool(clf.timeout_),
    }


SOLVERS: dict[str, Solver] = {
    "odtree": Solver("odtree", np.uint8, _make_odtree, _read_odtree),
    "pystreed": Solver("pystreed", np.intc, _make_pystreed, _read_pystreed),
    "pytrees-rs": Solver("pytrees-rs", np.float64, _make_pytrees, _read_pytrees),
    "pydl8-5": Solver("pydl8.5", np.int32, _make_pydl85, _read_pydl85),
}


def run(solver_name: str, X, y, depth: int, time_limit: float | None) -> dict:
    """Fit ``solver_name`` once on ``(X, y)`` and report the result.

    Returns ``dict(objective, optimal, timed_out, seconds)``; see the module docstring.
    """
    solver = SOLVERS[solver_name]
    X = np.ascontiguousarray(X, dtype=solver.dtype)
    estimator = solver.make(depth, time_limit)
    start = time.perf_counter()
    estimator.fit(X, y)
    seconds = time.perf_counter() - start
    return {**solver.read(estimator, X, y), "seconds": seconds}


def run_repeated(solver_name: str, X, y, depth: int, time_limit: float | None) -> dict:
    """``run``, repeated while fits are short; keeps the fastest time.

    A fit under ``REPEAT_BELOW_SECONDS`` is repeated up to ``MAX_REPEATS`` fits or
    ``MAX_REPEAT_SECONDS`` in total. Adds ``runs`` (fits timed) to the result, and raises if
    a repeat returns a different objective or optimality.
    """
    first = run(solver_name, X, y, depth, time_limit)
    times = [first["seconds"]]
    while (
        first["seconds"] < REPEAT_BELOW_SECONDS
        and len(times) < MAX_REPEATS
        and sum(times) < MAX_REPEAT_SECONDS
    ):
        again = run(solver_name, X, y, depth, time_limit)
        if (again["objective"], again["optimal"]) != (first["objective"], first["optimal"]):
            raise RuntimeError(f"repeated fit disagrees with the first: {again} vs {first}")
        times.append(again["seconds"])
    return {**first, "seconds": min(times), "runs": len(times)}


def _worker(job: dict) -> dict:
    """Run one job ``{solver, path, depth, time_limit}`` and return its JSON-ready result."""
    X, y = load_dataset(job["path"])
    result = run_repeated(job["solver"], X, y, job["depth"], job["time_limit"])
    return {**result, "version": version(SOLVERS[job["solver"]].distribution)}


def main(argv: list[str]) -> None:
    """Worker entry point: ``_solvers.py JOB_JSON`` prints the result as one JSON line."""
    (job_json,) = argv
    result_stream = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    # Solvers print from Python and from C/C++/Rust: silence fd 1 itself, not just sys.stdout.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    result = _worker(json.loads(job_json))
    result_stream.write(json.dumps(result) + "\n")
    result_stream.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
