"""Optimal LPBoost forests (issue 15, in progress): the thesis's toy oracle."""

import numpy as np
import pytest
from odtree._boosting import OptimalBoostingClassifier

TOY = "011 0,101 1,001 1,010 0,100 1,000 0,001 0,110 1,000 1,001 0,000 1".split(",")
X = np.array([[int(c) for c in row.split()[0]] for row in TOY])
y = np.array([int(row.split()[1]) for row in TOY])


@pytest.mark.parametrize("depth, regulariser, optimum", [
    (1, 0.125, 0.25), (2, 0.125, 0.30), (1, 0.25, 0.0), (2, 0.5, 0.0), (1, 1.0, 0.0),
    (2, 1.0, 0.0),
])
def test_lpboost_reaches_the_thesis_optimum(depth, regulariser, optimum):
    forest = OptimalBoostingClassifier(regulariser=regulariser, max_depth=depth).fit(X, y)
    assert forest.optimal_
    assert forest.objective_ == pytest.approx(optimum, abs=1e-7)
    assert forest.estimator_weights_.sum() == pytest.approx(1.0)
    assert np.all(forest.estimator_weights_ > 0)
    # the soft minimum margin: every row's margin is at least it, less its slack
    assert forest.predict(X).shape == y.shape


def test_a_regulariser_below_one_over_n_is_refused():
    with pytest.raises(ValueError, match="at least 1/n_rows"):
        OptimalBoostingClassifier(regulariser=0.05).fit(X, y)
