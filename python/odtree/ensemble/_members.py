"""What a forest is made of: its trees as fitted classifiers, and the log of its column
generation."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.base import clone

from ..tree._classifier import OptimalTreeClassifier


class Iteration(NamedTuple):
    """One step of the column generation, as ``log_`` records it."""

    #: Seconds since the fit started, when the master was solved.
    seconds: float
    #: The master's optimum over the trees so far.
    objective: float
    #: The priced tree's edge ``sum_i u_i z_i`` for the instance weights it was priced with.
    edge: float
    #: Whether the tree entered the master (it did unless its edge was too small or it was
    #: already there).
    added: bool
    #: Whether the pricing proved that no tree has a larger edge.
    proven: bool


def member_tree(forest, template, tree, node_classes, **results) -> OptimalTreeClassifier:
    """A tree of ``forest`` as a fitted :class:`OptimalTreeClassifier` on the forest's input:
    a clone of ``template`` with the tree, its classes and its fit ``results`` (``objective``,
    ``lower_bound``, ``status``, ``fit_time``, cache figures) as attributes."""
    member = clone(template)
    member.tree_, member.node_classes_ = tree, np.asarray(node_classes, dtype=np.int64)
    member.classes_ = forest.classes_
    member.class_ranking_ = np.arange(len(forest.classes_))
    member.n_features_in_ = forest.n_features_in_
    if hasattr(forest, "feature_names_in_"):
        member.feature_names_in_ = forest.feature_names_in_
    member.binarizer_ = forest.binarizer_
    member.binary_features_ = forest.binary_features_
    member.binary_feature_names_ = forest.binary_feature_names_
    for name, value in results.items():
        setattr(member, name + "_", value)
    member.optimal_ = member.status_ == "optimal"
    return member
