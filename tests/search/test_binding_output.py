"""What the binding returns: every field of a solve's result, its type and shape,
and its consistency with the data, for each kind of objective."""

from __future__ import annotations

import numpy as np
import pytest
from odtree import _core
from odtree._search.vocabulary import CACHE_FIGURES

ARRAYS = {"children_left": np.int64, "children_right": np.int64, "feature": np.int64,
          "n_node_samples": np.int64, "weighted_n_node_samples": np.float64,
          "label": np.int64, "leaf_value": np.float64, "value": np.float64}


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(50, 4)).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1]).astype(np.uint32)
    return X, y, rng.uniform(0.5, 2.0, size=50), rng.normal(size=50)


def _routes(result, X):
    """The rows reaching each node, by following the returned arrays."""
    rows = {0: np.arange(len(X))}
    for node in range(len(result["feature"])):
        if result["children_left"][node] >= 0:
            right = X[rows[node], result["feature"][node]] == 1
            rows[result["children_left"][node]] = rows[node][~right]
            rows[result["children_right"][node]] = rows[node][right]
    return rows


@pytest.mark.parametrize("objective", ["misclassification", "cost_matrix", "squared_error",
                                       "absolute_error", "centroid"])
def test_result_fields_types_and_consistency(objective):
    X, y, weight, target = _data()
    inputs = {"cost_matrix": {"cost_matrix": np.array([[0.0, 2.0], [1.0, 0.0]])},
              "squared_error": {"targets": target}, "absolute_error": {"targets": target},
              "centroid": {"points": np.column_stack([target, target ** 2])}}.get(objective, {})
    result = _core.Solver(X, y, 2).solve(_core.Config(max_depth=2), objective=objective,
                                         sample_weight=weight, **inputs)
    nodes = len(result["feature"])
    for name, dtype in ARRAYS.items():
        assert result[name].dtype == dtype and len(result[name]) == nodes, name
    assert result["value"].ndim == 2
    for name in CACHE_FIGURES:
        assert isinstance(result[name], int) and result[name] >= 0, name
    assert result["status"] == "optimal" and result["objective"] == result["lower_bound"]
    assert isinstance(result["seconds"], float)
    leaves = result["children_left"] < 0
    assert (result["feature"][leaves] == -2).all() and (result["feature"][~leaves] >= 0).all()
    for node, rows in _routes(result, X).items():
        assert result["n_node_samples"][node] == len(rows)
        assert result["weighted_n_node_samples"][node] == pytest.approx(weight[rows].sum())
    if objective in ("misclassification", "cost_matrix"):
        # class weights per node, and the leaves' labels reproduce the objective
        for node, rows in _routes(result, X).items():
            np.testing.assert_allclose(result["value"][node],
                                       np.bincount(y[rows], weights=weight[rows], minlength=2))
        costs = (np.array([[0.0, 1.0], [1.0, 0.0]]) if objective == "misclassification"
                 else inputs["cost_matrix"])
        total = sum(weight[rows] @ costs[y[rows], result["label"][node]]
                    for node, rows in _routes(result, X).items() if leaves[node])
        assert total == pytest.approx(result["objective"])
    if objective == "squared_error":
        for node, rows in _routes(result, X).items():
            mean = np.average(target[rows], weights=weight[rows])
            assert result["leaf_value"][node] == pytest.approx(mean)


def test_several_quantiles_give_one_result_each():
    X, y, _, target = _data(1)
    results = _core.Solver(X, np.zeros(50, dtype=np.uint32), 1).solve(
        _core.Config(max_depth=2), objective="quantiles", targets=target,
        quantiles=np.array([0.25, 0.5, 0.75]))
    assert isinstance(results, list) and len(results) == 3
    assert all(result["status"] == "optimal" for result in results)


def test_config_reports_its_settings_and_rejects_unknown_names():
    config = _core.Config(max_depth=4, search="dl85", depth2_solver=True)
    assert "max_depth: 4" in repr(config) and "depth2_solver: true" in repr(config)
    with pytest.raises(ValueError, match="unknown search \"cart\": expected one of murtree, dl85"):
        _core.Config(search="cart")
    with pytest.raises(ValueError, match="expected one of reuses, descendants, all"):
        _core.Config(wipe_strategy="oldest")


def _solve(solver, **kwargs):
    return solver.solve(_core.Config(max_depth=2), **kwargs)


def test_node_weights_come_from_the_core():
    """The binding summed the statistics vector: the squared-error root weighed 265.6
    instead of 60."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 3)).astype(np.uint8)
    targets = rng.normal(loc=2.0, size=60)
    weights = rng.uniform(0.5, 1.5, size=60)
    solver = _core.Solver(X, np.zeros(60, dtype=np.uint32), 1)
    for objective in ("squared_error", "absolute_error", "quantile", "centroid"):
        extra = ({"points": np.column_stack([targets, targets ** 2])} if objective == "centroid"
                 else {"targets": targets})
        for sample_weight in (None, weights):
            result = _solve(solver, objective=objective, sample_weight=sample_weight, **extra)
            expected = 60.0 if sample_weight is None else weights.sum()
            assert result["weighted_n_node_samples"][0] == pytest.approx(expected)


@pytest.mark.parametrize("objective,extra", [
    ("squared_error", {"targets": np.zeros(3)}),
    ("absolute_error", {"targets": np.zeros(3)}),
    ("quantile", {"targets": np.zeros(50)}),
    ("quantiles", {"targets": np.zeros(3), "quantiles": np.array([0.5])}),
    ("centroid", {"points": np.zeros((3, 2))}),
    ("centroid", {"points": np.zeros((40, 0))}),
    ("squared_error", {"targets": np.full(40, np.nan)}),
    ("centroid", {"points": np.full((40, 1), np.inf)}),
])
def test_private_solver_validates_targets_and_points(objective, extra):
    """The private solver panicked (a RuntimeError) on targets or points of the wrong length."""
    X = np.random.default_rng(0).integers(0, 2, size=(40, 2)).astype(np.uint8)
    solver = _core.Solver(X, np.zeros(40, dtype=np.uint32), 1)
    with pytest.raises(ValueError, match="targets|coordinates|points"):
        _solve(solver, objective=objective, **extra)
