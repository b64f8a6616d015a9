"""Optimal regression trees: squared, absolute and quantile (pinball) loss."""

from __future__ import annotations

import time
from numbers import Real

import numpy as np
from sklearn.base import RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from .._search.vocabulary import DEFAULTS
from ._arrays import Tree
from ._base import SEARCH_CONSTRAINTS, OptimalTreeBase
from ._constraints import CONSTRAINT_PARAMETERS, checked_monotonic_cst


class OptimalTreeRegressor(RegressorMixin, OptimalTreeBase):
    """A provably optimal regression tree of bounded depth.

    The search minimises the weighted sum, over the training rows, of the squared error, the
    absolute error or the pinball loss of quantile ``quantile``, over every tree of depth at
    most ``max_depth`` whose leaves hold at least ``min_samples_leaf`` rows. Each leaf
    predicts the weighted mean, median or ``quantile``-quantile of its rows. Features are
    binarized as in :class:`OptimalTreeClassifier`, whose documentation describes the
    search parameters shared by both.

    Parameters
    ----------
    max_depth : int or None, default=3
        Maximum number of tests on a root-to-leaf path; 0 gives a single leaf. ``None`` needs
        ``ccp_alpha > 0`` or ``max_leaf_nodes``, which bound the tree.
    min_samples_leaf : int or float, default=1
        Minimum number of training rows (of non-zero weight) in each leaf; a float in (0, 1)
        is ``ceil(min_samples_leaf * n_samples)``, as in scikit-learn.
    min_samples_split : int or float, default=2
        A node splits only if it holds at least this many training rows (of non-zero
        weight); a float in (0, 1] is ``max(2, ceil(min_samples_split * n_samples))``.
    min_weight_fraction_leaf : float, default=0.0
        Each leaf holds at least this fraction of the total ``sample_weight``, in [0, 0.5].
    monotonic_cst : None, default=None
        Accepted for scikit-learn's API, but only ``None`` (or all zeros): an exact search
        under monotonic constraints on leaf values is offered for two-class classification
        only (:class:`OptimalTreeClassifier`); any other value raises a ValueError.
    time_limit : float or None, default=None
        Seconds after which the search returns the best tree found so far.
    upper_bound : float or None, default=None
        Only trees whose objective is strictly below this value are wanted.
    criterion : {"squared_error", "absolute_error", "quantile"}, default="squared_error"
        The loss. Squared error uses MurTree's depth-2 solver over running sums; the other two
        need each leaf's rows in the order of their targets, and their depth-2 solver works on
        those ranks (about 8-12x the time of squared error at depth 3).
    quantile : float, default=0.5
        The quantile of ``criterion="quantile"``, in (0, 1).
    quantiles : array-like of float or None, default=None
        Several quantiles (``criterion="quantile"`` only), each in (0, 1), served by one
        search (thesis §8.2.2): the search walks the lattice once, keeps a bound and a
        solution per quantile at each node, and abandons a split only when every quantile
        allows. ``fit`` then gives one optimal tree per quantile (``trees_``), ``predict``
        one column per quantile, and ``objective_`` the sum of their losses. Every limit
        applies to each quantile (``upper_bound`` too: a quantile whose optimum is not below
        it gets the best single leaf); only ``lexicographic`` is not offered.
    max_leaf_nodes, ccp_alpha, lexicographic, search, cache, branching, depth2_solver, \
incremental_counting, similarity_bound, child_order, memory_limit, max_cache_entries, \
wipe_strategy, wipe_factor, thresholds, n_thresholds, missing, anytime, verbose, \
callback, n_jobs
        As in :class:`OptimalTreeClassifier`; ``ccp_alpha`` adds ``ccp_alpha`` times the
        total training weight per leaf, which is scikit-learn's criterion for weighted mean
        impurities. ``thresholds="exact"`` (every threshold of the numeric columns) takes every
        ``criterion`` but not ``quantiles``; ``"auto"`` runs it for squared error only
        (for absolute and quantile error it is several times slower than on the grid:
        friedman1, 2,000 rows, depth 3, no proof in 120 s against 7 s).

    Attributes
    ----------
    tree_ : Tree
        The fitted tree; ``tree_.value[:, 0, 0]`` is each node's prediction. With
        ``quantiles``, the first quantile's tree.
    feature_importances_ : ndarray of shape (n_features_in_,)
        The decrease of the training loss (``tree_.impurity``: each node's weighted squared,
        absolute or pinball error around its own prediction) that the splits on each input
        column bring, normalised to sum to 1; for squared error, scikit-learn's importance.
    trees_ : list of Tree
        With ``quantiles``, one tree per quantile, in order.
    objective_ : float
        The training objective: the weighted sum of the losses, plus the leaf penalties
        (summed over the quantiles with ``quantiles``).
    objectives_ : ndarray of shape (n_quantiles,)
        With ``quantiles``, each quantile's objective.
    lower_bound_, optimal_, optimal_over_, status_, fit_time_, binarizer_, binary_features_, \
binary_feature_names_, n_features_in_, feature_names_in_, cache_peak_entries_, \
cache_peak_bytes_, n_wipes_
        As in :class:`OptimalTreeClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0], [0], [1], [1]])
    >>> model = OptimalTreeRegressor(max_depth=1).fit(X, [1.0, 3.0, 10.0, 12.0])
    >>> model.objective_, model.predict([[0], [1]]).tolist()
    (4.0, [2.0, 11.0])
    """

    _parameter_constraints: dict = {
        **SEARCH_CONSTRAINTS,
        **CONSTRAINT_PARAMETERS,
        "criterion": [StrOptions({"squared_error", "absolute_error", "quantile"})],
        "quantile": [Interval(Real, 0, 1, closed="neither")],
        "quantiles": ["array-like", None],
    }

    def __init__(self, max_depth=3, min_samples_leaf=1, time_limit=None, upper_bound=None, *,
                 criterion="squared_error", quantile=0.5, quantiles=None, max_leaf_nodes=None,
                 ccp_alpha=0.0,
                 lexicographic=False, search=DEFAULTS["search"], cache=None, branching=None,
                 depth2_solver=None, incremental_counting=None, similarity_bound=None,
                 child_order=None, memory_limit=None, max_cache_entries=None,
                 wipe_strategy=DEFAULTS["wipe_strategy"], wipe_factor=DEFAULTS["wipe_factor"],
                 thresholds="auto", n_thresholds=10, missing="error",
                 anytime=None, verbose=0, callback=None, min_samples_split=2,
                 min_weight_fraction_leaf=0.0, monotonic_cst=None, n_jobs=None):
        self.max_depth = max_depth
        self.n_jobs = n_jobs
        self.min_samples_split = min_samples_split
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.monotonic_cst = monotonic_cst
        self.anytime = anytime
        self.verbose = verbose
        self.callback = callback
        self.min_samples_leaf = min_samples_leaf
        self.time_limit = time_limit
        self.upper_bound = upper_bound
        self.criterion = criterion
        self.quantile = quantile
        self.quantiles = quantiles
        self.max_leaf_nodes = max_leaf_nodes
        self.ccp_alpha = ccp_alpha
        self.lexicographic = lexicographic
        self.search = search
        self.cache = cache
        self.branching = branching
        self.depth2_solver = depth2_solver
        self.incremental_counting = incremental_counting
        self.similarity_bound = similarity_bound
        self.child_order = child_order
        self.memory_limit = memory_limit
        self.max_cache_entries = max_cache_entries
        self.wipe_strategy = wipe_strategy
        self.wipe_factor = wipe_factor
        self.thresholds = thresholds
        self.n_thresholds = n_thresholds
        self.missing = missing

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Find the optimal tree for the training data.

        Parameters
        ----------
        X : array-like, sparse matrix or pandas DataFrame of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Finite real targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights. Rows of weight zero are ignored entirely.

        Returns
        -------
        self : OptimalTreeRegressor
            The fitted estimator.
        """
        start = time.perf_counter()
        X, y = self._validate_training_data(X, y)
        y = np.asarray(y, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError("Input y contains NaN or infinity: regression targets must be "
                             "finite")
        weight = self._checked_weight(sample_weight, len(y))
        if checked_monotonic_cst(self.monotonic_cst, self.n_features_in_) is not None:
            raise ValueError("OptimalTreeRegressor does not support monotonic_cst yet: an "
                             "exact search under monotonic constraints is offered for "
                             "two-class OptimalTreeClassifier only")
        kept = weight > 0
        binary_X = self._binarize_training(
            X, y, weight, self.criterion if self.quantiles is None else None)
        labels = np.zeros(int(kept.sum()), dtype=np.uint32)
        if self.quantiles is None:
            result = self._fit_tree(binary_X, labels, 1, weight, objective=self.criterion,
                                    targets=y[kept], quantile=float(self.quantile))
            self.tree_ = _with_values(result)
        else:
            quantiles = self._checked_quantiles()
            results = self._fit_tree(binary_X, labels, 1, weight, objective="quantiles",
                                     targets=y[kept], quantiles=quantiles)
            self.trees_ = [_with_values(result) for result in results]
            self.tree_ = self.trees_[0]
            self.objectives_ = np.array([result.objective for result in results])
            self.objective_ = float(self.objectives_.sum())
            self.lower_bound_ = float(sum(result.lower_bound for result in results))
        self.fit_time_ = time.perf_counter() - start
        return self

    def _checked_quantiles(self) -> np.ndarray:
        if self.criterion != "quantile":
            raise ValueError(f"quantiles needs criterion='quantile', not {self.criterion!r}")
        quantiles = np.asarray(self.quantiles, dtype=np.float64)
        if (quantiles.ndim != 1 or len(quantiles) == 0 or np.any(quantiles <= 0)
                or np.any(quantiles >= 1)):
            raise ValueError("quantiles must be a non-empty list of numbers in (0, 1)")
        return quantiles

    def predict(self, X) -> np.ndarray:
        """The prediction of each row's leaf.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to predict.

        Returns
        -------
        y : ndarray of float64, shape (n_samples,) or (n_samples, n_quantiles)
            Predictions; one column per quantile with ``quantiles``.
        """
        if self.quantiles is not None and hasattr(self, "trees_"):
            binary_X = self._binarize(X)
            return np.column_stack([tree.value[tree.apply(binary_X), 0, 0]
                                    for tree in self.trees_])
        leaves = self.apply(X)
        return self.tree_.value[leaves, 0, 0]


def _with_values(solution) -> Tree:
    """The tree of a :class:`Solution`, with each node's prediction (the objective's leaf
    value) as its value and its loss around it (the core's) as its impurity."""
    tree = solution.tree
    return Tree(
        children_left=tree.children_left, children_right=tree.children_right,
        feature=tree.feature, value=solution.leaf_values.reshape(-1, 1, 1),
        n_node_samples=tree.n_node_samples,
        weighted_n_node_samples=tree.weighted_n_node_samples, impurity=solution.node_losses)
