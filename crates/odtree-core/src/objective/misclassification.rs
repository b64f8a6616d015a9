//! Weighted misclassification, the default classification objective.

use super::{Capabilities, Leaf, Objective};
use crate::data::Dataset;
use crate::stats::{ClassWeights, Statistics, Weights};

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

    /// Weighted misclassification of `data`'s labels under `weights`, its ties broken by the
    /// classes' total weights.
    pub fn for_data(data: &Dataset, weights: &Weights) -> Self {
        let mut class_totals = vec![0.0; data.n_classes()];
        for (row, &label) in data.labels().iter().enumerate() {
            class_totals[label as usize] += weights.of(row);
        }
        Self::new(&class_totals)
    }
}

impl Objective for Misclassification {
    fn statistics<'a>(&'a self, data: &'a Dataset, weights: &'a Weights) -> Statistics<'a> {
        Statistics::Classes(ClassWeights::new(data, weights))
    }

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

    /// The weight of the rows outside class `label`.
    fn forced_leaf(&self, class_weights: &[f64], label: u32) -> Option<Leaf> {
        let cost = class_weights
            .iter()
            .enumerate()
            .filter(|&(c, _)| c != label as usize)
            .map(|(_, w)| w)
            .sum();
        Some(Leaf { cost, label })
    }

    /// Costs are weights: the total weight sets their scale.
    fn cost_scale(&self, root: &[f64]) -> f64 {
        root.iter().sum()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            depth2: true,
            similarity_bound: true,
            gain_order: true,
            equal_rows: true,
        }
    }

    fn two_class_minority(&self) -> Option<f64> {
        (self.preference.len() == 2).then_some(0.0)
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
