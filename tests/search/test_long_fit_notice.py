"""No default call runs for minutes in silence: a search that nobody watches and that has no
time limit says once on stderr, after ``NOTICE_AFTER`` seconds, that it goes on and how to
watch or bound it; a watched or time-limited search, or a short one, says nothing."""

from __future__ import annotations

import io
import time

import pytest
from odtree import OptimalTreeClassifier
from odtree._search import progress as _progress
from odtree.cli import main
from sklearn.datasets import load_breast_cancer


@pytest.fixture
def soon(monkeypatch):
    """The notice after 0.01 s instead of 10 s."""
    monkeypatch.setattr(_progress, "NOTICE_AFTER", 0.01)


def test_the_notice_comes_once_after_the_delay(soon):
    out = io.StringIO()
    with _progress.long_search_notice(True, out):
        time.sleep(0.3)
    assert out.getvalue().count("odtree: the search has run for 0.01 s") == 1
    assert "verbose=1" in out.getvalue() and "time_limit=SECONDS" in out.getvalue()


def test_no_notice_when_disabled_or_short():
    out = io.StringIO()
    with _progress.long_search_notice(True, out):
        pass
    time.sleep(0.05)
    assert out.getvalue() == ""


def test_a_long_fit_prints_the_notice(soon, capfd):
    X, y = load_breast_cancer(return_X_y=True)
    # a depth-3 proof on breast cancer takes tenths of a second, well past 0.01 s
    OptimalTreeClassifier(max_depth=3).fit(X, y)
    assert "odtree: the search has run for" in capfd.readouterr().err


@pytest.mark.parametrize("params", [{"verbose": 1}, {"time_limit": 60}])
def test_a_watched_or_bounded_fit_prints_no_notice(soon, capfd, params):
    X, y = load_breast_cancer(return_X_y=True)
    OptimalTreeClassifier(max_depth=3, **params).fit(X, y)
    assert "odtree: the search has run for" not in capfd.readouterr().err


def test_the_command_line_notice_names_its_flags(soon, capfd, tmp_path):
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    data = X.assign(label=y)
    path = tmp_path / "cancer.csv"
    data.to_csv(path, index=False)
    assert main(["fit", str(path), "--target", "label", "--max-depth", "3",
                 "--no-progress"]) == 0
    err = capfd.readouterr().err
    assert "--verbose" in err and "--time-limit SECONDS" in err and "verbose=1" not in err
    assert _progress.NOTICE_ADVICE.startswith("pass verbose=1")
