"""Costs are compared relative to the scale of the data, so multiplying
weights, targets or points by any factor in [1e-12, 1e12] gives the same tree, and the
objective scaled by the same factor."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from odtree import OptimalTreeClassifier, OptimalTreeClusterer, OptimalTreeRegressor

FACTORS = [1e-12, 1e-6, 1.0, 1e6, 1e12]


def _xor_data(n_rows=40, seed=0):
    """Binary features whose class is the XOR of the first two, plus two noise columns and
    a few flipped labels: the optimum at depth 2 needs both tests."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n_rows, 4))
    y = X[:, 0] ^ X[:, 1]
    y[:3] ^= 1
    return X, y


def _regression_data(seed=1):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(60, 5))
    y = 3.0 * X[:, 0] - 2.0 * X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=60)
    return X, y


def _tree(model) -> tuple:
    tree = model.tree_
    return (tree.feature.tolist(), tree.children_left.tolist(), tree.children_right.tolist())


def _assert_same_at_every_scale(fit_at):
    """``fit_at(factor)`` fits a model on data scaled by ``factor``; every factor must give
    the tree of factor 1 and the objective of factor 1 times the factor."""
    reference = fit_at(1.0)
    assert reference.get_n_leaves() > 1  # the problem is not trivial
    for factor in FACTORS:
        model = fit_at(factor)
        assert model.status_ == "optimal"
        assert _tree(model) == _tree(reference), f"factor {factor}"
        assert model.objective_ == pytest.approx(reference.objective_ * factor, rel=1e-7)


@pytest.mark.parametrize("cache", ["trie", "hash", "dataset"])
def test_classifier_weights(cache):
    X, y = _xor_data()
    # weights of 1e-12 once gave one leaf, marked optimal
    tiny = OptimalTreeClassifier(max_depth=2, cache=cache).fit(
        X, y, sample_weight=np.full(40, 1e-12))
    assert tiny.get_n_leaves() == 4 and tiny.objective_ == pytest.approx(3e-12)
    weights = np.random.default_rng(2).uniform(0.5, 2.0, size=40)
    _assert_same_at_every_scale(lambda f: OptimalTreeClassifier(max_depth=2, cache=cache).fit(
        X, y, sample_weight=weights * f))


def test_classifier_unit_weights_and_ccp_alpha():
    X, y = _xor_data(seed=3)
    _assert_same_at_every_scale(lambda f: OptimalTreeClassifier(max_depth=3, ccp_alpha=0.01).fit(
        X, y, sample_weight=np.full(len(y), f)))


def test_cost_matrix_scaled_by_weights_and_by_costs():
    X, y = _xor_data(seed=4)
    costs = np.array([[0.0, 1.0], [3.0, 0.0]])
    _assert_same_at_every_scale(lambda f: OptimalTreeClassifier(max_depth=2, cost_matrix=costs).fit(
        X, y, sample_weight=np.full(len(y), f)))
    _assert_same_at_every_scale(
        lambda f: OptimalTreeClassifier(max_depth=2, cost_matrix=costs * f).fit(X, y))


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error", "quantile"])
def test_regressor_targets(criterion):
    X, y = _regression_data()
    # squared error scales with the square of the targets
    power = 2 if criterion == "squared_error" else 1

    def fit_at(factor):
        scale = factor ** (1 / power)
        return OptimalTreeRegressor(max_depth=2, criterion=criterion, quantile=0.3).fit(
            X, y * scale)

    _assert_same_at_every_scale(fit_at)
    # targets times 1e-5 once gave one leaf
    assert OptimalTreeRegressor(max_depth=2).fit(X, y * 1e-5).get_n_leaves() > 1


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error"])
def test_regressor_weights(criterion):
    X, y = _regression_data(seed=5)
    _assert_same_at_every_scale(lambda f: OptimalTreeRegressor(max_depth=2, criterion=criterion)
                                .fit(X, y, sample_weight=np.full(len(y), f)))


def test_clusterer_points():
    rng = np.random.default_rng(6)
    centres = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0], [5.0, 5.0]])
    points = np.repeat(centres, 10, axis=0) + rng.normal(scale=0.7, size=(40, 2))

    def fit_at(factor):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no infeasibility or overflow warning
            return OptimalTreeClusterer(max_depth=2, n_thresholds=4).fit(points * factor)

    _assert_same_at_every_scale(fit_at)
    # points times 1e-11 once gave one cluster
    assert OptimalTreeClusterer(max_depth=2).fit(points * 1e-11).get_n_leaves() > 1


def test_quantiles_in_one_search():
    X, y = _regression_data(seed=7)

    def fit_at(factor):
        return OptimalTreeRegressor(max_depth=2, criterion="quantile",
                                    quantiles=[0.2, 0.8]).fit(X, y * factor)

    reference = fit_at(1.0)
    for factor in FACTORS:
        model = fit_at(factor)
        assert [t.feature.tolist() for t in model.trees_] == \
            [t.feature.tolist() for t in reference.trees_]
        assert model.objective_ == pytest.approx(reference.objective_ * factor, rel=1e-7)
