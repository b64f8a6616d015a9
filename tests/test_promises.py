"""Each reproduction of the stress test of the newer public names (issue 30) that is not a
time limit: clear errors for bad input, no wrong "optimal", output that cannot fail a fit."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest
from odtree import (
    LPBoostClassifier,
    OptimalTreeClassifier,
    OptimalTreeClusterer,
    OptimalTreeRegressor,
    Solver,
    from_sklearn,
    improve_depth,
    to_sklearn,
)
from sklearn.datasets import load_breast_cancer, load_iris, make_friedman1
from sklearn.tree import DecisionTreeClassifier


def test_from_sklearn_refuses_a_tree_fitted_with_negative_weights():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 2, 40)
    weights = np.where(y == 1, -1.0, 3.0)
    tree = DecisionTreeClassifier(max_depth=2).fit(X, y, sample_weight=weights)
    with pytest.raises(ValueError, match="non-negative sample weights"):
        from_sklearn(tree)


@pytest.mark.parametrize("scale", [1e305, 1e-200])
def test_the_clusterer_refuses_coordinates_whose_distances_float64_cannot_hold(scale):
    X = np.array([[0.0], [1.0]])
    with pytest.raises(ValueError, match="rescale them"):
        OptimalTreeClusterer(max_depth=1).fit(X, X_error=np.array([[1.0], [2.0]]) * scale)
    with pytest.raises(ValueError, match="rescale them"):
        OptimalTreeClusterer(max_depth=1).fit(X * scale)
    # the same points at a scale float64 holds: two clusters of one point each
    model = OptimalTreeClusterer(max_depth=1).fit(X, X_error=np.array([[1.0], [2.0]]))
    assert model.objective_ == 0.0 and len(set(model.labels_)) == 2


def test_the_clusterer_refuses_complex_numbers():
    X = np.array([[0.0], [1.0]])
    with pytest.raises(ValueError, match="complex"):
        OptimalTreeClusterer(max_depth=1).fit(X, X_error=np.array([[1j], [2.0]]))
    with pytest.raises(ValueError, match="(?i)complex"):
        OptimalTreeClusterer(max_depth=1).fit(X + 1j)


def test_to_sklearn_names_what_it_takes():
    X, y = make_friedman1(60, random_state=0)
    regressor = OptimalTreeRegressor(max_depth=1).fit(X, y)
    with pytest.raises(TypeError, match="OptimalTreeRegressor"):
        to_sklearn(regressor)
    X, y = load_iris(return_X_y=True)
    forest = LPBoostClassifier(max_depth=1, max_iterations=2).fit(X, y == 0)
    with pytest.raises(TypeError, match="LPBoostClassifier"):
        to_sklearn(forest)


def test_nan_is_refused_by_odtree_and_routed_by_the_exported_tree_as_documented():
    X, y = load_iris(return_X_y=True)
    model = OptimalTreeClassifier(max_depth=2).fit(X, y)
    rows = X[:3].copy()
    rows[:, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model.predict(rows)
    assert len(to_sklearn(model).predict(rows)) == 3  # scikit-learn's routing applies
    assert "routes them as scikit-learn does" in type(model).predict.__doc__
    assert "without a word" in to_sklearn.__doc__


def test_several_quantiles_take_a_leaf_budget_as_each_quantile_alone_does():
    X, y = make_friedman1(100, random_state=0)
    both = OptimalTreeRegressor(criterion="quantile", quantiles=[0.2, 0.8], max_depth=2,
                                max_leaf_nodes=2).fit(X, y)
    for quantile, objective in zip([0.2, 0.8], both.objectives_, strict=True):
        alone = OptimalTreeRegressor(criterion="quantile", quantile=quantile, max_depth=2,
                                     max_leaf_nodes=2).fit(X, y)
        assert alone.get_n_leaves() <= 2
        assert objective == pytest.approx(alone.objective_)


def test_the_solver_checks_what_it_predicts_on():
    X = np.random.default_rng(0).integers(0, 2, (40, 5))
    y = np.where(X[:, 0] ^ X[:, 1], "yes", "no")
    solver = Solver(X, y)
    solution = solver.solve(max_depth=2)
    # class indices, positions in classes_ (as documented), not the labels
    assert set(solution.predict(X).tolist()) <= {0.0, 1.0}
    assert (solver.classes_[solution.predict(X).astype(int)] == y).all()
    for wrong in (X[:, :4], np.hstack([X, X[:, :1]])):
        with pytest.raises(ValueError, match="columns"):
            solution.predict(wrong)
    with pytest.raises(ValueError, match="NaN"):
        solution.predict(np.where(X == 1, np.nan, 0.0))
    with pytest.raises(ValueError, match="only 0 and 1"):
        solution.predict(X * 2)
    with pytest.raises(ValueError, match="max_depth"):
        solver.solve(max_depth=-1)
    with pytest.raises(ValueError, match="min_samples_leaf"):
        solver.solve(min_samples_leaf=0)


def test_the_solver_checks_a_wide_uint8_matrix_without_widening_it():
    X = np.zeros((20_000, 500), dtype=np.uint8)
    X[::2, 0] = 1
    import tracemalloc

    tracemalloc.start()
    Solver(X, X[:, 0])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 * X.nbytes  # an int64 copy alone would be 8 times X


@pytest.mark.parametrize("wrong", [{"oracle": "nope"}, {"random_state": "abc"},
                                   {"time_limit": -1}, {"sat_timeout": -5},
                                   {"max_errors": -1}])
def test_improve_depth_names_a_bad_parameter(wrong):
    X, y = load_iris(return_X_y=True)
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=next(iter(wrong))):
        improve_depth(tree, X, **wrong)


def test_progress_that_cannot_be_written_does_not_fail_the_fit(monkeypatch):
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr(sys, "stdout", closed)
    X, y = load_breast_cancer(return_X_y=True)
    model = OptimalTreeClassifier(max_depth=2, verbose=1, thresholds="quantile").fit(X, y)
    assert model.status_ == "optimal"
