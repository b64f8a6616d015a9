"""The progress of a fit: ``anytime_log_`` and ``plot_anytime``."""

from __future__ import annotations

import warnings

import matplotlib
import numpy as np
from odtree import OptimalTreeClassifier, plot_anytime

matplotlib.use("Agg")


def test_the_log_shows_better_trees_and_ends_where_the_fit_ends(load):
    X, y = load("german-credit")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = OptimalTreeClassifier(max_depth=5, time_limit=1.0).fit(X, y)
    log = model.anytime_log_
    assert log.shape[1] == 3 and len(log) >= 2  # the incumbent, then the end
    assert np.all(np.diff(log[:, 0]) >= 0)
    # each tree on the way is no worse than the one before (within rounding)
    assert np.all(np.diff(log[:-1, 1]) <= 1e-9 * log[0, 1])
    assert log[-1, 1] == model.objective_ and log[-1, 2] == model.lower_bound_
    assert log[-1, 1] <= log[0, 1]
    assert np.all(log[:, 2] <= model.objective_)


def test_a_proven_fit_ends_its_log_with_the_optimum(load):
    X, y = load("vote")
    model = OptimalTreeClassifier(max_depth=3).fit(X, y)
    assert model.optimal_
    assert model.anytime_log_[-1, 1] == model.anytime_log_[-1, 2] == model.objective_


def test_plot_anytime_draws_the_objective_and_the_bound(load):
    import matplotlib.pyplot as plt

    X, y = load("vote")
    model = OptimalTreeClassifier(max_depth=3).fit(X, y)
    figure, ax = plt.subplots()
    assert plot_anytime(model, ax=ax) is ax
    assert [line.get_label() for line in ax.get_lines()] == ["objective", "lower bound"]
    plt.close(figure)
