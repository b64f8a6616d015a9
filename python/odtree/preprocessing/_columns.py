"""Reading raw input columns: their kinds, names, categories and missing values."""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._utils.inputs import is_missing


def category_codes(column, name) -> tuple[list, np.ndarray]:
    """The categories of ``column`` (an object array) in sorted order (mixed types by their
    text, then type name), and each row's code: the position of its category in that order,
    or -1 where the value is missing (None, NaN or NA). ``name`` names the column in errors.

    >>> category_codes(np.array(["b", "a", None, "b"], dtype=object), "x0")
    (['a', 'b'], array([ 1,  0, -1,  1]))
    """
    import pandas as pd

    codes, uniques = pd.factorize(column)
    categories = [category_value(value, name) for value in uniques]
    try:
        order = sorted(range(len(categories)), key=categories.__getitem__)
    except TypeError:  # mixed types
        order = sorted(range(len(categories)),
                       key=lambda i: (str(categories[i]), type(categories[i]).__name__))
    rank = np.empty(len(order) + 1, dtype=np.intp)
    rank[order] = np.arange(len(order))
    rank[-1] = -1  # pandas' code of a missing value
    return [categories[i] for i in order], rank[codes]


def column_names(binarizer) -> list[str]:
    """The names of the columns a fitted reader saw: ``feature_names_in_``, or x0, x1, ..."""
    names = getattr(binarizer, "feature_names_in_", None)
    if names is None:
        return [f"x{j}" for j in range(binarizer.n_features_in_)]
    return [str(name) for name in names]


def column_kind(dtype, name) -> str:
    """``"numeric"`` or ``"categorical"`` for a pandas column dtype."""
    from pandas.api import types

    if types.is_bool_dtype(dtype) or isinstance(dtype, types.CategoricalDtype):
        return "categorical"
    if types.is_numeric_dtype(dtype) and not types.is_complex_dtype(dtype):
        return "numeric"
    if types.is_object_dtype(dtype) or types.is_string_dtype(dtype):
        return "categorical"
    raise TypeError(f"column {name!r} has dtype {dtype}, which Binarizer cannot use; convert "
                    "it to a number or to a category")


def missing_rows(column) -> np.ndarray:
    """Where an object column read by ``Binarizer._read`` is missing."""
    return np.array([is_missing(value) for value in column], dtype=bool)


def category_value(value, name):
    """A category as a plain Python str, int, float or bool (so that it can go to JSON)."""
    if isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, str | Real):
        raise TypeError(f"column {name!r} holds a category of type {type(value).__name__}; "
                        "categories must be str, int, float or bool")
    return value
