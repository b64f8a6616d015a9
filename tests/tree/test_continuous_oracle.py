"""Optimal over every threshold of the user's own numbers: a brute force over all trees whose
tests are ``x <= t`` for every midpoint ``t`` of a numeric column (and ``x == c`` for every
category of a categorical one) on tiny random data, against the search with
``thresholds="midpoints"``, which must find the same optimum (classifier and regressor,
weights, node limits, ``min_samples_split`` and ``min_weight_fraction_leaf``).

The exact search over ordered thresholds (``thresholds="exact"``) meets the same oracle, node
limits included, its first tree taken on a one-threshold grid so that the search has to find
better ones."""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from odtree import OptimalTreeClassifier, OptimalTreeRegressor


def brute_force(columns, categorical, leaf_cost, depth, nodes, min_split=2, min_weight=0.0,
                weight=None):
    """The least total leaf cost of a tree of at most ``depth`` levels and ``nodes`` branching
    nodes over the rows ``0..n-1``, each node testing ``x <= t`` (any midpoint of a numeric
    column's values) or ``x == c`` (any category of a categorical column); a node splits when
    it holds ``min_split`` rows, into leaves of ``min_weight`` of ``weight`` at least."""
    tests = []
    for values, is_categorical in zip(columns, categorical, strict=True):
        distinct = np.unique(values)
        if is_categorical:
            tests += [values == c for c in distinct]
        else:
            tests += [values <= (a + b) / 2 for a, b in zip(distinct[:-1], distinct[1:],
                                                            strict=True)]
    n = len(columns[0])

    @cache
    def best(rows: frozenset, depth: int, nodes: int) -> float:
        members = np.array(sorted(rows), dtype=np.intp)
        cost = leaf_cost(members)
        if depth == 0 or nodes == 0 or len(members) < max(2, min_split):
            return cost
        for test in tests:
            right = frozenset(members[test[members]].tolist())
            left = rows - right
            if not left or not right:
                continue
            if min_weight > 0 and min(weight[sorted(left)].sum(), weight[sorted(right)].sum()
                                      ) < min_weight * (1 - 1e-12):
                continue
            for left_nodes in range(nodes):
                right_nodes = nodes - 1 - left_nodes
                cost = min(cost, best(left, depth - 1, left_nodes)
                           + best(right, depth - 1, right_nodes))
        return cost

    return best(frozenset(range(n)), depth, nodes)


@st.composite
def tiny_data(draw, regression=False):
    n = draw(st.integers(4, 12))
    n_numeric = draw(st.integers(1, 3))
    # few distinct values, so that values repeat
    numeric = [np.array(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), float) / 2
               for _ in range(n_numeric)]
    with_category = draw(st.booleans())
    frame = pd.DataFrame({f"x{j}": column for j, column in enumerate(numeric)})
    if with_category:
        frame["color"] = pd.Categorical(draw(st.lists(st.sampled_from("rgb"), min_size=n,
                                                      max_size=n)))
    if regression:
        y = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), float)
    else:
        y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    weight = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)), float)
    depth = draw(st.integers(1, 2))
    leaves = draw(st.sampled_from([None, 2, 3]))
    return frame, y, weight, depth, leaves


def columns_of(frame):
    columns = [frame[c].to_numpy() if frame[c].dtype.name == "category"
               else frame[c].to_numpy(float) for c in frame.columns]
    return columns, [frame[c].dtype.name == "category" for c in frame.columns]


@pytest.mark.parametrize("thresholds", ["midpoints", "exact"])
@settings(max_examples=60, deadline=None)
@given(tiny_data(), st.sampled_from([2, 2, 3, 6]), st.sampled_from([0.0, 0.0, 0.15, 0.3]))
def test_classifier_matches_brute_force_over_every_threshold(thresholds, data, min_split,
                                                              share):
    frame, y, weight, depth, leaves = data

    def leaf_cost(rows):
        counts = np.bincount(y[rows], weights=weight[rows], minlength=3)
        return float(counts.sum() - counts.max())

    nodes = depth_nodes(depth) if leaves is None else leaves - 1
    expected = brute_force(*columns_of(frame), leaf_cost, depth, nodes, min_split,
                           share * weight.sum(), weight)
    model = OptimalTreeClassifier(max_depth=depth, max_leaf_nodes=leaves,
                                  min_samples_split=min_split, min_weight_fraction_leaf=share,
                                  thresholds=thresholds, n_thresholds=1).fit(
        frame, y, sample_weight=weight)
    assert model.status_ == "optimal"
    assert np.isclose(model.objective_, expected), (model.objective_, expected)
    # the tree's own training errors are its objective
    assert np.isclose(np.sum(weight * (model.predict(frame) != y)), expected)


@pytest.mark.parametrize("thresholds", ["midpoints", "exact"])
@settings(max_examples=60, deadline=None)
@given(tiny_data(regression=True), st.sampled_from([2, 2, 4, 6]), st.sampled_from([0.0, 0.2]))
def test_regressor_matches_brute_force_over_every_threshold(thresholds, data, min_split, share):
    frame, y, weight, depth, leaves = data

    def leaf_cost(rows):
        w, values = weight[rows], y[rows]
        mean = np.sum(w * values) / np.sum(w)
        return float(np.sum(w * (values - mean) ** 2))

    nodes = depth_nodes(depth) if leaves is None else leaves - 1
    expected = brute_force(*columns_of(frame), leaf_cost, depth, nodes, min_split,
                           share * weight.sum(), weight)
    model = OptimalTreeRegressor(max_depth=depth, max_leaf_nodes=leaves,
                                 min_samples_split=min_split, min_weight_fraction_leaf=share,
                                 thresholds=thresholds, n_thresholds=1).fit(
        frame, y, sample_weight=weight)
    assert model.status_ == "optimal"
    assert np.isclose(model.objective_, expected, atol=1e-9), (model.objective_, expected)


@pytest.mark.parametrize("thresholds", ["midpoints", "exact"])
@pytest.mark.parametrize(("criterion", "quantile"), [("absolute_error", 0.5), ("quantile", 0.2)])
@settings(max_examples=40, deadline=None)
@given(tiny_data(regression=True))
def test_pinball_regressor_matches_brute_force_over_every_threshold(thresholds, criterion,
                                                                     quantile, data):
    frame, y, weight, depth, leaves = data
    scale = 2.0 if criterion == "absolute_error" else 1.0  # absolute error: |u| = 2 ρ_0.5(u)

    def leaf_cost(rows):
        w, values = weight[rows], y[rows]
        # the loss is least at one of the leaf's own targets
        residual = values[:, None] - values[None, :]
        pinball = np.maximum(quantile * residual, (quantile - 1) * residual)
        return float(scale * np.min(w @ pinball))

    nodes = depth_nodes(depth) if leaves is None else leaves - 1
    expected = brute_force(*columns_of(frame), leaf_cost, depth, nodes)
    model = OptimalTreeRegressor(max_depth=depth, max_leaf_nodes=leaves, criterion=criterion,
                                 quantile=quantile, thresholds=thresholds,
                                 n_thresholds=1).fit(frame, y, sample_weight=weight)
    assert model.status_ == "optimal"
    assert np.isclose(model.objective_, expected, atol=1e-9), (model.objective_, expected)
    # the leaves predict the quantile the loss is taken at: the tree's loss is its objective
    residual = y - model.predict(frame)
    own = scale * np.sum(weight * np.maximum(quantile * residual, (quantile - 1) * residual))
    assert np.isclose(own, expected, atol=1e-9)


def depth_nodes(depth: int) -> int:
    """The branching nodes of a full tree of ``depth`` levels."""
    return 2**depth - 1
