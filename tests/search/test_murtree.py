"""MurTree's techniques: node limits, sparse and lexicographic objectives, and the
search switches, which must all give the same optimum."""

import itertools

import numpy as np
import pytest
from conftest import ALL_DATASETS, weighted_errors
from odtree import OptimalTreeClassifier

#: Every technique switch, each off and on (the preset's defaults are all on).
TECHNIQUES = {
    "depth2_solver": [False, True],
    "incremental_counting": [False, True],
    "similarity_bound": [False, True],
    "cache": ["trie", "hash", "dataset"],
    "branching": ["in_order", "gini"],
    "child_order": ["left_first", "larger_error_first"],
}
NAMED = ["zoo-1", "vote", "tic-tac-toe", "hepatitis", "primary-tumor", "lymph"]


def _combinations():
    names = list(TECHNIQUES)
    for values in itertools.product(*TECHNIQUES.values()):
        yield dict(zip(names, values, strict=True))


def _one_at_a_time():
    """The preset, each technique switched to each other value alone, and the DL8.5 preset."""
    yield {}
    for name, values in TECHNIQUES.items():
        for value in values:
            yield {name: value}
    yield {"search": "dl85"}


def _optima(X, y, combinations=_combinations, **params):
    objectives = {}
    for switches in combinations():
        model = OptimalTreeClassifier(**params, **switches).fit(X, y)
        assert model.optimal_ and model.lower_bound_ == pytest.approx(model.objective_)
        objectives[tuple(switches.items())] = round(model.objective_, 9)
    return objectives


@pytest.mark.parametrize("name", NAMED)
def test_every_switch_combination_agrees(load, name):
    objectives = _optima(*load(name), max_depth=3)
    assert len(set(objectives.values())) == 1, objectives


@pytest.mark.parametrize("params", [{"max_leaf_nodes": 5}, {"ccp_alpha": 0.01},
                                    {"max_leaf_nodes": 6, "lexicographic": True}])
def test_switches_agree_with_limits_and_penalties(load, params):
    objectives = _optima(*load("heart-cleveland"), max_depth=3, **params)
    assert len(set(objectives.values())) == 1, objectives


def test_switches_agree_on_random_weighted_multiclass_data():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(120, 7))
    y = (X[:, 0] + X[:, 1] * 2 + rng.integers(0, 2, size=120)) % 3
    weight = rng.uniform(0.5, 2, size=120).round(2)
    objectives = set()
    for switches in _combinations():
        model = OptimalTreeClassifier(max_depth=3, **switches).fit(X, y, sample_weight=weight)
        objectives.add(round(model.objective_, 9))
    assert len(objectives) == 1, objectives


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_DATASETS)
def test_each_switch_agrees_on_all_datasets(load, name):
    objectives = _optima(*load(name), combinations=_one_at_a_time, max_depth=3)
    assert len(set(objectives.values())) == 1, objectives


@pytest.mark.parametrize("name, errors", [
    ("anneal", 91), ("australian-credit", 56), ("german-credit", 204), ("vehicle", 12)])
def test_murtree_readme_optima(load, name, errors):
    """Depth 4 with 15 branching nodes (MurTree's README): the published optima, proven."""
    X, y = load(name)
    model = OptimalTreeClassifier(max_depth=4, max_leaf_nodes=16).fit(X, y)
    assert model.optimal_ and model.objective_ == errors
    assert weighted_errors(model, X, y) == errors


def test_max_leaf_nodes_limits_the_tree_and_relaxes_monotonically(load):
    X, y = load("hepatitis")
    previous = np.inf
    for leaves in range(1, 9):
        model = OptimalTreeClassifier(max_depth=3, max_leaf_nodes=leaves).fit(X, y)
        assert model.get_n_leaves() <= leaves and model.optimal_
        assert model.objective_ <= previous
        previous = model.objective_
    unlimited = OptimalTreeClassifier(max_depth=3).fit(X, y)
    assert previous == unlimited.objective_


def test_ccp_alpha_trades_errors_for_leaves(load):
    X, y = load("hepatitis")
    n = len(y)
    sizes = []
    for alpha in [0.0, 0.005, 0.02, 0.1, 1.0]:
        model = OptimalTreeClassifier(max_depth=3, ccp_alpha=alpha).fit(X, y)
        errors = weighted_errors(model, X, y)
        assert model.objective_ == pytest.approx(errors + alpha * n * model.get_n_leaves())
        sizes.append(model.get_n_leaves())
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] == 1


def test_lexicographic_keeps_the_errors_and_drops_useless_leaves(load):
    X, y = load("zoo-1")
    plain = OptimalTreeClassifier(max_depth=4).fit(X, y)
    smallest = OptimalTreeClassifier(max_depth=4, lexicographic=True).fit(X, y)
    assert smallest.objective_ == plain.objective_
    assert smallest.get_n_leaves() <= plain.get_n_leaves()
    for leaves in range(1, smallest.get_n_leaves()):
        fewer = OptimalTreeClassifier(max_depth=4, max_leaf_nodes=leaves).fit(X, y)
        assert fewer.objective_ > smallest.objective_


def test_time_limit_with_leaf_limit_returns_a_valid_incumbent(load):
    X, y = load("ionosphere")
    with pytest.warns(UserWarning):
        model = OptimalTreeClassifier(max_depth=5, max_leaf_nodes=12, time_limit=1).fit(X, y)
    assert model.status_ == "time_limit" and model.get_n_leaves() <= 12
    assert model.lower_bound_ <= model.objective_ == weighted_errors(model, X, y)
