"""``max_depth=None`` with a leaf penalty (the GOSDT setting): the penalty bounds the depth and
the leaves worth searching, and the tree is still optimal."""

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from odtree import OptimalTreeClassifier, Solver
from oracles import brute_force_objective


@st.composite
def penalised(draw):
    n_rows = draw(st.integers(2, 24))
    n_features = draw(st.integers(1, 6))
    rows = draw(st.lists(st.lists(st.integers(0, 1), min_size=n_features, max_size=n_features),
                         min_size=n_rows, max_size=n_rows))
    y = draw(st.lists(st.integers(0, 2), min_size=n_rows, max_size=n_rows))
    weight = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=n_rows,
                           max_size=n_rows))
    return rows, y, weight, draw(st.sampled_from([0.01, 0.03, 0.1, 0.25]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(penalised(), st.sampled_from(["murtree", "dl85"]),
       st.sampled_from(["trie", "hash", "dataset"]), st.booleans())
def test_unbounded_depth_matches_brute_force(case, search, cache, lexicographic):
    rows, y, weight, alpha = case
    model = OptimalTreeClassifier(max_depth=None, ccp_alpha=alpha, search=search, cache=cache,
                                  lexicographic=lexicographic)
    model.fit(np.array(rows), np.array(y), sample_weight=np.array(weight))
    # no tree is deeper than the number of features
    expected = brute_force_objective(rows, y, weight, len(rows[0]), 1, ccp_alpha=alpha)
    assert model.optimal_
    assert model.objective_ == pytest.approx(expected, abs=1e-9)
    assert model.lower_bound_ == pytest.approx(expected, abs=1e-9)


def test_segment_proves_the_perfect_six_leaf_tree(load):
    """pystreed's example: max depth 20 with 1/20 of an error per leaf finds the 6-leaf
    perfect tree (in about 9 s); unbounded depth proves it too."""
    X, y = load("segment")
    alpha = 1 / (20 * len(y))
    for max_depth in (20, None):
        start = time.perf_counter()
        model = OptimalTreeClassifier(max_depth=max_depth, ccp_alpha=alpha,
                                      time_limit=60).fit(X, y)
        assert time.perf_counter() - start < 10
        assert model.optimal_ and model.get_n_leaves() == 6
        assert np.all(model.predict(X) == y)
        assert model.objective_ == pytest.approx(6 * alpha * len(y))


def test_a_deep_limit_costs_little_when_the_penalty_bounds_it(load):
    """Beyond the depth the penalty allows, a deeper limit gives the same optimum."""
    X, y = load("vote")
    shallow = OptimalTreeClassifier(max_depth=4, ccp_alpha=0.02).fit(X, y)
    deep = OptimalTreeClassifier(max_depth=40, ccp_alpha=0.02).fit(X, y)
    assert deep.optimal_ and deep.objective_ == pytest.approx(shallow.objective_)


def test_unbounded_depth_needs_a_penalty_or_a_leaf_limit():
    X, y = [[0, 1], [1, 0], [1, 1]], [0, 1, 1]
    with pytest.raises(ValueError, match="ccp_alpha > 0 or max_leaf_nodes"):
        OptimalTreeClassifier(max_depth=None).fit(X, y)
    model = OptimalTreeClassifier(max_depth=None, max_leaf_nodes=2).fit(X, y)
    assert model.optimal_ and model.get_n_leaves() == 2
    solution = Solver(np.array(X), y).solve(max_depth=None, ccp_alpha=0.1)
    assert solution.objective == pytest.approx(0.6)
