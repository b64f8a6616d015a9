"""SAT encodings of DT-SLIM (Schidler and Szeider, AAAI 2021; spec B.4, B.7 and B.8).

Both encodings decide whether a decision tree of depth at most ``d`` classifies a 0/1
instance perfectly. ``"depth"`` is Avellaneda's complete-tree encoding DT_depth, whose size
grows with ``2**d``; ``"partition"`` is the partition-based DT_pb, whose size grows with the
square of the number of rows. The clauses are built as numpy arrays, in chunks, and handed to
a PySAT solver; a model is decoded into a :class:`LocalTree` without empty branches.

PySAT cannot interrupt CaDiCaL, Kissat or Lingeling, so calls with a time limit use Glucose 4.1
(the solver of the paper) instead of those.

>>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
>>> tree, outcome = min_depth_tree(X, [5, 7, 7, 5], target=3)
>>> outcome, tree.depth(), tree.predict(X).tolist()
('sat', 2, [5, 7, 7, 5])
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np

from .._search.interrupts import note_interrupt
from .._utils.deadline import Deadline

#: Clauses per array handed to the solver, to bound the memory of the encoding.
_CHUNK = 1 << 19
#: The widest at-most-one constraint encoded pairwise; wider ones use a sequential counter.
_PAIRWISE_MAX = 8
#: Solvers whose PySAT binding cannot be interrupted (``pysat.solvers.SolverNames`` lists
#: their aliases), and the one used instead under a limit.
_NO_INTERRUPT = ("cadical103", "cadical153", "cadical195", "cadical300", "kissat404", "lingeling")
_INTERRUPTIBLE = "glucose4"
#: Literals per second that building an encoding and handing it to PySAT costs (measured on
#: 150 x 20 instances; PySAT adds the clauses one Python call at a time).
BUILD_RATE = {"depth": 3e6, "partition": 1e6}


class LocalTree(NamedTuple):
    """A small tree over the columns of a local instance. Node 0 is the root; children come
    after parents."""

    #: Column tested at each inner node, -1 at leaves.
    feature: np.ndarray
    #: Child for value 0, -1 at leaves.
    child0: np.ndarray
    #: Child for value 1, -1 at leaves.
    child1: np.ndarray
    #: Class at each leaf, -1 at inner nodes.
    label: np.ndarray

    def depth(self) -> int:
        """The number of tests on the longest path from the root to a leaf."""
        depth = np.zeros(len(self.feature), dtype=np.int64)
        for v in np.flatnonzero(self.feature >= 0):
            depth[self.child0[v]] = depth[self.child1[v]] = depth[v] + 1
        return int(depth.max())

    def predict(self, X) -> np.ndarray:
        """The class of the leaf that each row of the 0/1 array ``X`` reaches."""
        X = np.asarray(X)
        rows = np.arange(len(X))
        node = np.zeros(len(X), dtype=np.int64)
        inner = self.feature[node] >= 0
        while inner.any():
            at = node[inner]
            ones = X[rows[inner], self.feature[at]] == 1
            node[inner] = np.where(ones, self.child1[at], self.child0[at])
            inner = self.feature[node] >= 0
        return self.label[node]


def estimate_literals(n_rows: int, n_features: int, n_classes: int, depth: int,
                      encoding: str) -> int:
    """Rough literal count of the encoding, to skip instances that are too large before
    building them."""
    n, k, d = n_rows, n_features, depth
    amo = k * (k - 1) if k <= _PAIRWISE_MAX else 6 * k - 8
    if encoding == "depth":
        bits = _bits(n_classes)
        routing = sum(n * 2**h * k * (h + 2) for h in range(d))
        leaves = 2**d * (n * bits * (d + 1) + (2**bits - n_classes) * bits)
        return (2**d - 1) * (k + amo) + routing + leaves
    if encoding == "partition":
        pairs = n * (n - 1) // 2
        return pairs * (2 + 2 * d + 6 * d * k) + n * d * (k + amo)
    raise ValueError(f"unknown encoding {encoding!r}")


def decide(X, labels, depth, *, encoding="depth", solver="cadical195", time_limit=None,
           amo=True) -> LocalTree | None | str:
    """A tree of depth <= ``depth`` classifying ``(X, labels)`` exactly (decoded, empty
    branches removed, so its depth may be lower), None if UNSAT, or the string "timeout".

    ``encoding`` is ``"depth"`` (DT_depth) or ``"partition"`` (DT_pb); ``amo`` adds the
    at-most-one constraints on the feature choices, which are not needed for correctness;
    ``time_limit`` is in seconds.
    """
    instance = _prepare(X, labels)
    if instance is None or depth < 0:
        return None
    return _decide(*instance, depth, encoding, solver, time_limit, amo)


def min_depth_tree(X, labels, target, *, encoding="hybrid", switch_depth=10,
                   solver="cadical195", time_limit=None, amo=True, max_literals=50_000_000,
                   ) -> tuple[LocalTree | None, str]:
    """Descending search (spec B.7 ``compute``): try depth ``target``; on SAT decode and try
    (found depth - 1); stop at UNSAT, timeout or an encoding over ``max_literals``.

    Returns the best tree (or None) and the outcome: "sat" (a tree was found), "unsat" (the
    first call was UNSAT), "timeout" (the first call timed out), "too_large" (the first call
    was skipped) or "interrupted" (Ctrl-C; the best tree so far is kept). ``"hybrid"`` uses
    DT_depth below ``switch_depth`` and DT_pb from there on; ``time_limit`` is in seconds
    for the whole search, building the encodings included: an encoding that would take more
    than half the time left to build (at ``BUILD_RATE``) is skipped as too large.
    """
    instance = _prepare(X, labels)
    if target < 0 or instance is None:
        return None, "unsat"
    X, codes, classes = instance
    deadline = Deadline(time_limit)
    found_so_far: list[LocalTree] = []
    try:
        best, outcome = _descend(X, codes, classes, target, encoding, switch_depth, solver,
                                 deadline, amo, max_literals, found_so_far)
    except KeyboardInterrupt:
        note_interrupt()
        return (found_so_far[-1] if found_so_far else None), "interrupted"
    return best, "sat" if best is not None else outcome


def _descend(X, codes, classes, depth, encoding, switch_depth, solver, deadline, amo,
             max_literals, found_so_far: list) -> tuple[LocalTree | None, str]:
    """:func:`min_depth_tree`'s descent; each tree found is also appended to
    ``found_so_far``, which outlives a Ctrl-C."""
    best, outcome = None, "unsat"
    while True:
        if encoding == "hybrid":
            chosen = "depth" if depth < switch_depth else "partition"
        else:
            chosen = encoding
        left = deadline.left()
        size = estimate_literals(len(X), X.shape[1], len(classes), depth, chosen) \
            if len(classes) > 1 and depth > 0 else 0
        if size > max_literals or (left is not None and size > BUILD_RATE[chosen] * left / 2):
            outcome = "too_large"
            break
        found = _decide(X, codes, classes, depth, chosen, solver, left, amo)
        if not isinstance(found, LocalTree):
            outcome = "timeout" if found == "timeout" else "unsat"
            break
        best, depth = found, found.depth() - 1
        found_so_far.append(found)
        if depth < 0:
            break
    return best, outcome


def _prepare(X, labels) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The distinct rows of ``X`` (0/1, uint8), the index of each row's label in the sorted
    distinct labels, and those labels; None if two equal rows have different labels."""
    X = np.asarray(X, dtype=np.uint8)
    pairs = np.unique(np.column_stack([X, np.asarray(labels, dtype=np.int64)]), axis=0)
    X = pairs[:, :-1].astype(np.uint8)
    if len(np.unique(X, axis=0)) < len(X):
        return None
    classes, codes = np.unique(pairs[:, -1], return_inverse=True)
    return X, codes, classes


def _decide(X, codes, classes, depth, encoding, solver, time_limit, amo):
    """:func:`decide` on a prepared instance."""
    if len(classes) == 1:
        return LocalTree(*(np.array([v]) for v in (-1, -1, -1, classes[0])))
    if depth == 0:
        return None
    n, k = X.shape
    if encoding == "depth":
        clauses = _depth_clauses(X, codes, len(classes), depth, amo)
    elif encoding == "partition":
        clauses = _partition_clauses(X, codes, depth, amo)
    else:
        raise ValueError(f"unknown encoding {encoding!r}")
    truth = _solve(clauses, solver, time_limit)
    if truth is None or isinstance(truth, str):
        return truth
    # Both encodings number their feature choices first: per inner node of the complete
    # tree (heap order from 1) for DT_depth, per row and level for DT_pb.
    if encoding == "depth":
        chosen = truth[1:1 + (2**depth - 1) * k].reshape(-1, k).argmax(axis=1)
        tree = _decode(X, codes, classes, depth, lambda t, h, i: (chosen[t - 1], 2 * t + 1, 2 * t))
    else:
        chosen = truth[1:1 + n * depth * k].reshape(n, depth, k).argmax(axis=2)
        tree = _decode(X, codes, classes, depth, lambda t, m, i: (chosen[i, m], t, t))
    if tree.depth() > depth or not np.array_equal(tree.predict(X), classes[codes]):
        raise RuntimeError("the decoded tree does not classify the instance")
    return tree


def _depth_clauses(X, codes, n_classes, d, amo) -> Iterator[np.ndarray]:
    """DT_depth (spec B.4.1) over a complete tree in heap order: inner node ``t`` (from 1) has
    children ``2t`` (value 1, left) and ``2t + 1`` (value 0, right); leaf ``l`` is node
    ``2**d + l``."""
    n, k = X.shape
    bits = _bits(n_classes)
    a = 1 + np.arange((2**d - 1) * k).reshape(-1, k)  # inner node t tests feature f: a[t-1, f]
    x = a.size + 1 + np.arange(n * d).reshape(n, d)  # row e goes left at level h: x[e, h]
    c = a.size + x.size + 1 + np.arange(2**d * bits).reshape(-1, bits)  # leaf code bits
    yield a
    if amo:
        yield from _at_most_one(a, c[-1, -1])
    for h in range(d):
        nodes = np.arange(2**h, 2**(h + 1))
        path = _path(x, nodes, h)
        # going left needs value 1 on the node's feature, going right value 0
        side = np.where(X == 1, x[:, h:h + 1], -x[:, h:h + 1])
        for rows in _slices(n, len(nodes) * k):
            yield _join(path[rows, :, None, :], side[rows, None, :, None],
                        -a[None, nodes - 1, :, None])
    codebits = (codes[:, None] >> np.arange(bits)) & 1
    path = _path(x, np.arange(2**d, 2**(d + 1)), d)
    for rows in _slices(n, 2**d * bits):
        label = np.where(codebits[rows, None, :] == 1, c, -c)
        yield _join(path[rows, :, None, :], label[..., None])
    unused = (np.arange(n_classes, 2**bits)[:, None] >> np.arange(bits)) & 1
    yield np.where(unused[:, None, :] == 1, -c, c).reshape(-1, bits)


def _partition_clauses(X, codes, d, amo) -> Iterator[np.ndarray]:
    """DT_pb (spec B.4.2) over the pairs ``i < j`` of rows."""
    n, k = X.shape
    first, second = np.triu_indices(n, 1)
    s = 1 + np.arange(n * d * k).reshape(n, d, k)  # the group of row i uses f at level m
    g = s.size + 1 + np.arange(len(first) * (d + 1)).reshape(-1, d + 1)  # together at level m
    yield g[:, :1]
    yield -g[codes[first] != codes[second], d:]
    yield np.stack([g[:, :-1], -g[:, 1:]], axis=-1).reshape(-1, 2)
    yield s.reshape(-1, k)
    if amo:
        yield from _at_most_one(s.reshape(-1, k), g[-1, -1])
    for pairs in _slices(len(first), d * k):
        i, j = first[pairs], second[pairs]
        together, later, uses = np.broadcast_arrays(
            g[pairs, :-1, None], g[pairs, 1:, None], s[i])
        yield np.stack([-together, -uses, s[j]], axis=-1).reshape(-1, 3)
        same = np.broadcast_to((X[i] == X[j])[:, None, :], uses.shape)
        yield np.stack([-together[same], -uses[same], later[same]], axis=-1)
        yield np.stack([-uses[~same], -later[~same]], axis=-1)


def _at_most_one(lits, top) -> list[np.ndarray]:
    """At-most-one clauses on each row of ``lits``: pairwise for short rows, else a sequential
    counter whose variables are numbered from ``top + 1``."""
    m, k = lits.shape
    if k <= _PAIRWISE_MAX:
        i, j = np.triu_indices(k, 1)
        return [np.stack([-lits[:, i], -lits[:, j]], axis=-1).reshape(-1, 2)]
    some = top + 1 + np.arange(m * (k - 1)).reshape(m, k - 1)  # one of lits[:, :f + 1] holds
    return [np.stack(pair, axis=-1).reshape(-1, 2) for pair in
            ((-lits[:, :-1], some), (-some[:, :-1], some[:, 1:]), (-lits[:, 1:], -some))]


def _path(x, nodes, h) -> np.ndarray:
    """Per row and node at level ``h``, the literals (along the last axis) that are all false
    exactly when the row reaches the node."""
    right = (nodes[:, None] >> (h - 1 - np.arange(h))) & 1
    return np.where(right[None] == 1, x[:, None, :h], -x[:, None, :h])


def _join(*parts) -> np.ndarray:
    """Clauses made by broadcasting ``parts`` and joining them along the last axis."""
    shape = np.broadcast_shapes(*(p.shape[:-1] for p in parts))
    joined = np.concatenate([np.broadcast_to(p, shape + p.shape[-1:]) for p in parts], axis=-1)
    return joined.reshape(-1, joined.shape[-1])


def _slices(n, per_item) -> Iterator[slice]:
    """Consecutive slices of ``range(n)`` with about ``_CHUNK`` clauses each."""
    step = max(1, _CHUNK // max(1, per_item))
    return (slice(start, start + step) for start in range(0, n, step))


def _bits(n_classes) -> int:
    """The number of bits of a class code, at least 1."""
    return max(1, (n_classes - 1).bit_length())


def _solve(clauses, solver, time_limit) -> np.ndarray | None | str:
    """The truth value of each variable (index 0 unused) in a model of ``clauses``, None if
    there is none, or "timeout" (``time_limit`` counts the clauses' loading too)."""
    from pysat.solvers import Solver, SolverNames  # on use: importing odtree stays light

    if time_limit is not None and any(solver in getattr(SolverNames, name)
                                       for name in _NO_INTERRUPT):
        solver = _INTERRUPTIBLE
    deadline = Deadline(time_limit)
    with Solver(name=solver) as sat:
        for block in clauses:
            if deadline.passed():
                return "timeout"
            sat.append_formula(block.tolist())
        time_limit = deadline.left()
        if time_limit is None:
            found = sat.solve()
        else:
            timer = threading.Timer(time_limit, sat.interrupt)
            timer.start()
            try:
                found = sat.solve_limited(expect_interrupt=True)
            finally:
                timer.cancel()
                timer.join()  # the solver must not be interrupted once deleted
        if not found:
            return "timeout" if found is None else None
        model = np.array(sat.get_model())
    truth = np.zeros(np.abs(model).max() + 1, dtype=bool)
    truth[model[model > 0]] = True
    return truth


def _decode(X, codes, classes, depth,
            split: Callable[[int, int, int], tuple[int, int, int]]) -> LocalTree:
    """Routes the rows down the solver's splits. ``split(key, level, row)`` gives the feature
    of the group with key ``key`` at ``level`` whose first row is ``row``, and the keys of its
    value-0 and value-1 parts. A uniform group becomes a leaf, a split with an empty side
    makes no node."""
    nodes: list[list[int]] = []  # feature, child0, child1, label

    def grow(rows, key, level) -> int:
        node = len(nodes)
        nodes.append([-1, -1, -1, -1])
        while True:
            if (codes[rows] == codes[rows[0]]).all():
                nodes[node][3] = classes[codes[rows[0]]]
                return node
            if level == depth:
                raise RuntimeError("the decoded tree has a mixed leaf")
            f, key0, key1 = split(key, level, rows[0])
            ones = X[rows, f] == 1
            level += 1
            if ones.all() or not ones.any():
                key = key1 if ones.all() else key0
                continue
            nodes[node][0] = f
            nodes[node][1] = grow(rows[~ones], key0, level)
            nodes[node][2] = grow(rows[ones], key1, level)
            return node

    grow(np.arange(len(X)), 1, 0)
    return LocalTree(*np.array(nodes, dtype=np.int64).T.copy())
