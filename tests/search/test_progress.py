"""Watching a search: ``verbose=1`` prints its progress, ``callback`` receives the same
events and may stop it."""

import io
import re
import sys
import warnings

import numpy as np
import pytest
from odtree import NotOptimalWarning, OptimalTreeClassifier, OptimalTreeRegressor, Progress
from sklearn.datasets import load_breast_cancer


def test_verbose_prints_time_stamped_progress_and_the_end(load, capsys):
    X, y = load("german-credit")
    model = OptimalTreeClassifier(max_depth=5, time_limit=1, verbose=1)
    with pytest.warns(NotOptimalWarning):
        model.fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    pattern = re.compile(r"\[ *([\d.]+) s\] objective (\S+) +"
                         r"(?:bound (\S+) +gap +([\d.]+)%|no bound yet)")
    parsed = [pattern.match(line) for line in lines]
    assert lines and all(parsed), lines
    assert lines[-1].endswith("(end)")
    seconds = [float(match.group(1)) for match in parsed]
    # at most four lines a second, but for the last
    assert all(b - a >= 0.24 for a, b in zip(seconds[:-2], seconds[1:-1], strict=True))
    assert float(parsed[-1].group(2)) == model.objective_
    if model.lower_bound_ > 0:
        assert float(parsed[-1].group(3)) == pytest.approx(model.lower_bound_, rel=1e-5)
    else:
        assert lines[-1].endswith("no bound yet (end)")
    # before the search proves a bound, a line says so rather than "bound 0, gap 100 %"
    assert not any(match.group(3) is not None and float(match.group(3)) == 0
                   and float(match.group(2)) > 0 for match in parsed)


def test_callback_sees_each_better_tree_then_the_end(load):
    X, y = load("vote")
    events = []
    model = OptimalTreeClassifier(max_depth=3, callback=events.append).fit(X, y)
    assert all(isinstance(event, Progress) for event in events)
    assert [event.final for event in events] == [False] * (len(events) - 1) + [True]
    objectives = [event.objective for event in events]
    assert objectives == sorted(objectives, reverse=True)
    assert np.all(np.diff([event.seconds for event in events]) >= 0)
    end = events[-1]
    assert end.objective == model.objective_ and end.bound == model.lower_bound_
    assert model.optimal_ and end.gap == 0
    # the same events as the log the model keeps
    np.testing.assert_allclose([[e.seconds, e.objective, e.bound] for e in events],
                               model.anytime_log_)


def test_a_callback_returning_true_stops_the_search(load):
    X, y = load("german-credit")
    events = []

    def stop_at_first(event):
        events.append(event)
        return True

    model = OptimalTreeClassifier(max_depth=6, time_limit=30, callback=stop_at_first)
    with pytest.warns(NotOptimalWarning, match="callback stopped"):
        model.fit(X, y)
    assert model.status_ == "stopped" and not model.optimal_
    assert model.fit_time_ < 5
    assert model.objective_ == float(np.sum(model.predict(X) != y))
    assert model.objective_ == events[-1].objective


def test_what_a_callback_raises_is_raised_by_fit(load):
    X, y = load("german-credit")

    def fail(event):
        raise RuntimeError("watcher failed")

    with pytest.raises(RuntimeError, match="watcher failed"):
        OptimalTreeClassifier(max_depth=6, time_limit=30, callback=fail).fit(X, y)


def test_regressor_and_solver_report_progress_too(capsys):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(200, 8))
    y = X[:, 0] * 3.0 + X[:, 1] + rng.normal(0, 0.1, 200)
    events = []
    model = OptimalTreeRegressor(max_depth=2, callback=events.append, verbose=1).fit(X, y)
    assert events[-1].final and events[-1].objective == pytest.approx(model.objective_)
    assert "(end)" in capsys.readouterr().out
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        OptimalTreeRegressor(max_depth=2, verbose=0).fit(X, y)
    assert capsys.readouterr().out == ""


def test_progress_gap():
    assert Progress(1.0, 10.0, 4.0).gap == pytest.approx(0.6)
    assert Progress(1.0, 0.0, 0.0).gap == 0.0


def test_a_line_before_any_proven_bound_says_so():
    line = str(Progress(3.0, 10.0, 0.0))
    assert line.endswith("objective 10           no bound yet")
    assert "gap" not in line and "100" not in line
    assert not Progress(3.0, 10.0, 0.0).bound_proven
    assert str(Progress(3.0, 10.0, 0.0, final=True)).endswith("no bound yet (end)")
    # a proven bound, or a perfect tree (objective 0, bound 0), reads as one
    assert "bound 4            gap  60.00%" in str(Progress(3.0, 10.0, 4.0))
    assert "bound 0            gap   0.00%" in str(Progress(3.0, 0.0, 0.0, final=True))
    assert "(end)" in str(Progress(1.0, 3.0, 3.0, final=True))


def test_progress_that_cannot_be_written_does_not_fail_the_fit(monkeypatch):
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr(sys, "stdout", closed)
    X, y = load_breast_cancer(return_X_y=True)
    model = OptimalTreeClassifier(max_depth=2, verbose=1, thresholds="quantile").fit(X, y)
    assert model.status_ == "optimal"
