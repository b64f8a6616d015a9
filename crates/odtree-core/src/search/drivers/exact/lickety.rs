//! A tree in the manner of LicketySPLIT (Babbar, McTavish, Rudin, Seltzer, 2025) for the
//! anytime rounds: each split is the one whose two children, grown by CART-style trees by the
//! objective to the depth left, cost least, and the last two levels are optimal subtrees of
//! depth 2. It costs a CART tree per candidate split and node, far less than a lookahead of
//! horizon 3, and sees splits that pay only deeper down, which a greedy split misses.

use super::super::cart::{grow, Criterion};
use super::{Cost, Engine};
use crate::cache::KeyIndex;
use crate::data::item;
use crate::objective::Objective;
use crate::tree::TreeBuilder;

impl<I: KeyIndex, O: Objective, C: Cost> Engine<'_, I, O, C> {
    /// Adds to `builder` the tree of the current node, with statistics `stats` of `rows`
    /// rows, within `depth` levels.
    pub(super) fn lickety(
        &mut self,
        builder: &mut TreeBuilder<O>,
        depth: u32,
        stats: &[f64],
        rows: u32,
    ) {
        if depth <= 2 || !self.splittable(rows) || self.budget.check().is_some() {
            self.lookahead(builder, depth, 2, stats, rows);
            return;
        }
        let at = self.path.len();
        let mut level = std::mem::take(&mut self.levels[at]);
        self.valid_splits(&mut level, rows);
        let mut child = vec![0.0; stats.len()];
        let mut best: Option<(f64, u32)> = None;
        for &f in &level.candidates {
            if self.budget.check().is_some() {
                break;
            }
            let mut cost = 0.0;
            for value in [false, true] {
                let test = item(f, value);
                self.push(test);
                let child_rows = self.statistics.count(&self.cover, None, &mut child);
                let mut grown = TreeBuilder::new(self.objective, self.statistics);
                grow(
                    &mut self.kernel,
                    &mut grown,
                    depth - 1,
                    &child,
                    child_rows,
                    Criterion::Objective,
                );
                cost += grown.finish().cost();
                self.pop(test);
            }
            if best.is_none_or(|(least, _)| cost < least - self.tolerance) {
                best = Some((cost, f));
            }
        }
        self.levels[at] = level;
        let Some((_, feature)) = best else {
            builder.leaf(stats, rows);
            return;
        };
        self.split_node(
            builder,
            feature,
            stats,
            rows,
            |engine, builder, _, child, rows| {
                engine.lickety(builder, depth - 1, child, rows);
            },
        );
    }
}
