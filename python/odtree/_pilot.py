"""The pilot method for shallow trees that classify a local instance exactly: the start
DT-SLIM's oracles improve on (beyond the paper).

At each node, the splits Gini ranks best are each scored by growing CART (scikit-learn's,
to purity) under both children: a child whose CART tree is ``d`` deep with ``l`` leaves
counts ``d + log2(l)``, so that of two equally deep children the one needing fewer leaves
is preferred, and the split whose worse child counts least wins. CART grows the rest of the
tree once the time is up. On the benchmark sets this is a few seconds and often several
levels shallower than CART itself, because CART peels pure blocks off one side while the
pilot balances what is left to separate.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from ._sat import LocalTree

#: Splits scored by rollouts at each node: the best ranked by Gini impurity.
CANDIDATES = 16


def pilot_tree(X: np.ndarray, labels: np.ndarray, *, candidates: int = CANDIDATES,
               deadline: float | None = None) -> LocalTree:
    """A tree over the 0/1 columns of ``X`` that classifies every row as ``labels`` does
    (rows with equal values must have equal labels); CART's splits once ``deadline``
    (``time.monotonic()`` seconds) has passed."""
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
        ranked = _ranked_splits(X[rows], labels[rows])
        if len(ranked) == 0:
            values, counts = np.unique(labels[rows], return_counts=True)
            label[node] = int(values[np.argmax(counts)])
            continue
        if deadline is None or time.monotonic() < deadline:
            column = min(ranked[:candidates], key=lambda f: _score(X, labels, rows, f))
        else:
            column = ranked[0]
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


def _score(X, labels, rows, column) -> tuple:
    """The split's rollout score: its worse child's, then the sum over both children."""
    goes = X[rows, column] == 1
    sides = [_rollout(X, labels, rows[~goes]), _rollout(X, labels, rows[goes])]
    return max(sides), sum(sides)


def _rollout(X, labels, rows) -> float:
    """``depth + log2(leaves)`` of CART grown to purity on ``rows``: 0 for pure rows."""
    if np.all(labels[rows] == labels[rows[0]]):
        return 0.0
    with warnings.catch_warnings():  # many special classes look like a regression target
        warnings.simplefilter("ignore", UserWarning)
        cart = DecisionTreeClassifier(random_state=0).fit(X[rows], labels[rows])
    return cart.get_depth() + float(np.log2(cart.get_n_leaves()))
