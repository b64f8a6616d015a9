"""The binarizer at its limits: huge threshold budgets, many columns, deadlines and Ctrl-C."""

import json
import time
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from odtree import OptimalTreeClassifier
from odtree._utils.deadline import Deadline
from odtree.preprocessing import _binarizer
from odtree.preprocessing._binarizer import Binarizer
from odtree.preprocessing._thresholds import _QUANTILE_TOLERANCE, _first_level_above


def searched_thresholds(x, weight, n_thresholds):
    """The "quantile" thresholds of one column by searching every level (the Notes' rule as
    first written: memory and time grow with n_thresholds)."""
    values, inverse = np.unique(x, return_inverse=True)
    fraction = np.cumsum(np.bincount(inverse, weights=weight, minlength=len(values)))
    fraction /= fraction[-1]
    levels = np.arange(1, n_thresholds + 1) / (n_thresholds + 1)
    lower = np.unique(np.searchsorted(fraction, levels - _QUANTILE_TOLERANCE))
    lower = lower[lower < len(values) - 1]
    middle = values[lower] / 2 + values[lower + 1] / 2
    return np.where(middle < values[lower + 1], middle, values[lower]).tolist()


def thresholds_by_column(binarizer):
    found = {}
    for feature in binarizer.features_:
        found.setdefault(feature.column, []).append(feature.value)
    return found


@st.composite
def weighted_columns(draw):
    """Columns with repeated values, weights that often sum to round shares, and budgets
    whose levels often fall on those shares (where the tolerance decides)."""
    n_rows = draw(st.integers(1, 40))
    values = st.one_of(st.integers(-4, 4).map(float),
                       st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False))
    X = draw(arrays(np.float64, (n_rows, draw(st.integers(1, 4))), elements=values))
    weights = st.one_of(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.7, 1.0, 3.0]),
                        st.floats(0, 10, allow_subnormal=False))
    weight = draw(arrays(np.float64, n_rows, elements=weights))
    if not weight.any():
        weight[0] = 1.0
    n_thresholds = draw(st.one_of(st.integers(1, 200),
                                  st.integers(1, 5).map(lambda m: m * n_rows - 1)
                                  .filter(lambda n: n >= 1)))
    return X, weight, n_thresholds


@settings(max_examples=200, deadline=None)
@given(data=weighted_columns())
def test_quantile_thresholds_equal_the_search_over_every_level(data):
    X, weight, n_thresholds = data
    binarizer = Binarizer(n_thresholds=n_thresholds).fit(X, sample_weight=weight)
    found = thresholds_by_column(binarizer)
    kept = weight > 0
    for j in range(X.shape[1]):
        x = X[kept, j]
        if np.isin(x, (0.0, 1.0)).all():
            continue  # a 0/1 column passes through
        assert found.get(j, []) == searched_thresholds(x, weight[kept], n_thresholds)


@pytest.mark.parametrize("n_thresholds", [10**9, 10**18, 2**53 + 1, 10**400],
                         ids=["1e9", "1e18", "2**53+1", "1e400"])
def test_huge_threshold_budgets_take_little_time_and_memory(n_thresholds):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 1))
    weight = rng.random(1000) + 0.5
    tracemalloc.start()
    start = time.perf_counter()
    try:
        binarizer = Binarizer(n_thresholds=n_thresholds).fit(X, sample_weight=weight)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 2.0
    assert peak < 50e6
    midpoints = Binarizer(strategy="midpoints").fit(X)
    assert binarizer.features_ == midpoints.features_  # levels finer than every weight gap


@pytest.mark.parametrize("n_thresholds", [2**53 + 5, 2**60, 10**19, 10**30],
                         ids=["2**53+5", "2**60", "1e19", "1e30"])
def test_first_level_above_beyond_exact_integers(n_thresholds):
    """Levels past 2**53 are floats standing for the integers that round to them; compare
    with a bisection over those integers."""
    scale, last = float(n_thresholds + 1), float(n_thresholds)

    def level(i):
        return i / scale - _QUANTILE_TOLERANCE

    def bisected(fraction):
        low, high = 1, n_thresholds
        if level(float(high)) <= fraction:
            return np.inf
        while low < high:
            middle = (low + high) // 2
            low, high = (low, middle) if level(float(middle)) > fraction else (middle + 1, high)
        return float(low)

    rng = np.random.default_rng(1)
    fraction = np.concatenate([rng.random(100), rng.random(20) * 1e-11, [0.0, 0.5, 1.0]])
    expected = [bisected(f) for f in fraction]
    assert _first_level_above(fraction, level, scale, last).tolist() == expected


def wide(n_columns=100_000, n_rows=10):
    return np.random.default_rng(2).normal(size=(n_rows, n_columns))


def test_deadline_in_the_past_stops_at_once_with_no_features():
    X = wide()
    binarizer = Binarizer()
    start = time.perf_counter()
    binary_X = binarizer._fit_kept(X, None, None, deadline=Deadline(0))
    # the whole fit takes seconds (3.7 s here); reading X and one look at the deadline far
    # less, even on a loaded machine
    assert time.perf_counter() - start < 1.0
    assert binarizer.stopped_ == "time_limit" and binarizer.features_ == []
    assert binary_X.shape == (10, 0) and binary_X.dtype == np.uint8
    assert binarizer.transform(X[:3]).shape == (3, 0)
    assert binarizer.get_feature_names_out().shape == (0,)
    copy = Binarizer.from_dict(json.loads(json.dumps(binarizer.to_dict())))
    assert copy.transform(X).shape == (10, 0)


def test_deadline_stops_a_wide_fit_with_a_prefix_of_the_features():
    """Best of three runs: a garbage collection among the many features, or a busy machine,
    can hold up one. The whole fit takes seconds; a 0.1 s deadline stops it after the block
    of columns under way (hundredths of a second) and the matrix of the features made."""
    X = wide()
    seconds = []
    for _ in range(3):
        binarizer = Binarizer()
        start = time.perf_counter()
        binary_X = binarizer._fit_kept(X, None, None, deadline=Deadline(0.1))
        seconds.append(time.perf_counter() - start)
        if seconds[-1] < 0.5:
            break
    assert min(seconds) < 0.5
    assert binarizer.stopped_ == "time_limit"
    done = binarizer.features_[-1].column + 1
    assert 0 < done < X.shape[1]
    assert binarizer.features_ == Binarizer().fit(X[:, :done]).features_
    np.testing.assert_array_equal(binary_X, binarizer.transform(X))
    copy = Binarizer.from_dict(json.loads(json.dumps(binarizer.to_dict())))
    assert copy.features_ == binarizer.features_
    np.testing.assert_array_equal(copy.transform(X), binary_X)


def test_a_fit_within_its_deadline_is_complete():
    X = wide(n_columns=300)
    binarizer = Binarizer()
    binary_X = binarizer._fit_kept(X, None, None, deadline=Deadline(60))
    assert binarizer.stopped_ is None
    assert binarizer.features_ == Binarizer().fit(X).features_
    assert binary_X.shape == (10, 2700)


def interrupt_on_call(monkeypatch, name, call):
    """Make the binarizer's ``name`` raise KeyboardInterrupt on its ``call``-th call."""
    real = getattr(_binarizer, name)
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(_binarizer, name, interrupted)


def test_ctrl_c_keeps_the_blocks_done(monkeypatch):
    X = wide(n_columns=10_000)
    width = _binarizer._BLOCK_VALUES // X.shape[0]  # columns per block, 9 thresholds each
    full = Binarizer().fit(X).features_
    interrupt_on_call(monkeypatch, "thresholds_of", 2)
    binarizer = Binarizer()
    binary_X = binarizer._fit_kept(X, None, None)
    assert binarizer.stopped_ == "interrupted"
    assert binarizer.features_ == full[:9 * width]
    np.testing.assert_array_equal(binary_X, binarizer.transform(X))


def test_a_plain_fit_lets_ctrl_c_through(monkeypatch):
    interrupt_on_call(monkeypatch, "thresholds_of", 1)
    with pytest.raises(KeyboardInterrupt):
        Binarizer().fit(wide(n_columns=10))


def test_deadline_with_categorical_columns():
    frame = pd.DataFrame({"a": ["x", "y", "z", "x"], "b": [1.0, 2.0, 3.0, 4.0],
                          "c": ["u", "v", "u", "v"]})
    binarizer = Binarizer()
    binarizer._fit_kept(frame, None, None, deadline=Deadline(0))
    assert binarizer.stopped_ == "time_limit"
    assert binarizer.transform(frame).shape == (4, 0)
    binarizer._fit_kept(frame, None, None, deadline=Deadline(60))
    assert binarizer.stopped_ is None and len(binarizer.features_) == 7


@pytest.mark.parametrize("strategy", ["quantile", "midpoints", "tree"])
def test_blocks_give_the_features_of_one_block(strategy, monkeypatch):
    """Columns binarized in many small blocks get the features of one big block."""
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(size=(60, 20)), rng.integers(0, 2, size=(60, 5)),
                         rng.integers(0, 4, size=(60, 5))])
    y = (X[:, 0] + X[:, 21] > 0.5).astype(int)
    weight = rng.integers(0, 3, size=60)
    one_block = Binarizer(strategy, n_thresholds=4).fit(X, y, sample_weight=weight)
    monkeypatch.setattr(_binarizer, "_BLOCK_VALUES", 70)
    blocks = Binarizer(strategy, n_thresholds=4).fit(X, y, sample_weight=weight)
    assert blocks.features_ == one_block.features_
    assert any(f.kind == "binary" for f in blocks.features_)


def test_a_binary_matrix_larger_than_free_memory_is_refused_up_front(monkeypatch):
    import odtree.preprocessing._binarizer as binarizer

    pages = {"SC_AVPHYS_PAGES": 1000, "SC_PAGE_SIZE": 4096}  # 4 MB free
    monkeypatch.setattr(binarizer.os, "sysconf", lambda name: pages[name])
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = rng.integers(0, 2, 2000)
    with pytest.raises(MemoryError, match=r"binary features over 2,000 rows needs .* GiB"):
        OptimalTreeClassifier(max_depth=1, missing="split", thresholds="midpoints").fit(X, y)
