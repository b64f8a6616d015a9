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


def brute_force_mdboost(Z, D):
    """MDBoost's optimum over the columns Z by a fine projected-gradient run."""
    m, t = Z.shape
    A = (np.eye(m) * m - np.ones((m, m))) / (m - 1)
    w = np.full(t, D / t)
    for _ in range(20000):
        rho = Z @ w
        grad = Z.T @ (np.ones(m) - A @ rho)
        w = w + 1e-3 * grad
        # projection on the simplex of sum D
        u = np.sort(w)[::-1]
        css = np.cumsum(u) - D
        k = np.nonzero(u - css / np.arange(1, t + 1) > 0)[0][-1]
        w = np.maximum(w - css[k] / (k + 1), 0)
    rho = Z @ w
    return rho.sum() - rho @ A @ rho / 2


@pytest.mark.parametrize("depth, regulariser", [(1, 1.0), (2, 3.0), (1, 0.5)])
def test_mdboost_master_is_the_qp_optimum_over_its_trees(depth, regulariser):
    forest = OptimalBoostingClassifier(model="mdboost", regulariser=regulariser,
                                       max_depth=depth).fit(X, y)
    assert forest.optimal_ and forest.n_iter_ >= 1
    assert forest.estimator_weights_.sum() == pytest.approx(regulariser, rel=1e-6)
    columns = np.column_stack([
        np.where(labels[tree.apply(X.astype(np.uint8))] == y, 1.0, -1.0)
        for tree, labels in zip(forest.trees_, forest.tree_labels_, strict=True)])
    assert forest.objective_ == pytest.approx(brute_force_mdboost(columns, regulariser),
                                              rel=1e-4)


def test_predicting_before_fit_raises_not_fitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        OptimalBoostingClassifier().predict(X)


def test_a_spent_time_limit_gives_an_empty_unproven_forest():
    forest = OptimalBoostingClassifier(time_limit=0).fit(X, y)
    assert not forest.optimal_ and forest.n_iter_ == 0 and len(forest.trees_) == 0
    assert forest.predict(X).shape == y.shape
