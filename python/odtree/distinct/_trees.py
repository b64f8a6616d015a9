"""Enumeration of the distinct greedy trees over all feature subsets (Ruggieri's DTdistinct),
run by the Rust core."""

from __future__ import annotations

from collections.abc import Iterator
from numbers import Integral, Real

from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from .._search.interrupts import note_interrupt
from .._utils.deadline import Deadline
from ..tree._greedy import GreedyTreeClassifier, TrainingColumns, read_training_columns

__all__ = ["DistinctTrees", "distinct_trees"]

_BATCH = 64  # trees fetched from the core per call


class DistinctTrees(Iterator):
    """Iterator over the distinct trees, as :func:`distinct_trees` returns it.

    Each item is a pair ``(features, tree)``: ``features`` is the tuple of the column numbers
    the tree uses, ascending, the smallest subset that produces it (any superset of it among
    the columns gives the same tree), and ``tree`` is a fitted
    :class:`GreedyTreeClassifier`, the tree grown on those columns. Trees are fetched from
    the core in small batches; at most a batch and one tree per column are held in memory.

    Attributes
    ----------
    n_built : int
        Trees built so far; at least ``n_found``, the rest are duplicates the search could
        not avoid.
    n_found : int
        Distinct trees found so far.
    done : bool
        Whether the search is over: every distinct tree has been found.
    stopped : {"time_limit", "interrupted"} or None
        Why the search stopped before it was over: the time limit, or a Ctrl-C during the
        search (the trees found until then are still returned, then the iteration ends
        without raising ``KeyboardInterrupt``; a second Ctrl-C within 10 s raises it); None
        while it runs or once it is done. A Ctrl-C that lands in the caller's own loop body,
        between two trees, is raised there, as Python does.
    """

    def __init__(self, search, data: TrainingColumns, params: dict, fitted_on: BaseEstimator,
                 time_limit: float | None):
        self._search = search
        self._data = data
        self._params = params
        self._fitted_on = fitted_on
        self._deadline = Deadline(time_limit)
        self._batch: list = []
        self.stopped: str | None = None

    @property
    def n_built(self) -> int:
        return self._search.n_built

    @property
    def n_found(self) -> int:
        return self._search.n_found

    @property
    def done(self) -> bool:
        return self._search.done

    def __next__(self) -> tuple[tuple[int, ...], GreedyTreeClassifier]:
        while True:
            try:
                return self._advance()
            except KeyboardInterrupt:
                # a Ctrl-C between two core calls: the trees already found are still given
                self._stop("interrupted")

    def _stop(self, stopped: str | None) -> None:
        """Records why a core call stopped; a second Ctrl-C soon after raises."""
        if stopped == "interrupted":
            note_interrupt()
        self.stopped = self.stopped or stopped

    def _advance(self) -> tuple[tuple[int, ...], GreedyTreeClassifier]:
        """The next pair, fetching a batch from the core when none is left."""
        if not self._batch:
            if self._search.done or self.stopped:
                raise StopIteration
            batch, stopped = self._search.next_batch(_BATCH, self._deadline.left())
            self._batch = list(reversed(batch))
            self._stop(stopped)
            if not self._batch:
                raise StopIteration
        features, result = self._batch[-1]
        tree = GreedyTreeClassifier._from_core(self._params, self._data, result,
                                               self._fitted_on)
        self._batch.pop()  # only once converted, so that a Ctrl-C loses no tree
        return tuple(features), tree

    def count(self) -> int:
        """Runs the rest of the search without building classifiers and returns how many
        distinct trees it finds, counting those already fetched but not yet returned.

        Returns
        -------
        count : int
            Distinct trees not yet returned by the iteration (until the time limit or a
            Ctrl-C, which :attr:`stopped` then names).

        Examples
        --------
        >>> import numpy as np
        >>> from odtree import distinct_trees
        >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
        >>> trees = distinct_trees(X, [0, 1, 1, 1], min_cases=1)
        >>> next(trees)[0]
        (0, 1)
        >>> trees.count()
        3
        """
        pending, self._batch = len(self._batch), []
        found, stopped = self._search.count(self._deadline.left())
        self._stop(stopped)
        return pending + found


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "criterion": [StrOptions({"gain_ratio", "entropy"})],
        "min_cases": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [Interval(Integral, 0, None, closed="left"), None],
        "min_gain": [Interval(Real, 0, None, closed="left")],
        "order": [StrOptions({"frontier_asc", "frontier_desc", "index"})],
        "incremental": ["boolean"],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "count_only": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def distinct_trees(X, y, *, criterion="entropy", min_cases=2, max_depth=None, min_gain=0.0,
                   order="frontier_asc", incremental=True, time_limit=None, count_only=False):
    """Every distinct tree that :class:`GreedyTreeClassifier` grows on some subset of the
    columns, each exactly once.

    Runs Ruggieri's DTdistinct (ICML 2017) in the Rust core, with the loop over the used
    optional features as its proof requires. The search removes one column at a time, only
    columns the current tree uses, and reports a tree only at the one search node where it
    uses every required column. With ``incremental`` a tree without a column is rebuilt from
    its parent tree: only the subtrees under the top-most tests of the removed column are
    grown again. It holds one tree per column at most, and stops whenever the caller stops
    iterating.

    Parameters
    ----------
    X : array-like, sparse matrix or pandas DataFrame of shape (n_samples, n_features)
        Training data, as for :meth:`GreedyTreeClassifier.fit`.
    y : array-like of shape (n_samples,)
        Class labels.
    criterion : {"entropy", "gain_ratio"}, default="entropy"
        As in :class:`GreedyTreeClassifier`, with its default (information gain, as in the
        paper): ``GreedyTreeClassifier()`` fitted on a listed tree's columns grows that tree.
    min_cases : int, default=2
        As in :class:`GreedyTreeClassifier`.
    max_depth : int or None, default=None
        As in :class:`GreedyTreeClassifier`.
    min_gain : float, default=0.0
        As in :class:`GreedyTreeClassifier`.
    order : {"frontier_asc", "frontier_desc", "index"}, default="frontier_asc"
        The order in which a search node removes columns: by ascending or descending
        frontier (the training rows reaching the column's tests), or by column number. Every
        order finds the same trees; ascending frontier builds the fewest duplicates.
    incremental : bool, default=True
        Rebuild only the affected subtrees (True), or each tree from scratch.
    time_limit : float or None, default=None
        Seconds after which the search stops; the trees found until then are returned. A
        Ctrl-C stops it in the same way (see :attr:`DistinctTrees.stopped`).
    count_only : bool, default=False
        Return only the number of distinct trees (found within ``time_limit``).

    Returns
    -------
    trees : DistinctTrees or int
        An iterator of ``(features, tree)`` pairs (see :class:`DistinctTrees`) in the order
        of the search, which starts with the tree on all columns; with ``count_only``, the
        number of distinct trees.

    Examples
    --------
    >>> import numpy as np
    >>> from odtree import distinct_trees
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> y = [0, 1, 1, 1]  # x0 or x1
    >>> [features for features, tree in distinct_trees(X, y, min_cases=1)]
    [(0, 1), (0,), (1,), ()]
    >>> distinct_trees(X, y, min_cases=1, count_only=True)
    4
    """
    from .._search import learners  # the compiled enumeration

    params = {"criterion": criterion, "min_cases": min_cases, "max_depth": max_depth,
              "min_gain": float(min_gain)}
    fitted_on = GreedyTreeClassifier(**params)
    data = read_training_columns(fitted_on, X, y)
    search = learners.DistinctTreeSearch(*data.core_args(), **params, order=order,
                                      incremental=incremental)
    trees = DistinctTrees(search, data, params, fitted_on, time_limit)
    return trees.count() if count_only else trees
