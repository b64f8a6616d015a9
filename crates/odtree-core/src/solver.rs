//! The public entry point: a solver built once per dataset and solved many times.

use crate::budget::{Budget, Stop};
use crate::cache::{CacheReport, DatasetIndex, PathIndex, TrieIndex};
use crate::cover::Cover;
use crate::data::Dataset;
use crate::error::OdtError;
use crate::error::Result;
use crate::objective::{
    check_targets, ByRows, CentroidDistance, CostMatrix, Misclassification, Objective, Penalised,
    Pinball, QuantileLane, QuantileSet, SquaredError,
};
use crate::search::{
    CacheKind, Cost, Engine, Greedy, Lexicographic, Metric, Pareto, Quantiles, SearchConfig,
    SearchOutcome,
};
use crate::stats::Weights;
use crate::task::Task;
use crate::tree::Tree;
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
    /// The tree was grown greedily; nothing is proven about it.
    Greedy,
    /// The memory limits stopped the search; the tree is the best found.
    MemoryLimit,
    /// The caller's progress callback stopped the search; the tree is the best found.
    Stopped,
}

impl Status {
    /// The name used in the Python API.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Optimal => "optimal",
            Status::TimeLimit => "time_limit",
            Status::Interrupted => "interrupted",
            Status::Infeasible => "infeasible",
            Status::Greedy => "greedy",
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
    /// For a [`Task::Metric`], the root's Pareto front of (false positives, false negatives),
    /// by increasing false positives; else empty.
    pub front: Vec<[f64; 2]>,
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
        }
    }

    /// The dataset the search runs on (distinct features only).
    pub fn data(&self) -> &Dataset {
        &self.data
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
        self.solve_objective(config, weights, budget, |_, weights| {
            Ok(self.misclassification(weights))
        })
    }

    /// The greedy tree for weighted misclassification under `config`'s depth and minimum
    /// leaf size: at each node the split whose two leaves cost least (as CART on binary
    /// features). Fast, and proves nothing: its status is [`Status::Greedy`] and its lower
    /// bound 0. Other settings of `config` (caches, bounds, limits) do not apply.
    pub fn solve_greedy(
        &self,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
    ) -> Result<Solution> {
        config.validate()?;
        if config.is_monotonic() {
            return Err(OdtError::InvalidParameter(
                "the greedy tree takes no monotonic constraints".into(),
            ));
        }
        let start = Instant::now();
        let weights = Weights::new(weights, self.data.n_rows())?;
        let objective = Penalised::new(self.misclassification(&weights), config.leaf_penalty);
        let greedy =
            Greedy::<TrieIndex, _, f64>::new(&self.data, &weights, &objective, config, budget);
        let (mut tree, budget) = greedy.run();
        tree.map_features(|f| self.features[f as usize]);
        let mut solution = Self::finish(
            SearchOutcome {
                lower_bound: 0.0,
                infeasible: false,
                cache: CacheReport::default(),
                stopped: budget.stopped(),
                progress: Vec::new(),
                tree,
            },
            start,
        );
        if solution.status == Status::Optimal {
            solution.status = Status::Greedy;
        }
        Ok(solution)
    }

    /// Solves for the built-in objective `task`: one solution, or one per quantile for
    /// [`Task::Quantiles`].
    pub fn solve_task(
        &self,
        task: Task,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
    ) -> Result<Vec<Solution>> {
        let k = self.data.n_classes();
        let one = match task {
            Task::Misclassification => self.solve(config, weights, budget),
            Task::CostMatrix(costs) => {
                self.solve_objective(config, weights, budget, |_, _| CostMatrix::new(costs, k))
            }
            Task::SquaredError(targets) => {
                self.solve_objective(config, weights, budget, |_, weights| {
                    SquaredError::new(&targets, weights)
                })
            }
            Task::AbsoluteError(targets) => {
                self.solve_objective(config, weights, budget, |data, _| {
                    check_targets(&targets, data.n_rows())?;
                    Ok(ByRows::new(Pinball::absolute(&targets)))
                })
            }
            Task::Quantile { targets, quantile } => {
                if !(quantile > 0.0 && quantile < 1.0) {
                    return Err(OdtError::InvalidParameter(format!(
                        "quantile must be in (0, 1), got {quantile}"
                    )));
                }
                self.solve_objective(config, weights, budget, |data, _| {
                    check_targets(&targets, data.n_rows())?;
                    Ok(ByRows::new(Pinball::new(&targets, quantile, 1.0)))
                })
            }
            Task::Centroid { points, dim } => {
                self.solve_objective(config, weights, budget, |_, weights| {
                    Ok(ByRows::new(CentroidDistance::new(points, dim, weights)?))
                })
            }
            Task::Quantiles { targets, quantiles } => {
                return self.solve_quantiles(config, weights, budget, &targets, &quantiles)
            }
            Task::Metric(metric) => self.solve_metric(metric, config, weights, budget),
        };
        one.map(|solution| vec![solution])
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
        config.validate()?;
        let start = Instant::now();
        let weights = Weights::new(weights, self.data.n_rows())?;
        let objective = Penalised::new(make(&self.data, &weights)?, config.leaf_penalty);
        self.check_costs(&objective, &weights)?;
        let monotonic;
        let (data, features, config) = if config.is_monotonic() {
            monotonic = self.monotonic_search(config, &objective)?;
            (&monotonic.0, &monotonic.1, &monotonic.2)
        } else {
            (&self.data, &self.features, config)
        };
        let mut outcome = if config.lexicographic {
            Self::search_with::<Lexicographic, _>(data, &weights, &objective, config, budget)
        } else {
            Self::search_with::<f64, _>(data, &weights, &objective, config, budget)
        };
        outcome.tree.map_features(|f| features[f as usize]);
        Ok(Self::finish(outcome, start))
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
        config.validate()?;
        let invalid = |what: &str| Err(OdtError::InvalidParameter(what.into()));
        if quantiles.is_empty() || quantiles.iter().any(|q| !(*q > 0.0 && *q < 1.0)) {
            return invalid("quantiles must be in (0, 1), at least one");
        }
        if quantiles.len() > u32::MAX as usize {
            return invalid("too many quantiles");
        }
        check_targets(targets, self.data.n_rows())?;
        if config.lexicographic {
            return invalid("several quantiles are solved without the lexicographic order");
        }
        if config.is_monotonic() {
            return invalid("quantile trees take no monotonic constraints");
        }
        let start = Instant::now();
        let weights = Weights::new(weights, self.data.n_rows())?;
        let set = QuantileSet::new(targets, quantiles);
        let lanes: Vec<QuantileLane> = (0..quantiles.len())
            .map(|lane| QuantileLane::new(&set, lane, config.leaf_penalty))
            .collect();
        for lane in &lanes {
            self.check_costs(lane, &weights)?;
        }
        let (data, first) = (&self.data, &lanes[0]);
        let outcomes = match config.cache {
            CacheKind::Trie => {
                Quantiles::<TrieIndex>::new(data, &weights, &set, first, config, budget).run()
            }
            CacheKind::Hash => {
                Quantiles::<PathIndex>::new(data, &weights, &set, first, config, budget).run()
            }
            CacheKind::Dataset => {
                Quantiles::<DatasetIndex>::new(data, &weights, &set, first, config, budget).run()
            }
        };
        Ok(outcomes
            .into_iter()
            .map(|mut outcome| {
                outcome.tree.map_features(|f| self.features[f as usize]);
                Self::finish(outcome, start)
            })
            .collect())
    }

    /// The tree of greatest `metric` (F1-score, balanced accuracy) for two classes, class 1
    /// positive, through the Pareto fronts of (false positives, false negatives) at every
    /// subproblem. The solution's objective is the metric's loss, 1 − metric, and its front
    /// is the root's.
    pub fn solve_metric(
        &self,
        metric: Metric,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
    ) -> Result<Solution> {
        config.validate()?;
        let invalid = |what: &str| Err(OdtError::InvalidParameter(what.into()));
        if self.data.n_classes() != 2 {
            return invalid("F1-score and balanced accuracy need exactly two classes");
        }
        if config.leaf_penalty != 0.0 || config.lexicographic || config.upper_bound.is_finite() {
            return invalid(
                "F1-score and balanced accuracy take no leaf penalty (ccp_alpha), \
                 lexicographic order or upper bound",
            );
        }
        if config.is_monotonic() {
            return invalid("F1-score and balanced accuracy take no monotonic constraints");
        }
        let start = Instant::now();
        let weights = Weights::new(weights, self.data.n_rows())?;
        let objective = self.misclassification(&weights);
        let mut outcome = Pareto::new(&self.data, &weights, &objective, config, budget).run(metric);
        outcome.tree.map_features(|f| self.features[f as usize]);
        let loss = 1.0 - outcome.value;
        let mut solution = Self::finish(
            SearchOutcome {
                lower_bound: if outcome.stopped.is_some() { 0.0 } else { loss },
                infeasible: false,
                cache: CacheReport {
                    entries: outcome.cache_entries,
                    peak_entries: outcome.cache_entries,
                    created: outcome.cache_entries,
                    ..CacheReport::default()
                },
                stopped: outcome.stopped,
                progress: Vec::new(),
                tree: outcome.tree,
            },
            start,
        );
        solution.objective = loss;
        if let Some(last) = solution.progress.last_mut() {
            last[1] = loss;
        }
        solution.front = outcome.front;
        Ok(solution)
    }

    /// The data, the input column of each of its features, and `config` for a search under
    /// monotonicity constraints, given per input column in `config`. Columns that split the
    /// rows alike are one feature only when their constraints agree too (oriented alike): a
    /// split one column forbids may be one another column allows, and the tree must then
    /// name that column.
    fn monotonic_search<O: Objective>(
        &self,
        config: &SearchConfig,
        objective: &O,
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
        let restricted = (self.data.n_classes() == 2)
            .then(|| objective.forced_leaf(&[1.0, 1.0], 0))
            .flatten()
            .is_some();
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

    /// Weighted misclassification, its ties broken by the classes' total weights.
    fn misclassification(&self, weights: &Weights) -> Misclassification {
        let mut class_totals = vec![0.0; self.data.n_classes()];
        for (row, &label) in self.data.labels().iter().enumerate() {
            class_totals[label as usize] += weights.of(row);
        }
        Misclassification::new(&class_totals)
    }

    /// Refuses an objective whose costs overflow: every sum of costs the search makes stays
    /// within twice the scale of the root's (two children's costs, or a cost and a bound),
    /// which must therefore be finite with room to spare.
    fn check_costs<O: Objective>(&self, objective: &O, weights: &Weights) -> Result<()> {
        let statistics = objective.statistics(&self.data, weights);
        let mut root = vec![0.0; statistics.len()];
        statistics.count(&Cover::new(weights.support()), None, &mut root);
        let scale = objective.cost_scale(&root).max(objective.leaf_cost(&root));
        if (2.0 * scale).is_finite() {
            Ok(())
        } else {
            Err(OdtError::InvalidData(format!(
                "the costs overflow a 64-bit float (the root's scale is {scale:e}): divide the \
                 cost matrix, weights, targets or points by a constant, which does not change \
                 the tree"
            )))
        }
    }

    /// Runs the engine with the cache kind of `config`, minimising costs of type `C`.
    fn search_with<C: Cost, O: Objective>(
        data: &Dataset,
        weights: &Weights,
        objective: &O,
        config: &SearchConfig,
        budget: Budget,
    ) -> SearchOutcome {
        match config.cache {
            CacheKind::Trie => {
                Engine::<TrieIndex, O, C>::new(data, weights, objective, config, budget).run()
            }
            CacheKind::Hash => {
                Engine::<PathIndex, O, C>::new(data, weights, objective, config, budget).run()
            }
            CacheKind::Dataset => {
                Engine::<DatasetIndex, O, C>::new(data, weights, objective, config, budget).run()
            }
        }
    }

    fn finish(outcome: SearchOutcome, start: Instant) -> Solution {
        let status = match (outcome.stopped, outcome.infeasible) {
            (Some(Stop::TimeLimit), _) => Status::TimeLimit,
            (Some(Stop::Interrupted), _) => Status::Interrupted,
            (Some(Stop::MemoryLimit), _) => Status::MemoryLimit,
            (None, true) => Status::Infeasible,
            (None, false) => Status::Optimal,
        };
        let seconds = start.elapsed().as_secs_f64();
        let objective = outcome.tree.cost();
        let mut progress = outcome.progress;
        progress.push([seconds, objective, outcome.lower_bound]);
        Solution {
            objective,
            tree: outcome.tree,
            lower_bound: outcome.lower_bound,
            status,
            cache: outcome.cache,
            seconds,
            progress,
            front: Vec::new(),
        }
    }
}
