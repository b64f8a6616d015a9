"""OptimalTreeRegressor's fitted tree: its node weights are the rows' weights, and its
optimum whichever way the depth-2 solver counts."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from odtree import OptimalTreeRegressor
from odtree.tree._base import rows_per_node


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


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1), st.integers(20, 90), st.integers(1, 6),
       st.booleans(), st.sampled_from([1, 3]), st.sampled_from([None, 5]))
def test_pair_sums_kept_across_nodes_give_the_general_search_optimum(
        seed, n_rows, n_features, weighted, min_samples_leaf, max_leaf_nodes):
    """At depth 3 the depth-2 solver moves its pair sums from one node's rows to the next by
    row differences, and counts nested features (thresholds of one column) by chains; the
    optimum is the one found without the depth-2 solver, and without the moves."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n_rows, n_features)) < rng.uniform(0.2, 0.8, n_features)).astype(np.int64)
    # thresholds of two numeric columns, nested (so counted by chains), among the others
    numbers = rng.integers(0, 5, size=(n_rows, 2))
    X = np.hstack([X, numbers[:, :1] <= [0, 1, 2], numbers[:, 1:] <= [1, 3]]).astype(np.int64)
    X = X[:, rng.permutation(X.shape[1])]
    n_features = X.shape[1]
    y = X @ rng.normal(size=n_features) + rng.normal(size=n_rows)
    weights = rng.choice([0.0, 0.5, 1.0, 2.5], size=n_rows) if weighted else None
    if weights is not None and not weights.any():
        weights[0] = 1.0
    objectives = []
    for switches in ({}, {"incremental_counting": False}, {"depth2_solver": False}):
        model = OptimalTreeRegressor(max_depth=3, min_samples_leaf=min_samples_leaf,
                                     max_leaf_nodes=max_leaf_nodes, **switches)
        model.fit(X, y, sample_weight=weights)
        assert model.optimal_
        objectives.append(model.objective_)
        w = np.ones(n_rows) if weights is None else weights
        assert np.sum(w * (y - model.predict(X)) ** 2) == pytest.approx(model.objective_,
                                                                         rel=1e-9, abs=1e-9)
    assert objectives == pytest.approx([objectives[2]] * 3, rel=1e-9, abs=1e-9)
