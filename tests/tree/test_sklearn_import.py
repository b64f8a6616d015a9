"""Importing fitted scikit-learn trees: same predictions, swapped children, exact thresholds."""

import numpy as np
import pandas as pd
import pytest
from odtree.tree._export import export_text
from odtree.tree._from_sklearn import _float32_cut, from_sklearn
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor


def predict(attributes, X):
    """What an odtree classifier with these attributes predicts."""
    leaf = attributes["tree_"].apply(attributes["binarizer_"].transform(X))
    return attributes["classes_"][np.argmax(attributes["tree_"].value[leaf, 0], axis=1)]


@pytest.mark.parametrize("seed", range(8))
def test_imported_tree_predicts_like_sklearn_on_random_data(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 4)) * [1, 10, 1e-3, 1e4]
    y = rng.choice(["a", "b", "c"], size=300)
    weight = rng.integers(1, 4, size=300)
    greedy = DecisionTreeClassifier(max_depth=int(rng.integers(1, 8)), random_state=seed)
    greedy.fit(X, y, sample_weight=weight)
    attributes = vars(from_sklearn(greedy))
    X_test = np.vstack([X, rng.normal(size=(2000, 4)) * [1, 10, 1e-3, 1e4]])
    np.testing.assert_array_equal(predict(attributes, X_test), greedy.predict(X_test))


def test_inputs_at_the_float32_boundaries_go_where_sklearn_sends_them():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    greedy = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, X[:, 0] + X[:, 1] > 0)
    attributes = vars(from_sklearn(greedy))
    near = []
    for feature in attributes["binary_features_"]:
        for x in (feature.value, np.nextafter(feature.value, np.inf),
                  np.nextafter(feature.value, -np.inf)):
            row = rng.normal(size=2)
            row[feature.column] = x
            near.append(row)
    np.testing.assert_array_equal(predict(attributes, np.array(near)), greedy.predict(near))


@pytest.mark.parametrize("threshold", [0.5, 2.45, -1e-3, 1e10, float(np.float32(0.1)),
                                       (float(np.float32(1.0)) + float(np.nextafter(
                                           np.float32(1.0), np.float32(2)))) / 2])
def test_float32_cut_is_the_largest_float64_on_the_low_side(threshold):
    cut = _float32_cut(threshold)
    assert np.float32(cut) <= threshold < np.float32(np.nextafter(cut, np.inf))
    assert abs(cut - threshold) <= abs(threshold) * 2**-23  # one float32 step


def test_children_swap_and_features_are_the_distinct_sorted_splits():
    X = np.array([[0.0, 5.0], [1.0, 5.0], [2.0, 6.0], [3.0, 7.0]])
    greedy = DecisionTreeClassifier(random_state=0).fit(X, [0, 0, 1, 0])
    source = greedy.tree_
    attributes = vars(from_sklearn(greedy, feature_names=["age", "size"]))
    tree = attributes["tree_"]
    np.testing.assert_array_equal(tree.children_right, source.children_left)
    np.testing.assert_array_equal(tree.children_left, source.children_right)
    features = attributes["binary_features_"]
    assert [(f.column, f.kind) for f in features] == sorted((f.column, "threshold")
                                                           for f in features)
    assert len(features) == len({(f.column, f.value) for f in features})
    assert all(f.column_name == ("age", "size")[f.column] for f in features)
    np.testing.assert_allclose(tree.value.sum(axis=2)[:, 0], source.weighted_n_node_samples)
    assert attributes["objective_"] == 0.0
    assert attributes["binary_feature_names_"].tolist() == [f.name for f in features]


def test_objective_is_the_weighted_training_error_of_the_leaves():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(200, 3)), rng.integers(0, 2, size=200)
    weight = rng.uniform(0.5, 2, size=200)
    greedy = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y, sample_weight=weight)
    attributes = vars(from_sklearn(greedy))
    wrong = greedy.predict(X) != y
    assert attributes["objective_"] == pytest.approx(weight[wrong].sum())
    assert (attributes["status_"], attributes["optimal_"]) == ("heuristic", False)


def test_feature_names_come_from_the_dataframe():
    frame = pd.DataFrame({"height": [1.0, 2.0, 3.0, 4.0], "weight": [3.0, 1.0, 4.0, 1.0]})
    greedy = DecisionTreeClassifier(random_state=0).fit(frame, [0, 0, 1, 1])
    attributes = vars(from_sklearn(greedy))
    assert attributes["feature_names_in_"].tolist() == ["height", "weight"]
    assert attributes["binary_features_"][0].name == "height <= 2.5"
    np.testing.assert_array_equal(predict(attributes, frame), greedy.predict(frame))
    shown = vars(from_sklearn(greedy, feature_names=["H", "W"]))
    assert shown["binary_features_"][0].name == "H <= 2.5"
    assert shown["feature_names_in_"].tolist() == ["height", "weight"]  # still checks X


def test_single_leaf_tree():
    greedy = DecisionTreeClassifier().fit(np.zeros((5, 2)), [1, 1, 1, 1, 2])
    attributes = vars(from_sklearn(greedy))
    assert attributes["binary_features_"] == [] and attributes["tree_"].node_count == 1
    assert attributes["objective_"] == 1.0
    assert predict(attributes, np.ones((3, 2))).tolist() == [1, 1, 1]


def test_bad_inputs():
    X, y = np.zeros((4, 2)), [0, 1, 0, 1]
    with pytest.raises(TypeError, match="DecisionTreeClassifier"):
        from_sklearn(DecisionTreeRegressor().fit(X, y))
    with pytest.raises(ValueError, match="single-output"):
        from_sklearn(DecisionTreeClassifier().fit(X, np.c_[y, y]))
    with pytest.raises(ValueError, match="feature_names has 3 names"):
        from_sklearn(DecisionTreeClassifier().fit(X, y), feature_names=["a", "b", "c"])


def greedy_and_imported(seed=5):
    pytest.importorskip("odtree.tree._classifier")
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(200, 3)), rng.choice([3, 7], size=200)
    greedy = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    return X, greedy, from_sklearn(greedy)


def test_from_sklearn_builds_a_fitted_optimal_tree_classifier():
    from odtree.tree._classifier import OptimalTreeClassifier

    X, greedy, model = greedy_and_imported()
    assert isinstance(model, OptimalTreeClassifier) and model.max_depth == greedy.get_depth()
    np.testing.assert_allclose(model.predict_proba(X), greedy.predict_proba(X))
    assert export_text(model).startswith("|--- x")
    proba = greedy.predict_proba(X)
    tied = proba.max(axis=1) == proba.min(axis=1)
    assert tied.any()  # this data has a leaf with a 17-17 tie, see the next test
    np.testing.assert_array_equal(model.predict(X)[~tied], greedy.predict(X)[~tied])


def test_from_sklearn_breaks_ties_like_sklearn():
    X, greedy, model = greedy_and_imported()
    np.testing.assert_array_equal(model.predict(X), greedy.predict(X))


def test_from_sklearn_refuses_a_tree_fitted_with_negative_weights():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 2, 40)
    weights = np.where(y == 1, -1.0, 3.0)
    tree = DecisionTreeClassifier(max_depth=2).fit(X, y, sample_weight=weights)
    with pytest.raises(ValueError, match="non-negative sample weights"):
        from_sklearn(tree)
