"""The restricted master problems of the optimal forests (thesis chapter 6), solved by HiGHS
and grown one tree at a time: each tree is a constraint of an LP's dual (HiGHS re-solves it
from its last basis) or a column of MDBoost's QP.

Every master works on the trees' "right or wrong" columns ``z`` (+1 where a tree predicts a
row's class, -1 where it does not) and offers the same four things: ``add_tree``, ``solve``
(the edge a new tree must exceed, the instance weights for pricing, the tree weights), its
``objective`` and the ``bounds`` on the optimum over every tree that pricing proves.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    import highspy

_banner_shown = False


def silent_highs() -> highspy.Highs:
    """A HiGHS instance that prints nothing.

    HiGHS prints its banner when the first instance of a process is built, before any option
    can be set; that first instance is built with the standard output on the null device.
    """
    import highspy  # on use, so that importing odtree does not load HiGHS

    global _banner_shown
    if _banner_shown:
        highs = highspy.Highs()
    else:
        with _stdout_to_null():
            highs = highspy.Highs()
        _banner_shown = True
    highs.setOptionValue("output_flag", False)
    return highs


@contextlib.contextmanager
def _stdout_to_null():
    """Points file descriptor 1 (where compiled code prints) at the null device."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1 to redirect
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


class Restricted(NamedTuple):
    """A restricted master's solution."""

    #: A tree improves the master when its edge (``u @ z``) exceeds this.
    threshold: float
    #: The instance weights ``u`` for pricing (of either sign for MDBoost).
    instance_weights: np.ndarray
    #: The weight of each tree added so far, in order.
    tree_weights: np.ndarray


class _LinearMaster:
    """An LP whose columns are the instance weights (plus extra ones) and whose rows are the
    trees' constraints ``sum_i u_i z_it <= rhs`` (with ``extra`` coefficients on the extra
    columns); the tree weights are the magnitudes of those rows' duals."""

    def __init__(self, n_rows: int, cap: float):
        self.n_rows = n_rows
        self.cap = float(cap)
        self.n_trees = 0
        self.objective = float("nan")
        self._highs = silent_highs()
        none = np.array([], dtype=np.int32)
        self._highs.addCols(n_rows, np.zeros(n_rows), np.zeros(n_rows), np.full(n_rows, self.cap),
                            0, none, none, np.array([]))
        self._first_tree_row = 0

    def _add_row(self, z: np.ndarray, extra: dict, rhs: float) -> None:
        import highspy
        index = np.concatenate([np.arange(self.n_rows), list(extra)]).astype(np.int32)
        value = np.concatenate([z, list(extra.values())])
        self._highs.addRow(-highspy.kHighsInf, rhs, len(index), index, value)
        self.n_trees += 1

    def _run(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """The optimal columns and the tree weights."""
        import highspy
        highs = self._highs
        highs.run()
        status = highs.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"HiGHS did not solve the {name} master: "
                               f"{highs.modelStatusToString(status)}")
        solution = highs.getSolution()
        duals = np.asarray(solution.row_dual)[self._first_tree_row:]
        # a minimisation's "<=" rows have duals <= 0
        return np.asarray(solution.col_value), np.maximum(-duals, 0.0)


class LPBoostMaster(_LinearMaster):
    """LPBoost's dual as the thesis writes it (eq. 6.10): ``min r`` over instance weights
    ``u`` and ``r`` subject to ``sum_i u_i z_it <= r`` for each tree, ``sum_i u_i = 1`` and
    ``0 <= u_i <= D``.

    Its optimum equals the primal's (6.9), ``max rho - D sum_i xi_i`` over tree weights summing
    to 1: the soft minimum margin. It has a solution only when ``D >= 1 / n_rows``.
    """

    maximises = True

    def __init__(self, n_rows: int, regulariser: float):
        import highspy
        if not regulariser * n_rows >= 1 - 1e-12:
            raise ValueError(f"D={regulariser} is below 1/n_samples = {1 / n_rows:.6g}: the "
                             "instance weights cannot sum to 1, so LPBoost has no solution")
        super().__init__(n_rows, regulariser)
        inf = highspy.kHighsInf
        self._highs.addCol(1.0, -inf, inf, 0, np.array([], dtype=np.int32), np.array([]))
        self._highs.addRow(1.0, 1.0, n_rows, np.arange(n_rows, dtype=np.int32), np.ones(n_rows))
        self._first_tree_row = 1

    def add_tree(self, correct: np.ndarray) -> None:
        """Adds a tree: ``correct[i]`` is whether it predicts row i's class."""
        self._add_row(np.where(correct, 1.0, -1.0), {self.n_rows: -1.0}, 0.0)

    def solve(self) -> Restricted:
        values, weights = self._run("LPBoost")
        self.objective = float(values[self.n_rows])
        return Restricted(self.objective, values[:self.n_rows], weights)

    def bounds(self, best_edge: float) -> tuple[float, float]:
        """The least and the most the optimum over every tree can be, when no tree has an edge
        above ``best_edge`` for the last instance weights (which stay feasible for the full
        dual with ``r = best_edge``)."""
        return self.objective, max(self.objective, best_edge)


class DemirizMaster(_LinearMaster):
    """LPBoost as Demiriz et al. write it: the primal ``min sum_t a_t + D sum_i xi_i`` subject
    to ``sum_t a_t z_it + xi_i >= 1``, ``a, xi >= 0``; its dual is ``max sum_i u_i`` subject to
    ``sum_i u_i z_it <= 1`` for each tree and ``0 <= u_i <= D``.

    A tree improves the master when its edge exceeds 1. ``D`` must exceed ``1 / n_rows``, else
    no tree ever has an edge above 1.
    """

    maximises = False

    def __init__(self, n_rows: int, regulariser: float):
        if not regulariser * n_rows > 1:
            raise ValueError(f"D={regulariser} must exceed 1/n_samples = {1 / n_rows:.6g}: "
                             "below it no tree can enter the Demiriz LP")
        super().__init__(n_rows, regulariser)
        # max sum_i u_i, as a minimisation
        self._highs.changeColsCost(n_rows, np.arange(n_rows, dtype=np.int32), -np.ones(n_rows))

    def add_tree(self, correct: np.ndarray) -> None:
        """Adds a tree: ``correct[i]`` is whether it predicts row i's class."""
        self._add_row(np.where(correct, 1.0, -1.0), {}, 1.0)

    def solve(self) -> Restricted:
        values, weights = self._run("Demiriz LPBoost")
        self.objective = float(values.sum())
        return Restricted(1.0, values, weights)

    def bounds(self, best_edge: float) -> tuple[float, float]:
        """The least and the most the optimum (a minimum) over every tree can be, when no tree
        has an edge above ``best_edge``: the instance weights scaled by ``1 / best_edge`` are
        feasible for the full dual."""
        return self.objective / max(1.0, best_edge), self.objective


class MDBoostMaster:
    """MDBoost's primal (thesis eq. 6.11) over the tree weights ``w``: maximise the margins'
    sum less half their spread, ``1'rho - rho'A rho / 2`` with ``rho = Z w``, subject to
    ``sum_t w_t = D`` and ``w >= 0`` (``A``: 1 on the diagonal, ``-1/(M-1)`` off it, so
    ``rho'A rho / 2`` is ``M/2`` times the margins' sample variance).

    ``A`` is never built: the QP's Hessian is ``Z'AZ = (M Z'Z - s s') / (M - 1)`` with
    ``s = Z'1``, of the size of the forest. The instance weights for pricing are the gradient
    ``u = 1 - A rho`` (KKT), of either sign.
    """

    maximises = True

    def __init__(self, n_rows: int, regulariser: float):
        if n_rows < 2:
            raise ValueError("MDBoost needs at least two rows (the margins' variance)")
        self.n_rows = n_rows
        self.regulariser = float(regulariser)
        self.columns: list[np.ndarray] = []
        self.objective = float("nan")
        self._highs = silent_highs()
        # sum_t w_t = D, with no column yet
        self._highs.addRow(self.regulariser, self.regulariser, 0, np.array([], dtype=np.int32),
                           np.array([]))
        self._weighted_edges = float("nan")

    @property
    def n_trees(self) -> int:
        return len(self.columns)

    def add_tree(self, correct: np.ndarray) -> None:
        """Adds a tree: ``correct[i]`` is whether it predicts row i's class."""
        import highspy
        z = np.where(correct, 1.0, -1.0)
        self.columns.append(z)
        self._highs.addCol(-float(z.sum()), 0.0, highspy.kHighsInf, 1,
                           np.array([0], dtype=np.int32), np.array([1.0]))

    def solve(self) -> Restricted:
        import highspy
        Z = np.column_stack(self.columns)
        m = self.n_rows
        sums = Z.sum(axis=0)
        hessian = (m * (Z.T @ Z) - np.outer(sums, sums)) / (m - 1)
        # HiGHS minimises -s'w + w'Hw/2 and takes H's lower triangle column by column
        n = len(sums)
        starts = np.array([n * c - c * (c - 1) // 2 for c in range(n)], dtype=np.int32)
        index = np.concatenate([np.arange(c, n) for c in range(n)]).astype(np.int32)
        value = np.concatenate([hessian[c:, c] for c in range(n)])
        highs = self._highs
        highs.passHessian(n, len(index), highspy.HessianFormat.kTriangular, starts, index,
                          value)
        highs.run()
        status = highs.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"HiGHS did not solve the MDBoost master: "
                               f"{highs.modelStatusToString(status)}")
        weights = np.maximum(np.asarray(highs.getSolution().col_value), 0.0)
        margins = Z @ weights
        a_margins = (m * margins - margins.sum()) / (m - 1)
        self.objective = float(margins.sum() - margins @ a_margins / 2)
        instance_weights = 1.0 - a_margins
        edges = Z.T @ instance_weights
        self._weighted_edges = float(weights @ edges)
        active = weights > 1e-12 * max(weights.max(), 1.0)
        return Restricted(float(edges[active].max()), instance_weights, weights)

    def bounds(self, best_edge: float) -> tuple[float, float]:
        """The least and the most the optimum over every tree can be, when no tree has an edge
        above ``best_edge``: the objective is concave with gradient ``u`` in ``w``, so no
        ``w'`` on the simplex scaled to ``D`` beats ``f(w) + u'Z(w' - w)``."""
        return self.objective, self.objective + max(
            0.0, self.regulariser * best_edge - self._weighted_edges)
