//! The exact driver's answers to memory bounding (spec §6): the loop order of each frame,
//! which ids a wipe must spare and how soon the search may look each up again, and how a
//! wiped part of the best tree is solved again.

use super::Engine;
use crate::cache::KeyIndex;
use crate::data::item_feature;
use crate::objective::Objective;
use crate::search::kernel::Outcome;
use crate::search::memory::{Reach, Resolve, Spared};
use crate::subproblem::{Cost, Limits};

impl<I: KeyIndex, O: Objective, C: Cost> Engine<'_, I, O, C> {
    /// Records the loop order of the node about to become the deepest frame.
    pub(super) fn note_loop(&mut self, candidates: &[u32]) {
        let at = self.frames.len();
        if self.loop_ranks.len() <= at {
            self.loop_ranks.resize_with(at + 1, Vec::new);
        }
        let n_features = self.data.n_features();
        let ranks = &mut self.loop_ranks[at];
        ranks.clear();
        ranks.resize(n_features, u32::MAX);
        for (place, &f) in candidates.iter().enumerate() {
            ranks[f as usize] = place as u32;
        }
    }
}

impl<I: KeyIndex, O: Objective, C: Cost> Resolve<C> for Engine<'_, I, O, C> {
    fn lane_leaf(&self, _: Limits, stats: &[f64]) -> C {
        C::leaf(self.objective.leaf_cost(stats))
    }

    fn resolve(&mut self, limits: Limits, cost: C, stats: &[f64], rows: u32) -> C {
        let slack = C::value(2.0 * self.tolerance);
        let outcome = self.solve(limits, cost + slack, stats, rows);
        debug_assert!(
            matches!(outcome, Outcome::Solved(..)) || self.budget.stopped().is_some(),
            "a wiped child of the best tree is feasible under its known cost"
        );
        outcome.bound()
    }
}

impl<I: KeyIndex, O: Objective, C: Cost> Reach for Engine<'_, I, O, C> {
    /// The ids a wipe must spare: the root and its best tree, and for every node on the
    /// stack, the node, both children of the split it is trying, and its best split so far.
    fn protected(&self) -> Vec<u32> {
        let frames = self.frames.iter().map(|frame| Spared {
            handle: frame.handle,
            depth: frame.depth,
            feature: frame.feature,
            best: frame
                .best
                .map(|best| (frame.limits, best))
                .into_iter()
                .collect(),
        });
        self.protected_with(&[self.root_limits], frames)
    }

    /// Per id, how soon the search may look its key up again; a wipe frees the lowest tiers
    /// first. A node only looks up keys that contain its path, so a key is reachable from a
    /// frame whose path it contains, through a test of the key still ahead in the frame's
    /// loop. The tier is 1 + the deepest such frame, or 0 if none is left; keys containing
    /// the whole trail (the current node's own subtree) rank one above the deepest frame.
    /// Empty when keys are rows, not paths.
    fn tiers(&self) -> Vec<u8> {
        if I::BY_ROWS {
            return Vec::new();
        }
        let top = (self.frames.len() + 1).min(u8::MAX as usize) as u8;
        let mut tiers = vec![0u8; self.cache.slots()];
        let mut path = Vec::new();
        // per test of the key: its place on the trail (`usize::MAX`: not on it)
        let mut places = Vec::new();
        for (id, tier) in tiers.iter_mut().enumerate() {
            if !self.cache.path(id as u32, &mut path) {
                continue;
            }
            places.clear();
            places.extend(path.iter().map(|test| {
                self.trail
                    .iter()
                    .position(|t| t == test)
                    .unwrap_or(usize::MAX)
            }));
            // the trail's longest prefix inside the key
            let reached = (0..self.trail.len())
                .find(|&i| !places.contains(&i))
                .unwrap_or(self.trail.len());
            if reached == self.trail.len() {
                *tier = top;
                continue;
            }
            let deepest = self.frames.iter().enumerate().rev().find(|(j, frame)| {
                let ranks = &self.loop_ranks[*j];
                frame.depth <= reached
                    && path.iter().zip(&places).any(|(&test, &place)| {
                        let rank = ranks[item_feature(test) as usize];
                        place >= frame.depth
                            && rank != u32::MAX
                            && (rank > frame.position
                                || rank == frame.position && place != frame.depth)
                    })
            });
            *tier = deepest.map_or(0, |(j, _)| (j + 1).min(u8::MAX as usize) as u8);
        }
        tiers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;
    use crate::cache::{Key, TrieIndex};
    use crate::data::{item, Dataset, Item};
    use crate::objective::Misclassification;
    use crate::search::drivers::exact::Frame;
    use crate::search::{MemoryLimits, SearchConfig};
    use crate::stats::Weights;

    /// The search at node {0=1, 2=0}: the root loops over features 3, 0, 1, 2 and is trying 0;
    /// node {0=1} loops over 1, 2, 3 and is trying 2. Each key's tier is 1 + the deepest frame
    /// that can still reach it (0: none), and the top tier for keys below the current node.
    #[test]
    fn tiers_rank_keys_by_the_deepest_frame_that_can_reach_them() {
        let x: Vec<u8> = (0..8 * 4).map(|i| ((i * 5 + i / 3) % 2) as u8).collect();
        let data = Dataset::new(&x, 8, &[0, 1, 0, 1, 0, 1, 0, 1], 2).unwrap();
        let weights = Weights::new(None, 8).unwrap();
        let objective = Misclassification::new(&[4.0, 4.0]);
        let config = SearchConfig {
            max_depth: 3,
            memory: MemoryLimits {
                max_entries: Some(1000),
                ..MemoryLimits::default()
            },
            ..SearchConfig::default()
        };
        let mut engine = Engine::<TrieIndex, _, f64>::new(
            &data,
            &weights,
            &objective,
            &config,
            Budget::default(),
        );
        let key_of = |engine: &mut Engine<TrieIndex, _, f64>, tests: &[Item]| {
            let mut path = tests.to_vec();
            path.sort_unstable();
            let cover = engine.cover.clone();
            engine.cache.insert(Key {
                path: &path,
                cover: &cover,
            })
        };
        let root = key_of(&mut engine, &[]);
        let node = key_of(&mut engine, &[item(0, true)]);
        let frame = |id, depth, feature, position| Frame {
            handle: engine.cache.handle(id),
            limits: Limits::normalised(3 - depth as u32, 7),
            depth,
            feature: Some(feature),
            position,
            best: None,
            created: 0,
        };
        let frames = vec![frame(root, 0, 0, 1), frame(node, 1, 2, 1)];
        engine.frames = frames;
        let never = u32::MAX;
        engine.loop_ranks = vec![vec![1, 2, 3, 0], vec![never, 0, 1, 2]];
        engine.trail = vec![item(0, true), item(2, false)];
        let cases: [(&[Item], u8); 7] = [
            // below the current node: the top tier
            (&[item(0, true), item(2, false), item(3, true)], 3),
            // node {0=1} has feature 3 ahead, and 2=1 is the other child of its split
            (&[item(0, true), item(3, true)], 2),
            (&[item(0, true), item(2, true)], 2),
            // feature 1 is behind node {0=1} but ahead of the root
            (&[item(0, true), item(1, false)], 1),
            (&[item(0, false), item(1, true)], 1),
            (&[item(3, false), item(1, true)], 1),
            // feature 3 is behind the root: nothing reaches it
            (&[item(3, true)], 0),
        ];
        let ids: Vec<u32> = cases
            .iter()
            .map(|(tests, _)| key_of(&mut engine, tests))
            .collect();
        let tiers = engine.tiers();
        for ((tests, tier), id) in cases.iter().zip(ids) {
            assert_eq!(tiers[id as usize], *tier, "key {tests:?}");
        }
    }
}
