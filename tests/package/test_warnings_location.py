"""odtree's warnings name the user's file and line, not scikit-learn's or odtree's internals."""

import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV

pytest.importorskip("odtree._core")

from odtree import OptimalTreeClassifier, OptimalTreeRegressor  # noqa: E402
from odtree.exceptions import InfeasibleWarning, NotOptimalWarning  # noqa: E402

HERE = Path(__file__).resolve()


def _data():
    rng = np.random.default_rng(0)
    return rng.integers(0, 2, (300, 30)), rng.integers(0, 2, 300)


def _of(caught, category):
    """The recorded warnings of ``category``; there must be some."""
    found = [w for w in caught if issubclass(w.category, category)]
    assert found, f"no {category.__name__} was raised"
    return found


@pytest.mark.parametrize("estimator", [OptimalTreeClassifier, OptimalTreeRegressor])
def test_time_limit_warning_points_at_the_fit_call(estimator):
    X, y = _data()
    model = estimator(max_depth=4, time_limit=0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        model.fit(X, y)
    for warning in _of(caught, NotOptimalWarning):
        assert Path(warning.filename).resolve() == HERE
        assert warning.lineno == line


def test_infeasible_warning_points_at_the_fit_call():
    X, y = _data()
    model = OptimalTreeClassifier(max_depth=2, upper_bound=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        model.fit(X, y)
    for warning in _of(caught, InfeasibleWarning):
        assert Path(warning.filename).resolve() == HERE
        assert warning.lineno == line


def test_warnings_through_meta_estimators_and_the_pruning_path_point_here():
    X, y = _data()
    search = GridSearchCV(OptimalTreeClassifier(max_depth=4, time_limit=0.0),
                          {"max_depth": [4]}, cv=2)
    model = OptimalTreeClassifier(max_depth=4, time_limit=0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y)
        model.cost_complexity_pruning_path(X, y)
    found = _of(caught, NotOptimalWarning)
    assert {Path(w.filename).resolve() for w in found} == {HERE}
    assert any("the path may not be exact" in str(w.message) for w in found)


def test_a_script_sees_its_own_file_and_line(tmp_path):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent("""\
        import numpy as np
        from odtree import OptimalTreeClassifier
        rng = np.random.default_rng(0)
        X, y = rng.integers(0, 2, (300, 30)), rng.integers(0, 2, 300)
        OptimalTreeClassifier(max_depth=4, time_limit=0.0).fit(X, y)
        """))
    done = subprocess.run([sys.executable, "-W", "always", str(script)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"{script}:5: NotOptimalWarning: time limit of 0.0 s reached" in done.stderr
    assert "sklearn" not in done.stderr and "odtree/" not in done.stderr
