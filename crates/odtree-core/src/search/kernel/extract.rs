//! Rebuilding the best tree from the cache once the search is done (spec §5.5).

use super::{Cost, Kernel};
use crate::cache::KeyIndex;
use crate::data::item;
use crate::objective::Objective;
use crate::subproblem::{Decision, Limits};
use crate::tree::{Tree, TreeBuilder};

impl<I: KeyIndex, O: Objective, C: Cost> Kernel<'_, I, O, C> {
    /// Rebuilds the best tree from the cache (spec §5.5).
    pub(crate) fn extract(&mut self, limits: Limits, stats: &[f64], rows: u32) -> Tree {
        let objective = self.objective;
        self.extract_as(objective, limits, stats, rows)
    }

    /// Rebuilds the best tree of `limits`' lane, its nodes labelled by `objective` (the
    /// lane's objective, over the search's statistics).
    pub(crate) fn extract_as<P: Objective>(
        &mut self,
        objective: &P,
        limits: Limits,
        stats: &[f64],
        rows: u32,
    ) -> Tree {
        let mut builder = TreeBuilder::new(objective, self.statistics);
        self.extract_node(&mut builder, limits, None, stats, rows);
        builder.finish()
    }

    pub(crate) fn extract_node<P: Objective>(
        &mut self,
        builder: &mut TreeBuilder<P>,
        limits: Limits,
        inline: Option<Decision>,
        stats: &[f64],
        rows: u32,
    ) {
        let decision = match inline {
            Some(decision) => decision,
            None if limits.is_leaf() => Decision::Leaf,
            None => self
                .cache
                .find(self.key())
                .and_then(|id| self.cache.known(id, limits).solution)
                .map_or(Decision::Leaf, |(_, decision)| decision),
        };
        let child_depth = limits.depth.saturating_sub(1);
        let label = self.lane_label(limits.lane);
        let (feature, children) = match decision {
            Decision::Unsolved | Decision::Leaf => {
                builder.leaf_as(stats, rows, label);
                return;
            }
            Decision::Split {
                feature,
                left,
                right,
                lanes,
            } => {
                let [left_lane, right_lane] =
                    lanes.map_or([limits.lane; 2], |lanes| lanes.map(u32::from));
                let cached = |nodes, lane| (limits.child(child_depth, nodes).in_lane(lane), None);
                (
                    feature,
                    [cached(left, left_lane), cached(right, right_lane)],
                )
            }
            Decision::Terminal {
                feature,
                left,
                right,
            } => {
                let inline = |f: Option<u32>| {
                    let decision = f.map_or(Decision::Leaf, |feature| Decision::Terminal {
                        feature,
                        left: None,
                        right: None,
                    });
                    (limits.child(child_depth, 1), Some(decision))
                };
                (feature, [inline(left), inline(right)])
            }
        };
        let node = builder.open_as(feature, stats, rows, label);
        let mut kids = [0; 2];
        for ((value, (limits, inline)), kid) in
            [false, true].into_iter().zip(children).zip(&mut kids)
        {
            *kid = builder.len();
            let it = item(feature, value);
            self.push(it);
            let mut child_stats = vec![0.0; stats.len()];
            let child_rows = self.statistics.count(&self.cover, None, &mut child_stats);
            self.extract_node(builder, limits, inline, &child_stats, child_rows);
            self.pop(it);
        }
        builder.close(node, kids);
    }
}
