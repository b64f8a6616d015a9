//! The specialised solver for the pinball losses of several quantiles, on subproblems of
//! depth 1 (MurTree §4.3 for objectives that need the rows, spec §5.4d).
//!
//! Quantile losses have no additive statistics, so pairs of features cannot be counted once
//! and subtracted. What still pays is the general search's overhead at the last level: a
//! ranked bitset built and read for every child of every split. Here the node's rows are
//! ranked by target once, each candidate splits that list in two in order, and each side's
//! losses for every quantile come from one ordered pass over it. The numbers are those of
//! [`Pinball::losses`](crate::objective::Pinball::losses).
//!
//! Depth-2 subproblems stay with the general search: solved here, their depth-1 children
//! would not be shared between parents, which costs more than this solver saves.

use crate::budget::Budget;
use crate::cover::Cover;
use crate::data::{item, Dataset};
use crate::objective::QuantileSet;
use crate::stats::Weights;
use crate::subproblem::Decision;

/// What the solver reads: the data, the losses and the rules every cell follows.
pub(crate) struct Rules<'a> {
    pub data: &'a Dataset,
    pub weights: &'a Weights,
    pub set: &'a QuantileSet,
    /// Cost added per leaf.
    pub per_leaf: f64,
    /// Each lane's rounding tolerance.
    pub tolerances: &'a [f64],
}

/// Reusable buffers.
#[derive(Debug, Default)]
pub(crate) struct Ranked {
    /// The node's rows' target ranks, increasing.
    node: Vec<u32>,
    /// The two sides of a split, in the same order.
    sides: [Vec<u32>; 2],
    /// Each lane's loss of the two sides, and their values.
    losses: Vec<f64>,
    values: Vec<f64>,
}

impl Ranked {
    /// Per lane, the best tree of depth ≤ 1 of the node whose rows are `cover`, splitting on
    /// one of `candidates` (each a valid split); `leaf` holds each lane's leaf cost of the
    /// node. Stops early, with the trees found so far, when `budget` runs out.
    pub fn solve(
        &mut self,
        rules: &Rules,
        cover: &Cover,
        candidates: &[u32],
        leaf: &[f64],
        budget: &mut Budget,
    ) -> Vec<(f64, Decision)> {
        let pinball = rules.set.pinball();
        let lanes = leaf.len();
        self.node.clear();
        self.node
            .extend(cover.rows().iter().map(|&row| pinball.rank(row as usize)));
        self.node.sort_unstable();
        self.losses.resize(2 * lanes, 0.0);
        self.values.resize(lanes, 0.0);
        let mut best: Vec<(f64, Decision)> = leaf.iter().map(|&c| (c, Decision::Leaf)).collect();
        for &f in candidates {
            if budget.check().is_some() {
                break;
            }
            self.split(rules, f);
            let (left, right) = self.losses.split_at_mut(lanes);
            for (side, costs) in self.sides.iter().zip([left, right]) {
                rules
                    .set
                    .losses_of_ranks(side, rules.weights, costs, &mut self.values);
            }
            for (lane, found) in best.iter_mut().enumerate() {
                let cost = self.losses[lane] + self.losses[lanes + lane] + 2.0 * rules.per_leaf;
                if cost < found.0 - rules.tolerances[lane] {
                    let terminal = Decision::Terminal {
                        feature: f,
                        left: None,
                        right: None,
                    };
                    *found = (cost, terminal);
                }
            }
        }
        best
    }

    /// Splits the node's ranks by feature `f` of their rows: the first side gets the rows
    /// where it is 0, the second those where it is 1, both in rank order.
    fn split(&mut self, rules: &Rules, f: u32) {
        let mask = rules.data.item_mask(item(f, true));
        let pinball = rules.set.pinball();
        let [zero, one] = &mut self.sides;
        zero.clear();
        one.clear();
        for &rank in &self.node {
            let row = pinball.row_of(rank);
            if mask[row / 64] >> (row % 64) & 1 == 1 {
                one.push(rank);
            } else {
                zero.push(rank);
            }
        }
    }
}
