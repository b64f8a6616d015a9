"""Reading what users pass in: whether it is a DataFrame, whether a value is missing, and
the plain arrays that scikit-learn's checks would return unchanged."""

from __future__ import annotations

import sys

import numpy as np
from sklearn.utils.validation import column_or_1d


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


def is_plain_matrix(X, dtypes, allow_nan: bool = False) -> bool:
    """Whether scikit-learn's ``check_array(X, dtype=dtypes)`` would return ``X`` unchanged
    and raise nothing: a numpy array (not a subclass) of two dimensions, at least one row and
    one column, one of ``dtypes`` in native byte order, with no infinite value (nor NaN,
    unless ``allow_nan``). Small fits spend more time in that check than in the search."""
    if type(X) is not np.ndarray or X.ndim != 2 or 0 in X.shape:
        return False
    if not any(X.dtype == dtype for dtype in dtypes):
        return False
    if X.dtype.kind == "f":
        return bool(not np.isinf(X).any() if allow_nan else np.isfinite(X).all())
    return True


def is_plain_vector(y) -> bool:
    """Whether scikit-learn's ``column_or_1d(y)`` would return ``y``'s values unchanged: a
    numpy array (not a subclass) of one dimension, of booleans, numbers or strings."""
    return type(y) is np.ndarray and y.ndim == 1 and y.dtype.kind in "biufU"


def as_vector(y) -> np.ndarray:
    """scikit-learn's ``column_or_1d(y, warn=True)``, skipped for a plain vector
    (:func:`is_plain_vector`)."""
    return y if is_plain_vector(y) else column_or_1d(y, warn=True)


def encode_labels(y) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(y, return_inverse=True)`` for a 1-D ``y``: the sorted classes, and each
    row's index among them. Labels that are small non-negative integers are counted instead
    of sorted."""
    y = np.asarray(y)
    if y.ndim == 1 and y.dtype.kind in "iu" and len(y) and 0 <= y.min() and y.max() <= 2 * len(y):
        present = np.bincount(y) > 0
        return np.flatnonzero(present).astype(y.dtype), np.cumsum(present)[y] - 1
    return np.unique(y, return_inverse=True)


def forget_feature_names(estimator, X) -> None:
    """What scikit-learn's ``validate_data(estimator, X, reset=True)`` records for an array
    without column names: the number of columns, and no ``feature_names_in_`` from an
    earlier fit."""
    estimator.n_features_in_ = X.shape[1]
    if hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_
