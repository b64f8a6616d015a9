"""``thresholds="exact"``: the optimal tree over every threshold of the numeric columns.

Each numeric column goes to the compiled search as it is (one feature whose tests are
``x <= t`` for every midpoint between two of its distinct training values); categorical
columns, 0/1 columns and missing-value tests go as the binarizer's 0/1 features. A numeric
column with missing values goes twice, its missing values below every value in one copy and
above every value in the other, so that each threshold is tried with the missing rows on
either side (the binarizer's ``x <= t or missing`` and ``x <= t``).

The binarizer's quantile grid (and, from depth 3, CART) gives a first tree quickly; the exact
search then looks only for strictly better trees, and when it proves there are none, that
first tree is optimal over every threshold. The thresholds the final tree uses join the
fitted binarizer's features, so that prediction, export and serialization treat the tree as
any other.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..preprocessing._columns import column_names
from ..preprocessing._features import BinaryFeature
from .memory import parse_bytes
from .progress import long_search_notice
from .solver import Solution, threads
from .vocabulary import CACHE_FIGURES, branching_nodes, leaf_penalty

#: What ``optimal_`` covers, by the ``thresholds`` setting (the ``optimal_over_`` attribute).
EVERY_THRESHOLD = "every threshold of the input columns"
BINARIZED = "the binarized features (a grid of thresholds)"

#: The regressor's objectives the exact search takes: how each scales the pinball loss of
#: which quantile (None: squared error, or the estimator's ``quantile``).
REGRESSION = {"squared_error": None, "absolute_error": (0.5, 2.0), "quantile": (None, 1.0)}

#: The classifier's metrics the exact search takes, by weighted misclassification searches
#: (not their ``_front`` forms, whose Pareto fronts it does not keep).
METRICS = ("f1", "balanced_accuracy")

#: The objectives ``thresholds="auto"`` searches every threshold for. Absolute and quantile
#: error are left to the grid: their exact search is several times slower than squared
#: error's (friedman1, 2,000 rows, depth 3: no proof in 120 s, where the grid takes 7 s).
AUTO = ("misclassification", "cost_matrix", "squared_error", *METRICS)

#: The share of the time limit the grid tree may take before the exact search starts.
GRID_SHARE = 0.25
#: The grid tree's time when there is no time limit (seconds).
GRID_SECONDS = 1.0
#: From this depth on, an exact search without first trees does up to :data:`QUICK_WORK`
#: (rows times columns swept: 30 to 50 ms on the machine of ``benchmarks/RESULTS.md``)
#: before the grid's and CART's trees are built: one that proves the optimum by then needs
#: neither (bank at depth 4: proven in 26 ms alone, 44 ms after them). Work, not time, so
#: that the same fit gives the same tree on every machine.
QUICK_DEPTH = 4
QUICK_WORK = 12_000_000


@dataclass(frozen=True)
class Source:
    """Where one column of the exact search comes from: a 0/1 feature of the binarizer
    (``feature``), or an input column (``column``) whose missing values, if any, were put
    below (``missing_low``) or above every value."""

    feature: int | None = None
    column: int | None = None
    missing_low: bool | None = None


class Sources:
    """The :class:`Source` of each column of the exact search, made when asked for: the
    input ``columns`` (with ``missing_low``: None, or whether that copy puts missing values
    low), then the binarizer's ``features``."""

    def __init__(self, columns: np.ndarray, missing_low: np.ndarray, features: list[int]):
        self.columns, self.missing_low, self.features = columns, missing_low, features

    def __getitem__(self, i: int) -> Source:
        if i >= len(self.columns):
            return Source(feature=self.features[i - len(self.columns)])
        low = self.missing_low[i]
        return Source(column=int(self.columns[i]), missing_low=None if low is None else bool(low))


def _any_nonzero(constraints) -> bool:
    return constraints is not None and bool(np.any(np.asarray(constraints) != 0))


def grid_covers_every_threshold(binarizer) -> bool:
    """Whether the just-fitted ``binarizer`` has a feature for every midpoint between two
    distinct values (of the rows of non-zero weight) of each numeric column, and finished
    every column: then the optimum over its features is the optimum over every threshold
    of the input columns (as for 0/1 and categorical columns, always)."""
    return binarizer.stopped_ is None and getattr(binarizer, "_every_midpoint", False)


def searches_exact(estimator, objective: str | None) -> bool:
    """Whether a fit of ``estimator`` whose objective is named ``objective`` (None: one the
    exact search does not take) searches every threshold: with ``thresholds="exact"``, and
    with ``"auto"`` for the objectives of :data:`AUTO` where the exact search takes every
    setting of the fit and no leaf budget binds."""
    if estimator.thresholds == "exact":
        return True
    return (estimator.thresholds == "auto" and objective in AUTO
            and not unsupported(estimator, {"objective": objective})
            and not budget_binds(estimator.max_depth,
                                 getattr(estimator, "max_leaf_nodes", None)))


def budget_binds(max_depth: int | None, max_leaf_nodes: int | None) -> bool:
    """Whether ``max_leaf_nodes`` allows fewer leaves than ``max_depth`` does. The exact
    search then shares the budget between the children in every way, with bounds share by
    share, and is far slower than on the grid (breast cancer at depth 3: with 4 leaves a
    proof in 20 s, with 6 none in 30 s, against 0.1 s on the grid), so ``"auto"`` takes the
    grid."""
    return max_leaf_nodes is not None and (max_depth is None
                                           or max_leaf_nodes < 2 ** min(max_depth, 62))


def needs_exact(binarizer) -> bool:
    """Whether the just-fitted ``binarizer`` leaves out a threshold of some numeric column
    (a column not 0/1 whose midpoints its grid does not all hold): where it leaves none, the
    search over its features already proves the optimum over every threshold."""
    if grid_covers_every_threshold(binarizer) or binarizer.stopped_ is not None:
        return False  # (a binarizer stopped by the time limit leaves the search no time)
    binary = {f.column for f in binarizer.features_ if f.kind == "binary"}
    return any(kind == "numeric" and j not in binary
               for j, kind in enumerate(binarizer.column_kinds_))


def exact_depth(estimator, max_leaf_nodes=None) -> int:
    """The depth the exact search goes to: ``max_depth``, or less under a leaf budget (a tree
    of k leaves is at most k - 1 levels deep)."""
    leaves = max_leaf_nodes if max_leaf_nodes is not None else getattr(
        estimator, "max_leaf_nodes", None)
    # no limit at all is refused (see `unsupported`)
    return min((d for d in (estimator.max_depth, leaves and leaves - 1) if d is not None),
               default=0)


def grid_first(estimator) -> bool:
    """Whether the exact search starts from a tree on the quantile grid: from depth 3, where
    its bound saves more than the grid costs (at depths 1 and 2 the exact search alone is
    quicker than binarizing for the grid)."""
    return exact_depth(estimator) >= 3 or estimator.max_depth is None


def unsupported(estimator, objective: dict) -> list[str]:
    """The settings of ``estimator`` the exact search does not take (empty when it takes
    them all)."""
    settings = {
        "max_depth=None without max_leaf_nodes": (
            estimator.max_depth is None and getattr(estimator, "max_leaf_nodes", None) is None),
        "monotonic_cst": _any_nonzero(getattr(estimator, "monotonic_cst", None)),
        "lexicographic": getattr(estimator, "lexicographic", False),
    }
    names = [name for name, used in settings.items() if used]
    kind = objective.get("objective")
    if kind not in ("misclassification", "cost_matrix", *METRICS, *REGRESSION):
        names.append(f"objective {kind!r}")
    return names


def exact_inputs(estimator, X, weight: np.ndarray, binary_X: np.ndarray):
    """The float64 matrix the exact search reads (rows of non-zero weight) and the source of
    each of its columns."""
    binarizer = estimator.binarizer_
    numeric, _, kinds = binarizer._read(X, reset=False, validated=True)
    numeric = np.asarray(numeric, dtype=np.float64)[weight > 0]
    binary_columns = {f.column for f in binarizer.features_ if f.kind == "binary"}
    searched = np.array([j for j, kind in enumerate(kinds)
                         if kind == "numeric" and j not in binary_columns], dtype=np.intp)
    # a column with missing values goes twice: them below every value, then above
    gappy = np.isnan(numeric[:, searched]).any(axis=0)
    copies = np.where(gappy, 2, 1)
    columns = np.repeat(searched, copies)
    low = np.r_[True, columns[1:] != columns[:-1]][:len(columns)]  # the first copy
    missing_low = np.where(np.repeat(gappy, copies), low, None)
    zero_one = [i for i, feature in enumerate(binarizer.features_) if feature.kind != "threshold"]
    values = numeric[:, columns]
    matrix = np.hstack([np.where(np.isnan(values), np.where(low, -np.inf, np.inf), values),
                        binary_X[:, zero_one].astype(np.float64)])
    sources = Sources(columns, missing_low, zero_one)
    return np.ascontiguousarray(matrix, dtype=np.float64), sources


def quick_proof(estimator, X, binary_X, labels, n_classes, weight, time_limit,
                objective: dict, limits: dict, max_leaf_nodes: int | None) -> Solution | None:
    """The exact search's outcome (see :func:`solve_exact`) within :data:`QUICK_WORK`,
    without first trees, at depths from :data:`QUICK_DEPTH`: None when it ran out of that
    work or of ``time_limit`` (or the depth is less), so that the fit goes on to the first
    trees."""
    if exact_depth(estimator, max_leaf_nodes) < QUICK_DEPTH:
        return None
    solution = solve_exact(estimator, X, binary_X, labels, n_classes, weight, None, time_limit,
                           objective, limits, max_leaf_nodes, max_work=QUICK_WORK)
    return None if solution.status == "time_limit" else solution


def solve_exact(estimator, X, binary_X, labels, n_classes, weight, grid: Solution | None,
                time_limit, objective: dict, limits: dict,
                max_leaf_nodes: int | None, max_work: int | None = None) -> Solution:
    """The exact search on the kept rows, looking for trees cheaper than ``grid`` (the grid
    tree, or None), with what remains of ``time_limit``, under the node limits ``limits``
    (``min_samples_leaf``, ``min_samples_split`` and ``min_weight_leaf``, as the grid's
    search takes them). With ``max_work`` (see :data:`QUICK_WORK`), CART's tree is left out
    too, and the search stops after that much work. Returns the better
    tree as a :class:`Solution` over the binarizer's features, to which the new thresholds
    are added; its status is ``"optimal"`` when the tree is proven optimal over every
    threshold."""
    from .. import _core

    matrix, sources = exact_inputs(estimator, X, weight, binary_X)
    kept_weight = np.ascontiguousarray(weight[weight > 0], dtype=np.float64)
    penalty = leaf_penalty(estimator.ccp_alpha, kept_weight.sum())
    bound = np.inf if estimator.upper_bound is None else float(estimator.upper_bound)
    # the first trees: the grid's and CART's at the same depth, the better one kept (at
    # depths 1 and 2 the exact search is quicker than CART)
    incumbents = []
    if grid is not None and grid.status != "infeasible" and grid.objective < bound:
        incumbents.append((grid.objective, lambda: grid))
    depth = exact_depth(estimator, max_leaf_nodes)
    kind = objective["objective"]
    cart = None if depth <= 2 or max_work is not None or kind in METRICS else cart_tree(
        depth, max_leaf_nodes, limits, matrix, labels, kept_weight, objective, penalty)
    if cart is not None and cart["objective"] < bound:
        incumbents.append((cart["objective"],
                           lambda: _as_solution(estimator, cart, sources, objective)))
    incumbent = min(incumbents, key=lambda pair: pair[0], default=None)
    if incumbent is not None:
        bound = incumbent[0]
    if kind in REGRESSION:
        arguments = {"targets": np.ascontiguousarray(objective["targets"], dtype=np.float64)}
        if REGRESSION[kind] is not None:
            quantile, scale = REGRESSION[kind]
            arguments.update(quantile=float(objective["quantile"] if quantile is None
                                            else quantile), scale=scale)
    else:
        arguments = {"labels": np.ascontiguousarray(labels, dtype=np.uint32),
                     "n_classes": n_classes}
        if kind == "cost_matrix":
            arguments["cost_matrix"] = np.ascontiguousarray(objective["cost_matrix"],
                                                            dtype=np.float64)
        if kind in METRICS:  # objectives and bounds are the metric's loss
            arguments["metric"] = kind
    quiet = estimator.verbose or estimator.callback is not None
    memory_limit = getattr(estimator, "memory_limit", None)
    with long_search_notice(time_limit is None and not quiet):
        result = _core.solve_numeric(
            matrix, kept_weight, **arguments, max_depth=int(depth),
            max_nodes=branching_nodes(max_leaf_nodes),
            min_samples_leaf=int(limits["min_samples_leaf"]),
            min_samples_split=int(limits.get("min_samples_split", 2)),
            min_weight_leaf=float(limits.get("min_weight_leaf", 0.0)),
            leaf_penalty=penalty, upper_bound=bound,
            max_bytes=None if memory_limit is None else parse_bytes(memory_limit),
            max_stored=getattr(estimator, "max_cache_entries", None),
            time_limit=time_limit, max_work=max_work,
            threads=threads(getattr(estimator, "n_jobs", None)))
    status = str(result["status"])
    if status != "infeasible" and result["objective"] < bound:
        return _as_solution(estimator, result, sources, objective)
    if incumbent is None:  # nothing below the user's upper_bound
        solution = _as_solution(estimator, result, sources, objective)
        solution.status = status
        return solution
    # no tree beats the incumbent: proven optimal when the exact search ended
    solution = incumbent[1]()
    solution.status = "optimal" if status in ("optimal", "infeasible") else status
    solution.lower_bound = solution.objective if solution.status == "optimal" else 0.0
    return solution


def cart_tree(max_depth, max_leaf_nodes, limits, matrix, labels, weight, objective,
              penalty) -> dict | None:
    """scikit-learn's CART tree of the same limits (see :func:`solve_exact`) on the exact
    search's columns, as a result
    of the core's form (its cost under the objective), or None where CART does not apply
    (missing values, which the columns hold as infinities) or is slow (absolute error; the
    pinball loss, which it does not offer)."""
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    kind = objective["objective"]
    if matrix.shape[1] == 0 or not np.all(np.isfinite(matrix)) or (
            kind in REGRESSION and kind != "squared_error"):
        return None
    regression = kind == "squared_error"
    learner = DecisionTreeRegressor if regression else DecisionTreeClassifier
    target = objective["targets"] if regression else labels
    model = learner(max_depth=max_depth, max_leaf_nodes=max_leaf_nodes,
                    min_samples_leaf=limits["min_samples_leaf"],
                    min_samples_split=limits.get("min_samples_split", 2),
                    min_weight_fraction_leaf=min(0.5, limits.get("min_weight_leaf", 0.0)
                                                 / float(weight.sum())),
                    random_state=0)
    model.fit(matrix, target, sample_weight=weight)
    tree = model.tree_
    path = model.decision_path(matrix).T.tocsr()  # nodes × rows
    rows = np.asarray(path.sum(axis=1)).ravel()
    node_weight = path @ weight
    is_leaf = tree.children_left < 0
    if regression:
        y = np.asarray(target, dtype=np.float64)
        value = np.divide(path @ (weight * y), node_weight, out=np.zeros(len(rows)),
                          where=node_weight > 0)
        stats = np.column_stack([node_weight, path @ (weight * y), path @ (weight * y * y)])
        loss = np.asarray(path @ (weight * y * y)) - np.divide(
            (path @ (weight * y)) ** 2, node_weight, out=np.zeros(len(rows)),
            where=node_weight > 0)
        label = np.zeros(len(rows), dtype=np.int64)
    else:
        n_classes = int(labels.max()) + 1 if len(labels) else 1
        onehot = np.zeros((len(labels), n_classes))
        onehot[np.arange(len(labels)), labels] = weight
        stats = np.asarray(path @ onehot)
        costs = objective.get("cost_matrix")
        if costs is None:
            label = np.argmax(stats, axis=1)
            loss = stats.sum(axis=1) - stats.max(axis=1)
        else:
            costs = np.asarray(costs, dtype=np.float64)[:n_classes, :]
            per_class = stats @ costs  # the cost of predicting each class
            label = np.argmin(per_class, axis=1)
            loss = per_class.min(axis=1)
        value = label.astype(np.float64)
    return {
        "children_left": tree.children_left.astype(np.int64),
        "children_right": tree.children_right.astype(np.int64),
        "feature": np.where(is_leaf, -2, tree.feature).astype(np.int64),
        "threshold": tree.threshold.astype(np.float64),
        "value": stats, "n_node_samples": rows.astype(np.int64),
        "weighted_n_node_samples": node_weight, "label": label.astype(np.int64),
        "leaf_value": value, "node_loss": np.maximum(loss, 0),
        "objective": float(np.maximum(loss[is_leaf], 0).sum() + penalty * is_leaf.sum()),
        "lower_bound": 0.0, "status": "time_limit", "cache_entries": 0, "seconds": 0.0,
    }


def _as_solution(estimator, result: dict, sources: Sources, objective: dict) -> Solution:
    """The core's tree over the exact search's columns as a :class:`Solution` over the
    binarizer's features (new threshold features appended), children in odtree's order:
    the rows where the feature holds go right."""
    features = estimator.binarizer_.features_
    index = {feature: i for i, feature in enumerate(features)}
    names = column_names(estimator.binarizer_)
    left = np.asarray(result["children_left"]).copy()
    right = np.asarray(result["children_right"]).copy()
    feature = np.asarray(result["feature"]).copy()
    for node in np.flatnonzero(feature >= 0).tolist():
        source = sources[feature[node]]
        if source.feature is not None:
            feature[node] = source.feature
            continue
        threshold = float(result["threshold"][node])
        name = names[source.column]
        if source.missing_low and threshold == -np.inf:
            new = BinaryFeature(source.column, name, "missing")
        else:
            holds = None if source.missing_low is None else source.missing_low
            new = BinaryFeature(source.column, name, "threshold", threshold, holds)
        # a split on x <= t of a column with missing values comes with its twin sending
        # them the other way (see settle_missing_directions)
        twin = None if new.missing_holds is None else replace(
            new, missing_holds=not new.missing_holds)
        for added in (new, twin):
            if added is not None and added not in index:
                index[added] = len(features)
                features.append(added)
        feature[node] = index[new]
        # the core sends x <= t left; odtree sends the rows where the feature holds right
        left[node], right[node] = right[node], left[node]
    estimator.binary_features_ = list(features)
    estimator.binary_feature_names_ = np.array([f.name for f in features], dtype=object)
    value = np.asarray(result["value"], dtype=np.float64)
    if objective["objective"] in REGRESSION:
        value = value[:, :1]  # the regressor replaces it by each node's prediction
    converted = dict(result, children_left=left, children_right=right, feature=feature,
                     value=value, progress=np.empty((0, 3)), pareto_front=np.empty((0, 2)))
    for name in CACHE_FIGURES:
        converted.setdefault(name, 0)
    return Solution._from_result(converted)


def grid_budget(time_limit: float | None) -> float:
    """Seconds the grid tree may take before the exact search."""
    return GRID_SECONDS if time_limit is None else GRID_SHARE * time_limit
