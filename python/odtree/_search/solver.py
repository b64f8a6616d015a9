"""A binary dataset kept for many solves: the search without the estimators around it.

Boosting, tuning and local improvement solve the same rows hundreds of times with new weights
or limits; a :class:`Solver` builds the bitsets once and solves as often as asked. The
estimators fit through it too, and keep theirs for refits on the same data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral

import numpy as np
from sklearn.utils.validation import check_array

from ..tree._arrays import Tree
from .memory import parse_bytes
from .progress import Watcher, long_search_notice
from .vocabulary import CACHE_FIGURES, DEFAULTS, MAX_DEPTH, branching_nodes, leaf_penalty


@dataclass
class Solution:
    """The outcome of one :meth:`Solver.solve`.

    Attributes
    ----------
    tree : Tree
        The tree over the binary features; ``tree.value`` holds each node's statistics
        (the weighted class sums for class objectives).
    node_labels : ndarray of int64, shape (node_count,)
        The class index each node predicts were it a leaf, as the objective chose it (0 for
        objectives without classes).
    leaf_values : ndarray of float64, shape (node_count,)
        Each node's prediction as a number were it a leaf: its class index, or the value of a
        regression objective.
    objective : float
        The tree's objective (leaf penalties included).
    lower_bound : float
        A proven lower bound on the optimal objective.
    status : str
        ``"optimal"``, ``"time_limit"``, ``"interrupted"``, ``"memory_limit"``,
        ``"stopped"`` (by a progress callback) or ``"infeasible"``.
    cache : dict
        What the cache held and did (``cache_entries``, ``cache_peak_bytes``, ``n_wipes``, ...).
    seconds : float
        Wall time of the search.
    pareto_front : ndarray of shape (n_points, 2)
        For ``"f1_front"`` and ``"balanced_accuracy_front"``, the root's Pareto front of
        (false positives, false negatives); else empty.
    progress : ndarray of shape (n_events, 3)
        How the search went: each better tree it found at the root, then where it ended, as
        (seconds since the start, objective, proven lower bound). The bound of a tree found
        along the way is 0: it is proven only when the search ends.
    node_losses : ndarray of float64, shape (node_count,)
        Each node's loss were it a leaf (its rows' cost around its prediction, the leaf
        penalty left out), as the core computed it: the node impurities of the regressor
        and the clusterer.
    """

    tree: Tree
    node_labels: np.ndarray
    leaf_values: np.ndarray
    objective: float
    lower_bound: float
    status: str
    cache: dict = field(default_factory=dict)
    seconds: float = 0.0
    progress: np.ndarray = field(default_factory=lambda: np.empty((0, 3)))
    pareto_front: np.ndarray = field(default_factory=lambda: np.empty((0, 2)))
    node_losses: np.ndarray = field(default_factory=lambda: np.empty(0))
    n_features: int | None = None
    """The columns of the 0/1 matrices :meth:`apply` takes (``None``: not checked)."""

    @property
    def optimal(self) -> bool:
        """Whether the tree is proven optimal."""
        return self.status == "optimal"

    def apply(self, X_binary) -> np.ndarray:
        """The leaf each row of the 0/1 matrix ``X_binary`` reaches. The matrix must have the
        solver's columns and hold only 0 and 1 (a ValueError says what is wrong)."""
        X = _binary_matrix(X_binary)
        if self.n_features is not None and X.shape[1] != self.n_features:
            raise ValueError(f"X_binary has {X.shape[1]} columns; the solver was built on "
                             f"{self.n_features}")
        return self.tree.apply(X)

    def predict(self, X_binary) -> np.ndarray:
        """Each row's leaf value: a class index (``0 .. k-1``, positions in
        :attr:`Solver.classes_`, not the labels themselves), or the prediction of a
        regression objective. ``X_binary`` as for :meth:`apply`."""
        return self.leaf_values[self.apply(X_binary)]

    @classmethod
    def _from_result(cls, result: dict) -> Solution:
        tree = Tree(
            children_left=result["children_left"], children_right=result["children_right"],
            feature=result["feature"], value=result["value"],
            n_node_samples=result["n_node_samples"],
            weighted_n_node_samples=result["weighted_n_node_samples"])
        cache = {name: int(result[name]) for name in CACHE_FIGURES}
        return cls(tree=tree, node_labels=np.asarray(result["label"], dtype=np.int64),
                   leaf_values=np.asarray(result["leaf_value"], dtype=np.float64),
                   objective=float(result["objective"]),
                   lower_bound=float(result["lower_bound"]), status=str(result["status"]),
                   cache=cache, seconds=float(result["seconds"]),
                   progress=np.asarray(result["progress"], dtype=np.float64).reshape(-1, 3),
                   pareto_front=np.asarray(result["pareto_front"],
                                           dtype=np.float64).reshape(-1, 2),
                   node_losses=np.asarray(result["node_loss"], dtype=np.float64))


#: The objective inputs that are arrays of numbers (lists are accepted too).
_ARRAY_INPUTS = frozenset(("cost_matrix", "targets", "quantiles", "points"))



class Solver:
    """Optimal trees over one binary dataset, solved as often as wanted.

    Only the distinct features are kept (copies, complements and constant columns never
    change the optimum). Each :meth:`solve` takes new sample weights, limits or an objective
    without building the bitsets again.

    The solver keeps its work: the subproblems an exact search of misclassification, a cost
    matrix or squared error proved answer the next such search with the same objective,
    weights and per-node rules (``min_samples_leaf``, ``ccp_alpha``, the search switches),
    whatever its upper bound or time limit, and its depth too unless it has a leaf budget
    (searches with leaf budgets share their work with those of the same depth, and searches
    without one with each other). So a search with more depth or leaves, or one resumed after
    its time limit, does only the new work, and returns the tree a fresh search returns;
    ``cache_kept_entries`` in :attr:`Solution.cache` counts what it found. :meth:`keep_work`
    turns this off (and frees the memory held). Nothing is kept under a ``memory_limit`` or
    monotonicity constraints.

    Parameters
    ----------
    X_binary : array-like of shape (n_samples, n_features)
        0/1 features, such as the output of :class:`Binarizer`.
    y : array-like of shape (n_samples,) or None, default=None
        Class labels of any type; ``None`` for tasks without classes (regression targets and
        points go to :meth:`solve`).

    Attributes
    ----------
    classes_ : ndarray
        The class labels, sorted (one class ``0`` when ``y`` is None).
    n_samples, n_features : int
        The shape of ``X_binary``.

    Examples
    --------
    >>> import numpy as np
    >>> from odtree import Solver
    >>> X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
    >>> solver = Solver(X, ["a", "b", "a", "b"])
    >>> solver.solve(max_depth=2).objective
    0.0
    >>> solver.solve(max_depth=1, sample_weight=[1, 1, 5, 1]).objective
    2.0
    """

    def __init__(self, X_binary, y=None):
        X = _binary_matrix(X_binary)
        if y is None:
            self.classes_, codes = np.array([0]), np.zeros(len(X), dtype=np.int64)
        else:
            y = np.asarray(y)
            if y.shape != (len(X),):
                raise ValueError(f"y has shape {y.shape}; X_binary has {len(X)} rows")
            self.classes_, codes = np.unique(y, return_inverse=True)
        self._build(X, codes, len(self.classes_))
        self.keep_work(True)

    def keep_work(self, on: bool = True) -> None:
        """Whether each exact search keeps its proven subproblems for the next (see the
        class description); ``False`` frees what is kept. A solver an estimator builds for
        itself keeps nothing unless asked."""
        self._keep = bool(on)
        self._core.keep_work(self._keep)

    @classmethod
    def _from_codes(cls, X_binary: np.ndarray, codes: np.ndarray, n_classes: int) -> Solver:
        """A solver over checked data: a contiguous uint8 matrix and class codes. It is an
        estimator's own, never pickled, so it keeps no packed copy of the data."""
        solver = cls.__new__(cls)
        solver.classes_ = np.arange(n_classes)
        solver._build(X_binary, codes, n_classes, picklable=False)
        return solver

    def _build(self, X, codes, n_classes, picklable=True) -> None:
        from .. import _core  # the compiled search

        X = np.ascontiguousarray(X, dtype=np.uint8)
        codes = np.ascontiguousarray(codes, dtype=np.uint32)
        self.n_samples, self.n_features = X.shape
        self._core = _core.Solver(X, codes, n_classes)
        # what pickling needs, one bit per entry (the core keeps only the distinct features)
        self._rows = np.packbits(X, axis=1) if picklable else None
        self._codes, self._keep = codes, False

    def solve(self, sample_weight=None, *, max_depth=3, min_samples_leaf=1, time_limit=None,
              upper_bound=None, max_leaf_nodes=None, ccp_alpha=0.0, lexicographic=False,
              search=DEFAULTS["search"], cache=None, branching=None, depth2_solver=None,
              incremental_counting=None, similarity_bound=None, child_order=None,
              memory_limit=None, max_cache_entries=None, wipe_strategy=DEFAULTS["wipe_strategy"],
              wipe_factor=DEFAULTS["wipe_factor"], anytime=None, objective="misclassification",
              verbose=0, callback=None, min_samples_split=2, min_weight_leaf=0.0, monotonic=None,
              n_jobs=None, **inputs):
        """The optimal tree for these weights, limits and objective.

        Parameters
        ----------
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights; rows of weight zero are ignored.
        max_depth, min_samples_leaf, time_limit, upper_bound, max_leaf_nodes, ccp_alpha, \
lexicographic, search, cache, branching, depth2_solver, incremental_counting, \
similarity_bound, child_order, memory_limit, max_cache_entries, wipe_strategy, wipe_factor, \
anytime
            As in :class:`OptimalTreeClassifier`.
        objective : str, default="misclassification"
            ``"misclassification"``, ``"cost_matrix"``, ``"squared_error"``,
            ``"absolute_error"``, ``"quantile"``, ``"quantiles"``, ``"centroid"``, ``"f1"``,
            ``"balanced_accuracy"``, ``"f1_front"``, ``"balanced_accuracy_front"``,
            ``"fast_error_function"`` or ``"error_function"``. For the metrics the
            solution's objective is the loss, 1 − metric; the ``_front`` forms also find the
            root's Pareto front (``pareto_front``), more slowly.
        verbose, callback
            As in :class:`OptimalTreeClassifier`: print the progress, and hand each
            :class:`Progress` event to ``callback``, which stops the search by returning true.
        min_samples_split : int, default=2
            A node splits only if it holds at least this many rows of non-zero weight.
        min_weight_leaf : float, default=0.0
            Each leaf weighs at least this much (the weights summed, not a fraction).
        monotonic : array-like of int or None, default=None
            One constraint per binary feature, for two classes and misclassification only:
            ``1``: at every split on the feature, each leaf below the right child (feature
            = 1) predicts a class no lower than each leaf below the left child; ``-1``: no
            higher; ``0``: none.
        n_jobs : int or None, default=None
            Threads of the search: the root's splits are shared out among them, and the tree
            is the one a single thread finds (with real-valued weights, up to subtrees whose
            costs differ by rounding noise alone). ``None`` means 1 unless a
            :func:`joblib.parallel_config` context says otherwise; ``-1`` means all cores.
            Under a memory limit each thread gets a share of it. A Python objective, the
            anytime rounds and the quantile driver run on one thread (the guide says why).
        **inputs
            What the objective needs: ``cost_matrix``, ``targets``, ``quantile``,
            ``quantiles``, ``points``, or ``function`` (and ``labelled``) for a callback.

        Returns
        -------
        solution : Solution or list of Solution
            One per quantile for ``objective="quantiles"``.
        """
        from .. import _core

        for name, value, least in (("max_depth", max_depth, 0),
                                   ("min_samples_leaf", min_samples_leaf, 1),
                                   ("max_leaf_nodes", max_leaf_nodes, 1),
                                   ("min_samples_split", min_samples_split, 0)):
            _check_count(name, value, least)
        if max_depth is None:
            if ccp_alpha <= 0 and max_leaf_nodes is None:
                raise ValueError("max_depth=None needs ccp_alpha > 0 or max_leaf_nodes, which "
                                 "bound the size of the tree")
            # the leaf penalty or the leaves bound the depth as the search goes (and the
            # engine's depth, 64, is beyond any tree a person reads)
            max_depth = min(self.n_features, MAX_DEPTH)
        weight = None
        if sample_weight is not None:
            weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
        total = float(self.n_samples if weight is None else weight.sum())
        config = _core.Config(
            max_depth=max_depth,
            # beyond the number of rows, every value means "no split"
            min_samples_leaf=min(min_samples_leaf, self.n_samples + 1),
            upper_bound=np.inf if upper_bound is None else float(upper_bound),
            search=search,
            max_nodes=branching_nodes(max_leaf_nodes),
            leaf_penalty=leaf_penalty(ccp_alpha, total),
            lexicographic=bool(lexicographic), cache=cache, branching=branching,
            depth2_solver=depth2_solver, incremental_counting=incremental_counting,
            similarity_bound=similarity_bound, child_order=child_order,
            memory_limit=None if memory_limit is None else parse_bytes(memory_limit),
            max_cache_entries=max_cache_entries, wipe_strategy=wipe_strategy,
            wipe_factor=float(wipe_factor), time_limit=time_limit, anytime=anytime,
            min_samples_split=min(int(min_samples_split), self.n_samples + 1),
            min_leaf_weight=float(min_weight_leaf),
            monotonic=None if monotonic is None else [int(sign) for sign in monotonic],
            n_jobs=threads(n_jobs))
        for name in _ARRAY_INPUTS.intersection(inputs):
            inputs[name] = np.ascontiguousarray(inputs[name], dtype=np.float64)
        watcher = Watcher(verbose, callback)
        progress = watcher if watcher.active else None
        with long_search_notice(time_limit is None and progress is None):
            result = self._core.solve(config, objective=objective, sample_weight=weight,
                                      progress=progress, **inputs)
        solutions = [Solution._from_result(one) for one in
                     (result if isinstance(result, list) else [result])]
        for solution in solutions:
            solution.n_features = self.n_features
        if progress is not None and len(solutions[0].progress):
            seconds, objective_value, bound = solutions[0].progress[-1]
            watcher(seconds, objective_value, bound, final=True)
        return solutions if isinstance(result, list) else solutions[0]

    def __getstate__(self) -> dict:
        """The data the solver was built on, one bit per 0/1 entry: a pickled solver (sent to
        a joblib or Dask worker, say) is as small as its data, and builds its bitsets again
        when unpickled. The work it kept is left behind."""
        if self._rows is None:
            raise TypeError("this Solver is an estimator's own and keeps no copy of its data "
                            "to pickle; pickle the fitted estimator instead")
        return {"classes_": self.classes_, "n_features": self.n_features,
                "rows": self._rows, "codes": self._codes,
                "keep_work": self._keep}

    def __setstate__(self, state: dict) -> None:
        self.classes_ = state["classes_"]
        X = np.unpackbits(state["rows"], axis=1, count=state["n_features"])
        self._build(X, state["codes"], len(self.classes_))
        self.keep_work(state["keep_work"])


def threads(n_jobs) -> int:
    """The number of threads ``n_jobs`` means, scikit-learn's way: ``None`` is 1 unless a
    joblib context sets it, negative values count back from the number of cores."""
    from joblib import effective_n_jobs

    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral)
                               or n_jobs == 0):
        raise ValueError(f"n_jobs must be a non-zero integer or None, got {n_jobs!r}")
    return max(1, int(effective_n_jobs(n_jobs)))


def _check_count(name: str, value, least: int) -> None:
    """A ValueError naming ``name`` unless ``value`` is None or a whole number of at least
    ``least`` (bools are not numbers here)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, Integral) or value < least:
        raise ValueError(f"{name} must be a whole number of at least {least} (or None), "
                         f"got {value!r}")


#: Entries of a 0/1 matrix checked at a time (the check's temporaries stay this small).
_CHECKED_AT_ONCE = 1 << 22


def _binary_matrix(X_binary) -> np.ndarray:
    """``X_binary`` as a 2-D array of only 0 and 1, in its own dtype (checked in blocks of
    rows, never copied to a wider type), or a ValueError that says what is wrong."""
    X = check_array(X_binary, dtype=None, ensure_all_finite=True)
    if X.dtype != bool:
        rows = max(1, _CHECKED_AT_ONCE // max(1, X.shape[1]))
        for start in range(0, len(X), rows):
            block = X[start:start + rows]
            if not ((block == 0) | (block == 1)).all():
                raise ValueError("X_binary must hold only 0 and 1 (binarize it with "
                                 "odtree.Binarizer)")
    return X
