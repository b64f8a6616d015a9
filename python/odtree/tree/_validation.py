"""Input checks shared by every estimator: the training columns, the labels and the row
weights, checked once with scikit-learn's rules."""

from __future__ import annotations

from numbers import Number

import numpy as np
from sklearn.utils import assert_all_finite
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    check_consistent_length,
    column_or_1d,
    validate_data,
)

from .._utils.inputs import (
    forget_feature_names,
    is_dataframe,
    is_missing,
    is_plain_matrix,
    is_plain_vector,
)
from ..preprocessing._binarizer import MISSING_ADVICE, NUMERIC_DTYPES, missing_values_hint


def validate_classification(estimator, X, y, missing=None):
    """``X`` and class labels ``y`` checked for a fit of ``estimator`` (as
    :func:`validate_training_data`), the labels as plain numbers or strings: the one prologue
    of every classifier's ``fit``."""
    check_no_missing_labels(y)
    X, y = validate_training_data(estimator, X, y, missing=missing)
    y = plain_labels(y)
    if y.dtype.kind not in "biuUS":  # ints, bools and strings are always class labels
        check_classification_targets(y)
    return X, y


def validate_training_data(estimator, X, y, supervised=True, missing=None):
    """X (and y when ``supervised``) checked with scikit-learn's rules for a fit of
    ``estimator``, which records the number and names of the columns; DataFrames go to the
    binarizer unchanged. NaN in X passes when ``missing`` (by default the estimator's
    ``missing`` parameter) is ``"split"``."""
    if is_dataframe(X):
        if len(X) == 0:
            raise ValueError("Found a DataFrame with 0 rows: at least one row is required")
        validate_data(estimator, X, skip_check_array=True)
        return X, check_target(y, len(X)) if supervised else None
    missing = getattr(estimator, "missing", "error") if missing is None else missing
    if is_plain_matrix(X, NUMERIC_DTYPES, allow_nan=missing == "split") and (
            not supervised or _plain_target(y, len(X))):
        forget_feature_names(estimator, X)  # what validate_data records, at less cost
        return X, y if supervised else None
    checks = {"accept_sparse": ("csr", "csc"), "dtype": NUMERIC_DTYPES,
              "ensure_all_finite": "allow-nan" if missing == "split" else True}
    advice = MISSING_ADVICE if hasattr(estimator, "missing") else (
        f"fill or drop them first (sklearn.impute); {type(estimator).__name__} has no "
        "missing='split'")
    with missing_values_hint(advice):
        if not supervised:
            return densify(validate_data(estimator, X, **checks)), None
        X, y = validate_data(estimator, X, y, **checks)
    return densify(X), y


def _plain_target(y, n_rows: int) -> bool:
    """Whether ``y`` is what scikit-learn's check of a target returns unchanged: a numpy
    array (not a subclass) of ``n_rows`` booleans, integers, strings or finite floats."""
    return (is_plain_vector(y) and len(y) == n_rows
            and (y.dtype.kind != "f" or bool(np.isfinite(y).all())))


def check_no_missing_labels(y) -> None:
    """Raise a ValueError naming the problem when labels hold None, NaN or pandas' NA."""
    if y is None:
        return  # validation then says that y is required
    labels = np.asarray(y)
    if labels.dtype.kind == "f":
        missing = bool(np.isnan(labels).any())
    elif labels.dtype == object:
        missing = any(is_missing(v) for v in labels.ravel())
    else:
        missing = False
    if missing:
        raise ValueError("Input y contains missing values (None, NaN or NA): every row needs a "
                         "label")


def plain_labels(y) -> np.ndarray:
    """``y``, or a numeric array when it is an object array of numbers only; a ValueError
    naming y when it mixes strings with other labels, which cannot be sorted together."""
    if y.dtype != object:
        return y
    is_string = [isinstance(label, str) for label in y]
    if any(is_string) and not all(is_string):
        text, other = y[is_string.index(True)], y[is_string.index(False)]
        raise ValueError(f"y mixes strings and other labels, such as {text!r} and {other!r}: "
                         "labels must be all numbers or all strings")
    if all(isinstance(label, Number) for label in y):
        return np.array(y.tolist())
    return y


def checked_sample_weight(sample_weight, n_rows: int) -> np.ndarray:
    """sample_weight as float64 (all ones for ``None``), non-negative, not all zero, with a
    finite sum."""
    weight = _check_sample_weight(sample_weight, np.empty(n_rows), dtype=np.float64,
                                  ensure_non_negative=True)
    if not np.any(weight > 0):
        raise ValueError("sample_weight is zero everywhere: at least one row must count")
    with np.errstate(over="ignore"):
        total = weight.sum()
    if not np.isfinite(total):
        raise ValueError("sample_weight sums to infinity: rescale the weights")
    return weight


def check_target(y, n_rows: int) -> np.ndarray:
    """y as a 1-D array of length n_rows, without missing values."""
    y = column_or_1d(y, warn=True)
    check_consistent_length(np.empty(n_rows), y)
    if y.dtype.kind == "f":
        assert_all_finite(y, input_name="y")
    return y


def densify(X):
    """A sparse matrix as a dense array; anything else as it is."""
    return X.toarray() if hasattr(X, "toarray") else X
