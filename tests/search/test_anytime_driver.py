"""The anytime rounds before the proof: under a time limit the optimum is the same with them
and without, and the tree they find along the way is a real one."""

import numpy as np
import pytest
from odtree import OptimalTreeClassifier, OptimalTreeRegressor


@pytest.mark.parametrize("name, depth", [
    ("german-credit", 4), ("australian-credit", 4), ("vehicle", 4), ("yeast", 4),
    ("hepatitis", 5), ("lymph", 5), ("breast-wisconsin", 5),
])
def test_rounds_keep_the_optimum(load, name, depth):
    X, y = load(name)
    plain = OptimalTreeClassifier(max_depth=depth).fit(X, y)
    for settings in ({"anytime": True}, {"anytime": False}, {"anytime": True, "cache": "hash"},
                     {"anytime": True, "ccp_alpha": 0.005}):
        model = OptimalTreeClassifier(max_depth=depth, time_limit=600, **settings).fit(X, y)
        reference = plain if "ccp_alpha" not in settings else OptimalTreeClassifier(
            max_depth=depth, ccp_alpha=0.005).fit(X, y)
        assert model.optimal_, settings
        assert model.objective_ == pytest.approx(reference.objective_), settings
        assert model.lower_bound_ == pytest.approx(reference.objective_), settings


def test_rounds_report_real_trees(load):
    """Each tree the rounds report is one the model could return: its objective is what its
    leaves cost, and the log only improves."""
    X, y = load("splice-1")
    model = OptimalTreeClassifier(max_depth=5, time_limit=1, anytime=True)
    with pytest.warns(Warning):
        model.fit(X, y)
    objectives = model.anytime_log_[:, 1]
    assert np.all(np.diff(objectives[:-1]) < 0)
    assert model.objective_ == objectives[-1] == float(np.sum(model.predict(X) != y))


def test_regressor_rounds_keep_the_optimum():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(300, 12))
    y = X[:, 0] * 2.0 + X[:, 1] * X[:, 2] + rng.normal(0, 0.3, 300)
    plain = OptimalTreeRegressor(max_depth=3).fit(X, y)
    rounds = OptimalTreeRegressor(max_depth=3, time_limit=600, anytime=True).fit(X, y)
    assert rounds.optimal_ and rounds.objective_ == pytest.approx(plain.objective_)
