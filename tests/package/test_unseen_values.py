"""Prediction never fails on a value that a 0/1 column did not show in fit: such a column is a
numeric column whose one test is ``x > 0.5``, for every estimator that binarizes, in
cross-validation and grid search, and in the command line's ``predict``."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from odtree import (
    DepthImprover,
    GreedyTreeClassifier,
    LPBoostClassifier,
    MDBoostClassifier,
    OptimalTreeClassifier,
    OptimalTreeClusterer,
    OptimalTreeCV,
    OptimalTreeRegressor,
    from_json,
    to_json,
)
from odtree.cli import main
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, cross_val_score, train_test_split


@pytest.fixture(scope="module")
def digits():
    """Digits: 64 pixel columns of 0..16; some columns hold only 0 and 1 in a part of the rows."""
    return load_digits(return_X_y=True)


def test_a_plain_split_scores(digits):
    X, y = digits
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    model = OptimalTreeClassifier(max_depth=2).fit(X_train, y_train)
    assert 0.2 < model.score(X_test, y_test) <= 1.0


def test_cross_validation_gives_a_finite_score_for_every_fold(digits):
    X, y = digits
    scores = cross_val_score(OptimalTreeClassifier(max_depth=2), X, y, cv=5,
                             error_score="raise")
    assert np.all(np.isfinite(scores)) and np.all(scores > 0.2)


def test_grid_search_scores_every_point(digits):
    X, y = digits
    search = GridSearchCV(OptimalTreeClassifier(), {"max_depth": [1, 2]}, cv=3,
                          error_score="raise").fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores))
    assert search.best_params_ == {"max_depth": 2} and scores[1] > scores[0]


def test_optimal_tree_cv_fits_and_scores(digits):
    X, y = digits
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    model = OptimalTreeCV(depths=(1, 2), cv=3).fit(X_train, y_train)
    assert np.isfinite(model.score(X_test, y_test))


@pytest.mark.parametrize("make", [
    lambda: GreedyTreeClassifier(max_depth=3),
    lambda: LPBoostClassifier(max_depth=1, max_iterations=5),
    lambda: MDBoostClassifier(max_depth=1, max_iterations=5),
    lambda: DepthImprover(time_limit=2),
    lambda: OptimalTreeRegressor(max_depth=2),
], ids=["greedy", "lpboost", "mdboost", "depth-improver", "regressor"])
def test_every_binarizing_estimator_predicts_unseen_values(make):
    # a column of 0 and 1 in fit that holds 2 and 7 at predict time
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 2, 120), rng.normal(size=120)])
    y = (X[:, 0] == 1) ^ (X[:, 1] > 1.0)
    X_new = X.copy()
    X_new[:5, 0] = [2, 7, -1, 0.75, 0.25]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DepthImprover's time limit
        model = make().fit(X, y.astype(int))
    predicted = model.predict(X_new)
    # 2, 7 and 0.75 route as 1; -1 and 0.25 as 0
    routed = X_new.copy()
    routed[:, 0] = X_new[:, 0] > 0.5
    np.testing.assert_array_equal(predicted, model.predict(routed))


def test_the_clusterer_predicts_unseen_values(digits):
    X, _ = digits
    X_train, X_test = train_test_split(X[:400], random_state=0)
    model = OptimalTreeClusterer(max_depth=2).fit(X_train)
    assert model.predict(X_test).shape == (len(X_test),)


def test_a_saved_model_loads_and_predicts_the_same(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(80, 4))
    y = X[:, 0] & X[:, 1]
    model = OptimalTreeClassifier(max_depth=2).fit(X, y)
    loaded = from_json(to_json(model))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    X_new = X * 3
    np.testing.assert_array_equal(loaded.predict(X_new), model.predict(X_new > 0.5))


def test_the_command_line_predicts_unseen_values(tmp_path, capsys):
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(60, 3))
    y = X[:, 0] | X[:, 2]
    train = tmp_path / "train.csv"
    rows = ["a,b,c,label"] + [f"{a},{b},{c},{t}" for (a, b, c), t in zip(X, y, strict=True)]
    train.write_text("\n".join(rows) + "\n")
    assert main(["fit", str(train), "--target", "label", "--max-depth", "2",
                 "--format", "json"]) == 0
    model_path = tmp_path / "model.json"
    model_path.write_text(capsys.readouterr().out)
    json.loads(model_path.read_text())
    new = tmp_path / "new.csv"
    new.write_text("a,b,c\n5,0,0\n0,0,3\n0,9,0\n")
    assert main(["predict", str(model_path), str(new)]) == 0
    assert capsys.readouterr().out.split() == ["1", "1", "0"]
