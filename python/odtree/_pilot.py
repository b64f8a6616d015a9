"""The pilot method for shallow trees that classify a local instance exactly: the start
DT-SLIM's oracles improve on (beyond the paper).

At each node, the splits Gini ranks best are each scored by growing CART (scikit-learn's,
to purity) under both children, and the split whose worse child scores least wins (the
sum over both children breaks ties). A child's score is a measure of its CART tree, ``d``
deep with ``l`` leaves: ``"balanced"`` counts ``d + log2(l)`` (of two equally deep children
the one needing fewer leaves is preferred), ``"depth"`` counts ``d`` and ``"leaves"``
``log2(l)``. Which measure gives the shallowest tree varies from one data set to the next,
so :func:`best_pilot_tree` tries them all. A tree not finished in time is given up. On the
benchmark sets a tree takes seconds and is often several levels shallower than CART
itself, because CART peels pure blocks off one side while the pilot balances what is left
to separate.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from ._sat import LocalTree

#: Splits scored by rollouts at each node: the best ranked by Gini impurity.
CANDIDATES = 16
#: A rollout on more rows than this grows CART on an evenly spaced sample of them, and on
#: more entries (rows x columns) than ``ROLLOUT_ENTRIES`` on the columns Gini ranks best:
#: it only ranks the candidates.
ROLLOUT_ROWS = 4000
ROLLOUT_ENTRIES = 2_000_000


#: How a child's CART tree of depth ``d`` with ``l`` leaves is scored, in the order
#: :func:`best_pilot_tree` tries them.
MEASURES = {
    "balanced": lambda depth, leaves: depth + np.log2(leaves),
    "depth": lambda depth, leaves: float(depth),
    "leaves": lambda depth, leaves: float(np.log2(leaves)),
}


def best_pilot_tree(X: np.ndarray, labels: np.ndarray, *, target: int,
                    deadline: float | None = None) -> LocalTree | None:
    """The shallowest of :func:`pilot_tree`'s trees under each of ``MEASURES``, tried in
    turn until one is at most ``target`` deep or ``deadline`` has passed (None: no tree
    was finished in time)."""
    best = None
    for measure in MEASURES:
        tree = pilot_tree(X, labels, measure=measure, deadline=deadline)
        if tree is None:
            break
        if best is None or tree.depth() < best.depth():
            best = tree
        if best.depth() <= target:
            break
    return best


def pilot_tree(X: np.ndarray, labels: np.ndarray, *, measure: str = "balanced",
               candidates: int = CANDIDATES, deadline: float | None = None
               ) -> LocalTree | None:
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
        column = min(ranked[:candidates], key=lambda f: _split_score(X, labels, rows, f, score))
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
    if len(rows) > ROLLOUT_ROWS:
        rows = rows[::-(-len(rows) // ROLLOUT_ROWS)]
    local = X[rows]
    if local.size > ROLLOUT_ENTRIES:
        local = local[:, _ranked_splits(local, labels[rows])[:ROLLOUT_ENTRIES // len(rows)]]
    cart = _cart(local, labels[rows])
    return cart.get_depth(), cart.get_n_leaves()


def _cart(X, labels) -> DecisionTreeClassifier:
    """CART grown to purity on 0/1 columns."""
    with warnings.catch_warnings():  # many special classes look like a regression target
        warnings.simplefilter("ignore", UserWarning)
        return DecisionTreeClassifier(random_state=0).fit(X, labels)
