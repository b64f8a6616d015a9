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

Rollouts grow CART on fewer, ordinal columns (:class:`Rollouts`): the 0/1 columns that
nest (``x <= t`` for each ``t`` of one numeric column) form a chain, and a chain's column
counts the row's ones in it. Every threshold on it is one of the chain's 0/1 columns, so
CART sees the same splits, on 20 columns instead of 1,000 for 20 numeric ones.
"""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
from sklearn import config_context
from sklearn.tree import DecisionTreeClassifier

from .._utils.deadline import NO_DEADLINE, Deadline
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
#: Chains of nested columns are looked for on at most this many rows (and then checked on
#: all of them), and at most ``CHAINS`` are grown; every other column is its own chain.
CHAIN_ROWS = 4096
CHAINS = 256


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
                    deadline: Deadline = NO_DEADLINE,
                    first_deadline: Deadline | None = None) -> LocalTree | None:
    """The shallowest of :func:`pilot_tree`'s trees under each of ``SETTINGS``, tried in
    turn until one is at most ``target`` deep or ``deadline`` has passed (None: no tree
    was finished in time). The first setting runs until ``first_deadline`` instead, when
    given: on large data one tree can take longer than the time for all of them."""
    best, rollouts = None, Rollouts(X, labels)
    for measure, balancing in SETTINGS:
        until = first_deadline if best is None and first_deadline is not None else deadline
        tree = pilot_tree(X, labels, measure=measure, balancing=balancing, deadline=until,
                          rollouts=rollouts)
        if tree is None:
            break
        if best is None or tree.depth() < best.depth():
            best = tree
        if best.depth() <= target:
            break
    return best


def pilot_tree(X: np.ndarray, labels: np.ndarray, *, measure: str = "balanced",
               candidates: int = CANDIDATES, balancing: int = BALANCING,
               deadline: Deadline = NO_DEADLINE,
               rollouts: Rollouts | None = None) -> LocalTree | None:
    """A tree over the 0/1 columns of ``X`` that classifies every row as ``labels`` does
    (rows with equal values must have equal labels), its splits chosen by rollouts scored
    by ``measure``; None if ``deadline`` passes first.
    ``rollouts`` (of the same ``X`` and ``labels``) saves building them again."""
    score = MEASURES[measure]
    data = rollouts or Rollouts(X, labels)
    X, labels = data.X, data.labels
    feature, child0, child1, label = [], [], [], []

    def new() -> int:
        for column in (feature, child0, child1, label):
            column.append(-1)
        return len(feature) - 1

    stack = [(new(), np.arange(len(X)))]
    while stack:
        node, rows = stack.pop()
        if deadline.passed():
            return None
        ranked = _ranked_splits(X[rows], labels[rows])
        if len(ranked) == 0:
            values, counts = np.unique(labels[rows], return_counts=True)
            label[node] = int(values[np.argmax(counts)])
            continue
        # above ROLLOUT_ROWS, rollouts grow on a sample and rank less sharply, and cost the
        # most: half the candidates (on 10k and 100k generated rows, shallower and faster)
        fewer = 2 if len(rows) > ROLLOUT_ROWS else 1
        tried = list(ranked[:candidates // fewer])
        if balancing:
            tried += [f for f in data.balancing_splits(rows, balancing // fewer)
                      if f not in tried]
        column = min(tried, key=lambda f: data.split_score(rows, f, score))
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
    # per column and class, the rows with a 1: each class's rows summed on their own, with
    # no copy of X in floats
    ones = np.stack([X[codes == c].sum(axis=0, dtype=np.int64) for c in range(len(classes))],
                    axis=1).astype(np.float64)
    zeros = np.bincount(codes, minlength=len(classes)) - ones
    n1, n0 = ones.sum(axis=1), zeros.sum(axis=1)
    valid = (n1 > 0) & (n0 > 0)
    impurity = (n1 - (ones**2).sum(axis=1) / np.maximum(n1, 1)
                + n0 - (zeros**2).sum(axis=1) / np.maximum(n0, 1))
    order = np.argsort(np.where(valid, impurity, np.inf), kind="stable")
    return order[:int(valid.sum())]


class Rollouts:
    """The pilot's data, ``X`` (0/1 columns) and ``labels``, with what its rollouts grow CART
    on: one ordinal column per chain of nested 0/1 columns."""

    def __init__(self, X: np.ndarray, labels: np.ndarray):
        self.X = np.ascontiguousarray(X, dtype=np.uint8)
        self.labels = np.asarray(labels, dtype=np.int64)
        columns = np.ascontiguousarray(self.X.T)  # whole columns are read below
        #: The chain of each 0/1 column.
        self.chain, chains = _chains(columns)
        self.ordinal = np.stack([columns[members].sum(axis=0, dtype=np.int64)
                                 for members in chains], axis=1).astype(np.float32)
        #: The rollouts grown so far, by a digest of their rows: at small nodes many columns
        #: split the rows alike, and the settings of :func:`best_pilot_tree` share nodes.
        self.grown: dict[bytes, tuple[int, int]] = {}

    def balancing_splits(self, rows, count: int) -> np.ndarray:
        """The ``count`` columns that divide the leaves of CART grown on ``rows`` (or on a
        sample of them, as in :meth:`rollout`) most evenly: fewest leaves with rows on the
        larger side, then fewest in all (lowest column on ties)."""
        sample, leaves = self._grow(rows, leaves=True)
        order = np.argsort(leaves, kind="stable")
        local = self.X[sample[order]]
        starts = np.flatnonzero(np.r_[True, np.diff(leaves[order]) != 0])
        # per column, the leaves with a row on each side
        right = np.maximum.reduceat(local, starts, axis=0).sum(axis=0, dtype=np.int64)
        left = (np.minimum.reduceat(local, starts, axis=0) == 0).sum(axis=0)
        n1 = local.sum(axis=0, dtype=np.int64)
        valid = (n1 > 0) & (n1 < len(sample))
        order = np.lexsort((left + right, np.maximum(left, right), ~valid))
        return order[:min(count, int(valid.sum()))]

    def split_score(self, rows, column, score) -> tuple:
        """The split's rollout score: its worse child's, then the sum over both children."""
        goes = self.X[rows, column] == 1
        sides = [score(*self.rollout(rows[~goes])), score(*self.rollout(rows[goes]))]
        return max(sides), sum(sides)

    def rollout(self, rows) -> tuple[int, int]:
        """The depth and leaves of CART grown to purity on ``rows``: (0, 1) for pure rows."""
        if np.all(self.labels[rows] == self.labels[rows[0]]):
            return 0, 1
        key = hashlib.blake2b(rows.tobytes(), digest_size=16).digest()
        if key not in self.grown:
            _, cart = self._grow(rows)
            self.grown[key] = cart.get_depth(), cart.get_n_leaves()
        return self.grown[key]

    def _grow(self, rows, *, leaves=False):
        """CART grown to purity on ``rows`` over the chains: on evenly spaced rows when
        there are more than ``ROLLOUT_ROWS``, and on the chains of the columns Gini ranks
        best when the rows still have more than ``ROLLOUT_ENTRIES`` entries. The rows it
        saw, and the tree or (``leaves``) each row's leaf."""
        if len(rows) > ROLLOUT_ROWS:
            rows = rows[::-(-len(rows) // ROLLOUT_ROWS)]
        ordinal = self.ordinal[rows]
        if ordinal.size > ROLLOUT_ENTRIES:
            ranked = self.chain[_ranked_splits(self.X[rows], self.labels[rows])]
            _, first = np.unique(ranked, return_index=True)
            best = ranked[np.sort(first)][:max(1, ROLLOUT_ENTRIES // len(rows))]
            ordinal = np.ascontiguousarray(ordinal[:, best])
        cart = _cart(ordinal, self.labels[rows])
        return rows, (cart.apply(ordinal, check_input=False) if leaves else cart)


def _chains(columns: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Chains of nested 0/1 columns (each column's ones within the next's) of the data whose
    columns are the rows of ``columns``, found greedily on a sample of ``CHAIN_ROWS`` rows:
    in order of their ones, each column joins the fullest chain whose last column it
    contains. A chain is cut where the whole data break the nesting. The chain of each
    column, and each chain's columns."""
    k, n = columns.shape
    sample = columns[:, ::-(-n // CHAIN_ROWS)]
    bits = np.packbits(sample.astype(bool), axis=1)
    ones = sample.sum(axis=1, dtype=np.int64)
    tops = np.empty((0, bits.shape[1]), dtype=np.uint8)  # the last column of each chain
    fullness, members = [], []
    for column in np.argsort(ones, kind="stable"):
        fits = np.flatnonzero(~np.any(tops & ~bits[column], axis=1))
        if len(fits):
            j = fits[np.argmax(np.asarray(fullness)[fits])]
            tops[j], fullness[j] = bits[column], ones[column]
            members[j].append(column)
        elif len(tops) < CHAINS:
            tops = np.vstack([tops, bits[column][None]])
            fullness.append(ones[column])
            members.append([column])
        else:
            members.append([column])  # no room for another growing chain: its own
    chains = []
    for found in members:
        cuts = [i for i in range(1, len(found))
                if np.any(columns[found[i - 1]] > columns[found[i]])]
        chains += np.split(np.array(found), cuts)
    chain = np.empty(k, dtype=np.int64)
    for j, found in enumerate(chains):
        chain[found] = j
    return chain, chains


def _cart(X, labels) -> DecisionTreeClassifier:
    """CART grown to purity on the float32 columns ``X`` (not checked again)."""
    with warnings.catch_warnings(), config_context(skip_parameter_validation=True):
        warnings.simplefilter("ignore", UserWarning)  # many special classes look like a
        # regression target
        return DecisionTreeClassifier(random_state=0).fit(X, labels, check_input=False)
