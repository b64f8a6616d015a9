"""Memory-bounded search: a capped cache gives the same optimum as an unbounded one.

Caps are set as shares of the unbounded run's peak, so every test checks that wipes happened.
The Rust oracle (crates/odtree-core/src/oracle.rs) covers the engine on random data; these go
through the estimator on the shared datasets.
"""

import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import ALL_DATASETS, weighted_errors
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from odtree import OptimalTreeClassifier
from odtree._search.memory import parse_bytes
from odtree.exceptions import NotOptimalWarning
from oracles import brute_force_objective, instances

STRATEGIES = ["reuses", "descendants", "all"]
CACHES = ["trie", "hash", "dataset"]
NAMED = ["anneal", "hepatitis", "kr-vs-kp", "vote", "primary-tumor"]
#: Entries that the protected part of a depth ≤ 4 search always fits in.
ROOMY = 64


def _fit(X, y, **params):
    return OptimalTreeClassifier(**params).fit(X, y)


def _assert_same_optimum(model, free, X, y, cap=None):
    assert model.status_ == "optimal", model.get_params()
    assert model.objective_ == free.objective_
    assert weighted_errors(model, X, y) == model.objective_
    if cap is not None:
        assert model.cache_peak_entries_ <= cap


def test_parse_bytes_units():
    assert parse_bytes(1234) == 1234
    assert parse_bytes("500MB") == 500 * 10**6
    assert parse_bytes("2GiB") == 2 * 2**30
    assert parse_bytes("1.5 gb") == 1_500_000_000
    assert parse_bytes("64KiB") == 65536
    assert parse_bytes("100") == parse_bytes("100B") == 100


@pytest.mark.parametrize("value", ["lots", "5 MBs", "-5MB", "", "0", "1e9"])
def test_parse_bytes_rejects_what_is_not_a_size(value):
    with pytest.raises(ValueError, match="memory_limit"):
        parse_bytes(value)


@pytest.mark.parametrize("params", [
    {"memory_limit": 0}, {"memory_limit": 1.5}, {"memory_limit": "lots"},
    {"max_cache_entries": 0}, {"wipe_factor": 0.0}, {"wipe_factor": 1.5},
    {"wipe_strategy": "lru"},
])
def test_bad_memory_parameters_raise(params):
    X, y = np.eye(4, dtype=int), [0, 1, 1, 0]
    with pytest.raises(ValueError):
        _fit(X, y, **params)


def test_peaks_are_reported_without_a_limit(load):
    X, y = load("anneal")
    model = _fit(X, y, max_depth=3)
    assert model.n_wipes_ == 0
    assert model.cache_peak_entries_ >= model.n_cache_entries_ > 0
    assert model.cache_peak_bytes_ > 0


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.integers(2, 80), st.sampled_from(STRATEGIES),
       st.sampled_from([0.1, 0.5, 1.0]))
def test_capped_search_matches_brute_force(case, cap, strategy, factor):
    X = np.array(case["X"], dtype=np.int64)
    weight = np.array(case["weight"])
    model = OptimalTreeClassifier(
        max_depth=case["max_depth"], min_samples_leaf=case["min_samples_leaf"],
        max_leaf_nodes=case["max_leaf_nodes"], ccp_alpha=case["ccp_alpha"],
        search=case["search"], cache=case["cache"], max_cache_entries=cap,
        wipe_strategy=strategy, wipe_factor=factor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotOptimalWarning)
        model.fit(X, case["y"], sample_weight=weight)
    expected = brute_force_objective(case["X"], case["y"], case["weight"], case["max_depth"],
                                     case["min_samples_leaf"], case["max_leaf_nodes"],
                                     case["ccp_alpha"])
    assert model.cache_peak_entries_ <= cap
    if model.status_ == "optimal":
        assert model.objective_ == pytest.approx(expected, abs=1e-9)
    else:
        assert model.status_ == "memory_limit" and cap < ROOMY
        assert model.objective_ >= expected - 1e-9
        assert model.lower_bound_ <= expected + 1e-9


@pytest.mark.parametrize("name", NAMED)
def test_entry_caps_keep_the_optimum(load, name):
    """DL8.5 caches every node, so 10 % and 1 % of its peak are real caps at depth 3."""
    X, y = load(name)
    for cache in CACHES:
        free = _fit(X, y, max_depth=3, search="dl85", cache=cache)
        for share in [0.1, 0.01]:
            cap = max(int(share * free.cache_peak_entries_), ROOMY)
            for strategy in STRATEGIES:
                model = _fit(X, y, max_depth=3, search="dl85", cache=cache,
                             max_cache_entries=cap, wipe_strategy=strategy)
                _assert_same_optimum(model, free, X, y, cap)
                assert model.n_wipes_ > 0


@pytest.mark.parametrize("name", NAMED[:3])
def test_byte_caps_keep_the_optimum(load, name):
    X, y = load(name)
    for cache in CACHES:
        free = _fit(X, y, max_depth=3, search="dl85", cache=cache)
        for share in [0.5, 0.1]:
            limit = int(share * free.cache_peak_bytes_)
            model = _fit(X, y, max_depth=3, search="dl85", cache=cache, memory_limit=limit)
            _assert_same_optimum(model, free, X, y)
            assert model.n_wipes_ > 0 and model.cache_peak_bytes_ <= limit


@pytest.mark.parametrize("name", NAMED[:3])
def test_caps_keep_the_optimum_of_the_default_search(load, name):
    X, y = load(name)
    free = _fit(X, y, max_depth=4)
    for strategy in STRATEGIES:
        for cache in CACHES:
            cap = max(free.cache_peak_entries_ // 10, ROOMY)
            model = _fit(X, y, max_depth=4, cache=cache, max_cache_entries=cap,
                         wipe_strategy=strategy)
            _assert_same_optimum(model, free, X, y, cap)
            assert model.n_wipes_ > 0


def test_too_small_a_limit_stops_with_the_best_tree(load):
    X, y = load("anneal")
    for params in [{"max_cache_entries": 3}, {"memory_limit": "20KB"}]:
        with pytest.warns(NotOptimalWarning, match="memory limit"):
            model = _fit(X, y, max_depth=4, **params)
        assert model.status_ == "memory_limit" and not model.optimal_
        assert model.lower_bound_ <= model.objective_
        assert weighted_errors(model, X, y) == model.objective_


_RSS_SCRIPT = """
import json, warnings
from odtree import OptimalTreeClassifier
from odtree.datasets import load_benchmark

def kib(key):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(key))

X, y = load_benchmark("anneal")
OptimalTreeClassifier(max_depth=2).fit(X, y)  # loads everything a fit needs
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")  # resets the peak to the current size
base = kib("VmRSS:")
warnings.simplefilter("ignore")
model = OptimalTreeClassifier(max_depth=7, search="dl85", time_limit={time_limit},
                              memory_limit="{limit}").fit(X, y)
errors = float((model.predict(X) != y).sum())
print(json.dumps(dict(grown=(kib("VmHWM:") - base) * 1024, status=model.status_,
                      wipes=model.n_wipes_, objective=model.objective_, errors=errors,
                      peak_bytes=model.cache_peak_bytes_)))
"""


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc")
def test_memory_limit_bounds_the_process(data_dir):
    """Unbounded, this search holds about 1 GB after 13 s (benchmarks/RESULTS.md); with a
    150 MB limit the process grows by at most 1.25 times that, and the fit returns a valid
    tree."""
    limit = 150 * 10**6
    script = textwrap.dedent(_RSS_SCRIPT).format(time_limit=15.0, limit="150MB")
    env = dict(os.environ, ODTREE_DATA=str(data_dir))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["wipes"] > 0, "the limit was never reached"
    assert result["grown"] <= 1.25 * limit, result
    assert result["peak_bytes"] <= limit
    assert result["status"] in ("time_limit", "optimal")
    assert result["errors"] == result["objective"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_DATASETS)
def test_caps_keep_the_optimum_on_every_dataset(load, name):
    """Depths 3 and 4 of the default search, and depth 3 of DL8.5 (which caches every node),
    under caps of 50 %, 10 % and 1 % of the unbounded peak (never below ROOMY) and of 300
    entries, with every strategy."""
    X, y = load(name)
    for params in [{"max_depth": 3}, {"max_depth": 4}, {"max_depth": 3, "search": "dl85"}]:
        free = _fit(X, y, time_limit=120, **params)
        if not free.optimal_:
            pytest.skip(f"{name} {params} is not solved unbounded within 120 s")
        caps = {max(int(share * free.cache_peak_entries_), ROOMY) for share in (0.5, 0.1, 0.01)}
        for cap in sorted(caps | {300}):
            for strategy in STRATEGIES:
                model = _fit(X, y, max_cache_entries=cap, wipe_strategy=strategy, **params)
                _assert_same_optimum(model, free, X, y, cap)
                assert (model.n_wipes_ > 0) == (cap < free.cache_peak_entries_)
