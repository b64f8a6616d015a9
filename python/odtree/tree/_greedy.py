"""A greedy C4.5-style decision tree classifier, grown by the Rust core, with the fitted
attributes of every odtree classifier (so it prints, exports and saves like them)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_sample_weight

from .._search.fitting import one_fit_at_a_time
from .._utils.registry import register
from .._utils.warn import warn
from ..exceptions import NotOptimalWarning
from ..preprocessing._binarizer import Binarizer
from ..preprocessing._columns import category_codes, column_names
from ..preprocessing._features import BinaryFeature
from ._arrays import TREE_UNDEFINED, Tree
from ._base import (
    FittedTree,
    LeafClassifier,
)
from ._fitted import fitted_classifier
from ._validation import checked_sample_weight, validate_classification

__all__ = ["GreedyTreeClassifier"]


@dataclass
class TrainingColumns:
    """Training data read for the core's greedy learner: typed columns, class indices and
    what it takes to turn the core's trees into fitted classifiers."""

    numeric: np.ndarray
    """float64 (n_samples, n_numeric): the numeric columns."""
    codes: np.ndarray
    """uint32 (n_samples, n_categorical): the category codes of the categorical columns."""
    categorical_columns: list
    """The column numbers of the categorical columns, ascending."""
    labels: np.ndarray
    """uint32 (n_samples,): each row's index in ``classes``."""
    classes: np.ndarray
    """The class labels."""
    names: list
    """The column names."""
    kinds: list
    """Each column's kind, ``"numeric"`` or ``"categorical"``."""
    categories: dict
    """The categories of each categorical column, by column number."""
    reader: Binarizer
    """The binarizer that read the columns."""
    made: dict = field(default_factory=dict, repr=False, compare=False)
    """The binary features made so far, with their names, by test (see :meth:`feature`)."""

    def feature(self, column: int, key) -> tuple[BinaryFeature, str]:
        """The binary feature of a test of the core's trees on ``column`` (``key`` is a
        category code of a categorical column, else a threshold) and its name. Made once,
        and shared by every tree grown on these columns (the distinct trees are many)."""
        test = (column, key)
        if test not in self.made:
            name = self.names[column]
            made = (BinaryFeature(column, name, "category", self.categories[column][key])
                    if column in self.categories else
                    BinaryFeature(column, name, "threshold", key))
            self.made[test] = made, made.name
        return self.made[test]

    def core_args(self) -> tuple:
        """The data arguments of ``learners.greedy_tree`` and its kin."""
        return (self.numeric, self.codes, self.categorical_columns, self.labels,
                len(self.classes))


def read_training_columns(estimator: BaseEstimator, X, y) -> TrainingColumns:
    """Checks ``X`` and ``y`` for a fit of ``estimator`` (recording its input columns) and
    reads them as typed columns."""
    X, y = validate_classification(estimator, X, y)
    classes, labels = np.unique(y, return_inverse=True)
    reader = Binarizer(strategy="midpoints")
    numeric, categorical, kinds = reader._read(X, reset=True, validated=True)
    names = column_names(reader)
    numeric_columns = [j for j, kind in enumerate(kinds) if kind == "numeric"]
    categorical_columns = [j for j, kind in enumerate(kinds) if kind == "categorical"]
    categories, codes = {}, np.empty((len(labels), len(categorical_columns)), np.uint32)
    for i, j in enumerate(categorical_columns):
        categories[j], codes[:, i] = category_codes(categorical[j], names[j])
    return TrainingColumns(
        numeric=np.asarray(numeric[:, numeric_columns], dtype=np.float64), codes=codes,
        categorical_columns=categorical_columns,
        labels=labels.astype(np.uint32).ravel(), classes=classes, names=names, kinds=kinds,
        categories=categories, reader=reader)


def training_weight(data: TrainingColumns, sample_weight, class_weight) -> np.ndarray | None:
    """The weight of each row of ``data``: ``sample_weight`` (checked) times the weight
    ``class_weight`` gives the row's class, or ``None`` when both are ``None``."""
    if sample_weight is None and class_weight is None:
        return None
    n_rows = len(data.labels)
    weight = checked_sample_weight(sample_weight, n_rows)
    if class_weight is None:
        return weight
    if isinstance(class_weight, dict) and not all(
            isinstance(w, Real) and np.isfinite(w) and w >= 0 for w in class_weight.values()):
        raise ValueError(f"class_weight must weigh each class by a finite number >= 0, got "
                         f"{class_weight!r}")
    y = data.classes[data.labels]
    return checked_sample_weight(weight * compute_sample_weight(class_weight, y), n_rows)


class GreedyTreeClassifier(ClassifierMixin, LeafClassifier, FittedTree, BaseEstimator):
    """A greedy, unpruned decision tree grown top-down as C4.5 grows one.

    At each node every column proposes its best test, the one of largest information gain:
    ``x <= t`` for a numeric column, ``t`` the midpoint between two consecutive distinct
    training values, or ``x == v`` (against all other categories) for a categorical one. The
    node takes the column whose test scores best by ``criterion``; ties go to the lowest
    column, then the lowest threshold or category. The tree grows until its leaves are pure,
    too small to split, or at ``max_depth``; nothing is pruned. The learner is deterministic:
    the gains are computed exactly from integer class counts, so the tree depends neither on
    the order of the rows nor on columns it does not use.

    Weighted rows (``sample_weight``, ``class_weight``) count by their weight in the class
    counts, the gains and the leaves' votes. To keep the counts exact, each weight is held as
    a whole number of units of a power of two: integer weights are exact (in the counts and
    gains, a row of weight 3 is exactly three copies of it); other weights are rounded to the
    nearest unit, which is below ``n_samples * 2**-51`` times the largest weight.

    Parameters
    ----------
    criterion : {"entropy", "gain_ratio"}, default="entropy"
        ``"entropy"``: information gain (ID3, C4.5's ``-g``); ``"gain_ratio"``: information
        gain divided by the entropy of the branch sizes (C4.5's default). Information gain
        is the default of the whole family, :func:`distinct_trees` and
        :class:`DistinctTreeSelector` included (as in Ruggieri's paper), so that a tree
        fitted by hand on a subset of the columns is the one they list. Unlike C4.5, gain
        ratio is not restricted to the columns of at least average gain, which would make
        the choice at a node depend on the other columns; ``min_gain`` is the fixed filter
        that replaces it.
    min_cases : int, default=2
        A test is allowed only if both of its branches hold at least this many training rows
        (C4.5's ``-m``). Rows are counted whatever their weights, as scikit-learn's
        ``min_samples_leaf`` counts them, so that which tests are allowed does not depend on
        the scale of the weights (AdaBoost rescales them to sum to 1); rows of weight zero do
        not count. So with ``min_cases > 1`` a row of weight 2 is not quite two copies of it.
    max_depth : int or None, default=None
        Maximum number of tests on a root-to-leaf path; ``None``: no limit.
    min_gain : float, default=0.0
        A column takes part only if its best test gains at least this many bits per row. At 0
        a test that gains nothing is still taken when nothing better exists, as C4.5 and CART
        do: with ``min_cases=1`` the tree then fits consistent training data exactly. With
        weights, bits per unit of weight.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, as in scikit-learn: ``{label: weight}`` (classes left out
        weigh 1), or ``"balanced"``, which weighs each class by ``n_samples / (n_classes *
        n_rows_of_the_class)``. ``fit`` multiplies ``sample_weight`` by them, as
        ``sklearn.utils.class_weight.compute_sample_weight(class_weight, y)`` gives them.
    min_weight_fraction_leaf : float, default=0.0
        A test is allowed only if both of its branches hold at least this fraction of the
        total training weight (``sample_weight`` times ``class_weight``; one per row without
        weights), as scikit-learn's trees define it; in [0, 0.5].
    time_limit : float or None, default=None
        Seconds allowed to growing the tree (reading the columns comes before it). When
        they run out, or on Ctrl-C, the nodes not yet grown stay leaves: the tree is the
        part grown so far, depth first, ``status_`` says why, and a
        :class:`NotOptimalWarning` is issued. A node being scanned finishes first, so the
        fit can overrun by the scan of one node. ``None``: no limit.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        Number of classes.
    feature_importances_ : ndarray of shape (n_features_in_,)
        The Gini importance of each input column, as scikit-learn computes it (whatever
        ``criterion`` chose the splits).
    class_ranking_ : ndarray of shape (n_classes,)
        Class indices in tie-break order: a leaf whose classes count the same predicts the
        lowest class index, so this is ``0, 1, ...``.
    node_classes_ : ndarray of int64, shape (node_count,)
        Index in ``classes_`` of the majority class of each node of ``tree_``.
    tree_ : Tree
        The tree over the binary features; ``tree_.value`` holds the (weighted) class counts
        of the training rows reaching each node, ``tree_.n_node_samples`` the rows (of
        non-zero weight) and ``tree_.weighted_n_node_samples`` their weight.
    binarizer_ : Binarizer
        Computes the binary features (the tests of the tree) from input columns.
    binary_features_ : list of BinaryFeature
        The distinct tests of the tree, by column then threshold or category;
        ``tree_.feature`` indexes this list.
    binary_feature_names_ : ndarray of str
        Their readable names, such as ``"age <= 37.5"``.
    used_features_ : ndarray of int64
        The input columns the tree tests, ascending.
    objective_ : float
        Training rows the tree misclassifies (their weight, with weights).
    lower_bound_ : float
        0.0: a greedy tree proves nothing (kept for the format shared with the other
        classifiers).
    optimal_ : bool
        False.
    status_ : str
        ``"heuristic"``; ``"time_limit"`` or ``"interrupted"`` when the tree was stopped
        before it was fully grown.
    fit_time_ : float
        Seconds spent in ``fit``.
    n_cache_entries_ : int
        0 (there is no cache).
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        Input column names (only with a pandas DataFrame whose column names are strings).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from odtree import GreedyTreeClassifier, export_text
    >>> X, y = load_iris(return_X_y=True)
    >>> model = GreedyTreeClassifier(criterion="entropy", max_depth=2).fit(X, y)
    >>> print(export_text(model), end="")
    |--- x2 <= 2.45
    |   |--- class: 0
    |--- x2 > 2.45
    |   |--- x3 <= 1.75
    |   |   |--- class: 1
    |   |--- x3 > 1.75
    |   |   |--- class: 2
    >>> model.objective_
    6.0
    """

    _parameter_constraints: dict = {
        "criterion": [StrOptions({"gain_ratio", "entropy"})],
        "min_cases": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [Interval(Integral, 0, None, closed="left"), None],
        "min_gain": [Interval(Real, 0, None, closed="left")],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "min_weight_fraction_leaf": [Interval(Real, 0.0, 0.5, closed="both")],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
    }

    def __init__(self, criterion="entropy", min_cases=2, max_depth=None, min_gain=0.0,
                 class_weight=None, min_weight_fraction_leaf=0.0, time_limit=None):
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.time_limit = time_limit
        self.criterion = criterion
        self.min_cases = min_cases
        self.max_depth = max_depth
        self.min_gain = min_gain
        self.class_weight = class_weight

    @one_fit_at_a_time
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Grow the tree on the training data.

        Parameters
        ----------
        X : array-like, sparse matrix or pandas DataFrame of shape (n_samples, n_features)
            Training data without missing or infinite values. Arrays must be numeric; a
            DataFrame may also hold categorical columns (category, object, string or bool).
        y : array-like of shape (n_samples,)
            Class labels of any type (ints, strings, ...).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights, not all zero. Rows of weight zero are ignored entirely.
            They are multiplied by ``class_weight``'s.

        Returns
        -------
        self : GreedyTreeClassifier
            The fitted estimator.

        Examples
        --------
        >>> import pandas as pd
        >>> X = pd.DataFrame({"color": ["red", "blue", "red", "green"], "size": [1, 2, 3, 4]})
        >>> model = GreedyTreeClassifier(min_cases=1).fit(X, ["a", "b", "a", "b"])
        >>> model.binary_feature_names_.tolist()
        ['color = red']
        >>> heavy = GreedyTreeClassifier(min_cases=1).fit(X, ["a", "b", "a", "b"],
        ...                                               sample_weight=[1, 1, 1, 2.5])
        >>> heavy.tree_.value[0, 0].tolist()  # weighted class counts at the root
        [2.0, 3.5]
        """
        from .._search import learners  # the compiled learner

        start = time.perf_counter()
        data = read_training_columns(self, X, y)
        weight = training_weight(data, sample_weight, self.class_weight)
        self.classes_ = data.classes
        total = len(data.labels) if weight is None else float(weight.sum())
        result = learners.greedy_tree(
            *data.core_args(), criterion=self.criterion, min_cases=self.min_cases,
            max_depth=self.max_depth, min_gain=float(self.min_gain), sample_weight=weight,
            min_leaf_weight=float(self.min_weight_fraction_leaf) * total,
            time_limit=None if self.time_limit is None else float(self.time_limit))
        self._set_tree(result, data)
        if result["stopped"] is not None:
            self.status_ = result["stopped"]
            reason = (f"time limit of {self.time_limit} s reached"
                      if self.status_ == "time_limit" else "interrupted")
            warn(f"{reason}: the tree is the part grown so far (the nodes not yet grown are "
                 "leaves)", NotOptimalWarning)
        self.fit_time_ = time.perf_counter() - start
        return self

    @classmethod
    def _from_core(cls, params: dict, data: TrainingColumns, result: dict,
                   fitted_on: BaseEstimator) -> GreedyTreeClassifier:
        """The fitted classifier of ``params`` whose tree is the core's ``result`` on
        ``data``, with the input columns (number and names) recorded on ``fitted_on``."""
        model = cls(**params)
        model._set_tree(result, data)
        model.n_features_in_ = fitted_on.n_features_in_
        if hasattr(fitted_on, "feature_names_in_"):
            model.feature_names_in_ = fitted_on.feature_names_in_
        return model

    def _set_tree(self, result: dict, data: TrainingColumns) -> None:
        """Sets the fitted attributes from the core's tree: each distinct test becomes a
        binary feature, and the branch where it holds becomes ``children_right``."""
        names, kinds, categories, reader = data.names, data.kinds, data.categories, data.reader
        feature = result["feature"]
        inner = np.flatnonzero(feature >= 0)
        test_of = {}
        for node in inner.tolist():
            column = int(feature[node])
            code = int(result["category"][node])
            test_of[node] = (column, code) if column in categories else (
                column, float(result["threshold"][node]))
        tests = sorted(set(test_of.values()))
        index = {test: i for i, test in enumerate(tests)}
        made = [data.feature(column, key) for column, key in tests]
        features = [feature for feature, _ in made]
        counts = result["class_weights"]
        tree = Tree(
            children_left=result["children_false"],  # test fails: binary feature = 0
            children_right=result["children_true"],
            feature=[index[test_of[node]] if node in test_of else TREE_UNDEFINED
                     for node in range(len(feature))],
            value=counts,
            n_node_samples=result["n_node_samples"],
            weighted_n_node_samples=result["weighted_n_node_samples"],
        )
        named = getattr(reader, "feature_names_in_", None) is not None
        binarizer = Binarizer(**reader.get_params())._fitted_with(
            list(kinds), list(names) if named else None, features)
        leaves = tree.is_leaf_mask()
        fitted_classifier(
            self, tree=tree, classes=data.classes, binarizer=binarizer,
            node_classes=result["label"], binary_feature_names=[name for _, name in made],
            objective=float((counts[leaves].sum(axis=1) - counts[leaves].max(axis=1)).sum()),
            used_features=result["used_features"])


register(GreedyTreeClassifier)
