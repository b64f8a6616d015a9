"""GreedyTreeClassifier: the C4.5-style greedy tree of the Rust core, as an odtree estimator."""

import numpy as np
import pandas as pd
import pytest
from odtree import (
    GreedyTreeClassifier,
    _core,
    export_graphviz,
    export_text,
    from_json,
    plot_tree,
    to_json,
)
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

DATASETS = {"iris": load_iris, "wine": load_wine, "breast_cancer": load_breast_cancer}


def _expected_failures(estimator):
    # min_cases counts rows, whatever their weights (see GreedyTreeClassifier's docstring):
    # with min_cases=2, a row of weight 2 cannot make a branch alone, but its two copies can
    # (as scikit-learn's min_samples_leaf=2 does); check_class_weight_classifiers passes
    # through min_weight_fraction_leaf, which the check sets, as on scikit-learn's trees
    return {} if estimator.min_cases == 1 else {
        f"check_sample_weight_equivalence_on_{kind}_data":
            "min_cases counts rows, so a row of weight 2 is not two rows" for kind in
        ("dense", "sparse")}


@parametrize_with_checks([GreedyTreeClassifier(),
                          GreedyTreeClassifier(criterion="entropy", min_cases=1)],
                         expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check, monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")  # else check_array_api_input is skipped
    check(estimator)


def _tree_arrays(model):
    tree = model.tree_
    return (tree.children_left, tree.children_right, tree.feature, tree.value,
            model.binary_feature_names_)


@pytest.mark.parametrize("criterion", ["gain_ratio", "entropy"])
def test_deterministic_and_blind_to_row_order(criterion):
    X, y = load_wine(return_X_y=True)
    model = GreedyTreeClassifier(criterion=criterion).fit(X, y)
    again = GreedyTreeClassifier(criterion=criterion).fit(X, y)
    order = np.random.default_rng(0).permutation(len(y))
    shuffled = GreedyTreeClassifier(criterion=criterion).fit(X[order], y[order])
    for first, second, third in zip(_tree_arrays(model), _tree_arrays(again),
                                    _tree_arrays(shuffled), strict=True):
        np.testing.assert_array_equal(first, second)
        np.testing.assert_array_equal(first, third)


@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("criterion", ["gain_ratio", "entropy"])
def test_fits_consistent_data_with_min_cases_one(name, criterion):
    X, y = DATASETS[name](return_X_y=True)
    rows = {}
    assert all(rows.setdefault(tuple(row), label) == label for row, label in zip(X, y, strict=True))
    model = GreedyTreeClassifier(criterion=criterion, min_cases=1).fit(X, y)
    assert model.score(X, y) == 1.0
    assert model.objective_ == 0.0


def test_fits_consistent_integer_data_where_no_single_split_helps():
    # XOR of two columns, each row four times: every first split gains nothing
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 4)
    y = X[:, 0] ^ X[:, 1]
    model = GreedyTreeClassifier(min_cases=1).fit(X, y)
    assert model.score(X, y) == 1.0
    assert model.get_depth() == 2


def test_hand_checked_tree():
    # Gain of "x0 <= 1.5": H(1/3, 1/3, 1/3) - 4/6 * 1 = 0.918 bits; then x1 = "u" parts 1 and 2
    X = pd.DataFrame({"x0": [1.0, 1.0, 2.0, 2.0, 3.0, 3.0],
                      "x1": pd.Categorical(["u", "v", "u", "v", "u", "v"])})
    y = ["a", "a", "b", "c", "b", "c"]
    model = GreedyTreeClassifier(criterion="entropy", min_cases=1).fit(X, y)
    assert export_text(model, show_weights=True) == (
        "|--- x0 <= 1.5\n"
        "|   |--- weights: [2, 0, 0] class: a\n"
        "|--- x0 > 1.5\n"
        "|   |--- x1 = u\n"
        "|   |   |--- weights: [0, 2, 0] class: b\n"
        "|   |--- x1 != u\n"
        "|   |   |--- weights: [0, 0, 2] class: c\n")
    assert model.used_features_.tolist() == [0, 1]
    assert model.predict(pd.DataFrame({"x0": [0.0, 9.0], "x1": ["v", "u"]})).tolist() == [
        "a", "b"]
    result = _core.greedy_tree(np.array([[1.0], [1.0], [2.0], [2.0], [3.0], [3.0]]),
                               np.array([[0], [1], [0], [1], [0], [1]], dtype=np.uint32), [1],
                               np.array([0, 0, 1, 2, 1, 2], dtype=np.uint32), 3,
                               criterion="entropy", min_cases=1)
    assert result["gain"][0] == pytest.approx(np.log2(3) - 2 / 3, abs=1e-12)


def test_gain_ratio_and_entropy_choose_differently():
    # x0 splits 10/10 with 8 of a class on each side (gain 0.278 bits, ratio 0.278); x1 peels
    # off 4 rows of class 1 (gain 0.237 bits, ratio 0.328)
    rows = np.arange(20)
    y = (rows >= 10).astype(int)
    X = np.column_stack([~((rows < 8) | (rows == 10) | (rows == 11)), rows < 16]).astype(float)
    by_gain = GreedyTreeClassifier(criterion="entropy").fit(X, y)
    by_ratio = GreedyTreeClassifier(criterion="gain_ratio").fit(X, y)
    assert by_gain.binary_features_[by_gain.tree_.feature[0]].column == 0
    assert by_ratio.binary_features_[by_ratio.tree_.feature[0]].column == 1


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_root_split_matches_sklearn_entropy(name):
    X, y = DATASETS[name](return_X_y=True)
    roots = {}  # sklearn draws the features at random: tied best splits show as several roots
    for seed in range(10):
        tree = DecisionTreeClassifier(criterion="entropy", max_depth=1, random_state=seed)
        tree.fit(X, y)
        roots[tree.tree_.feature[0]] = tree.apply(X) == tree.tree_.children_left[0]
    assert len(roots) == (2 if name == "iris" else 1)  # iris: petal length or width
    column = min(roots)  # ties go to the lowest column
    model = GreedyTreeClassifier(criterion="entropy", max_depth=1).fit(X, y)
    root = model.binary_features_[model.tree_.feature[0]]
    assert root.column == column
    np.testing.assert_array_equal(X[:, column] <= root.value, roots[column])


def test_json_round_trip():
    X, y = load_iris(return_X_y=True)
    names = ["sepal length", "sepal width", "petal length", "petal width"]
    frame = pd.DataFrame(X, columns=names).assign(
        size=pd.Categorical(np.where(X[:, 2] > 4, "big", "small")))
    model = GreedyTreeClassifier(min_cases=3).fit(frame, load_iris().target_names[y])
    copy = from_json(to_json(model))
    assert isinstance(copy, GreedyTreeClassifier)
    assert copy.get_params() == model.get_params()
    np.testing.assert_array_equal(copy.predict(frame), model.predict(frame))
    np.testing.assert_array_equal(copy.predict_proba(frame), model.predict_proba(frame))
    assert export_text(copy) == export_text(model)


def test_exports_and_tree_queries():
    X, y = load_iris(return_X_y=True)
    model = GreedyTreeClassifier(max_depth=3).fit(X, y)
    text = export_text(model)
    assert text.startswith("|--- x2 <= 2.45\n") or text.startswith("|--- x3 <= 0.8\n")
    assert export_graphviz(model).startswith("digraph")
    pytest.importorskip("matplotlib").use("Agg")
    assert plot_tree(model)
    assert model.get_depth() == 3
    assert model.get_n_leaves() == model.tree_.n_leaves == len(np.unique(model.apply(X)))
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.classes_[proba.argmax(axis=1)], model.predict(X))


def test_dataframe_with_categorical_columns():
    frame = pd.DataFrame({"color": pd.Categorical(["red", "blue", "green", "red"] * 3),
                          "shape": ["round", "square", "round", "square"] * 3,
                          "size": [1, 5, 2, 6, 3, 7, 1, 5, 2, 6, 3, 7]})
    y = (frame["color"] == "blue").to_numpy() | (frame["size"] > 6).to_numpy()
    model = GreedyTreeClassifier(min_cases=1).fit(frame, y)
    assert model.score(frame, y) == 1.0
    kinds = {feature.kind for feature in model.binary_features_}
    assert "category" in kinds
    assert "color = blue" in export_text(model)


def test_one_class_gives_a_single_leaf():
    model = GreedyTreeClassifier().fit(np.arange(10.0).reshape(5, 2), ["x"] * 5)
    assert (model.get_n_leaves(), model.get_depth()) == (1, 0)
    assert model.predict([[100.0, -1.0]]).tolist() == ["x"]


@pytest.mark.parametrize("params", [{"min_cases": 0}, {"criterion": "gini"},
                                    {"max_depth": -1}, {"min_gain": -0.5}])
def test_bad_parameters_raise(params):
    with pytest.raises(ValueError):
        GreedyTreeClassifier(**params).fit([[0.0], [1.0]], [0, 1])


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_missing_or_infinite_values_raise(bad):
    with pytest.raises(ValueError):
        GreedyTreeClassifier().fit([[0.0], [bad]], [0, 1])
    with pytest.raises(ValueError):
        GreedyTreeClassifier().fit(pd.DataFrame({"x": [0.0, bad]}), [0, 1])


def test_core_allowed_features_and_used_features():
    X, y = load_wine(return_X_y=True)
    codes = np.empty((len(y), 0), dtype=np.uint32)
    labels = y.astype(np.uint32)
    full = _core.greedy_tree(X, codes, [], labels, 3, criterion="entropy")
    used = full["used_features"].tolist()
    assert len(used) < X.shape[1]
    # dropping features the tree does not use leaves it unchanged (the spec's Remark 4.3)
    same = _core.greedy_tree(X, codes, [], labels, 3, criterion="entropy",
                             allowed_features=used)
    for key in ("feature", "threshold", "children_true", "class_counts"):
        np.testing.assert_array_equal(same[key], full[key])
    without = _core.greedy_tree(X, codes, [], labels, 3, criterion="entropy",
                                allowed_features=used[1:])
    assert used[0] not in without["used_features"]
    leaf = _core.greedy_tree(X, codes, [], labels, 3, allowed_features=[])
    assert leaf["feature"].tolist() == [-2]
    with pytest.raises(ValueError, match="allowed feature"):
        _core.greedy_tree(X, codes, [], labels, 3, allowed_features=[99])
    with pytest.raises(ValueError, match="categorical_columns"):
        _core.greedy_tree(X, codes, [0], labels, 3)
