"""A fuzz of the Python API (issue 30): random shapes, dtypes, NaN and infinities, labels,
weights and parameters for every estimator. The outcome of each call is a result or a clear
error (``ValueError``, ``TypeError``, ``MemoryError``), never a panic text, another
exception, a crash or a hang (each fit has a time limit; Hypothesis's deadline catches the
rest).

CI runs a few dozen examples per estimator. A longer run::

    ODTREE_FUZZ_EXAMPLES=2000 python -m pytest tests/test_fuzz_api.py -q
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import odtree
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: Examples per estimator (the environment variable makes a longer run).
EXAMPLES = int(os.environ.get("ODTREE_FUZZ_EXAMPLES", "25"))

#: The errors that count as clear: the message says what is wrong.
CLEAR = (ValueError, TypeError, MemoryError)

#: Values a column may hold: ordinary and repeated ones, and extreme or missing ones.
ORDINARY = st.sampled_from([0.0, 1.0, 1.0, 2.5, -3.0, 7.25])
EXTREME = st.sampled_from([1e300, -1e-300, np.inf, -np.inf, np.nan])

#: Parameters each estimator is given: a choice among the valid values of each, or, in a
#: wrong case, among the wrong ones too.
PARAMS = {
    "OptimalTreeClassifier": {"max_depth": ([0, 1, 2, 3, None], [-1]),
                              "min_samples_leaf": ([1, 2], [0]),
                              "thresholds": (["auto", "quantile", "exact", "midpoints"], ["x"]),
                              "missing": (["error", "split"], []),
                              "ccp_alpha": ([0.0, 0.01], [-1.0]),
                              "criterion": (["misclassification", "f1"], []),
                              "max_leaf_nodes": ([None, 2, 3], [1])},
    "OptimalTreeRegressor": {"max_depth": ([0, 1, 2, None], [-1]),
                             "min_samples_leaf": ([1, 3], [0]),
                             "thresholds": (["auto", "quantile", "exact"], []),
                             "criterion": (["squared_error", "absolute_error", "quantile"], []),
                             "max_leaf_nodes": ([None, 2, 3], [])},
    "OptimalTreeClusterer": {"max_depth": ([1, 2], [-2]), "n_clusters": ([None, 2, 3], [])},
    "GreedyTreeClassifier": {"max_depth": ([None, 0, 2], [-1]), "min_cases": ([1, 2], [0]),
                             "criterion": (["entropy", "gain_ratio"], ["gini"])},
    "LPBoostClassifier": {"max_depth": ([1, 2], []), "max_iterations": ([1, 3], [0])},
    "DistinctTreeSelector": {"max_depth": ([None, 1, 2], [])},
    "OptimalTreeCV": {"depths": ([(1,), (1, 2)], [(), (0,)]), "cv": ([2, 3], [1])},
}

#: Estimators given no labels.
UNSUPERVISED = {"OptimalTreeClusterer"}


@st.composite
def cases(draw, name):
    """An estimator of ``name`` with drawn parameters, X, y and sample weights: half of
    them well formed (so that fits run), half with something wrong."""
    wrong = draw(st.booleans())
    n_rows = draw(st.integers(0 if wrong else 6, 24))
    n_columns = draw(st.integers(0 if wrong else 1, 4))
    values = st.one_of(ORDINARY, EXTREME) if wrong else ORDINARY
    X = np.array([[draw(values) for _ in range(n_columns)] for _ in range(n_rows)],
                 dtype=np.float64).reshape(n_rows, n_columns)
    kind = draw(st.sampled_from(["float", "int", "bool", "object"]))
    if kind == "int":
        X = np.nan_to_num(X, nan=0.0, posinf=5.0, neginf=-5.0).clip(-9, 9).astype(np.int64)
    elif kind == "bool":
        X = np.nan_to_num(X) > 0
    elif kind == "object":
        X = X.astype(object)
    labels = draw(st.sampled_from(["ints", "strings", "one class", "floats", "nan"]
                                  if wrong else ["ints", "strings"]))
    y = np.array([i % 2 if i < 2 else draw(st.integers(0, 2)) for i in range(n_rows)])
    if labels == "strings":
        y = np.array(["a", "b", "c"])[y] if n_rows else np.array([], dtype=str)
    elif labels == "one class":
        y = np.zeros(n_rows, dtype=np.int64)
    elif labels == "floats":
        y = y * 1.5
    elif labels == "nan":
        y = np.where(y == 2, np.nan, y.astype(float))
    weight = draw(st.sampled_from(["none", "ones", "random", "negative", "zero", "nan"]
                                  if wrong else ["none", "ones", "random"]))
    sample_weight = {"none": None, "ones": np.ones(n_rows), "zero": np.zeros(n_rows),
                     "random": np.linspace(0.1, 3.0, n_rows),
                     "negative": -np.ones(n_rows),
                     "nan": np.full(n_rows, np.nan)}[weight]
    params = {}
    for key, (valid, invalid) in PARAMS[name].items():
        if draw(st.booleans()):
            params[key] = draw(st.sampled_from(valid + invalid if wrong else valid))
    return params, X, y, sample_weight


def _call(name, params, X, y, sample_weight):
    """Fits ``name`` with ``params`` and predicts on X: a result or a clear error."""
    estimator = getattr(odtree, name)(**params)
    if "time_limit" in estimator.get_params():
        estimator.set_params(time_limit=2)
    fit_kwargs = {} if sample_weight is None or name in ("DistinctTreeSelector",
                                                          "LPBoostClassifier") \
        else {"sample_weight": sample_weight}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name in UNSUPERVISED:
            estimator.fit(X, **fit_kwargs)
        else:
            estimator.fit(X, y, **fit_kwargs)
        use = getattr(estimator, "predict", None) or estimator.transform
        out = use(X)
    assert len(out) == len(X)


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_every_call_gives_a_result_or_a_clear_error(name):
    @settings(max_examples=EXAMPLES, deadline=30_000, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(cases(name))
    def check(case):
        params, X, y, sample_weight = case
        try:
            _call(name, params, X, y, sample_weight)
        except CLEAR as error:
            message = str(error)
            assert message.strip(), f"an error without a message: {error!r}"
            assert "panicked" not in message and "internal error" not in message, message
        # anything else (a panic, a RuntimeError, an IndexError, ...) fails the test

    check()
