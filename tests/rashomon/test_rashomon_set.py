"""The Rashomon set against brute force over every tree of small data: its size, its sorted
objectives, the columns' usage and removal loss; and the set as an estimator."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from odtree import (
    NotOptimalWarning,
    OptimalTreeClassifier,
    OptimalTreeRegressor,
    RashomonSet,
    RashomonSetRegressor,
    from_json,
    to_json,
)


def every_tree(X, y, weight, depth, penalty, columns, trivial_splits=True):
    """(cost, features used) of every tree of depth <= ``depth`` over the rows of X, splits on
    ``columns`` leaving rows on both sides, leaves predicting their heaviest class (ties to
    the lowest); without ``trivial_splits``, no split whose two leaves predict one class."""
    classes = np.unique(y)

    def trees(rows, depth):
        # (cost, features used, the class when the tree is a leaf)
        by_class = [weight[rows][y[rows] == c].sum() for c in classes]
        found = [(sum(by_class) - max(by_class) + penalty, frozenset(), int(np.argmax(by_class)))]
        if depth:
            for f in columns:
                ones = X[rows, f] == 1
                if ones.all() or not ones.any():
                    continue
                for a, used_a, leaf_a in trees(rows[~ones], depth - 1):
                    for b, used_b, leaf_b in trees(rows[ones], depth - 1):
                        if not trivial_splits and leaf_a is not None and leaf_a == leaf_b:
                            continue
                        found.append((a + b, used_a | used_b | {f}, None))
        return found

    return [(cost, used) for cost, used, _ in trees(np.arange(len(y)), depth)]


@st.composite
def tiny(draw):
    n_rows = draw(st.integers(2, 10))
    n_columns = draw(st.integers(1, 4))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=n_columns,
                                        max_size=n_columns), min_size=n_rows,
                               max_size=n_rows)))
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=n_rows, max_size=n_rows)))
    weight = np.array(draw(st.lists(st.sampled_from([1.0, 2.0, 0.5, 3.0]), min_size=n_rows,
                                    max_size=n_rows)))
    return X, y, weight, draw(st.integers(0, 2)), draw(st.sampled_from([0.0, 0.01, 0.1])), \
        draw(st.sampled_from([0.0, 0.05, 0.3, 1.0]))


def _two_classes(y):
    """``y``, with its first label changed when it holds one class only."""
    if len(np.unique(y)) < 2:
        y = y.copy()
        y[0] = (y[0] + 1) % 3
    return y


def _varying(X):
    """The columns holding both 0 and 1 (the only ones a split can use)."""
    return [j for j in range(X.shape[1]) if 0 < X[:, j].sum() < len(X)]


@settings(max_examples=300, deadline=None)
@given(tiny())
def test_without_trivial_splits_the_set_is_brute_force_s(case):
    X, y, weight, depth, alpha, epsilon = case
    y = _two_classes(y)
    found = RashomonSet(max_depth=depth, ccp_alpha=alpha, epsilon=epsilon, max_trees=None,
                        trivial_splits=False).fit(X, y, sample_weight=weight)
    total = weight.sum()
    brute = [cost / total for cost, _ in
             every_tree(X, y, weight, depth, alpha * total, _varying(X), trivial_splits=False)]
    optimum = min(brute)
    inside = sorted(cost for cost in brute if cost <= (1 + epsilon) * optimum + 1e-9)
    assert found.optimum_ == pytest.approx(optimum, abs=1e-12)
    assert found.n_trees_ == len(inside) == len(found)
    np.testing.assert_allclose(found.objectives_, inside, atol=1e-12)
    for tree in found:  # no listed tree has a split whose two leaves predict one class
        inner = tree.tree_
        for node in np.flatnonzero(inner.children_left >= 0):
            left, right = inner.children_left[node], inner.children_right[node]
            if inner.children_left[left] < 0 and inner.children_left[right] < 0:
                assert np.argmax(inner.value[left]) != np.argmax(inner.value[right])


# a removal search whose optimum exceeds the budget by a rounding error (CI, stop 45)
_ROUNDING = (np.array([[0, 0], [1, 0], [1, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 1], [1, 0]]),
             np.array([0, 2, 2, 0, 0, 0, 1, 1, 0]),
             np.array([1., 2., 3., 1., 1., 2., 2., 2., 3.]), 1, 0.1, 0.0)


@settings(max_examples=400, deadline=None)
@given(tiny(), st.integers(1, 3))
@example(_ROUNDING, 1)
def test_the_set_is_every_tree_within_the_budget(case, cap):
    X, y, weight, depth, alpha, epsilon = case
    y = _two_classes(y)
    found = RashomonSet(max_depth=depth, ccp_alpha=alpha, epsilon=epsilon, max_trees=None,
                        importance=True).fit(X, y, sample_weight=weight)
    total = weight.sum()
    brute = [(cost / total, used) for cost, used in
             every_tree(X, y, weight, depth, alpha * total, _varying(X))]
    optimum = min(cost for cost, _ in brute)
    inside = sorted(cost for cost, _ in brute if cost <= (1 + epsilon) * optimum + 1e-9)
    assert found.optimum_ == pytest.approx(optimum, abs=1e-12)
    assert found.n_trees_ == len(inside) == len(found)
    np.testing.assert_allclose(found.objectives_, inside, atol=1e-12)
    for j in range(X.shape[1]):
        using = sum(1 for cost, used in brute
                    if cost <= (1 + epsilon) * optimum + 1e-9 and j in used)
        assert found.usage_[j] == pytest.approx(using / len(inside))
        without = min(cost for cost, used in brute if j not in used)
        assert found.removal_loss_[j] == pytest.approx(without - optimum, abs=1e-12)
    for tree, objective in zip(found, found.objectives_, strict=True):
        assert tree.objective_ == pytest.approx(objective, abs=1e-12)
    # listing only the cheapest few, the importances come from searches: the same numbers
    capped = RashomonSet(max_depth=depth, ccp_alpha=alpha, epsilon=epsilon, max_trees=cap,
                         importance=True).fit(X, y, sample_weight=weight)
    np.testing.assert_allclose(capped.usage_, found.usage_, atol=1e-12)
    np.testing.assert_allclose(capped.removal_loss_, found.removal_loss_, atol=1e-12)


@pytest.fixture(scope="module")
def vote():
    from odtree.datasets import load_benchmark

    return load_benchmark("vote")


def test_the_best_trees_first_and_the_whole_count(vote):
    X, y = vote
    full = RashomonSet(max_depth=2, ccp_alpha=0.005, epsilon=0.2, max_trees=None,
                       importance=False).fit(X, y)
    capped = RashomonSet(max_depth=2, ccp_alpha=0.005, epsilon=0.2, max_trees=25,
                         importance=False).fit(X, y)
    assert capped.n_trees_ == full.n_trees_ > 25
    np.testing.assert_allclose(capped.objectives_, full.objectives_[:25])
    assert np.all(np.diff(full.objectives_) >= 0)
    # the optimum is the exact search's: its tree's errors plus the penalty of its leaves
    optimal = OptimalTreeClassifier(max_depth=2, ccp_alpha=0.005, thresholds="quantile").fit(X, y)
    errors = np.sum(optimal.predict(X) != y) / len(y)
    assert full.optimum_ == pytest.approx(errors + 0.005 * optimal.get_n_leaves())
    assert full.objectives_[0] == pytest.approx(full.optimum_)
    assert full.objectives_[-1] <= 1.2 * full.optimum_ + 1e-12


def test_votes_and_predictions(vote):
    X, y = vote
    found = RashomonSet(max_depth=2, ccp_alpha=0.01, epsilon=0.1, importance=False).fit(X, y)
    every = found.predict_all(X)
    assert every.shape == (len(found), len(y))
    for i in (0, len(found) - 1):
        np.testing.assert_array_equal(every[i], found[i].predict(X))
    shares = found.predict_proba(X)
    np.testing.assert_allclose(shares.sum(axis=1), 1.0)
    np.testing.assert_array_equal(found.predict(X), found.classes_[np.argmax(shares, axis=1)])
    np.testing.assert_array_equal(found.predict(X, k=1), found[0].predict(X))
    assert found.score(X, y) > 0.9


def test_weights_are_repeated_rows(vote):
    X, y = vote
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 3, len(y))
    weighted = RashomonSet(max_depth=2, epsilon=0.1, importance=False).fit(
        X, y, sample_weight=counts.astype(float))
    repeated = RashomonSet(max_depth=2, epsilon=0.1, importance=False).fit(
        np.repeat(X, counts, axis=0), np.repeat(y, counts))
    assert weighted.n_trees_ == repeated.n_trees_
    np.testing.assert_allclose(weighted.objectives_, repeated.objectives_)
    # the rows of weight 0 are left out; the others count once each
    assert weighted[0].tree_.n_node_samples[0] == np.count_nonzero(counts)
    np.testing.assert_allclose(weighted[0].tree_.weighted_n_node_samples[0], counts.sum())


def test_a_memory_limit_wipes_and_finds_the_same_set(vote):
    X, y = vote
    free = RashomonSet(max_depth=3, epsilon=0.2).fit(X, y)
    tight = RashomonSet(max_depth=3, epsilon=0.2, memory_limit="200kB").fit(X, y)
    assert free.n_wipes_ == 0 < tight.n_wipes_
    assert tight.n_trees_ == free.n_trees_
    np.testing.assert_array_equal(tight.objectives_, free.objectives_)


def test_a_time_limit_keeps_a_prefix_of_the_order(vote):
    X, y = vote
    with pytest.warns(NotOptimalWarning, match="time limit"):
        found = RashomonSet(max_depth=3, epsilon=0.5, time_limit=0.0).fit(X, y)
    assert found.status_ == "time_limit"
    assert found.n_trees_ == len(found) == 0


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_importance_cut_short_is_left_unset(vote, monkeypatch, n_jobs):
    """A per-column search stopped by the time limit leaves no half-measured importance, on
    one thread or with the columns shared among threads."""
    from odtree._search import learners

    search = learners.rashomon_set

    def stopped_when_restricted(*args, allowed=None, **kwargs):
        found = search(*args, allowed=allowed, **kwargs)
        return {**found, "stopped": "time_limit"} if allowed is not None else found

    monkeypatch.setattr(learners, "rashomon_set", stopped_when_restricted)
    X, y = vote
    with pytest.warns(NotOptimalWarning, match="usage_ and removal_loss_ are not set"):
        found = RashomonSet(max_depth=2, epsilon=0.05, importance=True, n_jobs=n_jobs).fit(X, y)
    assert found.status_ == "optimal" and not hasattr(found, "usage_")


def test_the_set_pickles_and_plots(vote, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    X, y = vote
    found = RashomonSet(max_depth=2, epsilon=0.05, importance=True).fit(X, y)
    again = pickle.loads(pickle.dumps(found))
    np.testing.assert_array_equal(again.predict_all(X), found.predict_all(X))
    loaded = from_json(to_json(found))
    assert type(loaded) is RashomonSet and loaded.n_trees_ == found.n_trees_
    np.testing.assert_array_equal(loaded.predict_all(X), found.predict_all(X))
    np.testing.assert_array_equal(loaded.objectives_, found.objectives_)
    np.testing.assert_array_equal(loaded.usage_, found.usage_)
    np.testing.assert_array_equal(loaded[-1].predict(X), found[-1].predict(X))
    assert loaded.get_params() == found.get_params()
    axes = found.plot()
    assert len(axes) == 2
    axes[0].figure.savefig(tmp_path / "set.png")


def test_bad_input_is_refused():
    X = np.array([[0, 1], [1, 0], [1, 1]])
    with pytest.raises(ValueError, match="sample_weight"):
        RashomonSet().fit(X, [0, 1, 1], sample_weight=[1, -1, 1])
    with pytest.raises(ValueError, match="epsilon"):
        RashomonSet(epsilon=-1).fit(X, [0, 1, 1])
    with pytest.raises(ValueError):
        RashomonSet().fit(X, [0.5, 1.5, 2.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert RashomonSet(max_depth=1).fit(X, [0, 1, 1]).n_trees_ >= 1


def leaf_loss(criterion, quantile=0.5):
    """A leaf's loss on targets ``y`` and weights ``w``: the squared error around their mean,
    or the least absolute error or pinball loss over every value."""
    if criterion == "squared_error":
        return lambda y, w: float(np.sum(w * (y - np.average(y, weights=w)) ** 2))
    q, scale = (0.5, 2.0) if criterion == "absolute_error" else (quantile, 1.0)
    return lambda y, w: min(scale * float(np.sum(w * np.maximum(q * (y - v), (q - 1) * (y - v))))
                            for v in y)


def every_regression_tree(X, y, weight, depth, penalty, loss):
    """Cost of every tree of depth <= ``depth``: each leaf's ``loss``, plus ``penalty``."""

    def trees(rows, depth):
        found = [loss(y[rows], weight[rows]) + penalty]
        if depth:
            for f in _varying(X[rows]) if len(rows) > 1 else []:
                ones = X[rows, f] == 1
                found += [a + b for a in trees(rows[~ones], depth - 1)
                          for b in trees(rows[ones], depth - 1)]
        return found

    return trees(np.arange(len(y)), depth)


@settings(max_examples=300, deadline=None)
@given(tiny(), st.sampled_from(["squared_error", "absolute_error", "quantile"]))
@example(_ROUNDING, "quantile")
def test_the_regression_set_is_every_tree_within_the_budget(case, criterion):
    X, y, weight, depth, alpha, epsilon = case
    targets = y * 1.5 + X[:, 0] * 0.25
    found = RashomonSetRegressor(max_depth=depth, ccp_alpha=alpha, epsilon=epsilon,
                                 max_trees=None, criterion=criterion, quantile=0.3,
                                 ).fit(X, targets, sample_weight=weight)
    total = weight.sum()
    brute = [cost / total for cost in every_regression_tree(
        X, targets, weight, depth, alpha * total, leaf_loss(criterion, 0.3))]
    optimum = min(brute)
    inside = sorted(cost for cost in brute if cost <= (1 + epsilon) * optimum + 1e-9)
    assert found.optimum_ == pytest.approx(optimum, abs=1e-9)
    assert found.n_trees_ == len(inside)
    np.testing.assert_allclose(found.objectives_, inside, atol=1e-9)
    every = found.predict_all(X)
    for i in (0, len(found) - 1):
        np.testing.assert_allclose(every[i], found[i].predict(X))


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error", "quantile"])
def test_the_regression_set_votes_by_the_mean_and_round_trips(vote, criterion):
    X, y = vote
    rng = np.random.default_rng(3)
    targets = y * 2.0 + rng.normal(0, 0.3, len(y))
    found = RashomonSetRegressor(max_depth=2, epsilon=0.1, importance=True, criterion=criterion,
                                 quantile=0.7).fit(X, targets)
    best = found[0]
    assert (best.criterion, best.quantile) == (criterion, 0.7)
    # the best tree is the optimal tree of the same objective
    alone = OptimalTreeRegressor(max_depth=2, ccp_alpha=0.01, criterion=criterion,
                                 quantile=0.7).fit(X, targets)
    assert found.optimum_ * len(y) == pytest.approx(alone.objective_, rel=1e-9)
    assert found.n_trees_ >= len(found) >= 1
    np.testing.assert_allclose(found.predict(X, k=3), found.predict_all(X, k=3).mean(axis=0))
    assert found.score(X, targets) > 0.5
    assert np.all((found.usage_ >= 0) & (found.usage_ <= 1))
    loaded = from_json(to_json(found))
    assert type(loaded) is RashomonSetRegressor
    np.testing.assert_allclose(loaded.predict(X), found.predict(X))
    assert not hasattr(loaded, "classes_")
    assert found[0].feature_importances_.shape == (X.shape[1],)


@pytest.mark.parametrize("memory_limit", [None, "2MB"])
def test_threads_find_the_same_set(memory_limit):
    from odtree.datasets import load_benchmark

    X, y = load_benchmark("heart-cleveland")
    settings = dict(max_depth=2, epsilon=0.1, max_trees=300, importance=True,
                    memory_limit=memory_limit)
    alone = RashomonSet(**settings, n_jobs=1).fit(X, y)
    shared = RashomonSet(**settings, n_jobs=2).fit(X, y)
    assert shared.n_trees_ == alone.n_trees_ > 300
    np.testing.assert_array_equal(shared.objectives_, alone.objectives_)
    for mine, theirs in zip(shared._listed, alone._listed, strict=True):
        np.testing.assert_array_equal(mine[0], theirs[0])
    np.testing.assert_allclose(shared.usage_, alone.usage_)
    np.testing.assert_allclose(shared.removal_loss_, alone.removal_loss_)
    with pytest.raises(ValueError, match="n_jobs"):
        RashomonSet(n_jobs=0).fit(X, y)


def every_numeric_tree(X, y, depth, penalty):
    """Cost of every tree of depth <= ``depth`` over numeric X: a node splits a column once
    per gap between its rows' consecutive distinct values; leaves predict their majority."""
    classes = np.unique(y)

    def trees(rows, depth):
        counts = [np.sum(y[rows] == c) for c in classes]
        found = [len(rows) - max(counts) + penalty]
        if depth:
            for j in range(X.shape[1]):
                for value in np.unique(X[rows, j])[:-1]:
                    low = X[rows, j] <= value
                    found += [a + b for a in trees(rows[low], depth - 1)
                              for b in trees(rows[~low], depth - 1)]
        return found

    return trees(np.arange(len(y)), depth)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 9).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(0, 3), min_size=2, max_size=2), min_size=n, max_size=n),
    st.lists(st.integers(0, 1), min_size=n, max_size=n))),
    st.integers(1, 2), st.sampled_from([0.0, 0.2, 1.0]))
def test_exact_thresholds_give_every_tree_of_the_raw_numbers(data, depth, epsilon):
    X, y = np.array(data[0], dtype=float), np.array(data[1])
    if len(np.unique(y)) < 2:
        y[0] = 1 - y[0]
    found = RashomonSet(max_depth=depth, ccp_alpha=0.1, epsilon=epsilon, max_trees=None,
                        thresholds="exact").fit(X, y)
    brute = [cost / len(y) for cost in every_numeric_tree(X, y, depth, 0.1 * len(y))]
    optimum = min(brute)
    inside = sorted(cost for cost in brute if cost <= (1 + epsilon) * optimum + 1e-9)
    assert found.n_trees_ == len(inside)
    np.testing.assert_allclose(found.objectives_, inside, atol=1e-12)
    for tree, objective in zip(found, found.objectives_, strict=True):
        assert 1 - tree.score(X, y) + 0.1 * tree.get_n_leaves() == pytest.approx(objective)
