"""OptimalTreeClusterer at the edges of its input: huge points, complex numbers, no tree found."""

import warnings

import numpy as np
import pytest
from odtree import OptimalTreeClusterer


def test_clusterer_of_huge_points_fits():
    """Raised AttributeError: upper_bound."""
    points = np.random.default_rng(0).normal(size=(20, 2)) * 1e200
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = OptimalTreeClusterer(max_depth=2).fit(points)
    assert model.status_ == "optimal" and np.isfinite(model.objective_)


def test_a_clusterer_that_finds_no_tree_warns_without_upper_bound():
    """The infeasibility warning read ``self.upper_bound``, which clusterers do not have."""
    model = OptimalTreeClusterer(max_depth=1)
    model.status_ = "infeasible"
    with pytest.warns(UserWarning, match="upper_bound=None"):
        model._warn_status()


@pytest.mark.parametrize("scale", [1e300, 1e305, 1e306])
def test_the_clusterer_separates_huge_points_or_refuses_them(scale):
    X = np.array([[0.0], [1.0]])
    model = OptimalTreeClusterer(max_depth=1).fit(X, X_error=np.array([[1.0], [2.0]]) * scale)
    assert model.status_ == "optimal" and model.objective_ == 0.0
    assert sorted(model.labels_.tolist()) == [0, 1]
    with pytest.raises(ValueError, match="overflow"):
        OptimalTreeClusterer(max_depth=1).fit(X, X_error=np.array([[1.0], [9.87]]) * 1e307)


def test_the_clusterer_refuses_complex_numbers():
    X = np.array([[0.0], [1.0]])
    with pytest.raises(ValueError, match="complex"):
        OptimalTreeClusterer(max_depth=1).fit(X, X_error=np.array([[1j], [2.0]]))
    with pytest.raises(ValueError, match="(?i)complex"):
        OptimalTreeClusterer(max_depth=1).fit(X + 1j)
