"""Where the thresholds of numeric columns go, computed for many columns at once (see the
Notes of :class:`~odtree.Binarizer`)."""

from __future__ import annotations

import numpy as np

_QUANTILE_TOLERANCE = 1e-12
#: Larger threshold budgets count as this one, whose levels are already closer together than
#: float64 can tell apart near the fractions they are compared with.
_LARGEST_BUDGET = 2**1000


def thresholds_of(columns, weight, strategy, n_thresholds, tree):
    """Thresholds of the non-binary numeric ``columns`` (rows of non-zero ``weight``), all at
    once: their number in each column, their values, column after column in increasing
    order, and the number of midpoints each column has (one fewer than its distinct values:
    a column whose count reaches it has a threshold at every midpoint). ``tree`` lists
    ``(column, greedy-tree thresholds)`` for ``strategy="tree"``.

    Row ``i`` of the ``(rows, columns)`` arrays below stands for each column's ``i``-th distinct
    value; rows past a column's last distinct value are padding.

    >>> import numpy as np
    >>> columns = np.array([[1.0, 5.0], [2.0, 5.0], [4.0, 7.0]])
    >>> counts, values, midpoints = thresholds_of(columns, np.ones(3), "midpoints", 10, [])
    >>> counts.tolist(), values.tolist(), midpoints.tolist()
    ([2, 1], [1.5, 3.0, 6.0], [2, 1])
    """
    order = np.argsort(columns, axis=0, kind="stable")  # equal values keep their row order
    ordered = np.take_along_axis(columns, order, axis=0)
    starts = np.ones(columns.shape, dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    rank = np.cumsum(starts, axis=0) - 1  # of each sorted value among its column's distinct ones
    position = np.broadcast_to(np.arange(columns.shape[1]), columns.shape)
    distinct = np.zeros_like(columns)
    distinct[rank, position] = ordered
    if strategy == "midpoints":
        gap = np.ones(columns.shape, dtype=bool)
    elif strategy == "quantile":
        # the weight of each distinct value, summed in row order, then F as a running sum:
        # the same float operations, in the same order, as for one column at a time
        total = np.bincount((rank * columns.shape[1] + position).ravel(),
                            weights=weight[order].ravel(), minlength=rank.size)
        fraction = np.cumsum(total.reshape(columns.shape), axis=0)
        fraction /= fraction[-1]
        gap = _quantile_gaps(fraction, n_thresholds)
    else:
        gap = np.zeros(columns.shape, dtype=bool)
        for j, thresholds in tree:
            below = np.searchsorted(distinct[:rank[-1, j] + 1, j], thresholds, side="right") - 1
            gap[below[below >= 0], j] = True
    gap &= np.arange(len(columns))[:, np.newaxis] < rank[-1]  # no gap above the largest value
    column, row = np.nonzero(gap.T)
    return (gap.sum(axis=0), _midpoints(distinct[row, column], distinct[row + 1, column]),
            rank[-1])


def _quantile_gaps(fraction, n_thresholds):
    """Whether some level of ``strategy="quantile"`` stops at each distinct value, given the
    share ``fraction`` of the weight at or below it (see the Notes of ``Binarizer``).

    Level ``i`` stops at value ``v`` when ``fraction[v - 1] < level(i) <= fraction[v]``. As the
    levels grow with ``i``, some level stops at ``v`` exactly when the first level above
    ``fraction[v - 1]`` is at most ``fraction[v]``: only these first levels are computed, so
    the work does not grow with ``n_thresholds``."""
    n = min(int(n_thresholds), _LARGEST_BUDGET)
    scale, last = float(n + 1), float(n)

    def level(i):
        return i / scale - _QUANTILE_TOLERANCE  # as np.arange(1, n + 1) / (n + 1) - tolerance

    gap = np.empty(fraction.shape, dtype=bool)
    gap[0] = level(1.0) <= fraction[0]
    gap[1:] = level(_first_level_above(fraction[:-1], level, scale, last)) <= fraction[1:]
    return gap


def _first_level_above(fraction, level, scale, last):
    """The smallest ``i`` in ``1, ..., last`` with ``level(i) > fraction``, or inf if none.

    ``i`` is a float, as in numpy's levels; beyond 2**53 it stands for the integers that round
    to it. The estimate from ``scale`` is off by a few steps at most, which steps to the next
    integer float down, then up, correct."""
    i = np.clip(np.floor((fraction + _QUANTILE_TOLERANCE) * scale), 1.0, last)
    while True:
        below = np.minimum(i - 1, np.nextafter(i, -np.inf))
        down = (i > 1) & (level(below) > fraction)
        if not down.any():
            break
        i = np.where(down, below, i)
    while True:
        up = (level(i) <= fraction) & (i < last)
        if not up.any():
            break
        i = np.where(up, np.maximum(i + 1, np.nextafter(i, np.inf)), i)
    return np.where(level(i) > fraction, i, np.inf)


def _midpoints(lower, upper):
    """Midpoints of the gaps (lower, upper), or ``lower`` where the two are adjacent floats."""
    middle = lower / 2 + upper / 2  # no overflow near the largest floats
    return np.where(middle < upper, middle, lower)
