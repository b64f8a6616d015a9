"""Fitted estimators and solvers pickle small, as a task sent to a joblib or Dask worker
should: nothing in a pickle grows with the training rows except the per-row outputs an
estimator documents (a clusterer's ``labels_``, a forest's ``margins_``)."""

import pickle
import warnings

import numpy as np
import pytest
from odtree import (
    Binarizer,
    DistinctTreeSelector,
    GreedyTreeClassifier,
    LPBoostClassifier,
    MDBoostClassifier,
    OptimalTreeClassifier,
    OptimalTreeClusterer,
    OptimalTreeCV,
    OptimalTreeRegressor,
    Solver,
)
from sklearn.datasets import make_classification, make_regression

#: Each estimator, how it is fitted, and the bytes per training row of its per-row outputs.
CASES = {
    "classifier": (lambda: OptimalTreeClassifier(max_depth=2, n_thresholds=4), "xy", 0),
    "regressor": (lambda: OptimalTreeRegressor(max_depth=2, n_thresholds=4), "regression", 0),
    "clusterer": (lambda: OptimalTreeClusterer(max_depth=2, n_thresholds=4), "x", 8),
    "greedy": (lambda: GreedyTreeClassifier(max_depth=3), "xy", 0),
    "lpboost": (lambda: LPBoostClassifier(max_depth=1, max_iterations=3), "xy", 8),
    "mdboost": (lambda: MDBoostClassifier(max_depth=1, max_iterations=3), "xy", 8),
    "selector": (lambda: DistinctTreeSelector(max_depth=3, random_state=0), "xy", 0),
    "tuning": (lambda: OptimalTreeCV(depths=[1, 2], cv=2), "xy", 0),
    "binarizer": (lambda: Binarizer(n_thresholds=4), "x", 0),
}


def _pickled_size(name: str, n_rows: int) -> int:
    make, data, _ = CASES[name]
    if data == "regression":
        X, y = make_regression(n_rows, 6, random_state=0)
    else:
        X, y = make_classification(n_rows, 6, n_informative=4, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a forest stopped by max_iterations says so
        model = make().fit(X) if data == "x" else make().fit(X, y)
    return len(pickle.dumps(model))


@pytest.mark.parametrize("name", CASES)
def test_a_fitted_estimator_pickles_without_its_training_rows(name):
    small, large = _pickled_size(name, 500), _pickled_size(name, 5000)
    per_row = CASES[name][2]
    assert large - small <= per_row * 4500 + 1000, (small, large)
    assert small < 30_000


def test_a_solver_pickles_as_one_bit_per_entry():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (5000, 40))
    y = rng.integers(0, 3, 5000)
    size = len(pickle.dumps(Solver(X, y)))
    assert size < X.size / 8 + 4 * len(y) + 2000
