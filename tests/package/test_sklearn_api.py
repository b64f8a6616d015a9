"""scikit-learn's tree API on odtree's trees: feature_importances_, decision_path,
predict_log_proba, n_classes_, class_weight and fractional min_samples_leaf, each compared
with what scikit-learn gives on the same tree or the same weights."""

import pickle

import numpy as np
import pytest
from odtree import (
    GreedyTreeClassifier,
    OptimalTreeClassifier,
    OptimalTreeClusterer,
    OptimalTreePredictor,
    OptimalTreeRegressor,
    from_json,
    from_sklearn,
)
from sklearn.datasets import load_iris, load_wine
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.estimator_checks import check_class_weight_classifiers


@pytest.fixture(scope="module")
def wine():
    return load_wine(return_X_y=True)


def _binary_data(seed=0, n=120):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 5))
    y = (X[:, 0] ^ X[:, 2]) | (rng.random(n) < 0.1)
    return X, y.astype(int)


def _gini_importances(model, X, y, weight):
    """Gini importances computed apart from odtree's code: class weights per node from
    decision_path, the decrease of each split summed per input column, normalised."""
    path = model.decision_path(X).toarray().astype(bool)
    classes = np.searchsorted(model.classes_, y)
    sums = np.array([np.bincount(classes[path[:, node]], weights=weight[path[:, node]],
                                 minlength=len(model.classes_))
                     for node in range(path.shape[1])])
    total = sums.sum(axis=1)
    weighted_gini = total - np.divide((sums**2).sum(axis=1), total, out=np.zeros_like(total),
                                      where=total > 0)
    tree = model.tree_
    importances = np.zeros(X.shape[1])
    for node in np.flatnonzero(tree.children_left >= 0):
        column = model.binary_features_[tree.feature[node]].column
        importances[column] += (weighted_gini[node] - weighted_gini[tree.children_left[node]]
                                - weighted_gini[tree.children_right[node]])
    return importances / importances.sum()


@pytest.mark.parametrize("weighted", [False, True])
def test_imported_tree_matches_sklearn(wine, weighted):
    X, y = wine
    weight = np.random.default_rng(1).uniform(0.2, 3.0, len(y)) if weighted else None
    greedy = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y, sample_weight=weight)
    model = from_sklearn(greedy)
    np.testing.assert_array_equal(model.apply(X), greedy.apply(X))
    path, expected = model.decision_path(X), greedy.decision_path(X)
    assert path.format == "csr" and path.shape == expected.shape
    np.testing.assert_array_equal(path.toarray(), expected.toarray())
    np.testing.assert_allclose(model.feature_importances_, greedy.feature_importances_,
                               rtol=1e-9, atol=1e-12)
    with np.errstate(divide="ignore"):  # scikit-learn's log of zero probabilities
        expected_log_proba = greedy.predict_log_proba(X)
    np.testing.assert_allclose(model.predict_log_proba(X), expected_log_proba)
    assert model.n_classes_ == greedy.n_classes_ == 3


def test_optimal_classifier_importances_are_gini(wine):
    X, y = wine
    weight = np.random.default_rng(2).uniform(0.5, 2.0, len(y))
    model = OptimalTreeClassifier(max_depth=2).fit(X, y, sample_weight=weight)
    importances = model.feature_importances_
    assert importances.shape == (X.shape[1],)
    assert importances.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(importances, _gini_importances(model, X, y, weight), atol=1e-12)


def test_decision_path_follows_apply(wine):
    X, y = wine
    for model in (OptimalTreeClassifier(max_depth=3).fit(X, y),
                  GreedyTreeClassifier(max_depth=4).fit(X, y)):
        path = model.decision_path(X)
        leaves = model.apply(X)
        depths = model.tree_.node_depths()
        assert path.shape == (len(X), model.tree_.node_count)
        np.testing.assert_array_equal(path.indptr[1:] - path.indptr[:-1], depths[leaves] + 1)
        np.testing.assert_array_equal([row.indices.max() for row in path], leaves)
        np.testing.assert_array_equal(path[:, 0].toarray().ravel(), 1)


def test_regressor_importances_match_sklearn():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(200, 4))
    y = 3 * X[:, 0] + X[:, 2] + 0.1 * rng.normal(size=200)
    model = OptimalTreeRegressor(max_depth=2).fit(X, y)
    greedy = DecisionTreeRegressor(max_depth=2).fit(X, y)
    # the same tree: the greedy one is optimal on this data
    np.testing.assert_allclose(model.predict(X), greedy.predict(X))
    np.testing.assert_allclose(model.feature_importances_, greedy.feature_importances_)
    np.testing.assert_allclose(model.tree_.impurity,
                               greedy.tree_.impurity * greedy.tree_.weighted_n_node_samples)
    np.testing.assert_array_equal(model.decision_path(X).toarray(),
                                  greedy.decision_path(X).toarray())


@pytest.mark.parametrize("criterion", ["absolute_error", "quantile"])
def test_regressor_impurity_is_the_objective(criterion):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(80, 3))
    y = 2 * X[:, 1] + rng.normal(size=80)
    model = OptimalTreeRegressor(max_depth=2, criterion=criterion, quantile=0.3).fit(X, y)
    leaves = model.tree_.is_leaf_mask()
    assert model.tree_.impurity[leaves].sum() == pytest.approx(model.objective_)
    assert model.feature_importances_.sum() == pytest.approx(1.0)
    assert model.feature_importances_.argmax() == 1


def test_unsupervised_importances():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 3)).astype(float)
    points = 5 * X[:, :1] + rng.normal(size=(60, 1))
    clusterer = OptimalTreeClusterer(max_depth=2).fit(X, X_error=points)
    leaves = clusterer.tree_.is_leaf_mask()
    assert clusterer.tree_.impurity[leaves].sum() == pytest.approx(clusterer.objective_)
    assert clusterer.feature_importances_.argmax() == 0
    target = points[:, 0]
    predictor = OptimalTreePredictor(max_depth=1, error_function=lambda rows: float(
        np.abs(target[rows] - np.median(target[rows])).sum())).fit(X)
    np.testing.assert_array_equal(predictor.feature_importances_, [1.0, 0.0, 0.0])


def test_single_leaf_has_zero_importances(wine):
    X, y = wine
    for model in (OptimalTreeClassifier(max_depth=0).fit(X, y),
                  OptimalTreeRegressor(max_depth=0).fit(X, y.astype(float))):
        np.testing.assert_array_equal(model.feature_importances_, np.zeros(X.shape[1]))


def test_predict_log_proba_and_n_classes():
    X, y = load_iris(return_X_y=True)
    for model in (OptimalTreeClassifier(max_depth=2).fit(X, y),
                  GreedyTreeClassifier(max_depth=2).fit(X, y)):
        with np.errstate(divide="ignore"):
            expected = np.log(model.predict_proba(X))
        np.testing.assert_array_equal(model.predict_log_proba(X), expected)
        assert model.n_classes_ == 3
    assert not hasattr(OptimalTreeClassifier(), "n_classes_")


@pytest.mark.parametrize("class_weight", ["balanced", {0: 3.0, 2: 0.5}])
def test_class_weight_is_sample_weight(wine, class_weight):
    X, y = wine
    base = np.random.default_rng(4).uniform(0.5, 2.0, len(y))
    weighted = OptimalTreeClassifier(max_depth=2, class_weight=class_weight).fit(
        X, y, sample_weight=base)
    plain = OptimalTreeClassifier(max_depth=2).fit(
        X, y, sample_weight=base * compute_sample_weight(class_weight, y))
    assert weighted.objective_ == pytest.approx(plain.objective_)
    np.testing.assert_array_equal(weighted.tree_.feature, plain.tree_.feature)
    np.testing.assert_allclose(weighted.tree_.value, plain.tree_.value)
    np.testing.assert_array_equal(weighted.predict(X), plain.predict(X))


def test_class_weight_checks():
    X, y = _binary_data()
    with pytest.raises(InvalidParameterError, match="class_weight"):
        OptimalTreeClassifier(class_weight="uniform").fit(X, y)
    with pytest.raises(ValueError, match="zero"):
        OptimalTreeClassifier(class_weight={0: 0.0, 1: 0.0}).fit(X, y)
    # what the estimator check needs, given a leaf size as its trees get one
    check_class_weight_classifiers("OptimalTreeClassifier",
                                   OptimalTreeClassifier(min_samples_leaf=0.2))


def test_fractional_min_samples_leaf(wine):
    X, y = wine
    n = len(y)
    fraction = 0.07  # ceil(0.07 * 178) = 13
    for estimator, target in ((OptimalTreeClassifier, y), (OptimalTreeRegressor, y * 1.5)):
        by_fraction = estimator(max_depth=2, min_samples_leaf=fraction).fit(X, target)
        by_count = estimator(max_depth=2, min_samples_leaf=int(np.ceil(fraction * n))).fit(
            X, target)
        assert by_fraction.objective_ == by_count.objective_
        np.testing.assert_array_equal(by_fraction.tree_.feature, by_count.tree_.feature)
        assert by_fraction.tree_.n_node_samples.min() >= 13
    with pytest.raises(InvalidParameterError, match="min_samples_leaf"):
        OptimalTreeClassifier(min_samples_leaf=1.5).fit(X, y)


def test_pickle_and_json_keep_the_api(wine):
    X, y = wine
    classifier = OptimalTreeClassifier(max_depth=2, class_weight="balanced",
                                       min_samples_leaf=0.05).fit(X, y)
    regressor = OptimalTreeRegressor(max_depth=2).fit(X, y * 1.0)
    for model in (classifier, regressor):
        for copy in (pickle.loads(pickle.dumps(model)), from_json(model.to_json())):
            np.testing.assert_array_equal(copy.feature_importances_, model.feature_importances_)
            np.testing.assert_array_equal(copy.decision_path(X).toarray(),
                                          model.decision_path(X).toarray())
    copy = pickle.loads(pickle.dumps(classifier))
    assert copy.get_params()["class_weight"] == "balanced"
    np.testing.assert_array_equal(copy.predict_log_proba(X), classifier.predict_log_proba(X))
