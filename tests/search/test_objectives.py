"""Every objective against the brute-force oracle, callbacks against native objectives, and
the estimators' contracts."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from odtree import (
    NotOptimalWarning,
    OptimalTreeClassifier,
    OptimalTreeClusterer,
    OptimalTreePredictor,
    OptimalTreeRegressor,
)
from oracles import WEIGHTS, brute_force_objective

ORACLE = settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))


@st.composite
def cases(draw):
    """A tiny weighted problem: binary X, classes, real targets and search settings."""
    n_rows = draw(st.integers(1, 20))
    n_features = draw(st.integers(1, 5))
    n_classes = draw(st.integers(2, 3))
    X = draw(st.lists(st.lists(st.integers(0, 1), min_size=n_features, max_size=n_features),
                      min_size=n_rows, max_size=n_rows))
    weight = draw(st.lists(st.sampled_from(WEIGHTS), min_size=n_rows, max_size=n_rows))
    if not any(weight):
        weight[0] = 1.0
    return {
        "X": np.array(X, dtype=np.int64),
        "y": np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows,
                                    max_size=n_rows))),
        "target": np.array(draw(st.lists(st.one_of(st.integers(-3, 3).map(float),
                                                   st.floats(-20, 20)),
                                         min_size=n_rows, max_size=n_rows))),
        "weight": np.array(weight),
        "n_classes": n_classes,
        "params": {
            "max_depth": draw(st.integers(0, 2)),
            "min_samples_leaf": draw(st.integers(1, 3)),
            "max_leaf_nodes": draw(st.sampled_from([None, 2, 3])),
            "ccp_alpha": draw(st.sampled_from([0.0, 0.0, 0.1])),
            "search": draw(st.sampled_from(["murtree", "dl85"])),
            "cache": draw(st.sampled_from(["trie", "hash", "dataset"])),
        },
    }


def oracle(case, leaf):
    p = case["params"]
    return brute_force_objective(case["X"].tolist(), case["y"].tolist(), case["weight"].tolist(),
                                 p["max_depth"], p["min_samples_leaf"], p["max_leaf_nodes"],
                                 p["ccp_alpha"], leaf=leaf)


def pinball(values, weight, q):
    """Least pinball loss of a constant, found by trying every value."""
    if len(values) == 0:
        return 0.0
    return min(float(np.sum(weight * np.maximum(q * (values - v), (q - 1) * (values - v))))
               for v in values)


def assert_optimum(model, expected):
    assert model.status_ == "optimal"
    assert model.objective_ == pytest.approx(expected, rel=1e-7, abs=1e-7)


@ORACLE
@given(cases(), st.data())
def test_cost_matrix_matches_brute_force(case, data):
    k = case["n_classes"]
    costs = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 7.0]),
                                        min_size=k * k, max_size=k * k))).reshape(k, k)
    y, w = case["y"], case["weight"]
    present = np.unique(y)  # classes_ holds only the classes in y
    model = OptimalTreeClassifier(cost_matrix=costs[np.ix_(present, present)], **case["params"])
    model.fit(case["X"], y, sample_weight=w)

    def leaf(rows):
        return min(sum(w[i] * costs[y[i], p] for i in rows) for p in present)

    assert_optimum(model, oracle(case, leaf))
    # the tree predicts what the objective charged for
    predicted = model.predict(case["X"])
    charged = np.sum(w * costs[y, predicted]) + case["params"]["ccp_alpha"] * w.sum() * \
        model.get_n_leaves()
    assert charged == pytest.approx(model.objective_, rel=1e-7, abs=1e-7)


@ORACLE
@given(cases(), st.sampled_from(["squared_error", "absolute_error", "quantile"]),
       st.sampled_from([0.1, 0.5, 0.75, 0.9]))
def test_regression_matches_brute_force(case, criterion, quantile):
    t, w = case["target"], case["weight"]
    model = OptimalTreeRegressor(criterion=criterion, quantile=quantile, **case["params"])
    model.fit(case["X"], t, sample_weight=w)

    def leaf(rows):
        v, u = t[rows], w[rows]
        if criterion == "squared_error":
            return float(np.sum(u * (v - np.average(v, weights=u)) ** 2)) if len(rows) else 0.0
        if criterion == "absolute_error":
            return 2 * pinball(v, u, 0.5)
        return pinball(v, u, quantile)

    assert_optimum(model, oracle(case, leaf))
    # the leaf values achieve the objective on the training rows
    residual = t - model.predict(case["X"])
    loss = {"squared_error": residual**2, "absolute_error": np.abs(residual),
            "quantile": np.maximum(quantile * residual, (quantile - 1) * residual)}[criterion]
    penalty = case["params"]["ccp_alpha"] * w.sum() * model.get_n_leaves()
    assert np.sum(w * loss) + penalty == pytest.approx(model.objective_, rel=1e-7, abs=1e-7)


@ORACLE
@given(cases())
# a subnormal coordinate: the points' scale is still a float
@example(case={"X": np.array([[0]]), "y": np.array([0]), "target": np.array([2.22507386e-313]),
               "weight": np.array([1.0]), "n_classes": 2,
               "params": {"max_depth": 0, "min_samples_leaf": 1, "max_leaf_nodes": None,
                          "ccp_alpha": 0.0, "search": "murtree", "cache": "trie"}})
def test_clustering_matches_brute_force(case):
    points = np.column_stack([case["X"], case["target"]]).astype(float)
    w = case["weight"]
    params = {k: v for k, v in case["params"].items() if k != "max_leaf_nodes"}
    model = OptimalTreeClusterer(n_clusters=case["params"]["max_leaf_nodes"], **params)
    model.fit(points, sample_weight=w)

    def leaf(rows):
        if not rows:
            return 0.0
        centre = np.average(points[rows], axis=0, weights=w[rows])
        return float(np.sum(w[rows] * np.linalg.norm(points[rows] - centre, axis=1)))

    # splits test the binarized columns of the rows that count; the oracle splits on them too
    kept = w > 0
    binary = np.zeros((len(w), len(model.binary_features_)), dtype=np.int64)
    binary[kept] = model.binarizer_.transform(points[kept])
    expected = brute_force_objective(
        binary.tolist(), case["y"].tolist(), w.tolist(), params["max_depth"],
        params["min_samples_leaf"], case["params"]["max_leaf_nodes"], params["ccp_alpha"],
        leaf=leaf)
    assert_optimum(model, expected)
    labels = model.labels_[kept]
    assert set(labels) == set(range(model.get_n_leaves()))
    np.testing.assert_array_equal(model.predict(points[kept]), labels)


@ORACLE
@given(cases(), st.booleans())
def test_callbacks_match_brute_force(case, fast):
    y, w = case["y"], case["weight"]
    present = np.unique(y)

    def by_weights(class_weights):
        # a made-up cost: misclassified weight, plus a quarter of the heaviest class's weight
        best = int(np.argmax(class_weights))
        return float(class_weights.sum() - class_weights[best] + 0.25 * class_weights[best]), best

    def by_rows(rows):
        return by_weights(np.array([w[rows][y[rows] == c].sum() for c in present]))

    callback = {"fast_error_function": by_weights} if fast else {"error_function": by_rows}
    model = OptimalTreeClassifier(**callback, **case["params"]).fit(case["X"], y,
                                                                   sample_weight=w)
    assert_optimum(model, oracle(case, lambda rows: by_rows(np.array(rows, dtype=np.int64))[0]))


def test_fast_callback_gives_the_native_optimum(load):
    def misclassification(class_weights):
        best = int(np.argmax(class_weights))
        return float(class_weights.sum() - class_weights[best]), best

    for name in ["vote", "heart-cleveland", "tic-tac-toe"]:
        X, y = load(name)
        native = OptimalTreeClassifier(max_depth=3).fit(X, y)
        custom = OptimalTreeClassifier(max_depth=3, fast_error_function=misclassification)
        assert custom.fit(X, y).objective_ == native.objective_


def test_row_callback_gives_the_cost_matrix_optimum(load):
    X, y = load("vote")
    costs = np.array([[0.0, 1.0], [4.0, 0.0]])
    codes = np.unique(y, return_inverse=True)[1]

    def expected_cost(rows):
        per_prediction = costs[codes[rows]].sum(axis=0)
        return float(per_prediction.min()), int(per_prediction.argmin())

    native = OptimalTreeClassifier(max_depth=2, cost_matrix=costs).fit(X, y)
    custom = OptimalTreeClassifier(max_depth=2, error_function=expected_cost).fit(X, y)
    assert custom.objective_ == pytest.approx(native.objective_)
    np.testing.assert_array_equal(custom.predict(X), native.predict(X))


# ------------------------------------------------------------------ callbacks that misbehave

X_SMALL = np.array([[0, 1], [1, 1], [1, 0], [0, 0], [1, 1]])
Y_SMALL = np.array([0, 1, 1, 0, 1])


def test_exception_in_a_callback_is_raised_with_its_traceback():
    def broken(class_weights):
        raise ZeroDivisionError("inside the callback")

    with pytest.raises(ZeroDivisionError, match="inside the callback") as info:
        OptimalTreeClassifier(max_depth=2, fast_error_function=broken).fit(X_SMALL, Y_SMALL)
    assert any(entry.name == "broken" for entry in info.traceback)


def test_keyboard_interrupt_in_a_callback_returns_the_incumbent():
    calls = []

    def interrupted(rows):
        calls.append(len(rows))
        if len(calls) > 3:
            raise KeyboardInterrupt
        return float(len(rows) - np.bincount(Y_SMALL[rows]).max()), 0

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotOptimalWarning)
        model = OptimalTreeClassifier(max_depth=2, error_function=interrupted)
        model.fit(X_SMALL, Y_SMALL)
    assert model.status_ == "interrupted"
    assert not model.optimal_


@pytest.mark.parametrize("value, match", [
    (float("nan"), "finite and non-negative"), (-1.0, "finite and non-negative"),
    ("cheap", "must return a number"), ((1.0, 7), "class index 7"),
])
def test_bad_callback_values_give_clear_errors(value, match):
    with pytest.raises(ValueError, match=match):
        OptimalTreeClassifier(max_depth=1, fast_error_function=lambda w: value).fit(
            X_SMALL, Y_SMALL)


def test_callbacks_are_called_once_per_leaf():
    seen = []

    def counting(rows):
        seen.append(tuple(rows))
        return float(len(rows) - np.bincount(Y_SMALL[rows], minlength=2).max()), 0

    OptimalTreeClassifier(max_depth=2, error_function=counting).fit(X_SMALL, Y_SMALL)
    assert len(seen) == len(set(seen))


def test_only_one_objective_at_a_time():
    with pytest.raises(ValueError, match="at most one"):
        OptimalTreeClassifier(cost_matrix=[[0, 1], [1, 0]],
                              fast_error_function=lambda w: (0.0, 0)).fit(X_SMALL, Y_SMALL)
    with pytest.raises(ValueError, match="shape"):
        OptimalTreeClassifier(cost_matrix=[[0, 1, 2]]).fit(X_SMALL, Y_SMALL)
    with pytest.raises(ValueError, match="non-negative"):
        OptimalTreeClassifier(cost_matrix=[[0, -1], [1, 0]]).fit(X_SMALL, Y_SMALL)


def test_regressor_rejects_missing_targets():
    with pytest.raises(ValueError, match="NaN|finite"):
        OptimalTreeRegressor().fit(X_SMALL, [1.0, np.nan, 2.0, 3.0, 4.0])


def test_predictor_serves_an_unsupervised_task():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(40, 4))
    target = 3.0 * X[:, 1] + rng.normal(size=40)

    def absolute(rows):
        return float(np.abs(target[rows] - np.median(target[rows])).sum())

    model = OptimalTreePredictor(max_depth=2, error_function=absolute,
                                 leaf_value_function=lambda rows: float(np.median(target[rows])))
    model.fit(X)
    native = OptimalTreeRegressor(max_depth=2, criterion="absolute_error").fit(X, target)
    assert model.objective_ == pytest.approx(native.objective_)
    assert model.predict(X).shape == (40,)


def test_custom_objective_models_survive_json_and_export():
    from odtree import export_text, from_json

    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(60, 5))
    y = rng.integers(0, 2, size=60)
    # predicting 0 for class 1 is expensive, so leaves lean to 1 against their majority
    classifier = OptimalTreeClassifier(max_depth=2, cost_matrix=[[0, 1], [6, 0]]).fit(X, y)
    assert np.any(classifier.predict(X) != OptimalTreeClassifier(max_depth=2).fit(X, y).predict(X))
    regressor = OptimalTreeRegressor(max_depth=2, criterion="quantile", quantile=0.8)
    regressor.fit(X, y + rng.normal(size=60))
    for model in (classifier, regressor):
        copy = from_json(model.to_json())
        np.testing.assert_array_equal(copy.predict(X), model.predict(X))
    assert "value" in export_text(regressor) or "[" in export_text(regressor)


def test_time_limit_is_checked_between_slow_callbacks():
    import time

    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(40, 12))
    y = rng.integers(0, 2, size=40)

    def slow(rows):
        time.sleep(0.02)
        return float(len(rows) - np.bincount(y[rows], minlength=2).max()), 0

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotOptimalWarning)
        model = OptimalTreeClassifier(max_depth=3, error_function=slow, time_limit=0.3)
        model.fit(X, y)
    assert model.status_ == "time_limit"
    # the search stops within a call or two of the limit, not after a node's whole scan
    assert time.perf_counter() - start < 0.3 + 0.5


def test_predictor_with_class_weights_needs_labels_and_predicts_classes():
    X, y = X_SMALL, np.array(["no", "yes", "yes", "no", "yes"])

    def error_only(class_weights):
        return float(class_weights.sum() - class_weights.max())

    model = OptimalTreePredictor(max_depth=2, fast_error_function=error_only).fit(X, y)
    assert model.objective_ == 0.0
    np.testing.assert_array_equal(model.predict(X), y)  # the heaviest class stands in
    with pytest.raises(ValueError, match="needs the class labels"):
        OptimalTreePredictor(fast_error_function=error_only).fit(X)
    with pytest.raises(ValueError, match="exactly one"):
        OptimalTreePredictor().fit(X)


def test_clusterer_needs_numeric_columns():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 10.0], "b": ["x", "y", "x", "y"]})
    with pytest.raises(ValueError, match="must be numeric"):
        OptimalTreeClusterer(max_depth=1).fit(frame)


@pytest.mark.parametrize("name", ["vote", "hepatitis"])
def test_one_search_serves_several_quantiles(load, name):
    X, y = load(name)
    rng = np.random.default_rng(3)
    target = y.astype(float) * 4 + rng.normal(size=len(y))
    weight = rng.choice([0.0, 1.0, 2.5], size=len(y))
    quantiles = [0.1, 0.5, 0.9]
    joint = OptimalTreeRegressor(max_depth=3, criterion="quantile", quantiles=quantiles,
                                 min_samples_leaf=2, ccp_alpha=0.001)
    joint.fit(X, target, sample_weight=weight)
    assert joint.optimal_
    predictions = joint.predict(X)
    assert predictions.shape == (len(y), 3)
    for k, q in enumerate(quantiles):
        alone = OptimalTreeRegressor(max_depth=3, criterion="quantile", quantile=q,
                                     min_samples_leaf=2, ccp_alpha=0.001)
        alone.fit(X, target, sample_weight=weight)
        assert joint.objectives_[k] == pytest.approx(alone.objective_, rel=1e-9)
        # each column's predictions achieve that quantile's objective
        residual = (target - predictions[:, k])[weight > 0]
        loss = np.maximum(q * residual, (q - 1) * residual) @ weight[weight > 0]
        penalty = 0.001 * weight.sum() * joint.trees_[k].n_leaves
        assert loss + penalty == pytest.approx(joint.objectives_[k], rel=1e-9)
    assert joint.objective_ == pytest.approx(joint.objectives_.sum())


def test_several_quantiles_reject_what_their_search_lacks():
    target = np.arange(5.0)
    with pytest.raises(ValueError, match="criterion='quantile'"):
        OptimalTreeRegressor(quantiles=[0.5]).fit(X_SMALL, target)
    with pytest.raises(ValueError, match=r"in \(0, 1\)"):
        OptimalTreeRegressor(criterion="quantile", quantiles=[0.5, 1.5]).fit(X_SMALL, target)
    with pytest.raises(ValueError, match="lexicographic"):
        OptimalTreeRegressor(criterion="quantile", quantiles=[0.5],
                             lexicographic=True).fit(X_SMALL, target)


def test_a_huge_callback_result_gives_a_short_message():
    """A 10⁶-element list gave a 7.9-million-character message."""
    X = np.random.default_rng(0).integers(0, 2, size=(40, 2))
    y = X[:, 0] ^ X[:, 1]
    model = OptimalTreeClassifier(max_depth=2,
                                  fast_error_function=lambda w: list(range(10**6)))
    with pytest.raises(ValueError, match="fast_error_function") as error:
        model.fit(X, y)
    assert len(str(error.value)) < 300


def test_a_callback_that_always_raises_keyboard_interrupt():
    """Reported objective_=1e300 (the cost of a leaf never costed) as a result."""
    X = np.random.default_rng(0).integers(0, 2, size=(40, 2))
    y = X[:, 0] ^ X[:, 1]

    def interrupted(weights):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt, match="fast_error_function was interrupted"):
        OptimalTreeClassifier(max_depth=2, fast_error_function=interrupted).fit(X, y)


def test_a_callback_interrupted_midway_returns_a_costed_tree():
    """A KeyboardInterrupt after some leaves were costed stops the search like Ctrl-C: the
    best tree so far, every leaf of it costed by the function."""
    X = np.random.default_rng(1).integers(0, 2, size=(60, 6))
    y = (X[:, 0] ^ X[:, 1]) | X[:, 2]
    calls = [0]

    def leaf(weights):
        calls[0] += 1
        if calls[0] > 40:
            raise KeyboardInterrupt
        return float(weights.sum() - weights.max()), int(np.argmax(weights))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = OptimalTreeClassifier(max_depth=3, fast_error_function=leaf).fit(X, y)
    assert model.status_ == "interrupted" and model.objective_ < 1e300
    assert model.objective_ == (model.predict(X) != y).sum()
