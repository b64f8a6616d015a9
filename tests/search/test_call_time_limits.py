"""``time_limit`` bounds the whole call, for the calls made of many searches (the pruning
path, ``OptimalTreeCV``) and for the greedy learner: each returns within
``time_limit * 1.1 + 0.4`` seconds, timed from outside in a process of its own. Ctrl-C stops
the greedy learner within 0.5 s with the tree grown so far."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from test_time_limits import launch, outcome_of

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")

#: Calls far from finishing within the limits below; each sets ``status`` for the outcome.
CASES = {
    # one search per leaf count, each on ~15,000 binary features
    "pruning_path": """
        from sklearn.datasets import load_breast_cancer
        X, y = load_breast_cancer(return_X_y=True)
        model = OptimalTreeClassifier(max_depth=3, thresholds="midpoints", time_limit=LIMIT)
        def call():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                path = model.cost_complexity_pruning_path(X, y)
            assert len(path.ccp_alphas) >= 1
            return [type(w.message).__name__ for w in caught]
    """,
    # three folds and a refit, two depths each
    "optimal_tree_cv": """
        from sklearn.datasets import load_breast_cancer
        from odtree import OptimalTreeCV
        X, y = load_breast_cancer(return_X_y=True)
        model = OptimalTreeCV(depths=(2, 3), cv=3, time_limit=LIMIT,
                              estimator=OptimalTreeClassifier(thresholds="midpoints"))
        def call():
            model.fit(X, y)
            return model.best_estimator_.status_
    """,
    # a tree grown to purity on random labels: hundreds of thousands of nodes
    "greedy": """
        from odtree import GreedyTreeClassifier
        rng = np.random.default_rng(0)
        X = rng.normal(size=(200_000, 40))
        y = rng.integers(0, 2, size=200_000)
        model = GreedyTreeClassifier(min_cases=1, time_limit=LIMIT)
        def call():
            model.fit(X, y)
            return model.status_
    """,
    # column generation over optimal depth-3 trees of 287 binary features
    "lpboost": """
        from odtree import LPBoostClassifier
        from conftest import load_dataset
        X, y = load_dataset("splice-1")
        model = LPBoostClassifier(max_depth=3, time_limit=LIMIT)
        def call():
            model.fit(X, y)
            return "time_limit" if not model.optimal_ else "optimal"
    """,
    # an optimal depth-3 clustering of 3,000 points on every threshold of 6 columns
    "clusterer": """
        from odtree import OptimalTreeClusterer
        X = np.random.default_rng(0).normal(size=(3000, 6))
        model = OptimalTreeClusterer(max_depth=3, thresholds="midpoints", time_limit=LIMIT)
        def call():
            model.fit(X)
            return model.status_
    """,
    # backward elimination over 40 columns, each step many greedy trees
    "selector": """
        from odtree import DistinctTreeSelector
        rng = np.random.default_rng(0)
        X = rng.normal(size=(20_000, 40))
        y = (X[:, 0] + rng.normal(size=20_000) > 0).astype(int)
        model = DistinctTreeSelector(time_limit=LIMIT)
        def call():
            model.fit(X, y)
            return model.stopped_
    """,
}

#: The child: builds the case, says "calling", calls, prints the outcome as JSON.
CHILD = """
import json, signal, sys, time, warnings
import numpy as np
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.path.insert(0, {tests!r})
from odtree import OptimalTreeClassifier
warnings.simplefilter("ignore")
LIMIT = {limit!r}
{case}
print("calling", flush=True)
start = time.perf_counter()
status = call()
print(json.dumps({{"seconds": time.perf_counter() - start, "status": status}}), flush=True)
"""


def _start(case: str, limit: float | None) -> subprocess.Popen:
    return launch(CHILD.format(tests=str(Path(__file__).parents[1]), limit=limit,
                               case=textwrap.dedent(CASES[case])), "calling")


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_whole_call_returns_within_the_time_limit(case):
    limit = 2.0
    outcome = outcome_of(_start(case, limit), timeout=120)
    assert outcome["seconds"] <= limit * 1.1 + 0.4, outcome
    # the limit did bind: each call was stopped short of its end
    if case == "pruning_path":
        assert "NotOptimalWarning" in outcome["status"], outcome
    else:
        assert outcome["status"] == "time_limit", outcome


def test_ctrl_c_stops_the_greedy_learner_with_the_tree_so_far():
    child = _start("greedy", None)
    time.sleep(1.0)
    sent = time.perf_counter()
    child.send_signal(signal.SIGINT)
    outcome = outcome_of(child, timeout=30)
    assert outcome["received"] - sent <= 0.5, outcome
    assert outcome["status"] == "interrupted"
