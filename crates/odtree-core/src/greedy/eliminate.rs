//! Sequential backward elimination over the greedy learner, scored on search rows (spec A.8):
//! plain SBE, which treats the learner as a black box, and PSBE, which tries removing only
//! the features the current trees use.

use super::induce::{GreedyConfig, GreedyLearner};
use super::table::Table;
use super::tree::GreedyTree;
use crate::budget::{Budget, Stop};
use crate::error::{OdtError, Result};
use crate::sync::lock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// Which features a round of backward elimination tries to remove.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Elimination {
    /// PSBE: only features that some current tree uses; removing another leaves every tree,
    /// and so the error, unchanged (Remark 4.3), which never strictly improves it. A tree
    /// without a feature is rebuilt from the current one ([`GreedyLearner::build_without`]).
    #[default]
    Pruned,
    /// SBE: every remaining feature, each tree built from scratch.
    BlackBox,
}

impl Elimination {
    /// The names accepted by [`Elimination::from_name`].
    pub const NAMES: [&'static str; 2] = ["psbe", "sbe"];

    /// The method named `"psbe"` or `"sbe"`.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "psbe" => Ok(Elimination::Pruned),
            "sbe" => Ok(Elimination::BlackBox),
            _ => Err(OdtError::InvalidParameter(format!(
                "method must be one of {:?}, got {name:?}",
                Self::NAMES
            ))),
        }
    }
}

/// One split of the rows: trees are built on `building` and scored on `search`.
#[derive(Clone, Debug)]
pub struct Fold {
    /// Rows the trees are built on.
    pub building: Vec<usize>,
    /// Rows the trees are scored on.
    pub search: Vec<usize>,
}

/// The result of a backward elimination.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// The accepted subsets, from all the features to the selected one, each with its
    /// misclassified search rows summed over the folds.
    pub trace: Vec<(Vec<usize>, usize)>,
    /// Trees built.
    pub n_built: usize,
    /// Why the search stopped before it converged (time limit or interrupt), if it did.
    pub stopped: Option<Stop>,
}

impl Selection {
    /// The selected subset, ascending.
    pub fn features(&self) -> &[usize] {
        &self.trace[self.trace.len() - 1].0
    }

    /// Its misclassified search rows, summed over the folds.
    pub fn errors(&self) -> usize {
        self.trace[self.trace.len() - 1].1
    }
}

/// A fold ready to use: the learner's table of building rows and the search rows.
struct Scorer {
    building: Table,
    search: Vec<usize>,
}

/// The trees of every fold without one candidate feature.
struct Removal {
    removed: usize,
    trees: Vec<GreedyTree>,
    errors: usize,
    built: usize,
}

/// Backward elimination from `features` on `table`: each round tries removing each candidate
/// feature (ascending index) and accepts the removal of strictly fewest misclassified search
/// rows, the first on ties, if it is fewer than the current subset's; it stops otherwise.
/// When `budget` runs out it stops before the next candidate and keeps the last accepted
/// subset. A round's candidates are tried on `n_jobs` threads; the result is the same
/// whatever their number.
/// On a weighted table, the trees are grown on the weighted building rows, but the errors
/// count search rows, whatever their weights.
pub fn backward_elimination(
    table: &Table,
    folds: &[Fold],
    config: GreedyConfig,
    features: &[usize],
    method: Elimination,
    budget: &mut Budget,
    n_jobs: usize,
) -> Result<Selection> {
    if folds.is_empty() {
        return Err(OdtError::InvalidParameter(
            "at least one fold is needed".into(),
        ));
    }
    let n_rows = table.n_rows();
    let scorers = folds
        .iter()
        .map(|fold| {
            if fold.building.is_empty() || fold.search.is_empty() {
                return Err(OdtError::InvalidData(
                    "every fold needs building and search rows".into(),
                ));
            }
            if let Some(&row) = fold
                .building
                .iter()
                .chain(&fold.search)
                .find(|&&r| r >= n_rows)
            {
                return Err(OdtError::InvalidData(format!(
                    "row {row} is not in 0..{n_rows}"
                )));
            }
            Ok(Scorer {
                building: table.select_rows(&fold.building)?,
                search: fold.search.clone(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let learners = scorers
        .iter()
        .map(|scorer| GreedyLearner::new(&scorer.building, config))
        .collect::<Result<Vec<_>>>()?;
    let mut subset = features.to_vec();
    subset.sort_unstable();
    subset.dedup();
    if let Some(&feature) = subset.last().filter(|&&f| f >= table.n_features()) {
        return Err(OdtError::InvalidParameter(format!(
            "feature {feature} is not in 0..{}",
            table.n_features()
        )));
    }
    let errors_of = |trees: &[GreedyTree]| -> usize {
        trees
            .iter()
            .zip(&scorers)
            .map(|(tree, scorer)| {
                scorer
                    .search
                    .iter()
                    .filter(|&&row| tree.predict(table, row) != table.labels()[row])
                    .count()
            })
            .sum()
    };
    let mut trees = learners
        .iter()
        .map(|learner| learner.build(&subset))
        .collect::<Result<Vec<_>>>()?;
    let mut n_built = trees.len();
    let mut errors = errors_of(&trees);
    let mut trace = vec![(subset.clone(), errors)];
    loop {
        let candidates: Vec<usize> = match method {
            Elimination::BlackBox => subset.clone(),
            Elimination::Pruned => {
                let mut used: Vec<usize> = trees.iter().flat_map(|t| t.used_features()).collect();
                used.sort_unstable();
                used.dedup();
                used
            }
        };
        let removal = |removed: usize| -> Result<Removal> {
            let allowed: Vec<usize> = subset.iter().copied().filter(|&f| f != removed).collect();
            let mut built = 0;
            let mut without = Vec::with_capacity(trees.len());
            for (learner, tree) in learners.iter().zip(&trees) {
                without.push(match method {
                    Elimination::BlackBox => {
                        built += 1;
                        learner.build(&allowed)?
                    }
                    Elimination::Pruned if tree.used_features().contains(&removed) => {
                        built += 1;
                        learner.build_without(tree, &allowed, removed)?
                    }
                    Elimination::Pruned => tree.clone(),
                });
            }
            Ok(Removal {
                removed,
                errors: errors_of(&without),
                trees: without,
                built,
            })
        };
        let (removals, stopped) = each_candidate(&candidates, n_jobs, budget, removal);
        let mut best: Option<Removal> = None;
        for removal in removals.into_iter().flatten() {
            let removal = removal?;
            n_built += removal.built;
            if best.as_ref().is_none_or(|b| removal.errors < b.errors) {
                best = Some(removal);
            }
        }
        if stopped.is_some() {
            return Ok(Selection {
                trace,
                n_built,
                stopped,
            });
        }
        match best {
            Some(best) if best.errors < errors => {
                subset.retain(|&f| f != best.removed);
                trees = best.trees;
                errors = best.errors;
                trace.push((subset.clone(), errors));
            }
            _ => {
                return Ok(Selection {
                    trace,
                    n_built,
                    stopped: None,
                })
            }
        }
    }
}

/// `attempt(candidate)` for each of `candidates`, in their order, on `n_jobs` threads that take
/// them one at a time from a shared counter. The budget is read before each candidate; once it
/// has run out, the candidates not begun are `None` and the reason is returned too.
fn each_candidate<T: Send>(
    candidates: &[usize],
    n_jobs: usize,
    budget: &mut Budget,
    attempt: impl Fn(usize) -> T + Sync,
) -> (Vec<Option<T>>, Option<Stop>) {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<T>>> = candidates.iter().map(|_| Mutex::new(None)).collect();
    let stop = Mutex::new(None);
    let (next_ref, slots_ref, stop_ref, attempt) = (&next, &slots, &stop, &attempt);
    std::thread::scope(|scope| {
        for _ in 0..n_jobs.clamp(1, candidates.len().max(1)) {
            let mut budget = budget.clone();
            scope.spawn(move || loop {
                let i = next_ref.fetch_add(1, Ordering::Relaxed);
                if i >= candidates.len() {
                    break;
                }
                if let Some(reason) = budget.check_now() {
                    let mut stop = lock(stop_ref);
                    stop.get_or_insert(reason);
                    break;
                }
                let outcome = attempt(candidates[i]);
                *lock(&slots_ref[i]) = Some(outcome);
            });
        }
    });
    let stop = stop.into_inner().unwrap_or_else(PoisonError::into_inner);
    if let Some(reason) = stop {
        budget.stop(reason);
    }
    let outcomes = slots
        .into_iter()
        .map(|slot| slot.into_inner().unwrap_or_else(PoisonError::into_inner))
        .collect();
    (outcomes, stop)
}
