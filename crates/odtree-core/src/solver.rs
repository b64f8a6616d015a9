//! The public entry point: a solver built once per dataset and solved many times.

use crate::budget::{Budget, Stop};
use crate::cache::{CacheReport, DatasetIndex, PathIndex, TrieIndex};
use crate::data::Dataset;
use crate::error::OdtError;
use crate::error::Result;
use crate::objective::{Metric, Misclassification, Objective};
use crate::search::drivers::{
    CartDriver, Driver, ExactDriver, Inputs, ParetoDriver, QuantilesDriver,
};
use crate::search::{CacheKind, SearchConfig, SearchOutcome};
use crate::stats::Weights;
use crate::tree::Tree;
use std::any::Any;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// How a solve ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The tree is proven optimal.
    Optimal,
    /// The time limit stopped the search; the tree is the best found.
    TimeLimit,
    /// The interrupt flag stopped the search; the tree is the best found.
    Interrupted,
    /// No tree costs less than the requested upper bound; the tree is the root leaf.
    Infeasible,
    /// A heuristic grew the tree (the CART-style driver); nothing is proven about it.
    Heuristic,
    /// The memory limits stopped the search; the tree is the best found.
    MemoryLimit,
    /// The caller's progress callback stopped the search; the tree is the best found.
    Stopped,
}

impl Status {
    /// Every status, in the order of the enum.
    pub const ALL: [Status; 7] = [
        Status::Optimal,
        Status::TimeLimit,
        Status::Interrupted,
        Status::Infeasible,
        Status::Heuristic,
        Status::MemoryLimit,
        Status::Stopped,
    ];

    /// The name used in the Python API.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Optimal => "optimal",
            Status::TimeLimit => "time_limit",
            Status::Interrupted => "interrupted",
            Status::Infeasible => "infeasible",
            Status::Heuristic => "heuristic",
            Status::MemoryLimit => "memory_limit",
            Status::Stopped => "stopped",
        }
    }
}

/// The result of one solve.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// The best tree found.
    pub tree: Tree,
    /// Its objective value, recomputed from its leaves.
    pub objective: f64,
    /// Proven lower bound on the optimal objective.
    pub lower_bound: f64,
    /// How the solve ended.
    pub status: Status,
    /// What the cache held and did.
    pub cache: CacheReport,
    /// Wall time of the solve in seconds.
    pub seconds: f64,
    /// How the solve went, as (seconds, objective, proven lower bound): each better tree the
    /// search found at the root (its bound 0 until proven), then where it ended.
    pub progress: Vec<[f64; 3]>,
    /// For a [`Task::Metric`](crate::Task::Metric), the root's Pareto front of (false positives, false negatives),
    /// by increasing false positives; else empty.
    pub front: Vec<[f64; 2]>,
    /// Each node's loss were it a leaf (its rows' cost around its prediction), leaf penalty
    /// left out: the node impurities the estimators report, in the tree's node order.
    pub node_losses: Vec<f64>,
}

/// Holds a dataset's bitsets so it can be solved repeatedly with other weights or settings.
///
/// Only the distinct features are kept ([`Dataset::distinct_features`]): copies and
/// complements of a column, and constant columns, never change the optimum.
#[derive(Clone, Debug)]
pub struct Solver {
    data: Dataset,
    /// `features[i]`: the column of the input that feature i of `data` is.
    features: Vec<u32>,
    /// Per input column, the feature of `data` that splits the rows alike (`None`: a
    /// constant column), and whether it is that feature's complement.
    groups: Vec<(Option<u32>, bool)>,
    n_input_features: usize,
    /// The cache of the last exact search of a known objective, for the next one.
    kept: Kept,
}

/// Whether a solver keeps its work, and the caches of its last exact searches of different
/// fingerprints (what their answers depend on, see [`Solver::keep_work`]), the latest last;
/// shared by a solver's clones.
#[derive(Clone, Default)]
struct Kept(Arc<Mutex<(bool, Vec<KeptCache>)>>);

/// Caches a solver keeps at most: a search under a node limit and one without (which may
/// choose another of several optimal trees) each keep theirs.
const KEPT_CACHES: usize = 2;

/// A kept cache (of the type its search used) and its fingerprint.
type KeptCache = (u64, Box<dyn Any + Send>);

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = self.0.lock().map(|kept| kept.1.len()).unwrap_or(0);
        write!(f, "Kept({held} caches)")
    }
}

/// Where one search finds the cache of the last and leaves its own: the solver's slot, and
/// the fingerprint of the search's objective, weights and rules.
#[derive(Clone, Copy)]
pub(crate) struct Keep<'k> {
    slot: &'k Kept,
    fingerprint: u64,
}

impl Keep<'_> {
    /// The kept cache of this fingerprint, if there is one of this type.
    pub(crate) fn take<T: Any>(&self) -> Option<T> {
        let mut kept = self.slot.0.lock().ok()?;
        let at = kept.1.iter().position(|(f, _)| *f == self.fingerprint)?;
        let (_, cache) = kept.1.remove(at);
        cache.downcast::<T>().ok().map(|cache| *cache)
    }

    /// Keeps `cache` for the next search.
    pub(crate) fn put<T: Any + Send>(&self, cache: T) {
        if let Ok(mut kept) = self.slot.0.lock() {
            if kept.0 {
                if kept.1.len() >= KEPT_CACHES {
                    kept.1.remove(0);
                }
                kept.1.push((self.fingerprint, Box::new(cache)));
            }
        }
    }
}

impl Solver {
    /// A solver over `data`.
    pub fn new(data: Dataset) -> Self {
        let features = data.distinct_features();
        let groups = data.feature_groups(&features);
        Self {
            groups,
            n_input_features: data.n_features(),
            data: data.with_features(&features),
            features,
            kept: Kept::default(),
        }
    }

    /// The dataset the search runs on (distinct features only).
    pub fn data(&self) -> &Dataset {
        &self.data
    }

    /// Whether the exact searches of misclassification, a cost matrix or squared error keep
    /// their cache for the next search (off by default; off also frees what is kept). The
    /// proven subproblems of a search depend only on the data, the objective, the weights and
    /// the rules of a subproblem (`min_samples_leaf` and the like), not on the depth, the node
    /// limit, the upper bound or the time: a later search that shares those reuses them, and
    /// returns the tree a fresh search returns (searches under a node limit share with those
    /// of the same depth only, and keep a cache apart from those without one); a search that
    /// does not starts afresh. Never under a memory limit or monotonicity constraints.
    pub fn keep_work(&self, on: bool) {
        if let Ok(mut kept) = self.kept.0.lock() {
            *kept = (on, Vec::new());
        }
    }

    /// Number of features of the input, before copies and constants were dropped.
    pub fn n_input_features(&self) -> usize {
        self.n_input_features
    }

    /// Finds the optimal tree for weighted misclassification under `config`, within `budget`.
    /// `weights` defaults to one per row; rows of weight zero are ignored entirely.
    pub fn solve(
        &self,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
    ) -> Result<Solution> {
        let keep = self.keep(config, weights, "misclassification", &[]);
        let driver = ExactDriver::new(
            |data: &Dataset, weights: &Weights| Ok(Misclassification::for_data(data, weights)),
            keep,
        );
        self.run(driver, config, weights, budget).map(only)
    }

    /// Where a search of the objective named `objective` with these `numbers` (its targets or
    /// costs) finds the last search's cache and leaves its own (see
    /// [`keep_work`](Self::keep_work)); `None` when the solver keeps nothing, under a memory
    /// limit or monotonicity constraints.
    pub(crate) fn keep(
        &self,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        objective: &str,
        numbers: &[f64],
    ) -> Option<Keep<'_>> {
        let keeping = self.kept.0.lock().is_ok_and(|kept| kept.0);
        if !keeping || config.memory.is_bounded() || config.is_monotonic() {
            return None;
        }
        // a node limit changes which of several optimal trees a subproblem keeps, and under
        // one a subproblem met at another depth may keep another (as large a tree as its
        // budget allows): such searches share their work with those of their depth only
        let rules = SearchConfig {
            max_depth: if config.max_nodes.is_some() {
                config.max_depth
            } else {
                0
            },
            max_nodes: config.max_nodes.map(|_| 0),
            upper_bound: f64::INFINITY,
            incumbent: false,
            anytime: false,
            ..config.clone()
        };
        let mut hasher = DefaultHasher::new();
        (objective, format!("{rules:?}")).hash(&mut hasher);
        numbers.iter().for_each(|x| x.to_bits().hash(&mut hasher));
        if let Some(weights) = weights {
            weights.iter().for_each(|x| x.to_bits().hash(&mut hasher));
        }
        Some(Keep {
            slot: &self.kept,
            fingerprint: hasher.finish(),
        })
    }

    /// The CART-style tree for weighted misclassification under `config`'s depth and minimum
    /// leaf size: at each node the split whose two leaves cost least (as CART on binary
    /// features). Fast, and proves nothing: its status is [`Status::Heuristic`] and its lower
    /// bound 0. Other settings of `config` (caches, bounds, limits) do not apply.
    pub fn solve_cart(
        &self,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
    ) -> Result<Solution> {
        self.run(CartDriver, config, weights, budget).map(only)
    }

    /// Finds the optimal tree for the objective `make` builds from the data and the checked
    /// weights, plus `config.leaf_penalty` per leaf.
    pub fn solve_objective<O: Objective>(
        &self,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
        make: impl FnOnce(&Dataset, &Weights) -> Result<O>,
    ) -> Result<Solution> {
        self.run(ExactDriver::new(make, None), config, weights, budget)
            .map(only)
    }

    /// [`solve_objective`](Self::solve_objective) keeping the cache between searches
    /// through `keep` (see [`keep`](Self::keep)).
    pub(crate) fn solve_kept<O: Objective>(
        &self,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
        keep: Option<Keep<'_>>,
        make: impl FnOnce(&Dataset, &Weights) -> Result<O>,
    ) -> Result<Solution> {
        self.run(ExactDriver::new(make, keep), config, weights, budget)
            .map(only)
    }

    /// One optimal tree per quantile of `quantiles`, each in (0, 1), for the pinball loss of
    /// `targets`, found by one search that serves them all (thesis §8.2.2), under the same
    /// limits as a search of one quantile (but for the lexicographic order).
    pub fn solve_quantiles(
        &self,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
        targets: &[f64],
        quantiles: &[f64],
    ) -> Result<Vec<Solution>> {
        let driver = QuantilesDriver { targets, quantiles };
        self.run(driver, config, weights, budget)
    }

    /// The tree of greatest `metric` (F1-score, balanced accuracy) for two classes, class 1
    /// positive, through the Pareto fronts of (false positives, false negatives) at every
    /// subproblem. The solution's objective is the metric's loss, 1 − metric, and its front
    /// is the root's. Slower than [`Solver::solve_metric`], which finds only the best point.
    pub fn solve_front(
        &self,
        metric: Metric,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
    ) -> Result<Solution> {
        self.run(ParetoDriver { metric }, config, weights, budget)
            .map(only)
    }

    /// Runs `driver` under `config` and `budget`, the rows weighted by `weights` (one per row
    /// by default; rows of weight zero are ignored entirely): the one prologue (the settings
    /// checked, the weights read, the objectives built, the data oriented for monotonicity
    /// constraints), the one dispatch on the cache kind, and the one report of every driver's
    /// outcomes as solutions, in order.
    fn run<D: Driver>(
        &self,
        mut driver: D,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
    ) -> Result<Vec<Solution>> {
        config.validate()?;
        driver.check(&self.data, config)?;
        let start = Instant::now();
        let weights = Weights::new(weights, self.data.n_rows())?;
        let objectives = driver.objectives(&self.data, &weights, config)?;
        let monotonic;
        let (data, features, config) = if config.is_monotonic() {
            monotonic = self.monotonic_search(config, || D::forces_leaves(&objectives))?;
            (&monotonic.0, &monotonic.1, &monotonic.2)
        } else {
            (&self.data, &self.features, config)
        };
        let inputs = Inputs {
            data,
            weights: &weights,
            config,
            budget,
        };
        let outcomes = match config.cache {
            CacheKind::Trie => driver.search::<TrieIndex>(&objectives, inputs),
            CacheKind::Hash => driver.search::<PathIndex>(&objectives, inputs),
            CacheKind::Dataset => driver.search::<DatasetIndex>(&objectives, inputs),
        };
        Ok(outcomes
            .into_iter()
            .map(|mut outcome| {
                outcome.tree.map_features(|f| features[f as usize]);
                Self::finish(outcome, start, D::PROVES, config.leaf_penalty)
            })
            .collect())
    }

    /// The data, the input column of each of its features, and `config` for a search under
    /// monotonicity constraints, given per input column in `config`. Columns that split the
    /// rows alike are one feature only when their constraints agree too (oriented alike): a
    /// split one column forbids may be one another column allows, and the tree must then
    /// name that column.
    /// `forces_leaves` tells whether the objective can force a leaf to predict a class.
    fn monotonic_search(
        &self,
        config: &SearchConfig,
        forces_leaves: impl FnOnce() -> bool,
    ) -> Result<(Dataset, Vec<u32>, SearchConfig)> {
        let invalid = |what: String| Err(OdtError::InvalidParameter(what));
        if config.monotonic.len() != self.n_input_features {
            return invalid(format!(
                "monotonic constraints: expected one per feature ({}), got {}",
                self.n_input_features,
                config.monotonic.len()
            ));
        }
        if self.data.n_classes() < 2 {
            // one class: every leaf predicts it, and every tree is monotonic
            let config = SearchConfig {
                monotonic: Vec::new(),
                ..config.clone()
            };
            return Ok((self.data.clone(), self.features.clone(), config));
        }
        let restricted = self.data.n_classes() == 2 && forces_leaves();
        if !restricted {
            return invalid(
                "monotonic constraints need two classes and the misclassification objective".into(),
            );
        }
        if config.memory.is_bounded() {
            return invalid("monotonic constraints take no memory limit".into());
        }
        let mut seen = hashbrown::HashSet::new();
        let (mut oriented, mut columns, mut signs) = (Vec::new(), Vec::new(), Vec::new());
        for (column, &(kept, flipped)) in self.groups.iter().enumerate() {
            let Some(kept) = kept else { continue };
            let sign = config.monotonic[column];
            let relative = if flipped { -sign } else { sign };
            if seen.insert((kept, relative)) {
                oriented.push((kept, flipped));
                columns.push(column as u32);
                signs.push(sign);
            }
        }
        let config = SearchConfig {
            monotonic: signs,
            ..config.clone()
        };
        Ok((self.data.with_oriented(&oriented), columns, config))
    }

    /// The solution of a driver's `outcome`, its search started at `start`; `proves`: whether
    /// the driver proves its trees optimal when it runs to its end; `leaf_penalty`: what each
    /// leaf's cost holds beyond its rows' loss.
    fn finish(outcome: SearchOutcome, start: Instant, proves: bool, leaf_penalty: f64) -> Solution {
        let status = match (outcome.stopped, outcome.infeasible) {
            (Some(Stop::TimeLimit), _) => Status::TimeLimit,
            (Some(Stop::Interrupted), _) => Status::Interrupted,
            (Some(Stop::MemoryLimit), _) => Status::MemoryLimit,
            (None, true) => Status::Infeasible,
            (None, false) if proves => Status::Optimal,
            (None, false) => Status::Heuristic,
        };
        let seconds = start.elapsed().as_secs_f64();
        let mut progress = outcome.progress;
        progress.push([seconds, outcome.objective, outcome.lower_bound]);
        let node_losses = (outcome.tree.nodes().iter())
            .map(|node| (node.leaf_cost - leaf_penalty).max(0.0))
            .collect();
        Solution {
            node_losses,
            objective: outcome.objective,
            tree: outcome.tree,
            lower_bound: outcome.lower_bound,
            status,
            cache: outcome.cache,
            seconds,
            progress,
            front: outcome.front,
        }
    }
}

/// The one solution of a driver that serves one objective.
fn only(mut solutions: Vec<Solution>) -> Solution {
    solutions.swap_remove(0)
}
