"""Predicting with or without column names warns once, in the estimator's name, as
scikit-learn's own estimators do; a selector's tree takes the selector's output silently."""

import warnings

import numpy as np
import pandas as pd
import pytest
from odtree import DistinctTreeSelector, GreedyTreeClassifier, OptimalTreeClassifier
from sklearn.datasets import load_breast_cancer


@pytest.fixture(scope="module")
def frame():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    return X.iloc[:, :6], y


def messages(action) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return [str(warning.message) for warning in caught]


@pytest.mark.parametrize("estimator", [OptimalTreeClassifier(max_depth=2),
                                       GreedyTreeClassifier(max_depth=2)])
def test_an_array_after_a_dataframe_fit_warns_once_naming_the_estimator(frame, estimator):
    X, y = frame
    model = estimator.fit(X, y)
    said = messages(lambda: model.predict(X.to_numpy()))
    name = type(estimator).__name__
    assert said == [f"X does not have valid feature names, but {name} was fitted with "
                    "feature names"]
    assert messages(lambda: model.predict(X)) == []


@pytest.mark.parametrize("estimator", [OptimalTreeClassifier(max_depth=2),
                                       GreedyTreeClassifier(max_depth=2)])
def test_a_dataframe_after_an_array_fit_warns_once_naming_the_estimator(frame, estimator):
    X, y = frame
    model = estimator.fit(X.to_numpy(), y)
    said = messages(lambda: model.predict(X))
    name = type(estimator).__name__
    assert said == [f"X has feature names, but {name} was fitted without feature names"]


def test_the_selectors_tree_scores_the_selectors_output_without_a_warning(frame):
    X, y = frame
    selector = DistinctTreeSelector(random_state=0).fit(X, y)
    selected = selector.transform(X)
    assert isinstance(selected, np.ndarray)
    said = messages(lambda: selector.estimator_.score(selected, y))
    assert said == []
    # its tests still read the column names
    names = set(X.columns[selector.support_])
    used = {name.split(" <= ")[0] for name in selector.estimator_.binary_feature_names_}
    assert used <= names


def test_a_pandas_selectors_tree_scores_its_dataframe_output_without_a_warning(frame):
    X, y = frame
    selector = DistinctTreeSelector(random_state=0).set_output(transform="pandas").fit(X, y)
    selected = selector.transform(X)
    assert isinstance(selected, pd.DataFrame)
    assert messages(lambda: selector.estimator_.score(selected, y)) == []
