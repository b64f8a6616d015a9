"""A fuzz of the Python API: random shapes, dtypes, NaN and infinities, labels,
weights and parameters for every estimator. The outcome of each call is a result or a clear
error (``ValueError``, ``TypeError``, ``MemoryError``), never a panic text, another
exception, a crash or a hang (each fit has a time limit; Hypothesis's deadline catches the
rest).

CI runs a few dozen examples per estimator. A longer run::

    ODTREE_FUZZ_EXAMPLES=2000 python -m pytest tests/package/test_fuzz_api.py -q
"""

from __future__ import annotations

import inspect
import os
import warnings

import numpy as np
import odtree
import pytest
from estimators import EXAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: Examples per estimator (the environment variable makes a longer run).
N_EXAMPLES = int(os.environ.get("ODTREE_FUZZ_EXAMPLES", "25"))

#: The errors that count as clear: the message says what is wrong.
CLEAR = (ValueError, TypeError, MemoryError)

#: Values a column may hold: ordinary and repeated ones, and extreme or missing ones.
ORDINARY = st.sampled_from([0.0, 1.0, 1.0, 2.5, -3.0, 7.25])
EXTREME = st.sampled_from([1e300, -1e-300, np.inf, -np.inf, np.nan])

#: Parameters each estimator is given (``tests/estimators.py``): a choice among the valid
#: values of each, or, in a wrong case, among the wrong ones too.
PARAMS = {name: example.fuzz for name, example in EXAMPLES.items() if example.fuzz}


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
    weighted = "sample_weight" in inspect.signature(estimator.fit).parameters
    fit_kwargs = {"sample_weight": sample_weight} if weighted and sample_weight is not None \
        else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if EXAMPLES[name].kind_check == "check_clustering":
            estimator.fit(X, **fit_kwargs)
        else:
            estimator.fit(X, y, **fit_kwargs)
        use = getattr(estimator, "predict", None) or estimator.transform
        out = use(X)
    assert len(out) == len(X)


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_every_call_gives_a_result_or_a_clear_error(name):
    @settings(max_examples=N_EXAMPLES, deadline=30_000, derandomize=True,
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
