//! Quantile regression (thesis §8.2.2): the pinball loss, with absolute error as its median.

use crate::bitset::{bits_of, words_for};
use crate::stats::{RowEvaluator, Weights};

/// A leaf costs `scale × Σ w ρ_q(y − v)`, where `ρ_q(u) = max(q u, (q − 1) u)` and v is the
/// leaf's weighted q-quantile: the least target whose rows up to it weigh at least q of the
/// leaf. That v minimises the loss. Absolute error is `q = 0.5, scale = 2`.
///
/// Targets are ranked once, so a leaf's targets come in order from a bitset of its ranks.
#[derive(Clone, Debug)]
pub struct Pinball {
    quantile: f64,
    scale: f64,
    /// Targets in increasing order.
    sorted: Vec<f64>,
    /// `rank[row]`: position of the row's target in `sorted`.
    rank: Vec<u32>,
    /// `row_of[rank]`: the row at that position.
    row_of: Vec<u32>,
}

impl Pinball {
    /// The loss of quantile `quantile` ∈ (0, 1), times `scale`, on finite `targets`.
    pub fn new(targets: &[f64], quantile: f64, scale: f64) -> Self {
        let mut row_of: Vec<u32> = (0..targets.len() as u32).collect();
        row_of.sort_by(|&a, &b| targets[a as usize].total_cmp(&targets[b as usize]));
        let mut rank = vec![0; targets.len()];
        for (r, &row) in row_of.iter().enumerate() {
            rank[row as usize] = r as u32;
        }
        Self {
            quantile,
            scale,
            sorted: row_of.iter().map(|&row| targets[row as usize]).collect(),
            rank,
            row_of,
        }
    }

    /// Absolute error: twice the pinball loss of the median.
    pub fn absolute(targets: &[f64]) -> Self {
        Self::new(targets, 0.5, 2.0)
    }
}

impl RowEvaluator for Pinball {
    fn n_stats(&self) -> usize {
        3
    }

    /// Marks the rows' ranks in a bitset and reads them back in order: no sort.
    fn evaluate(&self, rows: &[u32], weights: &Weights, out: &mut [f64]) {
        let (mut loss, mut value) = ([0.0], [0.0]);
        out[0] = self.losses(&[self.quantile], rows, weights, &mut loss, &mut value);
        out[1] = loss[0];
        out[2] = value[0];
    }
}

impl Pinball {
    /// Writes into `losses` the scaled pinball loss of each of `quantiles` on `rows`, and
    /// into `values` the weighted quantile at which it is taken, reading the targets in order
    /// once per quantile; returns the rows' weight.
    pub fn losses(
        &self,
        quantiles: &[f64],
        rows: &[u32],
        weights: &Weights,
        losses: &mut [f64],
        values: &mut [f64],
    ) -> f64 {
        let mut ranks = vec![0u64; words_for(self.sorted.len())];
        let mut total = 0.0;
        for &row in rows {
            let r = self.rank[row as usize] as usize;
            ranks[r / 64] |= 1 << (r % 64);
            total += weights.of(row as usize);
        }
        let in_order = || {
            ranks.iter().enumerate().flat_map(|(w, &word)| {
                bits_of(word).map(move |b| {
                    let r = w * 64 + b;
                    (self.sorted[r], weights.of(self.row_of[r] as usize))
                })
            })
        };
        for ((&q, loss), at) in quantiles
            .iter()
            .zip(losses.iter_mut())
            .zip(values.iter_mut())
        {
            let target = q * total * (1.0 - 1e-12);
            let mut below = 0.0;
            let value = in_order()
                .find(|&(_, w)| {
                    below += w;
                    below >= target
                })
                .map_or(0.0, |(y, _)| y);
            let sum: f64 = in_order()
                .map(|(y, w)| {
                    let u = y - value;
                    w * if u >= 0.0 { q * u } else { (q - 1.0) * u }
                })
                .sum();
            *loss = self.scale * sum;
            *at = value;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_is_minimal_at_the_weighted_quantile() {
        let targets = [5.0, 1.0, 3.0, 10.0];
        let weights = Weights::new(Some(&[1.0, 1.0, 2.0, 1.0]), 4).unwrap();
        let mut out = [0.0; 3];
        Pinball::absolute(&targets).evaluate(&[0, 1, 2, 3], &weights, &mut out);
        // weighted median 3: |5-3| + |1-3| + 0 + |10-3|
        assert_eq!(out, [5.0, 11.0, 3.0]);
        Pinball::new(&targets, 0.9, 1.0).evaluate(&[0, 1, 2, 3], &weights, &mut out);
        // the 0.9-quantile is 10: 0.1 × (5 + 9 + 2×7)
        assert!((out[1] - 2.8).abs() < 1e-12);
        // every other candidate value costs no less
        for v in [1.0, 3.0, 5.0, 10.0] {
            let loss: f64 = targets
                .iter()
                .enumerate()
                .map(|(row, y)| {
                    let u = y - v;
                    weights.of(row) * if u >= 0.0 { 0.9 * u } else { -0.1 * u }
                })
                .sum();
            assert!(loss >= out[1] - 1e-12);
        }
    }
}
