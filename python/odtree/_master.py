"""The restricted master problems of the optimal forests (thesis chapter 6), solved by HiGHS
and grown one tree at a time: each tree is a constraint of the dual, which HiGHS re-solves
from its last basis."""

from __future__ import annotations

import highspy
import numpy as np


class LPBoostMaster:
    """LPBoost's dual (thesis eq. 6.10): ``min r`` over instance weights ``u`` and ``r``,
    subject to ``sum_i u_i z_it <= r`` for each tree ``t`` (``z_it`` is +1 where tree ``t``
    is right on row ``i``, -1 where it is wrong), ``sum_i u_i = 1`` and ``0 <= u_i <= D``.

    Its optimum equals the primal's, ``max rho - D sum_i xi_i``; the tree weights are the
    duals of the tree constraints.
    """

    def __init__(self, n_rows: int, regulariser: float):
        if not regulariser * n_rows >= 1 - 1e-12:
            raise ValueError(f"the regulariser D={regulariser} must be at least 1/n_rows = "
                             f"{1 / n_rows:.6g}: below it the master has no solution")
        self.n_rows = n_rows
        self.n_trees = 0
        highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        inf = highspy.kHighsInf
        # columns: u_0 .. u_{n-1} in [0, D], then r free
        highs.addCols(n_rows, np.zeros(n_rows), np.zeros(n_rows),
                      np.full(n_rows, float(regulariser)), 0, np.array([], dtype=np.int32),
                      np.array([], dtype=np.int32), np.array([]))
        highs.addCol(1.0, -inf, inf, 0, np.array([], dtype=np.int32), np.array([]))
        # sum_i u_i = 1
        highs.addRow(1.0, 1.0, n_rows, np.arange(n_rows, dtype=np.int32), np.ones(n_rows))
        self._highs = highs

    def add_tree(self, correct: np.ndarray) -> None:
        """Adds the constraint of a tree: ``correct[i]`` is whether it is right on row i."""
        z = np.where(correct, 1.0, -1.0)
        index = np.append(np.arange(self.n_rows, dtype=np.int32), np.int32(self.n_rows))
        self._highs.addRow(-highspy.kHighsInf, 0.0, self.n_rows + 1, index, np.append(z, -1.0))
        self.n_trees += 1

    def solve(self) -> tuple[float, np.ndarray, np.ndarray]:
        """``(r, u, w)``: the optimum, the instance weights and the tree weights."""
        highs = self._highs
        highs.run()
        status = highs.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"the LPBoost master was not solved: "
                               f"{highs.modelStatusToString(status)}")
        solution = highs.getSolution()
        values = np.asarray(solution.col_value)
        duals = np.asarray(solution.row_dual)
        # a minimisation's "<=" rows have duals <= 0; the tree weights are their magnitudes
        weights = np.maximum(-duals[1:], 0.0)
        return float(values[self.n_rows]), values[:self.n_rows], weights


class MDBoostMaster:
    """MDBoost's primal (thesis eq. 6.11) over the tree weights ``w``: maximise the margins'
    mean less half their variance, ``1'rho - rho'A rho / 2`` with ``rho = Z w`` (``Z`` the
    trees' +1 right / -1 wrong columns), subject to ``sum_t w_t = D`` and ``w >= 0``.

    ``A`` (``1`` on the diagonal, ``-1/(M-1)`` off it) is never built: the QP's Hessian is
    ``Z'AZ = (M Z'Z - s s') / (M - 1)`` with ``s = Z'1``, of the size of the forest. The
    instance weights for pricing are ``u = 1 - A rho`` (KKT), of any sign.
    """

    def __init__(self, n_rows: int, regulariser: float):
        if n_rows < 2:
            raise ValueError("MDBoost needs at least two rows (the margins' variance)")
        self.n_rows = n_rows
        self.columns: list[np.ndarray] = []
        highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        # sum_t w_t = D, with no column yet
        highs.addRow(float(regulariser), float(regulariser), 0, np.array([], dtype=np.int32),
                     np.array([]))
        self._highs = highs

    @property
    def n_trees(self) -> int:
        return len(self.columns)

    def add_tree(self, correct: np.ndarray) -> None:
        """Adds a tree's column: ``correct[i]`` is whether it is right on row i."""
        z = np.where(correct, 1.0, -1.0)
        self.columns.append(z)
        self._highs.addCol(-float(z.sum()), 0.0, highspy.kHighsInf, 1,
                           np.array([0], dtype=np.int32), np.array([1.0]))

    def solve(self) -> tuple[float, np.ndarray, np.ndarray]:
        """``(r, u, w)``: the largest edge of a tree in the forest, the instance weights and
        the tree weights; :attr:`objective` then holds the optimum."""
        Z = np.column_stack(self.columns)
        m = self.n_rows
        sums = Z.sum(axis=0)
        hessian = (m * (Z.T @ Z) - np.outer(sums, sums)) / (m - 1)
        # HiGHS takes the lower triangle, column by column
        n = len(sums)
        starts, index, value = [], [], []
        for column in range(n):
            starts.append(len(index))
            index.extend(range(column, n))
            value.extend(hessian[column:, column])
        highs = self._highs
        highs.passHessian(n, len(index), 1, np.array(starts, dtype=np.int32),
                          np.array(index, dtype=np.int32), np.array(value))
        highs.run()
        status = highs.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"the MDBoost master was not solved: "
                               f"{highs.modelStatusToString(status)}")
        weights = np.maximum(np.asarray(highs.getSolution().col_value), 0.0)
        margins = Z @ weights
        a_margins = (m * margins - margins.sum()) / (m - 1)
        self.objective = float(margins.sum() - margins @ a_margins / 2)
        instance_weights = 1.0 - a_margins
        edges = Z.T @ instance_weights
        active = weights > 1e-12 * max(weights.max(), 1.0)
        return float(edges[active].max()), instance_weights, weights
