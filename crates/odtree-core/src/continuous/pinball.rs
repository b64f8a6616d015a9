//! Absolute error and the pinball loss of one quantile for the exact search: a leaf's cost
//! needs its weighted quantile, so its statistics are the weights and weighted targets of
//! each distinct target value, held as two Fenwick trees. Adding a row, and finding a
//! leaf's quantile and cost, then take a number of steps logarithmic in the distinct
//! targets; a leaf holding `total` minus `part` is read off both trees at once.

use super::loss::Loss;

/// A leaf costs `scale × Σ w ρ_q(y − v)`, where `ρ_q(u) = max(q u, (q − 1) u)` and `v` is
/// the leaf's weighted q-quantile: the least target whose rows up to it weigh at least `q`
/// of the leaf (as the 0/1 search's pinball objective). Absolute error is `q = 0.5`,
/// `scale = 2`.
///
/// An accumulator holds `2k` numbers for `k` distinct targets: the Fenwick tree of the
/// weight of each target value, then that of its weighted value.
pub struct PinballLoss {
    quantile: f64,
    scale: f64,
    /// The distinct targets, increasing.
    values: Vec<f64>,
    /// Each row's position in `values`.
    rank: Vec<u32>,
    weights: Vec<f64>,
    /// The largest power of two at most `values.len()` (0 without targets).
    top: usize,
}

impl PinballLoss {
    /// The pinball loss of `quantile` ∈ (0, 1), times `scale`, over rows of these finite
    /// targets and weights.
    pub fn new(targets: &[f64], weights: Vec<f64>, quantile: f64, scale: f64) -> Self {
        let mut values = targets.to_vec();
        values.sort_by(f64::total_cmp);
        values.dedup();
        let rank = targets
            .iter()
            .map(|y| values.partition_point(|v| v < y) as u32)
            .collect();
        let top = if values.is_empty() {
            0
        } else {
            1 << values.len().ilog2()
        };
        Self {
            quantile,
            scale,
            values,
            rank,
            weights,
            top,
        }
    }

    /// Absolute error: twice the pinball loss of the median.
    pub fn absolute(targets: &[f64], weights: Vec<f64>) -> Self {
        Self::new(targets, weights, 0.5, 2.0)
    }

    /// The quantile's position among the distinct targets, and the cost of a leaf whose
    /// Fenwick entries are `at(i)` (weights at `i < k`, weighted values at `k + i`).
    #[inline]
    fn solve(&self, at: impl Fn(usize) -> f64) -> (usize, f64) {
        let k = self.values.len();
        let (mut total, mut total_wy) = (0.0, 0.0);
        let mut i = k;
        while i > 0 {
            total += at(i - 1);
            total_wy += at(k + i - 1);
            i &= i - 1;
        }
        // the longest prefix of targets weighing less than q of the leaf
        let target = self.quantile * total;
        let (mut position, mut below, mut below_wy) = (0, 0.0, 0.0);
        let mut step = self.top;
        while step > 0 {
            let next = position + step;
            if next <= k && below + at(next - 1) < target {
                position = next;
                below += at(next - 1);
                below_wy += at(k + next - 1);
            }
            step >>= 1;
        }
        let position = position.min(k.saturating_sub(1));
        let value = self.values.get(position).copied().unwrap_or(0.0);
        let q = self.quantile;
        let under = value * below - below_wy;
        let over = (total_wy - below_wy) - value * (total - below);
        (
            position,
            (self.scale * ((1.0 - q) * under + q * over)).max(0.0),
        )
    }
}

impl Loss for PinballLoss {
    fn width(&self) -> usize {
        2 * self.values.len()
    }

    #[inline]
    fn add(&self, acc: &mut [f64], row: usize) {
        let k = self.values.len();
        let (w, rank) = (self.weights[row], self.rank[row] as usize);
        let wy = w * self.values[rank];
        let mut i = rank + 1;
        while i <= k {
            acc[i - 1] += w;
            acc[k + i - 1] += wy;
            i += i & i.wrapping_neg();
        }
    }

    #[inline]
    fn weight(&self, row: usize) -> f64 {
        self.weights[row]
    }

    #[inline]
    fn cost(&self, acc: &[f64]) -> f64 {
        self.solve(|i| acc[i]).1
    }

    #[inline]
    fn cost_rest(&self, total: &[f64], part: &[f64]) -> f64 {
        self.solve(|i| total[i] - part[i]).1
    }

    /// A row of weight `w` moved into a leaf raises its cost by at most `w` times its
    /// distance to the leaf's quantile, weighted: at most the targets' range times
    /// `scale · max(q, 1 − q)`.
    fn slope(&self) -> Option<f64> {
        let range = match (self.values.first(), self.values.last()) {
            (Some(low), Some(high)) => high - low,
            _ => 0.0,
        };
        Some(range * self.scale * self.quantile.max(1.0 - self.quantile))
    }

    fn predict(&self, acc: &[f64]) -> (usize, f64) {
        let (position, _) = self.solve(|i| acc[i]);
        (0, self.values.get(position).copied().unwrap_or(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The leaf's cost and quantile by definition, for comparison.
    fn direct(targets: &[f64], weights: &[f64], q: f64, scale: f64) -> (f64, f64) {
        let mut order: Vec<usize> = (0..targets.len()).collect();
        order.sort_by(|&a, &b| targets[a].total_cmp(&targets[b]));
        let total: f64 = weights.iter().sum();
        let mut seen = 0.0;
        let mut value = targets[order[order.len() - 1]];
        for &row in &order {
            seen += weights[row];
            if seen >= q * total {
                value = targets[row];
                break;
            }
        }
        let cost = targets
            .iter()
            .zip(weights)
            .map(|(&y, &w)| w * (q * (y - value)).max((q - 1.0) * (y - value)))
            .sum::<f64>();
        (scale * cost, value)
    }

    #[test]
    fn leaf_costs_and_quantiles_match_their_definition() {
        let targets = [3.0, -1.0, 3.0, 7.5, 0.0, 2.0, 7.5, 10.0, -4.0];
        let weights = [1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 0.0, 2.0, 1.0];
        for (q, scale) in [(0.5, 2.0), (0.1, 1.0), (0.9, 1.0), (0.75, 3.0)] {
            let loss = PinballLoss::new(&targets, weights.to_vec(), q, scale);
            let mut all = vec![0.0; loss.width()];
            let mut part = vec![0.0; loss.width()];
            for row in 0..targets.len() {
                loss.add(&mut all, row);
                if row < 4 {
                    loss.add(&mut part, row);
                }
            }
            let (cost, value) = direct(&targets, &weights, q, scale);
            assert!((loss.cost(&all) - cost).abs() < 1e-9, "q = {q}");
            assert_eq!(loss.predict(&all).1, value);
            let (rest, _) = direct(&targets[4..], &weights[4..], q, scale);
            assert!((loss.cost_rest(&all, &part) - rest).abs() < 1e-9, "q = {q}");
        }
    }

    #[test]
    fn an_empty_leaf_costs_nothing() {
        let loss = PinballLoss::absolute(&[1.0, 2.0], vec![1.0, 1.0]);
        assert_eq!(loss.cost(&vec![0.0; loss.width()]), 0.0);
        assert_eq!(loss.slope(), Some(1.0));
    }
}
