"""Every estimator, fitted in every way, predicts the same after a JSON round trip."""

import json

import numpy as np
import pandas as pd
import pytest
from odtree import (
    OptimalTreeClassifier,
    OptimalTreeClusterer,
    OptimalTreePredictor,
    OptimalTreeRegressor,
)
from odtree._json import from_json, to_json

RNG = np.random.default_rng(0)
X = RNG.normal(size=(50, 3))
Y_CLASS = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)
Y_REAL = 2 * X[:, 0] + np.sin(X[:, 1]) + RNG.normal(scale=0.1, size=50)


def misclassified(class_weights):
    return float(class_weights.sum() - class_weights.max()), int(np.argmax(class_weights))


def squared_error(rows):
    return float(((Y_REAL[rows] - Y_REAL[rows].mean()) ** 2).sum())


def mean(rows):
    return float(Y_REAL[rows].mean())


def copied(model):
    """The model after to_json and from_json, checked to write the same text again."""
    text = to_json(model)
    copy = from_json(text)
    assert type(copy) is type(model)
    assert to_json(copy) == text
    return copy


def assert_same(got, expected):
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


CLASSIFIERS = {
    "misclassification": {},
    "cost_matrix": {"cost_matrix": [[0, 1, 4], [1, 0, 1], [3, 2, 0]]},
    "fast_error_function": {"fast_error_function": misclassified},
    "error_function": {"error_function": lambda rows: misclassified(
        np.bincount(Y_CLASS[rows], minlength=3).astype(float))},
}


@pytest.mark.parametrize("objective", CLASSIFIERS)
def test_classifier(objective):
    model = OptimalTreeClassifier(max_depth=2, **CLASSIFIERS[objective]).fit(X, Y_CLASS)
    copy = copied(model)
    assert_same(copy.predict(X), model.predict(X))
    assert_same(copy.predict_proba(X), model.predict_proba(X))
    for name in ("fast_error_function", "error_function"):
        assert getattr(copy, name) is None  # functions are not saved


def test_classifier_on_a_frame_with_string_labels():
    frame = pd.DataFrame({"a": X[:, 0], "colour": np.where(X[:, 1] > 0, "red", "blue")})
    labels = np.where(Y_CLASS > 0, "yes", "no")
    model = OptimalTreeClassifier(max_depth=2, cost_matrix=[[0, 1], [5, 0]]).fit(frame, labels)
    copy = copied(model)
    assert_same(copy.predict(frame), model.predict(frame))
    assert copy.feature_names_in_.tolist() == ["a", "colour"]


@pytest.mark.parametrize("params", [
    {"criterion": "squared_error"},
    {"criterion": "absolute_error"},
    {"criterion": "quantile", "quantile": 0.3},
    {"criterion": "quantile", "quantiles": [0.2, 0.8]},
    {"criterion": "quantile", "quantiles": np.array([0.1, 0.5, 0.9])},
], ids=["squared", "absolute", "quantile", "two-quantiles", "three-quantiles"])
def test_regressor(params):
    model = OptimalTreeRegressor(max_depth=2, **params).fit(X, Y_REAL)
    copy = copied(model)
    assert_same(copy.predict(X), model.predict(X))
    if "quantiles" in params:
        assert copy.predict(X).shape == (50, len(params["quantiles"]))
        assert_same(copy.objectives_, model.objectives_)
        assert len(copy.trees_) == len(model.trees_)
        for tree, original in zip(copy.trees_, model.trees_, strict=True):
            assert_same(tree.value, original.value)


def test_clusterer():
    weight = np.ones(50)
    weight[:3] = 0  # rows left out have label -1
    model = OptimalTreeClusterer(max_depth=2, n_clusters=3).fit(X, sample_weight=weight)
    copy = copied(model)
    assert_same(copy.predict(X), model.predict(X))
    assert_same(copy.labels_, model.labels_)
    assert_same(copy.cluster_centers_, model.cluster_centers_)
    assert copy.labels_[:3].tolist() == [-1, -1, -1]


@pytest.mark.parametrize("leaf_value_function", [
    mean,
    None,  # the node ids
    lambda rows: np.float32(Y_REAL[rows].mean()),
    lambda rows: np.array([Y_REAL[rows].min(), Y_REAL[rows].max()]),
    lambda rows: np.array([[len(rows)]], dtype=np.uint16),
    lambda rows: f"{len(rows)} rows",
    lambda rows: (len(rows), round(mean(rows), 3)),
], ids=["float", "node-ids", "float32", "array", "uint16-matrix", "str", "tuple"])
def test_predictor_with_an_error_function(leaf_value_function):
    model = OptimalTreePredictor(max_depth=2, error_function=squared_error,
                                 leaf_value_function=leaf_value_function).fit(X)
    copy = copied(model)
    assert_same(copy.predict(X), model.predict(X))
    assert copy.error_function is None and copy.leaf_value_function is None


def test_predictor_with_a_fast_error_function():
    labels = np.where(Y_CLASS > 0, "yes", "no")
    model = OptimalTreePredictor(max_depth=2, fast_error_function=misclassified).fit(X, labels)
    copy = copied(model)
    assert_same(copy.predict(X), model.predict(X))
    assert_same(copy.classes_, model.classes_)


@pytest.mark.parametrize("value", [object(), float("nan"), np.array([1j]),
                                   np.array([b"x"]), {1: "key not a string"}],
                         ids=["object", "nan", "complex", "bytes", "int-keys"])
def test_predictor_with_leaf_values_json_cannot_hold(value):
    model = OptimalTreePredictor(max_depth=1, error_function=squared_error,
                                 leaf_value_function=lambda rows: value).fit(X)
    with pytest.raises(ValueError, match="leaf_values_"):
        to_json(model)


def edited(model, change):
    data = json.loads(to_json(model))
    change(data)
    return json.dumps(data)


def clusterer():
    return OptimalTreeClusterer(max_depth=1).fit(X)


def quantile_regressor():
    return OptimalTreeRegressor(max_depth=1, criterion="quantile", quantiles=[0.2, 0.8]).fit(
        X, Y_REAL)


def predictor():
    return OptimalTreePredictor(max_depth=1, error_function=squared_error,
                                leaf_value_function=mean).fit(X)


MALFORMED = {
    "clusterer without clusters": (clusterer, lambda d: d.pop("clusters"),
                                   "lacks the key 'clusters'"),
    "cluster numbers": (clusterer, lambda d: d["clusters"].update(cluster_of=[-1, 0, 0]),
                        "number the leaves"),
    "centers shape": (clusterer, lambda d: d["clusters"].update(centers=[[0.0]]),
                      "centers must be 2 rows of 3"),
    "labels": (clusterer, lambda d: d["clusters"].update(labels=[5]), "labels must be"),
    "quantiles without trees": (quantile_regressor, lambda d: d.pop("trees"),
                                "lacks the key 'trees'"),
    "objectives": (quantile_regressor, lambda d: d["objectives"].pop(), "one objective per tree"),
    "tree of a quantile": (quantile_regressor, lambda d: d["trees"][1]["feature"].__setitem__(
        0, 99), "invalid 'trees'"),
    "part of another estimator": (clusterer, lambda d: d.update(trees=[]), "does not use"),
    "leaf values missing a leaf": (predictor, lambda d: d["leaf_values"].pop(),
                                   "one value for each leaf"),
    "leaf value dtype": (predictor, lambda d: d["leaf_values"][0].update(dtype="|O"),
                         "invalid 'leaf_values'"),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_from_json_checks_the_parts_of_each_estimator(name):
    fit, change, message = MALFORMED[name]
    with pytest.raises(ValueError, match=message):
        from_json(edited(fit(), change))


def test_regressor_refitted_without_quantiles():
    model = quantile_regressor().set_params(quantiles=None).fit(X, Y_REAL)
    copy = copied(model)
    assert not hasattr(copy, "trees_")
    assert_same(copy.predict(X), model.predict(X))
