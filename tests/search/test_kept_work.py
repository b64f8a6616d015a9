"""A kept Solver keeps its work: the subproblems one exact search proved answer the next
search on the same objective, weights and rules, and it returns the tree a fresh search
returns (searches under a node limit share with those of their depth, and keep a cache apart
from those without one)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from odtree._search.solver import Solver

#: Limits searched one after the other on one solver.
SEQUENCE = [{"max_depth": 2}, {"max_depth": 3, "max_leaf_nodes": 4},
            {"max_depth": 3, "max_leaf_nodes": 6}, {"max_depth": 3}, {"max_depth": 4},
            {"max_depth": 3, "max_leaf_nodes": 5}]


def test_a_looser_search_reuses_the_proven_subproblems_and_finds_the_fresh_optimum(load):
    X, y = load("german-credit")
    kept = Solver(X, y)
    optima, modes = {}, set()
    for limits in SEQUENCE:
        again, fresh = kept.solve(**limits), Solver(X, y).solve(**limits)
        optima[tuple(limits.items())] = fresh.objective
        assert again.optimal and fresh.optimal
        assert again.objective == fresh.objective
        assert np.array_equal(again.tree.feature, fresh.tree.feature)  # the same tree, too
        mode = ("max_leaf_nodes" in limits) and limits["max_depth"]
        if mode in modes:
            assert again.cache["cache_kept_entries"] > 0
            assert again.cache["cache_created_entries"] <= fresh.cache["cache_created_entries"]
        modes.add(mode)
        if limits == {"max_depth": 4}:  # depth 3 is done: only what depth 4 adds is new
            assert again.cache["cache_created_entries"] < fresh.cache["cache_created_entries"]
    # the same search again creates nothing
    repeat = kept.solve(max_depth=4)
    assert repeat.cache["cache_created_entries"] == 0
    assert repeat.objective == optima[(("max_depth", 4),)]


def test_other_weights_rules_or_objectives_start_afresh(load):
    X, y = load("vote")
    kept = Solver(X, y)
    kept.solve(max_depth=3)
    weights = np.linspace(0.5, 2.0, len(y))
    for changed in ({"sample_weight": weights}, {"min_samples_leaf": 5}, {"ccp_alpha": 0.01},
                    {"lexicographic": True}):
        solution = kept.solve(max_depth=3, **changed)
        assert solution.cache["cache_kept_entries"] == 0, changed
        assert solution.objective == Solver(X, y).solve(max_depth=3, **changed).objective


def test_keep_work_off_keeps_nothing(load):
    X, y = load("vote")
    kept = Solver(X, y)
    kept.keep_work(False)
    kept.solve(max_depth=3)
    assert kept.solve(max_depth=3).cache["cache_kept_entries"] == 0


def test_a_refit_after_a_time_limit_resumes_where_it_stopped(load):
    X, y = load("german-credit")
    kept = Solver(X, y)
    stopped = kept.solve(max_depth=4, max_leaf_nodes=6, time_limit=0.05)
    assert stopped.status == "time_limit"
    resumed = kept.solve(max_depth=4, max_leaf_nodes=6)
    fresh = Solver(X, y).solve(max_depth=4, max_leaf_nodes=6)
    assert resumed.optimal and resumed.objective == fresh.objective
    assert resumed.cache["cache_kept_entries"] > 0
    assert resumed.cache["cache_created_entries"] < fresh.cache["cache_created_entries"]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1), st.sampled_from(["misclassification", "squared_error"]),
       st.lists(st.tuples(st.integers(1, 4), st.sampled_from([None, 2, 3, 5, 8])),
                min_size=2, max_size=5))
def test_any_sequence_of_limits_gives_the_fresh_optima(seed, objective, sequence):
    rng = np.random.default_rng(seed)
    X = (rng.random((60, 7)) < rng.uniform(0.2, 0.8, 7)).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(60) < 0.2)).astype(int)
    extra = {"targets": X @ rng.normal(size=7) + rng.normal(size=60)} \
        if objective == "squared_error" else {}
    kept = Solver(X, y)
    for depth, leaves in sequence:
        limits = {"max_depth": depth, "max_leaf_nodes": leaves, "objective": objective, **extra}
        again, fresh = kept.solve(**limits), Solver(X, y).solve(**limits)
        assert again.optimal
        assert again.objective == pytest.approx(fresh.objective, rel=1e-9, abs=1e-9)
        if objective == "misclassification":  # (sums of targets may tie within rounding)
            assert np.array_equal(again.tree.feature, fresh.tree.feature)
