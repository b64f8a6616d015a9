"""GreedyTreeClassifier with sample_weight and class_weight: weights as repeated rows, class
weights as their sample weights, the fitted values, bad weights, and unweighted fits unchanged."""

import numpy as np
import pandas as pd
import pytest
from odtree import GreedyTreeClassifier, export_text, from_json, to_json, to_sklearn
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.ensemble import AdaBoostClassifier
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.estimator_checks import check_estimator

DATASETS = {"iris": load_iris, "wine": load_wine, "breast_cancer": load_breast_cancer}


def _tree_arrays(model):
    tree = model.tree_
    return (tree.children_left, tree.children_right, tree.feature, tree.value,
            tree.weighted_n_node_samples, model.binary_feature_names_, model.node_classes_)


def _assert_same_tree(model, other, *, same_rows=True):
    for mine, theirs in zip(_tree_arrays(model), _tree_arrays(other), strict=True):
        np.testing.assert_array_equal(mine, theirs)
    if same_rows:
        np.testing.assert_array_equal(model.tree_.n_node_samples, other.tree_.n_node_samples)


@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("criterion", ["gain_ratio", "entropy"])
def test_integer_weights_are_repeated_rows(name, criterion):
    # with min_cases=1 a row of weight w counts exactly as w copies of it: the same tests,
    # the same (weighted) class counts, the same predictions
    X, y = DATASETS[name](return_X_y=True)
    weight = np.random.default_rng(0).integers(0, 4, len(y))
    weighted = GreedyTreeClassifier(criterion=criterion, min_cases=1, max_depth=5).fit(
        X, y, sample_weight=weight)
    rows = np.repeat(np.arange(len(y)), weight)
    repeated = GreedyTreeClassifier(criterion=criterion, min_cases=1, max_depth=5).fit(
        X[rows], y[rows])
    _assert_same_tree(weighted, repeated, same_rows=False)
    assert weighted.objective_ == repeated.objective_
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))
    np.testing.assert_array_equal(weighted.predict_proba(X), repeated.predict_proba(X))
    # the rows of non-zero weight reach the nodes; their weights sum to the repeated rows
    assert weighted.tree_.n_node_samples[0] == np.count_nonzero(weight)
    assert weighted.tree_.weighted_n_node_samples[0] == weight.sum()


def test_min_cases_counts_rows_not_weight():
    # with min_cases=2 a node of three rows cannot split (each branch needs two rows), even
    # when one of them weighs 2; its two copies can
    X, y = np.array([[0.0], [1.0], [10.0]]), np.array([0, 0, 1])
    heavy = GreedyTreeClassifier().fit(X, y, sample_weight=[1, 1, 2])
    assert heavy.get_n_leaves() == 1
    assert heavy.tree_.value[0, 0].tolist() == [2.0, 2.0]
    assert heavy.predict([[10.0]]).tolist() == [0]  # a tie: the lowest class
    copies = GreedyTreeClassifier().fit(X[[0, 1, 2, 2]], y[[0, 1, 2, 2]])
    assert copies.get_n_leaves() == 2
    # light rows still count as rows, so rescaling every weight keeps the tree
    X, y = load_wine(return_X_y=True)
    model = GreedyTreeClassifier(min_cases=5).fit(X, y)
    light = GreedyTreeClassifier(min_cases=5).fit(X, y, sample_weight=np.full(len(y), 2.0**-20))
    for mine, theirs in zip(_tree_arrays(model)[:3], _tree_arrays(light)[:3], strict=True):
        np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(light.tree_.value, model.tree_.value * 2.0**-20)


@pytest.mark.parametrize("criterion", ["gain_ratio", "entropy"])
def test_unweighted_fits_are_unchanged(criterion):
    # weights that are all 1 (or all one power of two) give the unweighted tree bit for bit
    X, y = load_breast_cancer(return_X_y=True)
    model = GreedyTreeClassifier(criterion=criterion).fit(X, y)
    _assert_same_tree(model, GreedyTreeClassifier(criterion=criterion).fit(
        X, y, sample_weight=np.ones(len(y))))
    halves = GreedyTreeClassifier(criterion=criterion).fit(X, y, sample_weight=np.full(len(y), 0.5))
    for mine, theirs in zip(_tree_arrays(model)[:3], _tree_arrays(halves)[:3], strict=True):
        np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(halves.tree_.value, model.tree_.value / 2)
    # without weights, tree_.value holds the class counts and the gains are per row
    counts = np.bincount(y)
    assert model.tree_.value[0, 0].tolist() == counts.tolist()
    assert model.tree_.weighted_n_node_samples[0] == len(y)


def test_zero_weight_rows_are_ignored():
    # rows of weight zero move no threshold (the midpoints are between the other rows)
    X, y = load_iris(return_X_y=True)
    weight = np.where(np.arange(len(y)) % 3 == 0, 0.0, 1.5)
    model = GreedyTreeClassifier(criterion="entropy").fit(X, y, sample_weight=weight)
    kept = weight > 0
    without = GreedyTreeClassifier(criterion="entropy").fit(X[kept], y[kept],
                                                              sample_weight=weight[kept])
    _assert_same_tree(model, without)
    assert model.tree_.n_node_samples[0] == kept.sum()


def test_fitted_values_are_the_weighted_class_counts():
    X, y = load_wine(return_X_y=True)
    weight = np.random.default_rng(1).uniform(0.1, 3.0, len(y))
    model = GreedyTreeClassifier(max_depth=3).fit(X, y, sample_weight=weight)
    leaves = model.apply(X)
    expected = np.zeros_like(model.tree_.value[:, 0, :])
    for leaf in np.unique(leaves):
        expected[leaf] = np.bincount(y[leaves == leaf], weights=weight[leaves == leaf],
                                     minlength=3)
    is_leaf = model.tree_.children_left == -1
    # each weight is rounded to a unit below n_rows * 2**-51 times the largest weight
    np.testing.assert_allclose(model.tree_.value[is_leaf, 0, :], expected[is_leaf],
                               rtol=0, atol=1e-9)
    np.testing.assert_allclose(model.tree_.value[0, 0], np.bincount(y, weights=weight),
                               rtol=1e-12)
    np.testing.assert_allclose(model.tree_.weighted_n_node_samples,
                               model.tree_.value[:, 0, :].sum(axis=1))
    proba = model.predict_proba(X)
    np.testing.assert_allclose(
        proba, expected[leaves] / expected[leaves].sum(axis=1, keepdims=True), atol=1e-12)
    # each leaf predicts its class of largest weight; objective_ is the weight misclassified
    assert (model.node_classes_[is_leaf] == model.tree_.value[is_leaf, 0, :].argmax(axis=1)).all()
    wrong = model.predict(X) != y
    assert model.objective_ == pytest.approx(weight[wrong].sum(), rel=1e-12)
    # scikit-learn's tree tools see the same weighted tree
    copy = to_sklearn(model)
    np.testing.assert_allclose(copy.tree_.weighted_n_node_samples,
                               model.tree_.weighted_n_node_samples)
    np.testing.assert_allclose(copy.predict_proba(X), proba, atol=1e-12)


def test_weights_change_the_tree():
    # a single heavy row decides the majority of its leaf and moves the root
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 1.0], [1.0, 1.0]])
    y = np.array([0, 0, 1, 0, 1, 1])
    plain = GreedyTreeClassifier(criterion="entropy", min_cases=1, max_depth=1).fit(X, y)
    assert export_text(plain).startswith("|--- x0 <= 0.5")  # a tie: the lowest column
    heavy = GreedyTreeClassifier(criterion="entropy", min_cases=1, max_depth=1).fit(
        X, y, sample_weight=[1, 1, 1, 10, 1, 1])
    assert export_text(heavy).startswith("|--- x1 <= 0.5")
    assert heavy.predict([[1.0, 0.0]]).tolist() == [0]


def test_rounded_weights_do_not_depend_on_the_order_of_the_rows():
    X, y = load_breast_cancer(return_X_y=True)
    weight = 1.0 / np.arange(1, len(y) + 1)  # no common power-of-two unit
    model = GreedyTreeClassifier().fit(X, y, sample_weight=weight)
    order = np.random.default_rng(2).permutation(len(y))
    shuffled = GreedyTreeClassifier().fit(X[order], y[order], sample_weight=weight[order])
    _assert_same_tree(model, shuffled)


def test_balanced_class_weight_is_its_sample_weight():
    X, y = load_breast_cancer(return_X_y=True)
    balanced = GreedyTreeClassifier(class_weight="balanced", max_depth=4).fit(X, y)
    by_hand = GreedyTreeClassifier(max_depth=4).fit(
        X, y, sample_weight=compute_sample_weight("balanced", y))
    _assert_same_tree(balanced, by_hand)
    assert balanced.tree_.value[0, 0, 0] == pytest.approx(balanced.tree_.value[0, 0, 1])
    # and class_weight multiplies sample_weight
    weight = np.random.default_rng(3).uniform(0.5, 2.0, len(y))
    both = GreedyTreeClassifier(class_weight="balanced", max_depth=4).fit(
        X, y, sample_weight=weight)
    _assert_same_tree(both, GreedyTreeClassifier(max_depth=4).fit(
        X, y, sample_weight=weight * compute_sample_weight("balanced", y)))


def test_class_weight_dict_with_string_labels():
    X, y = load_iris(return_X_y=True)
    labels = load_iris().target_names[y]
    frame = pd.DataFrame(X, columns=["sl", "sw", "pl", "pw"])
    class_weight = {"virginica": 3.0, "setosa": 0.5}  # versicolor weighs 1
    model = GreedyTreeClassifier(class_weight=class_weight).fit(frame, labels)
    by_hand = GreedyTreeClassifier().fit(
        frame, labels, sample_weight=compute_sample_weight(class_weight, labels))
    _assert_same_tree(model, by_hand)
    assert model.tree_.value[0, 0].tolist() == [25.0, 50.0, 150.0]
    assert model.get_params()["class_weight"] == class_weight
    assert clone(model).class_weight == class_weight
    # a weighted model saves and loads with its weighted counts
    copy = from_json(to_json(model))
    np.testing.assert_array_equal(copy.tree_.value, model.tree_.value)
    np.testing.assert_array_equal(copy.predict_proba(frame), model.predict_proba(frame))


@pytest.mark.parametrize("sample_weight, message", [
    ([1.0, -1.0, 1.0, 1.0], "Negative values"),
    ([1.0, np.nan, 1.0, 1.0], "NaN"),
    ([1.0, np.inf, 1.0, 1.0], "infinity"),
    ([1.0, 1.0, 1.0], r"shape == \(3,\), expected \(4,\)"),
    ([0.0, 0.0, 0.0, 0.0], "non-zero|zero everywhere"),
    ([1e308, 1e308, 1e308, 1.0], "sums to infinity"),
    (["a", "b", "c", "d"], "could not convert|must be numeric|float"),
])
def test_bad_sample_weights_are_explained(sample_weight, message):
    X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), ["a", "b", "a", "b"]
    with pytest.raises(ValueError, match=message):
        GreedyTreeClassifier().fit(X, y, sample_weight=sample_weight)


@pytest.mark.parametrize("class_weight, message", [
    ("auto", "class_weight"),
    ({"a": -1.0}, "finite number >= 0"),
    ({"a": np.nan}, "finite number >= 0"),
    ({"c": 2.0}, "not in class_weight"),
])
def test_bad_class_weights_are_explained(class_weight, message):
    X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), ["a", "b", "a", "b"]
    with pytest.raises(ValueError, match=message):
        GreedyTreeClassifier(class_weight=class_weight).fit(X, y)
    with pytest.raises(ValueError, match="non-zero|zero everywhere"):
        GreedyTreeClassifier(class_weight={"a": 0.0, "b": 0.0}).fit(X, y)


def test_sklearn_sample_weight_checks_with_gain_ratio():
    # test_greedy.py runs every check on the default estimator and on entropy with
    # min_cases=1; here gain ratio with min_cases=1 must pass every check of the weights
    results = check_estimator(GreedyTreeClassifier(min_cases=1), on_fail=None, on_skip=None)
    weight_checks = {result["check_name"]: result["status"] for result in results
                     if "sample_weight" in result["check_name"]}
    assert "check_sample_weight_equivalence_on_dense_data" in weight_checks
    assert set(weight_checks.values()) == {"passed"}, weight_checks


def test_adaboost_with_normalised_weights():
    # AdaBoost rescales the weights to sum to 1 at every round: min_cases counts rows, so the
    # stumps still split
    X, y = load_breast_cancer(return_X_y=True)
    boosted = AdaBoostClassifier(GreedyTreeClassifier(max_depth=1), n_estimators=20,
                                 random_state=0).fit(X, y)
    assert all(stump.get_n_leaves() == 2 for stump in boosted.estimators_)
    assert boosted.score(X, y) > 0.95
