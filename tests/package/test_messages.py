"""Mistakes in the input get a short message that names the parameter and says what to do."""

import numpy as np
import pandas as pd
import pytest
from odtree import OptimalTreeClassifier, OptimalTreePredictor
from odtree._search.memory import MAX_BYTES, parse_bytes

X = np.random.default_rng(0).normal(size=(8, 2))


@pytest.mark.parametrize("y", [
    np.array([1, "a"] * 4, dtype=object),
    pd.Series([1, "a", 2.5, "a"] * 2),
    np.array(["yes", True] * 4, dtype=object),
], ids=["int-and-str", "series", "str-and-bool"])
def test_labels_mixing_numbers_and_strings(y):
    with pytest.raises(ValueError, match="^y mixes strings and other labels.*labels must be all "
                                         "numbers or all strings$"):
        OptimalTreeClassifier(max_depth=1).fit(X, y)


def test_predictor_labels_mixing_numbers_and_strings():
    model = OptimalTreePredictor(max_depth=1, fast_error_function=lambda w: float(w.min()))
    with pytest.raises(ValueError, match="^y mixes strings and other labels"):
        model.fit(X, np.array([1, "a"] * 4, dtype=object))


def test_labels_of_one_kind_in_an_object_array_are_fine():
    strings = OptimalTreeClassifier(max_depth=1).fit(X, np.array(["a", "b"] * 4, dtype=object))
    assert strings.classes_.tolist() == ["a", "b"]
    numbers = OptimalTreeClassifier(max_depth=1).fit(X, np.array([1, 2] * 4, dtype=object))
    assert numbers.classes_.tolist() == [1, 2]


@pytest.mark.parametrize("limit", ["50000000TB", 2**63, str(2**63), "1" + "0" * 400 + "TB"],
                         ids=["50000000TB", "2**63", "2**63-as-text", "1e400TB"])
def test_memory_limits_past_2_63_bytes(limit):
    message = f"memory_limit .* is too large: the largest is {MAX_BYTES} bytes"
    with pytest.raises(ValueError, match=message):
        parse_bytes(limit)
    with pytest.raises(ValueError, match=message):
        OptimalTreeClassifier(max_depth=1, memory_limit=limit).fit(X, [0, 1] * 4)


def test_large_memory_limits_that_fit():
    assert parse_bytes(MAX_BYTES) == parse_bytes(str(MAX_BYTES)) == 2**63 - 1
    assert parse_bytes("5TB") == 5 * 10**12
    assert parse_bytes("4.35KB") == 4350  # exact: not 4349 from 4.35 * 1000 in floats
    model = OptimalTreeClassifier(max_depth=1, memory_limit="5TB").fit(X, [0, 1] * 4)
    assert model.status_ == "optimal"
