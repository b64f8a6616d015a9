//! One candidate split of a node: each division of its branching nodes and of its lane
//! between the children, each child solved under the bound the split must beat.

use super::{Engine, Node, Splits};
use crate::cache::KeyIndex;
use crate::data::item;
use crate::objective::Objective;
use crate::search::kernel::{Child, Level, Outcome};
use crate::search::ChildOrder;
use crate::subproblem::{Cost, Decision};

impl<I: KeyIndex, O: Objective, C: Cost> Engine<'_, I, O, C> {
    /// Tries the split on candidate `index` of `level` (each division of the branching
    /// nodes, each division of the node's lane), improving `split`. Returns whether the node
    /// is done: the budget ran out, or a tree reached the node's lower bound.
    pub(super) fn try_split(
        &mut self,
        level: &mut Level,
        index: usize,
        node: &Node<'_, C>,
        split: &mut Splits<C>,
    ) -> bool {
        let Node {
            limits,
            stats,
            rows,
            bound: node_bound,
        } = *node;
        let len = stats.len();
        // each split costs two leaves: with slow leaf costs, the clock is read first
        if self.objective.costly() && self.budget.exhausted(true) {
            return true;
        }
        let f = level.candidates[index];
        let frame = self.frame();
        frame.feature = Some(f);
        frame.position = index as u32;
        let positive = &level.positive[f as usize * len..(f as usize + 1) * len];
        let positive_rows = level.positive_rows[f as usize];
        if self.statistics.additive() {
            for c in 0..len {
                level.negative[c] = stats[c] - positive[c];
            }
        } else {
            level.negative[..len]
                .copy_from_slice(&level.negatives[f as usize * len..(f as usize + 1) * len]);
        }
        let negative = &level.negative[..];
        // a monotonicity constraint may divide the node's allowed predictions (its lane)
        // between the children in more than one way: each is a split of its own
        let (lanes, n_lanes) = self.lane_divisions(f, limits.lane);
        for [left_lane, right_lane] in lanes.into_iter().take(n_lanes) {
            let mut left = Child {
                item: item(f, false),
                stats: negative,
                rows: rows - positive_rows,
                leaf_cost: C::leaf(self.lane_leaf_cost(left_lane, negative)),
                limits,
            };
            let mut right = Child {
                item: item(f, true),
                stats: positive,
                rows: positive_rows,
                leaf_cost: C::leaf(self.lane_leaf_cost(right_lane, positive)),
                limits,
            };
            let right_first = match self.config.child_order {
                ChildOrder::LeftFirst => false,
                ChildOrder::LargerLeafCostFirst => !right.leaf_cost.below(left.leaf_cost, 0.0),
            };
            let split_lanes = (n_lanes > 1).then_some([left_lane as u8, right_lane as u8]);
            for (left_limits, right_limits) in limits.divisions() {
                let ub = split.ub;
                left.limits = left_limits.in_lane(left_lane);
                right.limits = right_limits.in_lane(right_lane);
                let (first, second) = if right_first {
                    (right, left)
                } else {
                    (left, right)
                };
                let (first_bound, second_bound) = if self.config.sibling_bound {
                    (self.known_bound(&first), self.known_bound(&second))
                } else {
                    (C::ZERO, C::ZERO)
                };
                if !self.below(first_bound + second_bound, ub) {
                    split.refined = split
                        .refined
                        .min(first_bound + second_bound, self.tolerance);
                    continue;
                }
                let (first_cost, first_size) = match self.child(&first, ub - second_bound) {
                    Outcome::Solved(cost, size) if self.below(cost + second_bound, ub) => {
                        (cost, size)
                    }
                    outcome => {
                        split.refined = split
                            .refined
                            .min(outcome.bound() + second_bound, self.tolerance);
                        if self.budget.stopped().is_some() {
                            return true;
                        }
                        continue;
                    }
                };
                match self.child(&second, ub - first_cost) {
                    Outcome::Solved(cost, size) if self.below(first_cost + cost, ub) => {
                        split.ub = first_cost + cost;
                        let (left, right) = if right_first {
                            (size, first_size)
                        } else {
                            (first_size, size)
                        };
                        let decision = Decision::Split {
                            feature: f,
                            left,
                            right,
                            lanes: split_lanes,
                        };
                        split.best = Some((split.ub, decision));
                        self.frame().best = Some(decision);
                        // a better tree at the root of the search (not of a lookahead)
                        if self.frames.len() == 1 && limits == self.root_limits && self.proving() {
                            self.note_progress(split.ub.objective());
                        }
                        if !self.below(node_bound, split.ub) {
                            return true;
                        }
                    }
                    outcome => {
                        split.refined = split
                            .refined
                            .min(first_cost + outcome.bound(), self.tolerance)
                    }
                }
                if self.budget.stopped().is_some() {
                    return true;
                }
            }
        }
        false
    }
}
