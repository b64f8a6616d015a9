//! Bound passes: under a time limit, after the anytime rounds and before the proof, searches
//! for trees cheaper than targets between the root's proven bound and the incumbent, lowest
//! first (the contours of IDA*). A low target is cheap to refute: most splits are pruned by
//! the similarity bound against the subtrees already solved, where the proof, looking for
//! trees cheaper than the incumbent, must solve them. Each refuted target is a proven lower
//! bound of the root, and every split of the root gets a bound from each pass, not only the
//! splits a stopped proof reached. The bounds stored stay for the proof, and a pass that
//! finds a tree under its target has found a better incumbent.

use super::incumbent::tree_cost;
use super::{Cost, Engine, Outcome};
use crate::budget::Stop;
use crate::cache::KeyIndex;
use crate::objective::Objective;
use crate::subproblem::Limits;
use crate::tree::Tree;
use std::time::Instant;

/// The share of the time left that the passes may take; the proof gets the rest. The first
/// pass, the cheapest, may take `FIRST_SHARE`: where it cannot refute its target, no later
/// pass could, and the proof gets the time.
const PASSES_SHARE: f64 = 0.25;
const FIRST_SHARE: f64 = 0.05;

/// The first target lies this share of the way from the proven bound to the incumbent; the
/// share doubles after each refuted target, up to `LAST_STEP` (targets near the incumbent
/// cost nearly a proof).
const FIRST_STEP: f64 = 1.0 / 64.0;
const LAST_STEP: f64 = 0.25;

impl<I: KeyIndex, O: Objective, C: Cost> Engine<'_, I, O, C> {
    /// Runs the passes from the root (the current node) within `limits`, below the cost of
    /// `best`, which a tree found under a target replaces; returns the bound they proved.
    /// Only with a time limit and the anytime switch, on the searches the rounds run on.
    pub(super) fn bound_passes(
        &mut self,
        limits: Limits,
        stats: &[f64],
        rows: u32,
        best: &mut Option<(C, Tree)>,
    ) -> C {
        let mut proven = self.root_floor(limits, stats);
        let Some(deadline) = self.budget.deadline() else {
            return proven;
        };
        if !self.config.anytime
            || limits.depth <= 2
            || !limits.depth_only()
            || self.config.memory.is_bounded()
            || self.budget.stopped().is_some()
        {
            return proven;
        }
        let now = Instant::now();
        let left = deadline.saturating_duration_since(now);
        let first_budget = self.budget.until(now + left.mul_f64(FIRST_SHARE));
        let outer = std::mem::replace(&mut self.budget, first_budget);
        let passes_budget = outer.until(now + left.mul_f64(PASSES_SHARE));
        let mut step = FIRST_STEP;
        while let Some((incumbent, _)) = best.as_ref() {
            let incumbent = *incumbent;
            let (low, high) = (proven.objective(), incumbent.objective());
            let target = C::value(low + step * (high - low));
            if !self.below(proven, target) || !self.below(target, incumbent) {
                break;
            }
            match self.solve(limits, target, stats, rows) {
                _ if self.budget.stopped().is_some() => break,
                Outcome::Infeasible(bound) => {
                    proven = proven.max(bound);
                    if step == FIRST_STEP {
                        self.budget = passes_budget.clone();
                    }
                    step = (2.0 * step).min(LAST_STEP);
                }
                Outcome::Solved(cost, _) if self.below(cost, target) => {
                    let tree = self.extract(limits, stats, rows);
                    let cost = tree_cost::<C>(&tree);
                    if !self.below(cost, incumbent) {
                        break;
                    }
                    self.note_progress(cost.objective());
                    *best = Some((cost, tree));
                }
                Outcome::Solved(cost, _) => proven = proven.max(cost),
            }
        }
        let passes_budget = std::mem::replace(&mut self.budget, outer);
        if passes_budget.stopped() == Some(Stop::Interrupted) {
            self.budget.stop(Stop::Interrupted);
        }
        self.budget.check_now();
        proven
    }
}
