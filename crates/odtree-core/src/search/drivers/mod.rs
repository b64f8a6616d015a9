//! The drivers: each walks the subproblems in its own order with the kernel (`super::kernel`),
//! which does everything else. The exact driver (`exact/`) is the depth-first
//! branch-and-bound of DL8.5 and MurTree with its anytime rounds; `quantiles` serves several
//! quantile losses in one search (thesis §8.2.2); `pareto` keeps Pareto fronts for metrics
//! that are not sums over leaves (MurTree §4.8.6); `cart` grows a tree greedily, as CART does.

mod cart;
pub(crate) mod exact;
mod pareto;
mod quantiles;

pub(crate) use cart::Greedy;
pub(crate) use exact::Engine;
pub use pareto::{Pareto, ParetoOutcome};
pub(crate) use quantiles::Quantiles;

use super::SearchConfig;
use crate::budget::Stop;
use crate::cache::CacheReport;
use crate::tree::Tree;

/// What a driver reports besides the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOutcome {
    /// The best tree found.
    pub tree: Tree,
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
        _ => root_bound,
    }
}
