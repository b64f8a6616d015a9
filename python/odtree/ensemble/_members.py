"""What a forest is made of: its trees as fitted classifiers, and the log of its column
generation."""

from __future__ import annotations

from typing import NamedTuple

from sklearn.base import clone

from ..tree._classifier import OptimalTreeClassifier
from ..tree._fitted import fitted_classifier


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
    return fitted_classifier(clone(template), tree=tree, classes=forest.classes_,
                             binarizer=forest.binarizer_, node_classes=node_classes, **results)
