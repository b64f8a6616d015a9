"""``thresholds="exact"`` beyond the oracle: missing values, categorical columns, the first
trees it starts from, what ``optimal_over_`` says, and the settings it refuses."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from odtree import OptimalTreeClassifier, OptimalTreeRegressor, export_text, from_json
from odtree._search.exact import BINARIZED, EVERY_THRESHOLD


@st.composite
def gappy_data(draw):
    n = draw(st.integers(5, 14))
    columns = {}
    for j in range(draw(st.integers(1, 2))):
        values = np.array(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), float)
        values[np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))] = np.nan
        columns[f"x{j}"] = values
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    return pd.DataFrame(columns), y, draw(st.integers(1, 2))


@settings(max_examples=60, deadline=None)
@given(gappy_data())
def test_missing_values_go_where_every_midpoint_grid_sends_them(data):
    """Each threshold is tried with the missing rows on either side, and the test "is
    missing" too: the optimum equals the midpoints grid's, which holds all of these."""
    frame, y, depth = data
    grid = OptimalTreeClassifier(max_depth=depth, thresholds="midpoints",
                                 missing="split").fit(frame, y)
    exact = OptimalTreeClassifier(max_depth=depth, thresholds="exact", n_thresholds=1,
                                  missing="split").fit(frame, y)
    assert exact.status_ == "optimal"
    assert exact.objective_ == grid.objective_
    assert np.sum(exact.predict(frame) != y) == exact.objective_


def test_the_tree_reads_in_the_users_terms_and_survives_json_and_pickle():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.uniform(18, 90, 300).round(1),
                      "colour": pd.Categorical(rng.choice(["red", "blue", "green"], 300))})
    y = ((X.age > 47.3) & (X.colour != "blue")).astype(int)
    model = OptimalTreeClassifier(max_depth=2, thresholds="exact", n_thresholds=2).fit(X, y)
    assert model.objective_ == 0 and model.optimal_over_ == EVERY_THRESHOLD
    text = export_text(model)
    assert text.startswith(f"# optimal over {EVERY_THRESHOLD}\n")
    assert "age <=" in text and "colour = blue" in text
    for copy in (from_json(model.to_json()), pickle.loads(pickle.dumps(model))):
        np.testing.assert_array_equal(copy.predict(X), model.predict(X))
    # numeric columns alone convert to scikit-learn, thresholds and all
    numeric = OptimalTreeClassifier(max_depth=2, thresholds="exact").fit(X[["age"]], y)
    np.testing.assert_array_equal(numeric.to_sklearn().predict(X[["age"]]),
                                  numeric.predict(X[["age"]]))
    path = numeric.decision_path(X[["age"]])
    assert path.shape == (300, numeric.tree_.node_count)


def test_a_threshold_the_grid_misses_is_found():
    # the label flips between 0.41 and 0.42, which no quantile threshold separates
    X = np.linspace(0, 1, 101).reshape(-1, 1)
    y = (X[:, 0] > 0.415).astype(int)
    grid = OptimalTreeClassifier(max_depth=1, thresholds="quantile", n_thresholds=3).fit(X, y)
    exact = OptimalTreeClassifier(max_depth=1, thresholds="exact", n_thresholds=3).fit(X, y)
    assert grid.objective_ > 0 and grid.optimal_over_ == BINARIZED
    every = OptimalTreeClassifier(max_depth=1, thresholds="midpoints").fit(X, y)
    assert every.objective_ == 0 and every.optimal_over_ == EVERY_THRESHOLD
    assert exact.objective_ == 0 and exact.optimal_
    threshold = exact.binary_features_[exact.tree_.feature[0]].value
    assert 0.41 <= threshold < 0.42


def test_the_regressor_searches_every_threshold_for_squared_error():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(200, 3))
    y = np.where(X[:, 1] > 0.6180, 5.0, 0.0) + rng.normal(0, 0.1, 200)
    grid = OptimalTreeRegressor(max_depth=1, thresholds="quantile", n_thresholds=2).fit(X, y)
    exact = OptimalTreeRegressor(max_depth=1, thresholds="exact", n_thresholds=2).fit(X, y)
    assert exact.optimal_ and exact.objective_ < grid.objective_
    assert np.isclose(np.sum((exact.predict(X) - y) ** 2), exact.objective_)
    # the default searches every threshold too
    assert OptimalTreeRegressor(max_depth=1).fit(X, y).objective_ == exact.objective_
    with pytest.raises(ValueError, match="thresholds='exact' does not support"):
        OptimalTreeRegressor(criterion="quantile", quantiles=[0.1, 0.9],
                             thresholds="exact").fit(X, y)


@pytest.mark.parametrize("criterion", ["absolute_error", "quantile"])
def test_the_regressor_searches_every_threshold_for_pinball_losses(criterion):
    rng = np.random.default_rng(2)
    X = rng.uniform(size=(300, 3))
    y = np.where(X[:, 2] > 0.3819, 4.0, 0.0) + rng.standard_cauchy(300) * 0.05
    grid = OptimalTreeRegressor(max_depth=2, criterion=criterion, quantile=0.3,
                                thresholds="quantile", n_thresholds=2).fit(X, y)
    exact = OptimalTreeRegressor(max_depth=2, criterion=criterion, quantile=0.3,
                                 thresholds="exact").fit(X, y)
    assert exact.optimal_over_ == EVERY_THRESHOLD and grid.optimal_over_ == BINARIZED
    # the default leaves these losses to the grid
    default = OptimalTreeRegressor(max_depth=2, criterion=criterion, quantile=0.3,
                                   n_thresholds=2).fit(X, y)
    assert not default._exact_search and default.objective_ == grid.objective_
    assert exact.optimal_ and exact.objective_ < grid.objective_
    q, scale = (0.5, 2.0) if criterion == "absolute_error" else (0.3, 1.0)
    residual = y - exact.predict(X)
    loss = scale * np.sum(np.maximum(q * residual, (q - 1) * residual))
    assert np.isclose(loss, exact.objective_)
    # the exact search on the same columns as 0/1 features of every midpoint agrees
    every = OptimalTreeRegressor(max_depth=2, criterion=criterion, quantile=0.3,
                                 thresholds="midpoints").fit(X[:60], y[:60])
    small = OptimalTreeRegressor(max_depth=2, criterion=criterion, quantile=0.3,
                                 thresholds="exact").fit(X[:60], y[:60])
    assert np.isclose(every.objective_, small.objective_)


@pytest.mark.parametrize("setting", [{"monotonic_cst": [1, 0]},
                                     {"monotonic_cst": np.array([0, -1])},
                                     {"criterion": "f1", "pareto_front": True}])
def test_settings_it_does_not_take_raise_a_clear_error(setting):
    X = np.random.default_rng(2).uniform(size=(40, 2))
    y = (X[:, 0] > 0.5).astype(int)
    with pytest.raises(ValueError, match="thresholds='exact' does not support"):
        OptimalTreeClassifier(max_depth=2, thresholds="exact", **setting).fit(X, y)


@pytest.mark.parametrize("setting", [{"monotonic_cst": [1, 0]},
                                     {"lexicographic": True},
                                     {"criterion": "f1", "pareto_front": True}])
def test_the_default_uses_the_grid_where_the_exact_search_does_not_apply(setting):
    X = np.random.default_rng(2).uniform(size=(40, 2))
    y = (X[:, 0] > 0.5).astype(int)
    model = OptimalTreeClassifier(max_depth=2, **setting).fit(X, y)
    assert model.optimal_over_ == BINARIZED and not model._exact_search
    grid = OptimalTreeClassifier(max_depth=2, thresholds="quantile", **setting).fit(X, y)
    assert model.objective_ == grid.objective_


@st.composite
def numeric_data(draw):
    n = draw(st.integers(4, 16))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 5), min_size=2, max_size=2),
                               min_size=n, max_size=n)), float)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[0], y[-1] = 0, 1
    w = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n)))
    return X, y, w


@settings(max_examples=80, deadline=None)
@given(numeric_data(), st.sampled_from(["f1", "balanced_accuracy"]), st.integers(1, 2),
       st.sampled_from([None, 2]), st.integers(1, 2))
def test_metrics_over_every_threshold_equal_the_every_midpoint_grids(data, criterion, depth,
                                                                     leaves, min_leaf):
    """F1 and balanced accuracy by the exact search's weighted searches: the optimum of the
    grid of every midpoint (the binary search's, brute-force checked), and the metric of the
    tree's own predictions."""
    from sklearn.metrics import balanced_accuracy_score, f1_score

    X, y, w = data
    settings_ = dict(max_depth=depth, criterion=criterion, max_leaf_nodes=leaves,
                     min_samples_leaf=min_leaf)
    exact = OptimalTreeClassifier(thresholds="exact", **settings_).fit(X, y, sample_weight=w)
    every = OptimalTreeClassifier(thresholds="midpoints", n_thresholds=64, **settings_).fit(
        X, y, sample_weight=w)
    assert exact.optimal_ and exact.optimal_over_ == EVERY_THRESHOLD
    assert exact.objective_ == pytest.approx(every.objective_, abs=1e-9)
    metric = f1_score if criterion == "f1" else balanced_accuracy_score
    assert metric(y, exact.predict(X), sample_weight=w) == pytest.approx(exact.objective_)
    assert exact.lower_bound_ == pytest.approx(1 - exact.objective_)


def test_metrics_search_every_threshold_by_default():
    from sklearn.datasets import load_breast_cancer
    from sklearn.metrics import f1_score

    X, y = load_breast_cancer(return_X_y=True)
    for depth in (1, 2):
        model = OptimalTreeClassifier(max_depth=depth, criterion="f1").fit(X, 1 - y)
        grid = OptimalTreeClassifier(max_depth=depth, criterion="f1",
                                     thresholds="quantile").fit(X, 1 - y)
        assert model.optimal_ and model.optimal_over_ == EVERY_THRESHOLD
        assert model.objective_ > grid.objective_  # a threshold the grid misses
        assert model.objective_ == pytest.approx(f1_score(1 - y, model.predict(X)))


@pytest.mark.parametrize("criterion", ["f1", "balanced_accuracy"])
def test_a_time_limit_stops_the_metrics_searches_with_a_real_tree(criterion):
    from odtree.exceptions import NotOptimalWarning
    from sklearn.datasets import load_breast_cancer
    from sklearn.metrics import balanced_accuracy_score, f1_score

    X, y = load_breast_cancer(return_X_y=True)
    model = OptimalTreeClassifier(max_depth=5, criterion=criterion, thresholds="exact",
                                  time_limit=0.3)
    with pytest.warns(NotOptimalWarning):
        model.fit(X, y)
    assert model.status_ == "time_limit" and not model.optimal_ and model.fit_time_ < 5
    metric = f1_score if criterion == "f1" else balanced_accuracy_score
    assert metric(y, model.predict(X)) == pytest.approx(model.objective_)
    assert model.lower_bound_ == 0.0


def test_the_default_searches_every_threshold_under_split_and_leaf_weight_limits():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0.3).astype(int)
    weight = rng.uniform(0.5, 2.0, size=300)
    limits = {"min_samples_split": 80, "min_weight_fraction_leaf": 0.1}
    model = OptimalTreeClassifier(max_depth=3, **limits).fit(X, y, sample_weight=weight)
    assert model._exact_search and model.optimal_over_ == EVERY_THRESHOLD
    assert model.status_ == "optimal"
    paths = model.decision_path(X).toarray().astype(bool)  # rows × nodes
    leaves = np.unique(model.apply(X))
    for node in range(paths.shape[1]):
        if node in leaves:
            assert weight[paths[:, node]].sum() >= 0.1 * weight.sum() * (1 - 1e-12)
        else:
            assert paths[:, node].sum() >= 80
    # no better tree on the grid's thresholds, which the exact search also holds
    grid = OptimalTreeClassifier(max_depth=3, thresholds="quantile", **limits).fit(
        X, y, sample_weight=weight)
    assert model.objective_ <= grid.objective_ + 1e-9


def test_memory_limits_bound_the_exact_store_and_keep_the_optimum():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(400, 3))
    y = (np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] > 0).astype(int)
    free = OptimalTreeClassifier(max_depth=3, thresholds="exact").fit(X, y)
    assert free.status_ == "optimal" and free.n_wipes_ == 0 and free.cache_peak_entries_ > 5
    for limit in ({"max_cache_entries": 5}, {"memory_limit": free.cache_peak_bytes_ - 1}):
        limited = OptimalTreeClassifier(max_depth=3, thresholds="exact", **limit).fit(X, y)
        assert limited.status_ == "optimal" and limited.objective_ == free.objective_
        assert limited.n_wipes_ > 0
        assert limited.cache_peak_entries_ <= limit.get("max_cache_entries", np.inf)
        assert limited.cache_peak_bytes_ <= limit.get("memory_limit", np.inf)
    # the sorted columns alone do not fit in 1 kB: the best tree found, and a warning
    with pytest.warns(UserWarning, match="memory limit"):
        tight = OptimalTreeClassifier(max_depth=3, thresholds="exact",
                                      memory_limit=1000).fit(X, y)
    assert tight.status_ == "memory_limit" and tight.predict(X).shape == (400,)


def test_the_default_searches_0_1_and_few_valued_columns_on_their_features():
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.integers(0, 2, 200), rng.integers(0, 4, 200)]).astype(float)
    y = (X[:, 0] + X[:, 1] > 2).astype(int)
    for depth in (1, 2, 3):
        model = OptimalTreeClassifier(max_depth=depth).fit(X[:, :1], y)
        # the 0/1 column is every threshold: its search proves the optimum over all of them
        assert not model._exact_search and model.optimal_over_ == EVERY_THRESHOLD
    # from depth 3 a grid is built first, and where it holds every midpoint it is enough
    model = OptimalTreeClassifier(max_depth=3).fit(X, y)
    assert not model._exact_search and model.optimal_over_ == EVERY_THRESHOLD
    numeric = np.column_stack([X, rng.normal(size=200)])
    assert OptimalTreeClassifier(max_depth=3).fit(numeric, y)._exact_search


def test_a_time_limit_returns_the_best_first_tree_and_says_what_it_covers():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 6))
    y = (X[:, 0] * X[:, 1] + X[:, 2] > 0).astype(int)
    with pytest.warns(UserWarning, match="may not be optimal over every threshold"):
        model = OptimalTreeClassifier(max_depth=4, thresholds="exact", time_limit=0.5).fit(X, y)
    assert model.status_ == "time_limit"
    from sklearn.tree import DecisionTreeClassifier

    cart = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    assert model.objective_ <= np.sum(cart.predict(X) != y)


@pytest.mark.parametrize("quick", [True, False])
@pytest.mark.parametrize("depth", [2, 3, 4])
def test_the_first_trees_change_the_work_not_the_optimum(depth, quick, monkeypatch):
    """The grid the search starts from (1, 10 or 1000 thresholds a column), CART's tree, and
    the anytime passes at depth 4 change how fast the proof comes, never the optimum; so
    does the short exact search before them at depth 4, which proves this small set alone
    (and then no grid is built) or, given no work, leaves it to the search from the first
    trees."""
    if not quick:
        monkeypatch.setattr("odtree._search.exact.QUICK_WORK", 0)
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 3)).round(2)
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int) ^ (rng.random(150) < 0.1)
    models = [OptimalTreeClassifier(max_depth=depth, thresholds="exact",
                                    n_thresholds=n).fit(X, y) for n in (1, 10, 1000)]
    assert len({model.objective_ for model in models}) == 1
    assert all(model.status_ == "optimal" for model in models)
    grid_built = {hasattr(model, "_solver") for model in models}
    assert grid_built == {depth == 3 or (depth == 4 and not quick)}
    midpoints = OptimalTreeClassifier(max_depth=min(depth, 2), thresholds="midpoints").fit(X, y)
    if depth <= 2:
        assert models[0].objective_ == midpoints.objective_


def test_an_upper_bound_below_the_optimum_leaves_the_best_leaf():
    X = np.arange(20, dtype=float).reshape(-1, 1)
    y = (np.arange(20) % 3 == 0).astype(int)
    optimum = OptimalTreeClassifier(max_depth=2, thresholds="exact").fit(X, y).objective_
    with pytest.warns(UserWarning, match="no tree has an objective below"):
        model = OptimalTreeClassifier(max_depth=2, thresholds="exact",
                                      upper_bound=optimum).fit(X, y)
    assert model.status_ == "infeasible" and model.tree_.node_count == 1


def test_tuning_and_the_pruning_path_refit_with_the_exact_search():
    from odtree import OptimalTreeCV

    X = np.linspace(0, 1, 120).reshape(-1, 1)
    y = ((X[:, 0] > 0.415) & (X[:, 0] < 0.83)).astype(int)
    path = OptimalTreeClassifier(max_depth=2, thresholds="exact",
                                 n_thresholds=2).cost_complexity_pruning_path(X, y)
    assert path.impurities[0] == 0  # the grid of two thresholds cannot reach 0 errors
    search = OptimalTreeCV(depths=(1, 2), cv=3, estimator=OptimalTreeClassifier(
        thresholds="exact", n_thresholds=2)).fit(X, y)
    best = search.best_estimator_
    assert best.optimal_ and best.optimal_over_ == EVERY_THRESHOLD
    exact = OptimalTreeClassifier(max_depth=best.max_depth, thresholds="exact").fit(X, y)
    assert best.objective_ == exact.objective_
