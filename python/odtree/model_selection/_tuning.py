"""Cross-validation of the depth and the leaf budget of an optimal tree, reusing work.

:class:`OptimalTreeCV` scores the grid of ``max_depth`` and ``max_leaf_nodes`` values as
:class:`sklearn.model_selection.GridSearchCV` would, but binarizes each fold once, keeps one
:class:`Solver` per fold and solves each distinct search of the grid once on it.
"""

from __future__ import annotations

import time
from inspect import signature
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from scipy.stats import rankdata
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.model_selection._search import BaseSearchCV
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from .._search.exact import budget_binds
from .._search.fitting import one_fit_at_a_time
from .._utils.deadline import Deadline
from ..tree._classifier import OptimalTreeClassifier
from ..tree._refit import FoldRefitter
from ..tree._validation import validate_classification


def _leaf_limits(depth: int, max_leaf_nodes: int | None) -> tuple[int, int, bool]:
    """The limits the search actually runs under for a depth and a leaf budget: the depth and
    the number of branching nodes, each cut to what the other allows, and whether a node
    limit is set (which changes the search, and so which of several optimal trees it
    returns). Grid points with the same limits get the same tree."""
    full = 2**depth - 1
    if max_leaf_nodes is None:
        return depth, full, False
    nodes = min(max_leaf_nodes - 1, full)
    return min(depth, nodes), nodes, True


def _score_fold(template, X, y, sample_weight, train, test, candidates, scorer, tolerance,
                weighted_scores, seconds=None):
    """Scores every candidate (a dict of ``max_depth`` and maybe ``max_leaf_nodes``) on one
    split: a list of (test score, seconds of its fit) in the order of ``candidates``. The
    test rows' weights go to the scorer when ``weighted_scores``. The searches share
    ``seconds`` from now (``None``: no limit beyond the template's own)."""
    deadline = Deadline(seconds)
    X_train, y_train = _safe_indexing(X, train), _safe_indexing(y, train)
    X_test, y_test = _safe_indexing(X, test), np.asarray(_safe_indexing(y, test))
    weight = None if sample_weight is None else _safe_indexing(sample_weight, train)
    test_weight = None
    if sample_weight is not None and weighted_scores:
        test_weight = np.asarray(_safe_indexing(sample_weight, test), dtype=np.float64)
    score_params = {} if test_weight is None else {"sample_weight": test_weight}
    # each depth's budgets in increasing order, so that the optimum of the last budget bounds
    # the next one from above (more leaves never cost more)
    order = sorted(range(len(candidates)),
                   key=lambda i: (candidates[i]["max_depth"],
                                  _budget_order(candidates[i].get("max_leaf_nodes"))))
    first = candidates[order[0]]
    start = time.perf_counter()  # the first point's fit binarizes the fold and builds the solver
    fold = FoldRefitter(template, X_train, y_train, weight, deadline,
                         max_depth=first["max_depth"], max_leaf_nodes=first.get("max_leaf_nodes"))
    first_seconds = time.perf_counter() - start
    test_binary = fold.estimator._binarize(X_test) if scorer is None else None
    by_limits: dict[tuple, tuple[float, float]] = {}
    results: list[tuple[float, float] | None] = [None] * len(candidates)
    previous = (None, np.inf)  # (depth, objective) of the last search
    for index in order:
        depth = candidates[index]["max_depth"]
        leaves = candidates[index].get("max_leaf_nodes")
        limits = _leaf_limits(depth, leaves)
        if fold.whole_fit and template.thresholds == "auto":
            # a binding leaf budget takes the grid, no budget the exact search
            limits += (budget_binds(depth, leaves),)
        if limits not in by_limits:
            bound = None
            if previous[0] == depth and leaves is not None and np.isfinite(previous[1]):
                bound = previous[1] + tolerance
            if index == order[0]:
                estimator, seconds = fold.estimator, first_seconds
            else:
                start = time.perf_counter()
                estimator = fold.refit(upper_bound=bound, max_depth=depth,
                                       max_leaf_nodes=leaves)
                seconds = time.perf_counter() - start
            if scorer is None:  # ClassifierMixin.score, without binarizing X_test again
                # (a whole refit may bring new features: the exact search's thresholds)
                binary = estimator._binarize(X_test) if fold.whole_fit else test_binary
                predicted = estimator.classes_[estimator.node_classes_[
                    estimator.tree_.apply(binary)]]
                # accuracy_score's arithmetic, without its checks of the targets
                correct = np.asarray(y_test == predicted, dtype=np.float64)
                if test_weight is None:
                    score = float(np.mean(correct))
                else:
                    score = float(np.sum(correct * test_weight) / np.sum(test_weight))
            else:
                score = float(scorer(estimator, X_test, y_test, **score_params))
            by_limits[limits] = (score, seconds)
            previous = (depth, estimator.objective_)
        results[index] = by_limits[limits]
    return results


def _scorer_takes_weight(scorer) -> bool:
    """Whether ``GridSearchCV`` would pass the test rows' sample weights to ``scorer``
    (``None``: the estimator's accuracy, which takes them): only the scikit-learn versions
    that check scorers for it do."""
    if not hasattr(BaseSearchCV, "_check_scorers_accept_sample_weight"):
        return False
    if scorer is None:
        return True
    if hasattr(scorer, "_accept_sample_weight"):
        return bool(scorer._accept_sample_weight())
    return "sample_weight" in signature(scorer).parameters


def _budget_order(leaves):
    return np.inf if leaves is None else leaves


class OptimalTreeCV(ClassifierMixin, BaseEstimator):
    """An optimal tree whose depth and leaf budget are chosen by cross-validation.

    Scores every pair of ``depths`` and ``max_leaf_nodes`` as
    ``GridSearchCV(estimator, {"max_depth": depths, "max_leaf_nodes": max_leaf_nodes}, cv=cv,
    scoring=scoring)`` would, with the same folds and the same scores, but faster: each
    training fold is binarized once and keeps one :class:`Solver`, grid points whose limits
    coincide (a budget of ``2**depth`` leaves or more, or ``k`` leaves at any depth of at
    least ``k - 1``) are searched once, and each budget's optimum bounds the next budget's
    search from above. The best pair is then fitted on all the data.

    Parameters
    ----------
    depths : sequence of int, default=(1, 2, 3)
        The ``max_depth`` values to try, each at least 1.
    max_leaf_nodes : sequence of int or None, default=None
        The leaf budgets to try (each at least 2; ``None`` in the list means no budget).
        ``None``: only the depths are tuned.
    cv : int, cross-validation generator or iterable, default=5
        As in ``GridSearchCV``: an int is the number of folds of a ``StratifiedKFold``
        without shuffling.
    scoring : str, callable or None, default=None
        One scorer, as in ``GridSearchCV``; ``None`` is the accuracy.
    n_jobs : int or None, default=None
        Folds solved in parallel (joblib).
    refit : bool, default=True
        Fit ``best_estimator_`` on all the data with the best parameters; ``predict`` needs it.
    estimator : OptimalTreeClassifier or None, default=None
        The template whose other settings (``min_samples_leaf``, ``ccp_alpha``,
        ``thresholds``, ``cost_matrix``, ...) every fit keeps; ``None`` is
        ``OptimalTreeClassifier()``.
    time_limit : float or None, default=None
        Seconds allowed to the whole ``fit``: each fold gets an equal share, and the refit on
        all the data one more (``None``: no limit on the whole). A search stopped by it is
        not optimal, and its score may differ from an unlimited search's. The template's
        own ``time_limit`` still bounds each search.

    Attributes
    ----------
    cv_results_ : dict of ndarray
        As ``GridSearchCV.cv_results_``: ``params``, ``param_max_depth``,
        ``param_max_leaf_nodes``, ``split{i}_test_score``, ``mean_test_score``,
        ``std_test_score``, ``rank_test_score``, and ``mean_fit_time``/``std_fit_time``
        (seconds of each point's search; the first point of each fold also counts the
        binarization, and points that share another's search show its time).
    best_index_ : int
        Index in ``cv_results_`` of the best point: the first of the highest mean score.
    best_params_ : dict
        Its parameters.
    best_score_ : float
        Its mean test score.
    best_estimator_ : OptimalTreeClassifier
        Fitted on all the data with ``best_params_`` (only with ``refit=True``).
    classes_ : ndarray
        The class labels.
    n_splits_ : int
        The number of folds.
    n_searches_ : int
        Searches run over all folds (fewer than grid points times folds when limits
        coincide).
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        Input column names (only with a pandas DataFrame whose column names are strings).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from odtree import OptimalTreeCV
    >>> X, y = load_iris(return_X_y=True)
    >>> model = OptimalTreeCV(depths=(1, 2, 3), max_leaf_nodes=[2, 3, 4], cv=3).fit(X, y)
    >>> model.best_params_
    {'max_depth': 2, 'max_leaf_nodes': 4}
    >>> round(model.best_score_, 3)
    0.933
    >>> model.predict(X[:2]).tolist()
    [0, 0]
    """

    _parameter_constraints: dict = {
        "depths": ["array-like"],
        "max_leaf_nodes": ["array-like", None],
        "cv": ["cv_object"],
        "scoring": [str, callable, None],
        "n_jobs": [Integral, None],
        "refit": ["boolean"],
        "estimator": [OptimalTreeClassifier, None],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
    }

    def __init__(self, depths=(1, 2, 3), max_leaf_nodes=None, *, cv=5, scoring=None,
                 n_jobs=None, refit=True, estimator=None, time_limit=None):
        self.depths = depths
        self.max_leaf_nodes = max_leaf_nodes
        self.cv = cv
        self.scoring = scoring
        self.n_jobs = n_jobs
        self.refit = refit
        self.estimator = estimator
        self.time_limit = time_limit

    def _grid(self) -> dict:
        """The grid as GridSearchCV's ``param_grid``, checked."""
        depths = list(np.ravel(np.asarray(self.depths, dtype=object)))
        if not depths:
            raise ValueError("depths is empty: give at least one max_depth to try")
        for depth in depths:
            if not isinstance(depth, Integral) or isinstance(depth, bool) or depth < 1:
                raise ValueError(f"depths must hold integers of at least 1, got {depth!r}")
        grid = {"max_depth": [int(depth) for depth in depths]}
        if self.max_leaf_nodes is not None:
            budgets = list(np.ravel(np.asarray(self.max_leaf_nodes, dtype=object)))
            if not budgets:
                raise ValueError("max_leaf_nodes is empty: give at least one leaf budget, or "
                                 "None to tune only the depth")
            for leaves in budgets:
                if leaves is not None and (not isinstance(leaves, Integral)
                                           or isinstance(leaves, bool) or leaves < 2):
                    raise ValueError("max_leaf_nodes must hold integers of at least 2 (or "
                                     f"None), got {leaves!r}")
            grid["max_leaf_nodes"] = [None if b is None else int(b) for b in budgets]
        return grid

    def _template(self) -> OptimalTreeClassifier:
        return OptimalTreeClassifier() if self.estimator is None else clone(self.estimator)

    @one_fit_at_a_time
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None):
        """Cross-validate the grid, then fit the best point on all the data.

        Parameters
        ----------
        X : array-like, sparse matrix or pandas DataFrame of shape (n_samples, n_features)
            Training data, as for :meth:`OptimalTreeClassifier.fit`.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights of the fits, and of the test scores when the scorer takes them:
            as ``GridSearchCV`` without metadata routing passes them in the installed
            scikit-learn (recent versions weight the scores, older ones do not).

        Returns
        -------
        self : OptimalTreeCV
            The fitted estimator.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> X, y = load_iris(return_X_y=True)
        >>> OptimalTreeCV(depths=[1, 2], cv=3).fit(X, y).best_params_
        {'max_depth': 2}
        """
        grid = self._grid()
        template = self._template()
        X, y = validate_classification(self, X, y, missing=template.missing)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, np.empty(len(y)),
                                                 dtype=np.float64, ensure_non_negative=True)
        candidates = list(ParameterGrid(grid))
        cv = check_cv(self.cv, y, classifier=True)
        splits = list(cv.split(X, y))
        scorer = None if self.scoring in (None, "accuracy") else check_scoring(
            template, scoring=self.scoring)
        tolerance = 1e-7 * (len(y) if sample_weight is None
                            else float(np.sum(np.asarray(sample_weight, dtype=np.float64))))
        weighted_scores = sample_weight is not None and _scorer_takes_weight(scorer)
        # the whole call's budget: an equal share to each fold (from its start, so that
        # folds in parallel or in turn alike end in time), and the rest to the refit
        deadline = Deadline(self.time_limit)
        shares = len(splits) + (1 if self.refit else 0)
        fold_seconds = None if self.time_limit is None else self.time_limit / shares
        folds = Parallel(n_jobs=self.n_jobs)(
            delayed(_score_fold)(template, X, y, sample_weight, train, test, candidates,
                                 scorer, tolerance, weighted_scores, fold_seconds)
            for train, test in splits)
        scores = np.array([[score for score, _ in fold] for fold in folds]).T
        seconds = np.array([[s for _, s in fold] for fold in folds]).T
        self.n_splits_ = len(splits)
        self.n_searches_ = int(sum(len({_leaf_limits(c["max_depth"], c.get("max_leaf_nodes"))
                                        for c in candidates}) for _ in splits))
        self.cv_results_ = _results(candidates, grid, scores, seconds)
        self.best_index_ = int(self.cv_results_["rank_test_score"].argmin())
        self.best_params_ = dict(candidates[self.best_index_])
        self.best_score_ = float(self.cv_results_["mean_test_score"][self.best_index_])
        if self.refit:
            self.best_estimator_ = clone(template).set_params(
                **self.best_params_, time_limit=deadline.within(template.time_limit)).fit(
                X, y, sample_weight=sample_weight)
            self.classes_ = self.best_estimator_.classes_
        else:
            self.classes_ = np.unique(np.asarray(y))
        return self

    def _fitted_estimator(self) -> OptimalTreeClassifier:
        check_is_fitted(self)
        if not self.refit:
            raise AttributeError("this OptimalTreeCV was fitted with refit=False: it has no "
                                 "best_estimator_ to predict with")
        return self.best_estimator_

    def predict(self, X) -> np.ndarray:
        """Predicted class of each row, by ``best_estimator_``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Labels from ``classes_``.

        Examples
        --------
        >>> import numpy as np
        >>> X = np.array([[0], [1], [0], [1], [0], [1]])
        >>> OptimalTreeCV(depths=[1], cv=3).fit(X, [0, 1, 0, 1, 0, 1]).predict([[1]]).tolist()
        [1]
        """
        return self._fitted_estimator().predict(X)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities by ``best_estimator_``: the class shares of each leaf.

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
        >>> X = np.array([[0], [1], [0], [1], [0], [1]])
        >>> model = OptimalTreeCV(depths=[1], cv=3).fit(X, [0, 1, 0, 1, 0, 1])
        >>> model.predict_proba([[1]]).tolist()
        [[0.0, 1.0]]
        """
        return self._fitted_estimator().predict_proba(X)

    def score(self, X, y, sample_weight=None) -> float:
        """The ``scoring`` of ``best_estimator_`` on ``(X, y)`` (accuracy when ``None``).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Test rows.
        y : array-like of shape (n_samples,)
            Their labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights of the score.

        Returns
        -------
        score : float

        Examples
        --------
        >>> import numpy as np
        >>> X = np.array([[0], [1], [0], [1], [0], [1]])
        >>> OptimalTreeCV(depths=[1], cv=3).fit(X, [0, 1, 0, 1, 0, 1]).score(X, [0] * 6)
        0.5
        """
        estimator = self._fitted_estimator()
        if self.scoring is None:
            return estimator.score(X, y, sample_weight=sample_weight)
        score_params = {} if sample_weight is None else {"sample_weight": sample_weight}
        return float(check_scoring(estimator, scoring=self.scoring)(estimator, X, y,
                                                                    **score_params))

    def plot_cv_curve(self, ax=None):
        """Draw the mean test score (with one standard deviation) against the leaf budget,
        one line per depth (against the depth when only depths are tuned); the best point
        is circled.

        Parameters
        ----------
        ax : matplotlib Axes or None, default=None
            Where to draw; ``None``: a new figure's axes.

        Returns
        -------
        ax : matplotlib Axes

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn.datasets import load_iris
        >>> X, y = load_iris(return_X_y=True)
        >>> model = OptimalTreeCV(depths=[1, 2], max_leaf_nodes=[2, 3], cv=3).fit(X, y)
        >>> model.plot_cv_curve().get_ylabel()
        'mean test score'
        """
        import matplotlib.pyplot as plt

        check_is_fitted(self)
        if ax is None:
            _, ax = plt.subplots()
        results = self.cv_results_
        params = results["params"]
        mean, std = results["mean_test_score"], results["std_test_score"]
        if "max_leaf_nodes" not in params[0]:
            depths = [p["max_depth"] for p in params]
            ax.errorbar(depths, mean, yerr=std, marker="o", capsize=3)
            ax.set_xlabel("max_depth")
            best_x = depths[self.best_index_]
        else:
            budgets = sorted({p["max_leaf_nodes"] for p in params}, key=_budget_order)
            labels = ["none" if b is None else str(b) for b in budgets]
            position = {b: i for i, b in enumerate(budgets)}
            for depth in sorted({p["max_depth"] for p in params}):
                rows = [i for i, p in enumerate(params) if p["max_depth"] == depth]
                xs = [position[params[i]["max_leaf_nodes"]] for i in rows]
                ax.errorbar(xs, mean[rows], yerr=std[rows], marker="o", capsize=3,
                            label=f"max_depth={depth}")
            ax.set_xticks(range(len(budgets)), labels)
            ax.set_xlabel("max_leaf_nodes")
            ax.legend()
            best_x = position[params[self.best_index_]["max_leaf_nodes"]]
        ax.plot([best_x], [mean[self.best_index_]], "o", markersize=14, fillstyle="none",
                color="black")
        ax.set_ylabel("mean test score")
        return ax

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        estimator = OptimalTreeClassifier() if self.estimator is None else self.estimator
        tags.input_tags = estimator.__sklearn_tags__().input_tags
        return tags


def _results(candidates: list[dict], grid: dict, scores: np.ndarray,
             seconds: np.ndarray) -> dict:
    """``cv_results_`` as ``GridSearchCV`` computes it from the scores (candidates x splits)."""
    results: dict = {}
    mean_time = np.average(seconds, axis=1)
    results["mean_fit_time"] = mean_time
    results["std_fit_time"] = np.sqrt(np.average((seconds - mean_time[:, None]) ** 2, axis=1))
    for name in grid:
        column = np.ma.MaskedArray(np.empty(len(candidates), dtype=object),
                                   mask=np.zeros(len(candidates), dtype=bool))
        for i, candidate in enumerate(candidates):
            column[i] = candidate[name]
        results[f"param_{name}"] = column
    results["params"] = candidates
    for split in range(scores.shape[1]):
        results[f"split{split}_test_score"] = scores[:, split]
    mean = np.average(scores, axis=1)
    results["mean_test_score"] = mean
    results["std_test_score"] = np.sqrt(np.average((scores - mean[:, None]) ** 2, axis=1))
    if np.isnan(mean).all():
        rank = np.ones_like(mean, dtype=np.int32)
    else:
        filled = np.where(np.isnan(mean), np.nanmin(mean) - 1, mean)
        rank = rankdata(-filled, method="min").astype(np.int32, copy=False)
    results["rank_test_score"] = rank
    return results
