"""to_sklearn: an odtree classifier as a scikit-learn tree that predicts the same, and that
scikit-learn's tree tools accept."""

import matplotlib
import numpy as np
import pandas as pd
import pytest
from odtree import (
    GreedyTreeClassifier,
    LPBoostClassifier,
    OptimalTreeClassifier,
    OptimalTreeRegressor,
    from_sklearn,
    to_sklearn,
)
from sklearn.datasets import load_breast_cancer, load_iris, load_wine, make_friedman1
from sklearn.tree import DecisionTreeClassifier, export_graphviz, export_text, plot_tree

matplotlib.use("Agg")


def _same_predictions(model, X):
    tree = model.to_sklearn()
    assert isinstance(tree, DecisionTreeClassifier)
    np.testing.assert_array_equal(tree.predict(X), model.predict(X))
    np.testing.assert_allclose(tree.predict_proba(X), model.predict_proba(X), atol=1e-9)
    return tree


@pytest.mark.parametrize("load, depth", [(load_iris, 3), (load_wine, 2), (load_breast_cancer, 2)])
def test_thresholds_on_the_original_columns(load, depth):
    X, y = load(return_X_y=True)
    tree = _same_predictions(OptimalTreeClassifier(max_depth=depth).fit(X, y), X)
    used = tree.tree_.feature[tree.tree_.feature >= 0]
    assert used.max() < X.shape[1]
    assert tree.get_depth() <= depth
    # scikit-learn's own tools take it
    assert "class:" in export_text(tree)
    assert "digraph" in export_graphviz(tree, out_file=None)
    assert len(plot_tree(tree)) >= tree.tree_.node_count  # and the edge labels


def test_zero_one_columns_and_weights(load):
    X, y = load("vote")
    weight = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    model = OptimalTreeClassifier(max_depth=3).fit(X, y, sample_weight=weight)
    tree = _same_predictions(model, X)
    assert set(tree.tree_.threshold[tree.tree_.feature >= 0]) == {0.5}


def test_names_greedy_trees_and_the_round_trip():
    data = load_wine(as_frame=True)
    model = GreedyTreeClassifier(max_depth=3).fit(data.data, data.target)
    tree = _same_predictions(model, data.data)
    np.testing.assert_array_equal(tree.feature_names_in_, data.data.columns)
    back = from_sklearn(tree)
    np.testing.assert_array_equal(back.predict(data.data.to_numpy()), model.predict(data.data))


def test_ties_go_to_the_class_odtree_predicts():
    X = np.array([[0], [0], [1], [1]])
    model = OptimalTreeClassifier(max_depth=1).fit(X, [0, 1, 0, 1])  # one leaf, a tie
    _same_predictions(model, X)


def test_what_a_scikit_learn_tree_cannot_hold_is_refused():
    frame = pd.DataFrame({"colour": pd.Categorical(["red", "blue", "red", "green"] * 5)})
    y = np.array([1, 0, 1, 0] * 5)
    with pytest.raises(ValueError, match="category test"):
        to_sklearn(OptimalTreeClassifier(max_depth=1).fit(frame, y))
    X, y = load_breast_cancer(return_X_y=True)
    f1 = OptimalTreeClassifier(max_depth=2, criterion="f1").fit(X, 1 - y)
    if np.any(f1.node_classes_ != np.argmax(f1.tree_.value[:, 0, :], axis=1)):
        with pytest.raises(ValueError, match="not its majority"):
            to_sklearn(f1)
    costly = OptimalTreeClassifier(max_depth=0, cost_matrix=[[0, 100], [1, 0]]).fit(X, y)
    with pytest.raises(ValueError, match="not its majority"):
        to_sklearn(costly)


def test_to_sklearn_names_what_it_takes():
    X, y = make_friedman1(60, random_state=0)
    regressor = OptimalTreeRegressor(max_depth=1).fit(X, y)
    with pytest.raises(TypeError, match="OptimalTreeRegressor"):
        to_sklearn(regressor)
    X, y = load_iris(return_X_y=True)
    forest = LPBoostClassifier(max_depth=1, max_iterations=2).fit(X, y == 0)
    with pytest.raises(TypeError, match="LPBoostClassifier"):
        to_sklearn(forest)


def test_nan_is_refused_by_odtree_and_routed_by_the_exported_tree_as_documented():
    X, y = load_iris(return_X_y=True)
    model = OptimalTreeClassifier(max_depth=2).fit(X, y)
    rows = X[:3].copy()
    rows[:, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model.predict(rows)
    assert len(to_sklearn(model).predict(rows)) == 3  # scikit-learn's routing applies
    assert "routes them as scikit-learn does" in type(model).predict.__doc__
    assert "without a word" in to_sklearn.__doc__
