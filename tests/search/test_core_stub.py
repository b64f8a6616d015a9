"""The compiled module agrees with its stub, ``odtree/_core.pyi``, where ``mypy.stubtest``
cannot look: the keys of each result dict, and the vocabularies the core exports."""

import ast
import inspect
from pathlib import Path

import numpy as np
import odtree
import pytest
from odtree import _core

STUB = Path(odtree.__file__).with_name("_core.pyi")


def stub_keys(name):
    """The keys the stub's TypedDict `name` declares, its bases' included."""
    classes = {node.name: node for node in ast.parse(STUB.read_text()).body
               if isinstance(node, ast.ClassDef)}
    node = classes[name]
    keys = {statement.target.id for statement in node.body
            if isinstance(statement, ast.AnnAssign)}
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id in classes:
            keys |= stub_keys(base.id)
    return keys


def xor_data():
    x = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3, dtype=np.uint8)
    y = (x[:, 0] ^ x[:, 1]).astype(np.uint32)
    return x, y


def test_solve_returns_the_keys_of_the_stub():
    x, y = xor_data()
    result = _core.Solver(x, y, 2).solve(_core.Config(max_depth=2))
    assert set(result) == stub_keys("SolveResult")
    assert set(_core.CACHE_FIGURES) <= set(result)
    assert result["status"] in _core.STATUSES
    several = _core.Solver(x, y, 2).solve(_core.Config(max_depth=1), objective="quantiles",
                                          targets=y.astype(float), quantiles=np.array([0.5]))
    assert [set(one) for one in several] == [stub_keys("SolveResult")]


def test_the_other_results_return_the_keys_of_the_stub():
    x, y = xor_data()
    numeric = x.astype(np.float64)
    weights = np.ones(len(y))
    assert set(_core.solve_numeric(numeric, weights, labels=y, n_classes=2)) \
        == stub_keys("NumericResult")
    no_codes = np.zeros((len(y), 0), dtype=np.uint32)
    assert set(_core.greedy_tree(numeric, no_codes, [], y, 2)) == stub_keys("GreedyTreeResult")
    search = _core.DistinctTreeSearch(numeric, no_codes, [], y, 2)
    trees, _ = search.next_batch(1)
    assert [set(tree) for _, tree in trees] == [stub_keys("GreedyTreeDict")]
    folds = [(list(range(6)), list(range(6, 12)))]
    assert set(_core.backward_elimination(numeric, no_codes, [], y, 2, folds)) \
        == stub_keys("EliminationResult")


def test_config_defaults_are_the_cores():
    """The keyword defaults written in the binding's signature are the core's `DEFAULTS`."""
    parameters = inspect.signature(_core.Config).parameters
    for name, default in _core.DEFAULTS.items():
        written = parameters[name].default
        if written is not Ellipsis:  # a default the signature cannot spell, such as inf
            assert written == default, name
    assert _core.DEFAULTS["upper_bound"] == float("inf")
    assert set(_core.PRESETS) == set(_core.OPTIONS["search"])
    assert _core.DEFAULTS["search"] == _core.OPTIONS["search"][0]


@pytest.mark.parametrize("option", ["search", "cache", "branching", "child_order",
                                    "wipe_strategy"])
def test_every_option_value_is_accepted_and_no_other(option):
    for value in _core.OPTIONS[option]:
        _core.Config(**{option: value})
    with pytest.raises(ValueError, match="expected one of " + ", ".join(_core.OPTIONS[option])):
        _core.Config(**{option: "none of them"})


def test_the_depth_cap_is_the_cores():
    _core.Config(max_depth=_core.MAX_DEPTH)
    with pytest.raises(ValueError, match=f"at most {_core.MAX_DEPTH}"):
        _core.Config(max_depth=_core.MAX_DEPTH + 1)


def test_one_word_for_a_heuristic_tree():
    assert "heuristic" in _core.STATUSES and "greedy" not in _core.STATUSES
