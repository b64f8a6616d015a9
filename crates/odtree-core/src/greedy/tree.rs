//! The tree the greedy learner grows: nodes in pre-order with their tests and class counts.

use super::table::{Column, Table};

/// The test of an internal node; the rows where it holds go to its first child.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Test {
    /// `x[feature] <= threshold` on a numeric column.
    Threshold {
        /// The tested column.
        feature: usize,
        /// The cut: the midpoint between two consecutive distinct training values.
        threshold: f64,
    },
    /// `x[feature] == code` on a categorical column.
    Category {
        /// The tested column.
        feature: usize,
        /// The category code.
        code: u32,
    },
}

impl Test {
    /// The tested feature (column index).
    pub fn feature(&self) -> usize {
        match *self {
            Test::Threshold { feature, .. } | Test::Category { feature, .. } => feature,
        }
    }

    /// Whether the test holds on `row` of `table` (false if the column has the other kind).
    pub fn holds(&self, table: &Table, row: usize) -> bool {
        match (*self, &table.columns()[self.feature()]) {
            (Test::Threshold { threshold, .. }, Column::Numeric(values)) => {
                values[row] <= threshold
            }
            (Test::Category { code, .. }, Column::Categorical(codes)) => codes[row] == code,
            _ => false,
        }
    }
}

/// How an internal node splits its rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Split {
    /// The test.
    pub test: Test,
    /// Its information gain, in bits per row of the node.
    pub gain: f64,
    /// The children: `[rows where the test holds, rows where it fails]`.
    pub children: [usize; 2],
}

/// One node of a greedy tree.
#[derive(Clone, Debug, PartialEq)]
pub struct GreedyNode {
    /// Training rows of each class reaching the node (rows of weight zero reach none).
    pub class_counts: Vec<usize>,
    /// The weight of each class's rows reaching the node, each row's weight rounded to the
    /// table's unit (integer weights are exact); `class_counts` when the table has no weights.
    pub class_weights: Vec<f64>,
    /// Training rows reaching the node.
    pub n_rows: usize,
    /// The split; `None` at a leaf.
    pub split: Option<Split>,
}

impl GreedyNode {
    /// Whether the node is a leaf.
    pub fn is_leaf(&self) -> bool {
        self.split.is_none()
    }

    /// The class of largest weight among the node's rows (the most frequent class when the
    /// table has no weights), the lowest index on ties.
    pub fn majority_class(&self) -> u32 {
        let mut best = 0;
        for (class, &weight) in self.class_weights.iter().enumerate() {
            if weight > self.class_weights[best] {
                best = class;
            }
        }
        best as u32
    }
}

/// A binary tree grown by the greedy learner; node 0 is the root, and nodes are in pre-order
/// (a parent, its first child's subtree, then its second child's subtree).
#[derive(Clone, Debug, PartialEq)]
pub struct GreedyTree {
    nodes: Vec<GreedyNode>,
}

impl GreedyTree {
    pub(crate) fn from_nodes(nodes: Vec<GreedyNode>) -> Self {
        Self { nodes }
    }

    /// The nodes in pre-order.
    pub fn nodes(&self) -> &[GreedyNode] {
        &self.nodes
    }

    /// The features tested somewhere in the tree (`used(T)` of the spec), ascending.
    pub fn used_features(&self) -> Vec<usize> {
        let mut used: Vec<usize> = self
            .nodes
            .iter()
            .filter_map(|node| node.split.as_ref().map(|split| split.test.feature()))
            .collect();
        used.sort_unstable();
        used.dedup();
        used
    }

    /// Number of leaves.
    pub fn n_leaves(&self) -> usize {
        self.nodes.iter().filter(|node| node.is_leaf()).count()
    }

    /// Length of the longest root-to-leaf path (0 for a single leaf).
    pub fn depth(&self) -> usize {
        let mut depth = vec![0; self.nodes.len()];
        for (id, node) in self.nodes.iter().enumerate() {
            if let Some(split) = &node.split {
                for child in split.children {
                    depth[child] = depth[id] + 1;
                }
            }
        }
        depth.into_iter().max().unwrap_or(0)
    }

    /// The leaf that `row` of `table` reaches.
    pub fn leaf_of(&self, table: &Table, row: usize) -> usize {
        let mut id = 0;
        while let Some(split) = &self.nodes[id].split {
            id = split.children[usize::from(!split.test.holds(table, row))];
        }
        id
    }

    /// The class predicted for `row` of `table`: the majority class of its leaf.
    pub fn predict(&self, table: &Table, row: usize) -> u32 {
        self.nodes[self.leaf_of(table, row)].majority_class()
    }
}
