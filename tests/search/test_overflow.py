"""Costs either compute without overflow or the input is refused with a
ValueError that names it; never a wrong "optimal"."""

from __future__ import annotations

import numpy as np
import pytest
from odtree import OptimalTreeClassifier, OptimalTreeClusterer, OptimalTreeRegressor


def _data(seed=0, n_rows=50):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n_rows, 4))
    y = 2.0 * X[:, 0] + X[:, 1] + rng.normal(scale=0.1, size=n_rows)
    return X, y


def test_a_cost_matrix_that_overflows_is_refused():
    X, _ = _data()
    y = X[:, 0] ^ X[:, 1]  # a tree of cost 0 exists, but the costs of others do not fit
    model = OptimalTreeClassifier(max_depth=2, cost_matrix=[[0, 1e308], [1e308, 0]])
    with pytest.raises(ValueError, match="cost matrix"):
        model.fit(X, y)


def test_squared_errors_that_overflow_are_refused():
    X, y = _data()
    with pytest.raises(ValueError, match="squared errors of the targets overflow"):
        OptimalTreeRegressor(max_depth=2).fit(X, y * 2e200 - 1e200)


@pytest.mark.parametrize("criterion", ["absolute_error", "quantile"])
def test_huge_targets_that_fit_are_solved_exactly(criterion):
    X, y = _data(seed=1)
    small = OptimalTreeRegressor(max_depth=2, criterion=criterion).fit(X, y)
    huge = OptimalTreeRegressor(max_depth=2, criterion=criterion).fit(X, y * 2e200 - 1e200)
    assert huge.status_ == "optimal" and huge.get_n_leaves() > 1
    # the loss is the same up to the factor: neither shifting nor scaling changes the tree
    assert huge.tree_.feature.tolist() == small.tree_.feature.tolist()
    assert huge.objective_ == pytest.approx(small.objective_ * 2e200, rel=1e-9)


def test_huge_points_are_clustered_and_overflowing_ones_refused():
    rng = np.random.default_rng(2)
    points = np.vstack([rng.normal(size=(10, 2)), rng.normal(size=(10, 2)) + 6])
    small = OptimalTreeClusterer(max_depth=2).fit(points)
    huge = OptimalTreeClusterer(max_depth=2).fit(points * 1e200)  # was AttributeError
    assert huge.tree_.feature.tolist() == small.tree_.feature.tolist()
    assert huge.objective_ == pytest.approx(small.objective_ * 1e200, rel=1e-9)
    with pytest.raises(ValueError, match="distances between the points overflow"):
        OptimalTreeClusterer(max_depth=2).fit(points * 1e307)


def test_weights_near_the_largest_float():
    X, _ = _data(seed=3)
    y = X[:, 1]
    model = OptimalTreeClassifier(max_depth=2).fit(X, y, sample_weight=np.full(50, 1e305))
    assert model.objective_ == 0.0 and model.status_ == "optimal"
    # a total of 1e308 fits a float, but the search's sums of two costs would not
    with pytest.raises(ValueError, match="overflow"):
        OptimalTreeClassifier(max_depth=2).fit(X, X[:, 0] ^ X[:, 2],
                                               sample_weight=np.full(50, 2e306))
    with pytest.raises(ValueError, match="sample_weight sums to infinity"):
        OptimalTreeClassifier(max_depth=2).fit(X, y, sample_weight=np.full(50, 1e307))
