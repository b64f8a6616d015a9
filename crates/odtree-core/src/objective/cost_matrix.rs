//! Cost-sensitive classification: each pair of true and predicted class has its own cost.

use super::{Capabilities, Leaf, Objective};
use crate::data::Dataset;
use crate::error::{OdtError, Result};
use crate::stats::{ClassWeights, Statistics, Weights};

/// A leaf predicts the class that costs its rows least: `costs[i * k + j]` is the cost of
/// predicting class j for a row of class i (scikit-learn's confusion-matrix orientation),
/// times the row's weight. Ties go to the lower class index.
#[derive(Clone, Debug)]
pub struct CostMatrix {
    costs: Vec<f64>,
    n_classes: usize,
}

impl CostMatrix {
    /// A `n_classes` × `n_classes` matrix, row by row; costs must be finite and ≥ 0.
    pub fn new(costs: Vec<f64>, n_classes: usize) -> Result<Self> {
        if costs.len() != n_classes * n_classes {
            return Err(OdtError::InvalidParameter(format!(
                "the cost matrix has {} entries; {n_classes} classes need {n_classes}×{n_classes}",
                costs.len()
            )));
        }
        if costs.iter().any(|c| !c.is_finite() || *c < 0.0) {
            return Err(OdtError::InvalidParameter(
                "costs must be finite and non-negative".into(),
            ));
        }
        Ok(Self { costs, n_classes })
    }
}

impl Objective for CostMatrix {
    fn statistics<'a>(&'a self, data: &'a Dataset, weights: &'a Weights) -> Statistics<'a> {
        Statistics::Classes(ClassWeights::new(data, weights))
    }

    fn leaf(&self, class_weights: &[f64]) -> Leaf {
        let k = self.n_classes;
        let mut best = Leaf {
            cost: f64::INFINITY,
            label: 0,
        };
        for predicted in 0..k {
            let cost: f64 = class_weights
                .iter()
                .enumerate()
                .map(|(truth, w)| w * self.costs[truth * k + predicted])
                .sum();
            if cost < best.cost {
                best = Leaf {
                    cost,
                    label: predicted as u32,
                };
            }
        }
        best
    }

    /// No leaf costs more than its weight times the largest cost.
    fn cost_scale(&self, root: &[f64]) -> f64 {
        let largest = self.costs.iter().copied().fold(0.0, f64::max);
        root.iter().sum::<f64>() * largest
    }

    /// The similarity bound assumes a row adds at most its weight to the cost: it holds when
    /// no cost exceeds 1.
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            depth2: true,
            similarity_bound: self.costs.iter().all(|&c| c <= 1.0),
            gain_order: true,
            equal_rows: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_predict_the_cheapest_class() {
        // predicting 0 for a row of class 1 costs 5; predicting 1 for class 0 costs 1
        let objective = CostMatrix::new(vec![0.0, 1.0, 5.0, 0.0], 2).unwrap();
        assert_eq!(
            objective.leaf(&[4.0, 1.0]),
            Leaf {
                cost: 4.0,
                label: 1
            }
        );
        assert_eq!(
            objective.leaf(&[6.0, 1.0]),
            Leaf {
                cost: 5.0,
                label: 0
            }
        );
        assert!(!objective.capabilities().similarity_bound);
        assert!(CostMatrix::new(vec![0.0, -1.0, 1.0, 0.0], 2).is_err());
        assert!(CostMatrix::new(vec![0.0; 3], 2).is_err());
    }
}
