//! The anytime driver: rounds of the depth-first search before the proof, each trying only
//! the splits Gini ranks best at every node (2, then 4 and 8) above subtrees of depth 2,
//! which are still solved exactly: a beam over the split order, widened in restarts (the
//! idea of CA-DL8.5's restarts and of LicketySPLIT's exact subtrees under heuristic splits).
//! Each round looks only for trees cheaper than the best so far, which becomes the
//! incumbent. The exact subtrees stay proven in the store for the proof; the rest is stored
//! unproven, and the proof solves it again. The rounds end when one finds nothing better,
//! after the widest, or when they use up their share of the time left; what is left of that
//! share then grows a LicketySPLIT-style tree (`lickety.rs`).

use super::incumbent::tree_cost;
use super::{Cost, Engine, Outcome};
use crate::budget::Stop;
use crate::cache::KeyIndex;
use crate::objective::Objective;
use crate::subproblem::Limits;
use crate::tree::{Tree, TreeBuilder};
use std::time::Instant;

/// The share of the time left that the rounds may take; the proof gets the rest.
const ROUNDS_SHARE: f64 = 0.15;

/// The widest round: wider ones solve exact subtrees the proof prunes, and cost it more time
/// than they save (twice the time to prove australian-credit at depth 5 when the rounds
/// widen up to every split; at most 4 % more up to 8).
const WIDEST: usize = 8;

impl<I: KeyIndex, O: Objective, C: Cost> Engine<'_, I, O, C> {
    /// Runs the rounds from the root (the current node) within `limits`, for trees cheaper
    /// than `upper_bound` and than `best`, which each better tree found replaces. Only with a
    /// time limit (a proof alone needs none), the depth-2 solver, no node or memory limits,
    /// and depth to restrict above the exact subtrees.
    pub(super) fn rounds(
        &mut self,
        limits: Limits,
        stats: &[f64],
        rows: u32,
        upper_bound: C,
        best: &mut Option<(C, Tree)>,
    ) {
        let Some(deadline) = self.budget.deadline() else {
            return;
        };
        let config = self.config;
        if !config.anytime
            || best
                .as_ref()
                .is_some_and(|(cost, _)| self.unbeatable(*cost))
            || !self.use_depth2
            || limits.depth <= 2
            || !limits.depth_only()
            || config.memory.is_bounded()
        {
            return;
        }
        let now = Instant::now();
        let share = deadline
            .saturating_duration_since(now)
            .mul_f64(ROUNDS_SHARE);
        let round_budget = self.budget.until(now + share);
        let outer = std::mem::replace(&mut self.budget, round_budget);
        let mut width = 2;
        while width <= WIDEST && width < self.data.n_features() {
            self.width = Some(width);
            let ub = best.as_ref().map_or(upper_bound, |(cost, _)| {
                upper_bound.min(*cost, self.tolerance)
            });
            let better = match self.solve(limits, ub, stats, rows) {
                Outcome::Solved(cost, _) => self.below(cost, ub),
                Outcome::Infeasible(_) => false,
            };
            if better {
                // the tree as the store now rebuilds it, at its own cost
                let tree = self.extract(limits, stats, rows);
                let cost = tree_cost::<C>(&tree);
                if self.below(cost, ub) {
                    self.note_progress(cost.objective());
                    *best = Some((cost, tree));
                }
            }
            let done = best
                .as_ref()
                .is_some_and(|(cost, _)| self.unbeatable(*cost));
            if !better || done || self.budget.stopped().is_some() {
                break;
            }
            width *= 2;
        }
        self.width = None;
        // then, in the time the rounds leave, a tree that looks deeper than a greedy split
        let done = best
            .as_ref()
            .is_some_and(|(cost, _)| self.unbeatable(*cost));
        if !self.monotonic && !done && self.budget.check_now().is_none() {
            let mut builder = TreeBuilder::new(self.objective, self.statistics);
            self.lickety(&mut builder, limits.depth, stats, rows);
            self.offer(best, builder.finish());
        }
        let round_budget = std::mem::replace(&mut self.budget, outer);
        if round_budget.stopped() == Some(Stop::Interrupted) {
            self.budget.stop(Stop::Interrupted);
        }
        // the proof starts at once if time remains
        self.budget.check_now();
    }
}
