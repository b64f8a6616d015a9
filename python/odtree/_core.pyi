"""The compiled core of odtree (the Rust crate ``odtree-py``): its classes, functions and the
core's vocabularies, typed. Checked against the built module by
``python -m mypy.stubtest odtree._core``.

Results cross the boundary as dicts of numpy arrays and numbers; each kind of result is one
``TypedDict`` below, which names every key the binding writes (``crates/odtree-py/src/
convert.rs``). The ``TypedDict`` classes exist for type checkers only: import them under
``typing.TYPE_CHECKING``.
"""

from collections.abc import Callable, Sequence
from typing import Final, Literal, TypedDict, final, overload, type_check_only

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "Solver",
    "Config",
    "greedy_tree",
    "solve_numeric",
    "DistinctTreeSearch",
    "backward_elimination",
    "rashomon_set",
    "MAX_DEPTH",
    "OPTIONS",
    "DEFAULTS",
    "PRESETS",
    "OBJECTIVES",
    "STATUSES",
    "CACHE_FIGURES",
]

_Ints = NDArray[np.int64]
_Floats = NDArray[np.float64]

#: The deepest tree the exact search takes (``max_depth`` at most this).
MAX_DEPTH: Final[int]
#: For each string option of :class:`Config` (``search``, ``cache``, ``branching``,
#: ``child_order``, ``wipe_strategy``), its valid values in the core's order.
OPTIONS: Final[dict[str, tuple[str, ...]]]
#: The keyword defaults of :class:`Config` that are not ``None`` (``None`` leaves a switch to
#: the preset, or sets no limit).
DEFAULTS: Final[dict[str, int | float | str | bool]]
#: For each preset of ``search``, the switches it picks when :class:`Config` leaves them at
#: ``None``: ``cache``, ``branching``, ``child_order`` (names) and ``depth2_solver``,
#: ``incremental_counting``, ``similarity_bound``, ``anytime`` (bools).
PRESETS: Final[dict[str, dict[str, str | bool]]]
#: The built-in objectives of :meth:`Solver.solve` (besides the callbacks
#: ``"error_function"`` and ``"fast_error_function"``).
OBJECTIVES: Final[tuple[str, ...]]
#: Every status a search reports: ``"optimal"``, ``"time_limit"``, ``"interrupted"``,
#: ``"infeasible"``, ``"heuristic"``, ``"memory_limit"``, ``"stopped"``.
STATUSES: Final[tuple[str, ...]]
#: The cache figures of a :class:`SolveResult`, in the order the core reports them.
CACHE_FIGURES: Final[tuple[str, ...]]

@type_check_only
class SolveResult(TypedDict):
    """One tree of :meth:`Solver.solve`, its nodes in pre-order (arrays of ``node_count``)."""

    #: Left child (feature = 0) of each node, -1 at leaves.
    children_left: _Ints
    #: Right child (feature = 1) of each node, -1 at leaves.
    children_right: _Ints
    #: The input column each node tests, -2 at leaves.
    feature: _Ints
    #: Each node's statistics (class weights, or the objective's), ``node_count`` rows.
    value: _Floats
    n_node_samples: _Ints
    weighted_n_node_samples: _Floats
    #: The class each node predicts.
    label: _Ints
    #: The value each node predicts (regression), else its label.
    leaf_value: _Floats
    #: Each node's loss were it a leaf, leaf penalty left out (the node impurities).
    node_loss: _Floats
    objective: float
    lower_bound: float
    #: One of :data:`STATUSES`.
    status: str
    cache_entries: int
    cache_bytes: int
    cache_peak_entries: int
    cache_peak_bytes: int
    n_wipes: int
    cache_created_entries: int
    repaired: int
    #: Keys found kept from the solver's last search (see ``Solver.keep_work``).
    cache_kept_entries: int
    seconds: float
    #: (seconds, objective, proven lower bound) of each better tree, then the end.
    progress: _Floats
    #: For F1 and balanced accuracy, the root's front of (false positives, false negatives);
    #: else shape (0, 2).
    pareto_front: _Floats

@type_check_only
class NumericResult(TypedDict):
    """The tree of :func:`solve_numeric`, its nodes in pre-order."""

    #: Child holding the rows with ``x <= threshold``, -1 at leaves.
    children_left: _Ints
    children_right: _Ints
    #: The column each node tests, -2 at leaves.
    feature: _Ints
    threshold: _Floats
    value: _Floats
    n_node_samples: _Ints
    weighted_n_node_samples: _Floats
    label: _Ints
    leaf_value: _Floats
    #: Each node's loss were it a leaf, leaf penalty left out.
    node_loss: _Floats
    objective: float
    lower_bound: float
    status: str
    cache_entries: int
    cache_peak_entries: int
    cache_peak_bytes: int
    n_wipes: int
    seconds: float

@type_check_only
class GreedyTreeDict(TypedDict):
    """A greedy (C4.5) tree as flat arrays, its nodes in pre-order."""

    #: The child holding the rows where the node's test holds, -1 at leaves.
    children_true: _Ints
    #: The child holding the rows where it fails, -1 at leaves.
    children_false: _Ints
    feature: _Ints
    #: The threshold of ``x <= t`` tests, else NaN.
    threshold: _Floats
    #: The code of ``x == code`` tests, else -1.
    category: _Ints
    class_counts: _Ints
    class_weights: _Floats
    n_node_samples: _Ints
    weighted_n_node_samples: _Floats
    label: _Ints
    #: Bits per row, 0 at leaves.
    gain: _Floats
    used_features: _Ints

@type_check_only
class GreedyTreeResult(GreedyTreeDict):
    """The tree of :func:`greedy_tree` and why it stopped early, if it did."""

    #: ``None``, ``"time_limit"`` or ``"interrupted"``.
    stopped: str | None

@type_check_only
class EliminationResult(TypedDict):
    """The outcome of :func:`backward_elimination`."""

    #: The accepted feature subsets, in order.
    trace_features: list[list[int]]
    #: Their misclassified search rows, summed over the folds.
    trace_errors: list[int]
    n_built: int
    #: ``None``, ``"time_limit"`` or ``"interrupted"``.
    stopped: str | None

@type_check_only
class RashomonResult(TypedDict):
    """The outcome of :func:`rashomon_set`."""

    #: The least cost of a tree (misclassified weight plus the leaf penalties).
    optimum: float
    #: Every tree costing at most this is in the set.
    bound: float
    #: The set's size, counted without building it.
    count: int
    #: The listed trees' costs, ascending.
    costs: _Floats
    #: How often the kept optima and histograms were wiped to stay within ``max_bytes``.
    wipes: int
    #: Each listed tree's number of nodes.
    sizes: NDArray[np.uint32]
    #: The listed trees one after another, each in pre-order: a split as its feature, a leaf
    #: as ``-1 - class``.
    codes: _Ints
    #: Each node's class weights (``n_classes`` a node), in the order of ``codes``.
    node_weights: _Floats
    #: Each node's rows, in the order of ``codes``.
    node_rows: NDArray[np.uint32]
    #: ``None``, ``"time_limit"`` or ``"interrupted"``.
    stopped: str | None

@final
class Config:
    """Search settings, parsed and checked once when built (see ``DEFAULTS``, ``OPTIONS``)."""

    def __new__(
        cls,
        *,
        max_depth: int = 3,
        min_samples_leaf: int = 1,
        search: str = "murtree",
        upper_bound: float = ...,
        max_nodes: int | None = None,
        leaf_penalty: float = 0.0,
        lexicographic: bool = False,
        cache: str | None = None,
        branching: str | None = None,
        depth2_solver: bool | None = None,
        incremental_counting: bool | None = None,
        similarity_bound: bool | None = None,
        child_order: str | None = None,
        memory_limit: int | None = None,
        max_cache_entries: int | None = None,
        wipe_strategy: str = "reuses",
        wipe_factor: float = 0.1,
        time_limit: float | None = None,
        anytime: bool | None = None,
        min_samples_split: int = 2,
        min_leaf_weight: float = 0.0,
        monotonic: Sequence[int] | None = None,
        n_jobs: int = 1,
    ) -> Config: ...

@final
class Solver:
    """A dataset's bitsets, built once and solved many times."""

    def __new__(
        cls, x: NDArray[np.uint8], y: NDArray[np.uint32], n_classes: int
    ) -> Solver: ...
    @property
    def shape(self) -> tuple[int, int, int]:
        """Number of rows, features and classes."""
    def keep_work(self, on: bool) -> None:
        """Whether exact searches keep their cache for the next search on this solver; off
        frees what is kept."""
    @overload
    def solve(
        self,
        config: Config,
        *,
        objective: Literal["quantiles"],
        sample_weight: NDArray[np.float64] | None = None,
        cost_matrix: NDArray[np.float64] | None = None,
        targets: NDArray[np.float64] | None = None,
        quantile: float = 0.5,
        quantiles: NDArray[np.float64] | None = None,
        points: NDArray[np.float64] | None = None,
        function: Callable[..., object] | None = None,
        labelled: bool = True,
        progress: Callable[[float, float, float], object] | None = None,
    ) -> list[SolveResult]: ...
    @overload
    def solve(
        self,
        config: Config,
        *,
        objective: str = "misclassification",
        sample_weight: NDArray[np.float64] | None = None,
        cost_matrix: NDArray[np.float64] | None = None,
        targets: NDArray[np.float64] | None = None,
        quantile: float = 0.5,
        quantiles: NDArray[np.float64] | None = None,
        points: NDArray[np.float64] | None = None,
        function: Callable[..., object] | None = None,
        labelled: bool = True,
        progress: Callable[[float, float, float], object] | None = None,
    ) -> SolveResult | list[SolveResult]: ...

@final
class DistinctTreeSearch:
    """A resumable DTdistinct enumeration over the features of one table."""

    def __new__(
        cls,
        numeric: NDArray[np.float64],
        categorical: NDArray[np.uint32],
        categorical_columns: Sequence[int],
        labels: NDArray[np.uint32],
        n_classes: int,
        *,
        criterion: str = "gain_ratio",
        min_cases: int = 2,
        max_depth: int | None = None,
        min_gain: float = 0.0,
        order: str = "frontier_asc",
        incremental: bool = True,
    ) -> DistinctTreeSearch: ...
    def next_batch(
        self, max_trees: int, time_limit: float | None = None
    ) -> tuple[list[tuple[list[int], GreedyTreeDict]], str | None]: ...
    def count(self, time_limit: float | None = None) -> tuple[int, str | None]: ...
    @property
    def n_built(self) -> int:
        """Trees built so far."""
    @property
    def n_found(self) -> int:
        """Distinct trees found so far."""
    @property
    def done(self) -> bool:
        """Whether every distinct tree has been found."""

def greedy_tree(
    numeric: NDArray[np.float64],
    categorical: NDArray[np.uint32],
    categorical_columns: Sequence[int],
    labels: NDArray[np.uint32],
    n_classes: int,
    *,
    criterion: str = "gain_ratio",
    min_cases: int = 2,
    max_depth: int | None = None,
    min_gain: float = 0.0,
    allowed_features: Sequence[int] | None = None,
    sample_weight: NDArray[np.float64] | None = None,
    min_leaf_weight: float = 0.0,
    time_limit: float | None = None,
) -> GreedyTreeResult: ...
def solve_numeric(
    x: NDArray[np.float64],
    weights: NDArray[np.float64],
    *,
    labels: NDArray[np.uint32] | None = None,
    n_classes: int = 1,
    cost_matrix: NDArray[np.float64] | None = None,
    metric: str | None = None,
    targets: NDArray[np.float64] | None = None,
    quantile: float | None = None,
    scale: float = 1.0,
    max_depth: int = 2,
    max_nodes: int | None = None,
    min_samples_leaf: int = 1,
    min_samples_split: int = 2,
    min_weight_leaf: float = 0.0,
    leaf_penalty: float = 0.0,
    upper_bound: float = ...,
    time_limit: float | None = None,
    max_bytes: int | None = None,
    max_stored: int | None = None,
    max_work: int | None = None,
    threads: int = 1,
) -> NumericResult: ...
def backward_elimination(
    numeric: NDArray[np.float64],
    categorical: NDArray[np.uint32],
    categorical_columns: Sequence[int],
    labels: NDArray[np.uint32],
    n_classes: int,
    folds: Sequence[tuple[Sequence[int], Sequence[int]]],
    *,
    criterion: str = "gain_ratio",
    min_cases: int = 2,
    max_depth: int | None = None,
    min_gain: float = 0.0,
    method: str = "psbe",
    time_limit: float | None = None,
    n_jobs: int = 1,
) -> EliminationResult: ...
def rashomon_set(
    x: NDArray[np.uint8],
    labels: NDArray[np.uint32],
    n_classes: int,
    weights: NDArray[np.float64],
    *,
    max_depth: int,
    leaf_penalty: float,
    epsilon: float,
    max_trees: int | None = None,
    allowed: Sequence[int] | None = None,
    time_limit: float | None = None,
    max_bytes: int | None = None,
    targets: NDArray[np.float64] | None = None,
    criterion: str = "squared_error",
    quantile: float = 0.5,
    trivial_splits: bool = True,
    n_jobs: int = 1,
    columns: Sequence[int] | None = None,
) -> RashomonResult: ...
