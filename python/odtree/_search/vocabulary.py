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
