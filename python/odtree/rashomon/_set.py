"""The Rashomon set: every tree nearly as good as the optimal one (:class:`RashomonSet`)."""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._search.fitting import one_fit_at_a_time
from .._utils.warn import warn
from ..exceptions import NotOptimalWarning
from ..preprocessing._binarizer import Binarizer
from ..tree._arrays import Tree
from ..tree._classifier import OptimalTreeClassifier
from ..tree._fitted import fitted_classifier

__all__ = ["RashomonSet"]


class RashomonSet(ClassifierMixin, BaseEstimator):
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
        objective order, with a :class:`NotOptimalWarning`. A Ctrl-C does the same.
    n_thresholds : int, default=10
        Thresholds per numeric column (quantiles, as :class:`Binarizer`); categorical columns
        get one feature per category and 0/1 columns are used as they are.
    importance : bool, default=True
        Measure each input column's importance across the set (two more searches per
        column): ``usage_`` and ``removal_loss_``.

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
        The share of the set's trees (all of them, not only those listed) that test each
        input column.
    removal_loss_ : ndarray of shape (n_features_in_,)
        How much the optimal objective rises when each input column is taken away.
    status_ : {"complete", "time_limit", "interrupted"}
        Whether the whole set was found.
    classes_ : ndarray
        The class labels.
    binarizer_ : Binarizer
        The binarization of the input columns.
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
    >>> good = RashomonSet(max_depth=1, ccp_alpha=0.01, epsilon=0.0).fit(X, y)
    >>> good.n_trees_, good.objectives_.round(2).tolist()   # column 0 or column 2
    (2, [0.02, 0.02])
    >>> good.usage_.round(2).tolist()
    [0.5, 0.0, 0.5]
    """

    _parameter_constraints: dict = {
        "max_depth": [Interval(Integral, 0, None, closed="left")],
        "ccp_alpha": [Interval(Real, 0, None, closed="left")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "max_trees": [Interval(Integral, 1, None, closed="left"), None],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
        "importance": ["boolean"],
    }

    def __init__(self, max_depth=3, ccp_alpha=0.01, epsilon=0.05, *, max_trees=10000,
                 time_limit=None, n_thresholds=10, importance=True):
        self.max_depth = max_depth
        self.ccp_alpha = ccp_alpha
        self.epsilon = epsilon
        self.max_trees = max_trees
        self.time_limit = time_limit
        self.n_thresholds = n_thresholds
        self.importance = importance

    @one_fit_at_a_time
    def fit(self, X, y, sample_weight=None):
        """Finds the set.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data: numeric, categorical or 0/1 columns.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights; rows of weight 0 are left out.

        Returns
        -------
        self : RashomonSet
        """
        from .._search.learners import rashomon_set

        start = time.perf_counter()
        self._validate_params()
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        binarizer = Binarizer(n_thresholds=self.n_thresholds).fit(X, y, sample_weight)
        binary = np.ascontiguousarray(binarizer.transform(X), dtype=np.uint8)
        if len(y) != len(binary):
            raise ValueError(f"y has {len(y)} rows; X has {len(binary)}")
        weight = np.ones(len(y)) if sample_weight is None else \
            np.asarray(sample_weight, dtype=np.float64)
        if weight.shape != (len(y),) or not np.all(np.isfinite(weight)) or np.any(weight < 0):
            raise ValueError("sample_weight must hold one finite, non-negative weight per row")
        kept = np.flatnonzero(weight > 0)
        if len(kept) == 0:
            raise ValueError("every sample weight is 0: there is nothing to fit")
        self.classes_, codes = np.unique(y, return_inverse=True)
        binary, codes, weight = binary[kept], codes[kept].astype(np.uint32), weight[kept]
        total = float(weight.sum())
        search = dict(max_depth=self.max_depth, leaf_penalty=self.ccp_alpha * total)

        def run(epsilon, max_trees, allowed=None, time_limit=None):
            return rashomon_set(binary, codes, len(self.classes_), weight, **search,
                                epsilon=epsilon, max_trees=max_trees, allowed=allowed,
                                time_limit=time_limit)

        found = run(self.epsilon, self.max_trees, time_limit=self.time_limit)
        self.binarizer_ = binarizer
        self.n_features_in_ = binarizer.n_features_in_
        if hasattr(binarizer, "feature_names_in_"):
            self.feature_names_in_ = binarizer.feature_names_in_
        self.n_trees_ = int(found["count"])
        self.objectives_ = np.asarray(found["costs"]) / total
        self.optimum_ = found["optimum"] / total
        self.bound_ = found["bound"] / total
        self.status_ = found["stopped"] or "complete"
        self.trees_ = [self._tree(codes_, binary, codes, weight) for codes_ in found["trees"]]
        if self.importance and self.status_ == "complete":
            self._importances(run, found, binarizer, total)
        if self.status_ != "complete":
            warn(f"{self.status_.replace('_', ' ')}: the set holds the {self.n_trees_} trees "
                 f"of objective at most {self.bound_:.6g}, not all those up to "
                 f"{(1 + self.epsilon) * self.optimum_:.6g}", NotOptimalWarning)
        self.fit_time_ = time.perf_counter() - start
        return self

    def _importances(self, run, found, binarizer, total) -> None:
        """``usage_`` and ``removal_loss_``: per input column, the set's trees without it are
        those of the search that may not test it, within the same bound."""
        columns = np.array([feature.column for feature in binarizer.features_])
        usage = np.zeros(self.n_features_in_)
        loss = np.zeros(self.n_features_in_)
        bound = found["bound"]
        for column in range(self.n_features_in_):
            allowed = np.flatnonzero(columns != column).tolist()
            if len(allowed) == len(columns):
                continue  # no feature of this column: no tree tests it
            least = run(0.0, 1, allowed)["optimum"]
            loss[column] = (least - found["optimum"]) / total
            if least > bound * (1 + 1e-12):
                usage[column] = 1.0
                continue
            room = bound / least - 1.0 if least > 0 else 0.0
            without = int(run(room, 1, allowed)["count"])
            usage[column] = 1.0 - without / self.n_trees_
        self.usage_, self.removal_loss_ = usage, loss

    def _tree(self, codes, binary, labels, weight) -> OptimalTreeClassifier:
        """The fitted classifier of one tree given as codes (pre-order: a feature, or
        ``-1 - class`` at a leaf), with the class weights of the training rows per node."""
        feature, left, right, node_class = [], [], [], []

        def read(at):
            node = len(feature)
            code = codes[at]
            feature.append(code if code >= 0 else -2)
            left.append(-1)
            right.append(-1)
            node_class.append(-1 - code if code < 0 else -1)
            at += 1
            if code >= 0:
                left[node] = len(feature)
                at = read(at)
                right[node] = len(feature)
                at = read(at)
            return at

        read(0)
        n_classes = len(self.classes_)
        value = np.zeros((len(feature), 1, n_classes))
        counts = np.zeros(len(feature), dtype=np.int64)
        rows = [np.arange(len(binary))] + [None] * (len(feature) - 1)
        for node in range(len(feature)):
            here = rows[node]
            value[node, 0] = np.bincount(labels[here], weights=weight[here],
                                         minlength=n_classes)
            counts[node] = len(here)
            if feature[node] >= 0:
                ones = binary[here, feature[node]] != 0
                rows[left[node]], rows[right[node]] = here[~ones], here[ones]
        tree = Tree(children_left=left, children_right=right, feature=feature, value=value,
                    n_node_samples=counts, weighted_n_node_samples=value[:, 0, :].sum(axis=1))
        classes = [c if c >= 0 else int(np.argmax(value[n, 0])) for n, c in enumerate(node_class)]
        model = fitted_classifier(OptimalTreeClassifier(max_depth=self.max_depth), tree=tree,
                                  classes=self.classes_, binarizer=self.binarizer_,
                                  node_classes=classes, status="optimal")
        model.objective_ = model.objective_ / weight.sum() + self.ccp_alpha * tree.n_leaves
        return model

    def __len__(self) -> int:
        check_is_fitted(self)
        return len(self.trees_)

    def __getitem__(self, index):
        check_is_fitted(self)
        return self.trees_[index]

    def __iter__(self):
        check_is_fitted(self)
        return iter(self.trees_)

    def predict_all(self, X, k=None) -> np.ndarray:
        """Each listed tree's predictions (the best ``k`` trees, or all listed), one row per
        tree: an array of shape (n_trees, n_samples)."""
        check_is_fitted(self)
        binary = self.binarizer_.transform(X)
        trees = self.trees_[:k]
        if not trees:
            raise ValueError("the set lists no tree")
        out = np.empty((len(trees), len(binary)), dtype=self.classes_.dtype)
        for i, tree in enumerate(trees):
            arrays = tree.tree_
            node = np.zeros(len(binary), dtype=np.int64)
            for _ in range(self.max_depth):
                inner = arrays.feature[node] >= 0
                if not inner.any():
                    break
                at = np.flatnonzero(inner)
                ones = binary[at, arrays.feature[node[at]]] != 0
                node[at] = np.where(ones, arrays.children_right[node[at]],
                                    arrays.children_left[node[at]])
            out[i] = self.classes_[tree.node_classes_[node]]
        return out

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
