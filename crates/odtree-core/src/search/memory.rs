//! Keeping a search within its memory limits (spec §6), for any driver: making room in the
//! cache before a new key, what a wipe must spare, and solving again the wiped parts of the
//! best tree. A driver tells what it can still reach ([`Reach`]) and how to solve a node
//! again ([`Resolve`]); the depth-first driver's answers sit with it (`drivers/exact/memory.rs`).

use super::kernel::{depth2, Kernel};
use crate::budget::Stop;
use crate::cache::{Handle, Key, KeyIndex, WipeStrategy};
use crate::cover::Cover;
use crate::data::{item, Dataset, Item};
use crate::objective::Objective;
use crate::stats::Weights;
use crate::subproblem::{Cost, Decision, Limits};
use std::mem::size_of;
use std::ops::DerefMut;

/// Budget entries a node may add between two checks of the memory limits: one per node on
/// the stack as the search unwinds, and the depth-2 solver's per-budget trees.
fn entry_margin(max_depth: u32) -> usize {
    2 * max_depth as usize + 8
}

/// The rounds of repair after which a tree still missing parts is extracted with leaves
/// there (a safeguard: each round repairs every missing part it meets).
pub(crate) const REPAIR_ROUNDS: usize = 64;

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
pub(crate) trait Reach {
    /// The ids no wipe may free.
    fn protected(&self) -> Vec<u32>;
    /// The tier of each id.
    fn tiers(&self) -> Vec<u8>;
}

/// What one node on a driver's stack spares from a wipe.
pub(crate) struct Spared {
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
pub(crate) fn make_room<'a, I, O, C, D>(driver: &mut D) -> bool
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
/// What solving again a wiped part of a driver's best tree asks of it.
pub(crate) trait Resolve<C> {
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
pub(crate) fn repair<'a, I, O, C, D>(driver: &mut D, limits: Limits, stats: &[f64]) -> usize
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
impl<I: KeyIndex, O: Objective, C: Cost> Kernel<'_, I, O, C> {
    /// The ids a wipe must spare for a driver whose root is solved within each of
    /// `root_limits` and whose stack is `frames`: the root and its best trees, and for every
    /// frame, its node, both children of the split it is trying, and its best subtrees.
    pub(crate) fn protected_with(
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
    pub(crate) fn fits(&self) -> bool {
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
pub(crate) fn working_bytes(
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
