//! The public entry point: a solver built once per dataset and solved many times.

use crate::budget::{Budget, Stop};
use crate::cache::{HashCache, TrieCache};
use crate::data::Dataset;
use crate::error::Result;
use crate::objective::Misclassification;
use crate::search::{CacheKind, Engine, SearchConfig, SearchOutcome};
use crate::stats::Weights;
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
}

impl Status {
    /// The name used in the Python API.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Optimal => "optimal",
            Status::TimeLimit => "time_limit",
            Status::Interrupted => "interrupted",
            Status::Infeasible => "infeasible",
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
    /// Cache entries at the end of the search.
    pub cache_entries: usize,
    /// Bytes the cache held at the end of the search.
    pub cache_bytes: usize,
    /// Wall time of the solve in seconds.
    pub seconds: f64,
}

/// Holds a dataset's bitsets so it can be solved repeatedly with other weights or settings.
#[derive(Clone, Debug)]
pub struct Solver {
    data: Dataset,
}

impl Solver {
    /// A solver over `data`.
    pub fn new(data: Dataset) -> Self {
        Self { data }
    }

    /// The dataset.
    pub fn data(&self) -> &Dataset {
        &self.data
    }

    /// Finds the optimal tree for weighted misclassification under `config`, within `budget`.
    /// `weights` defaults to one per row; rows of weight zero are ignored entirely.
    pub fn solve(
        &self,
        config: &SearchConfig,
        weights: Option<&[f64]>,
        budget: Budget,
    ) -> Result<Solution> {
        config.validate()?;
        let start = Instant::now();
        let weights = Weights::new(weights, self.data.n_rows())?;
        let mut class_totals = vec![0.0; self.data.n_classes()];
        for (row, &label) in self.data.labels().iter().enumerate() {
            class_totals[label as usize] += weights.of(row);
        }
        let objective = Misclassification::new(&class_totals);
        let outcome = match config.cache {
            CacheKind::Trie => Engine::new(
                &self.data,
                &weights,
                &objective,
                config,
                TrieCache::new(),
                budget,
            )
            .run(),
            CacheKind::Hash => Engine::new(
                &self.data,
                &weights,
                &objective,
                config,
                HashCache::new(),
                budget,
            )
            .run(),
        };
        Ok(Self::finish(outcome, start))
    }

    fn finish(outcome: SearchOutcome, start: Instant) -> Solution {
        let status = match (outcome.stopped, outcome.infeasible) {
            (Some(Stop::TimeLimit), _) => Status::TimeLimit,
            (Some(Stop::Interrupted), _) => Status::Interrupted,
            (None, true) => Status::Infeasible,
            (None, false) => Status::Optimal,
        };
        Solution {
            objective: outcome.tree.cost(),
            tree: outcome.tree,
            lower_bound: outcome.lower_bound,
            status,
            cache_entries: outcome.cache_entries,
            cache_bytes: outcome.cache_bytes,
            seconds: start.elapsed().as_secs_f64(),
        }
    }
}
