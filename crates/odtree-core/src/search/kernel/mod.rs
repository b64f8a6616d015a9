//! The kernel of every search: the cursor over the lattice of paths, node evaluation (leaf
//! costs, candidate splits and their order, the depth-2 solver, the similarity bound, known
//! bounds), the store of subproblems, and tree extraction (MurTree §4, spec §2 and §5). The
//! drivers (`super::drivers`) walk the subproblems with it.

pub(crate) mod counts;
mod cursor;
pub(crate) mod depth2;
mod evaluate;
mod extract;
pub(crate) mod order;
pub(crate) mod shared;
pub(crate) mod similarity;
pub(crate) mod sums;

use super::memory::working_bytes;
use super::SearchConfig;
use crate::budget::Budget;
use crate::cache::{Cache, CacheReport, Handle, Key, KeyIndex};
use crate::cover::Cover;
use crate::data::{item, Dataset, Item};
use crate::objective::{Leaf, Objective};
use crate::stats::{Statistics, Weights};
use crate::subproblem::{Cost, Decision, Limits};
use depth2::Depth2;
use shared::SharedStore;
use similarity::SimilarityArchive;
use std::sync::Arc;

/// The result of solving one node under an upper bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Outcome<C> {
    /// The node's optimal cost (which may still be ≥ the bound the caller asked for) and the
    /// number of branching nodes of its best subtree.
    Solved(C, u32),
    /// No subtree costs less than the bound; the node's cost is at least this.
    Infeasible(C),
}

impl<C: Copy> Outcome<C> {
    /// A lower bound on the node's cost.
    pub(crate) fn bound(self) -> C {
        match self {
            Outcome::Solved(cost, _) | Outcome::Infeasible(cost) => cost,
        }
    }
}

/// Scratch space of one depth: the candidate features and their children's statistics.
#[derive(Clone, Debug, Default)]
pub(crate) struct Level {
    pub(crate) candidates: Vec<u32>,
    /// `positive[f * len..]`: statistics of the node's rows where feature f is 1.
    pub(crate) positive: Vec<f64>,
    pub(crate) positive_rows: Vec<u32>,
    pub(crate) negative: Vec<f64>,
    /// `negatives[f * len..]`: statistics of the rows where feature f is 0, when statistics
    /// are not additive (else derived from the node's and the positive child's).
    pub(crate) negatives: Vec<f64>,
    pub(crate) gains: Vec<f64>,
}

/// One child of a candidate split.
#[derive(Clone, Copy)]
pub(crate) struct Child<'s, C> {
    pub(crate) item: Item,
    pub(crate) stats: &'s [f64],
    pub(crate) rows: u32,
    pub(crate) leaf_cost: C,
    pub(crate) limits: Limits,
}

/// What every way of walking the subproblems shares (strategy-independent): the data, the
/// objective and settings, the cursor (path, cover with undo, what is on the path), node
/// evaluation's scratch and solvers, the store of subproblems, and the budget.
pub(crate) struct Kernel<'a, I: KeyIndex, O: Objective, C: Cost> {
    pub(crate) data: &'a Dataset,
    pub(crate) weights: &'a Weights,
    pub(crate) objective: &'a O,
    pub(crate) config: &'a SearchConfig,
    pub(crate) statistics: Statistics<'a>,
    /// Whether candidates are ordered by information gain (else by column).
    pub(crate) gain_order: bool,
    pub(crate) cache: Cache<I, C>,
    /// Keys the cache held, and had created, when it was adopted from an earlier search.
    kept: (usize, usize),
    pub(crate) cover: Cover,
    /// The current path, sorted: the cache key of the current node.
    pub(crate) path: Vec<Item>,
    /// The current path in the order the tests were pushed.
    pub(crate) trail: Vec<Item>,
    /// Estimated bytes of everything the search holds besides the cache.
    pub(crate) working_bytes: usize,
    pub(crate) on_path: Vec<bool>,
    pub(crate) levels: Vec<Level>,
    pub(crate) depth2: Depth2<C>,
    /// Evaluated nodes for the similarity bound, when it is valid and switched on.
    pub(crate) similarity: Option<SimilarityArchive<C>>,
    /// Whether nodes with no depth left are cached too (DL8.5 caches every node it visits).
    pub(crate) cache_leaves: bool,
    pub(crate) use_depth2: bool,
    /// Whether every budget of a depth-2 solve is stored (needed only with node limits).
    pub(crate) store_all_depth2: bool,
    pub(crate) tolerance: f64,
    pub(crate) budget: Budget,
    /// The objectives the driver serves at once, each a lane of the store (1 but for the
    /// multi-quantile driver).
    pub(crate) lanes: usize,
    /// In a restricted round of the anytime driver, how many of a node's best-ranked splits
    /// are tried above the depth-2 solver (`None`: all of them, as a proof needs).
    pub(crate) width: Option<usize>,
    /// Whether a monotonicity constraint applies (lanes then restrict leaf predictions).
    pub(crate) monotonic: bool,
    /// In a parallel search, the proven subtrees all its threads share.
    pub(crate) shared: Option<Arc<SharedStore<C>>>,
    /// Whether trees are extracted from this cache (false in a parallel search's worker
    /// threads): a subtree taken from the shared store is then copied into it whole.
    pub(crate) extracts: bool,
}

impl<'a, I: KeyIndex, O: Objective, C: Cost> Kernel<'a, I, O, C> {
    /// Prepares a search of `data` weighted by `weights`.
    pub(crate) fn new(
        data: &'a Dataset,
        weights: &'a Weights,
        objective: &'a O,
        config: &'a SearchConfig,
        budget: Budget,
    ) -> Self {
        let cover = Cover::new(weights.support());
        let capabilities = objective.capabilities();
        let statistics = objective.statistics(data, weights);
        // the depth-2 solver knows of no monotonicity constraint (see `depth2_applies`), and
        // the similarity bound of no constraint at all
        let use_depth2 = config.depth2_solver
            && capabilities.depth2
            && (statistics.additive() || statistics.pinball().is_some());
        let use_similarity = config.similarity_bound
            && capabilities.similarity_bound
            && config.min_samples_leaf == 1
            && !config.constrained();
        let max_depth = config.max_depth.min(data.n_features() as u32);
        let working_bytes = if config.memory.is_bounded() {
            let ranked = match statistics.pinball() {
                Some(_) if use_depth2 => depth2::pinball::RankedNode::bytes(data),
                _ => 0,
            };
            let removal = match statistics.pinball() {
                Some(_) if use_similarity => SimilarityArchive::<C>::removal_bytes(data.n_rows()),
                _ => 0,
            };
            ranked
                + removal
                + working_bytes(
                    data,
                    max_depth,
                    statistics.len(),
                    use_depth2,
                    use_similarity,
                )
        } else {
            0
        };
        Self {
            data,
            weights,
            objective,
            config,
            statistics,
            gain_order: capabilities.gain_order,
            cache: Cache::new(config.memory.is_bounded().then_some(config.memory.strategy)),
            kept: (0, 0),
            cover,
            path: Vec::new(),
            trail: Vec::new(),
            working_bytes,
            on_path: vec![false; data.n_features()],
            levels: (0..=max_depth).map(|_| Level::default()).collect(),
            depth2: Depth2::default(),
            similarity: use_similarity.then(|| {
                let removal = (statistics.pinball()).map(|(p, weights)| p.removal_costs(weights));
                SimilarityArchive::new(max_depth, removal)
            }),
            cache_leaves: !config.depth2_solver,
            use_depth2,
            store_all_depth2: config.max_nodes.is_some(),
            tolerance: 0.0,
            budget,
            lanes: 1,
            width: None,
            monotonic: config.is_monotonic(),
            shared: None,
            extracts: true,
        }
    }

    /// What the store holds and did, with `repaired` wiped subtrees solved again.
    pub(crate) fn cache_report(&self, repaired: usize) -> CacheReport {
        let stats = self.cache.stats();
        CacheReport {
            entries: self.cache.len(),
            bytes: self.cache.bytes(),
            peak_entries: stats.peak_keys,
            peak_bytes: stats.peak_bytes,
            wipes: stats.wipes,
            created: stats.created - self.kept.1,
            repaired,
            kept: self.kept.0,
        }
    }

    /// Whether the cache was kept from an earlier search.
    pub(crate) fn adopted(&self) -> bool {
        self.kept.0 > 0
    }

    /// Takes over `cache`, kept from an earlier search with the same objective, weights and
    /// rules: its proven subproblems answer this search.
    pub(crate) fn adopt(&mut self, cache: Cache<I, C>) {
        self.kept = (cache.len(), cache.stats().created);
        self.cache = cache;
    }

    /// `a < b`, beyond rounding noise.
    #[inline]
    pub(crate) fn below(&self, a: C, b: C) -> bool {
        a.below(b, self.tolerance)
    }

    /// A lower bound on the cost of a node whose leaf costs `leaf`: the leaf, or a split with
    /// two leaves at least, each costing at least the least leaf cost.
    #[inline]
    pub(crate) fn node_floor(&self, leaf: C) -> C {
        leaf.min(self.cache.deeper_than(0), self.tolerance)
    }

    /// The limits under which a search for a tree cheaper than `ub` within `limits` finds
    /// the same trees, when a least leaf cost makes deeper trees too dear (`None`: the same).
    pub(crate) fn useful_limits(&self, limits: Limits, ub: C) -> Option<Limits> {
        let least = self.cache.least_leaf();
        if !C::ZERO.below(least, 0.0) || !limits.depth_only() {
            return None;
        }
        let mut deeper = least + least;
        for depth in 0..limits.depth {
            if !self.below(deeper, ub) {
                return Some(limits.child(depth, u32::MAX));
            }
            deeper = deeper + least;
        }
        None
    }

    /// Whether a node of `rows` rows may split at all (`min_samples_leaf` on both sides,
    /// `min_samples_split`).
    #[inline]
    pub(crate) fn splittable(&self, rows: u32) -> bool {
        rows >= 2 * self.config.min_samples_leaf && rows >= self.config.min_samples_split
    }

    /// The weight of the current node's rows within `mask` (all of them: `None`).
    pub(crate) fn weight_within(&self, mask: Option<&[u64]>) -> f64 {
        if let Some(weight) = self.weights.uniform() {
            let rows = mask.map_or(self.cover.count(), |mask| self.cover.count_within(mask));
            return f64::from(rows) * weight;
        }
        let mut total = 0.0;
        let words = self.cover.words();
        for &w in self.cover.word_indices() {
            let w = w as usize;
            let mut bits = words[w] & mask.map_or(u64::MAX, |mask| mask[w]);
            while bits != 0 {
                total += self.weights.of(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        total
    }

    /// Whether a split of the current node, whose rows weigh `weight`, on `feature` leaves
    /// both children at least `min_leaf_weight`. `positive`: the statistics of the child
    /// where the feature is 1, when known and additive (its weight is read from them; else
    /// its rows' weights are summed).
    pub(crate) fn heavy_enough(&self, feature: u32, weight: f64, positive: Option<&[f64]>) -> bool {
        let least = self.config.min_leaf_weight;
        if least <= 0.0 {
            return true;
        }
        let positive = match positive {
            Some(stats) if self.statistics.additive() => self.statistics.weight(stats),
            _ => self.weight_within(Some(self.data.item_mask(item(feature, true)))),
        };
        // within rounding noise of the sums
        let least = least * (1.0 - 1e-12);
        positive >= least && weight - positive >= least
    }

    /// The lanes of a monotonicity-constrained search: 0 allows either class in its leaves,
    /// 1 class 0 only, 2 class 1 only. The class a leaf of `lane` must predict.
    #[inline]
    pub(crate) fn lane_label(&self, lane: u32) -> Option<u32> {
        match lane {
            1 | 2 if self.monotonic => Some(lane - 1),
            _ => None,
        }
    }

    /// The cost and label of a leaf in `lane` with statistics `stats`.
    #[inline]
    pub(crate) fn lane_leaf(&self, lane: u32, stats: &[f64]) -> Leaf {
        self.lane_label(lane)
            .and_then(|label| self.objective.forced_leaf(stats, label))
            .unwrap_or_else(|| self.objective.leaf(stats))
    }

    /// The cost of a leaf in `lane` with statistics `stats`.
    #[inline]
    pub(crate) fn lane_leaf_cost(&self, lane: u32, stats: &[f64]) -> f64 {
        if self.lane_label(lane).is_none() {
            return self.objective.leaf_cost(stats);
        }
        self.lane_leaf(lane, stats).cost
    }

    /// The ways a split on `feature` of a node in `lane` may share the node's allowed
    /// predictions between its children, as the children's lanes: the node's own for both,
    /// unless the feature is constrained and the node allows either class, when a point m
    /// divides them (class 0 only on the low side and either on the high side, or either on
    /// the low side and class 1 only on the high side).
    pub(crate) fn lane_divisions(&self, feature: u32, lane: u32) -> ([[u32; 2]; 2], usize) {
        let sign = match self.config.monotonic.get(feature as usize) {
            Some(&sign) if self.monotonic && lane == 0 => sign,
            _ => 0,
        };
        match sign {
            // left (feature = 0) low, right high
            1 => ([[1, 0], [0, 2]], 2),
            -1 => ([[0, 1], [2, 0]], 2),
            _ => ([[lane, lane], [lane, lane]], 1),
        }
    }

    /// Whether the depth-2 solver may solve the current node, whose candidate splits `level`
    /// lists, within `limits`: it knows of no monotonicity constraint, so under one only a
    /// node that allows either class and whose candidates are all unconstrained (as are its
    /// children's, a subset of them).
    pub(crate) fn depth2_applies(&self, level: &Level, limits: Limits) -> bool {
        !self.monotonic
            || (limits.lane == 0
                && level
                    .candidates
                    .iter()
                    .all(|&f| self.config.monotonic[f as usize] == 0))
    }

    /// The cache key of the current node.
    #[inline]
    pub(crate) fn key(&self) -> Key<'_> {
        Key {
            path: &self.path,
            cover: &self.cover,
        }
    }

    /// The id `handle` names, or if a wipe freed it, the current node's id again.
    pub(crate) fn current(&mut self, handle: Handle) -> u32 {
        if self.cache.is_current(handle) {
            handle.id
        } else {
            let key = Key {
                path: &self.path,
                cover: &self.cover,
            };
            self.cache.insert(key)
        }
    }

    /// Whether what the search finds now is proven: it has not stopped, and tries every split.
    #[inline]
    pub(crate) fn proving(&self) -> bool {
        self.width.is_none() && self.budget.stopped().is_none()
    }

    /// Stores the current node's tree within `limits`, proven if the search is proving.
    pub(crate) fn store(
        &mut self,
        handle: Handle,
        limits: Limits,
        cost: C,
        decision: Decision,
    ) -> Outcome<C> {
        let id = self.current(handle);
        let proven = self.proving();
        self.cache.store(id, limits, cost, decision, proven);
        if proven {
            self.share(limits, cost, decision);
        }
        Outcome::Solved(cost, decision.size())
    }

    /// Posts the current node's proven tree within `limits` to the threads' shared store, in
    /// a thread of a parallel search.
    pub(crate) fn share(&self, limits: Limits, cost: C, decision: Decision) {
        if let Some(shared) = &self.shared {
            shared.solved(&self.path, limits, cost, decision);
        }
    }

    /// Raises the lower bound of the current node within `limits` (subproblem `id`) to
    /// `bound`, a proven one, in the cache and in the threads' shared store.
    pub(crate) fn raise(&mut self, id: u32, limits: Limits, bound: C) {
        self.cache.raise(id, limits, bound);
        if let Some(shared) = &self.shared {
            shared.raise(&self.path, limits, bound);
        }
    }

    /// Whether the optimal tree of the current node within `limits` that the shared store
    /// holds may be taken. Always, in a worker thread of a parallel search; where trees are
    /// extracted from this cache, only when the store (or this cache) also holds every
    /// subtree it splits into, and then all of them are copied into this cache.
    pub(crate) fn adopt_shared(&mut self, limits: Limits) -> bool {
        let Some(store) = self.shared.clone().filter(|_| self.extracts) else {
            return true;
        };
        let mut found = Vec::new();
        if self
            .gather_shared(&store, limits, &mut Vec::new(), &mut found)
            .is_none()
        {
            return false;
        }
        for (trail, limits, cost, decision) in found {
            trail.iter().for_each(|&it| self.push(it));
            let id = self.insert_current();
            self.cache.store(id, limits, cost, decision, true);
            trail.iter().rev().for_each(|&it| self.pop(it));
        }
        true
    }

    /// Appends to `found` the subtrees of the current node within `limits` that `store`
    /// holds and this cache does not, each with its items from the node where the gathering
    /// started (`trail`); `None` when one is in neither.
    #[allow(clippy::type_complexity)]
    fn gather_shared(
        &mut self,
        store: &SharedStore<C>,
        limits: Limits,
        trail: &mut Vec<Item>,
        found: &mut Vec<(Vec<Item>, Limits, C, Decision)>,
    ) -> Option<()> {
        if limits.is_leaf() {
            return Some(());
        }
        let held = (self.cache.find(self.key()))
            .and_then(|id| self.cache.known(id, limits).proven(self.tolerance));
        if held.is_some() && !trail.is_empty() {
            return Some(());
        }
        let (cost, decision) = store.get(&self.path, limits)?.solution?;
        found.push((trail.clone(), limits, cost, decision));
        if let Decision::Split {
            feature,
            left,
            right,
            lanes,
        } = decision
        {
            let child_depth = limits.depth.saturating_sub(1);
            let lanes = lanes.map_or([limits.lane; 2], |lanes| lanes.map(u32::from));
            for ((value, nodes), lane) in [(false, left), (true, right)].into_iter().zip(lanes) {
                let it = item(feature, value);
                self.push(it);
                trail.push(it);
                let child = limits.child(child_depth, nodes).in_lane(lane);
                let whole = self.gather_shared(store, child, trail, found);
                trail.pop();
                self.pop(it);
                whole?;
            }
        }
        Some(())
    }

    /// The depth-2 solver's view of the search's settings.
    pub(crate) fn depth2_rules(&self) -> depth2::Rules<'a, O> {
        depth2::Rules {
            data: self.data,
            weights: self.weights,
            objective: self.objective,
            statistics: self.statistics,
            min_samples_leaf: self.config.min_samples_leaf,
            min_samples_split: self.config.min_samples_split,
            min_leaf_weight: self.config.min_leaf_weight,
            tolerance: self.tolerance,
            incremental: self.config.incremental_counting,
            costly: self.objective.costly(),
        }
    }

    /// The depth-2 solver's best trees of the current node (of depth ≤ 2) within `limits`,
    /// by number of branching nodes, whose candidate splits `level` lists.
    fn depth2_trees(
        &mut self,
        level: &Level,
        limits: Limits,
        stats: &[f64],
        rows: u32,
        leaf: Leaf,
    ) -> depth2::Trees<C> {
        let rules = self.depth2_rules();
        let node = depth2::Node {
            cover: &self.cover,
            candidates: &level.candidates,
            singles: &level.positive,
            negatives: &level.negatives,
            single_rows: &level.positive_rows,
            stats,
            rows,
            leaf,
        };
        self.depth2
            .solve(&rules, &node, limits.depth, &mut self.budget)
    }

    /// Solves a node of depth ≤ 2 with the specialised solver and caches its trees.
    pub(crate) fn solve_depth2(
        &mut self,
        level: &Level,
        id: u32,
        limits: Limits,
        stats: &[f64],
        rows: u32,
        leaf: Leaf,
    ) -> Outcome<C> {
        let trees = self.depth2_trees(level, limits, stats, rows, leaf);
        if self.store_all_depth2 {
            let proven = self.budget.stopped().is_none();
            for (nodes, &(cost, decision)) in (1..=limits.nodes).zip(&trees) {
                let at = Limits::normalised(limits.depth, nodes);
                self.cache.store(id, at, cost, decision, proven);
            }
        }
        // exact in a restricted round too, unless stopped
        let (cost, decision) = trees[limits.nodes as usize - 1];
        let proven = self.budget.stopped().is_none();
        self.cache.store(id, limits, cost, decision, proven);
        if proven {
            self.share(limits, cost, decision);
        }
        Outcome::Solved(cost, decision.size())
    }

    /// The depth-2 solver's optimum of the current node (of depth ≤ 2, in lane 0) without
    /// its monotonicity constraints: stored and returned when its tree satisfies them anyway,
    /// else its cost, a lower bound of the node's optimum under them (zero if the budget
    /// ran out).
    pub(crate) fn depth2_relaxed(
        &mut self,
        level: &Level,
        id: u32,
        limits: Limits,
        stats: &[f64],
        rows: u32,
        leaf: Leaf,
    ) -> Result<Outcome<C>, C> {
        let trees = self.depth2_trees(level, limits, stats, rows, leaf);
        if self.budget.stopped().is_some() {
            return Err(C::ZERO);
        }
        let (cost, decision) = trees[limits.nodes as usize - 1];
        if !self.terminal_monotonic(decision, stats.len()) {
            return Err(cost);
        }
        self.cache.store(id, limits, cost, decision, true);
        Ok(Outcome::Solved(cost, decision.size()))
    }

    /// Whether the depth-2 subtree `decision` of the current node, its leaves predicting
    /// their best classes, satisfies the monotonicity constraints.
    fn terminal_monotonic(&mut self, decision: Decision, len: usize) -> bool {
        let Decision::Terminal {
            feature,
            left,
            right,
        } = decision
        else {
            return true; // a leaf
        };
        let mut stats = vec![0.0; len];
        // the classes predicted below each child: (least, greatest)
        let mut ranges = [(0, 0); 2];
        for (side, child) in [left, right].into_iter().enumerate() {
            let test = item(feature, side == 1);
            self.push(test);
            let mut labels = Vec::with_capacity(2);
            match child {
                None => {
                    self.statistics.count(&self.cover, None, &mut stats);
                    labels.push(self.objective.leaf(&stats).label);
                }
                Some(g) => {
                    for value in [false, true] {
                        let mask = self.data.item_mask(item(g, value));
                        self.statistics.count(&self.cover, Some(mask), &mut stats);
                        labels.push(self.objective.leaf(&stats).label);
                    }
                }
            }
            self.pop(test);
            if let (Some(g), &[low, high]) = (child, &labels[..]) {
                if !self.ordered(g, (low, low), (high, high)) {
                    return false;
                }
            }
            let least = labels.iter().copied().min().unwrap_or(0);
            let greatest = labels.iter().copied().max().unwrap_or(0);
            ranges[side] = (least, greatest);
        }
        self.ordered(feature, ranges[0], ranges[1])
    }

    /// Whether a split on `feature` whose left and right subtrees predict classes in the
    /// ranges `low` and `high` satisfies the feature's monotonicity constraint.
    fn ordered(&self, feature: u32, low: (u32, u32), high: (u32, u32)) -> bool {
        match self.config.monotonic.get(feature as usize) {
            Some(1) => low.1 <= high.0,
            Some(-1) => low.0 >= high.1,
            _ => true,
        }
    }

    /// The current node's id in the store, inserting its key if new.
    pub(crate) fn insert_current(&mut self) -> u32 {
        let key = Key {
            path: &self.path,
            cover: &self.cover,
        };
        self.cache.insert(key)
    }

    /// `known`, raised by the similarity bound where it applies (and stored when it helps).
    pub(crate) fn similarity_bound(&mut self, id: u32, limits: Limits, known: C) -> C {
        let Some(archive) = self.similarity.as_mut().filter(|_| !limits.is_leaf()) else {
            return known;
        };
        let bound = archive.bound(&self.cover, limits, self.weights);
        if known.below(bound, 0.0) {
            self.cache.raise(id, limits, bound);
            bound
        } else {
            known
        }
    }

    /// Records the current node's bound for the similarity bound of later nodes (unless the
    /// search is not proving, when bounds are not proven).
    pub(crate) fn record_similar(&mut self, limits: Limits, bound: C) {
        if !self.proving() {
            return;
        }
        if let Some(archive) = self.similarity.as_mut() {
            archive.record(&self.cover, limits, bound);
        }
    }
}
