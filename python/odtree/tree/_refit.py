"""Refitting one training set under new limits: binarized once, with a kept
:class:`~odtree.Solver`, so that each new depth or leaf budget is one search away. Used by
:class:`~odtree.OptimalTreeCV` and by the cost-complexity pruning path."""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.base import clone

from .._search.exact import needs_exact
from .._utils.deadline import NO_DEADLINE, Deadline
from ..exceptions import InfeasibleWarning
from ._validation import plain_labels


class FoldRefitter:
    """One training set, binarized once, with a kept :class:`Solver`: the optimal tree for
    new limits is one search away, as a fitted :class:`OptimalTreeClassifier`."""

    def __init__(self, template, X, y, sample_weight=None,
                 deadline: Deadline = NO_DEADLINE, **params):
        # every fit draws on ``deadline`` (the whole call's budget), and each keeps the
        # template's own time_limit as its limit within it
        self.deadline = deadline
        self.own_limit = template.time_limit
        self.estimator = clone(template).set_params(
            **params, time_limit=self.deadline.within(self.own_limit))
        # the fit and the refits share one kept solver, each search keeping its proven
        # subproblems for the next
        self.estimator._keep_work = True
        self.estimator.fit(X, y, sample_weight=sample_weight)
        # a criterion that is no sum over leaves (F1, balanced accuracy) is finished by fit
        # itself, and the exact search over every threshold runs on the raw columns, not on
        # the kept solver's grid: such estimators are refitted whole (with "auto", wherever
        # the grid misses a threshold, since other limits may choose the exact search)
        self.whole_fit = (getattr(template, "criterion", "misclassification")
                          != "misclassification"
                          or self.estimator._exact_search
                          or (template.thresholds == "auto"
                              and needs_exact(self.estimator.binarizer_)))
        self.data = (X, y, sample_weight)
        # as fit weighs the rows: sample_weight times the class_weight of each row's class
        self.weight = self.estimator._training_weight(sample_weight, plain_labels(y))
        self.kept_rows = np.flatnonzero(self.weight > 0)
        self.objective = self.estimator._objective(len(self.estimator.classes_),
                                                   self.kept_rows)

    def refit(self, upper_bound=None, **params):
        """The estimator refitted with ``params`` (``max_depth``, ``max_leaf_nodes``, ...) on
        the kept solver. ``upper_bound``, when given, must exceed the optimum of these
        limits; it only prunes the search (the search is solved again without it should no
        tree be below it)."""
        estimator = self.estimator
        estimator.set_params(**params, time_limit=self.deadline.within(self.own_limit))
        if self.whole_fit:
            X, y, sample_weight = self.data
            return estimator.fit(X, y, sample_weight=sample_weight)
        kept = estimator._solver
        if upper_bound is not None and estimator.upper_bound is None:
            estimator.set_params(upper_bound=upper_bound)
            estimator._fit_started = time.monotonic()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", InfeasibleWarning)
                solution = estimator._fit_tree(kept.X, kept.codes, kept.n_classes, self.weight,
                                               **self.objective)
            estimator.set_params(upper_bound=None)
            if solution.status != "infeasible":
                estimator.node_classes_ = solution.node_labels
                return estimator
        estimator._fit_started = time.monotonic()
        solution = estimator._fit_tree(kept.X, kept.codes, kept.n_classes, self.weight,
                                       **self.objective)
        estimator.node_classes_ = solution.node_labels
        return estimator
