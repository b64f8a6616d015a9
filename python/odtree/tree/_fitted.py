"""The fitted state of a classification tree, set in one place for every way one is made: a
forest's member, a tree read from scikit-learn, the greedy learner, DT-SLIM's result."""

from __future__ import annotations

import numpy as np

from ._arrays import Tree


def set_input(model, binarizer, binary_feature_names=None) -> None:
    """Sets what ``model`` knows of its input from its fitted ``binarizer``: the columns
    (``n_features_in_``, ``feature_names_in_`` where named) and the binary features, whose
    names are given where they are known already."""
    model.n_features_in_ = binarizer.n_features_in_
    names = getattr(binarizer, "feature_names_in_", None)
    if names is not None:
        model.feature_names_in_ = names
    model.binarizer_ = binarizer
    model.binary_features_ = list(binarizer.features_)
    if binary_feature_names is None:
        binary_feature_names = [f.name for f in model.binary_features_]
    model.binary_feature_names_ = np.array(binary_feature_names, dtype=object)


def fitted_classifier(model, *, tree: Tree, classes, binarizer, node_classes=None,
                      status: str = "heuristic", objective: float | None = None,
                      lower_bound: float = 0.0, fit_time: float = 0.0,
                      binary_feature_names=None, **results):
    """``model`` with the fitted attributes of a classifier holding ``tree``, and returned.

    ``node_classes`` is the class index each node predicts (by default its heaviest class,
    ties to the lowest index); ``objective`` the tree's misclassified weight (by default
    computed from the leaves); ``binary_feature_names`` the binary features' names where
    they are known already; ``results`` further fit results, each set as ``name_``
    (``n_cache_entries`` is 0 unless given). ``optimal_`` is whether ``status`` is
    ``"optimal"``.
    """
    model.tree_ = tree
    model.classes_ = classes
    model.class_ranking_ = np.arange(len(classes))
    sums = tree.value[:, 0, :]
    model.node_classes_ = (np.argmax(sums, axis=1) if node_classes is None
                           else np.asarray(node_classes, dtype=np.int64))
    set_input(model, binarizer, binary_feature_names)
    if objective is None:
        leaves = tree.is_leaf_mask()
        kept = sums[leaves, model.node_classes_[leaves]]
        objective = float(sums[leaves].sum() - kept.sum())
    model.objective_ = objective
    model.lower_bound_ = lower_bound
    model.status_ = status
    model.optimal_ = status == "optimal"
    model.fit_time_ = fit_time
    model.n_cache_entries_ = results.pop("n_cache_entries", 0)
    for name, value in results.items():
        setattr(model, name + "_", value)
    return model
