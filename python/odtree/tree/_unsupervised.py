"""Optimal trees for tasks without class labels: predictive clustering, and any leaf cost a
Python function computes."""

from __future__ import annotations

import time
from numbers import Integral

import numpy as np
from scipy import sparse
from sklearn.base import ClusterMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import _num_samples, check_is_fitted

from .._search.vocabulary import DEFAULTS
from ._base import SEARCH_CONSTRAINTS, OptimalTreeBase, rows_per_node
from ._validation import plain_labels


class _NoLabels(OptimalTreeBase):
    """Fitting without class labels: the search sees one class."""

    def _fit_unlabelled(self, X, sample_weight, objective_of) -> tuple:
        """Validates and binarizes X, then searches with the objective arguments that
        ``objective_of(X, kept_positions)`` gives. Returns the 0/1 matrix of the kept rows,
        their positions in X, X as checked (dense) and their weights. The tree's node
        impurities are the core's node losses."""
        X, _ = self._validate_training_data(X, None, supervised=False)
        weight = self._checked_weight(sample_weight, X.shape[0])
        kept = np.flatnonzero(weight > 0)
        binary_X = self._binarize_training(X, None, weight)
        solution = self._fit_tree(binary_X, np.zeros(len(kept), dtype=np.uint32), 1, weight,
                                  **objective_of(X, kept))
        self.tree_.impurity = solution.node_losses
        return binary_X, kept, X, weight[kept]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        return tags


class OptimalTreeClusterer(ClusterMixin, _NoLabels):
    """Predictive clustering: the optimal tree whose leaves are clusters of nearby rows.

    The search minimises the sum over leaves of the weighted Euclidean distances of the
    leaf's rows to their centroid (thesis example 3), over trees of depth at most
    ``max_depth``; the tree's tests describe the clusters. Splits test the binarized features
    of ``X``. Distances are measured on ``X`` itself (numeric columns only), or, when ``fit``
    is given ``X_error``, on those vectors instead (distribution similarity, thesis §8.2.1:
    the rows are units such as geographic sectors, ``X`` holds the attributes that explain
    the clusters and ``X_error`` each unit's distribution, e.g. its shares of service
    statuses). ``predict`` needs only ``X``.

    Parameters
    ----------
    max_depth : int, default=3
        Maximum number of tests on a root-to-leaf path.
    n_clusters : int or None, default=None
        Most clusters (leaves); ``None``: only the depth limits them.
    min_samples_leaf : int or float, default=1
        Minimum number of rows in each cluster; a float in (0, 1) is
        ``ceil(min_samples_leaf * n_samples)``, as in scikit-learn.
    time_limit : float or None, default=None
        Seconds after which the best tree so far is returned.
    max_leaf_nodes, ccp_alpha, lexicographic, search, cache, branching, depth2_solver, \
incremental_counting, similarity_bound, child_order, memory_limit, max_cache_entries, \
wipe_strategy, wipe_factor, thresholds, n_thresholds, missing, anytime, verbose, \
callback, n_jobs
        As in :class:`OptimalTreeClassifier`; the exact search over every threshold does
        not take these objectives, so ``"auto"`` is the quantile grid and ``"exact"``
        raises ValueError.

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_samples,)
        The cluster of each training row, numbered 0 to k − 1 in the tree's leaf order.
    cluster_centers_ : ndarray of shape (k, n_features) or (k, n_error_features)
        The weighted centroid of each cluster, in the space the distances are measured in:
        ``X``'s, or ``X_error``'s when ``fit`` was given it.
    objective_ : float
        The weighted sum of the distances to the centroids, plus leaf penalties.
    feature_importances_ : ndarray of shape (n_features_in_,)
        The decrease of the weighted sum of distances to the centroid (``tree_.impurity``)
        that the splits on each input column bring, normalised to sum to 1.
    tree_, lower_bound_, optimal_, status_, fit_time_, binarizer_, binary_feature_names_
        As in :class:`OptimalTreeClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0, 0.0], [0, 0.2], [1, 5.0], [1, 5.2]])
    >>> OptimalTreeClusterer(max_depth=1).fit(X).labels_.tolist()
    [0, 0, 1, 1]

    Splitting on binary attributes, clustering on distributions:

    >>> attributes = np.array([[0, 1], [0, 0], [1, 1], [1, 0]])
    >>> shares = np.array([[0.9, 0.1], [0.8, 0.2], [0.2, 0.8], [0.1, 0.9]])
    >>> model = OptimalTreeClusterer(max_depth=1).fit(attributes, X_error=shares)
    >>> model.predict([[1, 1], [0, 1]]).tolist()
    [1, 0]
    >>> model.cluster_centers_.round(2).tolist()
    [[0.85, 0.15], [0.15, 0.85]]
    """

    _parameter_constraints: dict = {
        **SEARCH_CONSTRAINTS,
        "n_clusters": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, max_depth=3, n_clusters=None, min_samples_leaf=1, time_limit=None, *,
                 max_leaf_nodes=None, ccp_alpha=0.0, lexicographic=False, search=DEFAULTS["search"],
                 cache=None, branching=None, depth2_solver=None, incremental_counting=None,
                 similarity_bound=None, child_order=None, memory_limit=None,
                 max_cache_entries=None, wipe_strategy=DEFAULTS["wipe_strategy"],
                 wipe_factor=DEFAULTS["wipe_factor"],
                 thresholds="auto", n_thresholds=10, missing="error",
                 anytime=None, verbose=0, callback=None, n_jobs=None):
        self.max_depth = max_depth
        self.anytime = anytime
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback
        self.n_clusters = n_clusters
        self.min_samples_leaf = min_samples_leaf
        self.time_limit = time_limit
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
    def fit(self, X, y=None, sample_weight=None, *, X_error=None):
        """Find the optimal clustering tree.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The rows to split on; without ``X_error`` also the points to cluster, and then
            numeric.
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights.
        X_error : array-like of shape (n_samples, n_error_features) or (n_samples,), \
default=None
            The vector of each row whose distance to its leaf's centroid is the cost (finite
            numbers, one row per row of ``X``; a 1-D array is one number per row). ``None``:
            the rows of ``X``.

        Returns
        -------
        self : OptimalTreeClusterer
            The fitted estimator.
        """
        start = time.perf_counter()
        if X_error is not None:
            X_error = _error_vectors(X_error, X)
        elif y is not None and _is_matrix(y):
            raise ValueError("y is ignored by OptimalTreeClusterer; give the vectors to "
                             "cluster as fit(X, X_error=...)")
        leaf_caps = [c for c in (self.n_clusters, self.max_leaf_nodes) if c is not None]

        def points_of(X):
            return _points(X) if X_error is None else X_error

        binary_X, kept, X, weight = self._fit_unlabelled(X, sample_weight, lambda X, kept: {
            "objective": "centroid", "points": np.ascontiguousarray(points_of(X)[kept]),
            "max_leaf_nodes": min(leaf_caps) if leaf_caps else None})
        points = points_of(X)[kept]
        leaves = np.flatnonzero(self.tree_.is_leaf_mask())
        self._cluster_of = np.full(self.tree_.node_count, -1, dtype=np.int64)
        self._cluster_of[leaves] = np.arange(len(leaves))
        rows = rows_per_node(self.tree_, binary_X)
        self.cluster_centers_ = np.array([
            np.average(points[rows[leaf]], axis=0, weights=weight[rows[leaf]])
            for leaf in leaves])
        labels = np.full(X.shape[0], -1, dtype=np.int64)
        labels[kept] = self._cluster_of[self.tree_.apply(binary_X)]
        self.labels_ = labels
        self.fit_time_ = time.perf_counter() - start
        return self

    def predict(self, X) -> np.ndarray:
        """The cluster of each row: the leaf it reaches, numbered as in ``labels_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to assign.

        Returns
        -------
        labels : ndarray of int64, shape (n_samples,)
            Cluster numbers.
        """
        check_is_fitted(self)
        return self._cluster_of[self.apply(X)]


def _points(X) -> np.ndarray:
    """X as float coordinates, or a clear error for columns that are not numbers."""
    if np.iscomplexobj(X):
        raise ValueError("OptimalTreeClusterer measures real distances: X holds complex "
                         "numbers")
    try:
        points = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError("OptimalTreeClusterer measures distances between rows, so every "
                         f"column of X must be numeric ({error})") from error
    if np.isnan(points).any():
        raise ValueError("OptimalTreeClusterer measures distances between the rows of X, "
                         "which has missing values: give the vectors to cluster without "
                         "them as fit(X, X_error=...)")
    return points


def _is_matrix(y) -> bool:
    """Whether ``y`` reads as a 2-D array (vectors given where ``X_error`` was meant)."""
    try:
        return np.asarray(y).ndim == 2
    except (TypeError, ValueError):  # ragged: not a matrix
        return False


def _error_vectors(X_error, X) -> np.ndarray:
    """``X_error`` as a 2-D float matrix with one finite row per row of X, or a ValueError
    that says what is wrong."""
    if sparse.issparse(X_error):
        X_error = X_error.toarray()
    if np.iscomplexobj(X_error):
        raise ValueError("X_error must hold real numbers, not complex ones")
    try:
        vectors = np.asarray(X_error, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"X_error must hold numbers ({error})") from error
    if vectors.ndim == 1:
        vectors = vectors[:, np.newaxis]
    if vectors.ndim != 2 or vectors.shape[1] == 0:
        raise ValueError("X_error must be a 2-D array of shape (n_samples, n_error_features) "
                         f"with at least one column, not of shape {vectors.shape}")
    n_rows = _num_samples(X)
    if vectors.shape[0] != n_rows:
        raise ValueError(f"X_error has {vectors.shape[0]} rows but X has {n_rows}: give one "
                         "vector per row of X")
    bad = np.flatnonzero(~np.isfinite(vectors).all(axis=1))
    if len(bad):
        raise ValueError(f"X_error must be finite: {len(bad)} row(s) hold NaN or infinity "
                         f"(first: row {bad[0]})")
    return vectors


class OptimalTreePredictor(_NoLabels):
    """The optimal tree for any leaf cost a Python function computes (PyDL8.5's predictor).

    ``error_function(rows)`` receives the positions (an int64 array, in the ``X`` given to
    ``fit``) of the rows of a candidate leaf and returns its cost: a finite number ≥ 0 that
    depends only on the set of rows. The search minimises the sum of the leaf costs; it calls
    the function once per distinct set of rows, and cannot use MurTree's depth-2 solver or
    similarity bound. Alternatively, with class labels ``y``,
    ``fast_error_function(class_weights)`` costs a leaf from the weight of each class among its
    rows (ordered as ``classes_``), and the depth-2 solver applies. After the search,
    ``leaf_value_function(rows)`` gives each leaf's value, which ``predict`` returns.

    Parameters
    ----------
    max_depth : int, default=3
        Maximum number of tests on a root-to-leaf path.
    min_samples_leaf : int or float, default=1
        Minimum number of rows in each leaf; a float in (0, 1) is
        ``ceil(min_samples_leaf * n_samples)``, as in scikit-learn.
    time_limit : float or None, default=None
        Seconds after which the best tree so far is returned.
    upper_bound : float or None, default=None
        Only trees whose objective is strictly below this value are wanted.
    error_function : callable or None, default=None
        ``error_function(rows) -> float``; may also return ``(error, anything)``.
    fast_error_function : callable or None, default=None
        ``fast_error_function(class_weights) -> float``, or ``(error, class_index)``; needs
        ``y`` in ``fit``. Give exactly one of the two error functions.
    leaf_value_function : callable or None, default=None
        ``leaf_value_function(rows) -> value``. ``None`` predicts the class index a
        ``fast_error_function`` returned, decoded through ``classes_``, or else the leaf's
        node id.
    max_leaf_nodes, ccp_alpha, lexicographic, search, cache, branching, depth2_solver, \
incremental_counting, similarity_bound, child_order, memory_limit, max_cache_entries, \
wipe_strategy, wipe_factor, thresholds, n_thresholds, missing, anytime, verbose, \
callback, n_jobs
        As in :class:`OptimalTreeClassifier`; the exact search over every threshold does
        not take these objectives, so ``"auto"`` is the quantile grid and ``"exact"``
        raises ValueError.

    Attributes
    ----------
    leaf_values_ : dict
        The value of each leaf, by node id.
    feature_importances_ : ndarray of shape (n_features_in_,)
        The decrease of the leaf cost (``tree_.impurity``: the cost each node would have as a
        leaf, which ``fit`` asks the error function for) that the splits on each input
        column bring, normalised to sum to 1.
    objective_, tree_, lower_bound_, optimal_, status_, fit_time_, binarizer_
        As in :class:`OptimalTreeClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0], [0], [1], [1]])
    >>> target = np.array([1.0, 3.0, 10.0, 12.0])
    >>> model = OptimalTreePredictor(
    ...     max_depth=1,
    ...     error_function=lambda rows: float(np.abs(target[rows] - np.median(target[rows])).sum()),
    ...     leaf_value_function=lambda rows: float(np.median(target[rows]))).fit(X)
    >>> model.objective_, model.predict(X).tolist()
    (4.0, [2.0, 2.0, 11.0, 11.0])
    """

    _parameter_constraints: dict = {
        **SEARCH_CONSTRAINTS,
        "error_function": [callable, None],
        "fast_error_function": [callable, None],
        "leaf_value_function": [callable, None],
    }

    def __init__(self, max_depth=3, min_samples_leaf=1, time_limit=None, upper_bound=None, *,
                 error_function=None, fast_error_function=None, leaf_value_function=None,
                 max_leaf_nodes=None,
                 ccp_alpha=0.0, lexicographic=False, search=DEFAULTS["search"], cache=None,
                 branching=None, depth2_solver=None, incremental_counting=None,
                 similarity_bound=None, child_order=None, memory_limit=None,
                 max_cache_entries=None, wipe_strategy=DEFAULTS["wipe_strategy"],
                 wipe_factor=DEFAULTS["wipe_factor"],
                 thresholds="auto", n_thresholds=10, missing="error",
                 anytime=None, verbose=0, callback=None, n_jobs=None):
        self.max_depth = max_depth
        self.anytime = anytime
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback
        self.min_samples_leaf = min_samples_leaf
        self.time_limit = time_limit
        self.upper_bound = upper_bound
        self.error_function = error_function
        self.fast_error_function = fast_error_function
        self.leaf_value_function = leaf_value_function
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
    def fit(self, X, y=None, sample_weight=None):
        """Find the tree of least total leaf cost.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The features to split on.
        y : array-like of shape (n_samples,) or None
            Class labels, needed by ``fast_error_function`` (which sees their weights) and
            ignored by ``error_function`` (which reads whatever it needs).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights; rows of weight zero are left out.

        Returns
        -------
        self : OptimalTreePredictor
            The fitted estimator.
        """
        start = time.perf_counter()
        if (self.error_function is None) == (self.fast_error_function is None):
            raise ValueError("give exactly one of error_function and fast_error_function")
        if self.fast_error_function is not None:
            binary_X, kept = self._fit_class_weights(X, y, sample_weight)
        else:
            user = self.error_function

            def objective_of(X, kept):
                return {"objective": "error_function", "labelled": False,
                        "function": lambda rows: user(kept[rows])}

            binary_X, kept, *_ = self._fit_unlabelled(X, sample_weight, objective_of)
        rows = rows_per_node(self.tree_, binary_X)
        leaves = np.flatnonzero(self.tree_.is_leaf_mask())
        value = self.leaf_value_function
        if value is not None:
            self.leaf_values_ = {int(leaf): value(kept[rows[leaf]]) for leaf in leaves}
        elif self.fast_error_function is not None:
            self.leaf_values_ = {int(leaf): self.classes_[self._node_labels[leaf]]
                                 for leaf in leaves}
        else:
            self.leaf_values_ = {int(leaf): int(leaf) for leaf in leaves}
        self.fit_time_ = time.perf_counter() - start
        return self

    def _fit_class_weights(self, X, y, sample_weight) -> tuple:
        """Searches with ``fast_error_function`` on the class weights of ``y``; returns the
        kept rows' 0/1 matrix and their positions. The tree's node impurities are the core's
        node losses."""
        if y is None:
            raise ValueError("fast_error_function needs the class labels y")
        X, y = self._validate_training_data(X, y)
        y = plain_labels(y)
        weight = self._checked_weight(sample_weight, len(y))
        kept = np.flatnonzero(weight > 0)
        self.classes_, codes = np.unique(y, return_inverse=True)
        binary_X = self._binarize_training(X, y, weight)
        solution = self._fit_tree(binary_X, codes[kept].astype(np.uint32), len(self.classes_),
                                  weight, objective="fast_error_function",
                                  function=self.fast_error_function, labelled=False)
        self._node_labels = solution.node_labels
        self.tree_.impurity = solution.node_losses
        return binary_X, kept

    def predict(self, X) -> np.ndarray:
        """The value of each row's leaf.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to route.

        Returns
        -------
        values : ndarray of shape (n_samples, ...)
            Leaf values, stacked.
        """
        check_is_fitted(self)
        return np.array([self.leaf_values_[int(leaf)] for leaf in self.apply(X)])
