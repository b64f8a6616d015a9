"""Bad input gives a ValueError, TypeError or NotFittedError naming the problem, never a crash."""

import json
import re
import warnings

import numpy as np
import odtree
import pandas as pd
import pytest
from odtree import OptimalTreeClassifier
from sklearn.exceptions import NotFittedError

RNG = np.random.default_rng(0)
X = RNG.integers(0, 2, size=(30, 4)).astype(float)
Y = np.arange(30) % 2
ACCEPTED = (ValueError, TypeError, NotFittedError)


def raises_cleanly(call, match):
    """Run ``call``; it must raise an accepted error whose message matches ``match``."""
    try:
        call()
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # Rust panics derive from BaseException
        assert isinstance(error, ACCEPTED), f"{type(error).__name__}: {error}"
        assert _search(match, str(error)), f"message {str(error)!r} does not match {match!r}"
        return error
    pytest.fail("no error was raised")


def _search(pattern, text):
    return re.search(pattern, text, flags=re.IGNORECASE) is not None


def with_value(array, value):
    array = array.copy()
    array[3, 1] = value
    return array


@pytest.fixture(scope="module")
def fitted():
    return OptimalTreeClassifier(max_depth=2).fit(X, Y)


def frame():
    return pd.DataFrame({"age": np.linspace(20, 60, 30),
                         "color": pd.Categorical(["red", "blue", "green"] * 10)})


# --------------------------------------------------------------------------- X


@pytest.mark.parametrize("value, match", [(np.nan, "NaN"), (np.inf, "infinity|infinite"),
                                          (-np.inf, "infinity|infinite")])
def test_non_finite_x(fitted, value, match):
    bad = with_value(X, value)
    raises_cleanly(lambda: OptimalTreeClassifier().fit(bad, Y), match)
    raises_cleanly(lambda: fitted.predict(bad), match)
    raises_cleanly(lambda: fitted.predict_proba(bad), match)
    raises_cleanly(lambda: fitted.apply(bad), match)


@pytest.mark.parametrize("value, match", [(np.nan, "missing"), (np.inf, "infinite")])
def test_non_finite_dataframe(value, match):
    data = frame()
    model = OptimalTreeClassifier(max_depth=2).fit(data, Y)
    data.loc[4, "age"] = value
    raises_cleanly(lambda: OptimalTreeClassifier().fit(data, Y), match)
    raises_cleanly(lambda: model.predict(data), match)


def test_missing_category_in_dataframe():
    data = frame()
    model = OptimalTreeClassifier(max_depth=2).fit(data, Y)
    data["color"] = data["color"].astype(object)
    data.loc[2, "color"] = None
    raises_cleanly(lambda: OptimalTreeClassifier().fit(data, Y), "missing")
    raises_cleanly(lambda: model.predict(data), "missing")


@pytest.mark.parametrize("bad, match", [
    (X[:, 0], "2D"),
    (X[:, :, np.newaxis], "dim 3"),
    (X + 1j, "complex"),
    (np.empty((0, 4)), "0 sample"),
    (np.empty((30, 0)), "0 feature"),
    (np.array([["a", "b"]] * 30), "string|float"),
])
def test_bad_shape_or_type_of_x(bad, match):
    y = Y[: len(bad)] if len(bad) else []
    raises_cleanly(lambda: OptimalTreeClassifier().fit(bad, y), match)


def test_dataframe_without_columns():
    raises_cleanly(lambda: OptimalTreeClassifier().fit(frame()[[]], Y), "column")


def test_empty_dataframe():
    """Regression: this gave 'Sample weights must contain at least one non-zero number'."""
    raises_cleanly(lambda: OptimalTreeClassifier().fit(frame().iloc[:0], []),
                   "0 sample|empty|no rows|at least one row")


def test_complex_dataframe_column():
    data = pd.DataFrame({"z": np.arange(30) + 1j})
    raises_cleanly(lambda: OptimalTreeClassifier().fit(data, Y), "complex")


def test_predict_with_wrong_number_of_features(fitted):
    raises_cleanly(lambda: fitted.predict(X[:, :3]), "3 features.*expecting 4")
    raises_cleanly(lambda: fitted.predict(np.hstack([X, X])), "8 features.*expecting 4")
    raises_cleanly(lambda: fitted.predict(X[0]), "2D")


def test_predict_with_wrong_dataframe_columns():
    data = frame()
    model = OptimalTreeClassifier(max_depth=2).fit(data, Y)
    raises_cleanly(lambda: model.predict(data.rename(columns={"age": "years"})), "feature names")
    raises_cleanly(lambda: model.predict(data[["age"]]), "feature names")


def test_predict_with_values_a_binary_column_never_had(fitted):
    # no error: a 0/1 column's one test is x > 0.5, so 5 and 6 route as 1
    np.testing.assert_array_equal(fitted.predict(X + 5), fitted.predict(np.ones_like(X)))


# --------------------------------------------------------------------------- y


@pytest.mark.parametrize("y, match", [
    (np.where(Y == 0, np.nan, 1.0), "NaN"),
    (np.linspace(0, 1, 30), "continuous"),
    (np.c_[Y, Y], "1d|shape"),
    (Y[:-1], "inconsistent numbers of samples"),
    (np.r_[Y, 0], "inconsistent numbers of samples"),
])
def test_bad_y(y, match):
    raises_cleanly(lambda: OptimalTreeClassifier().fit(X, y), match)
    raises_cleanly(lambda: OptimalTreeClassifier().fit(frame(), y), match)


def test_y_required():
    raises_cleanly(lambda: OptimalTreeClassifier().fit(X, None), "requires y")


def test_missing_labels_in_object_y_with_dataframe():
    labels = np.array(["a", None] * 15, dtype=object)
    raises_cleanly(lambda: OptimalTreeClassifier().fit(frame(), labels), "missing")


@pytest.mark.parametrize("labels", [
    pytest.param(np.array(["a", None] * 15, dtype=object), id="object-None"),
    pytest.param(pd.Series(["a", None] * 15, dtype="string"), id="string-NA"),
])
def test_missing_labels_are_named(labels):
    """Regression: TypeError "'<' not supported" / "boolean value of NA is ambiguous"."""
    raises_cleanly(lambda: OptimalTreeClassifier().fit(X, labels), "missing")
    raises_cleanly(lambda: OptimalTreeClassifier().fit(frame(), labels), "missing")


# --------------------------------------------------------------------------- sample_weight


@pytest.mark.parametrize("weight, match", [
    (-np.ones(30), "negative"),
    (with_value(np.ones((30, 2)), np.nan)[:, 1], "NaN"),
    (with_value(np.ones((30, 2)), np.inf)[:, 1], "infinity|infinite"),
    (np.zeros(30), "zero"),
    (np.ones(29), "shape|length|samples"),
    (np.ones((30, 1)), "1D"),
])
def test_bad_sample_weight(weight, match):
    raises_cleanly(lambda: OptimalTreeClassifier().fit(X, Y, sample_weight=weight), match)
    raises_cleanly(lambda: OptimalTreeClassifier().fit(frame(), Y, sample_weight=weight), match)


def test_weights_summing_to_infinity():
    """Regression: this warned InfeasibleWarning and predict_proba gave NaN."""
    weight = np.full(30, 1e308)  # each finite, the sum is not
    raises_cleanly(lambda: OptimalTreeClassifier().fit(X, Y, sample_weight=weight),
                   "sample_weight.*infinity")
    raises_cleanly(lambda: OptimalTreeClassifier().fit(frame(), Y, sample_weight=weight),
                   "sample_weight.*infinity")


# --------------------------------------------------------------------------- parameters


@pytest.mark.parametrize("params, match", [
    ({"max_depth": -1}, "max_depth"),
    ({"max_depth": 2.5}, "max_depth"),
    ({"max_depth": 1000}, "max_depth"),
    ({"max_depth": "3"}, "max_depth"),
    ({"max_depth": None}, "max_depth"),
    ({"min_samples_leaf": 0}, "min_samples_leaf"),
    ({"min_samples_leaf": -3}, "min_samples_leaf"),
    ({"min_samples_leaf": 1.5}, "min_samples_leaf"),
    ({"time_limit": -1}, "time_limit"),
    ({"time_limit": -1e-9}, "time_limit"),
    ({"time_limit": float("nan")}, "time_limit"),
    ({"time_limit": float("inf")}, "time_limit"),
    ({"upper_bound": float("nan")}, "upper_bound"),
    ({"upper_bound": "ten"}, "upper_bound"),
    ({"search": "bfs"}, "search"),
    ({"cache": "lru"}, "cache"),
    ({"branching": "random"}, "branching"),
    ({"thresholds": "kmeans"}, "thresholds"),
    ({"n_thresholds": 0}, "n_thresholds"),
])
def test_bad_parameters(params, match):
    raises_cleanly(lambda: OptimalTreeClassifier(**params).fit(X, Y), match)


@pytest.mark.parametrize("time_limit", [1e18, 1e19, 1e20, 1e300])
def test_huge_time_limit_means_no_limit(time_limit):
    """Regression: a limit beyond what a Duration or a clock reading holds made the Rust binding
    panic (Duration::from_secs_f64 from 1.8e19 s, Instant + Duration from 9.3e18 s)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = OptimalTreeClassifier(max_depth=2, time_limit=time_limit).fit(X, Y)
    assert model.status_ == "optimal"
    assert model.objective_ == OptimalTreeClassifier(max_depth=2).fit(X, Y).objective_


@pytest.mark.parametrize("leaf_size", [2**31, 2**32, 2**64, 10**30])
def test_huge_min_samples_leaf_gives_a_leaf(leaf_size):
    """Regression: min_samples_leaf >= 2**32 raised OverflowError."""
    model = OptimalTreeClassifier(max_depth=2, min_samples_leaf=leaf_size).fit(X, Y)
    assert model.get_n_leaves() == 1 and model.objective_ == 15.0 and model.optimal_


def test_largest_accepted_max_depth_works():
    model = OptimalTreeClassifier(max_depth=64).fit(X, Y)
    assert model.optimal_
    assert model.objective_ == float(np.sum(model.predict(X) != Y))


def test_min_samples_leaf_larger_than_data_gives_a_leaf():
    model = OptimalTreeClassifier(max_depth=3, min_samples_leaf=10**6).fit(X, Y)
    assert model.get_n_leaves() == 1 and model.objective_ == 15.0


@pytest.mark.parametrize("bound", [-5.0, -0.5, 0, 0.5])
@pytest.mark.parametrize("depth", [0, 3])
def test_infeasible_upper_bound_zero_or_negative(bound, depth):
    with pytest.warns(odtree.InfeasibleWarning):
        model = OptimalTreeClassifier(max_depth=depth, upper_bound=bound).fit(X, Y)
    assert model.status_ == "infeasible" and not model.optimal_
    assert model.get_n_leaves() == 1 and model.objective_ == 15.0
    assert model.lower_bound_ == bound


# --------------------------------------------------------------------------- not fitted, JSON


def test_not_fitted():
    model = OptimalTreeClassifier()
    for method in (model.predict, model.predict_proba, model.apply):
        raises_cleanly(lambda method=method: method(X), "not fitted")
    raises_cleanly(lambda: model.score(X, Y), "not fitted")
    raises_cleanly(model.get_depth, "not fitted")
    raises_cleanly(model.get_n_leaves, "not fitted")
    raises_cleanly(model.to_json, "not fitted|fit")


@pytest.mark.parametrize("text, match", [
    ("not json", "JSON"),
    ("", "JSON"),
    ("[1, 2]", "list|object"),
    ("{}", "odtree"),
    ('{"format": "odtree-model"}', "missing|estimator|version|format"),
])
def test_from_json_rejects_bad_text(text, match):
    raises_cleanly(lambda: odtree.from_json(text), match)


def test_from_json_rejects_corrupted_tree(fitted):
    data = json.loads(fitted.to_json())
    data["tree"]["children_left"][0] = 0  # a node that is its own child
    raises_cleanly(lambda: odtree.from_json(json.dumps(data)), "children|node|tree")


# --------------------------------------------------------------------------- valid edge cases


def test_one_row_gives_a_leaf():
    model = OptimalTreeClassifier().fit(X[:1], ["only"])
    assert model.objective_ == 0.0 and model.optimal_
    assert model.get_n_leaves() == 1 and model.get_depth() == 0
    np.testing.assert_array_equal(model.predict(X), ["only"] * 30)
    np.testing.assert_array_equal(model.predict_proba(X), np.ones((30, 1)))


def test_one_class_gives_a_leaf():
    model = OptimalTreeClassifier(max_depth=3).fit(X, np.full(30, 7))
    assert model.objective_ == 0.0 and model.optimal_
    assert model.get_n_leaves() == 1
    np.testing.assert_array_equal(model.classes_, [7])
    np.testing.assert_array_equal(model.predict(X), np.full(30, 7))


def test_one_class_left_after_zero_weights():
    weight = (Y == 1).astype(float)
    model = OptimalTreeClassifier(max_depth=3).fit(X, Y, sample_weight=weight)
    assert model.objective_ == 0.0 and model.get_n_leaves() == 1
    np.testing.assert_array_equal(model.predict(X), np.ones(30))
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_constant_x_gives_a_leaf():
    model = OptimalTreeClassifier(max_depth=3).fit(np.zeros((30, 4)), Y)
    assert model.get_n_leaves() == 1 and model.objective_ == 15.0 and model.optimal_


def test_many_classes():
    rng = np.random.default_rng(1)
    data = rng.integers(0, 2, size=(400, 5))
    labels = np.arange(400) % 200
    model = OptimalTreeClassifier(max_depth=2).fit(data, labels)
    assert len(model.classes_) == 200
    assert model.objective_ == float(np.sum(model.predict(data) != labels))
    np.testing.assert_allclose(model.predict_proba(data).sum(axis=1), 1.0)
