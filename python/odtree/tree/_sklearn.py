"""Turn a fitted scikit-learn decision tree into a fitted odtree classifier."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.validation import check_is_fitted

from ..preprocessing._binarizer import Binarizer
from ..preprocessing._features import BinaryFeature
from ._arrays import TREE_LEAF, TREE_UNDEFINED, Tree

__all__ = ["from_sklearn", "to_sklearn"]


def from_sklearn(decision_tree, *, feature_names=None):
    """Build a fitted :class:`OptimalTreeClassifier` holding a fitted scikit-learn tree.

    Use it to inspect, export or save a greedy tree with odtree's tools, or to compare it with an
    optimal one. Each split ``x[f] <= t`` becomes a ``"threshold"`` :class:`BinaryFeature`; the
    distinct splits, sorted by column then threshold, are the binary features, and ``binarizer_``
    computes exactly them. scikit-learn's left child (``x <= t``, feature = 1) becomes our right
    child. The result predicts what ``decision_tree`` predicts on every input.

    Parameters
    ----------
    decision_tree : sklearn.tree.DecisionTreeClassifier
        A fitted single-output classifier on numeric features.
    feature_names : sequence of str or None, default=None
        Column names to show in the tests; by default the tree's ``feature_names_in_``, else
        ``x0, x1, ...``.

    Returns
    -------
    OptimalTreeClassifier
        A fitted estimator with ``max_depth`` set to the tree's depth, ``status_ = "heuristic"``,
        ``optimal_ = False``, ``objective_`` the weighted training misclassification of the leaves,
        ``lower_bound_ = 0.0`` (nothing is proven), ``fit_time_ = 0.0`` and
        ``n_cache_entries_ = 0``.

    Raises
    ------
    ValueError
        For a tree fitted with negative sample weights, wherever they show (a node whose
        weight for some class is negative), as ``fit`` refuses negative weights.

    Notes
    -----
    scikit-learn compares ``float32(x) <= t``. To route every float64 input the same way, each
    threshold is replaced by the largest float64 ``c`` with ``x <= c`` exactly when
    ``float32(x) <= t``; ``c`` agrees with ``t`` to float32 precision.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> greedy = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    >>> model = from_sklearn(greedy, feature_names=["sepal length", "sepal width",
    ...                                             "petal length", "petal width"])
    >>> model.status_, model.objective_
    ('heuristic', 6.0)
    >>> bool((model.predict(X) == greedy.predict(X)).all())
    True
    """
    if not isinstance(decision_tree, DecisionTreeClassifier):
        raise TypeError("from_sklearn needs a sklearn.tree.DecisionTreeClassifier, got "
                        f"{type(decision_tree).__name__}")
    check_is_fitted(decision_tree)
    if decision_tree.n_outputs_ != 1:
        raise ValueError(f"from_sklearn needs a single-output tree; this one has "
                         f"{decision_tree.n_outputs_} outputs")
    from ._classifier import OptimalTreeClassifier

    model = OptimalTreeClassifier(max_depth=int(decision_tree.get_depth()))
    for name, value in _fitted_attributes(decision_tree, feature_names).items():
        setattr(model, name, value)
    return model


def _fitted_attributes(decision_tree, feature_names) -> dict:
    """The fitted attributes of an odtree classifier equivalent to ``decision_tree``."""
    n_features = decision_tree.n_features_in_
    names_in = getattr(decision_tree, "feature_names_in_", None)
    if feature_names is None:
        feature_names = names_in if names_in is not None else [f"x{j}" for j in range(n_features)]
    feature_names = [str(name) for name in feature_names]
    if len(feature_names) != n_features:
        raise ValueError(f"feature_names has {len(feature_names)} names but the tree was fitted "
                         f"on {n_features} features")

    source = decision_tree.tree_
    node_split = {node: (int(source.feature[node]), _float32_cut(source.threshold[node]))
                  for node in np.flatnonzero(source.children_left != TREE_LEAF)}
    splits = sorted(set(node_split.values()))
    index = {split: i for i, split in enumerate(splits)}
    features = [BinaryFeature(column, feature_names[column], "threshold", cut)
                for column, cut in splits]
    feature = np.array([index[node_split[node]] if node in node_split else TREE_UNDEFINED
                        for node in range(source.node_count)])
    class_sums = source.value * source.weighted_n_node_samples[:, np.newaxis, np.newaxis]
    if np.any(class_sums < 0):
        # as fit refuses them: a negative weight makes "misclassified weight" meaningless
        raise ValueError("from_sklearn needs a tree fitted with non-negative sample weights: "
                         "this one has nodes of negative class weight")
    tree = Tree(
        children_left=source.children_right,  # x > t: our feature = 0
        children_right=source.children_left,  # x <= t: our feature = 1
        feature=feature,
        value=class_sums,
        n_node_samples=source.n_node_samples,
        weighted_n_node_samples=source.weighted_n_node_samples,
    )
    tree.validate(len(features))
    leaves = tree.is_leaf_mask()
    leaf_sums = class_sums[leaves, 0, :]
    attributes = {
        "tree_": tree,
        "classes_": decision_tree.classes_.copy(),
        "class_ranking_": np.arange(len(decision_tree.classes_)),  # sklearn: first class on ties
        "node_classes_": np.argmax(class_sums[:, 0, :], axis=1),
        "n_features_in_": n_features,
        "binarizer_": Binarizer.from_dict({
            "params": {"strategy": "tree", "n_thresholds": max(1, len(features)),
                       "max_categories": None},
            "n_features_in": n_features,
            "feature_names_in": None if names_in is None else [str(n) for n in names_in],
            "column_kinds": ["numeric"] * n_features,
            "features": [f.to_dict() for f in features],
        }),
        "binary_features_": features,
        "binary_feature_names_": np.array([f.name for f in features], dtype=object),
        "objective_": float((leaf_sums.sum(axis=1) - leaf_sums.max(axis=1)).sum()),
        "lower_bound_": 0.0,
        "optimal_": False,
        "status_": "heuristic",
        "fit_time_": 0.0,
        "n_cache_entries_": 0,
    }
    if names_in is not None:
        attributes["feature_names_in_"] = names_in.copy()
    return attributes


def _float32_cut(threshold: float) -> float:
    """The largest float64 ``c`` such that ``x <= c`` exactly when ``float32(x) <= threshold``."""
    below = np.float32(threshold)  # the largest float32 at most the threshold
    if below > threshold:
        below = np.nextafter(below, np.float32(-np.inf))
    above = np.nextafter(below, np.float32(np.inf))
    middle = (float(below) + float(above)) / 2  # exact: float64 has room for one more bit
    below_is_even = not int(below.view(np.uint32)) & 1  # ties round to the even float32
    return middle if below_is_even else float(np.nextafter(middle, -np.inf))


def to_sklearn(model) -> DecisionTreeClassifier:
    """A fitted scikit-learn ``DecisionTreeClassifier`` holding the tree of ``model``.

    Tools built on scikit-learn's tree (``sklearn.tree.plot_tree``, ``export_text``,
    ``export_graphviz``, dtreeviz) then accept an odtree classifier. Each test is written on
    the original column: a threshold test ``x <= t`` keeps ``t``, a 0/1 column is tested
    by ``x <= 0.5``, and a test ``x is missing`` (``missing="split"``) by ``x <= inf`` with
    the missing values sent right. Every split's ``missing_go_to_left`` sends missing values
    where odtree sends them: the learned direction of ``x <= t or missing`` and ``x <= t``,
    else the child of more training weight. ``tree_.value`` holds each node's class shares,
    as scikit-learn's does; where two classes tie in a leaf, the one odtree predicts gets a
    share larger by 1e-12, so that both trees predict the same class.

    Parameters
    ----------
    model : fitted OptimalTreeClassifier or GreedyTreeClassifier
        A classifier whose tests are thresholds or 0/1 columns.

    Returns
    -------
    decision_tree : DecisionTreeClassifier
        Predicts as ``model`` does on the rows it routes the same way. scikit-learn compares
        features as float32: a value within float32 rounding of a threshold may take the
        other branch.

    Raises
    ------
    TypeError
        If ``model`` is not one of those classifiers (a regressor, a forest, a selector).
    ValueError
        If a test is a category test (``x == value``, or ``x is missing`` on a categorical
        column), or a leaf predicts a class that is not its majority (a cost matrix, a
        callback or the F1 criterion), which a scikit-learn tree cannot hold.

    Notes
    -----
    The returned tree checks its input as scikit-learn does, not as ``model`` does: where a
    model fitted without missing values raises on NaN in its own ``predict``, the
    scikit-learn tree routes NaN by ``missing_go_to_left`` (the child of more training
    weight) without a word.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import export_text
    >>> from .. import OptimalTreeClassifier, to_sklearn
    >>> X, y = load_iris(return_X_y=True)
    >>> model = OptimalTreeClassifier(max_depth=2).fit(X, y)
    >>> print(export_text(to_sklearn(model), feature_names=["sl", "sw", "pl", "pw"]))
    |--- pl <= 2.45
    |   |--- class: 0
    |--- pl >  2.45
    |   |--- pw <= 1.65
    |   |   |--- class: 1
    |   |--- pw >  1.65
    |   |   |--- class: 2
    <BLANKLINE>
    """
    from sklearn.tree._tree import NODE_DTYPE
    from sklearn.tree._tree import Tree as SklearnTree

    from ._classifier import OptimalTreeClassifier
    from ._greedy import GreedyTreeClassifier

    if not isinstance(model, (OptimalTreeClassifier, GreedyTreeClassifier)):
        raise TypeError("to_sklearn takes a fitted OptimalTreeClassifier or "
                        f"GreedyTreeClassifier (one classification tree), not "
                        f"{type(model).__name__}")
    check_is_fitted(model, "tree_")
    tree = model.tree_
    n_classes = len(model.classes_)
    sums = tree.value[:, 0, :]
    totals = sums.sum(axis=1, keepdims=True)
    shares = np.divide(sums, totals, out=np.zeros_like(sums), where=totals > 0)
    # Gini impurity per node, as scikit-learn stores it (the model's is times the weight)
    impurity = np.divide(model._node_impurity(), totals[:, 0], out=np.zeros(len(totals)),
                         where=totals[:, 0] > 0)
    nodes = np.zeros(tree.node_count, dtype=NODE_DTYPE)
    unknown_goes_right = tree.unknown_goes_right()
    for node in range(tree.node_count):
        row = nodes[node]
        row["n_node_samples"] = tree.n_node_samples[node]
        row["weighted_n_node_samples"] = tree.weighted_n_node_samples[node]
        row["impurity"] = impurity[node]
        if tree.is_leaf(node):
            row["left_child"] = row["right_child"] = TREE_LEAF
            row["feature"], row["threshold"] = TREE_UNDEFINED, TREE_UNDEFINED
            predicted = model.node_classes_[node]
            if shares[node, predicted] < shares[node].max() - 1e-12:
                raise ValueError(f"leaf {node} predicts a class that is not its majority (a "
                                 "cost matrix, callback or F1 criterion): a scikit-learn tree "
                                 "cannot hold it")
            shares[node, predicted] += 1e-12  # ties go to odtree's class
            continue
        test = model.binary_features_[tree.feature[node]]
        absent, present = tree.children_left[node], tree.children_right[node]
        # where a missing value goes: the test's learned direction, else (a column without
        # missing values in fit) the heavier child, as odtree routes it
        missing_present = unknown_goes_right[node] if test.missing_holds is None \
            else test.missing_holds
        kinds = getattr(model.binarizer_, "column_kinds_", None)
        if test.kind == "missing" and kinds is not None and kinds[test.column] != "numeric":
            test = replace(test, kind="category")  # "x is missing" of a categorical column
        if test.kind == "threshold":  # present: x <= t, which scikit-learn sends left
            row["left_child"], row["right_child"] = present, absent
            row["threshold"] = test.value
            row["missing_go_to_left"] = missing_present
        elif test.kind == "binary":  # present: x = 1, which scikit-learn sends right
            row["left_child"], row["right_child"] = absent, present
            row["threshold"] = 0.5
            row["missing_go_to_left"] = not missing_present
        elif test.kind == "missing":  # x <= inf holds on every present value, which go left
            row["left_child"], row["right_child"] = absent, present
            row["threshold"] = np.inf
            row["missing_go_to_left"] = False
        else:
            raise ValueError(f"the test {test.name!r} is a category test, which a scikit-learn "
                             "tree cannot hold; encode the column as numbers before fitting")
        row["feature"] = test.column
        nodes[node] = row
    n_features = model.n_features_in_
    sklearn_tree = SklearnTree(n_features, np.array([n_classes], dtype=np.intp), 1)
    sklearn_tree.__setstate__({"max_depth": int(model.get_depth()), "node_count": len(nodes),
                               "nodes": nodes, "values": shares[:, np.newaxis, :].copy()})
    decision_tree = DecisionTreeClassifier(max_depth=int(model.get_depth()))
    decision_tree.tree_ = sklearn_tree
    decision_tree.n_features_in_ = n_features
    decision_tree.n_outputs_ = 1
    decision_tree.classes_ = np.asarray(model.classes_)
    decision_tree.n_classes_ = n_classes
    decision_tree.max_features_ = n_features
    if hasattr(model, "feature_names_in_"):
        decision_tree.feature_names_in_ = model.feature_names_in_
    return decision_tree
