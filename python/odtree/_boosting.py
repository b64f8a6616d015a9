"""Optimal forests (thesis chapter 6): LPBoost and MDBoost by column generation, where each
new tree is the optimal weighted tree for the master's instance weights (work in progress:
multi-class MDBoost, the JSON form, greedy pricing and the benchmark are still missing)."""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._binarizer import Binarizer
from ._master import LPBoostMaster, MDBoostMaster
from ._solver import Solver


class OptimalBoostingClassifier(ClassifierMixin, BaseEstimator):
    """A forest whose tree weights are optimal for LPBoost's soft-margin model or MDBoost's
    margin distribution.

    Column generation (thesis Alg. 11): the master LP over the trees so far gives instance
    weights; the optimal weighted tree of depth ``max_depth`` for them is added while its
    edge exceeds the master's optimum by more than ``tol``. When no tree does, the forest is
    optimal over all trees of that depth. Multi-class data uses the "right or wrong" encoding
    of each tree's vote (spec §3.1): the same LP, and the class with the most weight wins.

    Parameters
    ----------
    model : {"lpboost", "mdboost"}, default="lpboost"
        The master problem: LPBoost's LP (thesis eqs. 6.9–6.10) or MDBoost's QP (6.11–6.12,
        two classes for now: its instance weights take both signs, which the pricing turns
        into weights on the other class).
    regulariser : float, default=0.5
        ``D``. LPBoost: the cap on each instance weight, in (0, 1] and at least
        ``1/n_samples``. MDBoost: the sum of the tree weights (the margins' scale), > 0.
    max_depth, min_samples_leaf : int
        The trees' limits.
    max_iterations : int or None, default=None
        At most this many trees are priced (``None``: until optimal).
    time_limit : float or None, default=None
        Seconds; the forest so far is returned with ``optimal_ = False``.
    tol : float, default=1e-6
        A tree enters only if its edge exceeds the master's optimum by more than this.
    """

    _parameter_constraints: dict = {
        "model": [StrOptions({"lpboost", "mdboost"})],
        "regulariser": [Interval(Real, 0, None, closed="neither")],
        "max_depth": [Interval(Integral, 0, 64, closed="both")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "max_iterations": [Interval(Integral, 1, None, closed="left"), None],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, model="lpboost", regulariser=0.5, max_depth=1, min_samples_leaf=1, *,
                 max_iterations=None, time_limit=None, tol=1e-6):
        self.model = model
        self.regulariser = regulariser
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_iterations = max_iterations
        self.time_limit = time_limit
        self.tol = tol

    def fit(self, X, y):
        """Grows the forest on ``X`` (numeric, binarized as the trees are) and ``y``."""
        self._validate_params()
        start = time.monotonic()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError("a forest needs at least two classes in y, got 1 class")
        self.binarizer_ = Binarizer().fit(X, y)
        binary = np.ascontiguousarray(self.binarizer_.transform(X), dtype=np.uint8)
        solver, master, priced = self._pricing(binary, codes)
        weights = np.full(len(codes), 1.0 / len(codes))
        bound, seen, trees, labels = -np.inf, set(), [], []
        tree_weights = np.zeros(0)
        self.log_, self.optimal_ = [], False
        while True:
            left = None if self.time_limit is None else self.time_limit - (
                time.monotonic() - start)
            if left is not None and left <= 0:
                break
            if self.max_iterations is not None and len(trees) >= self.max_iterations:
                break
            solution = solver.solve(priced(weights), max_depth=self.max_depth,
                                    min_samples_leaf=self.min_samples_leaf, time_limit=left)
            predicted = solution.node_labels[solution.tree.apply(binary)]
            correct = predicted == codes
            edge = float(weights @ np.where(correct, 1.0, -1.0))
            proven = solution.status == "optimal"
            if trees and edge <= bound + self.tol:
                self.optimal_ = proven
                break
            key = correct.tobytes()
            if key in seen:  # the pricer gave back a column the master holds
                self.optimal_ = proven
                break
            seen.add(key)
            trees.append(solution.tree)
            labels.append(solution.node_labels)
            master.add_tree(correct)
            bound, weights, tree_weights = master.solve()
            self.log_.append((time.monotonic() - start, bound, len(trees)))
        kept = np.flatnonzero(tree_weights > 0)
        self.trees_ = [trees[t] for t in kept]
        self.tree_labels_ = [labels[t] for t in kept]
        self.estimator_weights_ = tree_weights[kept]
        self.objective_ = getattr(master, "objective", bound)
        self.n_iter_ = len(trees)
        self.margins_ = self._votes(binary)[np.arange(len(codes)), codes] * 2 - \
            self.estimator_weights_.sum()
        return self

    def _pricing(self, binary, codes):
        """The kept solver, the master, and the map from instance weights to the solver's."""
        n = len(codes)
        if self.model == "lpboost":
            if self.regulariser > 1:
                raise ValueError(f"LPBoost's regulariser D={self.regulariser} must be in (0, 1]")
            # the LP's weights are non-negative up to its rounding
            return (Solver(binary, codes), LPBoostMaster(n, self.regulariser),
                    lambda u: np.maximum(u, 0.0))
        if len(self.classes_) != 2:
            raise ValueError("MDBoost handles two classes for now")
        # a row of negative weight -v counts as weight v on the other class: the solver holds
        # every row twice, once with each label, and the weights pick the copy
        solver = Solver(np.vstack([binary, binary]), np.concatenate([codes, 1 - codes]))

        def priced(u):
            return np.concatenate([np.maximum(u, 0.0), np.maximum(-u, 0.0)])

        return solver, MDBoostMaster(n, self.regulariser), priced

    def _votes(self, binary) -> np.ndarray:
        votes = np.zeros((len(binary), len(self.classes_)))
        for tree, labels, weight in zip(self.trees_, self.tree_labels_,
                                        self.estimator_weights_, strict=True):
            votes[np.arange(len(binary)), labels[tree.apply(binary)]] += weight
        return votes

    def predict_proba(self, X) -> np.ndarray:
        """Each class's share of the trees' weight."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        votes = self._votes(np.asarray(self.binarizer_.transform(X), dtype=np.uint8))
        total = votes.sum(axis=1, keepdims=True)
        return np.divide(votes, total, out=np.full_like(votes, 1 / votes.shape[1]),
                         where=total > 0)

    def predict(self, X) -> np.ndarray:
        """The class with the most weight (the first such class on ties)."""
        shares = self.predict_proba(X)
        return self.classes_[np.argmax(shares, axis=1)]
