//! Several quantiles at once (thesis §8.2.2): every quantile's pinball loss from one ordered
//! pass over a leaf's targets, and the objective of one quantile (its lane) over them.

use super::{Capabilities, Leaf, Objective, Pinball};
use crate::data::Dataset;
use crate::stats::{RowEvaluator, Statistics, Weights};

/// The pinball losses of several quantiles. The statistics of a set of rows are its weight,
/// then each quantile's loss, then each quantile's value: `[w, loss_0, .., value_0, ..]`.
#[derive(Clone, Debug)]
pub struct QuantileSet {
    pinball: Pinball,
    quantiles: Vec<f64>,
}

impl QuantileSet {
    /// The losses of `quantiles`, each in (0, 1), on finite `targets`.
    pub fn new(targets: &[f64], quantiles: &[f64]) -> Self {
        Self {
            pinball: Pinball::new(targets, 0.5, 1.0),
            quantiles: quantiles.to_vec(),
        }
    }

    /// The quantiles, in lane order.
    pub fn quantiles(&self) -> &[f64] {
        &self.quantiles
    }

    /// The ranked targets the losses are read from.
    pub fn pinball(&self) -> &Pinball {
        &self.pinball
    }
}

impl RowEvaluator for QuantileSet {
    fn n_stats(&self) -> usize {
        1 + 2 * self.quantiles.len()
    }

    fn evaluate(&self, rows: &[u32], weights: &Weights, out: &mut [f64]) {
        let k = self.quantiles.len();
        let (weight, rest) = out.split_at_mut(1);
        let (losses, values) = rest.split_at_mut(k);
        weight[0] = self
            .pinball
            .losses(&self.quantiles, rows, weights, losses, values);
    }
}

/// One quantile of a [`QuantileSet`] (its lane) as an objective over the set's statistics,
/// plus `per_leaf` per leaf.
#[derive(Clone, Copy, Debug)]
pub struct QuantileLane<'a> {
    set: &'a QuantileSet,
    lane: usize,
    per_leaf: f64,
}

impl<'a> QuantileLane<'a> {
    /// Quantile `lane` of `set`, each leaf costing `per_leaf` more.
    pub fn new(set: &'a QuantileSet, lane: usize, per_leaf: f64) -> Self {
        Self {
            set,
            lane,
            per_leaf,
        }
    }
}

impl Objective for QuantileLane<'_> {
    fn statistics<'s>(&'s self, _: &'s Dataset, weights: &'s Weights) -> Statistics<'s> {
        Statistics::Rows(self.set, weights)
    }

    #[inline]
    fn leaf(&self, stats: &[f64]) -> Leaf {
        Leaf {
            cost: stats[1 + self.lane] + self.per_leaf,
            label: 0,
        }
    }

    fn leaf_value(&self, stats: &[f64]) -> f64 {
        stats[1 + self.set.quantiles.len() + self.lane]
    }

    /// Losses need the rows: no technique of additive statistics applies.
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            depth2: false,
            similarity_bound: false,
            gain_order: false,
            equal_rows: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::ByRows;

    #[test]
    fn each_lane_costs_what_its_quantile_alone_does() {
        let targets = [5.0, 1.0, 3.0, 10.0, -2.0, 3.0];
        let quantiles = [0.1, 0.5, 0.9];
        let weights = Weights::new(Some(&[1.0, 1.0, 2.0, 1.0, 0.5, 3.0]), 6).unwrap();
        let set = QuantileSet::new(&targets, &quantiles);
        let rows = [0, 2, 3, 4];
        let mut stats = vec![0.0; set.n_stats()];
        set.evaluate(&rows, &weights, &mut stats);
        for (lane, &q) in quantiles.iter().enumerate() {
            let alone = ByRows::new(Pinball::new(&targets, q, 1.0));
            let mut one = [0.0; 3];
            Pinball::new(&targets, q, 1.0).evaluate(&rows, &weights, &mut one);
            let view = QuantileLane::new(&set, lane, 0.25);
            assert_eq!(view.leaf(&stats).cost, alone.leaf(&one).cost + 0.25);
            assert_eq!(view.leaf_value(&stats), alone.leaf_value(&one));
        }
    }
}
