"""Cross-check against pystreed: the optimal training error must equal pystreed's.

Runs on every top-level benchmark set (``$ODTREE_DATA``, else ``../shared/datasets`` next to
the repository) at depths 2 and 3; the ``slow`` tier adds depth 4 under a time limit.
"""

import functools
import os
from pathlib import Path

import numpy as np
import pytest

pystreed = pytest.importorskip("pystreed")

DATA_DIR = Path(
    os.environ.get("ODTREE_DATA", Path(__file__).resolve().parents[2].parent / "shared/datasets")
)
DATASETS = sorted(
    path for path in DATA_DIR.glob("*.txt") if not path.name.startswith("LICENSE")
)
#: Seconds per fit. Depths 2 and 3 take well under a second with either solver.
TIME_LIMIT = 60.0
#: Seconds per fit at depth 4; an instance that either solver cannot prove in time is skipped.
SLOW_TIME_LIMIT = 120.0

if not DATASETS:
    pytest.skip(f"no benchmark sets in {DATA_DIR} (set ODTREE_DATA)", allow_module_level=True)


@functools.cache
def load(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` of a benchmark file (class first, then 0/1 features), read once per session."""
    table = np.loadtxt(path, dtype=np.int64, ndmin=2)  # whitespace split also drops a CR
    return table[:, 1:].astype(np.uint8), table[:, 0]


def streed_optimum(path: Path, depth: int, time_limit: float) -> float | None:
    """pystreed's optimal training error, or ``None`` if it found no proof in time."""
    X, y = load(path)
    clf = pystreed.STreeDClassifier(
        optimization_task="accuracy",
        max_depth=depth,
        min_leaf_node_size=1,
        time_limit=time_limit,
    ).fit(X.astype(np.intc), y)
    if not clf.fit_result.is_optimal():
        return None
    return float(np.count_nonzero(clf.predict(X.astype(np.intc)) != y))


def fit_odtree(path: Path, depth: int, time_limit: float):
    """Our classifier fitted on the benchmark set at ``path``."""
    from odtree import OptimalTreeClassifier  # imported here: needs the compiled extension

    X, y = load(path)
    return OptimalTreeClassifier(
        max_depth=depth, min_samples_leaf=1, time_limit=time_limit
    ).fit(X, y)


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("path", DATASETS, ids=lambda path: path.stem)
def test_optimum_matches_pystreed(path, depth):
    expected = streed_optimum(path, depth, TIME_LIMIT)
    assert expected is not None, "pystreed did not prove optimality"
    clf = fit_odtree(path, depth, TIME_LIMIT)
    assert clf.optimal_ and clf.status_ == "optimal"
    assert clf.objective_ == expected


@pytest.mark.slow
@pytest.mark.parametrize("path", DATASETS, ids=lambda path: path.stem)
def test_optimum_matches_pystreed_depth_4(path):
    expected = streed_optimum(path, 4, SLOW_TIME_LIMIT)
    if expected is None:
        pytest.skip(f"pystreed proved no optimum in {SLOW_TIME_LIMIT:g} s")
    clf = fit_odtree(path, 4, SLOW_TIME_LIMIT)
    assert clf.objective_ >= expected, "a tree beats the optimum pystreed proved"
    if not clf.optimal_:
        pytest.skip(f"odtree proved no optimum in {SLOW_TIME_LIMIT:g} s ({clf.status_})")
    assert clf.objective_ == expected
