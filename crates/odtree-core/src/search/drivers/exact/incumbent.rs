//! A first tree before the exact search: the best of a CART-style tree by the objective, one
//! tree by Gini impurity (as CART, for class objectives) and lookahead trees, each of whose
//! splits roots the optimal subtree of depth h beneath it, its last h levels optimal, for
//! h = 2, then (after the anytime rounds, `anytime.rs`) h = 3, 4, ... while time allows and h
//! is below the depth. The search then looks only for
//! trees cheaper than it, and returns it when stopped before finding one: a time limit never
//! yields a tree worse than these.

use super::super::cart::{grow, Criterion};
use super::{Cost, Engine};
use crate::cache::KeyIndex;
use crate::data::item;
use crate::objective::Objective;
use crate::subproblem::{Decision, Limits};
use crate::tree::{Tree, TreeBuilder};
use std::ops::Range;

/// The cost of `tree` as the search counts it (for the lexicographic order, with its leaves).
pub(super) fn tree_cost<C: Cost>(tree: &Tree) -> C {
    tree.nodes()
        .iter()
        .filter(|node| node.is_leaf())
        .fold(C::ZERO, |sum, node| sum + C::leaf(node.leaf_cost))
}

impl<I: KeyIndex, O: Objective, C: Cost> Engine<'_, I, O, C> {
    /// The incumbent built from the root (the current node) within `limits`, with its cost;
    /// `None` when switched off, or under node limits, which the CART-style trees ignore.
    pub(super) fn incumbent(
        &mut self,
        limits: Limits,
        stats: &[f64],
        rows: u32,
    ) -> Option<(C, Tree)> {
        if !self.config.incumbent || self.config.max_nodes.is_some() || limits.is_leaf() {
            return None;
        }
        let mut criteria = vec![Criterion::Objective];
        if self.gain_order {
            criteria.push(Criterion::Gini);
        }
        let mut best = None;
        for criterion in criteria {
            let mut builder = TreeBuilder::new(self.objective, self.statistics);
            grow(
                &mut self.kernel,
                &mut builder,
                limits.depth,
                stats,
                rows,
                criterion,
            );
            self.offer(&mut best, builder.finish());
        }
        self.deepen(limits, stats, rows, 2..3, &mut best);
        best
    }

    /// Offers lookahead trees of each horizon of `horizons` in turn while time allows (each
    /// from the subproblems the last one stored), until one costs nothing (no tree does
    /// better); nothing without a first tree in `best`.
    pub(super) fn deepen(
        &mut self,
        limits: Limits,
        stats: &[f64],
        rows: u32,
        horizons: Range<u32>,
        best: &mut Option<(C, Tree)>,
    ) {
        for horizon in horizons {
            let done = best.as_ref().is_none_or(|(cost, _)| self.unbeatable(*cost));
            if done || horizon >= limits.depth.max(3) || self.budget.check_now().is_some() {
                break;
            }
            let mut builder = TreeBuilder::new(self.objective, self.statistics);
            self.lookahead(&mut builder, limits.depth, horizon, stats, rows);
            self.offer(best, builder.finish());
        }
    }

    /// Whether no tree costs less than `cost`: its objective is the root's equal-rows bound
    /// (`root_bound.rs`), zero where there is none.
    pub(super) fn unbeatable(&self, cost: C) -> bool {
        let floor = C::value(self.equal_rows.objective());
        !self.below(floor, C::value(cost.objective()))
    }

    /// Keeps `tree` in `best` if it is cheaper, and records the progress.
    pub(super) fn offer(&mut self, best: &mut Option<(C, Tree)>, tree: Tree) {
        let cost = tree_cost::<C>(&tree);
        if best
            .as_ref()
            .is_none_or(|(least, _)| cost.below(*least, 0.0))
        {
            self.note_progress(cost.objective());
            *best = Some((cost, tree));
        }
    }

    /// Adds to `builder` the lookahead subtree of the current node within `depth`, looking
    /// `horizon` levels ahead: the optimal subtree when `depth ≤ horizon`, else a split on the
    /// root of the node's optimal subtree of depth `horizon`, and the children's lookahead
    /// subtrees. The subproblems solved on the way stay stored for the search that follows.
    pub(super) fn lookahead(
        &mut self,
        builder: &mut TreeBuilder<O>,
        depth: u32,
        horizon: u32,
        stats: &[f64],
        rows: u32,
    ) {
        let ahead = Limits::normalised(depth.min(horizon), u32::MAX);
        if self.budget.check().is_none() {
            self.solve(ahead, C::INFINITY, stats, rows);
            self.root_ahead |= self.path.is_empty() && ahead == self.root_limits;
        }
        let root = self
            .cache
            .find(self.key())
            .and_then(|id| self.cache.known(id, ahead).solution)
            .and_then(|(_, decision)| match decision {
                Decision::Split { feature, lanes, .. } => Some((feature, lanes)),
                Decision::Terminal { feature, .. } => Some((feature, None)),
                Decision::Leaf | Decision::Unsolved => None,
            });
        // a depth-2 tree on a monotonicity-constrained feature, found without the
        // constraint (see `depth2_relaxed`), names no classes its children are restricted to:
        // deepening them apart could break the constraint, so the tree is kept as it is
        let unrestricted = |(feature, lanes): (u32, Option<[u8; 2]>)| {
            lanes.is_none() && self.lane_divisions(feature, 0).1 > 1
        };
        if depth <= horizon || root.is_some_and(unrestricted) {
            self.extract_node(builder, ahead, None, stats, rows);
            return;
        }
        let Some((feature, lanes)) = root else {
            builder.leaf(stats, rows);
            return;
        };
        self.split_node(
            builder,
            feature,
            stats,
            rows,
            |engine, builder, value, child, rows| {
                // a child a monotonicity constraint restricts to one class is that class's leaf
                let lane = lanes.map_or(0, |lanes| u32::from(lanes[value as usize]));
                match engine.lane_label(lane) {
                    Some(label) => {
                        builder.leaf_as(child, rows, Some(label));
                    }
                    None => engine.lookahead(builder, depth - 1, horizon, child, rows),
                }
            },
        );
    }

    /// Adds to `builder` a split of the current node (statistics `stats` of `rows` rows) on
    /// `feature`, each child's subtree added by `child_tree(self, builder, value, its
    /// statistics, its rows)` with the cursor on the child.
    pub(super) fn split_node(
        &mut self,
        builder: &mut TreeBuilder<O>,
        feature: u32,
        stats: &[f64],
        rows: u32,
        mut child_tree: impl FnMut(&mut Self, &mut TreeBuilder<O>, bool, &[f64], u32),
    ) {
        let node = builder.open(feature, stats, rows);
        let mut kids = [0; 2];
        let mut child = vec![0.0; stats.len()];
        for (value, kid) in [false, true].into_iter().zip(&mut kids) {
            *kid = builder.len();
            let test = item(feature, value);
            self.push(test);
            let child_rows = self.statistics.count(&self.cover, None, &mut child);
            child_tree(self, builder, value, &child, child_rows);
            self.pop(test);
        }
        builder.close(node, kids);
    }
}
