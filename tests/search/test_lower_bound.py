"""The bound a search stopped by its time limit reports: the equal-rows bound, which holds for
every tree, and the bound passes' refuted targets, never above the optimum."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from odtree import OptimalTreeClassifier, OptimalTreeRegressor


def equal_rows_errors(X, y, sample_weight=None):
    """The least weighted errors of any classifier that sees only X: in each group of equal
    rows, all but its heaviest class."""
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    groups = {}
    for row, label, w in zip(map(bytes, np.asarray(X, np.uint8)), y, weight, strict=True):
        groups.setdefault(row, {}).setdefault(label, 0.0)
        groups[row][label] += w
    return sum(sum(c.values()) - max(c.values()) for c in groups.values())


def stopped_fit(model, X, y, **fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X, y, **fit)


def test_a_stopped_search_reports_the_equal_rows_bound(load):
    """anneal at depth 7 is far from proven in 0.3 s; its equal rows force 34 errors."""
    X, y = load("anneal")
    assert equal_rows_errors(X, y) == 34
    model = stopped_fit(OptimalTreeClassifier(max_depth=7, time_limit=0.3), X, y)
    assert model.status_ == "time_limit"
    assert 34 <= model.lower_bound_ <= model.objective_


def test_the_equal_rows_bound_counts_weights_and_the_leaf_penalty(load):
    X, y = load("anneal")
    weights = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    bound = equal_rows_errors(X, y, weights)
    model = stopped_fit(OptimalTreeClassifier(max_depth=7, time_limit=0.3), X, y,
                        sample_weight=weights)
    assert model.status_ == "time_limit"
    assert bound - 1e-9 <= model.lower_bound_ <= model.objective_
    # one leaf's penalty at least: ccp_alpha costs alpha * total weight per leaf
    alpha = 1e-4
    model = stopped_fit(OptimalTreeClassifier(max_depth=7, time_limit=0.3, ccp_alpha=alpha),
                        X, y)
    assert model.status_ == "time_limit"
    assert 34 + alpha * len(y) - 1e-9 <= model.lower_bound_ <= model.objective_


def test_a_regressor_stopped_early_reports_the_spread_within_equal_rows():
    """Rows with equal features share a leaf: their squared error about their own mean is
    paid by every tree, and a tree that pays no more is optimal."""
    rng = np.random.default_rng(1)
    base = rng.integers(0, 2, size=(40, 30))
    X = np.repeat(base, 50, axis=0)
    y = X[:, :10].sum(axis=1) + rng.normal(0, 1.0, len(X))
    spread = sum(((y[i:i + 50] - y[i:i + 50].mean()) ** 2).sum() for i in range(0, len(y), 50))
    model = stopped_fit(OptimalTreeRegressor(max_depth=8, time_limit=5), X, y)
    # a tree that separates the 40 groups pays the spread alone: it is optimal at once
    assert model.optimal_ and model.fit_time_ < 2
    assert model.lower_bound_ == model.objective_ == pytest.approx(spread)
    model = stopped_fit(OptimalTreeRegressor(max_depth=3, time_limit=0.05), X, y)
    assert spread * (1 - 1e-9) <= model.lower_bound_ <= model.objective_


@pytest.mark.parametrize("name, depth, optimum", [("australian-credit", 5, 39),
                                                  ("yeast", 5, 313)])
def test_the_bound_passes_never_pass_the_optimum(load, name, depth, optimum):
    """Stopped at several points of the passes and the proof, the bound is at most the
    optimum (proven without a time limit in `test_anytime_driver.py`'s way)."""
    X, y = load(name)
    for limit in (0.2, 0.6, 1.5):
        model = stopped_fit(OptimalTreeClassifier(max_depth=depth, time_limit=limit), X, y)
        assert model.lower_bound_ <= optimum <= model.objective_, limit


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), depth=st.integers(2, 4),
       alpha=st.sampled_from([0.0, 0.01]))
def test_bounds_hold_on_random_data_with_equal_rows(seed, depth, alpha):
    """Few columns make many equal rows: a search settled by the equal-rows bound returns
    the optimum the search without a first tree finds."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(80, 4))
    y = (X[:, 0] ^ (rng.random(80) < 0.3)).astype(int)
    weights = rng.uniform(0.1, 3.0, 80)
    plain = OptimalTreeClassifier(max_depth=depth, ccp_alpha=alpha, search="dl85")
    plain.fit(X, y, sample_weight=weights)
    model = OptimalTreeClassifier(max_depth=depth, ccp_alpha=alpha, time_limit=30)
    model.fit(X, y, sample_weight=weights)
    assert model.optimal_
    assert model.objective_ == pytest.approx(plain.objective_)
    assert model.objective_ >= equal_rows_errors(X, y, weights) - 1e-9
