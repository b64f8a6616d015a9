//! The exact driver: the depth-first branch-and-bound of DL8.5 and MurTree over the lattice of
//! paths, with caching (DL8.5 §3, MurTree §4, spec §2 and §5). DL8.5 and MurTree are presets
//! of its switches (see [`SearchConfig`]).
//!
//! Upper bounds are exclusive: `solve(.., ub)` looks for a subtree costing strictly less than
//! `ub`, and when none exists it records `ub` (or a refined bound) as a proven lower bound of
//! the node (spec §2.6). Before the proof, a first tree (`incumbent.rs`) and the anytime
//! rounds (`anytime.rs`) give it an upper bound; a search stopped early proves the bound of
//! `root_bound.rs`.
//!
//! With a bounded cache (spec §6), the engine makes room before each new key. A wipe spares
//! every node on the recursion stack, the children of the split each is trying, the best
//! split each has found so far with its cached subtree, and the root's best tree
//! (`memory.rs`). After the search, parts of the best tree that were wiped anyway are solved
//! again under the exact cost their parent implies (spec §6.9), so the tree returned is still
//! optimal.

mod anytime;
mod bound_passes;
mod incumbent;
mod lickety;
mod memory;
mod parallel;
mod root_bound;
mod split;

use super::{check_costs, proven_bound, Driver, Inputs, SearchOutcome};
use crate::budget::Budget;
use crate::cache::{Cache, Handle, KeyIndex};
use crate::data::Dataset;
use crate::error::Result;
use crate::objective::{Objective, Penalised};
use crate::search::kernel::{Child, Kernel, Level, Outcome};
use crate::search::memory::{self as bounding, REPAIR_ROUNDS};
use crate::search::SearchConfig;
use crate::solver::Keep;
use crate::stats::Weights;
use crate::subproblem::{Cost, Decision, Lexicographic, Limits};
use crate::tree::TreeBuilder;
use incumbent::tree_cost;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::time::Instant;

/// A node on the recursion stack, as the wipe needs to know it.
#[derive(Clone, Copy, Debug)]
struct Frame {
    handle: Handle,
    limits: Limits,
    /// Length of the trail (tests pushed so far) at this node.
    depth: usize,
    /// The feature whose children are being solved.
    feature: Option<u32>,
    /// Its place in the node's loop over candidates.
    position: u32,
    /// The best split found so far.
    best: Option<Decision>,
    /// Keys the cache had created when the node was entered.
    created: usize,
}

/// The node [`Engine::branch`] splits: its limits, statistics, rows and proven lower bound.
#[derive(Clone, Copy)]
struct Node<'s, C> {
    limits: Limits,
    stats: &'s [f64],
    rows: u32,
    bound: C,
}

/// What the splits of a node tried so far found: the bound the next must beat, the best
/// tree, and the least bound of the splits that failed.
#[derive(Clone, Copy, Debug)]
struct Splits<C> {
    ub: C,
    best: Option<(C, Decision)>,
    refined: C,
}

/// The exact driver for the objective `make` builds from the data and the weights, plus the
/// leaf penalty: the [`Engine`] over costs in the lexicographic order when
/// [`SearchConfig::lexicographic`] asks for it, else over plain costs.
pub(crate) struct ExactDriver<'k, O, F> {
    make: Option<F>,
    objective: PhantomData<O>,
    /// Where the solver keeps the cache between searches, if it does for this objective.
    keep: Option<Keep<'k>>,
}

impl<'k, O, F> ExactDriver<'k, O, F> {
    /// The driver for the objective `make` builds; `keep`: where to find the cache of the
    /// last search and leave this one's.
    pub fn new(make: F, keep: Option<Keep<'k>>) -> Self {
        Self {
            make: Some(make),
            objective: PhantomData,
            keep,
        }
    }
}

impl<O, F> Driver for ExactDriver<'_, O, F>
where
    O: Objective,
    F: FnOnce(&Dataset, &Weights) -> Result<O>,
{
    type Objectives = Penalised<O>;

    fn objectives(
        &mut self,
        data: &Dataset,
        weights: &Weights,
        config: &SearchConfig,
    ) -> Result<Penalised<O>> {
        // the solver builds the objectives once per driver
        let make = self.make.take().expect("objectives are built once");
        let objective = Penalised::new(make(data, weights)?, config.leaf_penalty);
        check_costs(&objective, data, weights)?;
        Ok(objective)
    }

    fn forces_leaves(objective: &Penalised<O>) -> bool {
        objective.forced_leaf(&[1.0, 1.0], 0).is_some()
    }

    fn search<I: KeyIndex>(
        &self,
        objective: &Penalised<O>,
        inputs: Inputs<'_>,
    ) -> Vec<SearchOutcome> {
        let Inputs {
            data,
            weights,
            config,
            budget,
        } = inputs;
        let outcome = if config.lexicographic {
            self.run::<I, Lexicographic>(objective, data, weights, config, budget)
        } else {
            self.run::<I, f64>(objective, data, weights, config, budget)
        };
        vec![outcome]
    }
}

impl<O: Objective, F> ExactDriver<'_, O, F> {
    /// One search, on the cache kept from the last one when the solver keeps it (never under
    /// a memory limit, which counts only what a search makes).
    fn run<I: KeyIndex, C: Cost>(
        &self,
        objective: &Penalised<O>,
        data: &Dataset,
        weights: &Weights,
        config: &SearchConfig,
        budget: Budget,
    ) -> SearchOutcome {
        let mut engine = Engine::<I, _, C>::new(data, weights, objective, config, budget);
        let keep = self.keep.filter(|_| !config.memory.is_bounded());
        if let Some(cache) = keep.and_then(|keep| keep.take::<Cache<I, C>>()) {
            engine.adopt(cache);
        }
        let outcome = engine.run();
        if let Some(keep) = keep {
            keep.put(engine.kernel.cache);
        }
        outcome
    }
}

/// The depth-first branch-and-bound of DL8.5 and MurTree. It keeps the recursion stack, which
/// memory bounding asks about.
pub(crate) struct Engine<'a, I: KeyIndex, O: Objective, C: Cost> {
    kernel: Kernel<'a, I, O, C>,
    /// The nodes being branched on, root first.
    frames: Vec<Frame>,
    /// Per frame, when the cache is bounded: each feature's place in the frame's loop
    /// (`u32::MAX`: not a candidate), so that a wipe can tell which keys the stack may reach.
    loop_ranks: Vec<Vec<u32>>,
    /// The root's limits.
    root_limits: Limits,
    /// Whether the first trees solved the root within its limits.
    root_ahead: bool,
    /// The root's equal-rows bound (`root_bound.rs`).
    equal_rows: C,
    /// Wiped subtrees of the best tree solved again after the search.
    repaired: usize,
    /// Each better tree found: see [`SearchOutcome::progress`].
    progress: Vec<[f64; 3]>,
    started: Instant,
}

impl<'a, I: KeyIndex, O: Objective, C: Cost> Deref for Engine<'a, I, O, C> {
    type Target = Kernel<'a, I, O, C>;
    fn deref(&self) -> &Self::Target {
        &self.kernel
    }
}

impl<I: KeyIndex, O: Objective, C: Cost> DerefMut for Engine<'_, I, O, C> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.kernel
    }
}

impl<'a, I: KeyIndex, O: Objective, C: Cost> Engine<'a, I, O, C> {
    /// Prepares a search of `data` weighted by `weights`.
    pub fn new(
        data: &'a Dataset,
        weights: &'a Weights,
        objective: &'a O,
        config: &'a SearchConfig,
        budget: Budget,
    ) -> Self {
        Self {
            kernel: Kernel::new(data, weights, objective, config, budget),
            frames: Vec::new(),
            loop_ranks: Vec::new(),
            root_limits: Limits::normalised(0, 0),
            root_ahead: false,
            equal_rows: C::ZERO,
            repaired: 0,
            progress: Vec::new(),
            started: Instant::now(),
        }
    }

    /// Runs the search from the root and extracts the best tree.
    pub fn run(&mut self) -> SearchOutcome {
        let mut stats = vec![0.0; self.statistics.len()];
        let rows = self.statistics.count(&self.cover, None, &mut stats);
        // rounding noise grows with the numbers costs are made of; relative to them, so that
        // scaling weights, targets or points by any factor gives the same tree
        self.tolerance = 1e-9 * self.objective.cost_scale(&stats);
        if self.config.max_nodes.is_none() {
            let least_leaf = C::leaf(self.objective.least_leaf());
            let tolerance = self.tolerance;
            self.cache.set_least_leaf(least_leaf, tolerance);
        }
        let max_depth = self.config.max_depth.min(self.data.n_features() as u32);
        let limits = Limits::normalised(max_depth, self.config.max_nodes.unwrap_or(u32::MAX));
        self.root_limits = limits;
        let upper_bound = C::value(self.config.upper_bound);
        self.equal_rows = self.equal_rows_bound();
        // a first tree; the search then looks only for trees no dearer (within rounding)
        let mut incumbent = self.incumbent(limits, &stats, rows);
        self.rounds(limits, &stats, rows, upper_bound, &mut incumbent);
        self.deepen(limits, &stats, rows, 3..limits.depth, &mut incumbent);
        let passes_bound = self.bound_passes(limits, &stats, rows, &mut incumbent);
        let incumbent = incumbent.filter(|(cost, _)| self.below(*cost, upper_bound));
        // an incumbent at the root's proven bound is optimal: the proof would only find it again
        let root_floor = self.root_floor(limits, &stats).max(passes_bound);
        let settled = incumbent
            .as_ref()
            .is_some_and(|(cost, _)| !self.below(root_floor, *cost));
        let search_bound = incumbent.as_ref().map_or(upper_bound, |(cost, _)| {
            upper_bound.min(*cost + C::leaf(2.0 * self.tolerance), 0.0)
        });
        let found = !settled && {
            let outcome = self.solve(limits, search_bound, &stats, rows);
            matches!(outcome, Outcome::Solved(..)) && self.below(outcome.bound(), search_bound)
        };
        let infeasible = !found && incumbent.is_none();
        if found && self.config.memory.is_bounded() {
            for _ in 0..REPAIR_ROUNDS {
                let repaired = bounding::repair(self, limits, &stats);
                self.repaired += repaired;
                if self.budget.stopped().is_some() || repaired == 0 {
                    break;
                }
            }
        }
        let root_bound = if self.budget.stopped().is_some() {
            (self.stopped_root_bound(limits, &stats, rows))
                .max(passes_bound)
                .max(self.equal_rows)
                .objective()
        } else {
            0.0
        };
        let searched = found.then(|| self.extract(limits, &stats, rows));
        let tree = match (searched, incumbent) {
            // a search stopped early may have found nothing better than the incumbent
            (Some(tree), Some((cost, first)))
                if self.budget.stopped().is_some() && self.below(cost, tree_cost(&tree)) =>
            {
                first
            }
            (Some(tree), _) => tree,
            (None, Some((_, first))) => first,
            (None, None) => {
                let mut builder = TreeBuilder::new(self.objective, self.statistics);
                builder.leaf(&stats, rows);
                builder.finish()
            }
        };
        SearchOutcome {
            lower_bound: proven_bound(
                &tree,
                infeasible,
                self.budget.stopped(),
                root_bound,
                self.config,
            ),
            objective: tree.cost(),
            tree,
            infeasible,
            cache: self.cache_report(self.repaired),
            stopped: self.budget.stopped(),
            progress: std::mem::take(&mut self.progress),
            front: Vec::new(),
        }
    }

    /// Solves the current node (the rows of `self.cover`, reached by `self.path`) within
    /// `limits` (normalised), looking for a subtree cheaper than `ub`.
    fn solve(&mut self, limits: Limits, ub: C, stats: &[f64], rows: u32) -> Outcome<C> {
        let leaf = self.lane_leaf(limits.lane, stats);
        let leaf_cost = C::leaf(leaf.cost);
        // a subtree whose leaves must all predict one class costs no less than its leaf
        if (limits.is_leaf() && !self.cache_leaves) || self.lane_label(limits.lane).is_some() {
            return Outcome::Solved(leaf_cost, 0);
        }
        if let Some(useful) = self.useful_limits(limits, ub) {
            // with a least leaf cost, no deeper tree costs less than `ub`
            let deeper = self.cache.deeper_than(useful.depth);
            return match self.solve(useful, ub, stats, rows) {
                Outcome::Solved(cost, size) if self.below(cost, ub) => Outcome::Solved(cost, size),
                outcome => Outcome::Infeasible(outcome.bound().min(deeper, self.tolerance)),
            };
        }
        if self.config.memory.is_bounded() && !bounding::make_room(self) {
            return Outcome::Solved(leaf_cost, 0);
        }
        let id = self.insert_current();
        let handle = self.cache.handle(id);
        let known = self.cache.known(id, limits);
        // a solution is reused when proven, not one a restricted round found
        if let Some((cost, decision)) = known.proven(self.tolerance) {
            return Outcome::Solved(cost, decision.size());
        }
        // another thread of a parallel search may have solved it, or bounded it
        let shared = (self.shared.as_ref()).and_then(|s| s.get(&self.path, limits));
        if let Some((cost, decision)) = shared.and_then(|proven| proven.solution) {
            if self.adopt_shared(limits) {
                self.cache.store(id, limits, cost, decision, true);
                return Outcome::Solved(cost, decision.size());
            }
        }
        let shared_bound = shared.map_or(C::ZERO, |proven| proven.lower_bound);
        let known_bound = (known.lower_bound)
            .max(self.node_floor(leaf_cost))
            .max(shared_bound);
        let lower_bound = self.similarity_bound(id, limits, known_bound);
        if !self.below(lower_bound, ub) {
            return Outcome::Infeasible(lower_bound);
        }
        if limits.is_leaf()
            || !self.splittable(rows)
            || !self.below(lower_bound, leaf_cost)
            || self.budget.check().is_some()
        {
            return self.store(handle, limits, leaf_cost, Decision::Leaf);
        }
        let depth = self.path.len();
        let mut level = std::mem::take(&mut self.levels[depth]);
        let depth2 = self.use_depth2 && limits.depth <= 2;
        // a node of depth 2 finds its splits' statistics in the depth-2 solver's kept sums
        if !(depth2 && limits.depth == 2 && self.scan_kept(&mut level, stats, rows)) {
            self.scan(&mut level, stats, rows);
        }
        let exact = depth2 && self.depth2_applies(&level, limits);
        // under a monotonicity constraint, the depth-2 solver's optimum without it bounds the
        // node from below, and is its answer when it happens to satisfy the constraint
        let relaxed =
            (depth2 && !exact).then(|| self.depth2_relaxed(&level, id, limits, stats, rows, leaf));
        let lower_bound = match relaxed {
            Some(Err(bound)) => lower_bound.max(bound),
            _ => lower_bound,
        };
        let outcome = if exact {
            self.solve_depth2(&level, id, limits, stats, rows, leaf)
        } else if let Some(Ok(outcome)) = relaxed {
            outcome
        } else if !self.below(lower_bound, ub) {
            if self.proving() {
                let id = self.current(handle);
                self.raise(id, limits, lower_bound);
            }
            Outcome::Infeasible(lower_bound)
        } else {
            self.order(&mut level, stats);
            if let Some(width) = self.width {
                level.candidates.truncate(width);
            }
            if self.config.memory.is_bounded() {
                self.note_loop(&level.candidates);
            }
            self.frames.push(Frame {
                handle,
                limits,
                depth: self.trail.len(),
                feature: None,
                position: 0,
                best: None,
                created: self.cache.stats().created,
            });
            let outcome = self.branch(
                &mut level,
                handle,
                limits,
                ub,
                stats,
                rows,
                leaf_cost,
                lower_bound,
            );
            // cannot fail: the frame was pushed above, and `branch` pops what it pushes
            let frame = self.frames.pop().expect("pushed above");
            if self.cache.is_current(handle) {
                let work = self.cache.stats().created - frame.created;
                self.cache.record_work(handle.id, work);
            }
            outcome
        };
        self.levels[depth] = level;
        self.record_similar(limits, outcome.bound());
        outcome
    }

    /// Tries every candidate split of the current node and every division of its branching
    /// nodes between the children (spec §5.2, MurTree Alg. 2); at the root of a proof with
    /// several threads, on all of them (`parallel.rs`).
    #[allow(clippy::too_many_arguments)]
    fn branch(
        &mut self,
        level: &mut Level,
        handle: Handle,
        limits: Limits,
        ub_in: C,
        stats: &[f64],
        rows: u32,
        leaf: C,
        node_bound: C,
    ) -> Outcome<C> {
        let mut split = Splits {
            ub: ub_in,
            best: None,
            refined: C::INFINITY,
        };
        if self.config.leaf_incumbent && self.below(leaf, split.ub) {
            split.best = Some((leaf, Decision::Leaf));
            split.ub = leaf;
        }
        level.negative.resize(stats.len(), 0.0);
        let node = Node {
            limits,
            stats,
            rows,
            bound: node_bound,
        };
        if !self.runs_parallel(level, limits) || !self.branch_parallel(level, &node, &mut split) {
            for index in 0..level.candidates.len() {
                if self.try_split(level, index, &node, &mut split) {
                    break;
                }
            }
        }
        let Splits {
            mut best, refined, ..
        } = split;
        if !self.config.leaf_incumbent {
            match best {
                None if self.below(leaf, ub_in) => best = Some((leaf, Decision::Leaf)),
                Some((cost, _)) if !self.below(cost, leaf) => best = Some((leaf, Decision::Leaf)),
                _ => {}
            }
        }
        match best {
            Some((cost, decision)) => self.store(handle, limits, cost, decision),
            None => {
                let id = self.current(handle);
                if self.proving() {
                    let proven = if self.config.refined_lower_bound {
                        ub_in.max(refined.min(leaf, self.tolerance))
                    } else {
                        ub_in
                    };
                    self.raise(id, limits, proven);
                }
                Outcome::Infeasible(self.cache.known(id, limits).lower_bound)
            }
        }
    }

    /// Solves `child` of the current node, looking for a subtree cheaper than `ub`.
    fn child(&mut self, child: &Child<C>, ub: C) -> Outcome<C> {
        self.push(child.item);
        let outcome = self.solve(child.limits, ub, child.stats, child.rows);
        self.pop(child.item);
        outcome
    }

    /// Records a better tree of cost `objective` at the root (its bound is not proven yet).
    fn note_progress(&mut self, objective: f64) {
        let seconds = self.started.elapsed().as_secs_f64();
        self.progress.push([seconds, objective, 0.0]);
        self.budget.post([seconds, objective, 0.0]);
    }

    /// The deepest frame. Only `branch` calls this, after `solve` has pushed its frame, so
    /// the stack is never empty here.
    fn frame(&mut self) -> &mut Frame {
        self.frames
            .last_mut()
            .expect("branching happens inside a frame")
    }
}
