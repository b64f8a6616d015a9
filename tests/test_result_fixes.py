"""Issue 12, item 5: wrong or broken results, each reproduced as the issue states it.

The JSON round trips, mixed labels and memory-limit messages have their own modules
(``test_roundtrip_all.py``, ``test_messages.py``)."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
from odtree import (
    OptimalTreeClassifier,
    OptimalTreeClusterer,
    OptimalTreeRegressor,
    _core,
    _interrupts,
)
from odtree.tree._base import rows_per_node


def _solve(solver, **kwargs):
    return solver.solve(_core.Config(max_depth=2), **kwargs)


def test_node_weights_come_from_the_core():
    """The binding summed the statistics vector: the squared-error root weighed 265.6
    instead of 60."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 3)).astype(np.uint8)
    targets = rng.normal(loc=2.0, size=60)
    weights = rng.uniform(0.5, 1.5, size=60)
    solver = _core.Solver(X, np.zeros(60, dtype=np.uint32), 1)
    for objective in ("squared_error", "absolute_error", "quantile", "centroid"):
        extra = ({"points": np.column_stack([targets, targets ** 2])} if objective == "centroid"
                 else {"targets": targets})
        for sample_weight in (None, weights):
            result = _solve(solver, objective=objective, sample_weight=sample_weight, **extra)
            expected = 60.0 if sample_weight is None else weights.sum()
            assert result["weighted_n_node_samples"][0] == pytest.approx(expected)


def test_regressor_node_weights_are_the_rows_weights():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(80, 4))
    y = X[:, 0] * 4.0 + rng.normal(size=80)
    weights = rng.uniform(0.1, 3.0, size=80)
    for criterion in ("squared_error", "absolute_error"):
        model = OptimalTreeRegressor(max_depth=2, criterion=criterion).fit(
            X, y, sample_weight=weights)
        rows = rows_per_node(model.tree_, X)
        expected = [weights[r].sum() for r in rows]
        np.testing.assert_allclose(model.tree_.weighted_n_node_samples, expected)


def test_clusterer_of_huge_points_fits():
    """Raised AttributeError: upper_bound."""
    points = np.random.default_rng(0).normal(size=(20, 2)) * 1e200
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = OptimalTreeClusterer(max_depth=2).fit(points)
    assert model.status_ == "optimal" and np.isfinite(model.objective_)


def test_a_clusterer_that_finds_no_tree_warns_without_upper_bound():
    """The infeasibility warning read ``self.upper_bound``, which clusterers do not have."""
    model = OptimalTreeClusterer(max_depth=1)
    model.status_ = "infeasible"
    with pytest.warns(UserWarning, match="upper_bound=None"):
        model._warn_status()


@pytest.mark.parametrize("objective,extra", [
    ("squared_error", {"targets": np.zeros(3)}),
    ("absolute_error", {"targets": np.zeros(3)}),
    ("quantile", {"targets": np.zeros(50)}),
    ("quantiles", {"targets": np.zeros(3), "quantiles": np.array([0.5])}),
    ("centroid", {"points": np.zeros((3, 2))}),
    ("centroid", {"points": np.zeros((40, 0))}),
    ("squared_error", {"targets": np.full(40, np.nan)}),
    ("centroid", {"points": np.full((40, 1), np.inf)}),
])
def test_private_solver_validates_targets_and_points(objective, extra):
    """The private solver panicked (a RuntimeError) on targets or points of the wrong length."""
    X = np.random.default_rng(0).integers(0, 2, size=(40, 2)).astype(np.uint8)
    solver = _core.Solver(X, np.zeros(40, dtype=np.uint32), 1)
    with pytest.raises(ValueError, match="targets|coordinates|points"):
        _solve(solver, objective=objective, **extra)


def test_a_huge_callback_result_gives_a_short_message():
    """A 10⁶-element list gave a 7.9-million-character message."""
    X = np.random.default_rng(0).integers(0, 2, size=(40, 2))
    y = X[:, 0] ^ X[:, 1]
    model = OptimalTreeClassifier(max_depth=2,
                                  fast_error_function=lambda w: list(range(10**6)))
    with pytest.raises(ValueError, match="fast_error_function") as error:
        model.fit(X, y)
    assert len(str(error.value)) < 300


def test_a_callback_that_always_raises_keyboard_interrupt():
    """Reported objective_=1e300 (the cost of a leaf never costed) as a result."""
    X = np.random.default_rng(0).integers(0, 2, size=(40, 2))
    y = X[:, 0] ^ X[:, 1]

    def interrupted(weights):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt, match="fast_error_function was interrupted"):
        OptimalTreeClassifier(max_depth=2, fast_error_function=interrupted).fit(X, y)


def test_a_callback_interrupted_midway_returns_a_costed_tree(monkeypatch):
    """A KeyboardInterrupt after some leaves were costed stops the search like Ctrl-C: the
    best tree so far, every leaf of it costed by the function."""
    # no earlier test's interrupt counts as the first of two
    monkeypatch.setattr(_interrupts, "_last_interrupt", [-np.inf])
    X = np.random.default_rng(1).integers(0, 2, size=(60, 6))
    y = (X[:, 0] ^ X[:, 1]) | X[:, 2]
    calls = [0]

    def leaf(weights):
        calls[0] += 1
        if calls[0] > 40:
            raise KeyboardInterrupt
        return float(weights.sum() - weights.max()), int(np.argmax(weights))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = OptimalTreeClassifier(max_depth=3, fast_error_function=leaf).fit(X, y)
    assert model.status_ == "interrupted" and model.objective_ < 1e300
    assert model.objective_ == (model.predict(X) != y).sum()


def test_two_threads_cannot_fit_one_estimator_at_once():
    """Both fits ran and left the estimator with parts of each."""
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(200, 6))
    y = X[:, 0] ^ X[:, 1]
    started = threading.Event()

    def slow(weights):
        started.set()
        threading.Event().wait(0.002)
        return float(weights.sum() - weights.max()), int(np.argmax(weights))

    model = OptimalTreeClassifier(max_depth=2, fast_error_function=slow)
    errors = []
    first = threading.Thread(target=lambda: model.fit(X, y))
    first.start()
    started.wait(10)
    try:
        model.fit(X, 1 - y)
    except RuntimeError as error:
        errors.append(error)
    first.join()
    assert len(errors) == 1 and "another thread" in str(errors[0])
    # the estimator holds the first fit alone, and can be fitted again afterwards
    assert model.objective_ == (model.predict(X) != y).sum()
    model.fit(X, 1 - y)
    assert (model.predict(X) == 1 - y).all()
