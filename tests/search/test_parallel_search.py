"""The search on several threads (``n_jobs``): the tree a single thread finds, the limits of
the whole search, and scikit-learn's convention for ``n_jobs``."""

import time

import joblib
import numpy as np
import pytest
from odtree import OptimalTreeClassifier, OptimalTreeRegressor, Solver, export_text
from odtree.datasets import load_benchmark


def _tree_arrays(model):
    tree = model.tree_
    return (tree.feature.tolist(), tree.children_left.tolist(), tree.value.ravel().tolist())


@pytest.mark.parametrize("name,depth", [("anneal", 3), ("vote", 4), ("heart-cleveland", 3)])
def test_threads_give_the_tree_of_one(name, depth):
    X, y = load_benchmark(name)
    one = OptimalTreeClassifier(max_depth=depth).fit(X, y)
    for n_jobs in (2, 4, -1):
        many = OptimalTreeClassifier(max_depth=depth, n_jobs=n_jobs).fit(X, y)
        assert many.objective_ == one.objective_
        assert _tree_arrays(many) == _tree_arrays(one)
        assert many.status_ == "optimal"


@pytest.mark.parametrize("name,settings", [
    ("vote", dict(ccp_alpha=0.005)),
    ("anneal", dict(lexicographic=True)),
    ("tic-tac-toe", dict(ccp_alpha=0.002, lexicographic=True)),
])
def test_threads_break_ties_as_one_with_a_penalty_or_the_leaf_count(name, settings):
    """At depth 4 the first trees solve the root to depth 3 before the proof; the subtrees
    they leave decide ties between trees of equal cost, so they run on one thread."""
    X, y = load_benchmark(name)
    one = OptimalTreeClassifier(max_depth=4, **settings).fit(X, y)
    for n_jobs in (2, 4):
        many = OptimalTreeClassifier(max_depth=4, n_jobs=n_jobs, **settings).fit(X, y)
        assert many.objective_ == one.objective_
        assert _tree_arrays(many) == _tree_arrays(one)


def test_threads_under_node_limits_penalty_and_weights():
    X, y = load_benchmark("heart-cleveland")
    weights = np.random.default_rng(0).integers(1, 4, len(y)).astype(float)
    settings = dict(max_depth=3, max_leaf_nodes=5, ccp_alpha=0.002)
    one = OptimalTreeClassifier(**settings).fit(X, y, sample_weight=weights)
    many = OptimalTreeClassifier(**settings, n_jobs=4).fit(X, y, sample_weight=weights)
    assert many.objective_ == one.objective_
    assert _tree_arrays(many) == _tree_arrays(one)


def test_threads_for_regression():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (300, 12))
    y = X[:, 0] * 3.0 + X[:, 3] * X[:, 5] + rng.normal(0, 0.1, 300)
    one = OptimalTreeRegressor(max_depth=3).fit(X, y)
    many = OptimalTreeRegressor(max_depth=3, n_jobs=2).fit(X, y)
    assert many.objective_ == pytest.approx(one.objective_, rel=1e-12)
    assert _tree_arrays(many)[0] == _tree_arrays(one)[0]


def test_a_joblib_context_sets_the_threads():
    X, y = load_benchmark("vote")
    solver = Solver(X, y)
    with joblib.parallel_config(n_jobs=2):
        inside = solver.solve(max_depth=3)
    assert inside.objective == solver.solve(max_depth=3, n_jobs=1).objective


@pytest.mark.parametrize("n_jobs", [0, 1.5, True, "2"])
def test_bad_thread_counts_are_refused(n_jobs):
    X, y = load_benchmark("vote")
    with pytest.raises((ValueError, TypeError)):
        Solver(X, y).solve(max_depth=2, n_jobs=n_jobs)
    with pytest.raises((ValueError, TypeError)):
        OptimalTreeClassifier(max_depth=2, n_jobs=n_jobs).fit(X, y)


def test_the_time_limit_holds_for_every_thread():
    X, y = load_benchmark("kr-vs-kp")
    start = time.perf_counter()
    model = OptimalTreeClassifier(max_depth=7, time_limit=1.0, n_jobs=-1).fit(X, y)
    assert time.perf_counter() - start < 4.0
    assert model.status_ == "time_limit"
    assert model.objective_ >= model.lower_bound_


@pytest.mark.parametrize("depth,limit", [(4, {"max_cache_entries": 1000}),
                                         (5, {"memory_limit": "5MB"})])
def test_threads_share_a_memory_limit_and_wipe_within_it(depth, limit):
    X, y = load_benchmark("anneal")
    one = OptimalTreeClassifier(max_depth=depth, **limit).fit(X, y)
    many = OptimalTreeClassifier(max_depth=depth, n_jobs=2, **limit).fit(X, y)
    assert many.status_ == one.status_ == "optimal"
    assert many.objective_ == one.objective_
    assert _tree_arrays(many) == _tree_arrays(one)
    assert many.n_wipes_ > 0
    if "max_cache_entries" in limit:
        assert many.cache_peak_entries_ <= 1000
    else:
        assert many.cache_peak_bytes_ <= 5 * 10**6


def test_threads_in_the_other_estimators():
    """The clusterer's search takes threads; a forest's pricing takes its estimator's."""
    from odtree import LPBoostClassifier, OptimalTreeClusterer

    X, y = load_benchmark("vote")
    one = OptimalTreeClusterer(max_depth=3).fit(X)
    many = OptimalTreeClusterer(max_depth=3, n_jobs=2).fit(X)
    np.testing.assert_array_equal(many.labels_, one.labels_)
    assert many.objective_ == pytest.approx(one.objective_, rel=1e-12)
    forests = [LPBoostClassifier(max_depth=2, max_iterations=4,
                                 estimator=OptimalTreeClassifier(n_jobs=n_jobs)).fit(X, y)
               for n_jobs in (1, 2)]
    np.testing.assert_allclose(forests[1].estimator_weights_, forests[0].estimator_weights_)
    np.testing.assert_array_equal(forests[1].predict(X), forests[0].predict(X))


def test_threads_in_the_search_over_every_threshold():
    """``thresholds="exact"`` tries the root's columns on the threads: the tree of one thread
    for classification (costs are counts, so ties are exact), the same cost for regression,
    and a memory limit shared out among the threads."""
    from odtree.datasets import load_continuous

    X, y = load_continuous("wilt")
    one = OptimalTreeClassifier(max_depth=3, thresholds="exact").fit(X, y)
    for n_jobs in (2, 4):
        many = OptimalTreeClassifier(max_depth=3, thresholds="exact", n_jobs=n_jobs).fit(X, y)
        assert many.status_ == "optimal"
        assert many.objective_ == one.objective_
        assert export_text(many) == export_text(one)  # the thresholds too
    limited = OptimalTreeClassifier(max_depth=3, thresholds="exact", max_cache_entries=60,
                                    n_jobs=2).fit(X, y)
    assert limited.status_ == "optimal"
    assert export_text(limited) == export_text(one)
    assert limited.cache_peak_entries_ <= 60
    assert limited.n_wipes_ > 0
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    X, y = X[:150], y[:150]
    costs = [OptimalTreeRegressor(max_depth=3, thresholds="exact", n_jobs=n_jobs).fit(X, y)
             .objective_ for n_jobs in (1, 2)]
    assert costs[1] == pytest.approx(costs[0], rel=1e-9)


def test_the_time_limit_holds_for_every_thread_over_every_threshold():
    from odtree.datasets import load_continuous

    X, y = load_continuous("fault")
    start = time.perf_counter()
    model = OptimalTreeClassifier(max_depth=4, thresholds="exact", time_limit=1.0,
                                  n_jobs=-1).fit(X, y)
    assert time.perf_counter() - start < 4.0
    assert model.status_ == "time_limit"
    assert model.objective_ >= model.lower_bound_


@pytest.mark.parametrize("name,depth", [("mushroom", 3), ("vote", 4), ("heart-cleveland", 3)])
def test_threads_give_the_pareto_front_and_tree_of_one(name, depth):
    """``pareto_front=True`` shares the root's splits out: the same front and tree (mushroom
    has a split with no error, after which one thread stops)."""
    X, y = load_benchmark(name)
    one = OptimalTreeClassifier(max_depth=depth, criterion="f1", pareto_front=True).fit(X, y)
    for n_jobs in (2, 4):
        many = OptimalTreeClassifier(max_depth=depth, criterion="f1", pareto_front=True,
                                     n_jobs=n_jobs).fit(X, y)
        assert many.status_ == "optimal"
        np.testing.assert_array_equal(many.pareto_front_, one.pareto_front_)
        assert _tree_arrays(many) == _tree_arrays(one)


def test_the_time_limit_holds_for_every_thread_of_the_pareto_fronts():
    X, y = load_benchmark("kr-vs-kp")
    start = time.perf_counter()
    model = OptimalTreeClassifier(max_depth=6, criterion="f1", pareto_front=True,
                                  time_limit=1.0, n_jobs=-1).fit(X, y)
    assert time.perf_counter() - start < 4.0
    assert model.status_ == "time_limit"
    assert np.all(np.diff(model.pareto_front_[:, 0]) > 0)  # a front of real trees
