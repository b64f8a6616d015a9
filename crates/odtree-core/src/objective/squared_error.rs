//! Regression by the sum of squared errors: each leaf predicts the weighted mean of its rows.

use super::{Capabilities, Leaf, Objective};
use crate::data::Dataset;
use crate::error::{OdtError, Result};
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
    /// The objective for `targets` (one finite target per row) weighted by `weights`.
    /// Targets whose squared errors overflow a float are refused.
    pub fn new(targets: &[f64], weights: &Weights) -> Result<Self> {
        check_targets(targets, weights.n_rows())?;
        let total: f64 = (0..targets.len()).map(|row| weights.of(row)).sum();
        // each row's share of the weight times its target: no product can overflow
        let mean: f64 = targets
            .iter()
            .enumerate()
            .map(|(row, y)| weights.of(row) / total * y)
            .sum();
        let moments: Vec<f64> = targets
            .iter()
            .enumerate()
            .flat_map(|(row, y)| {
                let (w, d) = (weights.of(row), y - mean);
                [w, w * d, w * d * d]
            })
            .collect();
        let squares: f64 = moments.iter().skip(2).step_by(3).sum();
        if !squares.is_finite() {
            return Err(OdtError::InvalidData(
                "the squared errors of the targets overflow a 64-bit float: rescale the \
                 targets (the tree does not change)"
                    .into(),
            ));
        }
        Ok(Self {
            moments: RowVectors::new(moments, 3),
            mean,
        })
    }
}

/// Checks that there is one finite target per row.
pub fn check_targets(targets: &[f64], n_rows: usize) -> Result<()> {
    if targets.len() != n_rows {
        return Err(OdtError::InvalidData(format!(
            "{} targets for {n_rows} rows",
            targets.len()
        )));
    }
    if targets.iter().any(|t| !t.is_finite()) {
        return Err(OdtError::InvalidData("targets must be finite".into()));
    }
    Ok(())
}

impl Objective for SquaredError {
    fn statistics<'a>(&'a self, _: &'a Dataset, _: &'a Weights) -> Statistics<'a> {
        Statistics::Sums(&self.moments)
    }

    #[inline]
    fn leaf(&self, stats: &[f64]) -> Leaf {
        let [weight, sum, squares] = [stats[0], stats[1], stats[2]];
        // sum * (sum / weight) ≤ squares: unlike sum², it cannot overflow
        let cost = if weight > 0.0 {
            (squares - sum * (sum / weight)).max(0.0)
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
            equal_rows: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_cost_is_the_weighted_sum_of_squared_deviations() {
        let weights = Weights::new(Some(&[1.0, 2.0, 1.0]), 3).unwrap();
        let objective = SquaredError::new(&[1.0, 2.0, 6.0], &weights).unwrap();
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
