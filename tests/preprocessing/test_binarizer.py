"""Tests of odtree.Binarizer: raw data to the 0/1 matrix of the optimal-tree search."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from odtree.preprocessing._binarizer import Binarizer
from odtree.preprocessing._features import BinaryFeature
from sklearn.datasets import load_breast_cancer
from sklearn.utils.estimator_checks import check_estimator

STRATEGIES = ["quantile", "midpoints", "tree"]


def thresholds(binarizer, column=0):
    return [f.value for f in binarizer.features_ if f.column == column]


def mixed_frame():
    return pd.DataFrame({
        "age": [20.0, 35.0, 40.0, 61.0, 35.0],
        "color": pd.Categorical(["red", "blue", "red", "green", "blue"]),
        "city": ["Paris", "Lyon", "Paris", "Lyon", "Paris"],
        "name": pd.array(["a", "b", "c", "a", "b"], dtype="string"),
        "smoker": [True, False, False, True, False],
        "flag": [0, 1, 1, 0, 1],
    })


def test_binary_columns_pass_through_in_order():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(40, 6)).astype(float)
    X[:, 3] = 1.0  # a constant binary column still passes through
    binarizer = Binarizer().fit(X)
    assert [(f.column, f.kind) for f in binarizer.features_] == [(j, "binary") for j in range(6)]
    B = binarizer.transform(X)
    assert B.dtype == np.uint8
    np.testing.assert_array_equal(B, X)
    assert binarizer.get_feature_names_out()[0] == "x0 = 1"


def test_binary_column_among_numeric_keeps_column_order():
    X = np.array([[0, 5.0, 1], [1, 7.0, 0], [1, 9.0, 0]])
    binarizer = Binarizer(strategy="midpoints").fit(X)
    assert [(f.column, f.kind) for f in binarizer.features_] == [
        (0, "binary"), (1, "threshold"), (1, "threshold"), (2, "binary")]


@pytest.mark.parametrize(("value", "routed"), [(2.0, 1), (0.5, 0), (0.75, 1), (-1, 0), (16, 1)])
def test_binary_column_routes_any_number_as_at_half(value, routed):
    """A 0/1 column is a numeric column whose one test is x > 0.5: any number routes."""
    binarizer = Binarizer().fit(np.array([[0], [1]], dtype=np.uint8))
    assert binarizer.transform(np.array([[value]])).tolist() == [[routed]]


def test_binary_column_routes_wide_unsigned_values():
    """256 as uint16 would wrap to 0 as uint8."""
    binarizer = Binarizer().fit(np.array([[0, 5.0], [1, 7.0]]))
    X = np.array([[256, 9], [0, 9]], dtype=np.uint16)
    assert binarizer.transform(X)[:, 0].tolist() == [1, 0]


def test_threshold_semantics_and_names():
    X = pd.DataFrame({"age": [30.0, 45.0, 30.0, 60.0]})
    binarizer = Binarizer(strategy="midpoints").fit(X)
    feature = binarizer.features_[0]
    assert feature == BinaryFeature(0, "age", "threshold", 37.5)
    assert (feature.name, feature.negation) == ("age <= 37.5", "age > 37.5")
    B = binarizer.transform(X)
    np.testing.assert_array_equal(B, (X.to_numpy() <= [37.5, 52.5]).astype(np.uint8))
    np.testing.assert_array_equal(binarizer.get_feature_names_out(),
                                  np.array(["age <= 37.5", "age <= 52.5"], dtype=object))


def test_midpoints_between_distinct_values():
    X = np.array([[3.0, 2.0], [1.0, 2.0], [2.0, 2.0], [3.0, 2.0], [7.0, 2.0]])
    binarizer = Binarizer(strategy="midpoints").fit(X)
    assert thresholds(binarizer) == [1.5, 2.5, 5.0]
    assert thresholds(binarizer, 1) == []  # constant column


def test_quantile_thresholds_follow_the_definition():
    X = np.arange(1.0, 11.0).reshape(-1, 1)
    assert thresholds(Binarizer(n_thresholds=1).fit(X)) == [5.5]
    assert thresholds(Binarizer(n_thresholds=4).fit(X)) == [2.5, 4.5, 6.5, 8.5]
    assert thresholds(Binarizer(n_thresholds=100).fit(X)) == [1.5 + i for i in range(9)]
    weights = [6, 1, 1, 1, 1, 1, 1, 1, 1, 1]  # F(1) = 6/15, F(2) = 7/15, F(3) = 8/15
    assert thresholds(Binarizer(n_thresholds=1).fit(X, sample_weight=weights)) == [3.5]
    weights = [9, 1, 1, 1, 1, 1, 1, 1, 1, 1]  # F(1) = 1/2 exactly
    assert thresholds(Binarizer(n_thresholds=1).fit(X, sample_weight=weights)) == [1.5]


def test_thresholds_at_the_float_limits():
    X = np.array([[-1e308], [1e308], [1.0], [np.nextafter(1.0, 2.0)]])
    values = thresholds(Binarizer(strategy="midpoints").fit(X))
    assert values == [(-1e308 + 1.0) / 2, 1.0, 1e308 / 2]  # adjacent floats give the lower one
    assert all(np.isfinite(values))


column_values = st.one_of(st.integers(-3, 3).map(float),
                          st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False))


@st.composite
def weighted_data(draw, max_weight=4):
    n_rows = draw(st.integers(1, 25))
    n_columns = draw(st.integers(1, 3))
    X = draw(arrays(np.float64, (n_rows, n_columns), elements=column_values))
    weights = draw(arrays(np.int64, n_rows, elements=st.integers(0, max_weight)))
    if weights.sum() == 0:
        weights[0] = 1
    return X, weights


@settings(max_examples=60, deadline=None)
@given(data=weighted_data(), n_thresholds=st.integers(1, 6),
       strategy=st.sampled_from(["quantile", "midpoints"]))
def test_integer_weights_equal_repeated_rows(data, n_thresholds, strategy):
    X, weights = data
    weighted = Binarizer(strategy, n_thresholds=n_thresholds).fit(X, sample_weight=weights)
    repeated = Binarizer(strategy, n_thresholds=n_thresholds).fit(np.repeat(X, weights, axis=0))
    assert weighted.features_ == repeated.features_


@settings(max_examples=60, deadline=None)
@given(data=weighted_data(), extra=st.data(), n_thresholds=st.integers(1, 6),
       strategy=st.sampled_from(STRATEGIES))
def test_zero_weight_rows_are_ignored(data, extra, n_thresholds, strategy):
    X, weights = data
    X, weights = X[weights > 0], weights[weights > 0]
    y = (X[:, 0] > np.median(X[:, 0])).astype(int)
    ghosts = extra.draw(arrays(np.float64, (extra.draw(st.integers(1, 5)), X.shape[1]),
                               elements=column_values))
    where = extra.draw(st.lists(st.integers(0, len(X)), min_size=len(ghosts),
                                max_size=len(ghosts)))
    X_all = np.insert(X, where, ghosts, axis=0)
    y_all = np.insert(y, where, 1 - y[0])
    weights_all = np.insert(weights, where, 0)
    clean = Binarizer(strategy, n_thresholds=n_thresholds).fit(X, y, sample_weight=weights)
    noisy = Binarizer(strategy, n_thresholds=n_thresholds).fit(X_all, y_all,
                                                                sample_weight=weights_all)
    assert clean.features_ == noisy.features_


def test_zero_weight_values_do_not_break_binary_columns():
    X = np.array([[0.0], [1.0], [5.0]])
    binarizer = Binarizer().fit(X, sample_weight=[1, 1, 0])
    assert binarizer.features_ == [BinaryFeature(0, "x0", "binary")]


def test_tree_strategy_uses_the_greedy_split_as_a_midpoint():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = (X[:, 1] > 0.3).astype(int)
    binarizer = Binarizer(strategy="tree", n_thresholds=1).fit(X, y)
    assert [f.column for f in binarizer.features_] == [1]
    values = np.unique(X[:, 1])
    gap = np.searchsorted(values, 0.3)
    assert binarizer.features_[0].value == (values[gap - 1] + values[gap]) / 2


def test_tree_strategy_budget_regression_and_categories():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300),
                      "c": rng.choice(["u", "v", "w"], size=300)})
    y = X["a"] * 2 + np.sin(3 * X["b"])
    binarizer = Binarizer(strategy="tree", n_thresholds=4).fit(X, y)
    kinds = [f.kind for f in binarizer.features_]
    assert 1 <= kinds.count("threshold") <= 7
    assert kinds.count("category") == 3
    midpoints = Binarizer(strategy="midpoints").fit(X)
    assert set(binarizer.get_feature_names_out()) <= set(midpoints.get_feature_names_out())


def test_tree_strategy_needs_y():
    with pytest.raises(ValueError, match="needs y"):
        Binarizer(strategy="tree").fit(np.array([[1.0], [2.0]]))


def test_mixed_frame():
    X = mixed_frame()
    binarizer = Binarizer(strategy="midpoints").fit(X)
    assert binarizer.column_kinds_ == ["numeric", "categorical", "categorical", "categorical",
                                       "categorical", "numeric"]
    assert binarizer.feature_names_in_.tolist() == list(X.columns)
    assert binarizer.get_feature_names_out().tolist() == [
        "age <= 27.5", "age <= 37.5", "age <= 50.5",
        "color = blue", "color = green", "color = red",
        "city = Lyon",
        "name = a", "name = b", "name = c",
        "smoker = False",
        "flag = 1",
    ]
    B = binarizer.transform(X)
    np.testing.assert_array_equal(B[:, 5], [1, 0, 1, 0, 0])  # color = red
    np.testing.assert_array_equal(B[:, 10], [0, 1, 1, 0, 1])  # smoker = False
    np.testing.assert_array_equal(B[:, 11], X["flag"])
    values = [f.value for f in binarizer.features_ if f.kind == "category"]
    assert values[-1] is False and all(type(v) is str for v in values[:-1])


def test_category_counts_and_max_categories():
    X = pd.DataFrame({"one": ["a"] * 6, "two": list("xyxyyy"), "many": list("ppqqqr")})
    binarizer = Binarizer().fit(X)
    assert binarizer.get_feature_names_out().tolist() == [
        "two = x", "many = p", "many = q", "many = r"]
    capped = Binarizer(max_categories=2).fit(X, sample_weight=[1, 1, 1, 1, 1, 5])
    assert capped.get_feature_names_out().tolist() == ["two = x", "many = q", "many = r"]
    tie = Binarizer(max_categories=1).fit(X[["many"]], sample_weight=[1, 1, 1, 1, 0, 2])
    assert tie.get_feature_names_out().tolist() == ["many = p"]  # p, q, r all weigh 2


def test_mixed_type_categories_sort_by_text():
    X = pd.DataFrame({"mixed": pd.Series([10, "b", 2.5, "b"], dtype=object)})
    binarizer = Binarizer().fit(X)
    assert [f.value for f in binarizer.features_] == [10, 2.5, "b"]


def test_unseen_category_is_zero_everywhere():
    binarizer = Binarizer().fit(mixed_frame())
    new = mixed_frame().iloc[:1].copy()
    new["color"] = pd.Categorical(["purple"])
    new["city"] = "Rome"
    B = binarizer.transform(new)
    columns = [i for i, f in enumerate(binarizer.features_) if f.column_name in ("color", "city")]
    assert B[0, columns].tolist() == [0] * 4


def test_numpy_object_array_after_categorical_fit():
    binarizer = Binarizer().fit(mixed_frame())
    X = mixed_frame().to_numpy(dtype=object)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        B = binarizer.transform(X)
    np.testing.assert_array_equal(B, binarizer.transform(mixed_frame()))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_are_rejected_in_numpy(bad):
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    X_bad = X.copy()
    X_bad[1, 1] = bad
    match = "NaN" if np.isnan(bad) else "infinity"
    with pytest.raises(ValueError, match=match):
        Binarizer().fit(X_bad)
    binarizer = Binarizer().fit(X)
    with pytest.raises(ValueError, match=match):
        binarizer.transform(X_bad)


@pytest.mark.parametrize(("column", "bad", "match"), [
    ("age", np.nan, "'age' has missing values"),
    ("age", np.inf, "'age' has infinite values"),
    ("city", None, "'city' has missing values"),
    ("name", pd.NA, "'name' has missing values"),
    ("color", np.nan, "'color' has missing values"),
])
def test_missing_values_are_rejected_in_frames(column, bad, match):
    X_bad = mixed_frame()
    X_bad.loc[2, column] = bad
    with pytest.raises(ValueError, match=match):
        Binarizer().fit(X_bad)
    binarizer = Binarizer().fit(mixed_frame())
    with pytest.raises(ValueError, match=match):
        binarizer.transform(X_bad)


def test_unusable_inputs_raise_type_errors():
    X = np.array([[1.0], [2.0]], dtype=object)
    X[0, 0] = {"foo": "bar"}
    with pytest.raises(TypeError, match="float\\(\\) argument must be a string or a"):
        Binarizer().fit(X)
    with pytest.raises(TypeError, match="'when' has dtype datetime64"):
        Binarizer().fit(pd.DataFrame({"when": pd.to_datetime(["2020-01-01", "2021-01-01"])}))
    with pytest.raises(TypeError, match="'obj' holds a category of type tuple"):
        Binarizer().fit(pd.DataFrame({"obj": [(1, 2), (3, 4)]}))


def test_wrong_number_of_columns():
    binarizer = Binarizer().fit(np.ones((3, 4)))
    with pytest.raises(ValueError, match="X has 3 features, but Binarizer is expecting 4 "
                                         "features as input."):
        binarizer.transform(np.ones((3, 3)))
    frame_fitted = Binarizer().fit(mixed_frame())
    with pytest.raises(ValueError, match="names seen at fit time, yet now missing:\n- flag"):
        frame_fitted.transform(mixed_frame().iloc[:, :5])


def test_numeric_frame_fit_then_numpy_transform():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.0, 1.0, 1.0]})
    binarizer = Binarizer().fit(X)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        B = binarizer.transform(X.to_numpy())
    np.testing.assert_array_equal(B, binarizer.transform(X))
    with pytest.raises(ValueError, match="feature names should match"):
        binarizer.transform(X.rename(columns={"a": "z"}))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dict_round_trip_through_json(strategy):
    X = mixed_frame()
    y = [0, 1, 1, 0, 1]
    binarizer = Binarizer(strategy, n_thresholds=3, max_categories=2).fit(X, y)
    data = json.loads(json.dumps(binarizer.to_dict()))
    copy = Binarizer.from_dict(data)
    assert copy.get_params() == binarizer.get_params()
    assert copy.features_ == binarizer.features_
    assert copy.feature_names_in_.tolist() == binarizer.feature_names_in_.tolist()
    new = X.copy()
    new["age"] = [0.0, 30.0, 37.5, 100.0, 50.0]
    np.testing.assert_array_equal(copy.transform(new), binarizer.transform(new))


def test_dict_round_trip_without_names():
    X = np.random.default_rng(3).normal(size=(50, 3))
    binarizer = Binarizer().fit(X)
    copy = Binarizer.from_dict(json.loads(json.dumps(binarizer.to_dict())))
    assert not hasattr(copy, "feature_names_in_")
    np.testing.assert_array_equal(copy.transform(X), binarizer.transform(X))


def corrupt(path, value):
    data = Binarizer().fit(mixed_frame()).to_dict()
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


@pytest.mark.parametrize("data", [
    None,
    [],
    corrupt(["params"], KeyError),
    corrupt(["params", "strategy"], "all"),
    corrupt(["params", "n_thresholds"], 0),
    corrupt(["params", "colour"], 1),
    corrupt(["n_features_in"], 5),
    corrupt(["n_features_in"], "6"),
    corrupt(["column_kinds", 0], "text"),
    corrupt(["feature_names_in"], ["a"]),
    corrupt(["features", 0, "kind"], "interval"),
    corrupt(["features", 0, "column"], 99),
    corrupt(["features", 0, "column"], "zero"),
    corrupt(["features", 0, "value"], "high"),
    corrupt(["features", 0, "kind"], "category"),
    corrupt(["features", 0, "kind"], "binary"),
    corrupt(["features", 3, "value"], [1]),
    corrupt(["features", 0, "kind"], KeyError),
], ids=lambda data: "data")
def test_from_dict_rejects_malformed_data(data):
    with pytest.raises(ValueError, match="malformed Binarizer data"):
        Binarizer.from_dict(data)


def test_parameter_validation():
    with pytest.raises(ValueError, match="'strategy' parameter"):
        Binarizer(strategy="uniform").fit(np.ones((2, 1)))
    with pytest.raises(ValueError, match="'max_categories' parameter"):
        Binarizer(max_categories=0).fit(np.ones((2, 1)))


def test_breast_cancer_every_strategy():
    """Speed is measured in benchmarks/, not here (a loaded machine makes timings flaky)."""
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    for strategy in STRATEGIES:
        binarizer = Binarizer(strategy).fit(X, y)
        B = binarizer.transform(X)
        assert B.shape == (569, len(binarizer.features_)) and B.shape[1] > 0
    assert len(Binarizer().fit(X).features_) == 300  # 30 continuous columns, 10 thresholds each


def test_check_estimator(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")  # else the (NumPy-only) array API check skips
    results = check_estimator(Binarizer(), on_fail=None, on_skip=None)
    assert [r["check_name"] for r in results if r["status"] != "passed"] == []
