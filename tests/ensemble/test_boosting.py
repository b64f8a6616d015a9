"""Optimal forests: LPBoost and MDBoost by column generation, checked against the
thesis's toy oracle and against the masters solved over every distinct tree."""

import pickle

import numpy as np
import pytest
from odtree import LPBoostClassifier, MDBoostClassifier, OptimalTreeClassifier, from_json
from odtree.ensemble._boosting import _Pricer
from odtree.exceptions import NotOptimalWarning
from scipy.optimize import linprog
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

TOY = "011 0,101 1,001 1,010 0,100 1,000 0,001 0,110 1,000 1,001 0,000 1".split(",")
X = np.array([[int(c) for c in row.split()[0]] for row in TOY])
y = np.array([int(row.split()[1]) for row in TOY])
#: The instance weights of thesis §6.4.1 (spec §3.5), in the rows' order.
THESIS_WEIGHTS = np.array([0.05, 0.06, 0.33, 0.02, 0.09, 0.02, 0.22, 0.04, 0.02, 0.08, 0.07])


def predictions(X, n_classes, depth):
    """Every prediction vector of a tree of at most ``depth`` on the 0/1 rows ``X``."""
    if depth == 0:
        return {(c,) * len(X) for c in range(n_classes)}
    found = predictions(X, n_classes, 0)
    for feature in range(X.shape[1]):
        right = X[:, feature] == 1
        if right.all() or not right.any():
            continue
        for left_part in predictions(X[~right], n_classes, depth - 1):
            for right_part in predictions(X[right], n_classes, depth - 1):
                vector = np.empty(len(X), dtype=int)
                vector[~right], vector[right] = left_part, right_part
                found.add(tuple(vector))
    return found


def all_columns(X, y, depth):
    """The +1/-1 "right or wrong" column of every distinct tree."""
    n_classes = len(np.unique(y))
    return np.array(sorted({tuple(np.where(np.array(p) == y, 1.0, -1.0))
                            for p in predictions(X, n_classes, depth)})).T


def lpboost_optimum(Z, D):
    """max rho - D sum xi  s.t.  Z w + xi >= rho, sum w = 1, w, xi >= 0 (scipy's HiGHS)."""
    m, t = Z.shape
    # variables: w (t), xi (m), rho
    cost = np.concatenate([np.zeros(t), np.full(m, D), [-1.0]])
    rows = np.hstack([-Z, -np.eye(m), np.ones((m, 1))])
    equal = np.concatenate([np.ones(t), np.zeros(m), [0.0]])[np.newaxis]
    bounds = [(0, None)] * (t + m) + [(None, None)]
    result = linprog(cost, A_ub=rows, b_ub=np.zeros(m), A_eq=equal, b_eq=[1.0], bounds=bounds)
    return -result.fun


def demiriz_optimum(Z, D):
    """min sum a + D sum xi  s.t.  Z a + xi >= 1, a, xi >= 0."""
    m, t = Z.shape
    cost = np.concatenate([np.ones(t), np.full(m, D)])
    rows = -np.hstack([Z, np.eye(m)])
    return linprog(cost, A_ub=rows, b_ub=-np.ones(m), bounds=[(0, None)] * (t + m)).fun


def mdboost_optimum(Z, D, steps=20000):
    """MDBoost's optimum over the columns Z by projected gradient ascent."""
    m, t = Z.shape
    A = (np.eye(m) * m - np.ones((m, m))) / (m - 1)
    w = np.full(t, D / t)
    rate = 0.5 / np.linalg.norm(Z.T @ A @ Z, 2)
    for _ in range(steps):
        w = w + rate * (Z.T @ (np.ones(m) - A @ (Z @ w)))
        u = np.sort(w)[::-1]  # projection on the simplex of sum D
        css = np.cumsum(u) - D
        k = np.nonzero(u - css / np.arange(1, t + 1) > 0)[0][-1]
        w = np.maximum(w - css[k] / (k + 1), 0)
    rho = Z @ w
    return rho.sum() - rho @ A @ rho / 2


def random_problem(seed, n_classes, n_rows=12, n_features=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n_rows, n_features))
    y = np.arange(n_rows) % n_classes
    rng.shuffle(y)
    return X, y


@pytest.mark.parametrize("depth, D, optimum", [
    (1, 0.125, 0.25), (2, 0.125, 0.30), (1, 0.25, 0.0), (2, 0.5, 0.0), (1, 1.0, 0.0),
    (2, 1.0, 0.0),
])
def test_lpboost_reaches_the_thesis_optimum(depth, D, optimum):
    forest = LPBoostClassifier(D=D, max_depth=depth).fit(X, y)
    assert forest.optimal_
    assert forest.objective_ == pytest.approx(optimum, abs=1e-7)
    assert forest.lower_bound_ == pytest.approx(optimum, abs=1e-7)
    assert forest.upper_bound_ == pytest.approx(optimum, abs=1e-6)
    assert forest.estimator_weights_.sum() == pytest.approx(1.0)
    assert np.all(forest.estimator_weights_ > 0)
    # rho - D sum xi, with rho the soft minimum margin: xi_i = max(0, rho - margin_i)
    margins = forest.margins_
    best = max(rho - D * np.maximum(0, rho - margins).sum() for rho in margins)
    assert best == pytest.approx(optimum, abs=1e-7)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("depth", [1, 2])
def test_every_model_matches_its_master_over_every_tree(seed, n_classes, depth):
    Xr, yr = (X, y) if seed == 0 and n_classes == 2 else random_problem(seed, n_classes)
    Z = all_columns(Xr, yr, depth)
    lp = LPBoostClassifier(D=0.2, max_depth=depth).fit(Xr, yr)
    assert lp.optimal_ and lp.objective_ == pytest.approx(lpboost_optimum(Z, 0.2), abs=1e-7)
    demiriz = LPBoostClassifier(D=0.3, max_depth=depth, form="demiriz").fit(Xr, yr)
    assert demiriz.optimal_
    assert demiriz.objective_ == pytest.approx(demiriz_optimum(Z, 0.3), rel=1e-7)
    assert demiriz.lower_bound_ == pytest.approx(demiriz.objective_, rel=1e-6)
    md = MDBoostClassifier(D=2.0, max_depth=depth).fit(Xr, yr)
    assert md.optimal_ and md.estimator_weights_.sum() == pytest.approx(2.0, rel=1e-6)
    assert md.objective_ == pytest.approx(mdboost_optimum(Z, 2.0), rel=1e-4)
    assert md.upper_bound_ == pytest.approx(md.objective_, rel=1e-5)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_pricing_finds_the_largest_edge_for_weights_of_either_sign(n_classes, seed):
    Xr, yr = random_problem(seed + 10, n_classes)
    u = np.random.default_rng(seed).normal(size=len(yr))
    Z = all_columns(Xr, yr, 2)
    for forest in (LPBoostClassifier(max_depth=2), MDBoostClassifier(max_depth=2)):
        forest.fit(Xr, yr)  # sets the classes and the binarizer the pricer reads
        binary = forest.binarizer_.transform(Xr).astype(np.uint8)
        pricer = _Pricer(forest, forest._template(), binary, yr)
        weights = u if forest._signed else np.abs(u)
        member, correct, edge, most = pricer.price(weights, None)
        assert member.optimal_
        assert edge == pytest.approx((weights @ Z).max(), abs=1e-9)
        assert most == pytest.approx(edge, abs=1e-9)
        assert edge == pytest.approx(weights @ np.where(correct, 1.0, -1.0))


def test_optimal_pricing_beats_cart_on_the_thesis_weights():
    """Thesis §6.4.1: CART's depth-1 tree has weighted error 0.39, the optimal one 0.36."""
    for pricing, error in (("greedy", 0.39), ("optimal", 0.36)):
        forest = LPBoostClassifier(max_depth=1, pricing=pricing).fit(X, y)
        binary = forest.binarizer_.transform(X).astype(np.uint8)
        pricer = _Pricer(forest, forest._template(), binary, y)
        _, _, edge, _ = pricer.price(THESIS_WEIGHTS, None)
        assert edge == pytest.approx(THESIS_WEIGHTS.sum() - 2 * error)


def test_greedy_pricing_proves_nothing():
    forest = MDBoostClassifier(max_depth=1, pricing="greedy").fit(X, y)
    assert not forest.optimal_
    assert all(member.status_ == "heuristic" for member in forest.estimators_)
    optimal = MDBoostClassifier(max_depth=1).fit(X, y)
    assert forest.objective_ <= optimal.objective_ + 1e-9
    assert forest.lower_bound_ <= optimal.objective_ <= forest.upper_bound_ + 1e-9


@pytest.mark.parametrize("forest", [LPBoostClassifier(D=0.2, max_depth=2),
                                    MDBoostClassifier(D=3.0, max_depth=2)])
def test_a_capped_run_brackets_the_optimum(forest):
    Xr, yr = random_problem(5, 3, n_rows=40, n_features=5)
    optimum = forest.fit(Xr, yr).objective_
    capped = forest.set_params(max_iterations=2).fit(Xr, yr)
    assert not capped.optimal_ and capped.n_iter_ == 2
    assert capped.lower_bound_ - 1e-9 <= optimum <= capped.upper_bound_ + 1e-9
    assert [step.added for step in capped.log_] == [True, True]


def test_members_are_fitted_tree_classifiers_on_the_forest_input():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.integers(20, 70, 60), "colour": rng.choice(
        ["red", "green", "blue"], 60)})
    labels = np.where((frame.age > 40) ^ (frame.colour == "red"), "yes", "no")
    forest = MDBoostClassifier(max_depth=2).fit(frame, labels)
    assert list(forest.feature_names_in_) == ["age", "colour"]
    votes = np.zeros((60, 2))
    for member, weight in zip(forest.estimators_, forest.estimator_weights_, strict=True):
        assert isinstance(member, OptimalTreeClassifier) and member.max_depth == 2
        votes[np.arange(60), np.searchsorted(forest.classes_, member.predict(frame))] += weight
    assert np.allclose(votes / votes.sum(axis=1, keepdims=True), forest.predict_proba(frame))
    assert set(forest.predict(frame)) <= {"yes", "no"}


@pytest.mark.parametrize("forest", [LPBoostClassifier(D=0.1, max_depth=2),
                                    LPBoostClassifier(form="demiriz", D=2.0),
                                    MDBoostClassifier(max_depth=2),
                                    MDBoostClassifier(pricing="greedy")])
def test_json_and_pickle_give_back_the_whole_forest(forest):
    Xr, yr = random_problem(3, 3, n_rows=50, n_features=6)
    forest.fit(Xr, yr)
    for copy in (from_json(forest.to_json()), pickle.loads(pickle.dumps(forest))):
        assert type(copy) is type(forest) and copy.get_params(deep=False).keys() == \
            forest.get_params(deep=False).keys()
        assert np.array_equal(copy.predict_proba(Xr), forest.predict_proba(Xr))
        assert np.array_equal(copy.estimator_weights_, forest.estimator_weights_)
        assert np.array_equal(copy.margins_, forest.margins_)
        for name in ("objective_", "lower_bound_", "upper_bound_", "optimal_", "n_iter_"):
            assert getattr(copy, name) == getattr(forest, name)
        assert copy.log_ == forest.log_
        assert [m.status_ for m in copy.estimators_] == [m.status_ for m in forest.estimators_]
        for loaded, member in zip(copy.estimators_, forest.estimators_, strict=True):
            assert np.array_equal(loaded.predict_proba(Xr), member.predict_proba(Xr))
    assert forest.estimators_ or isinstance(forest, LPBoostClassifier)


def test_a_template_estimator_sets_the_search_and_json_keeps_it():
    template = OptimalTreeClassifier(search="dl85", cache="hash", max_depth=5)
    forest = LPBoostClassifier(D=0.2, max_depth=2, estimator=template).fit(X, y)
    plain = LPBoostClassifier(D=0.2, max_depth=2).fit(X, y)
    assert forest.objective_ == pytest.approx(plain.objective_, abs=1e-9) and forest.optimal_
    assert all(m.search == "dl85" and m.max_depth == 2 for m in forest.estimators_)
    assert template.max_depth == 5  # the template is cloned, not changed
    assert from_json(forest.to_json()).estimator.get_params() == template.get_params()


def test_decision_function_agrees_with_predict():
    for Xr, yr in (random_problem(1, 2, 40, 5), random_problem(1, 3, 40, 5)):
        forest = MDBoostClassifier(max_depth=2).fit(Xr, yr)
        decision = forest.decision_function(Xr)
        if decision.ndim == 1:
            assert np.array_equal(forest.classes_[(decision > 0).astype(int)], forest.predict(Xr))
        else:
            assert np.array_equal(forest.classes_[decision.argmax(axis=1)], forest.predict(Xr))


@pytest.mark.parametrize("forest, message", [
    (LPBoostClassifier(D=0.05), "below 1/n_samples"),
    (LPBoostClassifier(D=1.5), "at most 1"),
    (LPBoostClassifier(D=1 / 11, form="demiriz"), "must exceed 1/n_samples"),
    (MDBoostClassifier(estimator=OptimalTreeClassifier(ccp_alpha=0.1)), "ccp_alpha"),
    (MDBoostClassifier(estimator=OptimalTreeClassifier(cost_matrix=[[0, 1], [2, 0]])),
     "cost_matrix"),
])
def test_bad_settings_get_a_clear_error(forest, message):
    with pytest.raises(ValueError, match=message):
        forest.fit(X, y)


def test_bad_input_gets_a_clear_error():
    with pytest.raises(ValueError, match="two classes"):
        MDBoostClassifier().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="NaN"):
        LPBoostClassifier().fit(np.where(X == 0, np.nan, X), y)
    with pytest.raises(TypeError, match="OptimalTreeClassifier"):
        MDBoostClassifier(estimator=LPBoostClassifier()).fit(X, y)
    with pytest.raises(NotFittedError):
        LPBoostClassifier().predict(X)


def test_a_spent_time_limit_gives_an_empty_unproven_forest():
    forest = MDBoostClassifier(time_limit=0).fit(X, y)
    assert not forest.optimal_ and forest.n_iter_ == 0 and len(forest.estimators_) == 0
    assert forest.predict(X).shape == y.shape
    assert np.isnan(forest.objective_) and forest.upper_bound_ == np.inf


def test_the_first_solver_does_not_print_the_highs_banner(capfd):
    from odtree.ensemble import _master

    _master._banner_shown = False
    LPBoostClassifier().fit(X, y)
    assert "HiGHS" not in capfd.readouterr().out


@parametrize_with_checks([LPBoostClassifier(), MDBoostClassifier(),
                          LPBoostClassifier(form="demiriz", D=1.0)])
def test_scikit_learn_compatible(estimator, check):
    check(estimator)


def test_ctrl_c_in_a_pricing_returns_the_forest_so_far(monkeypatch):
    """The engine turns Ctrl-C into an "interrupted" tree: the forest stops there."""
    from odtree._search.solver import Solver

    solve, calls = Solver.solve, []

    def interrupted_second(self, *args, **kwargs):
        solution = solve(self, *args, **kwargs)
        calls.append(1)
        if len(calls) == 2:
            solution.status = "interrupted"
        return solution

    monkeypatch.setattr(Solver, "solve", interrupted_second)
    forest = MDBoostClassifier(max_depth=2).fit(X, y)
    assert len(calls) == 2 and forest.n_iter_ == 1 and not forest.optimal_


def test_a_forest_stopped_before_its_first_tree_says_so():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.warns(NotOptimalWarning, match="forest is empty"):
        LPBoostClassifier(max_depth=1, time_limit=0).fit(X, y)
