"""OptimalTreeCV against GridSearchCV, and the exact cost-complexity path against brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from odtree import OptimalTreeClassifier, OptimalTreeCV, Solver
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.utils.estimator_checks import parametrize_with_checks

LEAVES = [2, 3, 4, 5, 8, None]


def _assert_same_as_grid_search(search: OptimalTreeCV, X, y, leaves=LEAVES):
    template = search.estimator if search.estimator is not None else OptimalTreeClassifier()
    grid = {"max_depth": list(search.depths)}
    if leaves is not None:
        grid["max_leaf_nodes"] = leaves
    reference = GridSearchCV(template, grid, cv=search.cv, scoring=search.scoring).fit(X, y)
    search.fit(X, y)
    assert search.cv_results_["params"] == reference.cv_results_["params"]
    for split in range(search.n_splits_):
        name = f"split{split}_test_score"
        np.testing.assert_array_equal(search.cv_results_[name], reference.cv_results_[name])
    for name in ("mean_test_score", "std_test_score", "rank_test_score"):
        np.testing.assert_array_equal(search.cv_results_[name], reference.cv_results_[name])
    assert search.best_params_ == reference.best_params_
    assert search.best_index_ == reference.best_index_
    assert search.best_score_ == reference.best_score_
    np.testing.assert_array_equal(search.predict(X), reference.predict(X))
    np.testing.assert_array_equal(search.predict_proba(X), reference.predict_proba(X))
    assert search.score(X, y) == pytest.approx(reference.score(X, y))
    return search


@pytest.mark.parametrize("loader, depths", [(load_iris, (1, 2, 3)), (load_wine, (1, 2, 3)),
                                            (load_breast_cancer, (1, 2))])
def test_same_scores_as_grid_search(loader, depths):
    X, y = loader(return_X_y=True)
    search = _assert_same_as_grid_search(OptimalTreeCV(depths=depths, max_leaf_nodes=LEAVES),
                                         X, y)
    # grid points of the same limits share one search
    assert search.n_searches_ < len(search.cv_results_["params"]) * search.n_splits_


@pytest.mark.parametrize("name", ["vote", "hepatitis", "heart-cleveland"])
def test_same_scores_as_grid_search_on_shared_data(load, name):
    X, y = load(name)
    _assert_same_as_grid_search(OptimalTreeCV(depths=(1, 2, 3), max_leaf_nodes=LEAVES), X, y)


def test_same_as_grid_search_with_a_template_a_scorer_and_a_splitter():
    X, y = load_wine(return_X_y=True)
    template = OptimalTreeClassifier(min_samples_leaf=5, thresholds="midpoints",
                                     ccp_alpha=0.01)
    search = OptimalTreeCV(depths=(2, 1), max_leaf_nodes=[4, 2, 3], estimator=template,
                           scoring="balanced_accuracy",
                           cv=KFold(4, shuffle=True, random_state=0))
    _assert_same_as_grid_search(search, X, y, leaves=[4, 2, 3])
    assert search.best_estimator_.min_samples_leaf == 5


def test_depths_only():
    X, y = load_iris(return_X_y=True)
    search = _assert_same_as_grid_search(OptimalTreeCV(depths=(1, 2, 3), cv=3), X, y,
                                         leaves=None)
    assert "param_max_leaf_nodes" not in search.cv_results_


def test_parallel_folds_give_the_same_results():
    X, y = load_wine(return_X_y=True)
    one = OptimalTreeCV(depths=(1, 2), max_leaf_nodes=[2, 3, None], n_jobs=1).fit(X, y)
    two = OptimalTreeCV(depths=(1, 2), max_leaf_nodes=[2, 3, None], n_jobs=2).fit(X, y)
    for name in ("mean_test_score", "std_test_score", "rank_test_score", "split0_test_score"):
        np.testing.assert_array_equal(one.cv_results_[name], two.cv_results_[name])
    assert one.best_params_ == two.best_params_


def test_refit_false_keeps_the_results_but_cannot_predict():
    X, y = load_iris(return_X_y=True)
    search = OptimalTreeCV(depths=(1, 2), refit=False, cv=3).fit(X, y)
    assert search.best_params_ == {"max_depth": 2}
    assert not hasattr(search, "best_estimator_")
    with pytest.raises(AttributeError, match="refit=False"):
        search.predict(X)


def test_plot_cv_curve():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    X, y = load_iris(return_X_y=True)
    search = OptimalTreeCV(depths=(1, 2), max_leaf_nodes=[2, 3, None], cv=3).fit(X, y)
    ax = search.plot_cv_curve()
    assert len(ax.get_legend().get_texts()) == 2  # one line per depth
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2", "3", "none"]


@pytest.mark.parametrize("params, message", [
    ({"depths": []}, "depths is empty"),
    ({"depths": [0, 1]}, "at least 1"),
    ({"depths": [1.5]}, "integers"),
    ({"max_leaf_nodes": []}, "max_leaf_nodes is empty"),
    ({"max_leaf_nodes": [1]}, "at least 2"),
])
def test_bad_grids_are_explained(params, message):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        OptimalTreeCV(**params).fit(X, y)


def test_bad_template_is_rejected():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="estimator"):
        OptimalTreeCV(estimator="tree").fit(X, y)


# every check passes: a training fold that sees only 0 and 1 in a column holding 2 in its
# test fold routes the 2 (a 0/1 column is tested at 0.5)
@parametrize_with_checks([OptimalTreeCV(depths=(1, 2), max_leaf_nodes=[2, None], cv=3)])
def test_sklearn_compatible(estimator, check, monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")  # else check_array_api_input is skipped
    check(estimator)


# the exact cost-complexity path


def _errors_by_leaves(X, y, depth, weight=None):
    """e(k) for every k = 1 .. 2**depth by solving each budget."""
    solver = Solver(X, y)
    return np.array([solver.solve(weight, max_depth=depth, max_leaf_nodes=k).objective
                     for k in range(1, 2**depth + 1)])


def _check_path(X, y, depth, weight=None):
    path = OptimalTreeClassifier(max_depth=depth).cost_complexity_pruning_path(X, y, weight)
    total = len(y) if weight is None else float(np.sum(weight))
    rates = _errors_by_leaves(X, y, depth, weight) / total
    leaves = np.arange(1, len(rates) + 1)
    assert path.ccp_alphas[0] == 0.0 and np.all(np.diff(path.ccp_alphas) > 0)
    assert path.n_leaves[-1] == 1 and np.all(np.diff(path.n_leaves) < 0)
    # brute force over alphas: below, between and beyond every breakpoint
    breaks = np.append(path.ccp_alphas, path.ccp_alphas[-1] * 2 + 0.1)
    probes = np.concatenate([(breaks[:-1] + breaks[1:]) / 2, np.linspace(0, breaks[-1], 25)])
    for alpha in probes:
        best = np.min(rates + alpha * leaves)
        i = np.searchsorted(path.ccp_alphas, alpha, side="right") - 1
        on_path = path.impurities[i] + alpha * path.n_leaves[i]
        assert on_path == pytest.approx(best, abs=1e-9)
        np.testing.assert_allclose(rates[path.n_leaves[i] - 1], path.impurities[i],
                                   atol=1e-12)
    return path, total


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 3), st.booleans())
def test_path_against_brute_force(seed, depth, weighted):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(40, 6))
    y = (X[:, 0] ^ X[:, 1] | (rng.random(40) < 0.2)).astype(int) + (X[:, 2] & X[:, 3])
    weight = rng.uniform(0.5, 2.0, size=40) if weighted else None
    _check_path(X, y, depth, weight)


@pytest.mark.parametrize("name, depth", [("vote", 3), ("hepatitis", 3)])
def test_path_alphas_agree_with_fitted_ccp_alpha(load, name, depth):
    X, y = load(name)
    path, total = _check_path(X, y, depth)
    assert len(path.ccp_alphas) > 2
    breaks = np.append(path.ccp_alphas, path.ccp_alphas[-1] * 2)
    for i, alpha in enumerate((breaks[:-1] + breaks[1:]) / 2):
        model = OptimalTreeClassifier(max_depth=depth, ccp_alpha=alpha).fit(X, y)
        n_leaves = model.get_n_leaves()
        rate = (model.objective_ - alpha * total * n_leaves) / total
        assert rate == pytest.approx(path.impurities[i], abs=1e-9)
        assert n_leaves == path.n_leaves[i]


def test_path_needs_a_bound_on_the_leaves():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="max_depth or max_leaf_nodes"):
        OptimalTreeClassifier(max_depth=None).cost_complexity_pruning_path(X, y)


def test_path_respects_max_leaf_nodes():
    X, y = load_iris(return_X_y=True)
    path = OptimalTreeClassifier(max_depth=3, max_leaf_nodes=3).cost_complexity_pruning_path(
        X, y)
    assert path.n_leaves.tolist() == [3, 2, 1]


def test_same_as_grid_search_with_a_criterion_that_is_no_sum():
    X, y = load_breast_cancer(return_X_y=True)
    template = OptimalTreeClassifier(criterion="f1", n_thresholds=3)
    search = OptimalTreeCV(depths=(1, 2), max_leaf_nodes=[2, 3, None], estimator=template,
                           scoring="f1")
    _assert_same_as_grid_search(search, X, y, leaves=[2, 3, None])
    with pytest.raises(ValueError, match="criterion='misclassification'"):
        template.cost_complexity_pruning_path(X, y)


@pytest.mark.parametrize("scoring", [None, "balanced_accuracy"])
def test_same_as_grid_search_on_a_dataframe_with_weights(scoring):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 120
    X = pd.DataFrame({"age": rng.normal(40, 10, n),
                      "colour": pd.Categorical(rng.choice(["red", "green", "blue"], n)),
                      "flag": rng.integers(0, 2, n)})
    y = np.where((X.age > 40) ^ (X.colour == "red"), "yes", "no")
    y[rng.random(n) < 0.1] = "maybe"
    weight = rng.uniform(0.5, 2.0, n)
    grid = {"max_depth": [1, 2, 3], "max_leaf_nodes": [2, 3, 5, None]}
    search = OptimalTreeCV(depths=grid["max_depth"], max_leaf_nodes=grid["max_leaf_nodes"],
                           scoring=scoring)
    search.fit(X, y, sample_weight=weight)
    reference = GridSearchCV(OptimalTreeClassifier(), grid, scoring=scoring)
    reference.fit(X, y, sample_weight=weight)
    for name in ("split0_test_score", "split4_test_score", "mean_test_score",
                 "rank_test_score"):
        np.testing.assert_array_equal(search.cv_results_[name], reference.cv_results_[name])
    assert search.best_params_ == reference.best_params_
    assert search.feature_names_in_.tolist() == ["age", "colour", "flag"]
    np.testing.assert_array_equal(search.predict(X), reference.predict(X))


def test_class_weight_reaches_every_refit():
    """The folds' refits weigh rows as fit does: class_weight included."""
    X, y = load_breast_cancer(return_X_y=True)
    grid = {"max_depth": [1, 2], "max_leaf_nodes": [2, 3]}
    template = OptimalTreeClassifier(class_weight="balanced")
    ours = OptimalTreeCV(depths=(1, 2), max_leaf_nodes=[2, 3], cv=3, estimator=template).fit(X, y)
    theirs = GridSearchCV(template, grid, cv=3).fit(X, y)
    assert ours.best_params_ == theirs.best_params_
    np.testing.assert_array_equal(ours.cv_results_["mean_test_score"],
                                  theirs.cv_results_["mean_test_score"])
