"""The exact cost-complexity path of an optimal tree of bounded depth.

With ``ccp_alpha``, :class:`OptimalTreeClassifier` minimises the error rate plus ``ccp_alpha``
per leaf. Its optimum for a given ``ccp_alpha`` is the best of the trees of at most ``k``
leaves, over ``k``: with ``e(k)`` the least error rate of at most ``k`` leaves, it is the
``k`` minimising ``e(k) + ccp_alpha * k``. The ``k`` that win for some ``ccp_alpha`` are the
vertices of the lower convex hull of the points ``(k, e(k))``, and the values of ``ccp_alpha``
where the winner changes are the slopes of the hull.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.utils import Bunch

from .._utils.deadline import Deadline
from .._utils.warn import warn
from ..exceptions import NotOptimalWarning
from ._refit import FoldRefitter

#: The most leaves for which the path's first search runs under a leaf budget of them all.
_SHARED_LEAVES = 32


def cost_complexity_path(estimator, X, y, sample_weight=None) -> Bunch:
    """The breakpoints of ``ccp_alpha`` for optimal trees of ``estimator``'s settings; see
    :meth:`OptimalTreeClassifier.cost_complexity_pruning_path`."""

    if estimator.max_depth is None and estimator.max_leaf_nodes is None:
        raise ValueError("cost_complexity_pruning_path needs max_depth or max_leaf_nodes: "
                         "they bound the number of leaves the path runs through")
    if getattr(estimator, "criterion", "misclassification") != "misclassification":
        raise ValueError("cost_complexity_pruning_path needs criterion='misclassification': "
                         "ccp_alpha applies to objectives that add up over the leaves")
    # the estimator's time_limit bounds the whole path, every search drawing on it
    deadline = Deadline(estimator.time_limit)
    template = clone(estimator).set_params(ccp_alpha=0.0, upper_bound=None, time_limit=None)
    if template.thresholds == "auto":
        # every leaf budget on the same features: the grid (see odtree._search.exact.budget_binds)
        template.set_params(thresholds="quantile")
    most_leaves = np.inf if estimator.max_depth is None else 2**estimator.max_depth
    if estimator.max_leaf_nodes is not None:
        most_leaves = min(most_leaves, estimator.max_leaf_nodes)
    # the least error within the limits; found under the leaf budget of all the leaves the
    # limits allow while that search costs no more than one without (up to 32 leaves), so
    # that the budgets below find its subproblems kept (MurTree's best tree for every number
    # of nodes, from one search)
    first = {"max_leaf_nodes": int(most_leaves)} if most_leaves <= _SHARED_LEAVES else {}
    fold = FoldRefitter(template, X, y, sample_weight, deadline=deadline, **first)
    total = float(fold.weight.sum())
    least = fold.estimator.objective_
    least_leaves = fold.estimator.get_n_leaves()
    optimal = fold.estimator.optimal_
    tolerance = 1e-9 * total  # relative: the path does not change with the weights' scale
    errors = []  # e(k) for k = 1, 2, ... until it reaches the least error
    while len(errors) < most_leaves:
        if errors and deadline.passed():  # (one leaf takes no search)
            # the budgets not searched: at most the last error found, and the first
            # search's tree for its number of leaves
            optimal = False
            errors.extend([errors[-1]] * max(0, least_leaves - 1 - len(errors)))
            errors.append(least)
            break
        leaves = len(errors) + 1
        bound = None if not errors else errors[-1] + 1e3 * tolerance
        refitted = fold.refit(upper_bound=bound, max_leaf_nodes=leaves)
        optimal = optimal and refitted.optimal_
        errors.append(refitted.objective_)
        if errors[-1] <= least + tolerance:
            break
    if not optimal:
        warn("a search of the path was not proven optimal (time or memory limit): "
             "the path may not be exact", NotOptimalWarning)
    rates = np.array(errors, dtype=np.float64) / total
    hull = _lower_hull(rates)
    # from the most leaves (ccp_alpha = 0) to a single leaf, as scikit-learn orders it
    hull = hull[::-1]
    alphas = [0.0]
    for more, fewer in zip(hull[:-1], hull[1:], strict=True):
        alphas.append((rates[fewer] - rates[more]) / (more - fewer))
    return Bunch(ccp_alphas=np.array(alphas, dtype=np.float64),
                 impurities=rates[hull].copy(),
                 n_leaves=np.array(hull, dtype=np.int64) + 1)


def _lower_hull(values: np.ndarray) -> list[int]:
    """Indices of the vertices of the lower convex hull of the points ``(i, values[i])``,
    from left to right; points on a straight edge are left out."""
    hull: list[int] = []
    for i in range(len(values)):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            # b lies on or above the segment from a to i
            cross = (b - a) * (values[i] - values[a]) - (values[b] - values[a]) * (i - a)
            if cross <= 0:
                hull.pop()
            else:
                break
        hull.append(i)
    return hull
