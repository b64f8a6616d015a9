"""The cost-complexity pruning path of an optimal tree."""

import numpy as np
from odtree import OptimalTreeClassifier


def test_the_pruning_path_does_not_change_with_the_scale_of_the_weights():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (40, 5))
    y = X[:, 0] ^ X[:, 1]
    model = OptimalTreeClassifier(max_depth=2)
    unit = model.cost_complexity_pruning_path(X, y)
    tiny = model.cost_complexity_pruning_path(X, y, sample_weight=np.full(40, 1e-12))
    np.testing.assert_array_equal(unit.n_leaves, tiny.n_leaves)
    np.testing.assert_allclose(unit.ccp_alphas, tiny.ccp_alphas)
    assert len(unit.n_leaves) == 3
