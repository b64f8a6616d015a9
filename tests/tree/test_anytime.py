"""Anytime behaviour: time limit, Ctrl-C during fit, and the GIL released during the search."""

import json
import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest
from conftest import data_path, redundant_splits
from odtree import NotOptimalWarning, OptimalTreeClassifier

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def slack(time_limit):
    """The longest a fit with this time limit may take."""
    return time_limit * 1.1 + 0.4


def assert_valid_incumbent(model, X, y, max_depth):
    assert model.optimal_ is False
    assert 0 <= model.lower_bound_ <= model.objective_
    assert model.objective_ == float(np.sum(model.predict(X) != y))
    assert model.get_depth() <= max_depth
    model.tree_.validate(len(model.binary_features_))
    # the incumbent is never worse than the best single leaf, and holds no useless split
    assert model.objective_ <= len(y) - np.bincount(y).max()
    assert redundant_splits(model, X) == []


@pytest.mark.parametrize("name, search, cache", [
    ("pendigits", "murtree", "trie"),
    # ionosphere has a perfect depth-5 tree, which MurTree's lookahead finds in 0.2 s: that
    # fit is optimal at once (tests/search/test_proven_optimum.py)
    ("german-credit", "murtree", "hash"),
    ("ionosphere", "dl85", "trie"),
])
def test_time_limit_returns_best_tree_so_far(load, name, search, cache):
    X, y = load(name)
    model = OptimalTreeClassifier(max_depth=5, time_limit=1, search=search, cache=cache)
    start = time.perf_counter()
    with pytest.warns(NotOptimalWarning, match="time limit"):
        model.fit(X, y)
    elapsed = time.perf_counter() - start
    assert elapsed <= slack(1), elapsed
    assert model.fit_time_ <= elapsed
    assert model.status_ == "time_limit"
    assert_valid_incumbent(model, X, y, 5)
    assert model.predict_proba(X).shape == (len(y), 2)


def test_zero_time_limit_still_gives_a_tree(load):
    X, y = load("pendigits")
    start = time.perf_counter()
    with pytest.warns(NotOptimalWarning):
        model = OptimalTreeClassifier(max_depth=5, time_limit=0).fit(X, y)
    assert time.perf_counter() - start <= slack(0)
    assert model.status_ == "time_limit"
    assert_valid_incumbent(model, X, y, 5)


def test_time_limit_not_reached_is_optimal(load):
    X, y = load("vote")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = OptimalTreeClassifier(max_depth=3, time_limit=30).fit(X, y)
    assert model.status_ == "optimal" and model.optimal_
    assert model.objective_ == model.lower_bound_ == 12.0


def test_time_limit_respected_by_dl85_hash(load):
    """Millions of hash-cache entries are freed within the slack (keys are stored flat)."""
    X, y = load("ionosphere")
    model = OptimalTreeClassifier(max_depth=3, time_limit=4, search="dl85", cache="hash")
    start = time.perf_counter()
    with pytest.warns(NotOptimalWarning):
        model.fit(X, y)
    elapsed = time.perf_counter() - start
    assert model.status_ == "time_limit"
    assert elapsed <= slack(4), elapsed


# --------------------------------------------------------------------------- Ctrl-C

CHILD_PRELUDE = """
import json, signal, sys, warnings
import numpy as np
from odtree import OptimalTreeClassifier

signal.signal(signal.SIGINT, signal.default_int_handler)  # even if the parent ignores SIGINT
data = np.loadtxt({path!r}, dtype=np.int64)
X, y = data[:, 1:], data[:, 0]
"""

ONE_FIT = CHILD_PRELUDE + """
model = OptimalTreeClassifier(max_depth=5, time_limit=60)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("FIT STARTS", flush=True)
    model.fit(X, y)
print(json.dumps({{
    "status": model.status_, "optimal": model.optimal_, "objective": model.objective_,
    "lower_bound": model.lower_bound_, "fit_time": model.fit_time_,
    "errors": int(np.sum(model.predict(X) != y)),
    "warnings": [w.category.__name__ for w in caught],
}}), flush=True)
"""

MANY_FITS = CHILD_PRELUDE + """
warnings.simplefilter("ignore")
print("FIT STARTS", flush=True)
for _ in range(100):  # like a grid search: many long fits in a row
    OptimalTreeClassifier(max_depth=5, time_limit=30).fit(X, y)
print("LOOP FINISHED", flush=True)
"""


def start_child(script):
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    lines = []
    reader = threading.Thread(target=lambda: lines.append(child.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout=60)
    if not lines or "FIT STARTS" not in lines[0]:
        child.kill()
        pytest.fail(f"the child never started its fit: {child.communicate()}")
    time.sleep(1.0)  # let it get deep into the search
    assert child.poll() is None, "the fit ended before the interrupt"
    return child


def finish_child(child, timeout=60):
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
        pytest.fail(f"the child did not stop after SIGINT: {out!r} {err!r}")
    return out, err


def test_first_ctrl_c_stops_the_search_and_returns_incumbent():
    child = start_child(ONE_FIT.format(path=str(data_path() / "pendigits.txt")))
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, err = finish_child(child)
    assert time.monotonic() - sent < 10, "the interrupt was not acted upon promptly"
    assert child.returncode == 0, err
    assert "KeyboardInterrupt" not in err
    result = json.loads(out.strip().splitlines()[-1])
    assert result["status"] == "interrupted"
    assert result["optimal"] is False
    assert "NotOptimalWarning" in result["warnings"]
    assert 0 <= result["lower_bound"] <= result["objective"]
    assert result["objective"] == result["errors"]  # the incumbent is a real, usable tree
    assert result["fit_time"] < 30


def test_two_ctrl_c_raise_keyboard_interrupt():
    child = start_child(MANY_FITS.format(path=str(data_path() / "pendigits.txt")))
    child.send_signal(signal.SIGINT)
    time.sleep(0.3)
    if child.poll() is None:
        child.send_signal(signal.SIGINT)
    out, err = finish_child(child)
    assert child.returncode != 0
    assert "KeyboardInterrupt" in err
    assert "LOOP FINISHED" not in out


# --------------------------------------------------------------------------- GIL


def test_gil_released_during_search(load):
    X, y = load("pendigits")
    model = OptimalTreeClassifier(max_depth=5, time_limit=2)
    errors = []

    def fit():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", NotOptimalWarning)
                model.fit(X, y)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    worker = threading.Thread(target=fit)
    worker.start()
    time.sleep(0.5)  # past the Python-side validation, into the search
    iterations = 0
    search_running = worker.is_alive()
    deadline = time.monotonic() + 30
    while worker.is_alive() and time.monotonic() < deadline:
        iterations += 1
    worker.join(timeout=30)
    assert not worker.is_alive()
    assert errors == []
    assert search_running, "the fit ended before the main thread could measure anything"
    assert model.status_ == "time_limit"
    assert iterations > 1000, iterations
