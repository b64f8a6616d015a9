"""Save a fitted estimator as JSON text and load it back, ready to predict.

The text is one JSON object::

    {"format": "odtree-model", "format_version": 2,
     "estimator": "OptimalTreeClassifier", "params": {...get_params()...},
     "classes": {"type": "int" | "float" | "bool" | "str", "dtype": "<i8", "values": [...]},
     "class_ranking": [0, 1],   # classifiers: tie-break order of the class indices
     "node_classes": [0, 1, 0], # classifiers: the class each node predicts (files without it
                                # are read as the heaviest class, ties by class_ranking)
     "n_features_in": 4, "feature_names_in": [...],
     "binarizer": {"params": {...}, "column_kinds": ["numeric", ...]},
     "binary_features": [{"column": 0, "kind": "threshold", "values": [5.05, 5.45]},
                         {"column": 2, "kind": "category", "values": ["a", "b"]}, ...],
     "tree": {...Tree.to_dict()...},
     "objective": 3.0, "lower_bound": 3.0, "optimal": true, "status": "optimal",
     "fit_time": 0.01, "n_cache_entries": 120}

Everything is written once. The binary features (``binary_features_``, which the binarizer
computes and the tree's ``feature`` numbers) are runs of consecutive features of one column
and kind: the run's values (thresholds, categories; null for ``"binary"`` and ``"missing"``
features), its ``"holds"`` (each feature's ``missing_holds``) only when one is set, and its
``"column_name"`` only when that is not the column's name (``feature_names_in``, or x0, x1,
...). The binarizer is its parameters and column kinds; its columns' names are
``feature_names_in`` (it has its own ``"feature_names_in"`` only when they differ). Version
1 texts (every binary feature twice, one object each: 58 KB for a depth-3 tree on 30
columns) are still read.

Forests and Rashomon sets have their own parts (see :mod:`odtree.ensemble._json` and
:mod:`odtree.rashomon._set`). ``classes`` is left out
for regressors and ``feature_names_in`` when the model was fitted without
column names. A fit result that is not a finite number is written as ``"inf"``, ``"-inf"`` or
``"nan"``. Some estimators add their own parts:

- a regressor with ``quantiles``: ``"trees"`` (one ``Tree.to_dict()`` per quantile) and
  ``"objectives"``;
- a clusterer: ``"clusters": {"cluster_of": [...], "labels": [...], "centers": [[...], ...],
  "dim": 3}``, the cluster of each node (-1 at inner nodes), ``labels_``, ``cluster_centers_``
  and the length of a center (files without ``dim`` are read as ``n_features_in``; it differs
  when the clusterer was fitted with ``X_error``);
- a predictor: ``"leaf_values": [{"node": 1, "value": ...}, ...]``, where a numpy value also
  has ``"dtype"`` and, for an array, ``"shape"``.

The functions of ``error_function``, ``fast_error_function`` and ``leaf_value_function`` are
written as null: the loaded model predicts without them, but needs them again (``set_params``)
before it is fitted again.
"""

from __future__ import annotations

import json
import numbers
import os
from importlib import import_module
from pathlib import Path

import numpy as np
from sklearn.base import is_classifier
from sklearn.exceptions import NotFittedError

from ._utils.registry import ESTIMATORS
from .preprocessing._features import BinaryFeature
from .tree._arrays import Tree

__all__ = ["from_json", "to_json"]

FORMAT = "odtree-model"
FORMAT_VERSION = 2

# Fitted attribute (without the trailing underscore) -> its type. Floats that are not finite are
# written as the strings "inf", "-inf" or "nan", which plain JSON cannot hold as numbers.
_FIT_RESULTS = {
    "objective": float,
    "lower_bound": float,
    "optimal": bool,
    "status": str,
    "fit_time": float,
    "n_cache_entries": int,
}
#: Optional fitted results: arrays of rows of floats (the anytime log's (seconds, objective,
#: bound), the Pareto front's (false positives, false negatives)) and the cache figures.
#: Texts without them load as before, without the attributes.
_FIT_TABLES = {"anytime_log": 3, "pareto_front": 2}
_CACHE_FIGURES = ("cache_peak_entries", "cache_peak_bytes", "n_wipes", "cache_created_entries")
_REQUIRED = ("estimator", "params", "n_features_in", "binarizer", "binary_features", "tree",
             *_FIT_RESULTS)
#: Parameters holding functions, which JSON cannot store and a fitted model does not need.
_FUNCTIONS = ("error_function", "fast_error_function", "leaf_value_function")
#: Numpy leaf values of these dtype kinds keep their dtype.
_LEAF_DTYPE_KINDS = "biufU"
#: Estimator name -> the part of the text it predicts from, besides the tree (regressors with
#: ``quantiles`` have ``"trees"``).
_OWN_PARTS = {"OptimalTreeClusterer": "clusters", "OptimalTreePredictor": "leaf_values"}
# Class type tag -> the Python type of its values and the numpy dtype kinds that may hold them.
_CLASS_TYPES = {
    "bool": (bool, "bO"),
    "int": (int, "iuO"),
    "float": (float, "fO"),
    "str": (str, "UO"),
}


def to_json(model, *, indent=None) -> str:
    """Write a fitted estimator as JSON text that :func:`from_json` reads back.

    Parameters
    ----------
    model : fitted odtree estimator
    indent : int or None, default=None
        Indentation of the JSON text; ``None`` writes one line.

    Returns
    -------
    str
        The JSON text (format described in this module's docstring).

    Raises
    ------
    ValueError
        If a parameter of the estimator (other than the functions, written as null) or a leaf
        value of a predictor holds a value JSON cannot store (a callable, NaN, ...).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from odtree import from_sklearn
    >>> X, y = load_iris(return_X_y=True)
    >>> model = from_sklearn(DecisionTreeClassifier(max_depth=2).fit(X, y))
    >>> text = to_json(model)
    >>> text[:50]
    '{"format": "odtree-model", "format_version": 2, "e'
    >>> bool((from_json(text).predict(X) == model.predict(X)).all())
    True
    """
    if getattr(model, "_own_json", False):
        return model._to_json_text(indent)
    if not hasattr(model, "tree_"):
        inner = {"OptimalTreeCV": "best_estimator_", "DepthImprover": "improved_",
                 "DistinctTreeSelector": "estimator_"}.get(type(model).__name__)
        if inner is not None and hasattr(model, inner):
            raise TypeError(f"to_json writes one tree or forest; a {type(model).__name__} "
                            f"holds its tree in {inner}: write to_json(model.{inner})")
        raise NotFittedError(
            f"This {type(model).__name__} instance is not fitted yet; call 'fit' first.")
    data = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "estimator": type(model).__name__,
        "params": {name: None if name in _FUNCTIONS else _json_safe(value, f"parameter {name!r}")
                   for name, value in model.get_params(deep=False).items()},
    }
    if hasattr(model, "classes_"):
        data["classes"] = _encode_classes(model.classes_)
    if hasattr(model, "class_ranking_"):
        data["class_ranking"] = [int(c) for c in model.class_ranking_]
        if getattr(model, "node_classes_", None) is not None:
            data["node_classes"] = [int(c) for c in model.node_classes_]
    data["n_features_in"] = int(model.n_features_in_)
    if hasattr(model, "feature_names_in_"):
        data["feature_names_in"] = [str(name) for name in model.feature_names_in_]
    data.update(encode_features(model))
    data["tree"] = model.tree_.to_dict()
    for name, kind in _FIT_RESULTS.items():
        value = kind(getattr(model, name + "_"))
        data[name] = _encode_float(value) if kind is float else value
    for name in _FIT_TABLES:
        if getattr(model, name + "_", None) is not None:
            data[name] = [[_encode_float(float(v)) for v in row]
                          for row in np.asarray(getattr(model, name + "_"), dtype=np.float64)]
    for name in _CACHE_FIGURES:
        if hasattr(model, name + "_"):
            data[name] = int(getattr(model, name + "_"))
    data.update(_own_parts(model))
    return json.dumps(data, indent=indent, allow_nan=False, default=_numpy_to_python)


def _decode_names(data, n_features_in: int) -> list[str] | None:
    """The text's ``feature_names_in``, checked, or None."""
    if "feature_names_in" not in data:
        return None
    names = _expect(data, "feature_names_in", list)
    if len(names) != n_features_in or not all(isinstance(n, str) for n in names):
        raise ValueError(f"feature_names_in must be {n_features_in} strings")
    return names


def encode_features(model) -> dict:
    """The ``"binarizer"`` and ``"binary_features"`` parts of a fitted ``model``: the
    binarizer's parameters and column kinds, and the binary features as runs (see the module
    docstring)."""
    from .preprocessing._columns import column_names

    binarizer = model.binarizer_.to_dict()
    part = {"params": binarizer["params"], "column_kinds": binarizer["column_kinds"]}
    names = getattr(model, "feature_names_in_", None)
    if binarizer["feature_names_in"] != (None if names is None else [str(n) for n in names]):
        part["feature_names_in"] = binarizer["feature_names_in"]
    default = column_names(model.binarizer_)
    runs, keys = [], []
    for feature in (feature.to_dict() for feature in model.binary_features_):
        key = (feature["column"], feature["kind"], feature["column_name"])
        if not keys or keys[-1] != key:
            keys.append(key)
            runs.append({"column": key[0], "kind": key[1], "values": []})
            if key[2] != default[key[0]]:
                runs[-1]["column_name"] = key[2]
        runs[-1]["values"].append(feature["value"])
        runs[-1].setdefault("holds", []).append(feature.get("missing_holds"))
    for run in runs:
        if all(holds is None for holds in run["holds"]):
            del run["holds"]
    return {"binarizer": part, "binary_features": runs}


def decode_input(data, model) -> list:
    """Sets what ``model`` knows of its input from a text's ``data`` (``n_features_in_``,
    ``feature_names_in_`` where written, ``binarizer_``, ``binary_features_``) and returns the
    binary features."""
    model.n_features_in_ = _expect(data, "n_features_in", int)
    names = _decode_names(data, model.n_features_in_)
    if names is not None:
        model.feature_names_in_ = np.array(names, dtype=object)
    model.binarizer_, features = decode_features(data, model.n_features_in_)
    model.binary_features_ = features
    return features


def decode_features(data, n_features_in: int) -> tuple:
    """The binarizer and binary features of a text's ``data``, of either format version,
    checked against each other and against the ``n_features_in`` input columns."""
    if data["format_version"] == 1:
        features = _decode("binary_features", _decode_features, data["binary_features"])
        _check_columns(features, n_features_in)
        binarizer = _decode("binarizer", _binarizer_from_dict, data["binarizer"])
        if (binarizer.n_features_in_ != n_features_in
                or list(binarizer.features_) != features):
            raise ValueError("the binarizer does not compute the model's binary features from "
                             f"its {n_features_in} input columns")
        return binarizer, features
    part = _expect(data, "binarizer", dict)
    names = part.get("feature_names_in", data.get("feature_names_in"))
    default = [f"x{j}" for j in range(n_features_in)] if names is None else names
    features = _decode("binary_features", _decode_runs, data["binary_features"], default)
    _check_columns(features, n_features_in)
    binarizer = _decode("binarizer", _binarizer_from_dict, {
        **part, "n_features_in": n_features_in, "feature_names_in": names,
        "features": [feature.to_dict() for feature in features]})
    return binarizer, features


def _decode_runs(runs, names) -> list[BinaryFeature]:
    """Version 2's ``binary_features``: runs of features of one column and kind."""
    if not isinstance(runs, list):
        raise TypeError(f"expected a list of runs, got {type(runs).__name__}")
    features = []
    for run in runs:
        column, values = run["column"], run["values"]
        if isinstance(column, bool) or not isinstance(column, int) or column < 0:
            raise ValueError(f"column {column!r} is not a column number")
        if column >= len(names):
            raise ValueError(f"binary feature reads column {column}, but the model has "
                             f"{len(names)} input columns")
        holds = run.get("holds", [None] * len(values))
        if not isinstance(values, list) or not values or len(holds) != len(values):
            raise ValueError("a run needs a non-empty list of values (and of holds)")
        name = run.get("column_name", names[column])
        features += [BinaryFeature.from_dict({"column": column, "column_name": name,
                                              "kind": run["kind"], "value": value,
                                              "missing_holds": held})
                     for value, held in zip(values, holds, strict=True)]
    return features


def _own_parts(model) -> dict:
    """The parts of the text that only some estimators have (see the module docstring)."""
    parts = {}
    if getattr(model, "quantiles", None) is not None and hasattr(model, "trees_"):  # as predict
        parts["trees"] = [tree.to_dict() for tree in model.trees_]
        parts["objectives"] = [_encode_float(float(value)) for value in model.objectives_]
    if hasattr(model, "cluster_centers_"):
        parts["clusters"] = {"cluster_of": model._cluster_of.tolist(),
                             "labels": model.labels_.tolist(),
                             "centers": model.cluster_centers_.tolist(),
                             "dim": int(model.cluster_centers_.shape[1])}
    if hasattr(model, "leaf_values_"):
        parts["leaf_values"] = [_encode_leaf_value(node, value)
                                for node, value in model.leaf_values_.items()]
    return parts


def from_json(text):
    """Rebuild a fitted estimator from the text :func:`to_json` wrote.

    The estimator is built with the saved parameters and given the saved fitted attributes, so
    ``predict`` and ``predict_proba`` work without fitting again.

    Parameters
    ----------
    text : str, bytes or path-like
        The JSON text, or the path (``str`` or :class:`os.PathLike`) of a file holding it.

    Returns
    -------
    estimator
        A fitted estimator of the saved class.

    Raises
    ------
    ValueError
        If the text is not JSON, is not an odtree model of a supported version, lacks a key, or
        holds inconsistent parts; the message says which.

    Examples
    --------
    >>> from_json('{"format": "something-else"}')
    Traceback (most recent call last):
    ...
    ValueError: not an odtree model: "format" is 'something-else', expected 'odtree-model'
    >>> from_json("m.json")
    Traceback (most recent call last):
    ...
    ValueError: 'm.json' is neither JSON text nor an existing file: pass the JSON text or a path
    """
    text = _json_text(text)
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"not valid JSON ({exc}): pass the JSON text or a path") from exc
    _check_header(data)
    name = data.get("estimator")
    own = _estimator_classes().get(name) if isinstance(name, str) else None
    if getattr(own, "_own_json", False):
        return own._from_json_dict(data)
    missing = [key for key in _REQUIRED if key not in data]
    if missing:
        raise ValueError(f"odtree model lacks the key(s) {', '.join(map(repr, missing))}")

    classes = _estimator_classes()
    name = _expect(data, "estimator", str)
    if name not in classes:
        raise ValueError(f"unknown estimator {name!r}; this odtree reads {sorted(classes)}")
    params = _expect(data, "params", dict)
    try:
        model = classes[name](**params)
    except TypeError as exc:
        raise ValueError(f"params do not fit {name}: {exc}") from exc

    n_features_in = _expect(data, "n_features_in", int)
    names = _decode_names(data, n_features_in)
    binarizer, binary_features = decode_features(data, n_features_in)
    tree = _decode("tree", Tree.from_dict, data["tree"])
    _decode("tree", tree.validate, len(binary_features))
    if is_classifier(model) and "classes" not in data:
        raise ValueError(f"odtree model of a {name} lacks the key 'classes'")
    if "classes" in data:
        model.classes_ = _decode("classes", _decode_classes, data["classes"])
    if is_classifier(model):
        _set_class_order(model, data, tree)
    model.n_features_in_ = n_features_in
    if names is not None:
        model.feature_names_in_ = np.array(names, dtype=object)
    model.binarizer_ = binarizer
    model.binary_features_ = binary_features
    model.binary_feature_names_ = np.array([f.name for f in binary_features], dtype=object)
    model.tree_ = tree
    for key, kind in _FIT_RESULTS.items():
        setattr(model, key + "_", _decode_fit_result(data, key, kind))
    for key, width in _FIT_TABLES.items():
        if key in data:
            rows = _expect(data, key, list)
            if not all(isinstance(row, list) and len(row) == width for row in rows):
                raise ValueError(f"{key!r} must be rows of {width} numbers")
            setattr(model, key + "_", np.array([[_decode_float(key, v) for v in row]
                                                for row in rows],
                                               dtype=np.float64).reshape(-1, width))
    for key in _CACHE_FIGURES:
        if key in data:
            setattr(model, key + "_", _expect(data, key, int))
    _set_own_parts(model, name, data, len(binary_features))
    return model


def _json_text(source):
    """The JSON text of :func:`from_json`'s argument: the text itself, or a file's content."""
    if isinstance(source, bytes | bytearray):
        return source
    if isinstance(source, str) and source.lstrip()[:1] in ("{", "["):
        return source
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        if path.is_file():
            return path.read_bytes()
        raise ValueError(f"{str(source)!r} is neither JSON text nor an existing file: pass "
                         "the JSON text or a path")
    raise TypeError(f"from_json takes JSON text (str or bytes) or a path, got "
                    f"{type(source).__name__}")


def _set_class_order(model, data, tree) -> None:
    """Set a classifier's ``class_ranking_`` and ``node_classes_`` from ``data``."""
    if tree.value.shape[2] != len(model.classes_):
        raise ValueError(f"tree values have {tree.value.shape[2]} columns but there are "
                         f"{len(model.classes_)} classes")
    ranking = _expect(data, "class_ranking", list)
    if sorted(ranking) != list(range(len(model.classes_))):
        raise ValueError("class_ranking must be a permutation of the class indices")
    model.class_ranking_ = np.array(ranking, dtype=np.int64)
    if "node_classes" not in data:
        # written before every classifier kept the search's classes: the heaviest class,
        # ties broken by the ranking, is what the search chose for misclassification
        ranking = model.class_ranking_
        model.node_classes_ = ranking[np.argmax(tree.value[:, 0, ranking], axis=1)]
        return
    node_classes = _expect(data, "node_classes", list)
    if (len(node_classes) != tree.node_count
            or not all(c in range(len(model.classes_)) for c in node_classes)):
        raise ValueError("node_classes must give a class index for every node")
    model.node_classes_ = np.array(node_classes, dtype=np.int64)


def _set_own_parts(model, name, data, n_binary_features) -> None:
    """Set the fitted attributes that only some estimators have (see the module docstring)."""
    part = "trees" if getattr(model, "quantiles", None) is not None else _OWN_PARTS.get(name)
    foreign = [key for key in ("trees", "clusters", "leaf_values") if key in data and key != part]
    if foreign:
        raise ValueError(f"odtree model of a {name} has a {foreign[0]!r} part, which it does "
                         "not use")
    if part is not None and part not in data:
        raise ValueError(f"odtree model of a {name} lacks the key {part!r}")
    if part == "trees":
        model.trees_ = _decode("trees", _decode_trees, data["trees"], n_binary_features)
        objectives = _expect(data, "objectives", list)
        if len(objectives) != len(model.trees_):
            raise ValueError("'objectives' must hold one objective per tree")
        model.objectives_ = np.array([_decode_float("objectives", value)
                                      for value in objectives])
    elif part == "clusters":
        model._cluster_of, model.labels_, model.cluster_centers_ = _decode(
            "clusters", _decode_clusters, data["clusters"], model.tree_, model.n_features_in_)
    elif part == "leaf_values":
        model.leaf_values_ = _decode("leaf_values", _decode_leaf_values, data["leaf_values"],
                                     model.tree_)


#: The modules whose estimator classes register themselves as they are defined; ``import
#: odtree`` loads them on first use only, so reading a model imports them here.
_ESTIMATOR_MODULES = ("tree._classifier", "tree._regressor", "tree._unsupervised",
                      "ensemble._boosting", "tree._greedy", "rashomon._set")


def _estimator_classes() -> dict:
    """Estimator name -> class, for every estimator :func:`from_json` can rebuild."""
    for module in _ESTIMATOR_MODULES:
        import_module("odtree." + module)
    return dict(ESTIMATORS)


def _binarizer_from_dict(data):
    from .preprocessing._binarizer import Binarizer

    return Binarizer.from_dict(data)


def _check_header(data) -> None:
    if not isinstance(data, dict):
        raise ValueError(f"not an odtree model: the JSON holds a {type(data).__name__}, "
                         "not an object")
    if data.get("format") != FORMAT:
        raise ValueError(f'not an odtree model: "format" is {data.get("format")!r}, '
                         f"expected {FORMAT!r}")
    version = data.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f'"format_version" must be a positive integer, got {version!r}')
    if version > FORMAT_VERSION:
        raise ValueError(f"format_version {version} was written by a newer odtree; this one "
                         f"reads version {FORMAT_VERSION}: upgrade odtree")


def _expect(data, key, types):
    """``data[key]``, checked to be one of ``types`` (bool does not pass for int)."""
    types = types if isinstance(types, tuple) else (types,)
    value = data[key]
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        expected = " or ".join(t.__name__ for t in types)
        raise ValueError(f"{key!r} must be {expected}, got {value!r}")
    return value


def _encode_float(value: float):
    """``value``, or its name (``"inf"``, ``"-inf"``, ``"nan"``) when it is not finite."""
    return value if np.isfinite(value) else repr(value)


def _decode_float(key, value) -> float:
    """A float written by :func:`_encode_float`; ``key`` names it in errors."""
    if value in ("inf", "-inf", "nan"):
        return float(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{key!r} must be int or float, got {value!r}")
    return float(value)


def _decode_fit_result(data, key, kind):
    if kind is float:
        return _decode_float(key, data[key])
    return kind(_expect(data, key, kind))


def _decode(part, function, value, *args):
    """``function(value, *args)``, with its errors turned into a ValueError naming ``part``."""
    try:
        return function(value, *args)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"invalid {part!r}: {exc!s}") from exc


def _decode_trees(items, n_binary_features) -> list[Tree]:
    if not isinstance(items, list) or not items:
        raise TypeError("expected a non-empty list of trees")
    trees = [Tree.from_dict(item) for item in items]
    for tree in trees:
        tree.validate(n_binary_features)
    return trees


def _decode_clusters(data, tree, n_features_in) -> tuple:
    """A clusterer's cluster of each node, ``labels_`` and ``cluster_centers_``, checked."""
    cluster_of = np.array(data["cluster_of"], dtype=np.int64)
    centers = np.array(data["centers"], dtype=np.float64)
    labels = np.array(data["labels"], dtype=np.int64)
    leaves = tree.is_leaf_mask()
    n_clusters = int(leaves.sum())
    if (cluster_of.shape != leaves.shape or np.any(cluster_of[~leaves] != -1)
            or not np.array_equal(np.sort(cluster_of[leaves]), np.arange(n_clusters))):
        raise ValueError("cluster_of must number the leaves 0, 1, ... and give -1 elsewhere")
    dim = data.get("dim", n_features_in)
    if not isinstance(dim, numbers.Integral) or isinstance(dim, bool) or dim < 1:
        raise ValueError("dim must be a positive integer")
    if centers.shape != (n_clusters, dim) or not np.isfinite(centers).all():
        raise ValueError(f"centers must be {n_clusters} rows of {dim} finite numbers")
    if labels.ndim != 1 or np.any(labels < -1) or np.any(labels >= n_clusters):
        raise ValueError("labels must be cluster numbers (or -1)")
    return cluster_of, labels, centers


def _encode_leaf_value(node, value) -> dict:
    """One entry of a predictor's ``leaf_values``; numpy values keep their dtype and shape."""
    item = {"node": int(node)}
    if isinstance(value, np.ndarray | np.generic):
        if value.dtype.kind not in _LEAF_DTYPE_KINDS:
            raise ValueError(f"leaf_values_ holds a value of dtype {value.dtype}, which JSON "
                             "cannot store")
        item["dtype"] = value.dtype.str
        if isinstance(value, np.ndarray):
            item["shape"] = list(value.shape)
    item["value"] = _json_safe(value, "leaf_values_")
    return item


def _decode_leaf_values(items, tree) -> dict:
    """A predictor's ``leaf_values_``: the value of each leaf of ``tree``, by node id."""
    values = {}
    for item in items:
        value = item["value"]
        if "dtype" in item:
            dtype = np.dtype(item["dtype"])
            if dtype.kind not in _LEAF_DTYPE_KINDS:
                raise ValueError(f"dtype {dtype.str} is not one of numbers or strings")
            value = (np.array(value, dtype=dtype).reshape(item["shape"]) if "shape" in item
                     else dtype.type(value))
        values[_expect(item, "node", int)] = value
    if sorted(values) != np.flatnonzero(tree.is_leaf_mask()).tolist():
        raise ValueError("leaf_values must give one value for each leaf of the tree")
    return values


def _decode_features(items) -> list[BinaryFeature]:
    if not isinstance(items, list):
        raise TypeError(f"expected a list, got {type(items).__name__}")
    return [BinaryFeature.from_dict(item) for item in items]


def _check_columns(features, n_features_in) -> None:
    for index, feature in enumerate(features):
        if not 0 <= feature.column < n_features_in:
            raise ValueError(f"binary feature {index} reads column {feature.column}, but the "
                             f"model has {n_features_in} input columns")


def _encode_classes(classes) -> dict:
    classes = np.asarray(classes)
    values = classes.tolist()
    for tag, (kind, _) in _CLASS_TYPES.items():
        if all(_is_exactly(value, kind) for value in values):
            return {"type": tag, "dtype": classes.dtype.str, "values": values}
    raise ValueError("classes_ must all be bools, ints, floats or strings to be written as "
                     f"JSON, got {sorted({type(v).__name__ for v in values})}")


def _decode_classes(data) -> np.ndarray:
    tag, dtype, values = data["type"], np.dtype(data["dtype"]), data["values"]
    if tag not in _CLASS_TYPES:
        raise ValueError(f"type must be one of {sorted(_CLASS_TYPES)}, got {tag!r}")
    kind, dtype_kinds = _CLASS_TYPES[tag]
    if dtype.kind not in dtype_kinds:
        raise ValueError(f"dtype {dtype.str} cannot hold {tag} classes")
    if not isinstance(values, list) or not all(_is_exactly(v, kind) for v in values):
        raise ValueError(f"values must be a list of {tag}")
    return np.array(values, dtype=dtype)


def _is_exactly(value, kind) -> bool:
    """Whether ``value`` is a ``kind`` and not merely convertible (True is no int here)."""
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def _json_safe(value, where):
    """``value`` as plain JSON data, or a ValueError naming ``where``."""
    value = _numpy_to_python(value) if isinstance(value, np.generic | np.ndarray) else value
    if value is None or isinstance(value, bool | str | numbers.Integral):
        return value
    if isinstance(value, numbers.Real) and np.isfinite(value):
        return float(value)
    if isinstance(value, list | tuple):
        return [_json_safe(item, where) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {key: _json_safe(item, where) for key, item in value.items()}
    raise ValueError(f"{where} holds {value!r}, which JSON cannot store")


def _numpy_to_python(value):
    """Turn numpy scalars and arrays into Python ones for ``json.dumps``."""
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} cannot be written as JSON")
