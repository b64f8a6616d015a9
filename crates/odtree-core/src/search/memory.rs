//! Keeping a search within its memory limits (spec §6): making room in the cache before a new
//! key, what a wipe must spare, and solving again the wiped parts of the best tree.

use super::{depth2, entry_margin, Cost, Engine, Kernel, Outcome};
use crate::budget::Stop;
use crate::cache::{Handle, Key, KeyIndex, WipeStrategy};
use crate::cover::Cover;
use crate::data::{item, item_feature, Dataset, Item};
use crate::objective::Objective;
use crate::stats::Weights;
use crate::subproblem::{Decision, Limits};
use std::mem::size_of;
use std::ops::DerefMut;

/// A second cursor over the lattice, for finding the keys of nodes away from the search's
/// current node.
struct Walk<'d> {
    data: &'d Dataset,
    path: Vec<Item>,
    cover: Cover,
    /// How many tests of the engine's trail this walk has followed.
    followed: usize,
}

impl<'d> Walk<'d> {
    fn new(data: &'d Dataset, weights: &Weights) -> Self {
        Self {
            data,
            path: Vec::new(),
            cover: Cover::new(weights.support()),
            followed: 0,
        }
    }

    fn push(&mut self, item: Item) {
        let at = self.path.partition_point(|&x| x < item);
        self.path.insert(at, item);
        self.cover.intersect(self.data.item_mask(item));
    }

    fn pop(&mut self, item: Item) {
        let at = self.path.partition_point(|&x| x < item);
        self.path.remove(at);
        self.cover.backtrack();
    }

    fn key(&self) -> Key<'_> {
        Key {
            path: &self.path,
            cover: &self.cover,
        }
    }
}

/// What memory bounding asks of a driver before a wipe: the ids it must spare (for the
/// depth-first driver: the nodes on its stack, the children each is trying, its best trees),
/// and per id how soon it may look the key up again (its tier; a wipe frees the lowest first,
/// and an empty list ranks by the strategy's score alone).
pub(super) trait Reach {
    /// The ids no wipe may free.
    fn protected(&self) -> Vec<u32>;
    /// The tier of each id.
    fn tiers(&self) -> Vec<u8>;
}

/// What one node on a driver's stack spares from a wipe.
pub(super) struct Spared {
    pub handle: Handle,
    /// Length of the trail at the node.
    pub depth: usize,
    /// The feature whose children are being solved.
    pub feature: Option<u32>,
    /// The best subtrees found so far, each with the limits it was found within.
    pub best: Vec<(Limits, Decision)>,
}

/// Makes room in `driver`'s store for the current node's key: wipes by the configured
/// strategy, then forgets what the objective remembers, then wipes everything the driver does
/// not protect. When even that is not enough, stops the search and returns false.
pub(super) fn make_room<'a, I, O, C, D>(driver: &mut D) -> bool
where
    I: KeyIndex,
    O: Objective + 'a,
    C: Cost,
    D: Reach + DerefMut<Target = Kernel<'a, I, O, C>>,
{
    if driver.fits() {
        return true;
    }
    let memory = driver.config.memory;
    let base = memory.max_entries.unwrap_or_else(|| driver.cache.len());
    let target = ((base as f64 * memory.wipe_factor) as usize).max(1);
    // the configured strategy first, then everything not protected
    let rounds = [(memory.strategy, target), (WipeStrategy::All, usize::MAX)];
    let rounds = if memory.strategy == WipeStrategy::All {
        &rounds[1..]
    } else {
        &rounds[..]
    };
    for (round, &(strategy, target)) in rounds.iter().enumerate() {
        // the objective's remembered results go before the entries the search cannot spare
        if round + 1 == rounds.len() && driver.objective.held_bytes() > 0 {
            driver.objective.release();
            if driver.fits() {
                return true;
            }
        }
        let mut protected = driver.protected();
        let tiers = match strategy {
            WipeStrategy::All => Vec::new(),
            _ => driver.tiers(),
        };
        driver.cache.wipe(&mut protected, target, strategy, &tiers);
        if driver.fits() {
            return true;
        }
    }
    driver.budget.stop(Stop::MemoryLimit);
    false
}

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

/// What solving again a wiped part of a driver's best tree asks of it.
pub(super) trait Resolve<C> {
    /// The leaf cost, in `limits`' lane, of a node with statistics `stats`.
    fn lane_leaf(&self, limits: Limits, stats: &[f64]) -> C;
    /// Solves the current node within `limits` for a subtree of its lane costing at most
    /// `cost` (beyond rounding noise), and returns its cost, or its bound if stopped.
    fn resolve(&mut self, limits: Limits, cost: C, stats: &[f64], rows: u32) -> C;
}

/// Solves again the parts of the current node's best subtree in `limits`' lane that were
/// wiped (spec §6.9): a missing child whose sibling is known costs exactly the parent's cost
/// minus the sibling's, so it is searched with that as its lower bound and just above it as
/// its upper bound. Returns how many subtrees were solved again.
pub(super) fn repair<'a, I, O, C, D>(driver: &mut D, limits: Limits, stats: &[f64]) -> usize
where
    I: KeyIndex,
    O: Objective + 'a,
    C: Cost,
    D: Reach + Resolve<C> + DerefMut<Target = Kernel<'a, I, O, C>>,
{
    if limits.is_leaf() {
        return 0;
    }
    let solution = driver
        .cache
        .find(driver.key())
        .and_then(|id| driver.cache.known(id, limits).solution);
    let Some((
        cost,
        Decision::Split {
            feature,
            left,
            right,
            ..
        },
    )) = solution
    else {
        return 0;
    };
    let children = [(false, left), (true, right)]
        .map(|(value, nodes)| (item(feature, value), limits.child(limits.depth - 1, nodes)));
    let mut child_stats = [vec![0.0; stats.len()], vec![0.0; stats.len()]];
    let mut child_rows = [0; 2];
    let mut costs = [None; 2];
    for (k, &(test, limits)) in children.iter().enumerate() {
        driver.push(test);
        let cover = &driver.cover;
        child_rows[k] = driver.statistics.count(cover, None, &mut child_stats[k]);
        costs[k] = if limits.is_leaf() {
            Some(driver.lane_leaf(limits, &child_stats[k]))
        } else {
            driver
                .cache
                .find(driver.key())
                .and_then(|id| driver.cache.known(id, limits).solution)
                .map(|(cost, _)| cost)
        };
        driver.pop(test);
    }
    let mut repaired = 0;
    for k in 0..2 {
        if costs[k].is_some() {
            continue;
        }
        let exact = costs[1 - k].map(|sibling| cost - sibling);
        let (test, limits) = children[k];
        driver.push(test);
        if let Some(exact) = exact.filter(|_| make_room(driver)) {
            let id = driver.insert_current();
            driver.cache.raise(id, limits, exact);
        }
        let target = exact.unwrap_or(cost);
        costs[k] = Some(driver.resolve(limits, target, &child_stats[k], child_rows[k]));
        driver.pop(test);
        repaired += 1;
    }
    for (k, &(test, limits)) in children.iter().enumerate() {
        driver.push(test);
        repaired += repair(driver, limits, &child_stats[k]);
        driver.pop(test);
    }
    repaired
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

impl<I: KeyIndex, O: Objective, C: Cost> Kernel<'_, I, O, C> {
    /// The ids a wipe must spare for a driver whose root is solved within each of
    /// `root_limits` and whose stack is `frames`: the root and its best trees, and for every
    /// frame, its node, both children of the split it is trying, and its best subtrees.
    pub(super) fn protected_with(
        &self,
        root_limits: &[Limits],
        frames: impl Iterator<Item = Spared>,
    ) -> Vec<u32> {
        let mut walk = Walk::new(self.data, self.weights);
        let mut protected = Vec::new();
        if let Some(root) = self.cache.find(walk.key()) {
            protected.push(root);
            for &limits in root_limits {
                if let Some((_, decision)) = self.cache.known(root, limits).solution {
                    self.protect_subtree(&mut walk, limits, decision, &mut protected);
                }
            }
        }
        for frame in frames {
            while walk.followed < frame.depth {
                walk.push(self.trail[walk.followed]);
                walk.followed += 1;
            }
            if self.cache.is_current(frame.handle) {
                protected.push(frame.handle.id);
            }
            if let Some(feature) = frame.feature {
                for value in [false, true] {
                    walk.push(item(feature, value));
                    protected.extend(self.cache.find(walk.key()));
                    walk.pop(item(feature, value));
                }
            }
            for (limits, best) in frame.best {
                self.protect_subtree(&mut walk, limits, best, &mut protected);
            }
        }
        protected
    }

    /// Adds the cached nodes of the subtree `decision` roots at the walk's node.
    fn protect_subtree(
        &self,
        walk: &mut Walk,
        limits: Limits,
        decision: Decision,
        protected: &mut Vec<u32>,
    ) {
        let Decision::Split {
            feature,
            left,
            right,
            ..
        } = decision
        else {
            return;
        };
        for (value, nodes) in [(false, left), (true, right)] {
            let test = item(feature, value);
            walk.push(test);
            if let Some(id) = self.cache.find(walk.key()) {
                protected.push(id);
                let limits = limits.child(limits.depth - 1, nodes);
                if let Some((_, decision)) = self.cache.known(id, limits).solution {
                    self.protect_subtree(walk, limits, decision, protected);
                }
            }
            walk.pop(test);
        }
    }

    /// Whether the current node's key, and the entries that may follow it before the next
    /// check, fit within the limits.
    pub(super) fn fits(&self) -> bool {
        let memory = &self.config.memory;
        let key = self.key();
        // the path's length bounds the new keys, and is cheaper to read
        let entries = memory.max_entries.is_none_or(|most| {
            self.cache.len() + key.path.len().max(1) <= most
                || self.cache.len() + self.cache.new_keys(key) <= most
        });
        entries
            && memory.max_bytes.is_none_or(|most| {
                let margin = entry_margin(self.config.max_depth) * self.lanes;
                self.working_bytes
                    + self.objective.held_bytes()
                    + self.cache.bytes()
                    + self.cache.growth(key, margin)
                    <= most
            })
    }
}

/// Estimated bytes a search holds besides its cache: the per-depth statistics of every
/// feature, the covers, the depth-2 solver's pair counts and the similarity archive.
pub(super) fn working_bytes(
    data: &Dataset,
    max_depth: u32,
    n_stats: usize,
    depth2: bool,
    similarity: bool,
) -> usize {
    let (f, w, levels) = (data.n_features(), data.n_words(), max_depth as usize + 2);
    // statistics, row counts, candidates, gains and the loop ranks of each depth
    let per_level = f * (2 * n_stats * size_of::<f64>() + 4 * size_of::<u32>());
    // the search's cover, and the wipe's walk
    let covers = 2 * levels * w * (size_of::<u64>() + size_of::<u32>() + size_of::<u64>());
    let depth2 = if depth2 {
        let ones: usize = (0..f as u32)
            .map(|g| {
                data.item_mask(item(g, true))
                    .iter()
                    .map(|w| w.count_ones() as usize)
                    .sum::<usize>()
            })
            .sum();
        let pairs = depth2::pair_bytes(f, n_stats) + 4 * w * size_of::<u64>();
        let rows = (ones + data.n_rows() + 1) * size_of::<u32>();
        pairs + rows + f * (4 * n_stats * size_of::<f64>() + 64)
    } else {
        0
    };
    let similarity = if similarity {
        (2 * levels + 1) * w * size_of::<u64>()
    } else {
        0
    };
    levels * per_level + covers + depth2 + similarity
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;
    use crate::cache::TrieIndex;
    use crate::objective::Misclassification;
    use crate::search::{Frame, MemoryLimits, SearchConfig};

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
