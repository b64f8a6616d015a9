"""OptimalTreeRegressor's fitted tree: its node weights are the rows' weights."""

import numpy as np
from odtree import OptimalTreeRegressor
from odtree.tree._base import rows_per_node


def test_regressor_node_weights_are_the_rows_weights():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(80, 4))
    y = X[:, 0] * 4.0 + rng.normal(size=80)
    weights = rng.uniform(0.1, 3.0, size=80)
    for criterion in ("squared_error", "absolute_error"):
        model = OptimalTreeRegressor(max_depth=2, criterion=criterion).fit(
            X, y, sample_weight=weights)
        rows = rows_per_node(model.tree_, X)
        expected = [weights[r].sum() for r in rows]
        np.testing.assert_allclose(model.tree_.weighted_n_node_samples, expected)
