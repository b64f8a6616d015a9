"""A proven optimum ends the search at once: a tree that meets the root's proven bound (a
perfect tree, for misclassification) is returned as optimal without a proof that would only
find it again, with or without a time limit, in the Pareto search of F1 and in the command line."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from odtree import NotOptimalWarning, OptimalTreeClassifier
from odtree.cli import main
from sklearn.datasets import load_breast_cancer


@pytest.mark.parametrize("time_limit", [None, 10.0])
def test_a_perfect_tree_ends_the_search(time_limit):
    # the lookahead finds a perfect depth-5 tree in well under a second; the proof that
    # followed it took 23-55 s and, under a time limit of 10 s, ended as "time_limit"
    X, y = load_breast_cancer(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotOptimalWarning)
        model = OptimalTreeClassifier(max_depth=5, time_limit=time_limit).fit(X, y)
    assert model.objective_ == 0
    assert model.status_ == "optimal"
    assert model.lower_bound_ == 0
    assert model.score(X, y) == 1.0
    # the proof created hundreds of thousands of entries; the lookahead alone about a thousand
    assert model.cache_created_entries_ < 5_000


def test_a_perfect_split_ends_the_pareto_search():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(200, 12))
    y = X[:, 0]
    model = OptimalTreeClassifier(max_depth=3, criterion="f1").fit(X, y)
    assert model.objective_ == 1.0
    assert model.status_ == "optimal"
    assert model.get_n_leaves() == 2
    # the root's front stops at the first feature, which separates the classes: before, every
    # feature's depth-2 children were solved
    assert model.n_cache_entries_ == 1


def test_the_command_line_stops_at_a_perfect_tree(tmp_path, capsys):
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    path = tmp_path / "cancer.csv"
    X.assign(label=y).to_csv(path, index=False)
    assert main(["fit", str(path), "--target", "label", "--max-depth", "5",
                 "--time-limit", "10", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "status optimal, optimal True" in err and "objective 0," in err
    assert "may not be optimal" not in err
