"""OptimalTreeClassifier: API, fitted attributes, weights, pandas, persistence, switches."""

import itertools
import pickle
import warnings

import numpy as np
import odtree
import pandas as pd
import pytest
from conftest import ALL_DATASETS, redundant_splits, weighted_errors
from odtree import InfeasibleWarning, OptimalTreeClassifier
from oracles import TOY_ERRORS, TOY_X, TOY_Y
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.tree import DecisionTreeClassifier

SMALL = ["zoo-1", "vote", "tic-tac-toe", "hepatitis", "primary-tumor"]
SWITCHES = list(itertools.product(["murtree", "dl85"], ["trie", "hash", "dataset"],
                                  ["in_order", "gini", "gain_asc", "gain_desc"]))



def brute_force_leaf_error(y, weight):
    """Weighted error of the best single leaf."""
    totals = [weight[y == c].sum() for c in np.unique(y)]
    return float(weight.sum() - max(totals))


def random_binary(seed, n_rows=60, n_features=8, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n_rows, n_features))
    y = rng.integers(0, n_classes, size=n_rows)
    return X, y


def assert_same_predictions(a, b, X):
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


# --------------------------------------------------------------------------- basic API


def test_default_parameters():
    params = OptimalTreeClassifier().get_params()
    assert params == {
        "max_depth": 3, "min_samples_leaf": 1, "time_limit": None, "upper_bound": None,
        "max_leaf_nodes": None, "ccp_alpha": 0.0, "lexicographic": False, "search": "murtree",
        "cache": None, "branching": None, "depth2_solver": None, "incremental_counting": None,
        "similarity_bound": None, "child_order": None, "memory_limit": None,
        "max_cache_entries": None, "wipe_strategy": "reuses", "wipe_factor": 0.1,
        "thresholds": "auto", "n_thresholds": 10, "missing": "error",
        "criterion": "misclassification", "pareto_front": False,
        "class_weight": None, "cost_matrix": None,
        "fast_error_function": None, "error_function": None, "anytime": None, "verbose": 0,
        "callback": None, "min_samples_split": 2, "min_weight_fraction_leaf": 0.0,
        "monotonic_cst": None, "n_jobs": None,
    }
    with pytest.raises(TypeError):
        OptimalTreeClassifier(3, 1, None, None, "dl85")  # search is keyword-only


def test_fit_sets_documented_attributes(load):
    X, y = load("vote")
    model = OptimalTreeClassifier(max_depth=2)
    assert model.fit(X, y) is model
    np.testing.assert_array_equal(model.classes_, [0, 1])
    assert model.n_features_in_ == X.shape[1]
    assert not hasattr(model, "feature_names_in_")
    assert model.status_ == "optimal"
    assert model.optimal_ is True
    assert isinstance(model.objective_, float) and model.objective_ == 17.0
    assert model.lower_bound_ == model.objective_
    assert isinstance(model.fit_time_, float) and model.fit_time_ > 0
    assert isinstance(model.n_cache_entries_, int) and model.n_cache_entries_ >= 0
    assert len(model.binary_feature_names_) == X.shape[1]  # 0/1 columns pass through
    assert model.binary_feature_names_[0] == "x0 = 1"
    assert len(model.binary_features_) == X.shape[1]
    assert model.get_depth() == 2
    assert model.get_n_leaves() == model.tree_.n_leaves <= 4
    assert model.score(X, y) == pytest.approx(1 - 17 / len(y))


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_objective_is_training_misclassification(load, name, depth):
    X, y = load(name)
    model = OptimalTreeClassifier(max_depth=depth).fit(X, y)
    assert model.optimal_
    assert model.objective_ == weighted_errors(model, X, y)
    assert model.get_depth() <= depth
    assert model.score(X, y) == pytest.approx(1 - model.objective_ / len(y))


def test_objective_never_worse_than_greedy_tree(load):
    """With the same binary features, the optimal tree beats or ties CART of the same depth."""
    for name in SMALL:
        X, y = load(name)
        for depth in (1, 2, 3):
            cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
            cart_errors = float(np.sum(cart.predict(X) != y))
            model = OptimalTreeClassifier(max_depth=depth).fit(X, y)
            assert model.objective_ <= cart_errors, (name, depth)


def test_objective_decreases_with_depth(load):
    X, y = load("tic-tac-toe")
    objectives = [OptimalTreeClassifier(max_depth=d).fit(X, y).objective_ for d in range(5)]
    assert objectives[0] == brute_force_leaf_error(y, np.ones(len(y)))
    assert all(a >= b for a, b in zip(objectives, objectives[1:], strict=False))
    assert objectives[-1] < objectives[0]


def test_weighted_objective_is_weighted_misclassification(load):
    X, y = load("hepatitis")
    rng = np.random.default_rng(1)
    weight = rng.uniform(0.1, 3.0, size=len(y))
    model = OptimalTreeClassifier(max_depth=2).fit(X, y, sample_weight=weight)
    assert model.objective_ == pytest.approx(weighted_errors(model, X, y, weight))
    np.testing.assert_allclose(model.tree_.weighted_n_node_samples[0], weight.sum())
    unweighted = OptimalTreeClassifier(max_depth=2).fit(X, y)
    # the weighted optimum cannot be beaten by the unweighted optimum's tree
    assert model.objective_ <= weighted_errors(unweighted, X, y, weight) + 1e-9


def test_predict_proba_from_leaf_class_weights(load):
    X, y = load("primary-tumor")
    weight = np.random.default_rng(2).uniform(0.5, 2.0, size=len(y))
    model = OptimalTreeClassifier(max_depth=3).fit(X, y, sample_weight=weight)
    proba = model.predict_proba(X)
    assert proba.shape == (len(y), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all(proba >= 0)
    leaves = model.apply(X)
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        class_weights = [weight[rows & (y == c)].sum() for c in model.classes_]
        np.testing.assert_allclose(proba[rows][0], np.array(class_weights) / weight[rows].sum())
        np.testing.assert_allclose(model.tree_.value[leaf, 0], class_weights)
    # the predicted class is the leaf's heaviest class
    predicted = model.predict(X)
    assert np.all(proba[np.arange(len(y)), np.searchsorted(model.classes_, predicted)]
                  == proba.max(axis=1))


def test_string_and_multiclass_labels():
    X, y = random_binary(3, n_rows=80, n_features=6, n_classes=3)
    names = np.array(["cat", "dog", "emu"])
    labels = names[y]
    model = OptimalTreeClassifier(max_depth=2).fit(X, labels)
    np.testing.assert_array_equal(model.classes_, names)
    as_ints = OptimalTreeClassifier(max_depth=2).fit(X, y)
    assert model.objective_ == as_ints.objective_
    assert model.objective_ == weighted_errors(model, X, labels)
    assert set(model.predict(X)) <= set(names)
    np.testing.assert_array_equal(model.predict(X), names[as_ints.predict(X)])
    assert model.predict_proba(X).shape == (80, 3)


def test_tree_arrays_left_child_is_feature_zero(load):
    X, y = load("vote")
    model = OptimalTreeClassifier(max_depth=3).fit(X, y)
    tree = model.tree_
    binary_X = model.binarizer_.transform(X)
    assert tree.node_count == len(tree.children_right) == len(tree.value)
    tree.validate(len(model.binary_features_))
    # walk the tree by hand and compare the stored counts with the rows reaching every node
    reaching = {0: np.ones(len(y), dtype=bool)}
    for node in range(tree.node_count):
        rows = reaching[node]
        assert tree.n_node_samples[node] == rows.sum()
        class_counts = [np.sum(rows & (y == c)) for c in (0, 1)]
        np.testing.assert_array_equal(tree.value[node, 0], class_counts)
        if tree.children_left[node] == -1:
            assert tree.children_right[node] == -1 and tree.feature[node] == -2
            continue
        column = binary_X[:, tree.feature[node]]
        reaching[tree.children_left[node]] = rows & (column == 0)
        reaching[tree.children_right[node]] = rows & (column == 1)
    leaves = model.apply(X)
    assert all(reaching[leaf][i] for i, leaf in enumerate(leaves))
    assert set(np.unique(leaves)) == set(np.flatnonzero(tree.children_left == -1))


def test_depth_and_min_samples_leaf_respected(load):
    X, y = load("tic-tac-toe")
    for depth, leaf_size in [(2, 1), (3, 20), (3, 100), (4, 50)]:
        model = OptimalTreeClassifier(max_depth=depth, min_samples_leaf=leaf_size).fit(X, y)
        tree = model.tree_
        assert model.get_depth() <= depth
        assert tree.n_node_samples[tree.children_left == -1].min() >= leaf_size
        assert model.objective_ == weighted_errors(model, X, y)
    strict = OptimalTreeClassifier(max_depth=3, min_samples_leaf=100).fit(X, y).objective_
    loose = OptimalTreeClassifier(max_depth=3, min_samples_leaf=1).fit(X, y).objective_
    assert loose <= strict


@pytest.mark.parametrize("search", ["murtree", "dl85"])
def test_no_split_with_two_leaves_of_the_same_class(load, search):
    checked = 0
    for name in SMALL + ["lymph", "soybean"]:
        X, y = load(name)
        for depth in (1, 2, 3):
            model = OptimalTreeClassifier(max_depth=depth, search=search).fit(X, y)
            assert redundant_splits(model, X) == [], (name, depth)
            checked += model.tree_.node_count > 1
    for seed in range(30):  # small noisy data: many ties between leaves and splits
        X, y = random_binary(seed, n_rows=25, n_features=5, n_classes=2 + seed % 2)
        weight = np.random.default_rng(seed).integers(0, 4, size=len(y)).astype(float)
        weight[0] = 1.0
        for leaf_size in (1, 2):
            model = OptimalTreeClassifier(max_depth=3, min_samples_leaf=leaf_size,
                                          search=search).fit(X, y, sample_weight=weight)
            kept = weight > 0
            assert redundant_splits(model, X[kept]) == [], (seed, leaf_size)
            checked += model.tree_.node_count > 1
    assert checked > 50


# --------------------------------------------------------------------------- upper_bound


def test_upper_bound_infeasible_gives_best_leaf():
    with pytest.warns(InfeasibleWarning, match="upper_bound"):
        model = OptimalTreeClassifier(max_depth=3, upper_bound=2).fit(TOY_X, TOY_Y)
    assert model.status_ == "infeasible"
    assert model.optimal_ is False
    assert model.lower_bound_ == 2.0
    assert model.get_n_leaves() == 1 and model.get_depth() == 0
    assert model.objective_ == 5.0  # the best single leaf (6 of class 1, 5 of class 0)
    np.testing.assert_array_equal(model.predict(TOY_X), np.ones(11))


def test_upper_bound_is_strict(load):
    X, y = load("vote")
    optimum = OptimalTreeClassifier(max_depth=2).fit(X, y).objective_
    with pytest.warns(InfeasibleWarning):
        model = OptimalTreeClassifier(max_depth=2, upper_bound=optimum).fit(X, y)
    assert model.status_ == "infeasible" and model.lower_bound_ == optimum
    assert model.objective_ == brute_force_leaf_error(y, np.ones(len(y)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = OptimalTreeClassifier(max_depth=2, upper_bound=optimum + 0.5).fit(X, y)
    assert model.status_ == "optimal" and model.objective_ == optimum
    assert model.objective_ == weighted_errors(model, X, y)


@pytest.mark.parametrize("depth", range(4))
@pytest.mark.parametrize("offset", [-1.5, -0.5, 0.0, 0.25, 1.0])
def test_upper_bound_on_toy(depth, offset):
    optimum = TOY_ERRORS[depth][0]
    bound = optimum + offset
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = OptimalTreeClassifier(max_depth=depth, upper_bound=bound).fit(TOY_X, TOY_Y)
    infeasible = [w for w in caught if issubclass(w.category, InfeasibleWarning)]
    if bound <= optimum:  # no tree is strictly below the bound
        assert len(infeasible) == 1
        assert model.status_ == "infeasible" and not model.optimal_
        assert model.lower_bound_ == bound
        assert model.get_n_leaves() == 1 and model.objective_ == 5.0
    else:
        assert infeasible == []
        assert model.status_ == "optimal" and model.objective_ == optimum < bound
    assert model.objective_ == weighted_errors(model, TOY_X, TOY_Y)


def test_upper_bound_with_weights(load):
    X, y = load("primary-tumor")
    weight = np.random.default_rng(4).uniform(0.5, 1.5, size=len(y))
    optimum = OptimalTreeClassifier(max_depth=2).fit(X, y, sample_weight=weight).objective_
    with pytest.warns(InfeasibleWarning):
        below = OptimalTreeClassifier(max_depth=2, upper_bound=optimum - 1e-6)
        below.fit(X, y, sample_weight=weight)
    assert below.status_ == "infeasible" and below.lower_bound_ == optimum - 1e-6
    assert below.objective_ == pytest.approx(brute_force_leaf_error(y, weight))
    above = OptimalTreeClassifier(max_depth=2, upper_bound=optimum + 1e-6)
    above.fit(X, y, sample_weight=weight)
    assert above.status_ == "optimal" and above.objective_ == pytest.approx(optimum)


def test_upper_bound_above_everything_changes_nothing(load):
    X, y = load("hepatitis")
    free = OptimalTreeClassifier(max_depth=3).fit(X, y)
    bounded = OptimalTreeClassifier(max_depth=3, upper_bound=len(y) + 1).fit(X, y)
    assert bounded.status_ == "optimal" and bounded.objective_ == free.objective_


# --------------------------------------------------------------------------- weights


@pytest.mark.parametrize("name", ["vote", "hepatitis", "tic-tac-toe"])
@pytest.mark.parametrize("leaf_size", [1, 3])
def test_zero_weight_rows_are_absent(load, name, leaf_size):
    X, y = load(name)
    rng = np.random.default_rng(len(name))
    weight = rng.integers(1, 4, size=len(y)).astype(float)
    dropped = rng.random(len(y)) < 0.3
    weight[dropped] = 0.0
    with_zeros = OptimalTreeClassifier(max_depth=3, min_samples_leaf=leaf_size)
    with_zeros.fit(X, y, sample_weight=weight)
    without = OptimalTreeClassifier(max_depth=3, min_samples_leaf=leaf_size)
    without.fit(X[~dropped], y[~dropped], sample_weight=weight[~dropped])
    assert with_zeros.objective_ == without.objective_
    assert with_zeros.objective_ == weighted_errors(with_zeros, X, y, weight)
    assert_same_predictions(with_zeros, without, X[~dropped])
    assert with_zeros.tree_.n_node_samples[0] == (~dropped).sum()


@pytest.mark.parametrize("strategy", ["quantile", "midpoints", "tree"])
def test_zero_weight_rows_are_absent_numeric_and_pandas(strategy):
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(5)
    dropped = rng.random(len(y)) < 0.4
    weight = np.where(dropped, 0.0, 1.0)
    frame = pd.DataFrame(X[:, :6], columns=[f"f{i}" for i in range(6)])
    for data in (X[:, :6], frame):
        with_zeros = OptimalTreeClassifier(max_depth=2, thresholds=strategy)
        with_zeros.fit(data, y, sample_weight=weight)
        kept = data[~dropped] if isinstance(data, np.ndarray) else data.iloc[~dropped]
        without = OptimalTreeClassifier(max_depth=2, thresholds=strategy).fit(kept, y[~dropped])
        # the zero-weight rows do not even move the thresholds
        np.testing.assert_array_equal(with_zeros.binary_feature_names_,
                                      without.binary_feature_names_)
        assert with_zeros.objective_ == without.objective_
        assert_same_predictions(with_zeros, without, kept)


@pytest.mark.parametrize("name", ["vote", "primary-tumor", "zoo-1"])
def test_integer_weights_equal_repeated_rows(load, name):
    X, y = load(name)
    weight = np.random.default_rng(7).integers(0, 4, size=len(y))
    weighted = OptimalTreeClassifier(max_depth=3).fit(X, y, sample_weight=weight)
    repeated = OptimalTreeClassifier(max_depth=3).fit(np.repeat(X, weight, axis=0),
                                                      np.repeat(y, weight))
    assert weighted.objective_ == repeated.objective_
    assert weighted.objective_ == weighted_errors(weighted, X, y, weight)
    assert_same_predictions(weighted, repeated, X)


def test_integer_weights_equal_repeated_rows_numeric():
    X, y = load_iris(return_X_y=True)
    weight = np.random.default_rng(8).integers(1, 4, size=len(y))
    weighted = OptimalTreeClassifier(max_depth=2).fit(X, y, sample_weight=weight)
    repeated = OptimalTreeClassifier(max_depth=2).fit(np.repeat(X, weight, axis=0),
                                                      np.repeat(y, weight))
    np.testing.assert_array_equal(weighted.binary_feature_names_, repeated.binary_feature_names_)
    assert weighted.objective_ == repeated.objective_
    assert_same_predictions(weighted, repeated, X)


def test_objective_exact_with_weights_of_very_different_size():
    """Regression: the leaf error was total - max, which lost the small weights (0.0 for 10)."""
    X, y = random_binary(0, n_rows=20, n_features=3)
    weight = np.ones(20)
    weight[0] = 1e20
    model = OptimalTreeClassifier(max_depth=3).fit(X, y, sample_weight=weight)
    assert model.objective_ == weighted_errors(model, X, y, weight)


def test_uniform_weight_scales_objective(load):
    X, y = load("hepatitis")
    plain = OptimalTreeClassifier(max_depth=2).fit(X, y)
    scaled = OptimalTreeClassifier(max_depth=2).fit(X, y, sample_weight=np.full(len(y), 2.5))
    assert scaled.objective_ == pytest.approx(2.5 * plain.objective_)
    assert_same_predictions(plain, scaled, X)


def test_works_inside_grid_search(load):
    from sklearn.model_selection import GridSearchCV

    X, y = load("vote")
    search = GridSearchCV(OptimalTreeClassifier(), {"max_depth": [0, 1, 2]}, cv=3).fit(X, y)
    assert search.best_params_["max_depth"] > 0
    assert search.best_estimator_.optimal_
    assert search.score(X, y) > 0.9


def test_sparse_input_matches_dense(load):
    from scipy import sparse

    X, y = load("vote")
    dense = OptimalTreeClassifier(max_depth=2).fit(X, y)
    for to_sparse in (sparse.csr_matrix, sparse.csc_matrix):
        model = OptimalTreeClassifier(max_depth=2).fit(to_sparse(X), y)
        assert model.objective_ == dense.objective_
        np.testing.assert_array_equal(model.predict(to_sparse(X)), dense.predict(X))


# --------------------------------------------------------------------------- thresholds


def test_threshold_strategies_on_numeric_data():
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :8]
    models = {s: OptimalTreeClassifier(max_depth=2, thresholds=s).fit(X, y)
              for s in ("quantile", "midpoints", "tree")}
    for strategy, model in models.items():
        assert model.optimal_
        assert model.objective_ == weighted_errors(model, X, y), strategy
    # midpoints holds every threshold the other strategies could pick
    assert models["midpoints"].objective_ <= models["quantile"].objective_
    assert models["midpoints"].objective_ <= models["tree"].objective_
    assert len(models["midpoints"].binary_features_) > len(models["quantile"].binary_features_)
    fewer = OptimalTreeClassifier(max_depth=2, n_thresholds=2).fit(X, y)
    assert len(fewer.binary_features_) <= 2 * X.shape[1]
    assert fewer.objective_ >= models["midpoints"].objective_


# --------------------------------------------------------------------------- pandas


def mixed_frame():
    return pd.DataFrame({
        "age": [22.0, 25.0, 30.0, 35.0, 40.0, 45.0, 50.0, 28.0, 60.0, 33.0, 34.0, 55.0],
        "color": pd.Categorical(["red", "blue", "red", "green", "blue", "red", "green", "red",
                                 "blue", "green", "red", "blue"]),
        "city": ["Paris", "Lyon", "Paris", "Lyon", "Nice", "Paris", "Lyon", "Nice", "Paris",
                 "Lyon", "Nice", "Paris"],
    })


def mixed_target(frame):
    # "yes" exactly when the color is red or the person is older than 37.5
    return np.where((frame["color"] == "red") | (frame["age"] > 37.5), "yes", "no")


def test_pandas_numeric_and_categorical_columns():
    frame = mixed_frame()
    y = mixed_target(frame)
    model = OptimalTreeClassifier(max_depth=2, thresholds="midpoints").fit(frame, y)
    np.testing.assert_array_equal(model.feature_names_in_, ["age", "color", "city"])
    assert model.n_features_in_ == 3
    assert model.objective_ == 0.0
    np.testing.assert_array_equal(model.predict(frame), y)
    names = list(model.binary_feature_names_)
    assert "color = red" in names and "age <= 37.5" in names and "city = Lyon" in names
    # several depth-2 trees fit these 12 rows; each is optimal, and each prints its tests by
    # the columns' names
    text = odtree.export_text(model)
    assert "age <= 37.5" in text and ("color = " in text or "city = " in text)
    assert "x0" not in text and "x1" not in text
    unseen = pd.DataFrame({"age": [20.0, 50.0], "color": pd.Categorical(["pink", "pink"]),
                           "city": ["Rome", "Rome"]})
    # a category unseen in fit fails every test of its column, as a known one that is none
    # of those tested does
    seen = pd.DataFrame({"age": [20.0, 50.0], "color": pd.Categorical(["blue", "blue"]),
                         "city": ["Nice", "Nice"]})
    assert "color = blue" not in text and "city = Nice" not in text
    np.testing.assert_array_equal(model.predict(unseen), model.predict(seen))
    np.testing.assert_allclose(model.predict_proba(unseen).sum(axis=1), 1.0)


def test_pandas_binary_frame_matches_array(load):
    X, y = load("zoo-1")
    frame = pd.DataFrame(X, columns=[f"attr_{i}" for i in range(X.shape[1])])
    from_frame = OptimalTreeClassifier(max_depth=2).fit(frame, pd.Series(y))
    from_array = OptimalTreeClassifier(max_depth=2).fit(X, y)
    assert from_frame.objective_ == from_array.objective_
    np.testing.assert_array_equal(from_frame.feature_names_in_, frame.columns)
    np.testing.assert_array_equal(from_frame.predict(frame), from_array.predict(X))
    assert "attr_" in odtree.export_text(from_frame)


# --------------------------------------------------------------------------- persistence


def fitted_models(load):
    X, y = load("primary-tumor")
    frame = mixed_frame()
    yield OptimalTreeClassifier(max_depth=3).fit(X, y), X
    labels = np.array(["a", "b", "c"])[np.arange(len(y)) % 3]
    yield OptimalTreeClassifier(max_depth=2, search="dl85", cache="hash").fit(X, labels), X
    yield OptimalTreeClassifier(max_depth=2).fit(frame, mixed_target(frame)), frame
    iris_X, iris_y = load_iris(return_X_y=True)
    yield OptimalTreeClassifier(max_depth=2, thresholds="tree").fit(iris_X, iris_y), iris_X
    with pytest.warns(InfeasibleWarning):
        infeasible = OptimalTreeClassifier(max_depth=3, upper_bound=1.5).fit(TOY_X, TOY_Y)
    yield infeasible, TOY_X


def test_pickle_round_trip(load):
    for model, X in fitted_models(load):
        clone = pickle.loads(pickle.dumps(model))
        assert_same_predictions(model, clone, X)
        assert clone.objective_ == model.objective_ and clone.status_ == model.status_
        np.testing.assert_array_equal(clone.classes_, model.classes_)


def test_json_round_trip(load):
    for model, X in fitted_models(load):
        text = model.to_json()
        assert isinstance(text, str)
        clone = odtree.from_json(text)
        assert isinstance(clone, OptimalTreeClassifier)
        assert clone.get_params() == model.get_params()
        assert_same_predictions(model, clone, X)
        np.testing.assert_array_equal(clone.apply(X), model.apply(X))
        np.testing.assert_array_equal(clone.classes_, model.classes_)
        assert clone.objective_ == model.objective_
        assert clone.lower_bound_ == model.lower_bound_
        assert clone.status_ == model.status_ and clone.optimal_ == model.optimal_
        assert clone.n_features_in_ == model.n_features_in_
        np.testing.assert_array_equal(clone.binary_feature_names_, model.binary_feature_names_)


# --------------------------------------------------------------------------- toy example


@pytest.mark.parametrize("depth", range(4))
@pytest.mark.parametrize("leaf_size", range(1, 5))
def test_thesis_toy_table(depth, leaf_size):
    model = OptimalTreeClassifier(max_depth=depth, min_samples_leaf=leaf_size).fit(TOY_X, TOY_Y)
    assert model.optimal_
    assert model.objective_ == TOY_ERRORS[depth][leaf_size - 1]
    assert model.objective_ == weighted_errors(model, TOY_X, TOY_Y)


def test_thesis_toy_tree():
    model = OptimalTreeClassifier(max_depth=3).fit(TOY_X, TOY_Y)
    # A=1 -> 1; A=0, B=1 -> 0; A=0, B=0 -> C=1 -> 0, C=0 -> 1
    rows = np.array([[1, 0, 0], [1, 1, 1], [0, 1, 0], [0, 1, 1], [0, 0, 1], [0, 0, 0]])
    np.testing.assert_array_equal(model.predict(rows), [1, 1, 0, 0, 0, 1])
    assert model.get_n_leaves() == 4 and model.get_depth() == 3


# --------------------------------------------------------------------------- switches


def _objectives_by_switch(X, y, depth):
    results = {}
    for search, cache, branching in SWITCHES:
        model = OptimalTreeClassifier(max_depth=depth, search=search, cache=cache,
                                      branching=branching).fit(X, y)
        assert model.optimal_, (search, cache, branching)
        assert model.lower_bound_ == model.objective_
        assert model.objective_ == weighted_errors(model, X, y)
        results[search, cache, branching] = model.objective_
    return results


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("depth", [2, 3])
def test_switches_agree(load, name, depth):
    results = _objectives_by_switch(*load(name), depth)
    assert len(set(results.values())) == 1, results


def test_switches_agree_with_weights_and_min_samples_leaf(load):
    X, y = load("hepatitis")
    weight = np.random.default_rng(9).uniform(0, 2, size=len(y))
    objectives = set()
    for search, cache, branching in SWITCHES:
        model = OptimalTreeClassifier(max_depth=3, min_samples_leaf=5, search=search,
                                      cache=cache, branching=branching)
        model.fit(X, y, sample_weight=weight)
        objectives.add(round(model.objective_, 9))
    assert len(objectives) == 1, objectives


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_DATASETS)
def test_switches_agree_on_all_datasets(load, name):
    results = _objectives_by_switch(*load(name), 3)
    assert len(set(results.values())) == 1, results


def test_all_datasets_are_listed():
    assert len(ALL_DATASETS) == 23
