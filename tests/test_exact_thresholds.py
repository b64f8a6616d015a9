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
from odtree._exact import BINARIZED, EVERY_THRESHOLD


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
    grid = OptimalTreeClassifier(max_depth=1, n_thresholds=3).fit(X, y)
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
    grid = OptimalTreeRegressor(max_depth=1, n_thresholds=2).fit(X, y)
    exact = OptimalTreeRegressor(max_depth=1, thresholds="exact", n_thresholds=2).fit(X, y)
    assert exact.optimal_ and exact.objective_ < grid.objective_
    assert np.isclose(np.sum((exact.predict(X) - y) ** 2), exact.objective_)
    with pytest.raises(ValueError, match="thresholds='exact' does not support"):
        OptimalTreeRegressor(criterion="absolute_error", thresholds="exact").fit(X, y)


@pytest.mark.parametrize("setting", [{"min_samples_split": 5},
                                     {"min_weight_fraction_leaf": 0.1},
                                     {"monotonic_cst": [1, 0]},
                                     {"monotonic_cst": np.array([0, -1])},
                                     {"criterion": "f1"}])
def test_settings_it_does_not_take_raise_a_clear_error(setting):
    X = np.random.default_rng(2).uniform(size=(40, 2))
    y = (X[:, 0] > 0.5).astype(int)
    with pytest.raises(ValueError, match="thresholds='exact' does not support"):
        OptimalTreeClassifier(max_depth=2, thresholds="exact", **setting).fit(X, y)


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


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_the_first_trees_change_the_work_not_the_optimum(depth):
    """The grid the search starts from (1, 10 or 1000 thresholds a column), CART's tree, and
    the anytime passes at depth 4 change how fast the proof comes, never the optimum."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 3)).round(2)
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int) ^ (rng.random(150) < 0.1)
    objectives = {OptimalTreeClassifier(max_depth=depth, thresholds="exact",
                                        n_thresholds=n).fit(X, y).objective_
                  for n in (1, 10, 1000)}
    assert len(objectives) == 1
    midpoints = OptimalTreeClassifier(max_depth=min(depth, 2), thresholds="midpoints").fit(X, y)
    if depth <= 2:
        assert objectives == {midpoints.objective_}


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
