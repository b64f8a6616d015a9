"""Reading what users pass in: whether it is a DataFrame, and whether a value is missing."""

from __future__ import annotations

import sys


def is_dataframe(X) -> bool:
    """Whether ``X`` is a pandas DataFrame (without importing pandas when it is not loaded)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(X, pandas.DataFrame)


def is_missing(value) -> bool:
    """Whether one value is missing: None, NaN or pandas' NA."""
    try:
        return value is None or bool(value != value)
    except TypeError:  # pandas.NA cannot be turned into a bool
        return True
