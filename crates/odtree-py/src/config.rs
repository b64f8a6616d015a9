//! The settings of one solve as a Python object, parsed and checked once when it is built.

use odtree_core::{MemoryLimits, SearchConfig};
use pyo3::prelude::*;
use std::time::Duration;

use crate::error::to_py_err;
use crate::interrupt::duration_of;

/// Search settings, named as in the estimators. Each string option is parsed by the core,
/// whose error lists the valid values; each switch left at `None` keeps the preset's choice.
#[pyclass(name = "Config", module = "odtree._core", frozen)]
#[derive(Clone, Debug)]
pub struct PyConfig {
    pub search: SearchConfig,
    /// `None`: no limit (including limits beyond what a `Duration` holds).
    pub time_limit: Option<Duration>,
}

#[pymethods]
impl PyConfig {
    /// Builds and checks the settings. `search` names the preset (`"murtree"` or `"dl85"`);
    /// `max_nodes` caps the branching nodes; `leaf_penalty` is in objective units;
    /// `min_leaf_weight` is the least weight of a leaf, in the weights' units; `monotonic`
    /// holds one constraint (-1, 0 or 1) per input feature (see `SearchConfig::monotonic`);
    /// `n_jobs` is the number of threads (see `SearchConfig::n_jobs`).
    #[new]
    #[pyo3(signature = (*, max_depth=3, min_samples_leaf=1, search="murtree",
                        upper_bound=f64::INFINITY, max_nodes=None, leaf_penalty=0.0,
                        lexicographic=false, cache=None, branching=None, depth2_solver=None,
                        incremental_counting=None, similarity_bound=None, child_order=None,
                        memory_limit=None, max_cache_entries=None, wipe_strategy="reuses",
                        wipe_factor=0.1, time_limit=None, anytime=None, min_samples_split=2,
                        min_leaf_weight=0.0, monotonic=None, n_jobs=1))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        max_depth: u32,
        min_samples_leaf: u32,
        search: &str,
        upper_bound: f64,
        max_nodes: Option<u32>,
        leaf_penalty: f64,
        lexicographic: bool,
        cache: Option<&str>,
        branching: Option<&str>,
        depth2_solver: Option<bool>,
        incremental_counting: Option<bool>,
        similarity_bound: Option<bool>,
        child_order: Option<&str>,
        memory_limit: Option<usize>,
        max_cache_entries: Option<usize>,
        wipe_strategy: &str,
        wipe_factor: f64,
        time_limit: Option<f64>,
        anytime: Option<bool>,
        min_samples_split: u32,
        min_leaf_weight: f64,
        monotonic: Option<Vec<i8>>,
        n_jobs: usize,
    ) -> PyResult<Self> {
        let parsed = || -> odtree_core::Result<SearchConfig> {
            let preset = SearchConfig::preset(search)?;
            let config = SearchConfig {
                max_depth,
                min_samples_leaf,
                min_samples_split,
                min_leaf_weight,
                monotonic: monotonic.unwrap_or_default(),
                upper_bound,
                max_nodes,
                leaf_penalty,
                lexicographic,
                cache: cache.map_or(Ok(preset.cache), str::parse)?,
                branching: branching.map_or(Ok(preset.branching), str::parse)?,
                child_order: child_order.map_or(Ok(preset.child_order), str::parse)?,
                depth2_solver: depth2_solver.unwrap_or(preset.depth2_solver),
                incremental_counting: incremental_counting.unwrap_or(preset.incremental_counting),
                similarity_bound: similarity_bound.unwrap_or(preset.similarity_bound),
                anytime: anytime.unwrap_or(preset.anytime),
                n_jobs,
                memory: MemoryLimits {
                    max_bytes: memory_limit,
                    max_entries: max_cache_entries,
                    strategy: wipe_strategy.parse()?,
                    wipe_factor,
                },
                ..preset
            };
            config.validate()?;
            Ok(config)
        };
        let search = parsed().map_err(to_py_err)?;
        Ok(Self {
            search,
            time_limit: duration_of(time_limit)?,
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "Config({:?}, time_limit={:?})",
            self.search, self.time_limit
        )
    }
}
