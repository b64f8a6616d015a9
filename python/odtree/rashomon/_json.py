"""The JSON form of a fitted :class:`RashomonSet` or :class:`RashomonSetRegressor`: an odtree
model text (see
:mod:`odtree._json`) with one binarizer for the whole set and its listed trees::

    {"format": "odtree-model", "format_version": 2, "estimator": "RashomonSet",
     "params": {...}, "classes": {...}, "n_features_in": 4, "feature_names_in": [...],
     "binarizer": {...}, "binary_features": [...],
     "listed": [{"codes": [3, -1, -2], "weights": [[5.0, 7.0], ...], "rows": [12, ...]}, ...],
     "objectives": [...], "n_trees": 4868, "optimum": 0.2, "bound": 0.21,
     "status": "optimal", "fit_time": 0.4, "n_wipes": 0, "usage": [...],
     "removal_loss": [...]}

A listed tree is its codes in pre-order (a split as its binary feature, a leaf as
``-1 - class``) with each node's class weights and rows; ``usage`` and ``removal_loss`` are
there when the set was fitted with ``importance=True``. A regression set has no
``"classes"``, and its nodes' statistics are their weight and then, for squared error, the
weighted sums of the targets and of their squares, for the other criteria the weight times
the node's median or quantile and its loss.
"""

from __future__ import annotations

import json

import numpy as np
from sklearn.exceptions import NotFittedError

from .. import _json as base
from ._listed import Listed

#: The set's fit results besides its trees.
_RESULTS = {"n_trees": int, "optimum": float, "bound": float, "status": str,
            "fit_time": float, "n_wipes": int}


def set_to_json(model, indent=None) -> str:
    """The text of a fitted Rashomon set."""
    if not hasattr(model, "n_trees_"):
        raise NotFittedError(
            f"This {type(model).__name__} instance is not fitted yet; call 'fit' first.")
    data = {
        "format": base.FORMAT,
        "format_version": base.FORMAT_VERSION,
        "estimator": type(model).__name__,
        "params": {name: base._json_safe(value, f"parameter {name!r}")
                   for name, value in model.get_params(deep=False).items()},
        "n_features_in": int(model.n_features_in_),
    }
    if hasattr(model, "classes_"):
        data["classes"] = base._encode_classes(model.classes_)
    if hasattr(model, "feature_names_in_"):
        data["feature_names_in"] = [str(name) for name in model.feature_names_in_]
    data.update(base.encode_features(model))
    data["listed"] = [{"codes": codes.tolist(), "weights": weights.tolist(),
                       "rows": rows.tolist()} for codes, weights, rows in model._listed]
    data["objectives"] = model.objectives_.tolist()
    for name, kind in _RESULTS.items():
        value = kind(getattr(model, name + "_"))
        data[name] = base._encode_float(value) if kind is float else value
    for name in ("usage", "removal_loss"):
        if hasattr(model, name + "_"):
            data[name] = getattr(model, name + "_").tolist()
    return json.dumps(data, indent=indent, allow_nan=False, default=base._numpy_to_python)


def set_from_dict(data: dict, cls: type):
    """The fitted set of a text's ``data`` (its header already checked)."""
    missing = [key for key in ("params", "n_features_in", "binarizer",
                               "binary_features", "listed", "objectives", *_RESULTS)
               if key not in data]
    if missing:
        raise ValueError(f"odtree Rashomon set lacks the key(s) "
                         f"{', '.join(map(repr, missing))}")
    try:
        model = cls(**base._expect(data, "params", dict))
    except TypeError as exc:
        raise ValueError(f"params do not fit {cls.__name__}: {exc}") from exc
    if "classes" in data:
        model.classes_ = base._decode("classes", base._decode_classes, data["classes"])
    elif hasattr(model, "predict_proba"):
        raise ValueError("odtree Rashomon set lacks the key 'classes'")
    n_labels = len(model.classes_) if hasattr(model, "classes_") else 1
    features = base.decode_input(data, model)
    model._listed = Listed.of_trees(
        [base._decode(f"listed[{i}]", _tree_from_dict, item, len(features), n_labels,
                      model._stats_len())
         for i, item in enumerate(base._expect(data, "listed", list))], model._stats_len())
    model.objectives_ = np.array(base._expect(data, "objectives", list), dtype=np.float64)
    if len(model.objectives_) != len(model._listed):
        raise ValueError("objectives must give one objective per listed tree")
    for name, kind in _RESULTS.items():
        setattr(model, name + "_", base._decode_fit_result(data, name, kind))
    for name in ("usage", "removal_loss"):
        if name in data:
            setattr(model, name + "_", np.array(data[name], dtype=np.float64))
    model._built, model._names = {}, None
    return model


def _tree_from_dict(item, n_features: int, n_classes: int, n_stats: int):
    codes = np.array(item["codes"], dtype=np.int64)
    weights = np.array(item["weights"], dtype=np.float64).reshape(len(codes), n_stats)
    rows = np.array(item["rows"], dtype=np.int64)
    if len(codes) == 0 or len(rows) != len(codes) or np.any(codes >= n_features) or np.any(
            codes < -n_classes):
        raise ValueError("a listed tree's codes must be features below the set's "
                         f"{n_features} and leaves of its {n_classes} classes")
    return codes, weights, rows
