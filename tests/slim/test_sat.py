"""The SAT encodings of DT-SLIM agree with a brute-force minimum depth on small instances."""

import time
from functools import cache

import numpy as np
import pytest
from odtree.slim._sat import LocalTree, decide, estimate_literals, min_depth_tree


def brute_min_depth(X, labels) -> int:
    """The least depth of a tree classifying the consistent instance ``(X, labels)``, by trying
    every feature at every node."""

    @cache
    def depth(rows: frozenset) -> int:
        index = sorted(rows)
        if len(set(labels[index])) == 1:
            return 0
        best = len(X)
        for f in range(X.shape[1]):
            ones = frozenset(i for i in index if X[i, f] == 1)
            if ones and ones != rows:
                best = min(best, 1 + max(depth(ones), depth(rows - ones)))
        return best

    return depth(frozenset(range(len(X))))


def random_instance(seed):
    """Up to 10 rows (some repeated with their label) over up to 5 features, 2 to 4 classes
    named by arbitrary integers."""
    rng = np.random.default_rng(seed)
    k, n_classes = rng.integers(1, 6), rng.integers(2, 5)
    X = np.unique(rng.integers(0, 2, (rng.integers(2, 9), k)), axis=0).astype(np.uint8)
    names = rng.choice(100, n_classes, replace=False)
    labels = names[rng.integers(0, n_classes, len(X))]
    repeat = rng.integers(0, len(X), 2)
    return np.vstack([X, X[repeat]]), np.concatenate([labels, labels[repeat]])


def assert_exact(tree: LocalTree, X, labels, depth):
    """``tree`` classifies every row, is no deeper than ``depth`` and has no empty branch."""
    assert tree.depth() <= depth
    assert np.array_equal(tree.predict(X), labels)
    reached = np.zeros(len(tree.feature), dtype=bool)
    for row in X:
        node = 0
        reached[node] = True
        while tree.feature[node] >= 0:
            node = (tree.child1 if row[tree.feature[node]] == 1 else tree.child0)[node]
            reached[node] = True
    assert reached.all()


@pytest.mark.parametrize("seed", range(60))
def test_decide_is_sat_exactly_from_the_least_depth(seed):
    X, labels = random_instance(seed)
    least = brute_min_depth(X, labels)
    for encoding in ("depth", "partition"):
        for amo in (True, False):
            for d in range(least + 2):
                tree = decide(X, labels, d, encoding=encoding, amo=amo)
                assert (tree is not None) == (d >= least), (encoding, amo, d)
                if tree is not None:
                    assert_exact(tree, X, labels, d)


@pytest.mark.parametrize("seed", range(60))
def test_the_descending_search_finds_the_least_depth(seed):
    X, labels = random_instance(seed)
    least = brute_min_depth(X, labels)
    tree, outcome = min_depth_tree(X, labels, least + 2, switch_depth=2, time_limit=10.0)
    assert outcome == "sat" and tree.depth() == least
    assert_exact(tree, X, labels, least)
    if least > 0:
        assert min_depth_tree(X, labels, least - 1, switch_depth=2) == (None, "unsat")


def test_many_features_use_a_sequential_counter():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (12, 12)).astype(np.uint8)
    labels = X[:, 3] ^ X[:, 7]
    for encoding in ("depth", "partition"):
        assert decide(X, labels, 1, encoding=encoding) is None
        assert_exact(decide(X, labels, 2, encoding=encoding), X, labels, 2)


def test_inconsistent_data_is_unsat():
    X = np.array([[0, 1], [1, 0], [0, 1]], dtype=bool)
    labels = [4, 4, 9]
    for encoding in ("depth", "partition"):
        assert decide(X, labels, 3, encoding=encoding) is None
    assert min_depth_tree(X, labels, 3) == (None, "unsat")


def test_uniform_labels_give_a_single_leaf():
    X = np.array([[0, 1], [1, 0]], dtype=np.uint8)
    tree, outcome = min_depth_tree(X, [6, 6], 4)
    assert outcome == "sat" and tree.depth() == 0 and tree.label.tolist() == [6]
    assert min_depth_tree(X, [6, 6], -1) == (None, "unsat")
    assert min_depth_tree(X, [6, 7], 0) == (None, "unsat")


def test_time_limits_hold_while_building_and_while_solving():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (300, 30)).astype(np.uint8)
    labels = rng.integers(0, 2, 300)
    # far too little time to build the encoding: skipped before it is built
    assert min_depth_tree(X, labels, 6, time_limit=0.01) == (None, "too_large")
    # a single call stops while loading or solving
    assert decide(X, labels, 6, encoding="depth", time_limit=0.01) == "timeout"
    # time to build, not to solve: the solver is interrupted near the limit
    started = time.monotonic()
    assert min_depth_tree(X, labels, 6, time_limit=4.0) == (None, "timeout")
    assert time.monotonic() - started < 6.0


def test_too_large_instances_are_skipped():
    X = np.array([[0, 1], [1, 0], [1, 1]], dtype=np.uint8)
    assert min_depth_tree(X, [0, 1, 1], 2, max_literals=10) == (None, "too_large")


def test_the_estimate_grows_with_rows_squared_or_two_to_the_depth():
    ratio = estimate_literals(400, 20, 3, 12, "partition") / estimate_literals(
        200, 20, 3, 12, "partition")
    assert 3.5 < ratio < 4.5
    for d in range(4, 12):
        ratio = estimate_literals(300, 20, 3, d + 1, "depth") / estimate_literals(
            300, 20, 3, d, "depth")
        assert 2 <= ratio < 3
