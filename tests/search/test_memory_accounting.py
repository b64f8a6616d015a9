"""The memory limit counts everything, the remembered results of Python
leaf functions included, and the binarizer's work is capped by the distinct values."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from odtree import Binarizer

_CALLBACK_SCRIPT = """
import json, warnings
import numpy as np
from odtree import OptimalTreeClassifier
from odtree.datasets import load_benchmark

def kib(key):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(key))

X, y = load_benchmark("anneal")
def by_rows(rows):
    counts = np.bincount(y[rows], minlength=2)
    return float(counts.sum() - counts.max()), int(counts.argmax())
def by_weights(weights):
    return float(weights.sum() - weights.max()), int(np.argmax(weights))
leaf = {{"error_function": by_rows, "fast_error_function": by_weights}}["{kind}"]
OptimalTreeClassifier(max_depth=2, **{{"{kind}": leaf}}).fit(X, y)  # loads what a fit needs
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")  # resets the peak to the current size
base = kib("VmRSS:")
warnings.simplefilter("ignore")
model = OptimalTreeClassifier(max_depth=5, time_limit=10, memory_limit="{limit}",
                              **{{"{kind}": leaf}}).fit(X, y)
errors = float((model.predict(X) != y).sum())
print(json.dumps(dict(grown=(kib("VmHWM:") - base) * 1024, status=model.status_,
                      objective=model.objective_, errors=errors)))
"""


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("kind", ["error_function", "fast_error_function"])
def test_memory_limit_counts_remembered_callback_results(data_dir, kind):
    """Anneal at depth 5 with a Python leaf function: in 10 s, the results it remembers
    grew the process by 182 MB under a 30 MB limit before they were counted."""
    limit = 30 * 10**6
    script = textwrap.dedent(_CALLBACK_SCRIPT).format(kind=kind, limit="30MB")
    env = dict(os.environ, ODTREE_DATA=str(data_dir))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # the limit, plus what the interpreter and the callbacks' arguments take meanwhile
    assert result["grown"] <= limit + 20 * 10**6, result
    assert result["status"] in ("time_limit", "optimal")
    assert result["errors"] == result["objective"]


@pytest.mark.parametrize("n_thresholds", [10**9, 10**18])
def test_binarizer_work_is_capped_by_the_distinct_values(n_thresholds):
    """n_thresholds=10**9 allocated one level per threshold (15.7 GB)."""
    X = np.random.default_rng(0).normal(size=(1000, 3))
    tracemalloc.start()
    try:
        binarizer = Binarizer(n_thresholds=n_thresholds).fit(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20
    # a budget beyond the distinct values keeps every midpoint
    assert len(binarizer.features_) == 3 * 999
