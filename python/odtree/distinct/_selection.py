"""Wrapper feature selection by backward elimination over the greedy tree: Ruggieri's
pruned SBE (PSBE) and plain SBE, run by the Rust core."""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, _fit_context
from sklearn.feature_selection import SelectorMixin
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils._set_output import _get_output_config
from sklearn.utils.validation import check_is_fitted

from .._search.fitting import one_fit_at_a_time
from .._search.interrupts import note_interrupt
from .._search.solver import threads
from .._utils.deadline import Deadline
from .._utils.inputs import is_dataframe
from ..tree._greedy import GreedyTreeClassifier, read_training_columns

#: The share of ``time_limit`` the elimination may take; the final tree gets the rest.
ELIMINATION_SHARE = 0.75

__all__ = ["DistinctTreeSelector"]


class DistinctTreeSelector(SelectorMixin, BaseEstimator):
    """Selects the columns of a greedy tree by sequential backward elimination.

    The training rows are split into a building set, on which trees are grown, and a search
    set, on which they are scored by their misclassification error (Ruggieri, ICML 2017).
    Starting from all columns, each round tries removing one column at a time and keeps the
    removal whose tree errs least (the lowest column on ties), as long as the error strictly
    falls. ``method="psbe"`` tries only the columns the current tree uses: removing any other
    column leaves the tree, and so its error, unchanged, which cannot be a strict
    improvement. PSBE therefore selects exactly the subset SBE selects, with the same error,
    and grows far fewer trees; it also rebuilds a tree without a column from the current one,
    growing again only the subtrees under that column's tests. The final tree
    (``estimator_``) is grown on all the training rows with the selected columns.

    Parameters
    ----------
    criterion : {"entropy", "gain_ratio"}, default="entropy"
        As in :class:`GreedyTreeClassifier`, with its default (information gain, as in the
        paper).
    min_cases : int, default=2
        As in :class:`GreedyTreeClassifier`.
    max_depth : int or None, default=None
        As in :class:`GreedyTreeClassifier`.
    min_gain : float, default=0.0
        As in :class:`GreedyTreeClassifier`.
    method : {"psbe", "sbe"}, default="psbe"
        Pruned SBE, or plain SBE that treats the learner as a black box (for comparison).
    search_fraction : float, default=0.3
        Share of the rows in the search set, drawn stratified by class when every class
        has two rows or more (the paper's 70/30 split). With a single row, that row is both
        building and search set.
    cv : int or None, default=None
        If given, score each subset on ``cv`` stratified folds instead (each fold's tree is
        grown on the other folds, and the errors are pooled); PSBE then tries the columns
        used by some fold's tree.
    random_state : int, RandomState instance or None, default=None
        Seeds the split into building and search rows (or the folds).
    time_limit : float or None, default=None
        Seconds for the whole fit. The elimination stops after three quarters of them, and
        the last accepted subset is selected; the final tree is grown in the rest (and stops
        growing when they run out).
        A Ctrl-C during the elimination stops it in the same way (a second one within 10 s
        raises ``KeyboardInterrupt``).
    n_jobs : int or None, default=None
        Threads that try a round's candidate columns side by side; the selection is the same
        whatever their number. ``None`` means 1 unless a :func:`joblib.parallel_config`
        context says otherwise; ``-1`` means all cores. Each candidate's trees take
        milliseconds, far too little to send to other processes or machines, so the
        elimination runs on threads of one process, not through joblib's backends.

    Attributes
    ----------
    support_ : ndarray of bool, shape (n_features,)
        The selected columns.
    ranking_ : ndarray of int, shape (n_features,)
        1 for the selected columns; the column removed last ranks 2, the one removed first
        ranks highest.
    trace_ : list of (tuple of int, float)
        The accepted subsets, from all columns to the selected ones, each with its search
        error (the share of misclassified search rows).
    estimator_ : GreedyTreeClassifier
        The tree grown on all training rows and the selected columns (all columns, at
        ``max_depth=0``, if none is selected). It takes what :meth:`transform` returns:
        ``estimator_.predict(selector.transform(X))``. Fitted on a DataFrame, it keeps the
        column names in its tests but, like :meth:`transform`'s NumPy output, does not
        check them; with categorical columns, or when ``set_output(transform="pandas")`` was
        set before ``fit``, it takes (and checks) the DataFrame of the selected columns.
    n_trees_built_ : int
        Trees grown during the search (per fold).
    stopped_ : {"time_limit", "interrupted"} or None
        Why the elimination stopped before it converged: ``time_limit``, or a Ctrl-C; None
        when it converged.
    fit_time_ : float
        Seconds spent in ``fit``.
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        Input column names (only with a pandas DataFrame whose column names are strings).

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from odtree import DistinctTreeSelector
    >>> X, y = load_wine(return_X_y=True)
    >>> selector = DistinctTreeSelector(random_state=0).fit(X, y)
    >>> selector.transform(X).shape[1] == int(selector.support_.sum())
    True
    >>> sbe = DistinctTreeSelector(method="sbe", random_state=0).fit(X, y)
    >>> bool((sbe.support_ == selector.support_).all()), sbe.trace_ == selector.trace_
    (True, True)
    """

    _parameter_constraints: dict = {
        "criterion": [StrOptions({"gain_ratio", "entropy"})],
        "min_cases": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [Interval(Integral, 0, None, closed="left"), None],
        "min_gain": [Interval(Real, 0, None, closed="left")],
        "method": [StrOptions({"psbe", "sbe"})],
        "search_fraction": [Interval(Real, 0, 1, closed="neither")],
        "cv": [Interval(Integral, 2, None, closed="left"), None],
        "random_state": ["random_state"],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "n_jobs": [Integral, None],
    }

    def __init__(self, criterion="entropy", min_cases=2, max_depth=None, min_gain=0.0,
                 method="psbe", search_fraction=0.3, cv=None, random_state=None,
                 time_limit=None, n_jobs=None):
        self.criterion = criterion
        self.min_cases = min_cases
        self.max_depth = max_depth
        self.min_gain = min_gain
        self.method = method
        self.search_fraction = search_fraction
        self.cv = cv
        self.random_state = random_state
        self.time_limit = time_limit
        self.n_jobs = n_jobs

    def _tree_params(self) -> dict:
        return {"criterion": self.criterion, "min_cases": self.min_cases,
                "max_depth": self.max_depth, "min_gain": float(self.min_gain)}

    def _folds(self, labels: np.ndarray) -> list:
        """The (building rows, search rows) pairs that score a subset."""
        rows = np.arange(len(labels))
        if self.cv is not None:
            folds = StratifiedKFold(self.cv, shuffle=True, random_state=self.random_state)
            return [(build.tolist(), search.tolist()) for build, search in
                    folds.split(rows.reshape(-1, 1), labels)]
        if len(rows) < 2:
            return [(rows.tolist(), rows.tolist())]
        n_search = min(max(1, round(self.search_fraction * len(rows))), len(rows) - 1)
        stratify = labels if np.bincount(labels).min(initial=2) >= 2 else None
        try:
            build, search = train_test_split(rows, test_size=n_search, stratify=stratify,
                                             random_state=self.random_state)
        except ValueError:  # too few rows for a stratified search set
            build, search = train_test_split(rows, test_size=n_search,
                                             random_state=self.random_state)
        return [(np.sort(build).tolist(), np.sort(search).tolist())]

    @one_fit_at_a_time
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Selects the columns and grows the final tree on them.

        Parameters
        ----------
        X : array-like, sparse matrix or pandas DataFrame of shape (n_samples, n_features)
            Training data, as for :meth:`GreedyTreeClassifier.fit`.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : DistinctTreeSelector
            The fitted selector.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.integers(0, 2, (60, 4))
        >>> y = X[:, 2]  # only column 2 matters
        >>> selector = DistinctTreeSelector(random_state=0).fit(X, y)
        >>> selector.trace_  # the tree on all columns already errs on no search row
        [((0, 1, 2, 3), 0.0)]
        >>> selector.estimator_.used_features_
        array([2])
        """
        from .._search import learners  # the compiled search

        start = time.perf_counter()
        deadline = Deadline(self.time_limit)
        data = read_training_columns(self, X, y)
        folds = self._folds(data.labels)
        result = learners.backward_elimination(
            *data.core_args(), folds, **self._tree_params(), method=self.method,
            time_limit=deadline.part(ELIMINATION_SHARE).left(), n_jobs=threads(self.n_jobs))
        n_search = sum(len(search) for _, search in folds)
        subsets = [tuple(subset) for subset in result["trace_features"]]
        self.trace_ = [(subset, errors / n_search)
                       for subset, errors in zip(subsets, result["trace_errors"], strict=True)]
        n_features = self.n_features_in_
        self.support_ = np.zeros(n_features, dtype=bool)
        self.support_[list(subsets[-1])] = True
        self.ranking_ = np.ones(n_features, dtype=np.int64)
        # the column removed in the last accepted step ranks 2, the first removed ranks last
        steps = list(zip(subsets[:-1], subsets[1:], strict=True))
        for rank, (before, after) in enumerate(reversed(steps), start=2):
            self.ranking_[sorted(set(before) - set(after))] = rank
        self.n_trees_built_ = result["n_built"]
        self.stopped_ = result["stopped"]
        if self.stopped_ == "interrupted":
            note_interrupt()  # a second Ctrl-C soon after raises
        self.estimator_ = self._final_tree(X, y, deadline.left())
        self.fit_time_ = time.perf_counter() - start
        return self

    def _final_tree(self, X, y, time_limit: float | None) -> GreedyTreeClassifier:
        """The greedy tree on all rows of ``X`` and the selected columns, within
        ``time_limit`` seconds."""
        selected = np.flatnonzero(self.support_)
        if len(selected) == 0:
            return GreedyTreeClassifier(**{**self._tree_params(), "max_depth": 0}).fit(X, y)
        if issparse(X):
            X = X.tocsc()
        elif not is_dataframe(X) and not hasattr(X, "shape"):
            X = np.asarray(X)
        tree = GreedyTreeClassifier(**self._tree_params(), time_limit=time_limit).fit(
            _safe_indexing(X, selected, axis=1), y)
        numeric = "categorical" not in tree.binarizer_.column_kinds_
        if numeric and _get_output_config("transform", self)["dense"] == "default":
            # transform returns an array: the tree takes one without a warning about names
            for fitted in (tree, tree.binarizer_):
                fitted.__dict__.pop("feature_names_in_", None)
        return tree

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self)
        return self.support_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = True
        return tags
