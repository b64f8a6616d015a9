"""DT-SLIM (Schidler and Szeider, AAAI 2021; spec part B): makes a tree shallower by
replacing, again and again, a subtree by a shallower one that sends the rows reaching it to
the same leaves' classes.

A selected subtree ``T'`` at ``r`` is cut at some nodes (its cut points); the rows reaching
``r`` form a local instance whose labels are the original classes at true leaves and a
special class per cut point. A tree of lower depth for that instance (found by SAT or by the
exact engine, the "oracles") takes the place of ``T'``, with a copy of the cut-off subtree
under each leaf of a special class. The subtrees are grown so that they are safe (spec B.3):
the whole tree then never gets deeper.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from .._search.interrupts import note_interrupt
from .._search.solver import Solver
from .._utils.deadline import Deadline
from ._pilot import best_pilot_tree
from ._sat import LocalTree, min_depth_tree
from ._tree import SlimTree

#: The authors' sample limits per local depth (spec B.9): ``c(d)`` rows at most for a
#: subtree of depth ``d``; a subtree deeper than the table is never selected.
SAMPLE_LIMITS = {
    "short": [175] * 9 + [150, 120] + [70] * 5,
    "mid": [300] * 4 + [270] * 6 + [250, 200, 200, 175, 90, 90],
    "long": [500] * 11 + [400, 340, 250, 250, 215] + [105] * 25,
}
#: (leaf mode, reduction) in the order Alg. 1 tries them: the whole subtree first, the
#: subtree's own features first.
ATTEMPTS = ((1, 1), (1, 2), (0, 1), (0, 2))
#: A subtree whose rows outnumber the largest sample limit this many times is not selected:
#: its distinct rows would hardly fit, and finding out costs time on large data.
_RAW_ROWS = 20
#: The share of the time limit the exact engine gets first, for the whole tree.
WHOLE_SHARE = 0.5
#: The share of an engine call's time left that each depth tried upwards may take.
ASCENT_SHARE = 0.1
#: The most of the time limit the pilot method may take for the whole tree before that.
PILOT_SHARE = 0.25
#: ... except its first setting, which may take this much: on 100,000 rows one pilot tree
#: takes minutes, and is still far shallower than what the local loop makes of CART's.
PILOT_FIRST_SHARE = 0.8
#: Above these many unique rows x features, the support-set heuristics are skipped; above
#: these many pairs x features, the pair cover is.
_SUPPORT_WORK = 2e8
_PAIR_WORK = 2e7


class Attempt(NamedTuple):
    """One call of the oracles, as ``improve_depth`` logs it."""

    seconds: float
    depth_before: int
    depth_after: int
    rows: int
    features: int
    oracle: str
    outcome: str


class Local(NamedTuple):
    """A local instance: the rows reaching ``root`` projected on ``features`` (deduplicated),
    their labels (special classes from ``n_classes`` on), and the cut points ``T'`` has
    below ``root`` (it is ``depth`` deep)."""

    root: int
    depth: int
    X: np.ndarray
    labels: np.ndarray
    #: How many rows each distinct row stands for.
    counts: np.ndarray
    features: np.ndarray
    cut_points: list


class Slimmer:
    """The DT-SLIM main loop (spec B.7) over a :class:`SlimTree` and the training rows."""

    def __init__(self, tree: SlimTree, X: np.ndarray, labels: np.ndarray, n_classes: int, *,
                 oracle: str, sample_limit: list, sat_timeout: float, encoding: str,
                 solver: str, max_errors: int, pilot: bool, deadline: Deadline, rng,
                 n_jobs: int | None = None):
        self.tree, self.X, self.labels, self.n_classes = tree, X, labels, n_classes
        self.oracle, self.limits, self.sat_timeout = oracle, sample_limit, sat_timeout
        self.encoding, self.solver, self.budget = encoding, solver, max_errors
        self.deadline, self.rng, self.pilot = deadline, rng, pilot
        self.n_jobs = n_jobs
        #: Every whole tree of lower depth was proved to misclassify too many rows.
        self.least_depth = 0
        self.log: list[Attempt] = []
        self.wins = {"sat": 0, "dp": 0, "pilot": 0}
        self.failed: set[tuple] = set()
        self.started = time.monotonic()
        self.depth_log = [(0.0, tree.depth())]

    def _stop_on_interrupt(self, outcome: str) -> None:
        """After Ctrl-C in the engine, the run ends with the tree so far."""
        if outcome == "interrupted":
            self.deadline = Deadline(0)

    def _left(self) -> float | None:
        return self.deadline.left()

    def _limit(self, depth: int) -> int:
        return self.limits[depth] if depth < len(self.limits) else 0

    def run(self) -> None:
        if self.pilot or self.oracle in ("dp", "both"):
            # the whole tree's instance has no cut points: it stays the same when replaced
            whole = self._local(self.tree.root, np.arange(len(self.X)), set(), 0)
            if self.pilot:
                self._pilot_whole_tree(whole)
            if self.oracle in ("dp", "both"):
                self._whole_tree(whole._replace(root=self.tree.root, depth=self.tree.depth()))
        if self.tree.depth() <= self.least_depth:
            return  # proved the least depth: nothing lower exists
        # beyond the paper: time left after a pass that ran out of things to try goes to
        # another pass with twice the time per oracle call, if a call ran out of time
        while True:
            start = len(self.log)
            if not self._loop() or self.deadline.end is None or self.deadline.passed():
                return
            if not any(a.outcome in ("timeout", "too_large") for a in self.log[start:]):
                return
            self.sat_timeout *= 2
            self.failed.clear()

    def _loop(self) -> bool:
        """One pass of the main loop (spec B.7); whether it ended with every node done."""
        done: set[int] = set()
        while self._left() is None or self._left() > 0:
            depth, height = self.tree.depths_and_heights()
            open_nodes = [v for v in depth if v not in done]
            if not open_nodes:
                return True
            deepest = max(open_nodes, key=lambda v: (depth[v], -v))
            path = self.tree.path(deepest)
            rows = self.tree.rows_on_path(self.X, path)
            last = len(path) - 1
            i = next((i for i, p in enumerate(path)
                      if len(rows[i]) <= self._limit(height[p])), last)
            improved = False
            if i < last:  # the whole subtree with every feature if it fits, as the authors do
                local = (self._whole(path[i], rows[i], height, reduction=0)
                         or self._grow(path[i], rows[i], height, reduction=0))
                improved = local is not None and self._improve(local)
            while i > 0 and not improved:
                i -= 1
                for leaf_mode, reduction in ATTEMPTS:
                    local = (self._whole(path[i], rows[i], height, reduction) if leaf_mode
                             else self._grow(path[i], rows[i], height, reduction))
                    if local is not None and self._improve(local):
                        improved = True
                        break
                    if self._left() is not None and self._left() <= 0:
                        return False
            if not improved:
                done.update(path)
        return False

    def _whole_tree(self, local: Local) -> None:
        """Beyond the paper: the exact engine on every row (``local``), for a whole tree of
        lower depth, with ``WHOLE_SHARE`` of the time (the engine's anytime search often
        finds a much shallower error-free tree at once); the local improvements go on from
        its tree."""
        left = self._left()
        call = None if left is None else left * WHOLE_SHARE
        if local.depth < 1 or (call is not None and call <= 0):
            return
        found, outcome, least = dp_min_depth(local.X, local.labels, local.depth - 1, call,
                                             counts=local.counts, errors=self.budget,
                                             n_jobs=self.n_jobs)
        self.least_depth = least
        self.log.append(Attempt(time.monotonic() - self.started, local.depth,
                                local.depth if found is None else found.depth(), len(local.X),
                                len(local.features), "dp", outcome))
        self._stop_on_interrupt(outcome)
        if found is not None:
            self._replace(local, found, "dp")

    def _pilot_whole_tree(self, local: Local) -> None:
        """Beyond the paper: the whole tree (every row: ``local``) rebuilt by the pilot
        method (``_pilot.py``), the shallowest of its settings that finish within
        ``PILOT_SHARE`` of the time left (the first within ``PILOT_FIRST_SHARE``), kept when
        shallower; the oracles go on from it."""
        if local.depth < 2 or self.deadline.passed():
            return
        found, outcome = _pilot_oracle(local, local.depth - 1,
                                       self.deadline.part(PILOT_SHARE), every_setting=True,
                                       first_deadline=self.deadline.part(PILOT_FIRST_SHARE))
        self.log.append(Attempt(time.monotonic() - self.started, local.depth,
                                local.depth if found is None else found.depth(),
                                len(local.X), len(local.features), "pilot", outcome))
        self._stop_on_interrupt(outcome)
        if found is not None:
            self._replace(local, found, "pilot")

    def _whole(self, r, rows, height, reduction) -> Local | None:
        """The whole subtree at ``r``, if it fits the limits (leaf mode 1)."""
        if height[r] > len(self.limits) - 1 or height[r] < 1 or \
                len(rows) > _RAW_ROWS * max(self.limits):
            return None
        local = self._local(r, rows, set(), reduction)
        return local if len(local.X) <= self._limit(height[r]) else None

    def _grow(self, r, rows, height, reduction) -> Local | None:
        """Grows a safe subtree from ``r`` (spec B.6): each round expands every frontier node
        of the largest height; the last candidate within the limits wins."""
        if len(rows) > _RAW_ROWS * max(self.limits):
            return None
        frontier, best, depth = {r}, None, 0
        while self._left() is None or self._left() > 0:
            inner = [u for u in frontier if not self.tree.is_leaf(u)]
            if not inner:
                break
            tallest = max(height[u] for u in inner)
            for u in inner:
                if height[u] == tallest:
                    frontier.remove(u)
                    frontier.update((self.tree.child0[u], self.tree.child1[u]))
            depth += 1
            if depth > len(self.limits) - 1:
                break
            cuts = {u for u in frontier if not self.tree.is_leaf(u)}
            local = self._local(r, rows, cuts, reduction, depth)
            if len(local.X) > self._limit(depth):
                break
            if depth >= 2 and cuts:
                best = local
        return best

    def _local(self, r, rows, cuts: set, reduction, depth=None) -> Local:
        """The local instance of the subtree at ``r`` cut at ``cuts`` (spec B.2, B.5)."""
        cut_points = sorted(cuts)
        ends = self.tree.route(self.X, rows, r, cuts)
        local_labels = self.labels[rows].copy()
        is_cut = np.isin(ends, cut_points)
        local_labels[is_cut] = self.n_classes + np.searchsorted(cut_points, ends[is_cut])
        if reduction == 0:
            features = np.arange(self.X.shape[1])
        elif reduction == 2 and len(rows) > 4 * max(self.limits):
            features = np.arange(self.X.shape[1])  # too many rows to reduce: too large
        else:
            inside = [u for u in self._inner(r, cuts)]
            features = np.unique([self.tree.feature[u] for u in inside])
            if reduction == 2:
                features = support_set(self.X[rows], local_labels, self.rng, features)
        features = _distinct_columns(self.X, rows, features)
        X, local_labels, counts = _unique_rows(self.X[np.ix_(rows, features)], local_labels)
        if depth is None:
            depth = self.tree.depths_and_heights()[1][r]
        return Local(r, depth, X, local_labels, counts, features, cut_points)

    def _inner(self, r, cuts):
        stack = [r]
        while stack:
            u = stack.pop()
            if u in cuts or self.tree.is_leaf(u):
                continue
            yield u
            stack += [self.tree.child0[u], self.tree.child1[u]]

    def _improve(self, local: Local) -> bool:
        """Asks the oracles for a tree of depth below ``local.depth``; replaces on success.

        ``"both"`` asks the exact engine first (with half the call's time), then SAT for a
        tree lower still; the oracle of the tree kept wins. With an error budget only the
        engine may spend it (SAT classifies exactly). A local instance that no oracle
        improved is not asked again until the tree changes."""
        key = (local.root, tuple(local.cut_points), local.features.tobytes())
        if key in self.failed:
            return False
        target, found, winner = local.depth - 1, None, None
        oracles = ("dp", "sat") if self.oracle == "both" else (self.oracle,)
        for oracle in ("pilot",) * self.pilot + oracles:
            left = self._left()
            call = self.sat_timeout if left is None else min(self.sat_timeout, left)
            if call <= 0 or target < 0:
                break
            if oracle == "dp" and self.oracle == "both":
                call /= 2
            if oracle == "pilot":
                tree, outcome = _pilot_oracle(local, target, Deadline(call))
            elif oracle == "sat":
                tree, outcome = min_depth_tree(local.X, local.labels, target,
                                               encoding=self.encoding, solver=self.solver,
                                               time_limit=call)
            else:
                tree, outcome, _ = dp_min_depth(local.X, local.labels, target, call,
                                                counts=local.counts, errors=self.budget,
                                                n_jobs=self.n_jobs)
            after = tree.depth() if tree is not None else local.depth
            self.log.append(Attempt(time.monotonic() - self.started, local.depth, after,
                                    len(local.X), len(local.features), oracle, outcome))
            self._stop_on_interrupt(outcome)
            if tree is not None:
                found, winner, target = tree, oracle, tree.depth() - 1
            if outcome == "interrupted":
                break
        if found is None:
            self.failed.add(key)
            return False
        return self._replace(local, found, winner)

    def _replace(self, local: Local, found: LocalTree, winner: str) -> bool:
        """Puts ``found`` in place of the local instance's subtree, after checking that the
        tree still classifies the rows within the error budget and is no deeper."""
        errors = int(local.counts[found.predict(local.X) != local.labels].sum())
        saved = self.tree.state()
        self.tree.replace(local.root, found, local.features, local.cut_points, self.n_classes)
        predicted = self.tree.predict(self.X)
        changed = int(np.count_nonzero(predicted != self.labels))
        if changed > errors or self.tree.depth() > self.depth_log[-1][1]:
            self.tree.restore(saved)  # cannot happen unless there is a bug: logged, skipped
            self.log.append(Attempt(time.monotonic() - self.started, local.depth, local.depth,
                                    len(local.X), len(local.features), winner, "rejected"))
            return False
        self.budget -= changed
        self.labels = predicted
        self.failed.clear()
        self.wins[winner] += 1
        self.depth_log.append((time.monotonic() - self.started, self.tree.depth()))
        return True


def _pilot_oracle(local: Local, target: int, deadline: Deadline, *,
                  every_setting: bool = False,
                  first_deadline: Deadline | None = None) -> tuple[LocalTree | None, str]:
    """The pilot method as an oracle: its tree of the local instance if it classifies every
    row and is at most ``target`` deep; ``"sat"``, ``"unsat"``, ``"timeout"`` or
    ``"interrupted"``. It stops at the first tree that deep, or with ``every_setting`` tries
    every setting that finishes by ``deadline`` and gives the shallowest (the first setting
    may run until ``first_deadline``)."""
    try:
        tree = best_pilot_tree(local.X, local.labels, target=0 if every_setting else target,
                               deadline=deadline, first_deadline=first_deadline)
    except KeyboardInterrupt:
        note_interrupt()
        return None, "interrupted"
    if tree is None:
        return None, "timeout"
    if tree.depth() > target or np.any(tree.predict(local.X) != local.labels):
        return None, "unsat"
    return tree, "sat"


class DepthSearch(NamedTuple):
    """What :func:`dp_min_depth` found."""

    #: The lowest tree found, or None.
    tree: LocalTree | None
    #: ``"sat"``, ``"unsat"``, ``"timeout"`` or ``"interrupted"`` (Ctrl-C).
    outcome: str
    #: Every depth below this one was proved to have no tree within the error budget.
    least: int


def dp_min_depth(X, labels, target, time_limit, *, counts=None, errors=0,
                 n_jobs=None) -> DepthSearch:
    """The exact engine as an oracle: the lowest depth, at most ``target``, at which a
    tree misclassifies at most ``errors`` rows of ``(X, labels)`` (row ``i`` standing for
    ``counts[i]`` rows), within ``time_limit`` seconds (None: no limit), each search on
    ``n_jobs`` threads.

    An upper bound of ``errors + 1`` on the error makes each depth a feasibility question.
    The depths are first tried upwards from 1, each with ``ASCENT_SHARE`` of the time left,
    while the engine proves them infeasible (low depths are proved fast; the first feasible
    one is the minimum); then, from the first depth it could not settle, downwards from
    ``target``, each tree found setting the next depth to try (high depths are found
    fast)."""
    if target < 0:
        return DepthSearch(None, "unsat", 0)
    classes, codes = np.unique(labels, return_inverse=True)
    if len(classes) == 1 or (errors > 0 and target == 0):
        majority = classes[np.argmax(np.bincount(codes, weights=counts))]
        if len(classes) > 1 and (counts is None or
                                 counts[labels != majority].sum() > errors):
            return DepthSearch(None, "unsat", 1)
        leaf = np.array([-1])
        return DepthSearch(LocalTree(leaf, leaf, leaf, np.array([majority])), "sat", 0)
    solver = Solver._from_codes(np.ascontiguousarray(X, dtype=np.uint8),
                                codes.astype(np.uint32), len(classes))
    deadline = Deadline(time_limit)

    def attempt(depth, share):
        """The tree found at ``depth`` (or None) and the solve's verdict."""
        if deadline.passed():
            return None, "timeout"
        left = deadline.left()
        limit = None if left is None else left * share
        solution = solver.solve(counts, max_depth=depth, upper_bound=errors + 1.0,
                                time_limit=limit, anytime=False, n_jobs=n_jobs)
        if solution.status == "interrupted":
            return None, "interrupted"
        if solution.objective < errors + 1 and solution.status != "infeasible":
            return _local_tree(solution, classes), "sat"
        return None, "unsat" if solution.status in ("infeasible", "optimal") else "timeout"

    lowest = 1
    while lowest <= target:
        tree, verdict = attempt(lowest, ASCENT_SHARE)
        if verdict in ("sat", "interrupted"):
            return DepthSearch(tree, verdict, lowest)
        if verdict == "timeout":
            break
        lowest += 1
    else:
        return DepthSearch(None, "unsat", lowest)
    best, outcome, depth = None, "timeout", target
    while depth > lowest:
        tree, verdict = attempt(depth, 1.0)
        if verdict == "interrupted":
            return DepthSearch(None, verdict, lowest)
        if tree is None:
            outcome = "sat" if best is not None else verdict
            break
        best, outcome = tree, "sat"
        depth = tree.depth() - 1
    return DepthSearch(best, outcome, lowest)


def _local_tree(solution, classes) -> LocalTree:
    tree = solution.tree
    leaf = tree.children_left < 0
    return LocalTree(np.where(leaf, -1, tree.feature), tree.children_left, tree.children_right,
                     np.where(leaf, classes[solution.node_labels], -1))


def support_set(X, labels, rng, start) -> np.ndarray:
    """A small set of columns on which every two rows of different labels differ (spec
    B.5): the smaller of a deletion pass over the columns in random order and a greedy pair
    cover; ``start`` (a support set) when the data are too large for either.

    The deletion pass compares rows by an additive hash (a random 64-bit weight per column,
    summed over the row's ones): dropping a column subtracts its weight. A collision can only
    make a column look needed, so the set found always separates the labels.
    """
    X, labels, _ = _unique_rows(X, labels)
    n, k = X.shape
    if n * k > _SUPPORT_WORK:
        return start
    weights = rng.integers(0, np.iinfo(np.int64).max, k, dtype=np.int64).astype(np.uint64)
    with np.errstate(over="ignore"):
        keys = X.astype(np.uint64) @ weights
        keep = np.ones(k, dtype=bool)
        for column in rng.permutation(k):
            trial = keys - X[:, column].astype(np.uint64) * weights[column]
            if _separates(trial, labels):
                keys, keep[column] = trial, False
    found = [start, np.flatnonzero(keep)]
    if n * n * k <= _PAIR_WORK:
        found.append(_pair_cover(X, labels))
    return min(found, key=len)


def _separates(keys, labels) -> bool:
    """Whether rows of equal keys always have equal labels."""
    order = np.argsort(keys, kind="stable")
    same = keys[order][1:] == keys[order][:-1]
    return not np.any(same & (labels[order][1:] != labels[order][:-1]))


def _pair_cover(X, labels) -> np.ndarray:
    """Greedy cover of the pairs of rows of different labels by the columns that tell them
    apart, the column covering most pairs first (lowest index on ties)."""
    a, b = np.nonzero(labels[:, None] != labels[None, :])
    keep = a < b
    differs = X[a[keep]] != X[b[keep]]
    chosen = []
    while len(differs):
        column = int(np.argmax(differs.sum(axis=0)))
        chosen.append(column)
        differs = differs[~differs[:, column]]
    return np.array(sorted(chosen), dtype=np.int64)


def _distinct_columns(X, rows, features) -> np.ndarray:
    """``features`` without the columns constant on ``rows`` and without repeats: a column
    equal to another one, or to its complement, on ``rows`` splits them the same way."""
    local = X[np.ix_(rows, features)]
    flipped = local ^ local[:1]  # each column normalised to start with 0
    varying = np.flatnonzero(flipped.any(axis=0))
    columns = np.ascontiguousarray(np.packbits(flipped[:, varying], axis=0).T)
    _, first = np.unique(_as_bytes(columns), return_index=True)
    return features[varying[np.sort(first)]]


def _unique_rows(X, labels) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (row, label) pairs and how often each occurs."""
    labels = np.asarray(labels, dtype=np.int64)
    keys = np.hstack([np.packbits(X, axis=1), labels[:, None].view(np.uint8)])
    _, first, counts = np.unique(_as_bytes(keys), return_index=True, return_counts=True)
    return np.ascontiguousarray(X[first], dtype=np.uint8), labels[first], \
        counts.astype(np.float64)


def _as_bytes(rows: np.ndarray) -> np.ndarray:
    """Each row of a 2-D uint8 array as one opaque value, for fast sorting and unique."""
    rows = np.ascontiguousarray(rows)
    return rows.view(np.dtype((np.void, rows.shape[1]))).ravel()
