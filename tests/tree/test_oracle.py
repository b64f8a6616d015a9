"""End-to-end check of the optimal objective against an independent brute-force solver in Python.

The Rust oracle (crates/odtree-core/src/oracle.rs) covers the search itself; this one goes through
the whole Python path: label encoding, sample weights, the binarizer's passthrough of 0/1 columns.
"""


import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from odtree import OptimalTreeClassifier
from oracles import brute_force_objective, instances


def test_brute_force_on_the_thesis_toy():
    """The oracle itself reproduces the thesis table (spec section 5.3)."""
    from oracles import TOY_ERRORS, TOY_X, TOY_Y

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
