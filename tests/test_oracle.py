"""End-to-end check of the optimal objective against an independent brute-force solver in Python.

The Rust oracle (crates/odtree-core/src/oracle.rs) covers the search itself; this one goes through
the whole Python path: label encoding, sample weights, the binarizer's passthrough of 0/1 columns.
"""

from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from odtree import OptimalTreeClassifier

LABEL_SETS = [[0, 1, 2, 3], [-7, 3, 10, 42], ["ant", "bee", "cat", "dog"], [1.0, 2.0, 3.0, 4.0]]
WEIGHTS = [0.0, 1.0, 1.0, 2.0, 3.0, 0.5, 1.25]


def brute_force_objective(X, y, weight, max_depth, min_samples_leaf, max_leaf_nodes=None,
                          ccp_alpha=0.0, leaf=None):
    """Smallest weighted misclassification (or sum of ``leaf(rows)`` over the leaves, rows
    being a leaf's positions of non-zero weight), plus ``ccp_alpha * total weight`` per leaf,
    over all trees of depth <= max_depth with at most max_leaf_nodes leaves, whose leaves hold
    >= min_samples_leaf rows of non-zero weight. No bounds, no pruning: every split and every
    division of the leaves between the children is tried.

    A row set is an int bitmask; the root may always be a leaf."""
    classes = sorted(set(y))
    counted = [i for i in range(len(y)) if weight[i] > 0]
    columns = [sum(1 << i for i in counted if X[i][f]) for f in range(len(X[0]))]
    everything = sum(1 << i for i in counted)

    penalty = ccp_alpha * sum(weight[i] for i in counted)

    def leaf_error(mask):
        if leaf is not None:
            return leaf([i for i in counted if mask >> i & 1]) + penalty
        by_class = [sum(weight[i] for i in counted if mask >> i & 1 and y[i] == c)
                    for c in classes]
        return sum(by_class) - max(by_class) + penalty

    @cache
    def best(mask, depth, leaves):
        result = leaf_error(mask)
        if depth == 0 or leaves == 1:
            return result
        for column in columns:
            right, left = mask & column, mask & ~column
            if right.bit_count() >= min_samples_leaf and left.bit_count() >= min_samples_leaf:
                for left_leaves in range(1, leaves):
                    result = min(result, best(left, depth - 1, left_leaves)
                                 + best(right, depth - 1, leaves - left_leaves))
        return result

    return best(everything, max_depth, max_leaf_nodes or 2**max_depth)


def test_brute_force_on_the_thesis_toy():
    """The oracle itself reproduces the thesis table (spec section 5.3)."""
    from test_classifier import TOY_ERRORS, TOY_X, TOY_Y

    rows, labels = TOY_X.tolist(), TOY_Y.tolist()
    for depth in range(4):
        for leaf_size in range(1, 5):
            assert brute_force_objective(rows, labels, [1.0] * 11, depth, leaf_size) == \
                TOY_ERRORS[depth][leaf_size - 1]


def test_brute_force_small_cases():
    # xor needs depth 2; one feature cannot separate it
    X = [[0, 0], [0, 1], [1, 0], [1, 1]]
    y = [0, 1, 1, 0]
    assert brute_force_objective(X, y, [1.0] * 4, 1, 1) == 2
    assert brute_force_objective(X, y, [1.0] * 4, 2, 1) == 0
    assert brute_force_objective(X, y, [1.0] * 4, 2, 2) == 2  # leaves of 2 rows: no 2nd level
    assert brute_force_objective(X, y, [0.0, 1.0, 1.0, 5.0], 1, 1) == 1
    assert brute_force_objective(X, y, [0.0, 0.0, 0.0, 2.0], 2, 1) == 0


@st.composite
def instances(draw):
    n_rows = draw(st.integers(1, 30))
    n_features = draw(st.integers(1, 6))
    n_classes = draw(st.integers(2, 4))
    rows = draw(st.lists(st.lists(st.integers(0, 1), min_size=n_features, max_size=n_features),
                         min_size=n_rows, max_size=n_rows))
    codes = draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows, max_size=n_rows))
    weighted = draw(st.booleans())
    if weighted:
        weight = draw(st.lists(st.sampled_from(WEIGHTS), min_size=n_rows, max_size=n_rows))
        if not any(weight):
            weight[draw(st.integers(0, n_rows - 1))] = 1.0
    else:
        weight = [1.0] * n_rows
    labels = draw(st.sampled_from(LABEL_SETS))
    return {
        "X": rows,
        "y": [labels[c] for c in codes],
        "weight": weight,
        "weighted": weighted,
        "float_x": draw(st.booleans()),
        "max_depth": draw(st.integers(0, 2)),
        "min_samples_leaf": draw(st.integers(1, 3)),
        "max_leaf_nodes": draw(st.sampled_from([None, 1, 2, 3])),
        "ccp_alpha": draw(st.sampled_from([0.0, 0.0, 0.05, 0.2])),
        "search": draw(st.sampled_from(["murtree", "dl85"])),
        "cache": draw(st.sampled_from(["trie", "hash", "dataset"])),
        "branching": draw(st.sampled_from(["in_order", "gini", "gain_asc", "gain_desc"])),
    }


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_objective_matches_brute_force(case):
    X = np.array(case["X"], dtype=float if case["float_x"] else np.int64)
    y = np.array(case["y"])
    weight = np.array(case["weight"])
    model = OptimalTreeClassifier(
        max_depth=case["max_depth"], min_samples_leaf=case["min_samples_leaf"],
        max_leaf_nodes=case["max_leaf_nodes"], ccp_alpha=case["ccp_alpha"],
        search=case["search"], cache=case["cache"], branching=case["branching"])
    model.fit(X, y, sample_weight=weight if case["weighted"] else None)
    expected = brute_force_objective(case["X"], case["y"], case["weight"], case["max_depth"],
                                     case["min_samples_leaf"], case["max_leaf_nodes"],
                                     case["ccp_alpha"])
    assert model.optimal_ and model.status_ == "optimal"
    assert model.objective_ == pytest.approx(expected, abs=1e-9)
    assert model.lower_bound_ == pytest.approx(expected, abs=1e-9)
    # the binary columns reach the search unchanged, and the tree does what objective_ says
    assert len(model.binary_features_) == X.shape[1]
    np.testing.assert_array_equal(model.binarizer_.transform(X), X)
    penalty = case["ccp_alpha"] * weight.sum() * model.get_n_leaves()
    errors = np.sum(weight * (model.predict(X) != y))
    assert model.objective_ == pytest.approx(errors + penalty, abs=1e-9)
    if case["max_leaf_nodes"] is not None:
        assert model.get_n_leaves() <= case["max_leaf_nodes"]
    np.testing.assert_array_equal(model.classes_, np.unique(y))
    tree = model.tree_
    assert model.get_depth() <= case["max_depth"]
    if tree.node_count > 1:
        assert tree.n_node_samples[tree.children_left == -1].min() >= case["min_samples_leaf"]
    assert tree.n_node_samples[0] == np.count_nonzero(weight)
