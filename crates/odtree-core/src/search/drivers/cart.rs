//! The CART-style driver: at each node, the split whose two leaves cost least, grown to the
//! depth limit, as CART grows a tree on binary features. It proves nothing and caches nothing;
//! it gives a first tree fast, and it is the worked example of "Adding a driver" in the guide:
//! everything it does, it asks of the kernel (the cursor, the candidate splits with their
//! children's statistics, the leaf costs, tree building and the budget).

use super::{Driver, Inputs, SearchOutcome};
use crate::budget::Budget;
use crate::cache::{CacheReport, KeyIndex, TrieIndex};
use crate::data::{item, Dataset};
use crate::error::{OdtError, Result};
use crate::objective::{Misclassification, Objective, Penalised};
use crate::search::kernel::order::gini_gain;
use crate::search::kernel::Kernel;
use crate::search::SearchConfig;
use crate::stats::Weights;
use crate::subproblem::Cost;
use crate::tree::{Tree, TreeBuilder};

/// The driver of the CART-style tree for weighted misclassification plus the leaf penalty,
/// under the depth and minimum leaf size of the settings. Fast, and proves nothing: its lower
/// bound is 0, and the solver reports its tree as a heuristic one.
pub(crate) struct CartDriver;

impl Driver for CartDriver {
    type Objectives = Penalised<Misclassification>;

    const PROVES: bool = false;

    fn check(&self, _data: &Dataset, config: &SearchConfig) -> Result<()> {
        if config.is_monotonic() {
            return Err(OdtError::InvalidParameter(
                "the CART-style tree takes no monotonic constraints".into(),
            ));
        }
        Ok(())
    }

    fn objectives(
        &mut self,
        data: &Dataset,
        weights: &Weights,
        config: &SearchConfig,
    ) -> Result<Self::Objectives> {
        let objective = Misclassification::for_data(data, weights);
        Ok(Penalised::new(objective, config.leaf_penalty))
    }

    /// Caches nothing: the key index is not used.
    fn search<I: KeyIndex>(
        &self,
        objective: &Self::Objectives,
        inputs: Inputs<'_>,
    ) -> Vec<SearchOutcome> {
        let Inputs {
            data,
            weights,
            config,
            budget,
        } = inputs;
        let cart = Cart::<TrieIndex, _, f64>::new(data, weights, objective, config, budget);
        let (tree, budget) = cart.run();
        vec![SearchOutcome {
            objective: tree.cost(),
            tree,
            lower_bound: 0.0,
            infeasible: false,
            cache: CacheReport::default(),
            stopped: budget.stopped(),
            progress: Vec::new(),
            front: Vec::new(),
        }]
    }
}

/// The CART-style walk over a kernel.
struct Cart<'a, I: KeyIndex, O: Objective, C: Cost> {
    kernel: Kernel<'a, I, O, C>,
}

impl<'a, I: KeyIndex, O: Objective, C: Cost> Cart<'a, I, O, C> {
    /// Prepares a CART-style tree of `data` weighted by `weights`, within `config`'s depth and
    /// minimum leaf size.
    pub fn new(
        data: &'a Dataset,
        weights: &'a Weights,
        objective: &'a O,
        config: &'a SearchConfig,
        budget: Budget,
    ) -> Self {
        Self {
            kernel: Kernel::new(data, weights, objective, config, budget),
        }
    }

    /// Grows the tree from the root; a spent budget turns the nodes not yet grown into
    /// leaves.
    pub fn run(mut self) -> (Tree, Budget) {
        let kernel = &mut self.kernel;
        let mut stats = vec![0.0; kernel.statistics.len()];
        let rows = kernel.statistics.count(&kernel.cover, None, &mut stats);
        let depth = kernel.config.max_depth.min(kernel.data.n_features() as u32);
        let mut builder = TreeBuilder::new(kernel.objective, kernel.statistics);
        grow(
            kernel,
            &mut builder,
            depth,
            &stats,
            rows,
            Criterion::Objective,
        );
        (builder.finish(), self.kernel.budget)
    }
}

/// What a CART-style tree picks its splits by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Criterion {
    /// The least cost of the two leaves.
    Objective,
    /// The largest decrease in Gini impurity, as CART (class statistics only).
    Gini,
}

/// Adds to `builder` the CART-style subtree of the kernel's current node, which has `depth` tests
/// left and the statistics `stats` of its `rows` rows.
pub(super) fn grow<I: KeyIndex, O: Objective, C: Cost>(
    kernel: &mut Kernel<'_, I, O, C>,
    builder: &mut TreeBuilder<O>,
    depth: u32,
    stats: &[f64],
    rows: u32,
    criterion: Criterion,
) {
    let leaf = kernel.objective.leaf_cost(stats);
    if depth == 0 || !kernel.splittable(rows) || kernel.budget.check().is_some() {
        builder.leaf(stats, rows);
        return;
    }
    // the candidate splits, each with the statistics of its positive child
    let at = kernel.path.len();
    let mut level = std::mem::take(&mut kernel.levels[at]);
    kernel.scan(&mut level, stats, rows);
    let len = stats.len();
    // the best split by the criterion (lowest score), and what its two leaves cost
    let mut best: Option<(f64, f64, u32)> = None;
    let mut negative = vec![0.0; len];
    let costly = kernel.objective.costly();
    for &f in &level.candidates {
        // each split costs two leaves: with slow leaf costs, the clock is read first
        if costly && kernel.budget.exhausted(true) {
            break;
        }
        // a tree that never splits on a monotonicity-constrained feature satisfies it
        if kernel.monotonic && kernel.config.monotonic.get(f as usize) != Some(&0) {
            continue;
        }
        let slot = f as usize * len..(f as usize + 1) * len;
        let positive = &level.positive[slot.clone()];
        if kernel.statistics.additive() {
            negative
                .iter_mut()
                .zip(stats.iter().zip(positive))
                .for_each(|(n, (s, p))| *n = s - p);
        } else {
            negative.copy_from_slice(&level.negatives[slot]);
        }
        let cost = kernel.objective.leaf_cost(&negative) + kernel.objective.leaf_cost(positive);
        let score = match criterion {
            Criterion::Objective => cost,
            Criterion::Gini => -gini_gain(stats, positive),
        };
        // a score better only by rounding noise does not replace an earlier column's
        let tolerance = match criterion {
            Criterion::Objective => kernel.tolerance,
            Criterion::Gini => 0.0,
        };
        if best.is_none_or(|(least, _, _)| score < least - tolerance) {
            best = Some((score, cost, f));
        }
    }
    kernel.levels[at] = level;
    let useful = |&(score, cost, _): &(f64, f64, u32)| match criterion {
        Criterion::Objective => cost < leaf - kernel.tolerance,
        // as CART: any decrease in impurity (a split that does not pay may enable one below)
        Criterion::Gini => score < -1e-12,
    };
    let Some((_, _, feature)) = best.filter(useful) else {
        builder.leaf(stats, rows);
        return;
    };
    let node = builder.open(feature, stats, rows);
    let mut kids = [0; 2];
    for (value, kid) in [false, true].into_iter().zip(&mut kids) {
        *kid = builder.len();
        kernel.push(item(feature, value));
        let mut child = vec![0.0; len];
        let child_rows = kernel.statistics.count(&kernel.cover, None, &mut child);
        grow(kernel, builder, depth - 1, &child, child_rows, criterion);
        kernel.pop(item(feature, value));
    }
    builder.close(node, kids);
}

#[cfg(test)]
mod tests {
    use crate::oracle::instances;
    use crate::{Budget, Dataset, SearchConfig, Solver};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn cart_trees_are_valid_and_never_beat_the_optimum(
            instance in instances(),
            depth in 1u32..=3,
        ) {
            let data = Dataset::new(&instance.x, instance.n_rows, &instance.y, instance.n_classes)
                .unwrap();
            let solver = Solver::new(data);
            let config = SearchConfig { max_depth: depth, ..SearchConfig::default() };
            let weights = Some(&instance.weights[..]);
            let cart = solver.solve_cart(&config, weights, Budget::default()).unwrap();
            let optimal = solver.solve(&config, weights, Budget::default()).unwrap();
            prop_assert!(cart.tree.depth() <= depth as usize);
            prop_assert!(cart.objective >= optimal.objective - 1e-9 * (1.0 + optimal.objective));
            // one test: the best split of two leaves is the optimal tree
            if depth == 1 {
                prop_assert!((cart.objective - optimal.objective).abs() <= 1e-9 * (1.0 + optimal.objective));
            }
        }
    }
}
