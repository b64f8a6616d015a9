"""The scikit-learn estimators around the exact search."""

from __future__ import annotations

import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import assert_all_finite
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from ._binarizer import NUMERIC_DTYPES, Binarizer
from ._memory import parse_bytes
from ._tree import Tree
from .exceptions import InfeasibleWarning, NotOptimalWarning

#: Two Ctrl-C within this many seconds raise KeyboardInterrupt instead of stopping one fit.
INTERRUPT_WINDOW = 10.0
_last_interrupt = [-np.inf]


def _is_dataframe(X) -> bool:
    return hasattr(X, "iloc") and hasattr(X, "dtypes")


class OptimalTreeClassifier(ClassifierMixin, BaseEstimator):
    """A provably optimal decision tree classifier of bounded depth.

    The search minimises the weighted number of misclassified training rows over every tree
    of depth at most ``max_depth`` whose leaves hold at least ``min_samples_leaf`` rows. Numeric
    and categorical columns are first turned into binary features by a :class:`Binarizer`;
    columns that hold only 0 and 1 are used as they are.

    Parameters
    ----------
    max_depth : int, default=3
        Maximum number of tests on a root-to-leaf path; 0 gives a single leaf.
    min_samples_leaf : int, default=1
        Minimum number of training rows (of non-zero weight) in each leaf.
    time_limit : float or None, default=None
        Seconds after which the search stops and returns the best tree found so far
        (``status_ = "time_limit"``, ``optimal_ = False``). ``None`` means no limit.
    upper_bound : float or None, default=None
        Only trees whose objective is strictly below this value are wanted (PyDL8.5's
        ``max_error``). If none exists, ``fit`` warns and the model is the best single leaf.
    max_leaf_nodes : int or None, default=None
        Maximum number of leaves (``None``: only the depth limits the tree). MurTree's limit of
        n branching ("feature") nodes is ``max_leaf_nodes=n + 1``.
    ccp_alpha : float, default=0.0
        Cost per leaf, as a share of the total training weight: the search minimises the
        misclassified weight plus ``ccp_alpha * total_weight * n_leaves``, which gives the same
        tree as scikit-learn's cost-complexity criterion (error rate + ``ccp_alpha`` per leaf).
        MurTree's sparse coefficient, counted per branching node in misclassifications, is
        ``ccp_alpha * n_samples`` for unit weights.
    lexicographic : bool, default=False
        Among the trees of least objective, return one with the fewest leaves (MurTree's
        lexicographic objective), found in the same search by comparing (objective, leaves)
        pairs. Off by default: where a perfect tree exists, proving the fewest leaves can take
        hundreds of times longer (see ``benchmarks/RESULTS.md``).
    search : {"murtree", "dl85"}, default="murtree"
        The preset of search techniques. ``"murtree"`` uses them all (depth-2 solver,
        similarity bound, dataset cache, dynamic child order, sibling and refined lower
        bounds); ``"dl85"`` is DL8.5 as published, for comparison. The switches below
        override single techniques of the preset.
    cache : {"trie", "hash", "dataset"} or None, default=None
        The cache of subproblems: a trie or a hash table keyed by the sorted path, or a hash
        table keyed by the rows (which shares subproblems reached by different paths).
        ``None``: the preset's.
    branching : {"in_order", "gini", "gain_asc", "gain_desc"} or None, default=None
        Order in which features are tried: column order, by Gini gain, or by information gain.
        ``None``: the preset's.
    depth2_solver : bool or None, default=None
        Solve subtrees of depth 2 with MurTree's counting solver. ``None``: the preset's.
    incremental_counting : bool or None, default=None
        Let the depth-2 solver update its pair counts by the rows that changed since the last
        subproblem, when that is cheaper than recounting. ``None``: the preset's.
    similarity_bound : bool or None, default=None
        Use MurTree's similarity lower bound (only where it is valid: ``min_samples_leaf=1``).
        ``None``: the preset's.
    child_order : {"larger_error_first", "left_first"} or None, default=None
        Which child of a split is solved first. ``None``: the preset's.
    memory_limit : int, str or None, default=None
        Most memory the search may hold, in bytes or as a string such as ``"500MB"`` or
        ``"2GiB"`` (MB and GB are powers of 10, MiB and GiB powers of 2). It counts the cache
        from its allocations and the search's working memory. When the cache would outgrow
        it, the search wipes the entries it needs least and solves them again if they are met
        again; the tree is still optimal. If even the entries the search cannot spare do not
        fit, the search stops with ``status_ = "memory_limit"`` and the best tree found.
        ``None``: no limit.
    max_cache_entries : int or None, default=None
        Most cache entries (trie nodes, or hash-table keys) the search may hold, the unit of
        the memory-bounded DL8.5 paper. Works like ``memory_limit``; both may be set.
    wipe_strategy : {"reuses", "descendants", "all"}, default="reuses"
        Which entries a wipe frees first: those least reused, those with the fewest
        descendants (cheapest to recompute), or every entry the search can spare.
    wipe_factor : float, default=0.5
        The share of the entries a wipe frees: of ``max_cache_entries``, or of the entries
        held when only ``memory_limit`` is set.
    thresholds : {"quantile", "midpoints", "tree"}, default="quantile"
        How numeric columns become binary features (see :class:`Binarizer`).
    n_thresholds : int, default=10
        Thresholds per numeric column for ``thresholds="quantile"``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    class_ranking_ : ndarray of shape (n_classes,)
        Class indices in tie-break order: a leaf whose classes weigh the same predicts the one
        ranked first. ``fit`` ranks the classes by total training weight, then by index.
    tree_ : Tree
        The fitted tree as parallel arrays over the binary features. ``tree_.value`` holds the
        weighted class sums of the training rows reaching each node.
    binarizer_ : Binarizer
        The fitted mapping from input columns to binary features.
    binary_features_ : list of BinaryFeature
        What each binary feature tests; ``tree_.feature`` indexes this list.
    binary_feature_names_ : ndarray of str
        Readable names of the binary features, such as ``"age <= 37.5"``.
    objective_ : float
        The training objective of the tree: the weighted count of misclassified rows, plus
        ``ccp_alpha * total_weight`` per leaf.
    lower_bound_ : float
        A proven lower bound on the optimal objective (equal to ``objective_`` when optimal).
    optimal_ : bool
        Whether the tree is proven optimal.
    status_ : str
        ``"optimal"``, ``"time_limit"``, ``"interrupted"``, ``"memory_limit"`` or
        ``"infeasible"``.
    fit_time_ : float
        Seconds spent in ``fit``.
    n_cache_entries_ : int
        Cache entries at the end of the search.
    cache_peak_entries_ : int
        Most cache entries held at once.
    cache_peak_bytes_ : int
        Most bytes the cache held at once (its allocations' capacities).
    n_wipes_ : int
        Number of wipes of a bounded cache (0 without a limit).
    cache_created_entries_ : int
        Cache entries created, counting those created again after a wipe.
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        Input column names (only with a pandas DataFrame whose column names are strings).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from odtree import OptimalTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = OptimalTreeClassifier(max_depth=2).fit(X, y)
    >>> model.optimal_, model.objective_
    (True, 6.0)
    >>> model.predict(X[:3]).tolist()
    [0, 0, 0]
    """

    _parameter_constraints: dict = {
        "max_depth": [Interval(Integral, 0, 64, closed="both")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "upper_bound": [Interval(Real, None, None, closed="neither"), None],
        "max_leaf_nodes": [Interval(Integral, 1, None, closed="left"), None],
        "ccp_alpha": [Interval(Real, 0, None, closed="left")],
        "lexicographic": ["boolean"],
        "search": [StrOptions({"murtree", "dl85"})],
        "cache": [StrOptions({"trie", "hash", "dataset"}), None],
        "branching": [StrOptions({"in_order", "gini", "gain_asc", "gain_desc"}), None],
        "depth2_solver": ["boolean", None],
        "incremental_counting": ["boolean", None],
        "similarity_bound": ["boolean", None],
        "child_order": [StrOptions({"larger_error_first", "left_first"}), None],
        "memory_limit": [Interval(Integral, 1, None, closed="left"), str, None],
        "max_cache_entries": [Interval(Integral, 1, None, closed="left"), None],
        "wipe_strategy": [StrOptions({"reuses", "descendants", "all"})],
        "wipe_factor": [Interval(Real, 0, 1, closed="right")],
        "thresholds": [StrOptions({"quantile", "midpoints", "tree"})],
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, max_depth=3, min_samples_leaf=1, time_limit=None, upper_bound=None, *,
                 max_leaf_nodes=None, ccp_alpha=0.0, lexicographic=False, search="murtree",
                 cache=None,
                 branching=None, depth2_solver=None, incremental_counting=None,
                 similarity_bound=None, child_order=None, memory_limit=None,
                 max_cache_entries=None, wipe_strategy="reuses", wipe_factor=0.5,
                 thresholds="quantile", n_thresholds=10):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.time_limit = time_limit
        self.upper_bound = upper_bound
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

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Find the optimal tree for the training data.

        Parameters
        ----------
        X : array-like, sparse matrix or pandas DataFrame of shape (n_samples, n_features)
            Training data. Arrays must be numeric; a DataFrame may also hold categorical
            columns (category, object, string or bool).
        y : array-like of shape (n_samples,)
            Class labels of any type (ints, strings, ...).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights. Rows of weight zero are ignored entirely.

        Returns
        -------
        self : OptimalTreeClassifier
            The fitted estimator.

        Examples
        --------
        >>> import numpy as np
        >>> X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
        >>> OptimalTreeClassifier(max_depth=2).fit(X, ["a", "b", "a", "b"]).objective_
        0.0
        """
        start = time.perf_counter()
        memory_limit = None if self.memory_limit is None else parse_bytes(self.memory_limit)
        _check_no_missing_labels(y)
        X, y = self._validate_training_data(X, y)
        if y.dtype.kind not in "biuUS":  # ints, bools and strings are always class labels
            check_classification_targets(y)
        weight = _check_sample_weight(sample_weight, y, dtype=np.float64,
                                      ensure_non_negative=True)
        if not np.any(weight > 0):
            raise ValueError("sample_weight is zero everywhere: at least one row must count")
        with np.errstate(over="ignore"):
            total_weight = weight.sum()
        if not np.isfinite(total_weight):
            raise ValueError("sample_weight sums to infinity: rescale the weights")
        self.classes_, y_encoded = np.unique(y, return_inverse=True)
        kept = weight > 0
        self.binarizer_ = Binarizer(strategy=self.thresholds, n_thresholds=self.n_thresholds)
        binary_X = np.ascontiguousarray(
            self.binarizer_._fit_kept(X, y, weight, validated=True), dtype=np.uint8)
        self.binary_features_ = list(self.binarizer_.features_)
        self.binary_feature_names_ = np.array([f.name for f in self.binary_features_],
                                              dtype=object)
        from . import _core  # the compiled search; imported here so the rest works without it

        solver = _core.Solver(binary_X, y_encoded[kept].astype(np.uint32), len(self.classes_))
        max_nodes = None if self.max_leaf_nodes is None else min(self.max_leaf_nodes - 1, 2**32 - 1)
        result = solver.solve(
            max_depth=self.max_depth,
            # beyond the number of rows, every value means "no split"
            min_samples_leaf=min(self.min_samples_leaf, len(y) + 1),
            upper_bound=np.inf if self.upper_bound is None else float(self.upper_bound),
            search=self.search,
            max_nodes=max_nodes,
            leaf_penalty=float(self.ccp_alpha) * float(total_weight),
            lexicographic=bool(self.lexicographic),
            cache=self.cache,
            branching=self.branching,
            depth2=self.depth2_solver,
            incremental=self.incremental_counting,
            similarity_bound=self.similarity_bound,
            child_order=self.child_order,
            memory_limit=memory_limit,
            max_cache_entries=self.max_cache_entries,
            wipe_strategy=self.wipe_strategy,
            wipe_factor=float(self.wipe_factor),
            sample_weight=weight[kept],
            time_limit=self.time_limit,
        )
        self._set_result(result)
        total = self.tree_.value[0, 0, :]
        self.class_ranking_ = np.lexsort((np.arange(len(total)), -total))
        self.fit_time_ = time.perf_counter() - start
        return self

    def _validate_training_data(self, X, y):
        """Check X and y with scikit-learn's rules; DataFrames go to the binarizer unchanged."""
        if _is_dataframe(X):
            if len(X) == 0:
                raise ValueError("Found a DataFrame with 0 rows: at least one row is required")
            validate_data(self, X, skip_check_array=True)
            return X, _check_target(y, len(X))
        X, y = validate_data(self, X, y, accept_sparse=("csr", "csc"), dtype=NUMERIC_DTYPES)
        return _densify(X), y

    def _set_result(self, result: dict) -> None:
        self.tree_ = Tree(
            children_left=result["children_left"],
            children_right=result["children_right"],
            feature=result["feature"],
            value=result["value"],
            n_node_samples=result["n_node_samples"],
            weighted_n_node_samples=result["weighted_n_node_samples"],
        )
        self.objective_ = float(result["objective"])
        self.lower_bound_ = float(result["lower_bound"])
        self.status_ = str(result["status"])
        self.optimal_ = self.status_ == "optimal"
        self.n_cache_entries_ = int(result["cache_entries"])
        self.cache_peak_entries_ = int(result["cache_peak_entries"])
        self.cache_peak_bytes_ = int(result["cache_peak_bytes"])
        self.n_wipes_ = int(result["n_wipes"])
        self.cache_created_entries_ = int(result["cache_created_entries"])
        if self.status_ == "infeasible":
            warnings.warn(f"no tree has an objective below upper_bound={self.upper_bound}; "
                          "the model is the best single leaf", InfeasibleWarning, stacklevel=4)
        elif self.status_ == "interrupted":
            now = time.monotonic()
            if now - _last_interrupt[0] < INTERRUPT_WINDOW:
                _last_interrupt[0] = -np.inf
                raise KeyboardInterrupt("second interrupt: stopping")
            _last_interrupt[0] = now
            warnings.warn("the search was interrupted: the tree is the best found so far and may "
                          "not be optimal", NotOptimalWarning, stacklevel=4)
        elif self.status_ == "memory_limit":
            warnings.warn("the memory limit is too small for the entries the search cannot "
                          "spare: the tree is the best found so far and may not be optimal",
                          NotOptimalWarning, stacklevel=4)
        elif self.status_ == "time_limit":
            warnings.warn(f"time limit of {self.time_limit} s reached: the tree is the best found "
                          "so far and may not be optimal", NotOptimalWarning, stacklevel=4)

    def _binarize(self, X) -> np.ndarray:
        check_is_fitted(self)
        if not _is_dataframe(X):
            X = _densify(validate_data(self, X, reset=False, accept_sparse=("csr", "csc"),
                                       dtype=NUMERIC_DTYPES))
        else:
            validate_data(self, X, reset=False, skip_check_array=True)
        return self.binarizer_.transform(X)

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
        >>> X = np.array([[0], [1], [1], [0]])
        >>> OptimalTreeClassifier(max_depth=1).fit(X, [0, 1, 1, 0]).apply(X).tolist()
        [1, 2, 2, 1]
        """
        binary_X = self._binarize(X)
        return self.tree_.apply(binary_X)

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
        """Predicted class of each row: its leaf's majority class (by weight).

        Ties go to the class with the larger total training weight, as in the search.

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
        >>> X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
        >>> model = OptimalTreeClassifier(max_depth=2).fit(X, ["a", "b", "a", "b"])
        >>> model.predict(X).tolist()
        ['a', 'b', 'a', 'b']
        """
        leaves = self.apply(X)
        return self.classes_[self._leaf_classes()[leaves]]

    def _leaf_classes(self) -> np.ndarray:
        """Class index predicted at every node: the heaviest class, ties broken by
        ``class_ranking_`` (the search's own rule)."""
        ranking = self.class_ranking_
        return ranking[np.argmax(self.tree_.value[:, 0, ranking], axis=1)]

    def get_depth(self) -> int:
        """Depth of the fitted tree (0 for a single leaf)."""
        check_is_fitted(self)
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves of the fitted tree."""
        check_is_fitted(self)
        return self.tree_.n_leaves

    def to_json(self) -> str:
        """The fitted model as JSON text; :func:`odtree.from_json` reads it back."""
        from ._serialize import to_json

        return to_json(self)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


def _check_target(y, n_rows: int) -> np.ndarray:
    """y as a 1-D array of length n_rows, without missing values."""
    y = column_or_1d(y, warn=True)
    check_consistent_length(np.empty(n_rows), y)
    if y.dtype.kind == "f":
        assert_all_finite(y, input_name="y")
    return y


def _check_no_missing_labels(y) -> None:
    """Raise a ValueError naming the problem when labels hold None, NaN or pandas' NA."""
    if y is None:
        return  # validation then says that y is required
    labels = np.asarray(y)
    if labels.dtype.kind == "f":
        missing = bool(np.isnan(labels).any())
    elif labels.dtype == object:
        missing = any(_is_missing(v) for v in labels.ravel())
    else:
        missing = False
    if missing:
        raise ValueError("Input y contains missing values (None, NaN or NA): every row needs a "
                         "label")


def _is_missing(value) -> bool:
    try:
        return value is None or bool(value != value)
    except TypeError:  # pandas.NA cannot be turned into a bool
        return True


def _densify(X):
    return X.toarray() if hasattr(X, "toarray") else X
