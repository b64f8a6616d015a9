"""scikit-learn's tree constraints beyond the depth and the leaf size, as the search takes them:
``min_samples_split``, ``min_weight_fraction_leaf`` and ``monotonic_cst``.

Each is enforced inside the exact search, so the tree returned is optimal among the trees
that satisfy it.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, RealNotInt

#: Parameter checks of the three constraints, as scikit-learn's trees have them.
CONSTRAINT_PARAMETERS: dict = {
    "min_samples_split": [Interval(Integral, 2, None, closed="left"),
                          Interval(RealNotInt, 0.0, 1.0, closed="right")],
    "min_weight_fraction_leaf": [Interval(Real, 0.0, 0.5, closed="both")],
    "monotonic_cst": ["array-like", None],
}


def resolved_min_samples_split(min_samples_split, n_samples: int) -> int:
    """``min_samples_split`` as a number of rows: a fraction in (0, 1] of the ``n_samples``
    rows given to ``fit`` is ``max(2, ceil(fraction * n_samples))``, as in scikit-learn.

    Examples
    --------
    >>> resolved_min_samples_split(5, 100), resolved_min_samples_split(0.25, 10)
    (5, 3)
    """
    if isinstance(min_samples_split, Integral):
        return int(min_samples_split)
    return max(2, math.ceil(min_samples_split * n_samples))


def checked_monotonic_cst(monotonic_cst, n_features: int) -> np.ndarray | None:
    """``monotonic_cst`` as an int8 array of one constraint per input column (``None``
    when no column is constrained), or a ValueError saying what is wrong with it.

    Examples
    --------
    >>> checked_monotonic_cst([1, 0, -1], 3).tolist()
    [1, 0, -1]
    >>> checked_monotonic_cst([0, 0], 2) is None
    True
    """
    if monotonic_cst is None:
        return None
    constraints = np.asarray(monotonic_cst)
    if constraints.ndim != 1 or constraints.shape[0] != n_features:
        raise ValueError(f"monotonic_cst has shape {constraints.shape} but the input data "
                         f"has {n_features} features: give one constraint per feature")
    if not np.isin(constraints, [-1, 0, 1]).all():
        raise ValueError(f"monotonic_cst must hold only -1, 0 or 1, got "
                         f"{sorted(set(constraints.ravel().tolist()))}")
    constraints = constraints.astype(np.int8)
    return constraints if constraints.any() else None


def binary_feature_signs(constraints: np.ndarray, features) -> list[int]:
    """Each binary feature's constraint as the search reads it, from the constraints of the
    input columns: ``1`` when the leaves below its right child (feature = 1) must predict a
    class no lower than those below its left child, ``-1`` no higher.

    A ``"binary"`` feature is its column (1 goes right), so it keeps the column's sign; a
    ``"threshold"`` feature ``x <= t`` sends the lower values right, so it takes the opposite
    sign; a boolean column (``False < True``, as scikit-learn reads it) is split by category,
    ``x == True`` keeping the sign and ``x == False`` taking the opposite one. A constrained
    column of other categories, or with missing values, is refused.

    Examples
    --------
    >>> from odtree import BinaryFeature
    >>> features = [BinaryFeature(0, "age", "threshold", 30.0), BinaryFeature(1, "b", "binary")]
    >>> binary_feature_signs(np.array([1, -1]), features)
    [-1, -1]
    """
    signs = []
    for feature in features:
        sign = int(constraints[feature.column])
        if sign == 0:
            signs.append(0)
        elif feature.kind == "binary":
            signs.append(sign)
        elif feature.kind == "threshold" and feature.missing_holds is None:
            signs.append(-sign)
        elif feature.kind == "category" and isinstance(feature.value, bool | np.bool_):
            signs.append(sign if feature.value else -sign)
        elif feature.kind == "category":
            raise ValueError(f"monotonic_cst constrains column {feature.column_name!r}, which "
                             "is categorical: a monotonic constraint needs ordered values")
        else:
            raise ValueError(f"monotonic_cst constrains column {feature.column_name!r}, which "
                             "has missing values: monotonic constraints are not supported "
                             "with missing values, as in scikit-learn")
    return signs


def constraint_settings(estimator, weight: np.ndarray, n_features: int,
                        binary_features) -> dict:
    """The arguments of :meth:`Solver.solve` that carry ``estimator``'s constraints (those
    it has), for training rows weighing ``weight`` (class weights included)."""
    settings = {}
    if hasattr(estimator, "min_samples_split"):
        settings["min_samples_split"] = resolved_min_samples_split(
            estimator.min_samples_split, len(weight))
    fraction = getattr(estimator, "min_weight_fraction_leaf", 0.0)
    if fraction > 0:
        settings["min_weight_leaf"] = float(fraction) * float(weight.sum())
    constraints = checked_monotonic_cst(getattr(estimator, "monotonic_cst", None), n_features)
    if constraints is not None:
        settings["monotonic"] = binary_feature_signs(constraints, binary_features)
    return settings
