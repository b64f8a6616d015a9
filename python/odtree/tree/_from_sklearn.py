"""Turn a fitted scikit-learn decision tree into a fitted odtree classifier."""

from __future__ import annotations

import numpy as np
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.validation import check_is_fitted

from ..preprocessing._binarizer import Binarizer
from ..preprocessing._features import BinaryFeature
from ._arrays import TREE_LEAF, TREE_UNDEFINED, Tree
from ._classifier import OptimalTreeClassifier
from ._fitted import fitted_classifier

__all__ = ["from_sklearn"]


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
    binarizer = Binarizer.from_dict({
        "params": {"strategy": "tree", "n_thresholds": max(1, len(features)),
                   "max_categories": None},
        "n_features_in": n_features,
        "feature_names_in": None if names_in is None else [str(n) for n in names_in],
        "column_kinds": ["numeric"] * n_features,
        "features": [f.to_dict() for f in features],
    })
    # sklearn's tree predicts the first of tied classes, as the default node classes do
    return fitted_classifier(OptimalTreeClassifier(max_depth=int(decision_tree.get_depth())),
                             tree=tree, classes=decision_tree.classes_.copy(),
                             binarizer=binarizer)


def _float32_cut(threshold: float) -> float:
    """The largest float64 ``c`` such that ``x <= c`` exactly when ``float32(x) <= threshold``."""
    below = np.float32(threshold)  # the largest float32 at most the threshold
    if below > threshold:
        below = np.nextafter(below, np.float32(-np.inf))
    above = np.nextafter(below, np.float32(np.inf))
    middle = (float(below) + float(above)) / 2  # exact: float64 has room for one more bit
    below_is_even = not int(below.view(np.uint32)) & 1  # ties round to the even float32
    return middle if below_is_even else float(np.nextafter(middle, -np.inf))
