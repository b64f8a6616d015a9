//! The drivers: each walks the subproblems in its own order with the kernel (`super::kernel`),
//! which does everything else. The exact driver (`exact/`) is the depth-first
//! branch-and-bound of DL8.5 and MurTree with its anytime rounds; `quantiles` serves several
//! quantile losses in one search (thesis §8.2.2); `pareto` keeps Pareto fronts for metrics
//! that are not sums over leaves (MurTree §4.8.6); `cart` grows a tree greedily, as CART does.
//!
//! Every driver implements [`Driver`], so the solver (`crate::solver`) checks the inputs,
//! reads the weights, picks the store's key index and reports the outcomes once for all of
//! them: a new driver is its own file and one `Solver` method that names it.

mod cart;
pub(crate) mod exact;
mod pareto;
mod quantiles;

pub(crate) use cart::CartDriver;
pub(crate) use exact::ExactDriver;
pub(crate) use pareto::{check_metric, ParetoDriver};
pub use pareto::{Pareto, ParetoOutcome};
pub(crate) use quantiles::QuantilesDriver;

use super::SearchConfig;
use crate::budget::{Budget, Stop};
use crate::cache::{CacheReport, KeyIndex};
use crate::cover::Cover;
use crate::data::Dataset;
use crate::error::{OdtError, Result};
use crate::objective::Objective;
use crate::stats::Weights;
use crate::tree::Tree;

/// What every driver searches: the data (distinct features), the checked weights, the
/// settings and the budget.
pub(crate) struct Inputs<'a> {
    /// The data, one column per distinct feature.
    pub data: &'a Dataset,
    /// One weight per row.
    pub weights: &'a Weights,
    /// The settings of the search.
    pub config: &'a SearchConfig,
    /// The time limit, interrupt flag and progress feed.
    pub budget: Budget,
}

/// One way of walking the subproblems with the kernel. The solver does everything around the
/// walk once for every driver: it checks the settings ([`SearchConfig::validate`], then
/// [`Driver::check`]), reads the weights, builds the objectives, picks the store's key index
/// (`I` of [`Driver::search`]) from [`SearchConfig::cache`], and reports each outcome as a
/// solution.
pub(crate) trait Driver {
    /// What the driver builds from the data and the weights before it searches: its
    /// objective, or the objectives it serves at once.
    type Objectives;

    /// Whether a search that runs to its end proves its trees optimal; the trees of a
    /// driver that does not are reported with the status `Heuristic`.
    const PROVES: bool = true;

    /// Refuses the settings the driver does not take, before the weights are read.
    fn check(&self, _data: &Dataset, _config: &SearchConfig) -> Result<()> {
        Ok(())
    }

    /// Builds the objectives of `data` weighted by `weights` under `config` (its leaf
    /// penalty), refusing costs that overflow ([`check_costs`]).
    fn objectives(
        &mut self,
        data: &Dataset,
        weights: &Weights,
        config: &SearchConfig,
    ) -> Result<Self::Objectives>;

    /// Whether the objectives can force a leaf to predict a class, which monotonicity
    /// constraints need (only a driver whose `check` lets them through is asked).
    fn forces_leaves(_objectives: &Self::Objectives) -> bool {
        false
    }

    /// Searches `inputs` with a store keyed by `I`: one outcome per objective served, in
    /// order. A driver that stores nothing in the kernel's cache ignores `I`.
    fn search<I: KeyIndex>(
        &self,
        objectives: &Self::Objectives,
        inputs: Inputs<'_>,
    ) -> Vec<SearchOutcome>;
}

/// Refuses an objective whose costs overflow: every sum of costs the search makes stays
/// within twice the scale of the root's (two children's costs, or a cost and a bound),
/// which must therefore be finite with room to spare.
pub(crate) fn check_costs<O: Objective>(
    objective: &O,
    data: &Dataset,
    weights: &Weights,
) -> Result<()> {
    let statistics = objective.statistics(data, weights);
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

/// What a driver reports besides the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOutcome {
    /// The best tree found.
    pub tree: Tree,
    /// Its objective value: its cost, or for a metric of the Pareto driver, its loss
    /// (1 − metric).
    pub objective: f64,
    /// Proven lower bound on the optimal cost at the root.
    pub lower_bound: f64,
    /// Whether no tree beats the requested upper bound (the tree is then the root leaf).
    pub infeasible: bool,
    /// What the cache held and did.
    pub cache: CacheReport,
    /// Why the search stopped early, if it did.
    pub stopped: Option<Stop>,
    /// Each better tree found, as (seconds since the start, objective, proven bound).
    pub progress: Vec<[f64; 3]>,
    /// For the Pareto driver, the root's front of (false positives, false negatives), by
    /// increasing false positives; else empty.
    pub front: Vec<[f64; 2]>,
}

/// The lower bound a search proves at its root: the tree's cost once done, the upper bound
/// when no tree beats it, else (stopped early) what it proved of the root, `root_bound`.
pub(crate) fn proven_bound(
    tree: &Tree,
    infeasible: bool,
    stopped: Option<Stop>,
    root_bound: f64,
    config: &SearchConfig,
) -> f64 {
    match (infeasible, stopped) {
        (true, None) => config.upper_bound,
        (false, None) => tree.cost(),
        // a bound at the tree's cost, up to rounding, is its cost
        _ => root_bound.min(tree.cost()),
    }
}
