//! Objectives whose leaf cost needs the rows themselves.

use super::{Capabilities, Leaf, Objective};
use crate::data::Dataset;
use crate::stats::{RowEvaluator, Statistics, Weights};

/// The objective of a [`RowEvaluator`]: a leaf costs `stats[1]`, and `stats[2]`, when the
/// evaluator reports it, is its value, or its class if the evaluator labels leaves.
///
/// The statistics are not additive, so the engine counts both children of every split, and
/// uses the depth-2 solver and the similarity bound only for a pinball loss (whose cells it
/// costs from the targets' ranks, and whose rows' removals it bounds by
/// [`Pinball::removal_costs`](super::Pinball::removal_costs)).
#[derive(Clone, Debug)]
pub struct ByRows<E> {
    evaluator: E,
}

impl<E: RowEvaluator> ByRows<E> {
    /// The objective `evaluator` defines.
    pub fn new(evaluator: E) -> Self {
        Self { evaluator }
    }
}

impl<E: RowEvaluator> Objective for ByRows<E> {
    fn statistics<'a>(&'a self, _: &'a Dataset, weights: &'a Weights) -> Statistics<'a> {
        Statistics::Rows(&self.evaluator, weights)
    }

    #[inline]
    fn leaf(&self, stats: &[f64]) -> Leaf {
        let label = match stats.get(2) {
            Some(&class) if self.evaluator.labels() => class as u32,
            _ => 0,
        };
        Leaf {
            cost: stats[1],
            label,
        }
    }

    fn leaf_value(&self, stats: &[f64]) -> f64 {
        stats.get(2).copied().unwrap_or(0.0)
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            depth2: self.evaluator.as_pinball().is_some(),
            similarity_bound: self.evaluator.as_pinball().is_some(),
            gain_order: false,
            equal_rows: false,
        }
    }

    fn held_bytes(&self) -> usize {
        self.evaluator.held_bytes()
    }

    fn release(&self) {
        self.evaluator.release()
    }
}
