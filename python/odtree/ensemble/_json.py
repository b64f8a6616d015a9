"""The JSON form of a fitted forest (:class:`LPBoostClassifier`, :class:`MDBoostClassifier`).

It is an odtree model text (see :mod:`odtree._json`) with one binarizer for the whole
forest and its trees under ``"members"``::

    {"format": "odtree-model", "format_version": 2, "estimator": "MDBoostClassifier",
     "params": {..., "estimator": null | {"class": "OptimalTreeClassifier", "params": {...}}},
     "classes": {...}, "n_features_in": 4, "feature_names_in": [...],
     "binarizer": {...}, "binary_features": {...},
     "members": [{"tree": {...}, "node_classes": [...], "objective": 0.3, "lower_bound": 0.3,
                  "status": "optimal", "fit_time": 0.01, "n_cache_entries": 12}, ...],
     "estimator_weights": [...], "margins": [...], "objective": 1.5, "lower_bound": 1.5,
     "upper_bound": 1.5, "optimal": true, "n_iter": 7, "fit_time": 0.2,
     "log": [[seconds, objective, edge, added, proven], ...]}
"""

from __future__ import annotations

import json

import numpy as np
from sklearn.exceptions import NotFittedError

from .. import _json as base
from ..tree._arrays import Tree
from ..tree._classifier import OptimalTreeClassifier
from ._members import Iteration, member_tree

#: A member tree's fit results besides its tree and classes.
_MEMBER_RESULTS = {"objective": float, "lower_bound": float, "status": str, "fit_time": float,
                   "n_cache_entries": int}
#: The forest's fit results.
_FOREST_RESULTS = {"objective": float, "lower_bound": float, "upper_bound": float,
                   "optimal": bool, "n_iter": int, "fit_time": float}


def forest_to_json(model, indent=None) -> str:
    """The text of a fitted forest."""
    if not hasattr(model, "estimators_"):
        raise NotFittedError(
            f"This {type(model).__name__} instance is not fitted yet; call 'fit' first.")
    params = model.get_params(deep=False)
    template = params.pop("estimator")
    data = {
        "format": base.FORMAT,
        "format_version": base.FORMAT_VERSION,
        "estimator": type(model).__name__,
        "params": {name: base._json_safe(value, f"parameter {name!r}")
                   for name, value in params.items()},
        "classes": base._encode_classes(model.classes_),
        "n_features_in": int(model.n_features_in_),
    }
    data["params"]["estimator"] = None if template is None else {
        "class": type(template).__name__,
        "params": {name: None if name in base._FUNCTIONS else
                   base._json_safe(value, f"parameter {name!r} of the estimator")
                   for name, value in template.get_params(deep=False).items()}}
    if hasattr(model, "feature_names_in_"):
        data["feature_names_in"] = [str(name) for name in model.feature_names_in_]
    data.update(base.encode_features(model))
    data["members"] = [_member_to_dict(member) for member in model.estimators_]
    data["estimator_weights"] = model.estimator_weights_.tolist()
    data["margins"] = model.margins_.tolist()
    for name, kind in _FOREST_RESULTS.items():
        value = kind(getattr(model, name + "_"))
        data[name] = base._encode_float(value) if kind is float else value
    data["log"] = [[base._encode_float(float(step.seconds)),
                    base._encode_float(float(step.objective)),
                    base._encode_float(float(step.edge)), bool(step.added), bool(step.proven)]
                   for step in model.log_]
    return json.dumps(data, indent=indent, allow_nan=False, default=base._numpy_to_python)


def _member_to_dict(member) -> dict:
    item = {"tree": member.tree_.to_dict(),
            "node_classes": [int(c) for c in member.node_classes_]}
    for name, kind in _MEMBER_RESULTS.items():
        value = kind(getattr(member, name + "_"))
        item[name] = base._encode_float(value) if kind is float else value
    return item


def forest_from_dict(data: dict, forest_class: type):
    """The fitted forest of a text's ``data`` (its header already checked)."""

    missing = [key for key in ("params", "classes", "n_features_in", "binarizer",
                               "binary_features", "members", "estimator_weights", "margins",
                               "log", *_FOREST_RESULTS) if key not in data]
    if missing:
        raise ValueError(f"odtree forest lacks the key(s) {', '.join(map(repr, missing))}")
    params = dict(base._expect(data, "params", dict))
    template = params.get("estimator")
    if template is not None:
        if not isinstance(template, dict) or template.get("class") != "OptimalTreeClassifier":
            raise ValueError("the forest's estimator must be an OptimalTreeClassifier")
        params["estimator"] = _build(OptimalTreeClassifier, template.get("params", {}))
    model = _build(forest_class, params)

    model.classes_ = base._decode("classes", base._decode_classes, data["classes"])
    features = base.decode_input(data, model)
    model.binary_feature_names_ = np.array([f.name for f in features], dtype=object)

    members = base._expect(data, "members", list)
    weights = np.array(base._expect(data, "estimator_weights", list), dtype=np.float64)
    if len(weights) != len(members) or not (np.isfinite(weights).all() and (weights >= 0).all()):
        raise ValueError("estimator_weights must be one non-negative number per member")
    model.estimator_weights_ = weights
    template = model._template()
    model.estimators_ = [base._decode(f"members[{i}]", _member_from_dict, item, model, template)
                         for i, item in enumerate(members)]
    model.margins_ = np.array(base._expect(data, "margins", list), dtype=np.float64)
    for name, kind in _FOREST_RESULTS.items():
        setattr(model, name + "_", base._decode_fit_result(data, name, kind))
    model.log_ = [base._decode("log", _decode_step, step, Iteration)
                  for step in base._expect(data, "log", list)]
    return model


def _build(cls, params: dict):
    try:
        return cls(**params)
    except TypeError as exc:
        raise ValueError(f"params do not fit {cls.__name__}: {exc}") from exc


def _member_from_dict(item, model, template):

    tree = Tree.from_dict(item["tree"])
    tree.validate(len(model.binary_features_))
    node_classes = np.array(item["node_classes"], dtype=np.int64)
    if len(node_classes) != tree.node_count or np.any(node_classes < 0) or np.any(
            node_classes >= len(model.classes_)):
        raise ValueError("node_classes must give a class index for every node")
    return member_tree(model, template, tree, node_classes,
                       **{name: base._decode_fit_result(item, name, kind)
                          for name, kind in _MEMBER_RESULTS.items()})


def _decode_step(step, iteration):
    seconds, objective, edge, added, proven = step
    return iteration(base._decode_float("log", seconds), base._decode_float("log", objective),
                     base._decode_float("log", edge), bool(added), bool(proven))
