"""Nothing reachable from Python panics across the boundary.

The private ``_core.Solver`` and ``_core.Config`` are driven with random, often invalid, data
and parameters: every
call either returns a result or raises an ordinary exception (ValueError, TypeError or
OverflowError for numbers out of a parameter's range); never the RuntimeError of a failed
search thread, nor pyo3's PanicException."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from odtree import _core

ORDINARY = (ValueError, TypeError, OverflowError)


def _call(call, /, *args, **kwargs):
    """Runs ``call``; returns its result, or None after an ordinary exception."""
    try:
        return call(*args, **kwargs)
    except ORDINARY:
        return None
    except BaseException as error:  # PanicException derives from BaseException
        raise AssertionError(f"{type(error).__name__}: {error}") from error


def _mostly(valid, invalid):
    """A strategy that draws from ``valid`` 19 times in 20, so that about half the calls
    have every argument valid and the others one or two invalid."""
    return st.integers(0, 19).flatmap(lambda k: invalid if k == 0 else valid)


@st.composite
def datasets(draw):
    """Mostly valid 0/1 data with labels below ``n_classes``; sometimes not."""
    n_rows = draw(st.integers(1, 12))
    n_features = draw(st.integers(0, 5))
    cells = n_rows * n_features
    values = draw(_mostly(st.just(1), st.just(2)))  # 2 is not a binary value
    X = np.array(draw(st.lists(st.integers(0, values), min_size=cells, max_size=cells)),
                 dtype=np.uint8)
    n_classes = draw(_mostly(st.integers(1, 3), st.sampled_from([0, 2**21])))
    highest = draw(_mostly(st.just(max(n_classes - 1, 0)), st.just(4)))
    y = np.array(draw(st.lists(st.integers(0, highest), min_size=n_rows, max_size=n_rows)),
                 dtype=np.uint32)
    return X.reshape(n_rows, n_features), y, n_classes


def _floats(size, low=0.0, high=10.0):
    """Arrays of ``size`` floats, mostly in [low, high], sometimes anything."""
    anything = st.floats(allow_nan=True, allow_infinity=True)
    return st.lists(_mostly(st.floats(low, high), anything), min_size=size,
                    max_size=size).map(lambda values: np.array(values, dtype=np.float64))


#: The arguments of ``Solver.solve`` that go to its ``Config``.
CONFIG = {"max_depth", "min_samples_leaf", "upper_bound", "search", "max_nodes", "leaf_penalty",
          "lexicographic", "cache", "branching", "depth2_solver", "similarity_bound",
          "memory_limit", "max_cache_entries", "wipe_strategy", "wipe_factor", "time_limit"}


@st.composite
def solve_arguments(draw, n_rows, n_classes):
    """Arguments of ``Solver.solve``, each mostly valid."""
    near = _mostly(st.just(n_rows), st.sampled_from([0, n_rows + 1]))
    arguments = {
        "max_depth": draw(_mostly(st.integers(0, 4), st.integers(5, 70))),
        "min_samples_leaf": draw(_mostly(st.integers(1, 3), st.just(0))),
        "upper_bound": draw(_mostly(st.just(float("inf")), st.floats(allow_nan=True))),
        "search": draw(_mostly(st.sampled_from(["murtree", "dl85"]), st.just("other"))),
        "max_nodes": draw(st.none() | _mostly(st.integers(1, 6), st.just(0))),
        "leaf_penalty": draw(_mostly(st.floats(0.0, 2.0), st.floats(allow_nan=True))),
        "lexicographic": draw(st.booleans()),
        "cache": draw(_mostly(st.sampled_from([None, "trie", "hash", "dataset"]),
                              st.just("bad"))),
        "branching": draw(_mostly(st.sampled_from([None, "in_order", "gini", "gain_asc"]),
                                  st.just("x"))),
        "depth2_solver": draw(st.none() | st.booleans()),
        "similarity_bound": draw(st.none() | st.booleans()),
        "memory_limit": draw(st.none() | st.integers(1, 10**6)),
        "max_cache_entries": draw(st.none() | _mostly(st.integers(1, 50), st.just(0))),
        "wipe_strategy": draw(_mostly(st.sampled_from(["reuses", "descendants", "all"]),
                                      st.just("none"))),
        "wipe_factor": draw(_mostly(st.floats(0.05, 1.0), st.floats(allow_nan=True))),
        "time_limit": draw(st.none() | _mostly(st.floats(0.0, 5.0), st.floats(allow_nan=True))),
    }
    if draw(st.booleans()):
        arguments["sample_weight"] = draw(near.flatmap(_floats))
    objective = draw(_mostly(st.sampled_from(["misclassification", "cost_matrix",
                                              "squared_error", "absolute_error", "quantile",
                                              "quantiles", "centroid"]),
                             st.just("nonsense")))
    arguments["objective"] = objective
    if objective == "cost_matrix":
        k = draw(_mostly(st.just(n_classes), st.integers(0, 4)))
        arguments["cost_matrix"] = draw(_floats(k * k)).reshape(k, k)
    elif objective in ("squared_error", "absolute_error", "quantile", "quantiles"):
        arguments["targets"] = draw(near.flatmap(lambda size: _floats(size, -1e3, 1e3)))
        arguments["quantile"] = draw(_mostly(st.floats(0.05, 0.95), st.floats(-0.5, 1.5)))
        if objective == "quantiles":
            arguments["quantiles"] = draw(_floats(draw(st.integers(0, 3)), 0.05, 0.95))
    elif objective == "centroid":
        dim = draw(_mostly(st.integers(1, 3), st.just(0)))
        size = draw(near)
        arguments["points"] = (draw(_floats(size * dim, -1e3, 1e3)).reshape(size, dim) if dim
                               else np.zeros((n_rows, 0)))
    return arguments


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(), choices=st.data())
def test_random_calls_never_panic(data, choices):
    X, y, n_classes = data
    solver = _call(_core.Solver, X, y, n_classes)
    if solver is None:
        return
    arguments = choices.draw(solve_arguments(X.shape[0], n_classes))
    settings = {name: arguments.pop(name) for name in list(arguments) if name in CONFIG}
    config = _call(_core.Config, **settings)
    if config is None:
        return
    result = _call(solver.solve, config, **arguments)
    if result is not None:
        statuses = {"optimal", "time_limit", "interrupted", "infeasible", "memory_limit"}
        for one in result if isinstance(result, list) else [result]:
            assert one["status"] in statuses


@settings(max_examples=100, deadline=None)
@given(data=datasets(), value=st.one_of(st.floats(), st.integers(-3, 3), st.text(max_size=3),
                                        st.lists(st.integers(), max_size=3), st.none()))
def test_callback_results_of_any_type_never_panic(data, value):
    X, y, n_classes = data
    solver = _call(_core.Solver, X, y, n_classes)
    if solver is None:
        return
    config = _core.Config(max_depth=2)
    for objective in ("fast_error_function", "error_function"):
        _call(solver.solve, config, objective=objective, function=lambda _: value)
        _call(solver.solve, config, objective=objective, function=lambda _: (value, value))
