//! The search engine: one depth-first branch-and-bound over the lattice of paths, with caching.
//!
//! DL8.5 and MurTree are presets of this engine (see [`SearchConfig`]). Upper bounds are
//! exclusive: `solve(.., ub)` looks for a subtree costing strictly less than `ub`, and when none
//! exists it records `ub` (or a refined bound) as a proven lower bound of the node (spec §2.6).

mod config;
mod depth2;
mod order;
mod similarity;

pub use config::{Branching, CacheKind, ChildOrder, SearchConfig};
pub use order::information_gain;

use crate::budget::{Budget, Stop};
use crate::cache::{Decision, PathCache};
use crate::cover::Cover;
use crate::data::{item, item_feature, Dataset, Item};
use crate::objective::{Leaf, Objective};
use crate::stats::{ClassWeights, Weights};
use crate::tree::{Tree, TreeBuilder};
use depth2::Depth2;
use similarity::SimilarityArchive;

/// The result of solving one node under an upper bound.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Outcome {
    /// The node's optimal cost (which may still be ≥ the bound the caller asked for).
    Solved(f64),
    /// No subtree costs less than the bound; the node's cost is at least this.
    Infeasible(f64),
}

impl Outcome {
    /// A lower bound on the node's cost.
    fn bound(self) -> f64 {
        match self {
            Outcome::Solved(cost) | Outcome::Infeasible(cost) => cost,
        }
    }
}

/// Scratch space of one depth: the candidate features and their children's statistics.
#[derive(Debug, Default)]
struct Level {
    candidates: Vec<u32>,
    /// `positive[f * len..]`: statistics of the node's rows where feature f is 1.
    positive: Vec<f64>,
    positive_rows: Vec<u32>,
    negative: Vec<f64>,
    gains: Vec<f64>,
}

/// What the engine reports besides the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOutcome {
    /// The best tree found.
    pub tree: Tree,
    /// Proven lower bound on the optimal cost at the root.
    pub lower_bound: f64,
    /// Whether no tree beats the requested upper bound (the tree is then the root leaf).
    pub infeasible: bool,
    /// Number of cache entries at the end.
    pub cache_entries: usize,
    /// Bytes held by the cache at the end.
    pub cache_bytes: usize,
    /// Why the search stopped early, if it did.
    pub stopped: Option<Stop>,
}

/// One search: the data, the objective, the settings and all mutable state.
pub(crate) struct Engine<'a, C: PathCache, O: Objective> {
    data: &'a Dataset,
    weights: &'a Weights,
    objective: &'a O,
    config: &'a SearchConfig,
    kernel: ClassWeights<'a>,
    cache: C,
    cover: Cover,
    /// The current path, sorted: the cache key of the current node.
    path: Vec<Item>,
    on_path: Vec<bool>,
    key: Vec<Item>,
    levels: Vec<Level>,
    depth2: Depth2,
    /// Evaluated nodes for the similarity bound, when it is valid and switched on.
    similarity: Option<SimilarityArchive>,
    /// Whether nodes with no depth left are cached too (DL8.5 caches every node it visits).
    cache_leaves: bool,
    use_depth2: bool,
    tolerance: f64,
    pub budget: Budget,
}

impl<'a, C: PathCache, O: Objective> Engine<'a, C, O> {
    /// Prepares a search of `data` weighted by `weights`.
    pub fn new(
        data: &'a Dataset,
        weights: &'a Weights,
        objective: &'a O,
        config: &'a SearchConfig,
        cache: C,
        budget: Budget,
    ) -> Self {
        let cover = Cover::new(weights.support());
        let capabilities = objective.capabilities();
        let use_depth2 = config.depth2 && capabilities.depth2;
        let use_similarity = config.similarity_bound
            && capabilities.similarity_bound
            && config.min_samples_leaf == 1;
        Self {
            data,
            weights,
            objective,
            config,
            kernel: ClassWeights::new(data, weights),
            cache,
            cover,
            path: Vec::new(),
            on_path: vec![false; data.n_features()],
            key: Vec::new(),
            levels: (0..=config.max_depth.min(data.n_features() as u32))
                .map(|_| Level::default())
                .collect(),
            depth2: Depth2::default(),
            similarity: use_similarity.then(|| SimilarityArchive::new(config.max_depth)),
            cache_leaves: !config.depth2,
            use_depth2,
            tolerance: 0.0,
            budget,
        }
    }

    /// Runs the search from the root and extracts the best tree.
    pub fn run(mut self) -> SearchOutcome {
        let mut stats = vec![0.0; self.kernel.len()];
        let rows = self.kernel.count(&self.cover, None, &mut stats);
        let total: f64 = stats.iter().sum();
        self.tolerance = 1e-9 * total.max(1.0);
        let max_depth = self.config.max_depth.min(self.data.n_features() as u32);
        let outcome = self.solve(max_depth, self.config.upper_bound, &stats, rows);
        let infeasible = matches!(outcome, Outcome::Infeasible(_))
            || outcome.bound() >= self.config.upper_bound - self.tolerance;
        let root_bound = self
            .cache
            .find(&[])
            .map_or(0.0, |id| self.cache.entry(id).lower_bound);
        let tree = if infeasible {
            let mut builder = TreeBuilder::new(self.objective);
            builder.leaf(&stats, rows);
            builder.finish()
        } else {
            self.extract(max_depth, &stats, rows)
        };
        let lower_bound = match (infeasible, self.budget.stopped()) {
            (true, None) => self.config.upper_bound,
            (false, None) => tree.cost(),
            _ => root_bound,
        };
        SearchOutcome {
            tree,
            lower_bound,
            infeasible,
            cache_entries: self.cache.len(),
            cache_bytes: self.cache.bytes(),
            stopped: self.budget.stopped(),
        }
    }

    /// `a < b`, beyond rounding noise.
    #[inline]
    fn below(&self, a: f64, b: f64) -> bool {
        a < b - self.tolerance
    }

    fn store(&mut self, id: u32, cost: f64, decision: Decision) -> Outcome {
        let entry = self.cache.entry_mut(id);
        entry.cost = cost;
        entry.decision = decision;
        Outcome::Solved(cost)
    }

    /// Solves the current node (the rows of `self.cover`, reached by `self.path`).
    fn solve(&mut self, depth_left: u32, ub: f64, stats: &[f64], rows: u32) -> Outcome {
        let leaf = self.objective.leaf(stats);
        if depth_left == 0 && !self.cache_leaves {
            return Outcome::Solved(leaf.cost);
        }
        let (id, _) = self.cache.get_or_insert(&self.path);
        let mut entry = *self.cache.entry(id);
        if entry.is_solved() {
            return Outcome::Solved(entry.cost);
        }
        if let Some(archive) = self.similarity.as_mut().filter(|_| depth_left > 0) {
            let bound = archive.bound(&self.cover, depth_left, self.weights);
            if bound > entry.lower_bound {
                entry.lower_bound = bound;
                self.cache.entry_mut(id).lower_bound = bound;
            }
        }
        if !self.below(entry.lower_bound, ub) {
            return Outcome::Infeasible(entry.lower_bound);
        }
        let min_rows = self.config.min_samples_leaf;
        if depth_left == 0
            || rows < 2 * min_rows
            || leaf.cost <= entry.lower_bound + self.tolerance
            || self.budget.check().is_some()
        {
            return self.store(id, leaf.cost, Decision::Leaf);
        }
        let depth = self.path.len();
        let mut level = std::mem::take(&mut self.levels[depth]);
        self.scan(&mut level, stats, rows);
        let outcome = if self.use_depth2 && depth_left <= 2 {
            let rules = depth2::Rules {
                data: self.data,
                weights: self.weights,
                objective: self.objective,
                min_samples_leaf: min_rows,
                tolerance: self.tolerance,
            };
            let node = depth2::Node {
                cover: &self.cover,
                candidates: &level.candidates,
                singles: &level.positive,
                single_rows: &level.positive_rows,
                stats,
                rows,
                leaf,
            };
            let (cost, decision) = self.depth2.solve(&rules, &node, depth_left);
            self.store(id, cost, decision)
        } else {
            self.order(&mut level, stats);
            self.branch(
                &mut level,
                id,
                depth_left,
                ub,
                stats,
                rows,
                leaf,
                entry.lower_bound,
            )
        };
        self.levels[depth] = level;
        if let Some(archive) = self
            .similarity
            .as_mut()
            .filter(|_| self.budget.stopped().is_none())
        {
            archive.record(&self.cover, depth_left, outcome.bound());
        }
        outcome
    }

    /// Tries every candidate split of the current node (spec §5.2, MurTree Alg. 2).
    #[allow(clippy::too_many_arguments)]
    fn branch(
        &mut self,
        level: &mut Level,
        id: u32,
        depth_left: u32,
        ub_in: f64,
        stats: &[f64],
        rows: u32,
        leaf: Leaf,
        node_bound: f64,
    ) -> Outcome {
        let len = stats.len();
        let mut ub = ub_in;
        let mut best: Option<(f64, Decision)> = None;
        if self.config.leaf_incumbent && self.below(leaf.cost, ub) {
            best = Some((leaf.cost, Decision::Leaf));
            ub = leaf.cost;
        }
        let mut refined = f64::INFINITY;
        level.negative.resize(len, 0.0);
        for index in 0..level.candidates.len() {
            let f = level.candidates[index];
            let positive = &level.positive[f as usize * len..(f as usize + 1) * len];
            let positive_rows = level.positive_rows[f as usize];
            for c in 0..len {
                level.negative[c] = stats[c] - positive[c];
            }
            let negative = &level.negative[..];
            let negative_rows = rows - positive_rows;
            let positive_leaf = self.objective.leaf(positive).cost;
            let negative_leaf = self.objective.leaf(negative).cost;
            let positive_first = match self.config.child_order {
                ChildOrder::LeftFirst => false,
                ChildOrder::LargerLeafCostFirst => positive_leaf >= negative_leaf,
            };
            let mut children = [
                (item(f, false), negative, negative_rows, negative_leaf),
                (item(f, true), positive, positive_rows, positive_leaf),
            ];
            if positive_first {
                children.swap(0, 1);
            }
            let [first, second] = children;
            let (first_bound, second_bound) = if self.config.sibling_bound {
                (
                    self.known_bound(first.0, depth_left - 1, first.3),
                    self.known_bound(second.0, depth_left - 1, second.3),
                )
            } else {
                (0.0, 0.0)
            };
            if !self.below(first_bound + second_bound, ub) {
                refined = refined.min(first_bound + second_bound);
                continue;
            }
            let first_cost =
                match self.child(first.0, depth_left - 1, ub - second_bound, first.1, first.2) {
                    Outcome::Solved(cost) if self.below(cost + second_bound, ub) => cost,
                    outcome => {
                        refined = refined.min(outcome.bound() + second_bound);
                        if self.budget.stopped().is_some() {
                            break;
                        }
                        continue;
                    }
                };
            match self.child(
                second.0,
                depth_left - 1,
                ub - first_cost,
                second.1,
                second.2,
            ) {
                Outcome::Solved(cost) if self.below(first_cost + cost, ub) => {
                    ub = first_cost + cost;
                    best = Some((ub, Decision::Split(f)));
                    if ub <= node_bound + self.tolerance {
                        break;
                    }
                }
                outcome => refined = refined.min(first_cost + outcome.bound()),
            }
            if self.budget.stopped().is_some() {
                break;
            }
        }
        if !self.config.leaf_incumbent {
            match best {
                None if self.below(leaf.cost, ub_in) => best = Some((leaf.cost, Decision::Leaf)),
                Some((cost, _)) if leaf.cost <= cost + self.tolerance => {
                    best = Some((leaf.cost, Decision::Leaf))
                }
                _ => {}
            }
        }
        match best {
            Some((cost, decision)) => self.store(id, cost, decision),
            None => {
                let entry = self.cache.entry_mut(id);
                if self.budget.stopped().is_none() {
                    let proven = if self.config.refined_lower_bound {
                        ub_in.max(refined.min(leaf.cost))
                    } else {
                        ub_in
                    };
                    entry.lower_bound = entry.lower_bound.max(proven);
                }
                Outcome::Infeasible(entry.lower_bound)
            }
        }
    }

    /// Solves the child reached by adding `item` to the path.
    fn child(&mut self, item: Item, depth_left: u32, ub: f64, stats: &[f64], rows: u32) -> Outcome {
        self.push(item);
        let outcome = self.solve(depth_left, ub, stats, rows);
        self.pop(item);
        outcome
    }

    fn push(&mut self, item: Item) {
        let at = self.path.partition_point(|&x| x < item);
        self.path.insert(at, item);
        self.on_path[item_feature(item) as usize] = true;
        self.cover.intersect(self.data.item_mask(item));
    }

    fn pop(&mut self, item: Item) {
        let at = self.path.partition_point(|&x| x < item);
        self.path.remove(at);
        self.on_path[item_feature(item) as usize] = false;
        self.cover.backtrack();
    }

    /// What the cache already proves about the child reached by `item`: its cost if solved,
    /// else its lower bound (exact leaf cost when no depth is left).
    fn known_bound(&mut self, item: Item, depth_left: u32, leaf_cost: f64) -> f64 {
        if depth_left == 0 {
            return leaf_cost;
        }
        self.key.clear();
        self.key.extend_from_slice(&self.path);
        let at = self.key.partition_point(|&x| x < item);
        self.key.insert(at, item);
        match self.cache.find(&self.key) {
            Some(id) => {
                let entry = self.cache.entry(id);
                if entry.is_solved() {
                    entry.cost
                } else {
                    entry.lower_bound
                }
            }
            None => 0.0,
        }
    }

    /// Lists the valid splits of the current node with their positive children's statistics.
    fn scan(&mut self, level: &mut Level, stats: &[f64], rows: u32) {
        let len = stats.len();
        let n_features = self.data.n_features();
        level.positive.resize(n_features * len, 0.0);
        level.positive_rows.resize(n_features, 0);
        level.candidates.clear();
        let min_rows = self.config.min_samples_leaf;
        for f in 0..n_features as u32 {
            if self.on_path[f as usize] {
                continue;
            }
            let out = &mut level.positive[f as usize * len..(f as usize + 1) * len];
            let positive_rows =
                self.kernel
                    .count(&self.cover, Some(self.data.item_mask(item(f, true))), out);
            level.positive_rows[f as usize] = positive_rows;
            if positive_rows >= min_rows && rows - positive_rows >= min_rows {
                level.candidates.push(f);
            }
        }
    }

    /// Sorts the candidates by the branching heuristic (stable: ties keep column order).
    fn order(&self, level: &mut Level, stats: &[f64]) {
        let descending = match self.config.branching {
            Branching::InOrder => return,
            Branching::GainAscending => false,
            Branching::GainDescending => true,
        };
        let len = stats.len();
        level.gains.resize(self.data.n_features(), 0.0);
        for &f in &level.candidates {
            let positive = &level.positive[f as usize * len..(f as usize + 1) * len];
            level.gains[f as usize] = information_gain(stats, positive);
        }
        let gains = &level.gains;
        level.candidates.sort_by(|&a, &b| {
            let order = gains[a as usize].total_cmp(&gains[b as usize]);
            if descending {
                order.reverse()
            } else {
                order
            }
        });
    }

    /// Rebuilds the best tree from the cache (spec §5.5).
    fn extract(&mut self, depth_left: u32, stats: &[f64], rows: u32) -> Tree {
        let mut builder = TreeBuilder::new(self.objective);
        self.extract_node(&mut builder, depth_left, None, stats, rows);
        builder.finish()
    }

    fn extract_node(
        &mut self,
        builder: &mut TreeBuilder<O>,
        depth_left: u32,
        inline: Option<Decision>,
        stats: &[f64],
        rows: u32,
    ) {
        let decision = match inline {
            Some(decision) => decision,
            None if depth_left == 0 => Decision::Leaf,
            None => self
                .cache
                .find(&self.path)
                .map_or(Decision::Leaf, |id| self.cache.entry(id).decision),
        };
        let (feature, children) = match decision {
            Decision::Unsolved | Decision::Leaf => {
                builder.leaf(stats, rows);
                return;
            }
            Decision::Split(feature) => (feature, [None, None]),
            Decision::Terminal {
                feature,
                left,
                right,
            } => {
                let inline = |f: Option<u32>| Some(f.map_or(Decision::Leaf, Decision::Split));
                (feature, [inline(left), inline(right)])
            }
        };
        let node = builder.open(feature, stats, rows);
        let mut kids = [0; 2];
        for ((value, inline), kid) in [false, true].into_iter().zip(children).zip(&mut kids) {
            *kid = builder.len();
            let it = item(feature, value);
            self.push(it);
            let mut child_stats = vec![0.0; stats.len()];
            let child_rows = self.kernel.count(&self.cover, None, &mut child_stats);
            self.extract_node(builder, depth_left - 1, inline, &child_stats, child_rows);
            self.pop(it);
        }
        builder.close(node, kids);
    }
}
