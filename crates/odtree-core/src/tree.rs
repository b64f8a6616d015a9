//! The extracted tree: nodes in pre-order, each with its statistics and prediction.

use crate::objective::Objective;
use crate::stats::Statistics;

/// One node of an extracted tree.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeNode {
    /// The tested feature; `None` for a leaf.
    pub feature: Option<u32>,
    /// Index of the child holding the rows where the feature is 0 (internal nodes only).
    pub left: u32,
    /// Index of the child holding the rows where the feature is 1 (internal nodes only).
    pub right: u32,
    /// Statistics of the training rows reaching the node (per-class weights).
    pub stats: Vec<f64>,
    /// Number of training rows with non-zero weight reaching the node.
    pub rows: u32,
    /// Total weight of the training rows reaching the node.
    pub weight: f64,
    /// The node's class were it a leaf (0 where the task has no classes).
    pub label: u32,
    /// The node's prediction as a number were it a leaf: its class index, or its predicted
    /// value (a regression target).
    pub value: f64,
    /// The node's cost were it a leaf.
    pub leaf_cost: f64,
}

impl TreeNode {
    /// Whether the node is a leaf.
    pub fn is_leaf(&self) -> bool {
        self.feature.is_none()
    }
}

/// A binary tree over binary features; node 0 is the root.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    nodes: Vec<TreeNode>,
}

impl Tree {
    /// The nodes in pre-order (a parent comes before its children, the left subtree first).
    pub fn nodes(&self) -> &[TreeNode] {
        &self.nodes
    }

    /// The objective value of the tree: the sum of its leaf costs.
    pub fn cost(&self) -> f64 {
        self.nodes
            .iter()
            .filter(|n| n.is_leaf())
            .map(|n| n.leaf_cost)
            .sum()
    }

    /// Number of leaves.
    pub fn n_leaves(&self) -> usize {
        self.nodes.iter().filter(|n| n.is_leaf()).count()
    }

    /// Length of the longest root-to-leaf path.
    pub fn depth(&self) -> usize {
        fn depth_of(nodes: &[TreeNode], at: usize) -> usize {
            let node = &nodes[at];
            if node.is_leaf() {
                0
            } else {
                1 + depth_of(nodes, node.left as usize).max(depth_of(nodes, node.right as usize))
            }
        }
        depth_of(&self.nodes, 0)
    }

    /// A tree of `nodes` in pre-order, node 0 the root, as a driver built it.
    pub(crate) fn from_nodes(nodes: Vec<TreeNode>) -> Self {
        Tree { nodes }
    }

    /// The nodes, to relabel them (their shape stays).
    pub(crate) fn nodes_mut(&mut self) -> &mut [TreeNode] {
        &mut self.nodes
    }

    /// Renames the tested features.
    pub(crate) fn map_features(&mut self, rename: impl Fn(u32) -> u32) {
        for node in &mut self.nodes {
            node.feature = node.feature.map(&rename);
        }
    }

    /// The leaf reached by a row, given the row's feature values.
    pub fn leaf_of(&self, value: impl Fn(u32) -> bool) -> &TreeNode {
        let mut node = &self.nodes[0];
        while let Some(feature) = node.feature {
            node = &self.nodes[if value(feature) {
                node.right
            } else {
                node.left
            } as usize];
        }
        node
    }
}

/// Builds a tree in pre-order, collapsing splits whose two leaves predict the same label.
pub(crate) struct TreeBuilder<'o, O> {
    objective: &'o O,
    /// What the statistics vectors hold, for each node's weight.
    statistics: Statistics<'o>,
    nodes: Vec<TreeNode>,
}

impl<'o, O: Objective> TreeBuilder<'o, O> {
    /// An empty builder labelling nodes with `objective`, whose statistics are `statistics`.
    pub fn new(objective: &'o O, statistics: Statistics<'o>) -> Self {
        Self {
            objective,
            statistics,
            nodes: Vec::new(),
        }
    }

    /// Index the next node will get.
    pub fn len(&self) -> u32 {
        self.nodes.len() as u32
    }

    fn push(&mut self, feature: Option<u32>, stats: &[f64], rows: u32) -> u32 {
        self.push_as(feature, stats, rows, None)
    }

    /// Adds a node whose leaf predicts `label` when given (a monotonicity constraint's
    /// restriction, for objectives that allow it), else the objective's best label.
    fn push_as(
        &mut self,
        feature: Option<u32>,
        stats: &[f64],
        rows: u32,
        label: Option<u32>,
    ) -> u32 {
        let forced = label.and_then(|label| self.objective.forced_leaf(stats, label));
        let leaf = forced.unwrap_or_else(|| self.objective.leaf(stats));
        let value = match forced {
            Some(leaf) => f64::from(leaf.label),
            None => self.objective.leaf_value(stats),
        };
        self.nodes.push(TreeNode {
            feature,
            left: 0,
            right: 0,
            stats: stats.to_vec(),
            rows,
            weight: self.statistics.weight(stats),
            label: leaf.label,
            value,
            leaf_cost: leaf.cost,
        });
        self.len() - 1
    }

    /// Adds a leaf.
    pub fn leaf(&mut self, stats: &[f64], rows: u32) -> u32 {
        self.push(None, stats, rows)
    }

    /// Adds a leaf predicting `label` when given (see [`TreeBuilder::open_as`]).
    pub fn leaf_as(&mut self, stats: &[f64], rows: u32, label: Option<u32>) -> u32 {
        self.push_as(None, stats, rows, label)
    }

    /// Adds an internal node whose own leaf, should its children merge into it, predicts
    /// `label` when given.
    pub fn open_as(&mut self, feature: u32, stats: &[f64], rows: u32, label: Option<u32>) -> u32 {
        self.push_as(Some(feature), stats, rows, label)
    }

    /// Adds an internal node; its two subtrees follow, then [`close`](Self::close).
    pub fn open(&mut self, feature: u32, stats: &[f64], rows: u32) -> u32 {
        self.push(Some(feature), stats, rows)
    }

    /// Links `node` to its children, or turns it into a leaf when both children are leaves
    /// with the same prediction and the leaf costs no more than the split.
    pub fn close(&mut self, node: u32, [left, right]: [u32; 2]) {
        let (l, r) = (&self.nodes[left as usize], &self.nodes[right as usize]);
        let no_worse =
            self.nodes[node as usize].leaf_cost <= (l.leaf_cost + r.leaf_cost) * (1.0 + 1e-12);
        if l.is_leaf() && r.is_leaf() && l.label == r.label && no_worse {
            self.nodes.truncate(node as usize + 1);
            self.nodes[node as usize].feature = None;
        } else {
            let parent = &mut self.nodes[node as usize];
            parent.left = left;
            parent.right = right;
        }
    }

    /// The finished tree.
    pub fn finish(self) -> Tree {
        Tree { nodes: self.nodes }
    }
}
