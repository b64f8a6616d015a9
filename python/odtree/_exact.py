"""``thresholds="exact"``: the optimal tree over every threshold of the numeric columns.

Each numeric column goes to the compiled search as it is (one feature whose tests are
``x <= t`` for every midpoint between two of its distinct training values); categorical
columns, 0/1 columns and missing-value tests go as the binarizer's 0/1 features. A numeric
column with missing values goes twice, its missing values below every value in one copy and
above every value in the other, so that each threshold is tried with the missing rows on
either side (the binarizer's ``x <= t or missing`` and ``x <= t``).

The binarizer's quantile grid gives a first tree quickly; the exact search then looks only
for strictly better trees, and when it proves there are none, the grid tree is optimal over
every threshold. The thresholds the final tree uses join the fitted binarizer's features, so
that prediction, export and serialization treat the tree as any other.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ._columns import column_names
from ._features import BinaryFeature
from ._solver import CACHE_FIGURES, Solution

#: What ``optimal_`` covers, by the ``thresholds`` setting (the ``optimal_over_`` attribute).
EVERY_THRESHOLD = "every threshold of the input columns"
BINARIZED = "the binarized features (a grid of thresholds)"

#: The share of the time limit the grid tree may take before the exact search starts.
GRID_SHARE = 0.25
#: The grid tree's time when there is no time limit (seconds).
GRID_SECONDS = 1.0


@dataclass(frozen=True)
class Source:
    """Where one column of the exact search comes from: a 0/1 feature of the binarizer
    (``feature``), or an input column (``column``) whose missing values, if any, were put
    below (``missing_low``) or above every value."""

    feature: int | None = None
    column: int | None = None
    missing_low: bool | None = None


def unsupported(estimator, objective: dict) -> list[str]:
    """The settings of ``estimator`` the exact search does not take (empty when it takes
    them all)."""
    settings = {
        "max_leaf_nodes": getattr(estimator, "max_leaf_nodes", None) is not None,
        "max_depth=None": estimator.max_depth is None,
        "min_samples_split": getattr(estimator, "min_samples_split", 2) != 2,
        "min_weight_fraction_leaf": getattr(estimator, "min_weight_fraction_leaf", 0) != 0,
        "monotonic_cst": np.any(np.asarray(getattr(estimator, "monotonic_cst", None) or 0)),
        "lexicographic": getattr(estimator, "lexicographic", False),
    }
    names = [name for name, used in settings.items() if used]
    kind = objective.get("objective")
    if kind not in ("misclassification", "cost_matrix", "squared_error"):
        names.append(f"objective {kind!r}")
    return names


def exact_inputs(estimator, X, weight: np.ndarray, binary_X: np.ndarray):
    """The float64 matrix the exact search reads (rows of non-zero weight) and the source of
    each of its columns."""
    binarizer = estimator.binarizer_
    numeric, _, kinds = binarizer._read(X, reset=False, validated=True)
    numeric = np.asarray(numeric, dtype=np.float64)[weight > 0]
    binary_columns = {f.column for f in binarizer.features_ if f.kind == "binary"}
    columns, sources = [], []
    for j, kind in enumerate(kinds):
        if kind != "numeric" or j in binary_columns:
            continue
        values = numeric[:, j]
        missing = np.isnan(values)
        if not missing.any():
            columns.append(values)
            sources.append(Source(column=j))
            continue
        for low in (True, False):
            columns.append(np.where(missing, -np.inf if low else np.inf, values))
            sources.append(Source(column=j, missing_low=low))
    for i, feature in enumerate(binarizer.features_):
        if feature.kind != "threshold":
            columns.append(binary_X[:, i].astype(np.float64))
            sources.append(Source(feature=i))
    matrix = np.ascontiguousarray(np.column_stack(columns) if columns
                                  else np.zeros((len(binary_X), 0)), dtype=np.float64)
    return matrix, sources


def solve_exact(estimator, X, binary_X, labels, n_classes, weight, grid: Solution | None,
                time_limit, objective: dict, min_samples_leaf: int) -> Solution:
    """The exact search on the kept rows, looking for trees cheaper than ``grid`` (the grid
    tree, or None), with what remains of ``time_limit``. Returns the better tree as a
    :class:`Solution` over the binarizer's features, to which the new thresholds are added;
    its status is ``"optimal"`` when the tree is proven optimal over every threshold."""
    from . import _core

    matrix, sources = exact_inputs(estimator, X, weight, binary_X)
    kept_weight = np.ascontiguousarray(weight[weight > 0], dtype=np.float64)
    bound = np.inf if estimator.upper_bound is None else float(estimator.upper_bound)
    if grid is not None and grid.status != "infeasible":
        bound = min(bound, grid.objective)
    if objective["objective"] == "squared_error":
        arguments = {"targets": np.ascontiguousarray(objective["targets"], dtype=np.float64)}
    else:
        arguments = {"labels": np.ascontiguousarray(labels, dtype=np.uint32),
                     "n_classes": n_classes}
        if objective["objective"] == "cost_matrix":
            arguments["cost_matrix"] = np.ascontiguousarray(objective["cost_matrix"],
                                                            dtype=np.float64)
    result = _core.solve_numeric(
        matrix, kept_weight, **arguments, max_depth=int(estimator.max_depth),
        min_samples_leaf=int(min_samples_leaf),
        leaf_penalty=float(estimator.ccp_alpha) * float(kept_weight.sum()),
        upper_bound=bound, time_limit=time_limit)
    status = str(result["status"])
    found = status in ("optimal", "time_limit", "interrupted") and result["objective"] < bound
    if not found and grid is not None and grid.status != "infeasible":
        # no tree beats the grid's: proven optimal when the exact search ended
        grid.status = "optimal" if status in ("optimal", "infeasible") else status
        grid.lower_bound = grid.objective if grid.status == "optimal" else grid.lower_bound
        return grid
    solution = _as_solution(estimator, result, sources, objective)
    if status == "infeasible":
        solution.status = "infeasible"
    return solution


def _as_solution(estimator, result: dict, sources: list[Source], objective: dict) -> Solution:
    """The core's tree over the exact search's columns as a :class:`Solution` over the
    binarizer's features (new threshold features appended), children in odtree's order:
    the rows where the feature holds go right."""
    features = estimator.binarizer_.features_
    index = {feature: i for i, feature in enumerate(features)}
    names = [f.column_name for f in features]
    column_names = _column_names(estimator)
    left = np.asarray(result["children_left"]).copy()
    right = np.asarray(result["children_right"]).copy()
    feature = np.asarray(result["feature"]).copy()
    for node in np.flatnonzero(feature >= 0).tolist():
        source = sources[feature[node]]
        if source.feature is not None:
            feature[node] = source.feature
            continue
        threshold = float(result["threshold"][node])
        name = column_names[source.column]
        if source.missing_low and threshold == -np.inf:
            new = BinaryFeature(source.column, name, "missing")
        else:
            holds = None if source.missing_low is None else source.missing_low
            new = BinaryFeature(source.column, name, "threshold", threshold, holds)
        if new not in index:
            index[new] = len(features)
            features.append(new)
            names.append(name)
        feature[node] = index[new]
        # the core sends x <= t left; odtree sends the rows where the feature holds right
        left[node], right[node] = right[node], left[node]
    estimator.binary_features_ = list(features)
    estimator.binary_feature_names_ = np.array([f.name for f in features], dtype=object)
    value = np.asarray(result["value"], dtype=np.float64)
    if objective["objective"] == "squared_error":
        value = value[:, :1]  # the regressor replaces it by each node's prediction
    converted = dict(result, children_left=left, children_right=right, feature=feature,
                     value=value, progress=np.empty((0, 3)), pareto_front=np.empty((0, 2)))
    for name in CACHE_FIGURES:
        converted.setdefault(name, 0)
    return Solution._from_result(converted)


def _column_names(estimator) -> list[str]:
    return list(column_names(estimator.binarizer_))


def grid_budget(time_limit: float | None) -> float:
    """Seconds the grid tree may take before the exact search."""
    return GRID_SECONDS if time_limit is None else GRID_SHARE * time_limit


def remaining(deadline: float | None) -> float | None:
    """Seconds left until ``deadline`` (``time.monotonic`` time), at least 0."""
    return None if deadline is None else max(0.0, deadline - time.monotonic())
