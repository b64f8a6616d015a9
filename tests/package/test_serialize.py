"""JSON round trip of fitted models, and the errors on malformed text."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from odtree import OptimalTreeClassifier
from odtree import _json as _serialize
from odtree._json import from_json, to_json
from odtree.preprocessing._binarizer import Binarizer
from odtree.preprocessing._features import BinaryFeature
from odtree.tree._arrays import Tree
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.exceptions import NotFittedError


class TinyTreeClassifier(ClassifierMixin, BaseEstimator):
    """Stands in for OptimalTreeClassifier: same fitted attributes, same way of predicting."""

    def __init__(self, max_depth=3, min_samples_leaf=1, time_limit=None, callback=None):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.time_limit = time_limit
        self.callback = callback

    def predict_proba(self, X):
        leaf = self.tree_.apply(self.binarizer_.transform(X))
        sums = self.tree_.value[leaf, 0]
        return sums / sums.sum(axis=1, keepdims=True)

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


@pytest.fixture(autouse=True)
def tiny_registry(monkeypatch):
    """Let from_json build TinyTreeClassifier, besides the real estimators once they exist."""
    real = _serialize._estimator_classes

    def classes():
        try:
            known = real()
        except ImportError:  # odtree.tree._classifier is not written yet
            known = {}
        return {**known, "TinyTreeClassifier": TinyTreeClassifier}

    monkeypatch.setattr(_serialize, "_estimator_classes", classes)


def stump(X, y, **params):
    """A TinyTreeClassifier 'fitted' as a stump on the first binary feature."""
    model = TinyTreeClassifier(**params)
    model.binarizer_ = Binarizer(n_thresholds=2).fit(X)
    split = model.binarizer_.transform(X)[:, 0]
    model.classes_, codes = np.unique(np.asarray(y), return_inverse=True)
    k = len(model.classes_)
    model.class_ranking_ = np.arange(k)
    sums = [np.bincount(codes[rows], minlength=k) for rows in (slice(None), split == 0, split == 1)]
    counts = [len(codes), int((split == 0).sum()), int((split == 1).sum())]
    model.tree_ = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], np.array(sums)[:, None, :],
                       counts, np.array(counts, dtype=float))
    model.node_classes_ = np.argmax(np.array(sums), axis=1)  # the search's classes
    model.n_features_in_ = model.binarizer_.n_features_in_
    if hasattr(model.binarizer_, "feature_names_in_"):
        model.feature_names_in_ = model.binarizer_.feature_names_in_
    model.binary_features_ = list(model.binarizer_.features_)
    model.binary_feature_names_ = model.binarizer_.get_feature_names_out()
    leaf_sums = np.array(sums[1:])
    model.objective_ = float((leaf_sums.sum(axis=1) - leaf_sums.max(axis=1)).sum())
    model.lower_bound_ = model.objective_
    model.optimal_ = True
    model.status_ = "optimal"
    model.fit_time_ = 0.125
    model.n_cache_entries_ = 7
    return model


RNG = np.random.default_rng(0)
X_NUM = RNG.normal(size=(40, 3))
Y_INT = (X_NUM[:, 0] > 0).astype(np.int64)


@pytest.mark.parametrize("y", [
    Y_INT,
    Y_INT.astype(np.int32),
    np.where(Y_INT == 1, "yes", "no"),
    np.where(Y_INT == 1, "yes", "no").astype(object),
    Y_INT.astype(bool),
    Y_INT * 0.5 + 1.25,
    Y_INT + 2 * (X_NUM[:, 1] > 0),  # four classes
], ids=["int64", "int32", "str", "object", "bool", "float", "multiclass"])
def test_round_trip_predicts_the_same_and_keeps_class_types(y):
    model = stump(X_NUM, y)
    text = to_json(model)
    copy = from_json(text)
    assert type(copy) is TinyTreeClassifier
    assert copy.classes_.dtype == model.classes_.dtype
    assert copy.classes_.tolist() == model.classes_.tolist()
    assert [type(c) for c in copy.classes_.tolist()] == [type(c) for c in model.classes_.tolist()]
    np.testing.assert_array_equal(copy.predict(X_NUM), model.predict(X_NUM))
    np.testing.assert_array_equal(copy.predict_proba(X_NUM), model.predict_proba(X_NUM))
    assert to_json(copy) == text


def test_round_trip_keeps_params_fit_results_and_feature_names():
    frame = pd.DataFrame({"age": X_NUM[:, 0], "colour": np.where(X_NUM[:, 1] > 0, "red", "blue")})
    model = stump(frame, Y_INT, max_depth=np.int64(4), time_limit=2.5)
    copy = from_json(to_json(model, indent=2))
    assert copy.get_params() == {"max_depth": 4, "min_samples_leaf": 1, "time_limit": 2.5,
                                 "callback": None}
    for name in ("objective_", "lower_bound_", "optimal_", "status_", "fit_time_",
                 "n_cache_entries_", "n_features_in_"):
        assert getattr(copy, name) == getattr(model, name)
        assert type(getattr(copy, name)) is type(getattr(model, name))
    assert copy.binary_feature_names_.dtype == object
    assert copy.binary_feature_names_.tolist() == model.binary_feature_names_.tolist()
    assert copy.feature_names_in_.tolist() == ["age", "colour"]
    assert copy.binary_features_ == model.binary_features_
    assert copy.binarizer_.features_ == model.binary_features_
    np.testing.assert_array_equal(copy.tree_.value, model.tree_.value)
    np.testing.assert_array_equal(copy.predict(frame), model.predict(frame))


def test_json_layout():
    data = json.loads(to_json(stump(X_NUM, Y_INT)))
    assert data["format"] == "odtree-model" and data["format_version"] == 2
    assert data["estimator"] == "TinyTreeClassifier"
    assert data["classes"] == {"type": "int", "dtype": "<i8", "values": [0, 1]}
    assert data["class_ranking"] == [0, 1]
    assert set(data) == {"format", "format_version", "estimator", "params", "classes",
                         "class_ranking", "node_classes", "n_features_in", "binarizer",
                         "binary_features", "tree",
                         "objective", "lower_bound", "optimal", "status", "fit_time",
                         "n_cache_entries"}


def test_non_finite_fit_results_round_trip():
    model = stump(X_NUM, Y_INT)
    model.lower_bound_, model.objective_ = float("-inf"), float("nan")
    text = to_json(model)
    assert '"lower_bound": "-inf"' in text and "NaN" not in text
    copy = from_json(text)
    assert copy.lower_bound_ == float("-inf") and np.isnan(copy.objective_)


def test_to_json_rejects_params_json_cannot_hold():
    with pytest.raises(ValueError, match="parameter 'callback'"):
        to_json(stump(X_NUM, Y_INT, callback=print))
    with pytest.raises(ValueError, match="parameter 'time_limit'"):
        to_json(stump(X_NUM, Y_INT, time_limit=float("inf")))


def test_to_json_needs_a_fitted_model():
    with pytest.raises(NotFittedError):
        to_json(TinyTreeClassifier())


def edited(change):
    data = json.loads(to_json(stump(X_NUM, Y_INT)))
    change(data)
    return json.dumps(data)


def _set(path, value):
    def change(data):
        *parents, last = path
        for key in parents:
            data = data[key]
        data[last] = value
    return change


MALFORMED = {
    "not json": ("{not json", "not valid JSON"),
    "a list": ("[1, 2]", "holds a list"),
    "other format": (edited(_set(["format"], "sklearn")), "not an odtree model"),
    "newer version": (edited(_set(["format_version"], _serialize.FORMAT_VERSION + 1)),
                      "newer odtree"),
    "string version": (edited(_set(["format_version"], "1")), "format_version"),
    "missing tree": (edited(lambda d: d.pop("tree")), "lacks the key.*'tree'"),
    "missing status": (edited(lambda d: d.pop("status")), "'status'"),
    "missing classes": (edited(lambda d: d.pop("classes")), "'classes'"),
    "unknown estimator": (edited(_set(["estimator"], "Forest")), "unknown estimator 'Forest'"),
    "estimator not a name": (edited(_set(["estimator"], ["A"])), "'estimator' must be str"),
    "tree not an object": (edited(_set(["tree"], [])), "invalid 'tree'"),
    "unknown param": (edited(_set(["params", "colour"], 1)), "params do not fit"),
    "params not a dict": (edited(_set(["params"], [])), "'params' must be dict"),
    "short tree array": (edited(lambda d: d["tree"]["children_left"].pop()), "invalid 'tree'"),
    "tree feature out of range": (edited(_set(["tree", "feature", 0], 99)), "invalid feature 99"),
    "cyclic tree": (edited(_set(["tree", "children_left", 0], 0)), "invalid children"),
    "value width": (edited(_set(["classes", "values"], [0, 1, 2])), "3 classes"),
    "class type tag": (edited(_set(["classes", "type"], "complex")), "type must be one of"),
    "class value type": (edited(_set(["classes", "values"], ["0", "1"])), "list of int"),
    "class dtype": (edited(_set(["classes", "dtype"], "<U1")), "cannot hold int"),
    "feature column": (edited(_set(["binary_features", 0, "column"], 5)), "reads column 5"),
    "feature kind": (edited(_set(["binary_features", 0, "kind"], "odd")), "binary_features"),
    "feature holds": (edited(_set(["binary_features", 0, "holds"], [True])), "values"),
    "empty run": (edited(_set(["binary_features", 0, "values"], [])), "non-empty list"),
    "features not runs": (edited(_set(["binary_features"], {})), "list of runs"),
    "binarizer": (edited(_set(["binarizer", "column_kinds"], ["numeric"])), "invalid 'binarizer'"),
    "binarizer features": (edited(_set(["binary_features", 0, "kind"], "category")),
                           "needs a categorical column"),
    "binarizer columns": (edited(_set(["binarizer", "column_kinds"], ["numeric"] * 4)),
                          "invalid 'binarizer'"),
    "optimal not bool": (edited(_set(["optimal"], "yes")), "'optimal' must be bool"),
    "cache entries float": (edited(_set(["n_cache_entries"], 1.5)), "'n_cache_entries' must"),
    "feature names": (edited(_set(["feature_names_in"], ["a"])), "feature_names_in must be 3"),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_from_json_says_what_is_wrong(name):
    text, message = MALFORMED[name]
    with pytest.raises(ValueError, match=message):
        from_json(text)


def test_from_json_reads_bytes():
    model = stump(X_NUM, Y_INT)
    assert from_json(to_json(model).encode()).status_ == "optimal"


def test_round_trip_of_an_imported_sklearn_tree():
    pytest.importorskip("odtree.tree._classifier")
    from odtree.tree._from_sklearn import from_sklearn
    from sklearn.tree import DecisionTreeClassifier

    greedy = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X_NUM, Y_INT)
    copy = from_json(to_json(from_sklearn(greedy)))
    assert type(copy).__name__ == "OptimalTreeClassifier" and copy.status_ == "heuristic"
    np.testing.assert_array_equal(copy.predict(X_NUM), greedy.predict(X_NUM))


def test_round_trip_of_a_fitted_optimal_tree():
    pytest.importorskip("odtree._core")
    from odtree.tree._classifier import OptimalTreeClassifier

    frame = pd.DataFrame(X_NUM, columns=["a", "b", "c"])
    model = OptimalTreeClassifier(max_depth=2).fit(frame, np.where(Y_INT == 1, "yes", "no"))
    text = model.to_json()
    copy = from_json(text)
    assert copy.get_params() == model.get_params()
    np.testing.assert_array_equal(copy.predict(frame), model.predict(frame))
    np.testing.assert_array_equal(copy.predict_proba(frame), model.predict_proba(frame))
    assert to_json(copy) == text


def test_from_json_reads_a_path_given_as_str_or_path_like(tmp_path):
    model = stump(X_NUM, Y_INT)
    path = tmp_path / "model.json"
    path.write_text(to_json(model))
    for given in (path, str(path)):
        np.testing.assert_array_equal(from_json(given).predict(X_NUM), model.predict(X_NUM))


def test_from_json_with_neither_text_nor_a_file_says_what_to_pass(tmp_path):
    missing = tmp_path / "nowhere.json"
    for given in (missing, str(missing)):
        with pytest.raises(ValueError, match="neither JSON text nor an existing file: pass the "
                                             "JSON text or a path"):
            from_json(given)
    with pytest.raises(ValueError, match="not valid JSON .*pass the JSON text or a path"):
        from_json("{not json")
    with pytest.raises(TypeError, match="JSON text .* or a path, got int"):
        from_json(3)


FIXTURES = Path(__file__).parent / "fixtures"


def test_a_depth_3_model_is_written_compactly():
    pytest.importorskip("odtree._core")
    from odtree.tree._classifier import OptimalTreeClassifier
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    model = OptimalTreeClassifier(max_depth=3, thresholds="quantile").fit(X, y)
    text = to_json(model)
    assert len(text) < 10_000  # version 1 wrote 58 KB: 300 binary features, twice, as objects
    data = json.loads(text)
    # one run of thresholds per column, names not repeated
    assert [run["column"] for run in data["binary_features"]] == list(range(30))
    # the exact search's thresholds follow the grid's, one more run for each
    exact = OptimalTreeClassifier(max_depth=3).fit(X, y)
    runs = json.loads(to_json(exact))["binary_features"]
    assert len(runs) <= 30 + exact.tree_.node_count and len(to_json(exact)) < 10_000
    np.testing.assert_array_equal(from_json(to_json(exact)).predict(X), exact.predict(X))
    assert all(set(run) == {"column", "kind", "values"} for run in data["binary_features"])
    assert set(data["binarizer"]) == {"params", "column_kinds"}
    assert text.count('"mean radius"') == 1
    copy = from_json(text)
    np.testing.assert_array_equal(copy.predict(X), model.predict(X))
    np.testing.assert_array_equal(copy.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(copy.apply(X), model.apply(X))
    assert copy.binary_features_ == model.binary_features_
    assert to_json(copy) == text


def test_runs_keep_holds_and_names_that_are_not_the_columns():
    model = stump(X_NUM, Y_INT)
    renamed = BinaryFeature(0, "age in years", "threshold", model.binary_features_[0].value,
                            missing_holds=True)
    model.binary_features_ = [renamed, *model.binary_features_[1:]]
    runs = json.loads(to_json(model))["binary_features"]
    assert runs[0] == {"column": 0, "kind": "threshold", "values": [renamed.value],
                       "column_name": "age in years", "holds": [True]}
    assert runs[1] == {"column": 0, "kind": "threshold", "values": runs[1]["values"]}
    assert _serialize._decode_runs(runs, ["x0", "x1", "x2"]) == model.binary_features_


@pytest.mark.parametrize("name", ["classifier", "quantile_regressor", "lpboost"])
def test_version_1_texts_still_load_and_predict_the_same(name):
    # written by the version 1 writer (odtree 0.1.0; params trimmed to those it set), with the
    # predictions the fitted model made then
    pytest.importorskip("odtree._core")
    from sklearn.datasets import load_iris

    saved = json.loads((FIXTURES / f"model_v1_{name}.json").read_text())
    assert saved["model"]["format_version"] == 1
    X = load_iris(as_frame=True).data
    X.columns = ["sepal length", "sepal width", "petal length", "petal width"]
    if name == "quantile_regressor":
        X = X.iloc[:, :3]
    model = from_json(json.dumps(saved["model"]))
    predicted = model.predict(X)
    assert predicted.tolist() == saved["predict"]
    # written again, it is the compact version 2, which predicts the same
    again = json.loads(to_json(model))
    assert again["format_version"] == 2
    assert from_json(json.dumps(again)).binary_features_ == model.binary_features_
    assert len(json.dumps(again)) < len(json.dumps(saved["model"]))
    np.testing.assert_array_equal(from_json(json.dumps(again)).predict(X), predicted)


def test_version_1_texts_keep_their_checks():
    saved = json.loads((FIXTURES / "model_v1_classifier.json").read_text())["model"]
    saved["binarizer"]["features"][0]["value"] = 99.0
    with pytest.raises(ValueError, match="does not compute"):
        from_json(json.dumps(saved))


def test_json_keeps_the_anytime_log_the_pareto_front_and_the_cache_figures():
    from odtree import from_json, plot_anytime, to_json

    X, y = load_breast_cancer(return_X_y=True)
    model = OptimalTreeClassifier(max_depth=3, thresholds="quantile").fit(X, y)
    loaded = from_json(to_json(model))
    np.testing.assert_array_equal(loaded.anytime_log_, model.anytime_log_)
    assert loaded.cache_peak_bytes_ == model.cache_peak_bytes_
    assert loaded.n_wipes_ == model.n_wipes_
    plot_anytime(loaded)  # needs the log
    f1 = OptimalTreeClassifier(max_depth=2, criterion="f1", pareto_front=True,
                               thresholds="quantile").fit(X, y)
    np.testing.assert_array_equal(from_json(to_json(f1)).pareto_front_, f1.pareto_front_)


def test_to_json_of_a_model_holding_a_tree_says_where_the_tree_is():
    from odtree import OptimalTreeCV, to_json

    X, y = load_iris(return_X_y=True)
    search = OptimalTreeCV(depths=(1, 2), cv=3).fit(X, y)
    with pytest.raises(TypeError, match="best_estimator_"):
        to_json(search)
