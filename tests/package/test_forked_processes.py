"""A process forked after odtree's searches ran (multiprocessing's default start on Linux)
searches too: the kept worker threads are not inherited by the child, so its searches get
threads of their own instead of waiting on threads that do not exist there."""

import multiprocessing

import numpy as np
import pytest
from odtree import GreedyTreeClassifier, RashomonSet

X = np.random.default_rng(0).integers(0, 2, size=(60, 5))
Y = X[:, 0] ^ X[:, 1]


def _fits(_):
    """What the parent's fits give, computed in the child."""
    return (RashomonSet(max_depth=2).fit(X, Y).n_trees_,
            GreedyTreeClassifier(max_depth=2).fit(X, Y).predict(X).tolist())


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                    reason="no fork on this platform")
def test_a_forked_child_searches_after_its_parent():
    expected = _fits(None)  # the parent's searches start the kept threads
    with multiprocessing.get_context("fork").Pool(2) as pool:
        # a child waiting on threads it does not have would never answer
        answers = pool.map_async(_fits, range(2)).get(timeout=120)
    assert answers == [expected, expected]
