"""The guide's worked example of a new estimator ("Adding an estimator") runs as the module it
says to write, passes scikit-learn's estimator checks and does what the guide says."""

import sys
import types
from pathlib import Path

import numpy as np
import pytest
from odtree import OptimalTreeClassifier
from sklearn.datasets import load_breast_cancer
from sklearn.utils.estimator_checks import check_estimator

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide.md"
MODULE = "odtree.model_selection._shallowest"


def _section_code(title: str) -> str:
    """The first Python block of the guide's section ``title``."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index(f"\n## {title}\n"):]
    start = section.index("```python\n") + len("```python\n")
    return section[start:section.index("```\n", start)]


@pytest.fixture(scope="module")
def shallowest():
    """The guide's ``ShallowestTreeClassifier``, run as ``odtree.model_selection._shallowest``."""
    module = types.ModuleType(MODULE)
    module.__package__ = "odtree.model_selection"
    sys.modules[MODULE] = module
    try:
        exec(compile(_section_code("Adding an estimator"), str(GUIDE), "exec"), module.__dict__)
        yield module.ShallowestTreeClassifier
    finally:
        del sys.modules[MODULE]


def test_the_example_passes_the_estimator_checks(shallowest, monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    results = check_estimator(shallowest(max_depth=2), on_fail=None)
    bad = [(r["check_name"], repr(r["exception"])) for r in results if r["status"] != "passed"]
    assert len(results) >= 40 and bad == []


def test_the_example_keeps_the_shallowest_tree_within_the_tolerance(shallowest):
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :4]
    errors = [OptimalTreeClassifier(max_depth=d).fit(X, y).objective_ for d in range(4)]
    for tolerance in (0.0, errors[2] - errors[3], errors[1] - errors[3] + 0.5):
        model = shallowest(max_depth=3, tolerance=tolerance).fit(X, y)
        least = min(d for d in range(4) if errors[d] <= errors[3] + tolerance)
        assert model.estimator_.max_depth == least
        np.testing.assert_array_equal(model.predict(X), model.estimator_.predict(X))
