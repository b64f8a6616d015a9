"""What every optimal-tree estimator shares: search parameters, input checks, the call into
the compiled search and the fitted attributes it reports."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import (
    check_is_fitted,
    validate_data,
)

from .._search.exact import (
    BINARIZED,
    EVERY_THRESHOLD,
    grid_budget,
    grid_covers_every_threshold,
    grid_first,
    needs_exact,
    quick_proof,
    searches_exact,
    solve_exact,
    unsupported,
)
from .._search.fitting import one_fit_at_a_time
from .._search.interrupts import note_interrupt
from .._search.memory import parse_bytes
from .._search.solver import Solution, Solver
from .._search.vocabulary import MAX_DEPTH, OPTIONS
from .._utils.deadline import Deadline
from .._utils.inputs import is_dataframe
from .._utils.params import ParamsCheckedOnce
from .._utils.registry import register
from .._utils.warn import warn
from ..exceptions import InfeasibleWarning, NotOptimalWarning
from ..preprocessing._binarizer import (
    NUMERIC_DTYPES,
    Binarizer,
    missing_values_hint,
)
from ._arrays import Tree
from ._constraints import constraint_settings
from ._fitted import set_input
from ._validation import checked_sample_weight, densify, validate_training_data

#: The cache figures of a search result (named by the core) and the fitted attributes that
#: hold them.
CACHE_ATTRIBUTES = {
    "cache_entries": "n_cache_entries_",
    "cache_peak_entries": "cache_peak_entries_",
    "cache_peak_bytes": "cache_peak_bytes_",
    "n_wipes": "n_wipes_",
    "cache_created_entries": "cache_created_entries_",
}

#: Parameter checks shared by every estimator.
SEARCH_CONSTRAINTS: dict = {
    "max_depth": [Interval(Integral, 0, MAX_DEPTH, closed="both"), None],
    "min_samples_leaf": [Interval(Integral, 1, None, closed="left"),
                         Interval(RealNotInt, 0.0, 1.0, closed="neither")],
    "time_limit": [Interval(Real, 0, None, closed="left"), None],
    "upper_bound": [Interval(Real, None, None, closed="neither"), None],
    "max_leaf_nodes": [Interval(Integral, 1, None, closed="left"), None],
    "ccp_alpha": [Interval(Real, 0, None, closed="left")],
    "anytime": ["boolean", None],
    "n_jobs": [Integral, None],
    "verbose": ["verbose"],
    "callback": [callable, None],
    "lexicographic": ["boolean"],
    "search": [StrOptions(set(OPTIONS["search"]))],
    "cache": [StrOptions(set(OPTIONS["cache"])), None],
    "branching": [StrOptions(set(OPTIONS["branching"])), None],
    "depth2_solver": ["boolean", None],
    "incremental_counting": ["boolean", None],
    "similarity_bound": ["boolean", None],
    "child_order": [StrOptions(set(OPTIONS["child_order"])), None],
    "memory_limit": [Interval(Integral, 1, None, closed="left"), str, None],
    "max_cache_entries": [Interval(Integral, 1, None, closed="left"), None],
    "wipe_strategy": [StrOptions(set(OPTIONS["wipe_strategy"]))],
    "wipe_factor": [Interval(Real, 0, 1, closed="right")],
    "thresholds": [StrOptions({"auto", "quantile", "midpoints", "tree", "exact"})],
    "n_thresholds": [Interval(Integral, 1, None, closed="left")],
    "missing": [StrOptions({"error", "split"})],
}


class _KeptSolver(NamedTuple):
    """An estimator's solver with the data it was built from: comparing new data with them
    costs a memory comparison, less than building the solver again or hashing the data."""

    solver: Solver
    X: np.ndarray
    codes: np.ndarray
    n_classes: int

    def built_from(self, X, codes, n_classes) -> bool:
        return (self.n_classes == n_classes and self.X.shape == X.shape
                and np.array_equal(self.codes, codes) and np.array_equal(self.X, X))


class BinarizedModel:
    """What every estimator on binarized input shares: its input tags (numbers, sparse
    matrices, categories and strings all pass through the binarizer) and its JSON form."""

    def to_json(self) -> str:
        """The fitted model as JSON text; :func:`odtree.from_json` reads it back."""
        from .._json import to_json

        return to_json(self)

    def _missing(self) -> str:
        """The binarizer's ``missing`` setting this estimator fits with."""
        return getattr(self, "missing", "error")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = self._missing() == "split"
        return tags


class FittedTree(BinarizedModel):
    """What every fitted single tree answers: the leaf of each row, its depth and leaves."""

    def apply(self, X) -> np.ndarray:
        """Index of the leaf (in ``tree_``) that each row of ``X`` reaches.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to route through the tree.

        Returns
        -------
        leaves : ndarray of int64, shape (n_samples,)
            Leaf node ids.

        Examples
        --------
        >>> import numpy as np
        >>> from odtree import OptimalTreeClassifier
        >>> X = np.array([[0], [1], [1], [0]])
        >>> OptimalTreeClassifier(max_depth=1).fit(X, [0, 1, 1, 0]).apply(X).tolist()
        [1, 2, 2, 1]
        """
        binary_X = binarize_input(self, X)  # first: it checks that the model is fitted
        return self.tree_.apply(binary_X)

    def decision_path(self, X):
        """The nodes each row of ``X`` passes through, as scikit-learn's ``decision_path``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to route through the tree.

        Returns
        -------
        indicator : scipy.sparse.csr_matrix of int64, shape (n_samples, node_count)
            ``indicator[i, j]`` is 1 when row ``i`` passes through node ``j`` of ``tree_``
            (its leaf, ``apply(X)[i]``, included) and 0 otherwise.

        Examples
        --------
        >>> import numpy as np
        >>> from odtree import OptimalTreeClassifier
        >>> X = np.array([[0], [1], [1], [0]])
        >>> model = OptimalTreeClassifier(max_depth=1).fit(X, [0, 1, 1, 0])
        >>> model.decision_path(X[:2]).toarray().tolist()
        [[1, 1, 0], [1, 0, 1]]
        """
        binary_X = binarize_input(self, X)
        return self.tree_.decision_path(binary_X)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Impurity-based importance of each input column, as scikit-learn computes it.

        Each split adds the decrease of the weighted impurity it brings (the parent's
        ``weighted_n_node_samples * impurity`` minus its children's) to the input column its
        binary feature tests; the sums are normalised to add up to 1 (all zeros for a single
        leaf). The impurity is the Gini index of the node's class weights for classifiers (as
        scikit-learn's default criterion, whatever the search optimised), and the training
        loss of the node's rows around its own prediction for the other trees
        (``tree_.impurity``: squared, absolute or pinball error for regressors, the distances
        to the centroid for clusterers, the user's leaf cost for predictors).

        Returns
        -------
        importances : ndarray of float64, shape (n_features_in_,)

        Examples
        --------
        >>> import numpy as np
        >>> from odtree import OptimalTreeClassifier
        >>> X = np.array([[0, 5], [1, 5], [1, 6], [0, 6]])
        >>> OptimalTreeClassifier(max_depth=1).fit(X, [0, 1, 1, 0]).feature_importances_.tolist()
        [1.0, 0.0]
        """
        check_is_fitted(self)
        tree = self.tree_
        loss = self._node_impurity()
        importances = np.zeros(self.n_features_in_, dtype=np.float64)
        for node in np.flatnonzero(~tree.is_leaf_mask()):
            decrease = (loss[node] - loss[tree.children_left[node]]
                        - loss[tree.children_right[node]])
            importances[self.binary_features_[tree.feature[node]].column] += decrease
        total = importances.sum()
        if total > 0:
            importances /= total
        return importances

    def _node_impurity(self) -> np.ndarray:
        """The weighted impurity of each node: what :attr:`feature_importances_` subtracts."""
        if self.tree_.impurity is None:
            raise AttributeError(f"this {type(self).__name__}'s tree_ holds no node impurity "
                                 "(a model read from an older file): refit it to get "
                                 "feature_importances_")
        return self.tree_.impurity

    def get_depth(self) -> int:
        """Depth of the fitted tree (0 for a single leaf)."""
        check_is_fitted(self)
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves of the fitted tree."""
        check_is_fitted(self)
        return self.tree_.n_leaves


class LeafClassifier:
    """Classification by a fitted tree's leaves: ``tree_.value`` holds each node's (weighted)
    class sums and ``node_classes_`` the class each node predicts."""

    #: One classification tree, which :func:`odtree.to_sklearn` can write as scikit-learn's.
    _one_classification_tree = True

    @property
    def n_classes_(self) -> int:
        """Number of classes (the length of ``classes_``)."""
        return len(self.classes_)

    def to_sklearn(self):
        """A fitted scikit-learn ``DecisionTreeClassifier`` holding this tree, for tools
        built on scikit-learn's tree; see :func:`odtree.to_sklearn`."""
        from ._to_sklearn import to_sklearn

        return to_sklearn(self)

    def _node_impurity(self) -> np.ndarray:
        """Gini impurity of each node's class weights, times the node's total weight."""
        value = self.tree_.value[:, 0, :]
        total = value.sum(axis=1)
        squares = np.divide((value**2).sum(axis=1), total, out=np.zeros_like(total),
                            where=total > 0)
        return total - squares

    def predict_log_proba(self, X) -> np.ndarray:
        """Logarithm of :meth:`predict_proba` (``-inf`` for a class absent from the leaf).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.

        Examples
        --------
        >>> import numpy as np
        >>> from odtree import OptimalTreeClassifier
        >>> X = np.array([[0], [0], [0], [1]])
        >>> model = OptimalTreeClassifier(max_depth=1).fit(X, [0, 0, 1, 1])
        >>> np.exp(model.predict_log_proba([[0]])).round(3).tolist()
        [[0.667, 0.333]]
        """
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            return np.log(proba)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities: the weighted class shares of the training rows in each leaf.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.

        Examples
        --------
        >>> import numpy as np
        >>> from odtree import OptimalTreeClassifier
        >>> X = np.array([[0], [0], [0], [1]])
        >>> model = OptimalTreeClassifier(max_depth=1).fit(X, [0, 0, 1, 1])
        >>> model.predict_proba([[0]]).round(3).tolist()
        [[0.667, 0.333]]
        """
        leaves = self.apply(X)
        value = self.tree_.value[leaves, 0, :]
        total = value.sum(axis=1, keepdims=True)
        return np.divide(value, total, out=np.zeros_like(value), where=total > 0)

    def predict(self, X) -> np.ndarray:
        """Predicted class of each row: the class its leaf predicts.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to classify. Missing values (NaN) raise a ValueError unless the model was
            fitted with ``missing="split"`` (the tree exported by :func:`to_sklearn`
            routes them as scikit-learn does instead).

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Labels from ``classes_``.

        Examples
        --------
        >>> import numpy as np
        >>> from odtree import OptimalTreeClassifier
        >>> X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
        >>> model = OptimalTreeClassifier(max_depth=2).fit(X, ["a", "b", "a", "b"])
        >>> model.predict(X).tolist()
        ['a', 'b', 'a', 'b']
        """
        leaves = self.apply(X)
        return self.classes_[self.node_classes_[leaves]]


class OptimalTreeBase(FittedTree, ParamsCheckedOnce, BaseEstimator):
    """Search, input handling and fitted attributes common to the optimal-tree estimators.

    Subclasses declare their parameters in ``__init__`` (scikit-learn reads them from its
    signature) and call :meth:`_fit_tree` from ``fit``. Their ``fit`` is wrapped so that the
    time limit counts from its start and two threads cannot fit one object at once.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "fit" in cls.__dict__:
            cls.fit = one_fit_at_a_time(cls.__dict__["fit"])
        register(cls)

    def _deadline(self) -> Deadline:
        """The time limit of the running fit, counted from its start."""
        return Deadline(self.time_limit, start=getattr(self, "_fit_started", None))

    def _checked_weight(self, sample_weight, n_rows: int) -> np.ndarray:
        """sample_weight as float64, non-negative, not all zero, with a finite sum."""
        return checked_sample_weight(sample_weight, n_rows)

    def _validate_training_data(self, X, y, supervised=True):
        return validate_training_data(self, X, y, supervised)

    def _binarize_training(self, X, y, weight, objective: str | None = None) -> np.ndarray:
        """Fits the binarizer on the rows of non-zero weight and returns their 0/1 matrix.
        ``objective`` names the fit's objective (None: one the exact search does not take);
        with ``thresholds="auto"`` it decides whether the exact search runs."""
        # the exact search starts from a tree on the quantile grid (see odtree._search.exact)
        exact = searches_exact(self, objective)
        self.binarizer_ = Binarizer(
            strategy="quantile" if self.thresholds in ("exact", "auto") else self.thresholds,
            n_thresholds=self.n_thresholds, missing=self.missing)
        self.binarizer_._numeric_grid = not exact or grid_first(self)
        binary_X = np.ascontiguousarray(
            self.binarizer_._fit_kept(X, y, weight, validated=True, deadline=self._deadline()),
            dtype=np.uint8)
        if self.thresholds == "auto":  # no exact search where the grid holds every threshold
            exact = exact and needs_exact(self.binarizer_)
        self._exact_search = exact
        self._exact_X = X if exact else None
        set_input(self, self.binarizer_)
        self._grid_complete = not exact and grid_covers_every_threshold(self.binarizer_)
        return binary_X

    #: The search settings every estimator passes to :meth:`Solver.solve` as they are.
    _SOLVE_SETTINGS = ("max_depth", "min_samples_leaf", "lexicographic", "search", "cache",
                       "branching", "depth2_solver", "incremental_counting", "similarity_bound",
                       "child_order", "memory_limit", "max_cache_entries", "wipe_strategy",
                       "wipe_factor", "ccp_alpha", "anytime", "n_jobs")

    def _fit_tree(self, binary_X, labels, n_classes, weight, *, max_leaf_nodes=None,
                  **objective):
        """Runs the search on the kept rows (``weight > 0``) and sets the fitted attributes;
        returns the :class:`Solution` (a list of them for several quantiles).

        ``max_leaf_nodes`` caps the leaves (else ``self.max_leaf_nodes`` does); ``objective``
        holds the objective's arguments of :meth:`Solver.solve`. The :class:`Solver` is kept,
        so a refit on the same binary data (new weights or limits) does not build it again.
        """
        kept = weight > 0
        exact = getattr(self, "_exact_X", None) is not None
        if getattr(self, "memory_limit", None) is not None:
            parse_bytes(self.memory_limit)  # checked even where only the exact search runs
        if exact and self.thresholds == "exact":
            refused = unsupported(self, objective)
            if refused:
                raise ValueError(f"thresholds='exact' does not support {', '.join(refused)} "
                                 "yet; use thresholds='quantile' or 'midpoints'")
        # the search gets what is left of the time limit; a binarizer that stopped early
        # leaves it none, and its reason becomes the fit's
        stopped = getattr(self.binarizer_, "stopped_", None)
        deadline = self._deadline()
        time_limit = deadline.left()
        if stopped is not None:
            time_limit = 0.0
        grid_limit = time_limit
        if exact:
            grid_limit = grid_budget(time_limit) if time_limit is None else min(
                time_limit, grid_budget(time_limit))
        settings = {name: getattr(self, name) for name in self._SOLVE_SETTINGS}
        settings["min_samples_leaf"] = resolved_min_samples_leaf(self.min_samples_leaf,
                                                                 len(weight))
        settings.update(constraint_settings(self, weight, self.n_features_in_,
                                            self.binary_features_))
        leaves = self.max_leaf_nodes if max_leaf_nodes is None else max_leaf_nodes
        limits = {name: settings[name] for name in (
            "min_samples_leaf", "min_samples_split", "min_weight_leaf") if name in settings}
        proof = None
        if exact and self.binarizer_._numeric_grid and stopped is None:
            proof = quick_proof(self, self._exact_X, binary_X, labels, n_classes, weight,
                                deadline.left(), objective, limits, leaves)
        solution = None
        if proof is None and (not exact or self.binarizer_._numeric_grid):
            solver = self._kept_solver(binary_X, labels, n_classes)
            solution = solver.solve(
                weight[kept], **settings, time_limit=grid_limit,
                upper_bound=getattr(self, "upper_bound", None),  # clusterers have none
                max_leaf_nodes=leaves,
                verbose=self.verbose, callback=self.callback, **objective)
        if exact:
            X, self._exact_X = self._exact_X, None
            if proof is None:
                proof = solve_exact(self, X, binary_X, labels, n_classes, weight, solution,
                                    deadline.left(), objective, limits, leaves)
            solution = proof
            if stopped is not None and solution.status != "infeasible":
                solution.status = stopped
            if any(f.missing_holds is not None for f in self.binary_features_):
                settle_missing_directions(solution.tree, self.binary_features_,
                                          self.binarizer_._transform_checked(X)[kept])
            self.optimal_over_ = EVERY_THRESHOLD
            self._set_result(solution)
            return solution
        complete = getattr(self, "_grid_complete", False)
        self.optimal_over_ = EVERY_THRESHOLD if complete else BINARIZED
        solutions = solution if isinstance(solution, list) else [solution]
        for one in solutions:
            if stopped is not None and one.status != "infeasible":
                one.status = stopped
            settle_missing_directions(one.tree, self.binary_features_, binary_X)
        # several quantiles give one solution per quantile; the first sets the attributes
        self._set_result(solutions[0])
        return solution

    def _kept_solver(self, binary_X, labels, n_classes) -> Solver:
        """The solver of the last fit if it was built from the same data, else a new one."""
        X = np.ascontiguousarray(binary_X, dtype=np.uint8)
        codes = np.ascontiguousarray(labels, dtype=np.uint32)
        kept = getattr(self, "_solver", None)
        if kept is None or not kept.built_from(X, codes, n_classes):
            kept = _KeptSolver(Solver._from_codes(X, codes, n_classes), X, codes, n_classes)
            # refits on this solver (FoldRefitter's) share their proven subproblems
            kept.solver.keep_work(getattr(self, "_keep_work", False))
        self._solver = kept
        return kept.solver

    def __getstate__(self):
        """Pickles without the kept solver (compiled bitsets, built again on the next fit)
        and the data it was built from."""
        state = super().__getstate__()
        state.pop("_solver", None)
        state.pop("_exact_X", None)
        return state

    def _set_result(self, solution: Solution) -> None:
        self.tree_ = solution.tree
        self.objective_ = solution.objective
        self.lower_bound_ = solution.lower_bound
        self.status_ = solution.status
        self.optimal_ = solution.optimal
        self.anytime_log_ = solution.progress
        for name, attribute in CACHE_ATTRIBUTES.items():
            setattr(self, attribute, solution.cache[name])
        self._warn_status()

    def _warn_status(self) -> None:
        if self.status_ == "infeasible":
            upper_bound = getattr(self, "upper_bound", None)
            warn(f"no tree has an objective below upper_bound={upper_bound}; "
                 "the model is the best single leaf", InfeasibleWarning)
        elif self.status_ == "interrupted":
            note_interrupt()
            warn("the search was interrupted: the tree is the best found so far and may "
                 "not be optimal", NotOptimalWarning)
        elif self.status_ == "memory_limit":
            warn("the memory limit is too small for the entries the search cannot "
                 "spare: the tree is the best found so far and may not be optimal",
                 NotOptimalWarning)
        elif self.status_ == "stopped":
            warn("the callback stopped the search: the tree is the best found so far "
                 "and may not be optimal", NotOptimalWarning)
        elif self.status_ == "time_limit":
            scope = getattr(self, "optimal_over_", BINARIZED)
            warn(f"time limit of {self.time_limit} s reached: the tree is the best found "
                 f"so far and may not be optimal over {scope}", NotOptimalWarning)

    def _binarize(self, X) -> np.ndarray:
        return binarize_input(self, X)


def resolved_min_samples_leaf(min_samples_leaf, n_samples: int) -> int:
    """``min_samples_leaf`` as a number of rows: a fraction in (0, 1) of the ``n_samples``
    rows given to ``fit`` is ``ceil(fraction * n_samples)``, as in scikit-learn."""
    if isinstance(min_samples_leaf, Integral):
        return int(min_samples_leaf)
    return max(1, math.ceil(min_samples_leaf * n_samples))


def binarize_input(estimator, X) -> np.ndarray:
    """The binary features of the rows ``X`` for a fitted ``estimator``, after checking ``X``
    against the columns it was fitted on."""
    check_is_fitted(estimator)
    if not is_dataframe(X):
        split = getattr(estimator.binarizer_, "missing", "error") == "split"
        with missing_values_hint("this model was fitted with missing='error'; fill them, or "
                                 "refit it with missing='split'"):
            X = densify(validate_data(estimator, X, reset=False, accept_sparse=("csr", "csc"),
                                       dtype=NUMERIC_DTYPES,
                                       ensure_all_finite="allow-nan" if split else True))
    else:
        validate_data(estimator, X, reset=False, skip_check_array=True)
    return estimator.binarizer_._transform_checked(X)


def settle_missing_directions(tree: Tree, features, binary_X: np.ndarray) -> None:
    """Where no training row with a missing value reaches a split on ``x <= t`` (or ``x <= t
    or missing``), both features send the training rows the same way and the search took
    either: make the split send missing rows to the child of more training weight, as for a
    column without missing values (:data:`odtree.tree._arrays.UNKNOWN`). ``binary_X`` holds the
    training rows the tree was fitted on; the tree's ``feature`` is changed in place, and
    nothing else changes."""
    twin = {(f.column, f.value, f.missing_holds): i for i, f in enumerate(features)
            if f.missing_holds is not None}
    if not twin:
        return
    is_missing = {f.column: i for i, f in enumerate(features) if f.kind == "missing"}
    rows = rows_per_node(tree, binary_X)
    goes_right = tree.unknown_goes_right()
    for node in np.flatnonzero(~tree.is_leaf_mask()).tolist():
        feature = features[tree.feature[node]]
        if feature.missing_holds is None or feature.column not in is_missing:
            continue
        if not binary_X[rows[node], is_missing[feature.column]].any():
            wanted = (feature.column, feature.value, bool(goes_right[node]))
            tree.feature[node] = twin.get(wanted, tree.feature[node])


def rows_per_node(tree: Tree, binary_X: np.ndarray) -> list[np.ndarray]:
    """The positions of the rows of ``binary_X`` that reach each node of ``tree``."""
    rows = [np.empty(0, dtype=np.int64)] * tree.node_count
    rows[0] = np.arange(len(binary_X))
    for node in range(tree.node_count):  # pre-order: a parent comes before its children
        if not tree.is_leaf(node):
            here = rows[node]
            right = binary_X[here, tree.feature[node]] != 0
            rows[tree.children_left[node]] = here[~right]
            rows[tree.children_right[node]] = here[right]
    return rows
