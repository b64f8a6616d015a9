"""The public Solver: one binary dataset, solved many times."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from odtree import OptimalTreeClassifier, OptimalTreeRegressor, Solution, Solver


@pytest.fixture(scope="module")
def anneal(load):
    return load("anneal")


def test_solves_equal_fresh_estimator_fits(anneal):
    X, y = anneal
    solver = Solver(X, y)
    rng = np.random.default_rng(0)
    for depth in (2, 3):
        weight = rng.uniform(0.0, 2.0, size=len(y))
        solution = solver.solve(weight, max_depth=depth)
        model = OptimalTreeClassifier(max_depth=depth).fit(X, y, sample_weight=weight)
        assert solution.optimal and model.optimal_
        assert solution.objective == pytest.approx(model.objective_, rel=1e-12)
        predicted = solver.classes_[solution.predict(X).astype(int)]
        assert (predicted != y) @ weight == pytest.approx(solution.objective, rel=1e-9)


def test_limits_and_objectives_per_solve(anneal):
    X, y = anneal
    solver = Solver(X, y)
    free = solver.solve(max_depth=3)
    small = solver.solve(max_depth=3, max_leaf_nodes=3)
    assert small.tree.n_leaves <= 3 and small.objective >= free.objective
    infeasible = solver.solve(max_depth=3, upper_bound=free.objective)
    assert infeasible.status == "infeasible"
    costs = solver.solve(max_depth=2, objective="cost_matrix",
                         cost_matrix=np.array([[0.0, 1.0], [5.0, 0.0]]))
    assert costs.optimal and costs.objective > 0


def test_regression_and_several_quantiles():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(80, 5))
    target = 2.0 * X[:, 0] + rng.normal(size=80)
    solver = Solver(X)
    solution = solver.solve(max_depth=2, objective="squared_error", targets=target)
    model = OptimalTreeRegressor(max_depth=2).fit(X, target)
    assert solution.objective == pytest.approx(model.objective_)
    np.testing.assert_allclose(solution.predict(X), model.predict(X))
    several = solver.solve(max_depth=2, objective="quantiles", targets=target,
                           quantiles=np.array([0.2, 0.8]))
    assert [type(one) for one in several] == [Solution, Solution]


def test_estimators_keep_their_solver_for_the_same_data(anneal):
    X, y = anneal
    model = OptimalTreeClassifier(max_depth=2).fit(X, y)
    kept = model._solver.solver
    model.set_params(max_depth=3).fit(X, y, sample_weight=np.full(len(y), 2.0))
    assert model._solver.solver is kept
    model.fit(X[:-1], y[:-1])
    assert model._solver.solver is not kept
    copy = pickle.loads(pickle.dumps(model))  # the solver is left out
    np.testing.assert_array_equal(copy.predict(X), model.predict(X))
    assert len(pickle.dumps(copy)) < 8000


def test_a_solver_pickles_as_its_data_one_bit_per_entry(anneal):
    X, y = anneal
    solver = Solver(X, y)
    first = solver.solve(max_depth=3)
    data = pickle.dumps(solver)
    assert len(data) < X.size / 8 + 8 * len(y) + 2000  # the bits and the class codes
    copy = pickle.loads(data)
    np.testing.assert_array_equal(copy.classes_, solver.classes_)
    assert (copy.n_samples, copy.n_features) == (solver.n_samples, solver.n_features)
    again = copy.solve(max_depth=3)
    assert again.objective == first.objective
    np.testing.assert_array_equal(again.tree.feature, first.tree.feature)
    assert again.cache["cache_kept_entries"] == 0  # the work stays behind
    assert copy.solve(max_depth=3).cache["cache_kept_entries"] > 0  # and is kept anew


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="only 0 and 1"):
        Solver(np.array([[0, 2], [1, 0]]), [0, 1])
    with pytest.raises(ValueError, match="shape"):
        Solver(np.zeros((3, 2)), [0, 1])
    solver = Solver(np.array([[0, 1], [1, 0]]), [0, 1])
    with pytest.raises(ValueError, match="sample_weight|weights"):
        solver.solve([1.0, -1.0])
    with pytest.raises(ValueError, match="unknown branching"):
        solver.solve(branching="random")


def test_the_solver_checks_what_it_predicts_on():
    X = np.random.default_rng(0).integers(0, 2, (40, 5))
    y = np.where(X[:, 0] ^ X[:, 1], "yes", "no")
    solver = Solver(X, y)
    solution = solver.solve(max_depth=2)
    # class indices, positions in classes_ (as documented), not the labels
    assert set(solution.predict(X).tolist()) <= {0.0, 1.0}
    assert (solver.classes_[solution.predict(X).astype(int)] == y).all()
    for wrong in (X[:, :4], np.hstack([X, X[:, :1]])):
        with pytest.raises(ValueError, match="columns"):
            solution.predict(wrong)
    with pytest.raises(ValueError, match="NaN"):
        solution.predict(np.where(X == 1, np.nan, 0.0))
    with pytest.raises(ValueError, match="only 0 and 1"):
        solution.predict(X * 2)
    with pytest.raises(ValueError, match="max_depth"):
        solver.solve(max_depth=-1)
    with pytest.raises(ValueError, match="min_samples_leaf"):
        solver.solve(min_samples_leaf=0)


def test_the_solver_checks_a_wide_uint8_matrix_without_widening_it():
    X = np.zeros((20_000, 500), dtype=np.uint8)
    X[::2, 0] = 1
    import tracemalloc

    tracemalloc.start()
    Solver(X, X[:, 0])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 * X.nbytes  # an int64 copy alone would be 8 times X
