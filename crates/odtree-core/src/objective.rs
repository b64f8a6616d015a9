//! Objectives: what a leaf costs and what it predicts, and which search techniques they allow.
//!
//! An objective sees a leaf only through its statistics (for classification, the weight of
//! each class among the leaf's rows). The search minimises the sum of leaf costs.

/// The cost of turning a set of rows into a leaf, and the leaf's prediction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leaf {
    /// The leaf's contribution to the objective.
    pub cost: f64,
    /// The predicted class index.
    pub label: u32,
}

/// Search techniques an objective allows; the engine switches off the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// The specialised depth-2 solver (needs additive statistics and leaf costs).
    pub depth2: bool,
    /// The similarity lower bound (needs costs that drop by at most the weight removed).
    pub similarity_bound: bool,
}

/// A leaf-additive objective over per-class weight statistics.
pub trait Objective: Sync {
    /// The cost and label of a leaf whose rows have these class weights.
    fn leaf(&self, class_weights: &[f64]) -> Leaf;
    /// The cost alone; objectives override it when the label is costly to settle.
    #[inline]
    fn leaf_cost(&self, class_weights: &[f64]) -> f64 {
        self.leaf(class_weights).cost
    }
    /// Techniques this objective allows.
    fn capabilities(&self) -> Capabilities;
    /// `Some(c)` when, for two classes, a leaf with class weights `[a, b]` costs
    /// `min(a, b) + c`: the depth-2 solver then works on integer counts.
    fn two_class_minority(&self) -> Option<f64> {
        None
    }
}

/// Weighted misclassification: a leaf costs the weight of its rows outside its majority class.
///
/// Ties between classes go to the class with the larger total weight in the training data,
/// then to the lower class index, so the rule never depends on the search order.
#[derive(Clone, Debug)]
pub struct Misclassification {
    /// `preference[c]`: rank of class c in the tie-break order (0 = preferred).
    preference: Vec<u32>,
}

impl Misclassification {
    /// The objective for data whose classes weigh `class_totals` in all.
    pub fn new(class_totals: &[f64]) -> Self {
        let mut order: Vec<usize> = (0..class_totals.len()).collect();
        order.sort_by(|&a, &b| class_totals[b].total_cmp(&class_totals[a]).then(a.cmp(&b)));
        let mut preference = vec![0; class_totals.len()];
        for (rank, &class) in order.iter().enumerate() {
            preference[class] = rank as u32;
        }
        Self { preference }
    }
}

impl Objective for Misclassification {
    #[inline]
    fn leaf(&self, class_weights: &[f64]) -> Leaf {
        let mut best = 0;
        for (c, &w) in class_weights.iter().enumerate() {
            let bw = class_weights[best];
            if w > bw || (w == bw && self.preference[c] < self.preference[best]) {
                best = c;
            }
        }
        // the sum of the other classes, not total - max, which loses small weights
        let cost = class_weights
            .iter()
            .enumerate()
            .filter(|&(c, _)| c != best)
            .map(|(_, w)| w)
            .sum();
        Leaf {
            cost,
            label: best as u32,
        }
    }

    #[inline]
    fn leaf_cost(&self, class_weights: &[f64]) -> f64 {
        if let [a, b] = class_weights {
            return a.min(*b);
        }
        self.leaf(class_weights).cost
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            depth2: true,
            similarity_bound: true,
        }
    }

    fn two_class_minority(&self) -> Option<f64> {
        (self.preference.len() == 2).then_some(0.0)
    }
}

/// An objective with a fixed cost added per leaf: the sparse objective of MurTree §4.8.3 and
/// scikit-learn's cost-complexity pruning, in objective units.
#[derive(Clone, Debug)]
pub struct Penalised<O> {
    inner: O,
    per_leaf: f64,
}

impl<O> Penalised<O> {
    /// `inner` plus `per_leaf` for every leaf.
    pub fn new(inner: O, per_leaf: f64) -> Self {
        Self { inner, per_leaf }
    }
}

impl<O: Objective> Objective for Penalised<O> {
    #[inline]
    fn leaf(&self, class_weights: &[f64]) -> Leaf {
        let leaf = self.inner.leaf(class_weights);
        Leaf {
            cost: leaf.cost + self.per_leaf,
            ..leaf
        }
    }

    #[inline]
    fn leaf_cost(&self, class_weights: &[f64]) -> f64 {
        self.inner.leaf_cost(class_weights) + self.per_leaf
    }

    /// A fixed cost per leaf keeps every technique valid: the similarity bound compares trees
    /// of the same shape, whose penalties are equal.
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn two_class_minority(&self) -> Option<f64> {
        self.inner.two_class_minority().map(|c| c + self.per_leaf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majority_with_global_tie_break() {
        let objective = Misclassification::new(&[3.0, 5.0, 5.0]);
        assert_eq!(
            objective.leaf(&[1.0, 4.0, 2.0]),
            Leaf {
                cost: 3.0,
                label: 1
            }
        );
        // a tie between classes 0 and 2 goes to class 2, the heavier one overall
        assert_eq!(
            objective.leaf(&[2.0, 0.0, 2.0]),
            Leaf {
                cost: 2.0,
                label: 2
            }
        );
        // a tie between 1 and 2 (equal totals) goes to the lower index
        assert_eq!(
            objective.leaf(&[0.0, 1.0, 1.0]),
            Leaf {
                cost: 1.0,
                label: 1
            }
        );
    }
}
