"""The fitted tree as scikit-learn-style parallel arrays over the binary features."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

TREE_LEAF = -1
TREE_UNDEFINED = -2
#: The entry of a binarized matrix whose test cannot be evaluated: a missing value, with
#: ``missing="split"``, in a column that had none in ``fit``. :meth:`Tree.apply` sends such a
#: row to the child that held more training weight (the left one, where the test fails, on
#: ties), as scikit-learn does for features without missing values in training.
UNKNOWN = 2


@dataclass
class Tree:
    """A binary decision tree stored as parallel arrays, node 0 being the root.

    Attributes
    ----------
    children_left, children_right : ndarray of int64, shape (node_count,)
        Child node ids; ``-1`` at leaves. The left child holds the rows whose binary feature is 0.
    feature : ndarray of int64, shape (node_count,)
        Index of the binary feature tested at the node (a column of the binarized matrix);
        ``-2`` at leaves.
    value : ndarray of float64, shape (node_count, 1, n_values)
        For classifiers, the weighted class sums of the training rows reaching the node (in the
        order of ``classes_``). For regressors, the node's prediction.
    n_node_samples : ndarray of int64, shape (node_count,)
        Training rows with non-zero weight reaching the node.
    weighted_n_node_samples : ndarray of float64, shape (node_count,)
        Their total weight.
    impurity : ndarray of float64, shape (node_count,) or None
        The training loss of each node were it a leaf (the objective's loss of its rows,
        summed with their weights, without leaf penalties), where the fit computed it:
        regressors and unsupervised trees, whose ``value`` does not give it. ``None`` for
        classifiers, whose Gini impurity follows from ``value``.
    """

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    value: np.ndarray
    n_node_samples: np.ndarray
    weighted_n_node_samples: np.ndarray
    impurity: np.ndarray | None = None

    def __post_init__(self):
        self.children_left = np.asarray(self.children_left, dtype=np.int64)
        self.children_right = np.asarray(self.children_right, dtype=np.int64)
        self.feature = np.asarray(self.feature, dtype=np.int64)
        self.value = np.asarray(self.value, dtype=np.float64)
        if self.value.ndim == 2:
            self.value = self.value[:, np.newaxis, :]
        self.n_node_samples = np.asarray(self.n_node_samples, dtype=np.int64)
        self.weighted_n_node_samples = np.asarray(self.weighted_n_node_samples, dtype=np.float64)
        if self.impurity is not None:
            self.impurity = np.asarray(self.impurity, dtype=np.float64)

    @property
    def node_count(self) -> int:
        """Number of nodes, leaves included."""
        return len(self.feature)

    @property
    def n_leaves(self) -> int:
        """Number of leaves."""
        return int(np.sum(self.children_left == TREE_LEAF))

    @property
    def max_depth(self) -> int:
        """Length of the longest root-to-leaf path (0 for a single leaf)."""
        return int(self.node_depths().max())

    def is_leaf(self, node: int) -> bool:
        """Whether ``node`` is a leaf."""
        return self.children_left[node] == TREE_LEAF

    def node_depths(self) -> np.ndarray:
        """Depth of every node (the root has depth 0)."""
        depth = np.zeros(self.node_count, dtype=np.int64)
        for node in range(self.node_count):  # parents come before children
            if not self.is_leaf(node):
                depth[self.children_left[node]] = depth[node] + 1
                depth[self.children_right[node]] = depth[node] + 1
        return depth

    def apply(self, binary_X: np.ndarray) -> np.ndarray:
        """Id of the leaf that each row of a binarized matrix reaches."""
        binary_X = np.asarray(binary_X)
        node = np.zeros(binary_X.shape[0], dtype=np.int64)
        active = ~self.is_leaf_mask()[node]
        while active.any():
            rows = np.flatnonzero(active)
            current = node[rows]
            goes_right = self._goes_right(binary_X[rows, self.feature[current]], current)
            node[rows] = np.where(goes_right, self.children_right[current],
                                  self.children_left[current])
            active[rows] = ~self.is_leaf_mask()[node[rows]]
        return node

    def unknown_goes_right(self) -> np.ndarray:
        """For each node, whether a row whose tested entry is :data:`UNKNOWN` goes right:
        where the right child holds strictly more training weight than the left one."""
        right = self.weighted_n_node_samples[self.children_right]
        left = self.weighted_n_node_samples[self.children_left]
        return ~self.is_leaf_mask() & (right > left)

    def _goes_right(self, entries: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Whether rows whose tested entries at ``nodes`` are ``entries`` go right."""
        goes_right = entries != 0
        unknown = entries == UNKNOWN
        if unknown.any():
            goes_right = np.where(unknown, self.unknown_goes_right()[nodes], goes_right)
        return goes_right

    def decision_path(self, binary_X: np.ndarray) -> sparse.csr_matrix:
        """Indicator matrix (n_samples, node_count) of the nodes each row of a binarized matrix
        passes through, root to leaf, as scikit-learn's ``decision_path`` gives it."""
        binary_X = np.asarray(binary_X)
        n_rows = binary_X.shape[0]
        node = np.zeros(n_rows, dtype=np.int64)
        rows, nodes = [np.arange(n_rows)], [node.copy()]
        active = np.flatnonzero(~self.is_leaf_mask()[node])
        while len(active):
            current = node[active]
            goes_right = self._goes_right(binary_X[active, self.feature[current]], current)
            node[active] = np.where(goes_right, self.children_right[current],
                                    self.children_left[current])
            rows.append(active)
            nodes.append(node[active])
            active = active[~self.is_leaf_mask()[node[active]]]
        row, column = np.concatenate(rows), np.concatenate(nodes)
        indicator = sparse.csr_matrix(
            (np.ones(len(row), dtype=np.int64), (row, column)),
            shape=(n_rows, self.node_count))
        indicator.sort_indices()
        return indicator

    def is_leaf_mask(self) -> np.ndarray:
        """Boolean mask of the leaves."""
        return self.children_left == TREE_LEAF

    def to_dict(self) -> dict:
        """JSON-ready lists; :meth:`from_dict` reads them back."""
        data = {
            "children_left": self.children_left.tolist(),
            "children_right": self.children_right.tolist(),
            "feature": self.feature.tolist(),
            "value": self.value.tolist(),
            "n_node_samples": self.n_node_samples.tolist(),
            "weighted_n_node_samples": self.weighted_n_node_samples.tolist(),
        }
        if self.impurity is not None:
            data["impurity"] = self.impurity.tolist()
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Tree:
        """Rebuild and check a tree from :meth:`to_dict` output."""
        tree = cls(**{key: data[key] for key in (
            "children_left", "children_right", "feature", "value",
            "n_node_samples", "weighted_n_node_samples")}, impurity=data.get("impurity"))
        tree.validate()
        return tree

    def validate(self, n_binary_features: int | None = None) -> None:
        """Raise ValueError unless the arrays describe one well-formed binary tree."""
        n = self.node_count
        arrays = (self.children_left, self.children_right, self.n_node_samples,
                  self.weighted_n_node_samples)
        if self.impurity is not None:
            arrays += (self.impurity,)
        if n == 0 or any(len(a) != n for a in arrays) or self.value.shape[0] != n:
            raise ValueError("tree arrays must be non-empty and of equal length")
        seen = np.zeros(n, dtype=bool)
        seen[0] = True
        for node in range(n):
            left, right = self.children_left[node], self.children_right[node]
            if (left == TREE_LEAF) != (right == TREE_LEAF):
                raise ValueError(f"node {node} has exactly one child")
            if left == TREE_LEAF:
                continue
            if not (node < left < n and node < right < n) or seen[left] or seen[right]:
                raise ValueError(f"node {node} has invalid children ({left}, {right})")
            seen[left] = seen[right] = True
            f = self.feature[node]
            if f < 0 or (n_binary_features is not None and f >= n_binary_features):
                raise ValueError(f"node {node} tests an invalid feature {f}")
        if not seen.all():
            raise ValueError("tree has unreachable nodes")
