"""criterion="f1" and "balanced_accuracy": the metrics scikit-learn computes, against brute
force over every tree (the core's proptests do 1,000 cases each), against pystreed's F1, and
bad input, by weighted-misclassification searches (the default) and with
``pareto_front=True``. The Pareto front is checked against brute force in the core
(``oracle/metrics.rs``)."""

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from odtree import OptimalTreeClassifier
from odtree._search.solver import Solver
from odtree.exceptions import NotOptimalWarning
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.metrics import balanced_accuracy_score, f1_score

METRICS = {"f1": f1_score, "balanced_accuracy": balanced_accuracy_score}


def _pairs_of_all_trees(X, y, w, depth):
    """Every (false positives, false negatives) pair of every tree of depth <= ``depth`` on the
    binary ``X``, each leaf labelled either way."""
    def outcomes(rows, depth):
        fp = float(w[rows][y[rows] == 0].sum())
        fn = float(w[rows][y[rows] == 1].sum())
        found = {(fp, 0.0), (0.0, fn)}
        if depth > 0:
            for f in range(X.shape[1]):
                left, right = rows[X[rows, f] == 0], rows[X[rows, f] == 1]
                if len(left) and len(right):
                    for a, b in itertools.product(outcomes(left, depth - 1),
                                                  outcomes(right, depth - 1)):
                        found.add((round(a[0] + b[0], 9), round(a[1] + b[1], 9)))
        return found
    return outcomes(np.arange(len(y)), depth)


def _metric(name, fp, fn, positives, negatives):
    if name == "f1":
        tp = positives - fn
        return 0.0 if tp <= 0 else 2 * tp / (2 * tp + fp + fn)
    return 1 - 0.5 * (fn / positives + fp / negatives)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(METRICS)), depth=st.integers(1, 2),
       front=st.booleans())
def test_against_brute_force_over_every_tree(data, name, depth, front):
    n_rows = data.draw(st.integers(2, 14))
    n_features = data.draw(st.integers(1, 4))
    X = np.array(data.draw(st.lists(st.lists(st.integers(0, 1), min_size=n_features,
                                             max_size=n_features),
                                    min_size=n_rows, max_size=n_rows)))
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n_rows, max_size=n_rows)))
    w = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=n_rows,
                                    max_size=n_rows)))
    if len(np.unique(y)) < 2:
        y[0], y[-1] = 0, 1
    model = OptimalTreeClassifier(max_depth=depth, criterion=name, pareto_front=front).fit(
        X, y, sample_weight=w)
    positives, negatives = w[y == 1].sum(), w[y == 0].sum()
    best = max(_metric(name, fp, fn, positives, negatives)
               for fp, fn in _pairs_of_all_trees(X, y, w, depth))
    assert model.optimal_
    assert model.objective_ == pytest.approx(best, abs=1e-9)
    assert METRICS[name](y, model.predict(X), sample_weight=w) == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("name", sorted(METRICS))
@pytest.mark.parametrize("data, depth", [("breast_cancer", 1), ("breast_cancer", 2),
                                         ("heart-cleveland", 3)])
def test_objective_is_scikit_learns_metric_of_the_training_predictions(load, name, data,
                                                                        depth):
    X, y = load_breast_cancer(return_X_y=True) if data == "breast_cancer" else load(data)
    weight = np.random.default_rng(depth).uniform(0.5, 2.0, len(y))
    # on the same grid: the front is the grid's (over every threshold, see
    # test_exact_thresholds.py)
    fast, model = (OptimalTreeClassifier(max_depth=depth, criterion=name, pareto_front=front,
                                         thresholds="quantile")
                   .fit(X, y, sample_weight=weight) for front in (False, True))
    for fitted in (fast, model):
        assert fitted.objective_ == pytest.approx(
            METRICS[name](y, fitted.predict(X), sample_weight=weight), abs=1e-12)
        assert fitted.lower_bound_ == pytest.approx(1 - fitted.objective_)
    assert fast.objective_ == pytest.approx(model.objective_, abs=1e-12)
    assert not hasattr(fast, "pareto_front_")
    front = model.pareto_front_
    assert front.shape[1] == 2 and np.all(np.diff(front[:, 0]) > 0)
    assert np.all(np.diff(front[:, 1]) < 0)
    # the chosen tree is a point of the front
    predicted = model.predict(X)
    fp = weight[(predicted == 1) & (y == 0)].sum()
    fn = weight[(predicted == 0) & (y == 1)].sum()
    assert np.min(np.abs(front - [fp, fn]).sum(axis=1)) < 1e-9


def test_f1_beats_misclassification_on_f1():
    X, y = load_breast_cancer(return_X_y=True)
    y = 1 - y  # the rarer class (malignant) is the positive one
    for depth in (1, 2):
        f1 = OptimalTreeClassifier(max_depth=depth, criterion="f1").fit(X, y)
        errors = OptimalTreeClassifier(max_depth=depth, thresholds="quantile").fit(X, y)
        assert f1.objective_ >= f1_score(y, errors.predict(X)) - 1e-12


def test_balanced_accuracy_is_misclassification_with_inverse_class_weights(load):
    X, y = load("heart-cleveland")
    for depth in (2, 3):
        model = OptimalTreeClassifier(max_depth=depth, criterion="balanced_accuracy").fit(X, y)
        weight = np.where(y == 1, 1 / np.sum(y == 1), 1 / np.sum(y == 0))
        weighted = OptimalTreeClassifier(max_depth=depth).fit(X, y, sample_weight=weight)
        assert model.objective_ == pytest.approx(
            balanced_accuracy_score(y, weighted.predict(X)), abs=1e-9)


def test_node_limit_and_min_samples_leaf_hold(load):
    X, y = load("heart-cleveland")
    previous = -1.0
    for leaves in range(2, 9):
        model = OptimalTreeClassifier(max_depth=3, max_leaf_nodes=leaves, min_samples_leaf=10,
                                      criterion="f1").fit(X, y)
        assert model.get_n_leaves() <= leaves
        assert np.all(np.bincount(model.apply(X))[np.bincount(model.apply(X)) > 0] >= 10)
        assert model.objective_ >= previous - 1e-12  # more leaves never hurt
        previous = model.objective_


def test_time_limit_returns_a_real_tree():
    X, y = load_breast_cancer(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = OptimalTreeClassifier(max_depth=4, criterion="f1", thresholds="midpoints",
                                      time_limit=0.2).fit(X, y)
    assert model.status_ == "time_limit" and not model.optimal_
    assert model.objective_ == pytest.approx(f1_score(y, model.predict(X)))


def test_string_labels_take_the_second_class_as_positive():
    X, y = load_breast_cancer(return_X_y=True)
    labels = np.array(["benign", "malignant"])[1 - y]  # classes_[1] is "malignant"
    model = OptimalTreeClassifier(max_depth=2, criterion="f1").fit(X, labels)
    assert model.objective_ == pytest.approx(
        f1_score(labels, model.predict(X), pos_label="malignant"))


def test_solver_reports_the_loss_and_the_front():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3)
    y = np.array([0, 1, 1, 0] * 3)
    solution = Solver(X, y).solve(max_depth=2, objective="f1_front")
    assert solution.objective == 0.0 and solution.optimal
    assert solution.pareto_front.tolist() == [[0.0, 0.0]]
    fast = Solver(X, y).solve(max_depth=2, objective="f1")
    assert fast.objective == 0.0 and fast.optimal and fast.pareto_front.shape == (0, 2)
    # depth 1 cannot separate xor: the best F1 predicts every row positive
    best = Solver(X, y).solve(max_depth=1, objective="f1")
    assert best.objective == pytest.approx(1 - 2 * 6 / (2 * 6 + 6)) and best.optimal


@pytest.mark.parametrize("kwargs, message", [
    ({"max_depth": None, "ccp_alpha": 0.01}, "needs an integer max_depth"),
    ({"ccp_alpha": 0.01}, "takes no ccp_alpha"),
    ({"cost_matrix": [[0, 1], [1, 0]]}, "takes no cost_matrix"),
    ({"upper_bound": 3}, "upper bound"),
    ({"lexicographic": True}, "lexicographic"),
])
def test_bad_settings_are_refused(kwargs, message):
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        OptimalTreeClassifier(criterion="f1", **{"max_depth": 2, **kwargs}).fit(X, y)


def test_more_than_two_classes_are_refused():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="exactly two classes"):
        OptimalTreeClassifier(criterion="balanced_accuracy").fit(X, y)


def _pystreed_f1(X, y, depth):
    pystreed = pytest.importorskip("pystreed")
    model = pystreed.STreeDClassifier(optimization_task="f1-score", max_depth=depth,
                                      time_limit=300).fit(X, y)
    return f1_score(y, model.predict(X))


@pytest.mark.parametrize("name, depth", [("heart-cleveland", 3), ("vote", 3),
                                         ("tic-tac-toe", 2), ("hepatitis", 3)])
def test_f1_equals_pystreed(load, name, depth):
    X, y = load(name)
    model = OptimalTreeClassifier(max_depth=depth, criterion="f1").fit(X, y)
    assert model.objective_ == pytest.approx(_pystreed_f1(X, y, depth), abs=1e-9)


SHARED = ["anneal", "audiology", "australian-credit", "breast-wisconsin", "diabetes",
          "german-credit", "heart-cleveland", "hepatitis", "hypothyroid", "ionosphere",
          "kr-vs-kp", "lymph", "mushroom", "primary-tumor", "soybean", "splice-1",
          "tic-tac-toe", "vote", "yeast", "zoo-1"]


@pytest.mark.slow
@pytest.mark.parametrize("name", SHARED)
@pytest.mark.parametrize("depth", [2, 3])
def test_f1_equals_pystreed_on_every_shared_set(load, name, depth):
    X, y = load(name)
    model = OptimalTreeClassifier(max_depth=depth, criterion="f1").fit(X, y)
    assert model.objective_ == pytest.approx(_pystreed_f1(X, y, depth), abs=1e-9)


@pytest.mark.parametrize("limit", [{"memory_limit": "30MB"}, {"max_cache_entries": 10}])
def test_pareto_fronts_refuse_a_memory_limit_they_cannot_keep(limit):
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="Pareto fronts"):
        OptimalTreeClassifier(max_depth=2, criterion="f1", pareto_front=True, **limit).fit(X, y)


@pytest.mark.parametrize("criterion", sorted(METRICS))
def test_every_setting_of_the_search_gives_the_fronts_optimum(load, criterion):
    """The weighted searches take the misclassification search's switches, caches, memory
    limits and threads: the optimum is the Pareto front's every time."""
    X, y = load("heart-cleveland")
    want = OptimalTreeClassifier(max_depth=3, criterion=criterion, pareto_front=True).fit(X, y)
    for switches in [{}, {"search": "dl85"}, {"cache": "trie"}, {"cache": "hash"},
                     {"depth2_solver": False}, {"similarity_bound": False},
                     {"branching": "in_order"}, {"max_cache_entries": 50},
                     {"memory_limit": "2MB"}, {"n_jobs": 2}]:
        model = OptimalTreeClassifier(max_depth=3, criterion=criterion, **switches).fit(X, y)
        assert model.optimal_, switches
        assert model.objective_ == pytest.approx(want.objective_, abs=1e-12), switches
        assert METRICS[criterion](y, model.predict(X)) == pytest.approx(model.objective_)
    # threads give the tree of one thread
    one, two = (OptimalTreeClassifier(max_depth=4, criterion=criterion, n_jobs=n).fit(X, y)
                for n in (1, 2))
    np.testing.assert_array_equal(one.tree_.feature, two.tree_.feature)
    np.testing.assert_array_equal(one.predict(X), two.predict(X))


@pytest.mark.parametrize("criterion", ["f1", "balanced_accuracy"])
def test_pareto_optima_do_not_change_with_the_scale_of_the_weights(criterion):
    for seed in range(12):
        rng = np.random.default_rng(seed)
        X, y = rng.integers(0, 2, (30, 5)), rng.integers(0, 2, 30)
        weight = rng.uniform(0.5, 2.0, 30)
        for front in (False, True):
            unit = OptimalTreeClassifier(max_depth=2, criterion=criterion,
                                         pareto_front=front).fit(X, y, sample_weight=weight)
            for scale in (1e-12, 1e-14):
                tiny = OptimalTreeClassifier(max_depth=2, criterion=criterion,
                                             pareto_front=front).fit(
                    X, y, sample_weight=weight * scale)
                assert tiny.objective_ == pytest.approx(unit.objective_, abs=1e-9)
                if front:
                    assert len(tiny.pareto_front_) == len(unit.pareto_front_)


def test_the_pareto_search_reports_progress_and_its_callback_stops_it():
    from odtree.datasets import load_benchmark

    X, y = load_benchmark("splice-1")
    events = []

    def callback(event):
        events.append(event)
        return len(events) >= 3

    model = OptimalTreeClassifier(max_depth=4, criterion="f1", pareto_front=True,
                                  time_limit=30, callback=callback)
    with pytest.warns(NotOptimalWarning):
        model.fit(X, y)
    assert model.status_ == "stopped"
    assert model.fit_time_ < 10  # stopped within about a second, not at the time limit
    assert events[0].seconds < 1.0  # the first event comes at once (the best leaf)


def test_the_weighted_searches_report_each_better_tree_and_a_callback_stops_them(load):
    X, y = load("heart-cleveland")
    events = []
    model = OptimalTreeClassifier(max_depth=3, criterion="f1", callback=events.append).fit(X, y)
    losses = [event.objective for event in events]
    assert events[0].seconds < 1.0  # the best leaf, at once
    assert all(np.diff(losses[:-1]) < 0)  # each better tree
    assert losses[-1] == pytest.approx(1 - model.objective_) and events[-1].final
    assert events[-1].bound == pytest.approx(losses[-1])  # proven

    X, y = load("splice-1")
    stopping = OptimalTreeClassifier(max_depth=5, criterion="f1", time_limit=60,
                                     callback=lambda event: True)
    with pytest.warns(NotOptimalWarning):
        stopping.fit(X, y)
    assert stopping.status_ == "stopped" and stopping.fit_time_ < 20
    assert stopping.objective_ == pytest.approx(f1_score(y, stopping.predict(X)))


@pytest.mark.parametrize("name", ["heart-cleveland", "vote", "hepatitis", "tic-tac-toe"])
@pytest.mark.parametrize("params", [{"max_depth": 3}, {"max_depth": 3, "max_leaf_nodes": 5},
                                    {"max_depth": 2, "min_samples_leaf": 5}])
def test_fronts_from_pair_counts_equal_the_general_walks(load, name, params):
    """Depth-2 fronts come from pair counts unless ``depth2_solver=False``: the same front,
    and the tree read back gives its metric."""
    X, y = load(name)
    for criterion in ("f1", "balanced_accuracy"):
        models = [OptimalTreeClassifier(criterion=criterion, depth2_solver=switch,
                                        pareto_front=True, **params)
                  .fit(X, y) for switch in (True, False)]
        assert models[0].objective_ == pytest.approx(models[1].objective_, abs=1e-12)
        np.testing.assert_allclose(models[0].pareto_front_, models[1].pareto_front_)
        score = METRICS[criterion](y, models[0].predict(X))
        assert score == pytest.approx(models[0].objective_, abs=1e-9)
