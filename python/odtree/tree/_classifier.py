"""The scikit-learn estimators around the exact search."""

from __future__ import annotations

import time

import numpy as np
from sklearn.base import ClassifierMixin, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.class_weight import compute_sample_weight

from .._search.vocabulary import DEFAULTS
from .._utils.inputs import encode_labels
from ._base import SEARCH_CONSTRAINTS, LeafClassifier, OptimalTreeBase
from ._constraints import CONSTRAINT_PARAMETERS
from ._validation import validate_classification


class OptimalTreeClassifier(ClassifierMixin, LeafClassifier, OptimalTreeBase):
    """A provably optimal decision tree classifier of bounded depth.

    The search minimises the weighted number of misclassified training rows (or the cost
    that ``cost_matrix`` or a callback gives each leaf) over every tree of depth at most
    ``max_depth`` whose leaves hold at least ``min_samples_leaf`` rows. Numeric
    and categorical columns are first turned into binary features by a :class:`Binarizer`;
    columns that hold only 0 and 1 are used as they are.

    Parameters
    ----------
    max_depth : int or None, default=3
        Maximum number of tests on a root-to-leaf path; 0 gives a single leaf. ``None`` (no
        limit, the GOSDT setting) needs ``ccp_alpha > 0`` or ``max_leaf_nodes``: each leaf's
        penalty then bounds the depth worth searching, as the search finds cheaper trees.
    min_samples_leaf : int or float, default=1
        Minimum number of training rows (of non-zero weight) in each leaf. A float in (0, 1)
        is a fraction of the rows given to ``fit``: ``ceil(min_samples_leaf * n_samples)``
        rows, as in scikit-learn.
    min_samples_split : int or float, default=2
        A node splits only if it holds at least this many training rows (of non-zero
        weight); a float in (0, 1] is ``max(2, ceil(min_samples_split * n_samples))``, as in
        scikit-learn. The tree is optimal among the trees that respect it.
    min_weight_fraction_leaf : float, default=0.0
        Each leaf holds at least this fraction of the total training weight
        (``sample_weight`` times ``class_weight``), as in scikit-learn; in [0, 0.5].
    monotonic_cst : array-like of int of shape (n_features,) or None, default=None
        A constraint per input column: ``1`` monotonic increase, ``-1`` decrease, ``0``
        none, as scikit-learn 1.4+ defines it (two classes only, misclassification only,
        numeric or boolean columns without missing values). With a constraint of 1 on a column, at
        every split on it each leaf on the low side predicts a class no higher (in
        ``classes_`` order) than each leaf on the high side, so a larger value never lowers
        the prediction. The constraint holds on the predicted classes; the tree is optimal
        among the trees that satisfy it.
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
        The exact search over every threshold wipes its whole store of solved row sets
        instead, and stops only when its sorted columns and row lists alone do not fit.
        ``None``: no limit.
    max_cache_entries : int or None, default=None
        Most cache entries (trie nodes, or hash-table keys) the search may hold, the unit of
        the memory-bounded DL8.5 paper. Works like ``memory_limit``; both may be set.
    wipe_strategy : {"reuses", "descendants", "all"}, default="reuses"
        Which entries a wipe frees first, among those the search can no longer reach or will
        reach last: those least reused, those with the fewest descendants (cheapest to
        recompute), or every entry the search can spare.
    wipe_factor : float, default=0.1
        The share of the entries a wipe frees: of ``max_cache_entries``, or of the entries
        held when only ``memory_limit`` is set.
    thresholds : {"auto", "exact", "quantile", "midpoints", "tree"}, default="auto"
        How numeric columns are searched. ``"exact"`` searches every threshold of the
        numeric columns as they are (each column one feature whose tests are the midpoints
        between its distinct training values, as ConTree does), starting from the tree on
        the quantile grid (and CART's tree at depths 3 and more): ``optimal_`` then means
        optimal over every threshold, and under a time limit the tree is the best of the
        grid's, CART's and the exact search's. It takes ``max_depth``, ``max_leaf_nodes``,
        ``min_samples_leaf``, ``min_samples_split``, ``min_weight_fraction_leaf``,
        ``ccp_alpha``, ``sample_weight``, ``class_weight``, ``cost_matrix`` and
        ``criterion="f1"`` or ``"balanced_accuracy"`` (classifier; not ``pareto_front``),
        every ``criterion`` of the regressor (one quantile at a time), ``missing="split"``
        and categorical columns; other settings (``max_depth=None`` without a leaf budget,
        ``monotonic_cst``, ``lexicographic``, other objectives) raise ValueError.
        ``"auto"`` is ``"exact"`` where the exact search takes every setting (for the
        regressor: squared error), no ``max_leaf_nodes`` below ``2**max_depth`` binds (the
        exact search is far slower under a binding leaf budget), and some numeric column has
        more distinct values than the grid holds; it is ``"quantile"`` otherwise;
        ``optimal_over_`` says which ran. The others binarize the numeric columns (see
        :class:`Binarizer`) and prove optimality over the binary features: ``"quantile"``
        (``n_thresholds`` per column), ``"midpoints"`` (every midpoint, as 0/1 columns) or
        ``"tree"`` (a greedy tree's thresholds). At the default depth 3, ``"exact"`` proved
        the optimum on each of the nine continuous benchmark sets within 14 s (breast cancer
        2.3 s), with up to 47 % fewer training errors than the quantile grid (see the
        guide). Set a ``time_limit`` for deeper trees: the fit then returns the best tree
        found, never worse than the grid's.
    n_thresholds : int, default=10
        Thresholds per numeric column for ``thresholds="quantile"``.
    missing : {"error", "split"}, default="error"
        What missing values (NaN, None or NA) in ``X`` do. ``"error"``: ``fit`` and
        ``predict`` raise ValueError, so that a data bug does not pass silently.
        ``"split"``: a column with missing values gets a feature ``x is missing``, and each
        of its thresholds two features, ``x <= t`` and ``x <= t or missing``, so the tree
        learns at each split where the rows with a missing value go, and is optimal over
        these features (see :class:`Binarizer` and the guide's "Missing values").
    criterion : {"misclassification", "f1", "balanced_accuracy"}, default="misclassification"
        What the tree optimises. ``"f1"`` and ``"balanced_accuracy"`` (two classes only, the
        positive class being ``classes_[1]``) maximise the training F1-score or balanced
        accuracy, exactly, by searches of misclassification with a false positive and a
        false negative weighted apart: balanced accuracy is one such search (each class
        weighted by the inverse of its weight); the F1-score takes a few, by Dinkelbach's
        method, each asking for a tree better than the last (see the guide). Every setting
        of a misclassification search applies (``search`` switches, ``memory_limit``,
        ``n_jobs``) but ``ccp_alpha``, ``upper_bound``, ``lexicographic`` and a cost matrix
        or callback; they need an integer ``max_depth``. Of trees with the same metric, the
        first found is kept. ``callback`` hears of each better tree when the search that
        found it ends.
    pareto_front : bool, default=False
        With ``criterion="f1"`` or ``"balanced_accuracy"``: find the root's whole Pareto
        front of (false positives, false negatives) too, in ``pareto_front_``, by keeping
        that front at every subproblem (MurTree §4.8.6). Slower; the ``search`` switches
        other than ``depth2_solver`` do not apply, nor do ``memory_limit`` and
        ``max_cache_entries``; the best point's tree is the one of fewest errors, then
        fewest false positives, among those of the best metric.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, as in scikit-learn: ``{label: weight}`` (classes left out
        weigh 1), or ``"balanced"``, which weighs each class by ``n_samples / (n_classes *
        n_rows_of_the_class)``. ``fit`` multiplies ``sample_weight`` by them, as
        ``sklearn.utils.class_weight.compute_sample_weight(class_weight, y)`` gives them.
    cost_matrix : array-like of shape (n_classes, n_classes) or None, default=None
        ``cost_matrix[i][j]`` is the cost of predicting class j for a row of class i, in the
        order of ``classes_`` (scikit-learn's confusion-matrix orientation). Each leaf then
        predicts its cheapest class, and ``objective_`` is the total weighted cost.
    fast_error_function : callable or None, default=None
        ``fast_error_function(class_weights) -> (error, class_index)``: the cost of a leaf
        from the weight of each class among its rows (ordered as ``classes_``), and the class
        it predicts. Must be deterministic, finite and non-negative. Called once per distinct
        vector of class weights.
    error_function : callable or None, default=None
        ``error_function(rows) -> (error, class_index)``: the cost of a leaf from its rows,
        given as an int64 array of row positions in the ``X`` passed to ``fit``. Slower than
        ``fast_error_function``: the search cannot use its depth-2 solver. Called once per
        distinct set of rows.
    anytime : bool or None, default=None
        Under a time limit, before the proof, search again and again among the splits a
        heuristic ranks best at each node (2, 4, then 8 of them) above exact subtrees of depth
        2, then grow a LicketySPLIT-style tree, for better trees early (at most 15 % of the
        time); later, refute targets between the proven bound and the best tree, lowest
        first, for a proven ``lower_bound_`` early (at most 25 %). ``None`` keeps the
        preset's choice (on for ``"murtree"``, off for ``"dl85"``); the tree is optimal either
        way when the search ends.
    n_jobs : int or None, default=None
        Threads of the search: the root's splits are shared out among them, and the tree is
        the one a single thread finds (with real-valued weights, up to subtrees whose costs
        differ by rounding noise alone). ``None`` means 1 unless a
        :func:`joblib.parallel_config` context says otherwise; ``-1`` means all cores. Inside
        :class:`~sklearn.model_selection.GridSearchCV` or :class:`OptimalTreeCV` with their
        own ``n_jobs``, leave it at ``None``: the folds already fill the cores. Under a
        memory limit each thread gets a share of it. The search over every threshold
        (``thresholds="exact"``) shares out the root's columns, and ``pareto_front=True``
        the root's splits, with the same tree too. A Python objective, the anytime rounds and
        the quantile search run on one thread (the guide says why). Speed-ups are in
        ``benchmarks/RESULTS.md`` (``benchmarks/threads.py``).
    verbose : int, default=0
        With 1 or more, print the search's progress as it goes: each better tree's objective,
        the proven bound and the gap between them ("no bound yet" before one is proven),
        time-stamped, at most four lines a second, and where it ended. With 0, a search with
        no ``time_limit`` that runs past 10 s says so once on stderr.
    callback : callable or None, default=None
        ``callback(event)`` for the same events, each an :class:`odtree.Progress` (``seconds``,
        ``objective``, ``bound``, ``gap``, ``final``). Returning true stops the search, which
        returns the best tree so far with ``status_ = "stopped"``; what it raises stops the
        search and is raised by ``fit``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        Number of classes.
    feature_importances_ : ndarray of shape (n_features_in_,)
        The Gini importance of each input column, as scikit-learn computes it (see
        :attr:`FittedTree.feature_importances_`).
    class_ranking_ : ndarray of shape (n_classes,)
        Class indices in tie-break order: a leaf whose classes weigh the same predicts the one
        ranked first. ``fit`` ranks the classes by total training weight, then by index.
    node_classes_ : ndarray of int64, shape (node_count,)
        Index in ``classes_`` of the class each node of ``tree_`` predicts were it a leaf, as
        the search's objective chose it; ``predict`` reads it.
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
        ``ccp_alpha * total_weight`` per leaf. With ``criterion="f1"`` or
        ``"balanced_accuracy"``, the metric's training value (higher is better).
    lower_bound_ : float
        A proven lower bound on the optimal objective (equal to ``objective_`` when optimal);
        for ``"f1"`` and ``"balanced_accuracy"``, on the loss ``1 - objective_``.
    pareto_front_ : ndarray of shape (n_points, 2)
        With ``criterion="f1"`` or ``"balanced_accuracy"`` and ``pareto_front=True`` only:
        the non-dominated (false
        positives, false negatives) pairs, in training weight, of all trees within the
        limits, by increasing false positives. Each is the best tree for some trade-off.
    anytime_log_ : ndarray of shape (n_events, 3)
        How the search went, as (seconds, objective, proven lower bound): the first tree
        (the incumbent), each better tree found at the root, and where it ended. Bounds along
        the way are 0; :func:`odtree.plot_anytime` draws it.
    optimal_ : bool
        Whether the tree is proven optimal (over what ``optimal_over_`` says).
    optimal_over_ : str
        What the search covered: ``"every threshold of the input columns"`` (with
        ``thresholds="exact"``, and when the binary features hold every midpoint of each
        numeric column, as for 0/1 and categorical data) or ``"the binarized features (a
        grid of thresholds)"``.
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
    >>> model.optimal_, model.objective_, model.optimal_over_
    (True, 6.0, 'every threshold of the input columns')
    >>> model.predict(X[:3]).tolist()
    [0, 0, 0]
    """

    _parameter_constraints: dict = {
        **SEARCH_CONSTRAINTS,
        **CONSTRAINT_PARAMETERS,
        "criterion": [StrOptions({"misclassification", "f1", "balanced_accuracy"})],
        "pareto_front": ["boolean"],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "cost_matrix": ["array-like", None],
        "fast_error_function": [callable, None],
        "error_function": [callable, None],
    }

    def __init__(self, max_depth=3, min_samples_leaf=1, time_limit=None, upper_bound=None, *,
                 max_leaf_nodes=None, ccp_alpha=0.0, lexicographic=False, search=DEFAULTS["search"],
                 cache=None,
                 branching=None, depth2_solver=None, incremental_counting=None,
                 similarity_bound=None, child_order=None, memory_limit=None,
                 max_cache_entries=None, wipe_strategy=DEFAULTS["wipe_strategy"],
                 wipe_factor=DEFAULTS["wipe_factor"],
                 thresholds="auto", n_thresholds=10, missing="error",
                 criterion="misclassification", pareto_front=False,
                 class_weight=None, cost_matrix=None, fast_error_function=None,
                 error_function=None,
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
        self.criterion = criterion
        self.pareto_front = pareto_front
        self.class_weight = class_weight
        self.cost_matrix = cost_matrix
        self.fast_error_function = fast_error_function
        self.error_function = error_function

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
            Non-negative row weights. Rows of weight zero are ignored entirely. They are
            multiplied by ``class_weight``'s.

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
        X, y = validate_classification(self, X, y)
        weight = self._training_weight(sample_weight, y)
        self.classes_, y_encoded = encode_labels(y)
        objective = self._objective(len(self.classes_), np.flatnonzero(weight > 0))
        self._check_monotonic(objective)
        binary_X = self._binarize_training(X, y, weight, objective["objective"])
        solution = self._fit_tree(binary_X, y_encoded[weight > 0].astype(np.uint32),
                                  len(self.classes_), weight, **objective)
        if self.criterion != "misclassification":
            self.objective_ = 1.0 - solution.objective  # the metric, from its loss
            if self.pareto_front:
                self.pareto_front_ = solution.pareto_front
        total = self.tree_.value[0, 0, :]
        self.class_ranking_ = np.lexsort((np.arange(len(total)), -total))
        self.node_classes_ = solution.node_labels
        self.fit_time_ = time.perf_counter() - start
        return self

    def _training_weight(self, sample_weight, y) -> np.ndarray:
        """The weight of each training row: ``sample_weight`` (checked) times the weight
        ``class_weight`` gives the row's class."""
        weight = self._checked_weight(sample_weight, len(y))
        if self.class_weight is None:
            return weight
        return self._checked_weight(weight * compute_sample_weight(self.class_weight, y), len(y))

    def _check_monotonic(self, objective: dict) -> None:
        """A ValueError when ``monotonic_cst`` constrains a fit it cannot apply to."""
        if self.monotonic_cst is None or not np.any(np.asarray(self.monotonic_cst)):
            return
        if len(self.classes_) > 2:
            raise ValueError("monotonic constraints are not supported with multiclass "
                             f"classification ({len(self.classes_)} classes), as in "
                             "scikit-learn")
        if objective["objective"] != "misclassification":
            raise ValueError(f"monotonic_cst needs the misclassification objective, not "
                             f"{objective['objective']!r}")

    def _objective(self, n_classes: int, kept: np.ndarray) -> dict:
        """The objective arguments of the search, checked."""
        given = [name for name in ("cost_matrix", "fast_error_function", "error_function")
                 if getattr(self, name) is not None]
        if self.criterion != "misclassification":
            if given:
                raise ValueError(f"criterion={self.criterion!r} takes no {given[0]}")
            if n_classes != 2:
                raise ValueError(f"criterion={self.criterion!r} needs exactly two classes, "
                                 f"got {n_classes}")
            if self.max_depth is None:
                raise ValueError(f"criterion={self.criterion!r} needs an integer max_depth")
            if self.ccp_alpha != 0:
                raise ValueError(f"criterion={self.criterion!r} takes no ccp_alpha")
            if self.upper_bound is not None:
                raise ValueError(f"criterion={self.criterion!r} takes no upper bound")
            if not self.pareto_front:
                return {"objective": self.criterion}
            if self.memory_limit is not None or self.max_cache_entries is not None:
                raise ValueError("pareto_front=True takes no memory_limit or "
                                 "max_cache_entries: its store of Pareto fronts cannot be "
                                 "wiped and rebuilt as the cache of a sum can")
            return {"objective": f"{self.criterion}_front"}
        if len(given) > 1:
            raise ValueError(f"give at most one of cost_matrix, fast_error_function and "
                             f"error_function, not {' and '.join(given)}")
        if self.cost_matrix is not None:
            costs = np.asarray(self.cost_matrix, dtype=np.float64)
            if costs.shape != (n_classes, n_classes):
                raise ValueError(f"cost_matrix has shape {costs.shape}; the {n_classes} "
                                 f"classes need ({n_classes}, {n_classes})")
            if not np.all(np.isfinite(costs)) or np.any(costs < 0):
                raise ValueError("cost_matrix entries must be finite and non-negative")
            return {"objective": "cost_matrix", "cost_matrix": costs}
        if self.fast_error_function is not None:
            return {"objective": "fast_error_function", "function": self.fast_error_function}
        if self.error_function is not None:
            user = self.error_function

            def on_input_rows(rows):
                return user(kept[rows])

            return {"objective": "error_function", "function": on_input_rows, "labelled": True}
        return {"objective": "misclassification"}

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """The exact cost-complexity path of optimal trees of these settings.

        For each ``k`` up to ``2**max_depth`` leaves (or ``max_leaf_nodes``), the least error
        rate ``e(k)`` of a tree of at most ``k`` leaves is found on one kept solver, until it
        reaches the least error of any tree; the path is the lower convex hull of the points
        ``(k, e(k))``. For every ``ccp_alpha`` strictly between ``ccp_alphas[i]`` and
        ``ccp_alphas[i + 1]``, this estimator with that ``ccp_alpha`` fits a tree of error rate
        ``impurities[i]`` and ``n_leaves[i]`` leaves (``ccp_alpha`` is a cost per leaf as a
        share of the total weight, as in scikit-learn). The estimator's own ``ccp_alpha`` and
        ``upper_bound`` are ignored; it is not fitted. Leaf budgets are searched on binary
        features: with ``thresholds="auto"`` the path is that of ``thresholds="quantile"``
        (``"exact"`` gives the path over every threshold, far more slowly). ``time_limit``
        bounds the whole call, all its searches together; budgets it leaves unsearched make
        the path inexact, and a :class:`NotOptimalWarning` says so.

        Parameters
        ----------
        X : array-like, sparse matrix or pandas DataFrame of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights.

        Returns
        -------
        path : sklearn.utils.Bunch
            ``ccp_alphas`` (increasing, from 0), ``impurities`` (the optimal error rate
            for alphas from each breakpoint to the next; the objective's cost divided by the
            total weight) and ``n_leaves``.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> X, y = load_iris(return_X_y=True)
        >>> path = OptimalTreeClassifier(max_depth=2).cost_complexity_pruning_path(X, y)
        >>> path.n_leaves.tolist(), path.impurities.round(3).tolist()
        ([4, 3, 2, 1], [0.053, 0.08, 0.333, 0.667])
        """
        from ._pruning_path import cost_complexity_path

        return cost_complexity_path(self, X, y, sample_weight)
