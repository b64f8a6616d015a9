"""The brute-force oracle the optimal trees are checked against: every tree of small depth over
small 0/1 data, in plain Python, and the random instances it is run on."""

from functools import cache

import numpy as np
from hypothesis import strategies as st

# The worked example of the DL8.5 thesis (11 rows: A, B, C, class), spec section 5.3.
TOY = np.array([
    [0, 1, 1, 0], [1, 0, 1, 1], [0, 0, 1, 1], [0, 1, 0, 0], [1, 0, 0, 1], [0, 0, 0, 0],
    [0, 0, 1, 0], [1, 1, 0, 1], [0, 0, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1],
])
TOY_X, TOY_Y = TOY[:, :3], TOY[:, 3]
# Optimal errors: TOY_ERRORS[depth][min_samples_leaf - 1].
TOY_ERRORS = [[5, 5, 5, 5], [3, 3, 3, 4], [3, 3, 3, 4], [2, 2, 3, 4]]

LABEL_SETS = [[0, 1, 2, 3], [-7, 3, 10, 42], ["ant", "bee", "cat", "dog"], [1.0, 2.0, 3.0, 4.0]]
WEIGHTS = [0.0, 1.0, 1.0, 2.0, 3.0, 0.5, 1.25]


def brute_force_objective(X, y, weight, max_depth, min_samples_leaf, max_leaf_nodes=None,
                          ccp_alpha=0.0, leaf=None):
    """Smallest weighted misclassification (or sum of ``leaf(rows)`` over the leaves, rows
    being a leaf's positions of non-zero weight), plus ``ccp_alpha * total weight`` per leaf,
    over all trees of depth <= max_depth with at most max_leaf_nodes leaves, whose leaves hold
    >= min_samples_leaf rows of non-zero weight. No bounds, no pruning: every split and every
    division of the leaves between the children is tried.

    A row set is an int bitmask; the root may always be a leaf."""
    classes = sorted(set(y))
    counted = [i for i in range(len(y)) if weight[i] > 0]
    columns = [sum(1 << i for i in counted if X[i][f]) for f in range(len(X[0]))]
    everything = sum(1 << i for i in counted)

    penalty = ccp_alpha * sum(weight[i] for i in counted)

    def leaf_error(mask):
        if leaf is not None:
            return leaf([i for i in counted if mask >> i & 1]) + penalty
        by_class = [sum(weight[i] for i in counted if mask >> i & 1 and y[i] == c)
                    for c in classes]
        return sum(by_class) - max(by_class) + penalty

    @cache
    def best(mask, depth, leaves):
        result = leaf_error(mask)
        if depth == 0 or leaves == 1:
            return result
        for column in columns:
            right, left = mask & column, mask & ~column
            if right.bit_count() >= min_samples_leaf and left.bit_count() >= min_samples_leaf:
                for left_leaves in range(1, leaves):
                    result = min(result, best(left, depth - 1, left_leaves)
                                 + best(right, depth - 1, leaves - left_leaves))
        return result

    return best(everything, max_depth, max_leaf_nodes or 2**max_depth)


@st.composite
def instances(draw):
    n_rows = draw(st.integers(1, 30))
    n_features = draw(st.integers(1, 6))
    n_classes = draw(st.integers(2, 4))
    rows = draw(st.lists(st.lists(st.integers(0, 1), min_size=n_features, max_size=n_features),
                         min_size=n_rows, max_size=n_rows))
    codes = draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows, max_size=n_rows))
    weighted = draw(st.booleans())
    if weighted:
        weight = draw(st.lists(st.sampled_from(WEIGHTS), min_size=n_rows, max_size=n_rows))
        if not any(weight):
            weight[draw(st.integers(0, n_rows - 1))] = 1.0
    else:
        weight = [1.0] * n_rows
    labels = draw(st.sampled_from(LABEL_SETS))
    return {
        "X": rows,
        "y": [labels[c] for c in codes],
        "weight": weight,
        "weighted": weighted,
        "float_x": draw(st.booleans()),
        "max_depth": draw(st.integers(0, 2)),
        "min_samples_leaf": draw(st.integers(1, 3)),
        "max_leaf_nodes": draw(st.sampled_from([None, 1, 2, 3])),
        "ccp_alpha": draw(st.sampled_from([0.0, 0.0, 0.05, 0.2])),
        "search": draw(st.sampled_from(["murtree", "dl85"])),
        "cache": draw(st.sampled_from(["trie", "hash", "dataset"])),
        "branching": draw(st.sampled_from(["in_order", "gini", "gain_asc", "gain_desc"])),
    }
