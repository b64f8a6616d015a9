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
from odtree.exceptions import NotOptimalWarning
from sklearn.datasets import load_breast_cancer, load_iris, make_friedman1
from sklearn.tree import DecisionTreeClassifier


def test_from_sklearn_refuses_a_tree_fitted_with_negative_weights():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 2, 40)
    weights = np.where(y == 1, -1.0, 3.0)
    tree = DecisionTreeClassifier(max_depth=2).fit(X, y, sample_weight=weights)
    with pytest.raises(ValueError, match="non-negative sample weights"):
        from_sklearn(tree)


@pytest.mark.parametrize("scale", [1e300, 1e305, 1e306])
def test_the_clusterer_separates_huge_points_or_refuses_them(scale):
    X = np.array([[0.0], [1.0]])
    model = OptimalTreeClusterer(max_depth=1).fit(X, X_error=np.array([[1.0], [2.0]]) * scale)
    assert model.status_ == "optimal" and model.objective_ == 0.0
    assert sorted(model.labels_.tolist()) == [0, 1]
    with pytest.raises(ValueError, match="overflow"):
        OptimalTreeClusterer(max_depth=1).fit(X, X_error=np.array([[1.0], [9.87]]) * 1e307)


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


def test_json_keeps_the_anytime_log_the_pareto_front_and_the_cache_figures():
    from odtree import from_json, plot_anytime, to_json

    X, y = load_breast_cancer(return_X_y=True)
    model = OptimalTreeClassifier(max_depth=3, thresholds="quantile").fit(X, y)
    loaded = from_json(to_json(model))
    np.testing.assert_array_equal(loaded.anytime_log_, model.anytime_log_)
    assert loaded.cache_peak_bytes_ == model.cache_peak_bytes_
    assert loaded.n_wipes_ == model.n_wipes_
    plot_anytime(loaded)  # needs the log
    f1 = OptimalTreeClassifier(max_depth=2, criterion="f1", thresholds="quantile").fit(X, y)
    np.testing.assert_array_equal(from_json(to_json(f1)).pareto_front_, f1.pareto_front_)


def test_to_json_of_a_model_holding_a_tree_says_where_the_tree_is():
    from odtree import OptimalTreeCV, to_json

    X, y = load_iris(return_X_y=True)
    search = OptimalTreeCV(depths=(1, 2), cv=3).fit(X, y)
    with pytest.raises(TypeError, match="best_estimator_"):
        to_json(search)


def test_a_fit_from_inside_its_own_callback_is_refused_at_once():
    X, y = load_breast_cancer(return_X_y=True)
    model = OptimalTreeClassifier(max_depth=3, thresholds="midpoints", time_limit=20)
    model.set_params(callback=lambda event: model.fit(X, y))
    with pytest.raises(RuntimeError, match="inside its own progress callback"):
        model.fit(X, y)


@pytest.mark.parametrize("name", ["GreedyTreeClassifier", "DistinctTreeSelector"])
def test_one_object_fitted_from_two_threads_is_refused(name):
    import threading

    import odtree

    estimator = getattr(odtree, name)()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200_000 if name == "GreedyTreeClassifier" else 3_000, 8))
    y = rng.integers(0, 2, len(X))
    errors = []

    def fit(columns):
        try:
            estimator.fit(X[:, :columns], y)
        except RuntimeError as error:
            errors.append(str(error))

    threads = [threading.Thread(target=fit, args=(c,)) for c in (8, 6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(errors) == 1 and "another thread" in errors[0]
    # the fit that ran left a consistent model
    assert estimator.n_features_in_ in (8, 6)
    use = estimator.predict if hasattr(estimator, "predict") else estimator.transform
    assert len(use(X[:5, :estimator.n_features_in_])) == 5


def test_a_forest_stopped_before_its_first_tree_says_so():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.warns(NotOptimalWarning, match="forest is empty"):
        LPBoostClassifier(max_depth=1, time_limit=0).fit(X, y)


def test_a_binary_matrix_larger_than_free_memory_is_refused_up_front(monkeypatch):
    import odtree.preprocessing._binarizer as binarizer

    pages = {"SC_AVPHYS_PAGES": 1000, "SC_PAGE_SIZE": 4096}  # 4 MB free
    monkeypatch.setattr(binarizer.os, "sysconf", lambda name: pages[name])
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = rng.integers(0, 2, 2000)
    with pytest.raises(MemoryError, match=r"binary features over 2,000 rows needs .* GiB"):
        OptimalTreeClassifier(max_depth=1, missing="split", thresholds="midpoints").fit(X, y)


def test_the_pruning_path_does_not_change_with_the_scale_of_the_weights():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (40, 5))
    y = X[:, 0] ^ X[:, 1]
    model = OptimalTreeClassifier(max_depth=2)
    unit = model.cost_complexity_pruning_path(X, y)
    tiny = model.cost_complexity_pruning_path(X, y, sample_weight=np.full(40, 1e-12))
    np.testing.assert_array_equal(unit.n_leaves, tiny.n_leaves)
    np.testing.assert_allclose(unit.ccp_alphas, tiny.ccp_alphas)
    assert len(unit.n_leaves) == 3


@pytest.mark.parametrize("limit", [{"memory_limit": "30MB"}, {"max_cache_entries": 10}])
def test_pareto_criteria_refuse_a_memory_limit_they_cannot_keep(limit):
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="Pareto fronts"):
        OptimalTreeClassifier(max_depth=2, criterion="f1", **limit).fit(X, y)


@pytest.mark.parametrize("criterion", ["f1", "balanced_accuracy"])
def test_pareto_optima_do_not_change_with_the_scale_of_the_weights(criterion):
    for seed in range(12):
        rng = np.random.default_rng(seed)
        X, y = rng.integers(0, 2, (30, 5)), rng.integers(0, 2, 30)
        weight = rng.uniform(0.5, 2.0, 30)
        unit = OptimalTreeClassifier(max_depth=2, criterion=criterion).fit(
            X, y, sample_weight=weight)
        for scale in (1e-12, 1e-14):
            tiny = OptimalTreeClassifier(max_depth=2, criterion=criterion).fit(
                X, y, sample_weight=weight * scale)
            assert tiny.objective_ == pytest.approx(unit.objective_, abs=1e-9)
            assert len(tiny.pareto_front_) == len(unit.pareto_front_)


def test_the_pareto_search_reports_progress_and_its_callback_stops_it():
    from odtree.datasets import load_benchmark

    X, y = load_benchmark("splice-1")
    events = []

    def callback(event):
        events.append(event)
        return len(events) >= 3

    model = OptimalTreeClassifier(max_depth=4, criterion="f1", time_limit=30,
                                  callback=callback)
    with pytest.warns(NotOptimalWarning):
        model.fit(X, y)
    assert model.status_ == "stopped"
    assert model.fit_time_ < 10  # stopped within about a second, not at the time limit
    assert events[0].seconds < 1.0  # the first event comes at once (the best leaf)
