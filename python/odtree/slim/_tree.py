"""The mutable tree DT-SLIM edits: nodes in growing lists, subtrees cut out and replaced,
copies hung under new leaves (spec part B.2)."""

from __future__ import annotations

import numpy as np

from ..tree._arrays import TREE_LEAF, TREE_UNDEFINED, Tree
from ._sat import LocalTree


class SlimTree:
    """A binary tree over 0/1 features whose nodes can be replaced.

    Node ``v`` tests ``feature[v]`` and sends value 0 to ``child0[v]`` and 1 to ``child1[v]``;
    a leaf has ``feature[v] == -1`` and predicts the class code ``label[v]``. Replaced nodes
    stay in the lists, unreachable; new nodes get fresh ids.
    """

    def __init__(self, feature, child0, child1, label):
        self.feature, self.child0 = list(map(int, feature)), list(map(int, child0))
        self.child1, self.label = list(map(int, child1)), list(map(int, label))
        self.parent = [-1] * len(self.feature)
        for v in range(len(self.feature)):
            if self.feature[v] >= 0:
                self.parent[self.child0[v]] = self.parent[self.child1[v]] = v
        self.root = 0

    @classmethod
    def from_tree(cls, tree: Tree, node_classes) -> SlimTree:
        """The tree of a fitted model (its left child holds feature value 0)."""
        leaf = tree.children_left == TREE_LEAF
        return cls(np.where(leaf, -1, tree.feature), tree.children_left, tree.children_right,
                   np.where(leaf, node_classes, -1))

    def is_leaf(self, v: int) -> bool:
        return self.feature[v] < 0

    def _new(self, feature, label, parent) -> int:
        self.feature.append(feature)
        self.child0.append(-1)
        self.child1.append(-1)
        self.label.append(label)
        self.parent.append(parent)
        return len(self.feature) - 1

    def nodes(self, v: int | None = None) -> list[int]:
        """The nodes of the subtree at ``v`` (the whole tree by default), parents first."""
        order, stack = [], [self.root if v is None else v]
        while stack:
            u = stack.pop()
            order.append(u)
            if not self.is_leaf(u):
                stack += [self.child1[u], self.child0[u]]
        return order

    def depths_and_heights(self) -> tuple[dict, dict]:
        """Each reachable node's depth and the height of its subtree."""
        order = self.nodes()
        depth = {self.root: 0}
        for u in order:
            if not self.is_leaf(u):
                depth[self.child0[u]] = depth[self.child1[u]] = depth[u] + 1
        height = {}
        for u in reversed(order):
            height[u] = 0 if self.is_leaf(u) else 1 + max(height[self.child0[u]],
                                                          height[self.child1[u]])
        return depth, height

    def depth(self) -> int:
        return self.depths_and_heights()[1][self.root]

    def path(self, v: int) -> list[int]:
        """The nodes from the root to ``v``."""
        path = [v]
        while path[-1] != self.root:
            path.append(self.parent[path[-1]])
        return path[::-1]

    def route(self, X: np.ndarray, rows: np.ndarray, start: int, stop=None) -> np.ndarray:
        """The node where each of ``rows`` (reaching ``start``) ends: a leaf, or a node in the
        set ``stop``."""
        feature = np.array(self.feature)
        children = np.array([self.child0, self.child1])
        halt = feature < 0
        if stop is not None:
            halt = halt.copy()
            halt[list(stop)] = True
        at = np.full(len(rows), start, dtype=np.int64)
        moving = np.flatnonzero(~halt[at])
        while len(moving):
            here = at[moving]
            at[moving] = children[X[rows[moving], feature[here]], here]
            moving = moving[~halt[at[moving]]]
        return at

    def rows_on_path(self, X: np.ndarray, path: list[int]) -> list[np.ndarray]:
        """The rows reaching each node of ``path`` (root first)."""
        rows = [np.arange(len(X))]
        for node, child in zip(path, path[1:], strict=False):
            value = 1 if child == self.child1[node] else 0
            here = rows[-1]
            rows.append(here[X[here, self.feature[node]] == value])
        return rows

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The class code of each row of ``X``."""
        ends = self.route(X, np.arange(len(X)), self.root)
        return np.array(self.label)[ends]

    def state(self) -> tuple:
        """A snapshot for :meth:`restore`."""
        return (self.root, list(self.feature), list(self.child0), list(self.child1),
                list(self.label), list(self.parent))

    def restore(self, state: tuple) -> None:
        self.root, self.feature, self.child0, self.child1, self.label, self.parent = (
            state[0], *map(list, state[1:]))

    def copy(self, v: int, parent: int) -> int:
        """A fresh copy of the subtree at ``v`` under ``parent``; returns its root."""
        new = self._new(self.feature[v], self.label[v], parent)
        if not self.is_leaf(v):
            left = self.copy(self.child0[v], new)
            right = self.copy(self.child1[v], new)
            self.child0[new], self.child1[new] = left, right
        return new

    def replace(self, r: int, local: LocalTree, features: np.ndarray, cut_points: list[int],
                n_classes: int) -> None:
        """Puts ``local`` (over the columns ``features``) in place of the subtree at ``r``;
        a leaf of class ``n_classes + i`` gets a copy of the subtree at ``cut_points[i]``."""
        parent = self.parent[r]

        def build(node: int, up: int) -> int:
            if local.feature[node] >= 0:
                new = self._new(int(features[local.feature[node]]), -1, up)
                left, right = build(local.child0[node], new), build(local.child1[node], new)
                self.child0[new], self.child1[new] = left, right
                return new
            label = int(local.label[node])
            if label >= n_classes:
                return self.copy(cut_points[label - n_classes], up)
            return self._new(-1, label, up)

        new_root = build(0, parent)
        if parent < 0:
            self.root = new_root
        elif self.child0[parent] == r:
            self.child0[parent] = new_root
        else:
            self.child1[parent] = new_root

    def to_tree(self, X: np.ndarray, y_codes: np.ndarray, n_classes: int) -> tuple:
        """``(Tree, node_classes)`` of the reachable nodes, parents first, with each node's
        class counts of the rows ``X`` with classes ``y_codes``."""
        order = self.nodes()
        index = {v: i for i, v in enumerate(order)}
        leaf = np.array([self.is_leaf(v) for v in order])
        left = np.array([-1 if self.is_leaf(v) else index[self.child0[v]] for v in order])
        right = np.array([-1 if self.is_leaf(v) else index[self.child1[v]] for v in order])
        feature = np.array([TREE_UNDEFINED if self.is_leaf(v) else self.feature[v]
                            for v in order])
        value = np.zeros((len(order), 1, n_classes))
        at = [np.arange(len(X))] + [None] * (len(order) - 1)
        for i in range(len(order)):
            np.add.at(value[i, 0], y_codes[at[i]], 1.0)
            if not leaf[i]:
                goes = X[at[i], feature[i]] == 1
                at[left[i]], at[right[i]] = at[i][~goes], at[i][goes]
        labels = np.array([self.label[v] for v in order])
        node_classes = np.where(leaf, labels, np.argmax(value[:, 0, :], axis=1))
        counts = value[:, 0, :].sum(axis=1)
        return Tree(left, right, feature, value, counts.astype(np.int64), counts), node_classes
