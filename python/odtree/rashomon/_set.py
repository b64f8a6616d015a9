"""The Rashomon set: every tree nearly as good as the optimal one (:class:`RashomonSet`, and
:class:`RashomonSetRegressor` for squared error)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _num_samples, check_is_fitted

from .._search.fitting import one_fit_at_a_time
from .._search.memory import parse_bytes
from .._search.solver import threads
from .._utils.deadline import Deadline
from .._utils.inputs import as_vector, encode_labels
from .._utils.params import ParamsCheckedOnce
from .._utils.registry import register
from .._utils.warn import warn
from ..exceptions import NotOptimalWarning
from ..preprocessing._binarizer import Binarizer
from ..tree._arrays import Tree
from ..tree._classifier import OptimalTreeClassifier
from ..tree._fitted import fitted_classifier, set_input
from ..tree._regressor import OptimalTreeRegressor
from ._listed import Listed

__all__ = ["RashomonSet", "RashomonSetRegressor"]


class _RashomonBase(ParamsCheckedOnce, BaseEstimator):
    """What the classification and regression sets share: the search, the listed trees,
    the importances, JSON and the plot. A subclass says how targets are read
    (:meth:`_targets`), how many statistics a node has (:meth:`_stats_len`), what a node
    predicts (:meth:`_node_values`) and how a listed tree becomes an estimator
    (:meth:`_estimator`)."""

    #: Written to JSON by :mod:`odtree.rashomon._json` (through the two methods below).
    _own_json = True

    def _to_json_text(self, indent=None) -> str:
        """This set as the JSON text of :func:`odtree.to_json`."""
        from ._json import set_to_json

        return set_to_json(self, indent)

    @classmethod
    def _from_json_dict(cls, data: dict):
        """The set :func:`odtree.from_json` reads from ``data``."""
        from ._json import set_from_dict

        return set_from_dict(data, cls)

    _parameter_constraints: dict = {
        "max_depth": [Interval(Integral, 0, None, closed="left")],
        "ccp_alpha": [Interval(Real, 0, None, closed="left")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "max_trees": [Interval(Integral, 1, None, closed="left"), None],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "thresholds": [StrOptions({"quantile", "exact"})],
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
        "memory_limit": [Interval(Integral, 1, None, closed="left"), str, None],
        "importance": ["boolean"],
        "n_jobs": [Integral, None],
    }

    def __init__(self, max_depth=3, ccp_alpha=0.01, epsilon=0.05, *, max_trees=10000,
                 time_limit=None, thresholds="quantile", n_thresholds=10, memory_limit=None,
                 importance=False, n_jobs=None):
        self.max_depth = max_depth
        self.ccp_alpha = ccp_alpha
        self.epsilon = epsilon
        self.max_trees = max_trees
        self.time_limit = time_limit
        self.thresholds = thresholds
        self.n_thresholds = n_thresholds
        self.memory_limit = memory_limit
        self.importance = importance
        self.n_jobs = n_jobs

    @one_fit_at_a_time
    def fit(self, X, y, sample_weight=None):
        """Finds the set.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data: numeric, categorical or 0/1 columns.
        y : array-like of shape (n_samples,)
            Class labels, or the regressor's targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights; rows of weight 0 are left out.

        Returns
        -------
        self
        """
        from .._search.learners import rashomon_set

        start = time.perf_counter()
        deadline = Deadline(self.time_limit)
        self._validate_params()
        binarizer, binary, labels, n_labels, weight, targets = self._rows(X, y, sample_weight)
        total = float(weight.sum())
        search = dict(max_depth=self.max_depth, leaf_penalty=self.ccp_alpha * total,
                      max_bytes=None if self.memory_limit is None else
                      parse_bytes(self.memory_limit), n_jobs=threads(self.n_jobs),
                      columns=[feature.column for feature in binarizer.features_]
                      if self.thresholds == "exact" else None,
                      **self._search_settings())

        def run(epsilon, max_trees, allowed=None, time_limit=None, n_jobs=None):
            settings = search if n_jobs is None else {**search, "n_jobs": n_jobs}
            return rashomon_set(binary, labels, n_labels, weight, **settings,
                                epsilon=epsilon, max_trees=max_trees, allowed=allowed,
                                time_limit=time_limit, targets=targets)

        found = run(self.epsilon, self.max_trees, time_limit=deadline.left())
        self.binarizer_ = binarizer
        self.binary_features_ = list(binarizer.features_)
        self.n_features_in_ = binarizer.n_features_in_
        if hasattr(binarizer, "feature_names_in_"):
            self.feature_names_in_ = binarizer.feature_names_in_
        elif hasattr(self, "feature_names_in_"):  # a refit on columns without names
            del self.feature_names_in_
        self.n_trees_ = int(found["count"])
        self.objectives_ = np.asarray(found["costs"]) / total
        self.optimum_ = found["optimum"] / total
        self.bound_ = found["bound"] / total
        self.status_ = found["stopped"] or "optimal"
        self.n_wipes_ = int(found["wipes"])
        # each listed tree as its codes and node statistics; built as an estimator when
        # asked for (``trees_``, ``set[i]``)
        self._listed = Listed(found["sizes"], found["codes"], found["node_weights"],
                              found["node_rows"], self._stats_len())
        self._built, self._names = {}, None
        if self.importance and self.status_ == "optimal":
            self._importances(run, found, binarizer, total, deadline)
        if self.status_ != "optimal":
            warn(f"{self.status_.replace('_', ' ')}: the set holds the {self.n_trees_} trees "
                 f"of objective at most {self.bound_:.6g}, not all those up to "
                 f"{(1 + self.epsilon) * self.optimum_:.6g}", NotOptimalWarning)
        self.fit_time_ = time.perf_counter() - start
        return self

    def _search_settings(self) -> dict:
        """What the subclass adds to the search's settings."""
        return {}

    def _rows(self, X, y, sample_weight) -> tuple:
        """The fitted binarizer, and the rows of positive weight: their 0/1 matrix, labels,
        number of labels, weights and targets (``None`` for classes)."""
        y = as_vector(y)
        labels, n_labels, targets = self._targets(y)
        strategy = "midpoints" if self.thresholds == "exact" else "quantile"
        binarizer = Binarizer(strategy=strategy, n_thresholds=self.n_thresholds)
        # X read and checked once: the binary matrix of the rows of positive weight
        binary = np.ascontiguousarray(binarizer._fit_kept(X, y, sample_weight), dtype=np.uint8)
        if binarizer.stopped_ == "interrupted":
            raise KeyboardInterrupt
        n_rows = _num_samples(X)
        if len(y) != n_rows:
            raise ValueError(f"y has {len(y)} rows; X has {n_rows}")
        if sample_weight is None:  # every row kept
            targets = None if targets is None else np.ascontiguousarray(targets, np.float64)
            return binarizer, binary, labels.astype(np.uint32), n_labels, np.ones(n_rows), targets
        weight = np.asarray(sample_weight, dtype=np.float64)
        if weight.shape != (len(y),) or not np.all(np.isfinite(weight)) or np.any(weight < 0):
            raise ValueError("sample_weight must hold one finite, non-negative weight per row")
        kept = np.flatnonzero(weight > 0)
        if len(kept) == 0:
            raise ValueError("every sample weight is 0: there is nothing to fit")
        if targets is not None:
            targets = np.ascontiguousarray(targets[kept], dtype=np.float64)
        return (binarizer, binary, labels[kept].astype(np.uint32), n_labels, weight[kept],
                targets)

    def _importances(self, run, found, binarizer, total, deadline) -> None:
        """``usage_`` and ``removal_loss_``: per input column, the set's trees without it are
        those of the search that may not test it, within the same bound.

        The listed trees answer most of it without a search. They are the cheapest trees in
        cost order, so when a listed tree does not test a column, the cheapest tree without
        the column is listed too, and the column's removal loss is read off; and when every
        tree is listed, the usage is counted from them. The rest takes searches restricted to
        the other columns, the columns shared among ``n_jobs`` threads. Left unset, with a
        warning, when the time limit (or a Ctrl-C) stops one of those searches."""
        columns = np.array([feature.column for feature in binarizer.features_])
        costs = np.asarray(found["costs"])
        tests = self._listed.tests(columns, self.n_features_in_)
        every_listed = len(self._listed) == self.n_trees_
        usage = tests.sum(axis=0) / self.n_trees_
        loss = np.zeros(self.n_features_in_)
        bound = found["bound"]
        searched = []  # the columns a search answers, with the least listed cost without them
        for column in range(self.n_features_in_):
            if not np.any(columns == column):
                continue  # no feature of this column: no tree tests it
            without = ~tests[:, column]
            least = costs[without].min() if without.any() else None
            if least is not None and every_listed:
                loss[column] = (least - found["optimum"]) / total
            else:
                searched.append((column, least))
        n_threads = min(threads(self.n_jobs), len(searched))

        def answer(column, least):
            """The column's least cost without it, and the number of the set's trees
            without it (``None`` when the listing counted them); or why a search stopped."""
            allowed = np.flatnonzero(columns != column).tolist()
            inner = 1 if n_threads > 1 else None  # threads over columns, not within searches
            if least is None:
                alone = run(0.0, 1, allowed, deadline.left(), inner)
                if alone["stopped"] is not None:
                    return alone["stopped"]
                least = alone["optimum"]
            if every_listed:
                return least, None
            if least > bound * (1 + 1e-12):
                return least, 0
            # at least 0: ``least`` may exceed ``bound`` by a rounding error
            room = max(bound / least - 1.0, 0.0) if least > 0 else 0.0
            counted = run(room, 1, allowed, deadline.left(), inner)
            if counted["stopped"] is not None:
                return counted["stopped"]
            return least, int(counted["count"])

        if n_threads > 1:
            with ThreadPoolExecutor(n_threads) as pool:
                try:
                    answers = list(pool.map(lambda job: answer(*job), searched))
                except KeyboardInterrupt:  # each search stops at the same Ctrl-C
                    return self._importances_stopped("interrupted")
        else:
            answers = []
            for job in searched:  # none after one that stopped
                answers.append(answer(*job))
                if isinstance(answers[-1], str):
                    break
        for (column, _), got in zip(searched, answers, strict=False):
            if isinstance(got, str):
                return self._importances_stopped(got)
            least, count = got
            loss[column] = (least - found["optimum"]) / total
            if count is not None:
                usage[column] = 1.0 - count / self.n_trees_
        self.usage_, self.removal_loss_ = usage, loss

    @staticmethod
    def _importances_stopped(stopped: str) -> None:
        """Warns that a search for the importances stopped (``stopped`` says why)."""
        warn(f"{stopped.replace('_', ' ')}: usage_ and removal_loss_ are not set",
             NotOptimalWarning)

    def _tree(self, index: int):
        """Listed tree ``index`` as a fitted estimator."""
        if index not in self._built:
            codes, stats, rows = self._listed[index]
            if self._names is None:
                self._names = [f.name for f in self.binarizer_.features_]
            model = self._estimator(codes, stats, rows)
            model.objective_ = float(self.objectives_[index])
            self._built[index] = model
        return self._built[index]

    @property
    def trees_(self) -> list:
        """The listed trees as fitted estimators, in the order of ``objectives_``."""
        check_is_fitted(self)
        return [self._tree(i) for i in range(len(self._listed))]

    def __len__(self) -> int:
        check_is_fitted(self)
        return len(self._listed)

    def __getitem__(self, index):
        check_is_fitted(self)
        if isinstance(index, slice):
            return [self._tree(i) for i in range(len(self._listed))[index]]
        return self._tree(range(len(self._listed))[index])

    def __iter__(self):
        check_is_fitted(self)
        return (self._tree(i) for i in range(len(self._listed)))

    def predict_all(self, X, k=None) -> np.ndarray:
        """Each listed tree's predictions (the best ``k`` trees, or all listed), one row per
        tree: an array of shape (n_trees, n_samples)."""
        check_is_fitted(self)
        binary = self.binarizer_.transform(X)
        listed = self._listed[:k]
        if not listed:
            raise ValueError("the set lists no tree")
        out = None
        for i, (codes, stats, _) in enumerate(listed):
            feature, left, right = _arrays(codes)
            node = np.zeros(len(binary), dtype=np.int64)
            for _ in range(self.max_depth):
                at = np.flatnonzero(feature[node] >= 0)
                if not len(at):
                    break
                ones = binary[at, feature[node[at]]] != 0
                node[at] = np.where(ones, right[node[at]], left[node[at]])
            values = self._node_values(codes, stats)[node]
            if out is None:
                out = np.empty((len(listed), len(binary)), dtype=values.dtype)
            out[i] = values
        return out

    def plot(self, ax=None):
        """A summary: the listed trees' objectives against their rank, and each input column's
        usage across the set. Returns the matplotlib axes (two)."""
        import matplotlib.pyplot as plt

        check_is_fitted(self)
        if ax is None:
            _, ax = plt.subplots(1, 2, figsize=(10, 3.5))
        ax[0].plot(np.arange(1, len(self.objectives_) + 1), self.objectives_, ".")
        ax[0].axhline(self.bound_, color="grey", linestyle="--", linewidth=1)
        ax[0].set(xlabel="tree (best first)", ylabel="objective",
                  title=f"{self.n_trees_} trees within {1 + self.epsilon:g}× the optimum")
        usage = getattr(self, "usage_", None)
        if usage is not None:
            names = getattr(self, "feature_names_in_", None)
            if names is None:
                names = [f"x{j}" for j in range(self.n_features_in_)]
            order = np.argsort(-usage)[:20]
            ax[1].barh([str(names[j]) for j in order][::-1], usage[order][::-1])
            ax[1].set(xlabel="share of the set's trees using the column")
        return ax



class RashomonSet(ClassifierMixin, _RashomonBase):
    """Every tree whose objective is within ``(1 + epsilon)`` times the optimum.

    A tree's objective is its weighted misclassification share plus ``ccp_alpha`` per leaf,
    over trees of depth at most ``max_depth`` on the binarized features. Each leaf predicts
    its heaviest class (ties to the lowest), no split leaves a child without rows, and two
    trees differ when their splits differ. The set is counted exactly without building its
    trees (``n_trees_``); the cheapest ``max_trees`` are listed and built, best first.

    The search keeps, for each subproblem (a set of rows and a depth), its optimum and the
    sorted costs of all its subtrees within the budget its parent leaves it, with how many
    subtrees have each cost: a split's costs are sums of its children's, and a child is asked
    only for the costs its sibling's optimum leaves room for, so no tree outside the budget
    is counted or built (the sorted lists of SORTD, NeurIPS 2025).

    Parameters
    ----------
    max_depth : int, default=3
        Maximum number of tests on a root-to-leaf path.
    ccp_alpha : float, default=0.01
        The objective's cost per leaf, as a share of the total weight.
    epsilon : float, default=0.05
        How much worse than the optimum a tree may be: the set holds the trees of objective
        at most ``(1 + epsilon)`` times the optimal objective.
    max_trees : int or None, default=10000
        How many trees to list and build, cheapest first (``None``: all). ``n_trees_`` counts
        the whole set either way.
    time_limit : float or None, default=None
        Seconds for the search. Under a limit the budget is reached in steps (the optimum,
        then 1/16, 1/8, 1/4, 1/2 of the room above it, then all of it); when the time runs out
        the set of the last step completed is kept, the best trees of the full set in
        objective order, with a :class:`NotOptimalWarning`. A Ctrl-C does the same. The set
        pickles, and :func:`odtree.to_json` writes it (its listed trees, no training rows).
    thresholds : {"quantile", "exact"}, default="quantile"
        The thresholds of numeric columns. ``"quantile"``: ``n_thresholds`` per column, at
        weighted quantiles (as :class:`Binarizer`). ``"exact"``: every threshold, the midpoint
        of each gap between two consecutive training values, so that the set is over every
        tree of the raw numbers; a node then splits once per gap between its own rows' values,
        on the lowest threshold of the gap (two thresholds that split its rows alike make one
        split).
    n_thresholds : int, default=10
        Thresholds per numeric column with ``thresholds="quantile"``; categorical columns get
        one feature per category and 0/1 columns are used as they are.
    memory_limit : int, str or None, default=None
        Most memory the search's kept optima and histograms may take, in bytes or as a string
        such as ``"500MB"``. Past it they are wiped and computed again as needed: the set is
        the same, found more slowly (``n_wipes_`` counts the wipes). The listed trees are not
        counted: ``max_trees`` bounds them.
    importance : bool, default=False
        Measure each input column's importance across the set, ``usage_`` and
        ``removal_loss_``. When every tree is listed both are read from the listed trees,
        with a search only for a column that every listed tree tests; otherwise the usage
        takes a counting search per column (heart-cleveland at depth 3, 95 columns, 4,868
        trees: 0.9 s with all listed, 25 s listing 100, against 0.3-0.5 s for the set).
    n_jobs : int or None, default=None
        Threads for the search: the root's splits are shared among them, each thread keeping
        subproblems of its own (``None``: 1 unless in a joblib ``parallel_backend``; -1: all
        cores). The importances' searches, one or two per column, are shared among them too.
        The set is the same on any number. Under ``memory_limit`` each thread keeps its
        share.
    trivial_splits : bool, default=True
        Whether the set holds the trees with a trivial split: one whose two children are
        leaves predicting the same class. Such a split changes no prediction; its tree
        predicts as the smaller tree without it, for one more leaf's cost. ``False`` leaves
        them out, as TREEFARMS does (TREEFARMS breaks a leaf's tie to the highest class, odtree
        to the lowest, so the two counts can differ where a leaf's classes tie). The optimum
        is the same either way.

    Attributes
    ----------
    n_trees_ : int
        The number of trees in the set.
    objectives_ : ndarray of shape (n_listed,)
        The listed trees' objectives, ascending.
    optimum_ : float
        The optimal objective.
    bound_ : float
        Every tree of objective at most this is in the set (``(1 + epsilon) * optimum_``, or
        the last step's bound when the time ran out).
    trees_ : list of OptimalTreeClassifier
        The listed trees, fitted, in the order of ``objectives_``; also ``len(set)``,
        ``set[i]`` and iteration.
    usage_ : ndarray of shape (n_features_in_,)
        With ``importance=True``: the share of the set's trees (all of them, not only
        those listed) that test each input column.
    removal_loss_ : ndarray of shape (n_features_in_,)
        With ``importance=True``: how much the optimal objective rises when each input
        column is taken away.
    status_ : {"optimal", "time_limit", "interrupted"}
        ``"optimal"`` when the whole set was found (every tree within the bound, proven),
        else why the search stopped.
    n_wipes_ : int
        How often the search wiped its kept optima and histograms to keep to
        ``memory_limit``.
    classes_ : ndarray
        The class labels.
    binarizer_ : Binarizer
        The binarization of the input columns.
    binary_features_ : list of BinaryFeature
        The binary features the trees split on.
    n_features_in_ : int
        Number of input columns.
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from odtree import RashomonSet
    >>> X = np.array([[0, 0, 1], [0, 1, 1], [1, 0, 0], [1, 1, 0]] * 5)
    >>> y = np.array([0, 0, 1, 1] * 5)
    >>> good = RashomonSet(max_depth=1, ccp_alpha=0.01, epsilon=0.0, importance=True).fit(X, y)
    >>> good.n_trees_, good.objectives_.round(2).tolist()   # column 0 or column 2
    (2, [0.02, 0.02])
    >>> good.usage_.round(2).tolist()
    [0.5, 0.0, 0.5]
    """

    _parameter_constraints: dict = {**_RashomonBase._parameter_constraints,
                                    "trivial_splits": ["boolean"]}

    def __init__(self, max_depth=3, ccp_alpha=0.01, epsilon=0.05, *, max_trees=10000,
                 time_limit=None, thresholds="quantile", n_thresholds=10, memory_limit=None,
                 importance=False, n_jobs=None, trivial_splits=True):
        super().__init__(max_depth, ccp_alpha, epsilon, max_trees=max_trees,
                         time_limit=time_limit, thresholds=thresholds, n_thresholds=n_thresholds,
                         memory_limit=memory_limit, importance=importance, n_jobs=n_jobs)
        self.trivial_splits = trivial_splits

    def _search_settings(self) -> dict:
        return {"trivial_splits": self.trivial_splits}

    def _targets(self, y):
        if y.dtype.kind not in "biuUS":  # ints, bools and strings are always class labels
            check_classification_targets(y)
        self.classes_, codes = encode_labels(y)
        return codes, len(self.classes_), None

    def _stats_len(self) -> int:
        return len(self.classes_)

    def _node_values(self, codes, stats) -> np.ndarray:
        return self.classes_[np.where(codes < 0, -1 - codes, np.argmax(stats, axis=1))]

    def _estimator(self, codes, stats, rows) -> OptimalTreeClassifier:
        feature, left, right = _arrays(codes)
        node_classes = np.where(codes < 0, -1 - codes, np.argmax(stats, axis=1))
        tree = Tree(children_left=left, children_right=right, feature=feature,
                    value=stats[:, np.newaxis, :], n_node_samples=rows,
                    weighted_n_node_samples=stats.sum(axis=1))
        return fitted_classifier(OptimalTreeClassifier(max_depth=self.max_depth), tree=tree,
                                 classes=self.classes_, binarizer=self.binarizer_,
                                 node_classes=node_classes, status="optimal",
                                 binary_feature_names=self._names)

    def predict_proba(self, X, k=None) -> np.ndarray:
        """The share of the best ``k`` listed trees (or all listed) voting for each class."""
        check_is_fitted(self)
        votes = self.predict_all(X, k)
        return np.stack([(votes == c).mean(axis=0) for c in self.classes_], axis=1)

    def predict(self, X, k=None) -> np.ndarray:
        """The majority vote of the best ``k`` listed trees (or all listed); ties go to the
        lowest class."""
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_proba(X, k), axis=1)]


class RashomonSetRegressor(RegressorMixin, _RashomonBase):
    """Every regression tree whose objective is within ``(1 + epsilon)`` times the optimum.

    A tree's objective is the weighted mean ``criterion`` of its leaves (squared error around
    each leaf's weighted mean, absolute error around its weighted median, or the pinball loss
    of ``quantile`` around its weighted quantile) plus ``ccp_alpha`` per leaf, over trees of
    depth at most ``max_depth`` on the binarized features; otherwise as
    :class:`RashomonSet`, whose parameters and attributes it shares (without ``classes_``
    and ``trivial_splits``). ``trees_`` are fitted :class:`OptimalTreeRegressor` trees and
    ``predict`` averages the best ``k``.

    Parameters
    ----------
    max_depth, ccp_alpha, epsilon, max_trees, time_limit, thresholds, n_thresholds, \
memory_limit, importance, n_jobs
        As in :class:`RashomonSet`.
    criterion : {"squared_error", "absolute_error", "quantile"}, default="squared_error"
        The leaves' loss, as in :class:`OptimalTreeRegressor`.
    quantile : float, default=0.5
        The quantile of ``criterion="quantile"``, in (0, 1).

    Attributes
    ----------
    n_trees_, objectives_, optimum_, bound_, trees_, usage_, removal_loss_, status_, \
n_wipes_, binarizer_, binary_features_, n_features_in_, fit_time_
        As in :class:`RashomonSet`.

    Examples
    --------
    >>> import numpy as np
    >>> from odtree import RashomonSetRegressor
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3)
    >>> y = np.array([1.0, 1.0, 5.0, 5.2] * 3)
    >>> good = RashomonSetRegressor(max_depth=1, ccp_alpha=0.0, epsilon=0.0).fit(X, y)
    >>> good.n_trees_, good.predict([[1, 0]]).round(2).tolist()
    (1, [5.1])
    """

    _parameter_constraints: dict = {
        **_RashomonBase._parameter_constraints,
        "criterion": [StrOptions({"squared_error", "absolute_error", "quantile"})],
        "quantile": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(self, max_depth=3, ccp_alpha=0.01, epsilon=0.05, *, max_trees=10000,
                 time_limit=None, thresholds="quantile", n_thresholds=10, memory_limit=None,
                 importance=False, n_jobs=None, criterion="squared_error", quantile=0.5):
        super().__init__(max_depth, ccp_alpha, epsilon, max_trees=max_trees,
                         time_limit=time_limit, thresholds=thresholds, n_thresholds=n_thresholds,
                         memory_limit=memory_limit, importance=importance, n_jobs=n_jobs)
        self.criterion = criterion
        self.quantile = quantile

    def _search_settings(self) -> dict:
        return {"criterion": self.criterion, "quantile": float(self.quantile)}

    def _targets(self, y):
        targets = np.asarray(y, dtype=np.float64)
        if not np.all(np.isfinite(targets)):
            raise ValueError("y must hold finite numbers")
        return np.zeros(len(targets), dtype=np.uint32), 1, targets

    def _stats_len(self) -> int:
        return 3

    def _node_values(self, codes, stats) -> np.ndarray:
        return stats[:, 1] / np.maximum(stats[:, 0], np.finfo(float).tiny)

    def _estimator(self, codes, stats, rows) -> OptimalTreeRegressor:
        feature, left, right = _arrays(codes)
        weight, value = stats[:, 0], self._node_values(codes, stats)
        # squared error's statistics are sums of the targets and their squares; the other
        # criteria's third is the node's loss
        loss = (np.maximum(stats[:, 2] - weight * value**2, 0.0)
                if self.criterion == "squared_error" else stats[:, 2])
        tree = Tree(children_left=left, children_right=right, feature=feature,
                    value=value.reshape(-1, 1, 1), n_node_samples=rows,
                    weighted_n_node_samples=weight, impurity=loss)
        model = OptimalTreeRegressor(max_depth=self.max_depth, criterion=self.criterion,
                                     quantile=self.quantile)
        set_input(model, self.binarizer_, self._names)
        model.tree_ = tree
        model.lower_bound_, model.status_, model.optimal_ = 0.0, "optimal", True
        model.fit_time_, model.n_cache_entries_ = 0.0, 0
        return model

    def predict(self, X, k=None) -> np.ndarray:
        """The mean of the predictions of the best ``k`` listed trees (or all listed)."""
        check_is_fitted(self)
        return self.predict_all(X, k).mean(axis=0)


register(RashomonSet)
register(RashomonSetRegressor)


def _arrays(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A tree's codes (pre-order: a feature, or ``-1 - class`` at a leaf) as its arrays:
    ``feature`` (-2 at leaves), ``children_left`` and ``children_right`` (-1 at leaves)."""
    feature = np.where(codes >= 0, codes, -2)
    left, right = np.full(len(codes), -1), np.full(len(codes), -1)

    def read(at: int) -> int:
        """Links the subtree at ``at``; returns where the next subtree starts."""
        if codes[at] < 0:
            return at + 1
        left[at] = at + 1
        right[at] = read(at + 1)
        return read(right[at])

    read(0)
    return feature, left, right
