"""Turn a fitted odtree classifier into a fitted scikit-learn decision tree."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.validation import check_is_fitted

from ._arrays import TREE_LEAF, TREE_UNDEFINED


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
    >>> from odtree import OptimalTreeClassifier, to_sklearn
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

    if not getattr(model, "_one_classification_tree", False):
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
