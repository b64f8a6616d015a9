"""The pilot method for shallow trees that classify a local instance exactly: the start
DT-SLIM's oracles improve on (beyond the paper).

At each node, the splits Gini ranks best, and those that divide the node's own CART leaves
most evenly, are each scored by growing CART (scikit-learn's, to purity) under both
children, and the split whose worse child scores least wins (the sum over both children
breaks ties). A child's score is a measure of its CART tree, ``d``
deep with ``l`` leaves: ``"balanced"`` counts ``d + log2(l)`` (of two equally deep children
the one needing fewer leaves is preferred), ``"depth"`` counts ``d`` and ``"leaves"``
``log2(l)``. Which measure gives the shallowest tree varies from one data set to the next,
so :func:`best_pilot_tree` tries them all, with and without the balancing candidates. A
tree not finished in time is given up. On the benchmark sets a tree takes seconds and is
often several levels shallower than CART itself, because CART peels pure blocks off one
side while the pilot balances what is left to separate; Gini ranks a split through the
middle of a noisy range low, which is why the balancing candidates are added.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from ._sat import LocalTree

#: Splits scored by rollouts at each node: the best ranked by Gini impurity ...
CANDIDATES = 16
#: ... and those that divide the node's CART leaves most evenly (the leaves with rows on each
#: side of the split are counted; the larger count is ranked first, then the sum).
BALANCING = 8
#: A rollout on more rows than this grows CART on an evenly spaced sample of them, and on
#: more entries (rows x columns) than ``ROLLOUT_ENTRIES`` on the columns Gini ranks best:
#: it only ranks the candidates.
ROLLOUT_ROWS = 4000
ROLLOUT_ENTRIES = 2_000_000


#: How a child's CART tree of depth ``d`` with ``l`` leaves is scored.
MEASURES = {
    "balanced": lambda depth, leaves: depth + np.log2(leaves),
    "depth": lambda depth, leaves: float(depth),
    "leaves": lambda depth, leaves: float(np.log2(leaves)),
}
#: The (measure, balancing candidates) pairs :func:`best_pilot_tree` tries, in this order:
#: on the benchmark sets the first two give the shallowest trees most often.
SETTINGS = (("balanced", BALANCING), ("leaves", BALANCING), ("depth", BALANCING),
            ("balanced", 0), ("leaves", 0), ("balanced", 3 * BALANCING),
            ("leaves", 3 * BALANCING))


def best_pilot_tree(X: np.ndarray, labels: np.ndarray, *, target: int,
                    deadline: float | None = None) -> LocalTree | None:
    """The shallowest of :func:`pilot_tree`'s trees under each of ``SETTINGS``, tried in
    turn until one is at most ``target`` deep or ``deadline`` has passed (None: no tree
    was finished in time)."""
    best = None
    for measure, balancing in SETTINGS:
        tree = pilot_tree(X, labels, measure=measure, balancing=balancing, deadline=deadline)
        if tree is None:
            break
        if best is None or tree.depth() < best.depth():
            best = tree
        if best.depth() <= target:
            break
    return best


def pilot_tree(X: np.ndarray, labels: np.ndarray, *, measure: str = "balanced",
               candidates: int = CANDIDATES, balancing: int = BALANCING,
               deadline: float | None = None) -> LocalTree | None:
    """A tree over the 0/1 columns of ``X`` that classifies every row as ``labels`` does
    (rows with equal values must have equal labels), its splits chosen by rollouts scored
    by ``measure``; None if ``deadline`` (``time.monotonic()`` seconds) passes first."""
    score = MEASURES[measure]
    X = np.ascontiguousarray(X, dtype=np.uint8)
    labels = np.asarray(labels, dtype=np.int64)
    feature, child0, child1, label = [], [], [], []

    def new() -> int:
        for column in (feature, child0, child1, label):
            column.append(-1)
        return len(feature) - 1

    stack = [(new(), np.arange(len(X)))]
    while stack:
        node, rows = stack.pop()
        if deadline is not None and time.monotonic() >= deadline:
            return None
        ranked = _ranked_splits(X[rows], labels[rows])
        if len(ranked) == 0:
            values, counts = np.unique(labels[rows], return_counts=True)
            label[node] = int(values[np.argmax(counts)])
            continue
        tried = list(ranked[:candidates])
        if balancing:
            tried += [f for f in _balancing_splits(X, labels, rows, balancing) if f not in tried]
        column = min(tried, key=lambda f: _split_score(X, labels, rows, f, score))
        goes = X[rows, column] == 1
        feature[node] = int(column)
        child0[node], child1[node] = new(), new()
        stack += [(child0[node], rows[~goes]), (child1[node], rows[goes])]
    return LocalTree(*(np.array(column, dtype=np.int64)
                       for column in (feature, child0, child1, label)))


def _ranked_splits(X: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The columns splitting mixed rows into two non-empty parts, best Gini impurity first
    (lowest column on ties); none for pure rows."""
    classes, codes = np.unique(labels, return_inverse=True)
    if len(classes) < 2:
        return np.empty(0, dtype=np.int64)
    onehot = np.zeros((len(labels), len(classes)), dtype=np.float64)
    onehot[np.arange(len(labels)), codes] = 1.0
    ones = X.T.astype(np.float64) @ onehot
    zeros = onehot.sum(axis=0) - ones
    n1, n0 = ones.sum(axis=1), zeros.sum(axis=1)
    valid = (n1 > 0) & (n0 > 0)
    impurity = (n1 - (ones**2).sum(axis=1) / np.maximum(n1, 1)
                + n0 - (zeros**2).sum(axis=1) / np.maximum(n0, 1))
    order = np.argsort(np.where(valid, impurity, np.inf), kind="stable")
    return order[:int(valid.sum())]


def _balancing_splits(X, labels, rows, count: int) -> np.ndarray:
    """The ``count`` columns that divide the leaves of CART grown on ``rows`` (or on a
    sample of them, as in :func:`_rollout`) most evenly: fewest leaves with rows on the
    larger side, then fewest in all (lowest column on ties)."""
    sample, columns = _sample(X, labels, rows)
    local = X[sample]
    grown = local[:, columns]
    _, leaf = np.unique(_cart(grown, labels[sample]).apply(grown), return_inverse=True)
    in_leaf = np.zeros((leaf.max() + 1, len(sample)), dtype=np.float64)
    in_leaf[leaf, np.arange(len(sample))] = 1.0
    ones = in_leaf @ local.astype(np.float64)  # per leaf and column: rows with a 1
    right = (ones > 0).sum(axis=0)
    left = (in_leaf.sum(axis=1)[:, None] - ones > 0).sum(axis=0)
    n1 = local.sum(axis=0, dtype=np.int64)
    valid = (n1 > 0) & (n1 < len(sample))
    order = np.lexsort((left + right, np.maximum(left, right), ~valid))
    return order[:min(count, int(valid.sum()))]


def _split_score(X, labels, rows, column, score) -> tuple:
    """The split's rollout score: its worse child's, then the sum over both children."""
    goes = X[rows, column] == 1
    sides = [score(*_rollout(X, labels, rows[~goes])), score(*_rollout(X, labels, rows[goes]))]
    return max(sides), sum(sides)


def _rollout(X, labels, rows) -> tuple[int, int]:
    """The depth and leaves of CART grown to purity on ``rows``: (0, 1) for pure rows. On
    more than ``ROLLOUT_ROWS`` rows or ``ROLLOUT_ENTRIES`` entries, CART sees a sample of
    the rows and the best columns."""
    if np.all(labels[rows] == labels[rows[0]]):
        return 0, 1
    sample, columns = _sample(X, labels, rows)
    cart = _cart(X[sample][:, columns], labels[sample])
    return cart.get_depth(), cart.get_n_leaves()


def _sample(X, labels, rows) -> tuple[np.ndarray, np.ndarray | slice]:
    """The rows and columns CART is grown on for ``rows``: all of them, or evenly spaced
    rows when there are more than ``ROLLOUT_ROWS``, and the columns Gini ranks best when
    the rows still have more than ``ROLLOUT_ENTRIES`` entries."""
    if len(rows) > ROLLOUT_ROWS:
        rows = rows[::-(-len(rows) // ROLLOUT_ROWS)]
    columns = slice(None)
    if len(rows) * X.shape[1] > ROLLOUT_ENTRIES:
        columns = _ranked_splits(X[rows], labels[rows])[:ROLLOUT_ENTRIES // len(rows)]
    return rows, columns


def _cart(X, labels) -> DecisionTreeClassifier:
    """CART grown to purity on 0/1 columns."""
    with warnings.catch_warnings():  # many special classes look like a regression target
        warnings.simplefilter("ignore", UserWarning)
        return DecisionTreeClassifier(random_state=0).fit(X, labels)
