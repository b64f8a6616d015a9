"""The incumbent built before the exact search: with time for it, a fit
never returns a tree worse than CART at the same depth on the same binary features."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from odtree import OptimalTreeClassifier, OptimalTreeRegressor
from sklearn.datasets import load_diabetes
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

#: Enough for the incumbent on these sets, far too little to prove the optimum.
TIME_LIMIT = 1.0


@pytest.mark.parametrize(("name", "depth"), [("australian-credit", 6), ("german-credit", 5),
                                             ("yeast", 6), ("vehicle", 5)])
def test_a_timed_out_fit_is_no_worse_than_cart(load, name, depth):
    X, y = load(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = OptimalTreeClassifier(max_depth=depth, time_limit=TIME_LIMIT).fit(X, y)
    cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
    assert model.status_ == "time_limit"
    assert model.objective_ == np.sum(model.predict(X) != y)
    assert model.objective_ <= np.sum(cart.predict(X) != y)
    assert model.get_depth() <= depth


def test_a_timed_out_regressor_is_no_worse_than_cart():
    X, y = load_diabetes(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = OptimalTreeRegressor(max_depth=6, time_limit=TIME_LIMIT).fit(X, y)
    binary = model.binarizer_.transform(X)
    cart = DecisionTreeRegressor(max_depth=6, random_state=0).fit(binary, y)
    assert model.status_ == "time_limit"
    squared = np.sum((model.predict(X) - y) ** 2)
    assert squared == pytest.approx(model.objective_, rel=1e-9)
    assert squared <= np.sum((cart.predict(binary) - y) ** 2) * (1 + 1e-9)


def test_the_incumbent_never_changes_a_proven_optimum(load):
    X, y = load("anneal")
    for depth in (2, 3, 4):
        fast = OptimalTreeClassifier(max_depth=depth).fit(X, y)
        plain = OptimalTreeClassifier(max_depth=depth, search="dl85").fit(X, y)
        assert fast.optimal_ and plain.optimal_
        assert fast.objective_ == plain.objective_ == fast.lower_bound_
