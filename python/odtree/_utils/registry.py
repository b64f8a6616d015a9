"""The estimator kinds :func:`odtree.from_json` can rebuild, registered by their classes as
they are defined (so that reading a model needs no import of the estimator modules)."""

from __future__ import annotations

#: Estimator class name -> class.
ESTIMATORS: dict[str, type] = {}


def register(estimator: type) -> None:
    """Records a public estimator class (names starting with ``_`` are left out)."""
    if not estimator.__name__.startswith("_"):
        ESTIMATORS[estimator.__name__] = estimator
