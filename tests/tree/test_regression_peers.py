"""Cross-check regression against pystreed: the optimal sum of squared errors must be pystreed's.

Both solvers get the same 0/1 matrix (the raw columns binarized once, before either fit) and
the same problem: maximum depth ``d``, at least one row per leaf, no node limit, no penalty.
pystreed's task ``"regression"`` minimises the same sum of squared errors as
``OptimalTreeRegressor(criterion="squared_error")``, but reports it as a mean
(``fit_result.score()`` is the MSE). The comparison therefore recomputes the SSE of each
solver's predictions on the training rows, which is what ``objective_`` must equal.
"""

import functools

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, make_friedman1

pystreed = pytest.importorskip("pystreed")

#: Thresholds per raw column: 45 and 50 binary features, so every fit takes well under a second.
N_THRESHOLDS = 5
#: Seconds per fit; both solvers prove these instances optimal in milliseconds.
TIME_LIMIT = 60.0
#: Relative tolerance between two sums of squares accumulated in different orders.
RELATIVE_TOLERANCE = 1e-9


def _diabetes():
    return load_diabetes(return_X_y=True)


def _friedman1():
    return make_friedman1(n_samples=300, random_state=0)


DATASETS = {"diabetes": _diabetes, "friedman1": _friedman1}


@functools.cache
def binary_data(name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(X01, y)``: the raw columns of ``name`` as quantile-threshold tests, computed once."""
    from odtree import Binarizer  # imported here: needs the compiled extension

    X, y = DATASETS[name]()
    X01 = Binarizer(n_thresholds=N_THRESHOLDS).fit_transform(X).astype(np.uint8)
    assert np.isin(X01, (0, 1)).all()
    return X01, y.astype(np.float64)


def sse(y: np.ndarray, prediction: np.ndarray) -> float:
    """The sum of squared errors of ``prediction``."""
    return float(np.sum((y - prediction) ** 2))


def streed_sse(X01: np.ndarray, y: np.ndarray, depth: int) -> float:
    """SSE of pystreed's optimal regression tree of depth ``depth`` on the training rows."""
    X = X01.astype(np.intc)
    reg = pystreed.STreeDRegressor(
        optimization_task="regression",  # not "cost-complex-regression": no branch cost
        max_depth=depth,
        max_num_nodes=None,
        min_leaf_node_size=1,
        cost_complexity=0.0,
        time_limit=TIME_LIMIT,
    ).fit(X, y)
    assert reg.fit_result.is_optimal(), "pystreed did not prove optimality"
    training_sse = sse(y, reg.predict(X))
    # pystreed's own score is the mean squared error: its optimum in its unit
    assert reg.fit_result.score() * len(y) == pytest.approx(training_sse, rel=RELATIVE_TOLERANCE)
    return training_sse


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("name", list(DATASETS))
def test_squared_error_optimum_matches_pystreed(name, depth):
    from odtree import OptimalTreeRegressor

    X01, y = binary_data(name)
    expected = streed_sse(X01, y, depth)
    reg = OptimalTreeRegressor(
        max_depth=depth, min_samples_leaf=1, time_limit=TIME_LIMIT, criterion="squared_error"
    ).fit(X01, y)
    assert reg.status_ == "optimal"
    # 0/1 columns reach the search as they are
    assert [feature.kind for feature in reg.binary_features_] == ["binary"] * X01.shape[1]
    assert reg.objective_ == pytest.approx(sse(y, reg.predict(X01)), rel=RELATIVE_TOLERANCE)
    assert reg.objective_ == pytest.approx(expected, rel=RELATIVE_TOLERANCE)
