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

    /// The quantile whose loss this is.
    pub fn quantile(&self) -> f64 {
        self.quantile
    }

    /// Absolute error: twice the pinball loss of the median.
    pub fn absolute(targets: &[f64]) -> Self {
        Self::new(targets, 0.5, 2.0)
    }

    /// The most removing each row can lower the cost of a leaf holding it, `weights`
    /// included: its loss at the farthest target. A leaf's prediction is a quantile of its
    /// rows' targets, so it lies between the least and the largest target, and without the
    /// row the leaf costs at least its cost with the row, less the row's loss there. This is
    /// what the similarity bound subtracts per row removed (spec §5.4b).
    pub fn removal_costs(&self, weights: &Weights) -> Vec<f64> {
        let (Some(&least), Some(&most)) = (self.sorted.first(), self.sorted.last()) else {
            return Vec::new();
        };
        let q = self.quantile;
        (0..self.rank.len())
            .map(|row| {
                let y = self.sorted[self.rank[row] as usize];
                let farthest = (q * (y - least)).max((1.0 - q) * (most - y));
                self.scale * weights.of(row) * farthest
            })
            .collect()
    }
}

impl RowEvaluator for Pinball {
    fn n_stats(&self) -> usize {
        3
    }

    fn as_pinball(&self) -> Option<&Pinball> {
        Some(self)
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
    /// twice (their weight, then one pass for every quantile); returns the rows' weight.
    pub fn losses(
        &self,
        quantiles: &[f64],
        rows: &[u32],
        weights: &Weights,
        losses: &mut [f64],
        values: &mut [f64],
    ) -> f64 {
        let mut ranks = vec![0u64; words_for(self.sorted.len())];
        for &row in rows {
            let r = self.rank[row as usize] as usize;
            ranks[r / 64] |= 1 << (r % 64);
        }
        let in_order = ranks
            .iter()
            .enumerate()
            .flat_map(|(w, &word)| bits_of(word).map(move |b| w * 64 + b));
        self.losses_in_order(in_order, quantiles, weights, losses, values)
    }

    /// The factor every loss is multiplied by (2 for absolute error).
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The target of rank `rank`.
    #[inline]
    pub fn target_of_rank(&self, rank: u32) -> f64 {
        self.sorted[rank as usize]
    }

    /// The rank of `row`'s target among all targets (ties ranked by row).
    #[inline]
    pub fn rank(&self, row: usize) -> u32 {
        self.rank[row]
    }

    /// The row whose target has rank `rank`.
    #[inline]
    pub fn row_of(&self, rank: u32) -> usize {
        self.row_of[rank as usize] as usize
    }

    /// The losses of the rows whose ranks `in_order` lists in increasing order, all
    /// quantiles in one pass: each quantile's value is the first target at which the running
    /// weight reaches its share, and its loss follows from the running sums there,
    /// `q Σ_{y ≥ v} w (y − v) + (1 − q) Σ_{y < v} w (v − y)`. Targets are summed relative to
    /// the first one, so that a large common offset costs no precision.
    fn losses_in_order(
        &self,
        in_order: impl Iterator<Item = usize> + Clone,
        quantiles: &[f64],
        weights: &Weights,
        losses: &mut [f64],
        values: &mut [f64],
    ) -> f64 {
        let targets = in_order.map(|r| (self.sorted[r], weights.of(self.row_of[r] as usize)));
        let total: f64 = targets.clone().map(|(_, w)| w).sum();
        let origin = targets.clone().next().map_or(0.0, |(y, _)| y);
        // per quantile: the weight it needs, and the weight and sum below its value once found
        let mut below: Vec<(f64, Option<(f64, f64)>)> = quantiles
            .iter()
            .map(|&q| (q * total * (1.0 - 1e-12), None))
            .collect();
        let (mut weight, mut sum) = (0.0, 0.0);
        for (y, w) in targets {
            let reached = weight + w;
            for (k, (need, found)) in below.iter_mut().enumerate() {
                if found.is_none() && reached >= *need {
                    *found = Some((weight, sum));
                    values[k] = y;
                }
            }
            weight = reached;
            sum += w * (y - origin);
        }
        for (k, (&q, &(_, found))) in quantiles.iter().zip(&below).enumerate() {
            let Some((weight_below, sum_below)) = found else {
                (losses[k], values[k]) = (0.0, 0.0);
                continue;
            };
            let v = values[k] - origin;
            let above = (sum - sum_below) - v * (weight - weight_below);
            let under = v * weight_below - sum_below;
            losses[k] = self.scale * (q * above + (1.0 - q) * under).max(0.0);
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
