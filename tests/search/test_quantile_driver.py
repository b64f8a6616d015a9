"""The multi-quantile driver under every limit equals one fit per quantile."""

from __future__ import annotations

import numpy as np
import pytest
from odtree import OptimalTreeRegressor, Solver
from sklearn.datasets import make_friedman1

#: Random cases of the oracle below.
CASES = 1000


def _case(rng: np.random.Generator) -> dict:
    """A tiny random problem and the limits to solve it under."""
    n_rows, n_features = int(rng.integers(1, 30)), int(rng.integers(1, 6))
    X = rng.integers(0, 2, size=(n_rows, n_features))
    targets = np.round(rng.normal(size=n_rows) * 10, int(rng.integers(0, 3)))
    weight = rng.choice([0.0, 0.5, 1.0, 3.0], size=n_rows)
    weight[rng.integers(n_rows)] = 1.0
    n_quantiles = int(rng.integers(1, 4))
    limits = {
        "max_depth": int(rng.integers(0, 4)),
        "min_samples_leaf": int(rng.integers(1, 3)),
        "max_leaf_nodes": None if rng.random() < 0.4 else int(rng.integers(1, 7)),
        "ccp_alpha": 0.0 if rng.random() < 0.7 else float(rng.uniform(0, 0.05)),
        "depth2_solver": bool(rng.random() < 0.5),
        "cache": str(rng.choice(["trie", "hash", "dataset"])),
    }
    return {"X": X, "targets": targets, "weight": weight, "limits": limits,
            "quantiles": sorted(rng.uniform(0.05, 0.95, size=n_quantiles).tolist())}


def test_one_search_equals_one_fit_per_quantile_under_every_limit():
    rng = np.random.default_rng(13)
    statuses = set()
    for _ in range(CASES):
        case = _case(rng)
        solver = Solver(case["X"])
        limits, weight, targets = case["limits"], case["weight"], case["targets"]
        alone = [solver.solve(weight, objective="quantile", targets=targets, quantile=q, **limits)
                 for q in case["quantiles"]]
        # an upper bound between the quantiles' optima, so that some lanes are infeasible
        costs = sorted(one.objective for one in alone)
        upper_bound = None if rng.random() < 0.3 else costs[len(costs) // 2] * 1.001 + 1e-6
        capped = {} if rng.random() < 0.6 else {"max_cache_entries": int(rng.integers(3, 40))}
        joint = solver.solve(weight, objective="quantiles", targets=targets,
                             quantiles=case["quantiles"], upper_bound=upper_bound,
                             **capped, **limits)
        assert len(joint) == len(alone)
        for q, lane, one in zip(case["quantiles"], joint, alone, strict=True):
            statuses.add(lane.status)
            if lane.status == "memory_limit":
                assert capped and lane.objective >= one.objective - 1e-9
                continue
            if upper_bound is not None and one.objective >= upper_bound:
                assert lane.status == "infeasible", (q, case, lane.objective, upper_bound)
                assert lane.tree.n_leaves == 1
                continue
            assert lane.status == "optimal", (q, case)
            assert lane.objective == pytest.approx(one.objective, rel=1e-9, abs=1e-9), (q, case)
            assert lane.lower_bound == pytest.approx(one.objective, rel=1e-9, abs=1e-9)
            assert lane.tree.n_leaves <= (limits["max_leaf_nodes"] or np.inf)
            assert lane.tree.max_depth <= limits["max_depth"]
            if capped:
                assert lane.cache["cache_peak_entries"] <= capped["max_cache_entries"]
    assert {"optimal", "infeasible"} <= statuses


def test_the_regressor_takes_every_limit_with_several_quantiles(load):
    X, y = load("vote")
    target = y * 4.0 + np.random.default_rng(0).normal(size=len(y))
    quantiles = [0.2, 0.5, 0.8]
    settings = {"max_depth": 3, "max_leaf_nodes": 4, "criterion": "quantile",
                "memory_limit": "50MB"}
    joint = OptimalTreeRegressor(quantiles=quantiles, **settings).fit(X, target)
    assert joint.optimal_ and joint.predict(X).shape == (len(y), 3)
    for k, q in enumerate(quantiles):
        alone = OptimalTreeRegressor(quantile=q, **settings).fit(X, target)
        assert joint.objectives_[k] == pytest.approx(alone.objective_, rel=1e-9)
        assert joint.trees_[k].n_leaves <= 4
    with pytest.warns(UserWarning, match="upper_bound"):
        bounded = OptimalTreeRegressor(quantiles=quantiles, upper_bound=1e-3,
                                       **settings).fit(X, target)
    assert bounded.status_ == "infeasible"


def test_several_quantiles_take_a_leaf_budget_as_each_quantile_alone_does():
    X, y = make_friedman1(100, random_state=0)
    both = OptimalTreeRegressor(criterion="quantile", quantiles=[0.2, 0.8], max_depth=2,
                                max_leaf_nodes=2).fit(X, y)
    for quantile, objective in zip([0.2, 0.8], both.objectives_, strict=True):
        alone = OptimalTreeRegressor(criterion="quantile", quantile=quantile, max_depth=2,
                                     max_leaf_nodes=2).fit(X, y)
        assert alone.get_n_leaves() <= 2
        assert objective == pytest.approx(alone.objective_)
