"""The core's vocabularies, read from the compiled module rather than copied: the depth cap,
the valid values of each string option, the defaults of the search settings, the statuses a
search ends with and the cache figures it reports (see ``_core.pyi``)."""

from .. import _core

#: The deepest tree the engine searches.
MAX_DEPTH: int = _core.MAX_DEPTH
#: Each string option of the search (``search``, ``cache``, ``branching``, ``child_order``,
#: ``wipe_strategy``) -> its valid values.
OPTIONS: dict[str, tuple[str, ...]] = _core.OPTIONS
#: The default of each search setting that has one.
DEFAULTS: dict = _core.DEFAULTS
#: How a search can end.
STATUSES: tuple[str, ...] = _core.STATUSES
#: The cache figures a search reports, by the names of its result.
CACHE_FIGURES: tuple[str, ...] = _core.CACHE_FIGURES


def branching_nodes(max_leaf_nodes: int | None) -> int | None:
    """A leaf budget as the core's limit on branching nodes (one fewer than the leaves, at
    most what a 32-bit count holds); ``None``: no limit."""
    return None if max_leaf_nodes is None else min(int(max_leaf_nodes) - 1, 2**32 - 1)


def leaf_penalty(ccp_alpha: float, total_weight: float) -> float:
    """``ccp_alpha`` (a share of the rows' weight per leaf) as the core's penalty per leaf,
    in objective units."""
    return float(ccp_alpha) * float(total_weight)
