//! Regression by the sum of squared errors: each leaf predicts the weighted mean of its rows.

use super::{Capabilities, Leaf, Objective};
use crate::data::Dataset;
use crate::stats::{RowVectors, Statistics, Weights};

/// A leaf costs `Σ w (y − ȳ)²` over its rows, computed from the additive moments
/// `(Σ w, Σ w d, Σ w d²)` of `d = y − m`, where m is the weighted mean of all rows (centring
/// keeps the subtraction in the cost from losing digits).
#[derive(Clone, Debug)]
pub struct SquaredError {
    moments: RowVectors,
    /// The weighted mean of all targets, which the moments are centred on.
    mean: f64,
}

impl SquaredError {
    /// The objective for `targets` (one per row, finite) weighted by `weights`.
    pub fn new(targets: &[f64], weights: &Weights) -> Self {
        let (mut total, mut sum) = (0.0, 0.0);
        for (row, y) in targets.iter().enumerate() {
            total += weights.of(row);
            sum += weights.of(row) * y;
        }
        let mean = if total > 0.0 { sum / total } else { 0.0 };
        let moments = targets
            .iter()
            .enumerate()
            .flat_map(|(row, y)| {
                let (w, d) = (weights.of(row), y - mean);
                [w, w * d, w * d * d]
            })
            .collect();
        Self {
            moments: RowVectors::new(moments, 3),
            mean,
        }
    }
}

impl Objective for SquaredError {
    fn statistics<'a>(&'a self, _: &'a Dataset, _: &'a Weights) -> Statistics<'a> {
        Statistics::Sums(&self.moments)
    }

    #[inline]
    fn leaf(&self, stats: &[f64]) -> Leaf {
        let [weight, sum, squares] = [stats[0], stats[1], stats[2]];
        let cost = if weight > 0.0 {
            (squares - sum * sum / weight).max(0.0)
        } else {
            0.0
        };
        Leaf { cost, label: 0 }
    }

    /// The weighted mean of the leaf's targets.
    fn leaf_value(&self, stats: &[f64]) -> f64 {
        if stats[0] > 0.0 {
            self.mean + stats[1] / stats[0]
        } else {
            self.mean
        }
    }

    /// Removing a row can lower the cost by more than its weight, so the similarity bound is
    /// off; the moments add up, so the depth-2 solver applies.
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            depth2: true,
            similarity_bound: false,
            gain_order: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_cost_is_the_weighted_sum_of_squared_deviations() {
        let weights = Weights::new(Some(&[1.0, 2.0, 1.0]), 3).unwrap();
        let objective = SquaredError::new(&[1.0, 2.0, 6.0], &weights);
        let mut all = [0.0; 3];
        for row in 0..3 {
            all.iter_mut()
                .zip(objective.moments.of(row))
                .for_each(|(a, v)| *a += v);
        }
        // weighted mean 11 / 4; deviations -1.75, -0.75 (×2), 3.25
        let expected = 1.75f64.powi(2) + 2.0 * 0.75f64.powi(2) + 3.25f64.powi(2);
        assert!((objective.leaf(&all).cost - expected).abs() < 1e-12);
        assert!((objective.leaf_value(&all) - 11.0 / 4.0).abs() < 1e-12);
        assert_eq!(objective.leaf(&[0.0, 0.0, 0.0]).cost, 0.0);
    }
}
