//! The core's vocabularies as module constants, each read from the core so that Python copies
//! none of them: the depth cap, the names of every string option of `Config`, the keyword
//! defaults of `Config` and each preset's switches, the built-in objectives, the statuses and
//! the cache figures.

use odtree_core::{
    Branching, CacheKind, CacheReport, ChildOrder, MemoryLimits, SearchConfig, Status, Task,
    WipeStrategy,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The names of each value of an option, in the core's order.
fn names<T>(options: &[(&'static str, T)]) -> Vec<&'static str> {
    options.iter().map(|&(name, _)| name).collect()
}

/// Adds `MAX_DEPTH`, `OPTIONS`, `DEFAULTS`, `PRESETS`, `OBJECTIVES`, `STATUSES` and
/// `CACHE_FIGURES` to `module`.
pub fn add_to(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("MAX_DEPTH", SearchConfig::MAX_DEPTH)?;

    let options = PyDict::new(py);
    options.set_item("search", PyTuple::new(py, names(&SearchConfig::PRESETS))?)?;
    options.set_item("cache", PyTuple::new(py, names(&CacheKind::NAMES))?)?;
    options.set_item("branching", PyTuple::new(py, names(&Branching::NAMES))?)?;
    options.set_item("child_order", PyTuple::new(py, names(&ChildOrder::NAMES))?)?;
    options.set_item(
        "wipe_strategy",
        PyTuple::new(py, names(&WipeStrategy::NAMES))?,
    )?;
    module.add("OPTIONS", options)?;

    // the keywords of `Config` whose default is not None (None: the preset's choice, or no
    // limit)
    let (search, memory) = (SearchConfig::default(), MemoryLimits::default());
    let defaults = PyDict::new(py);
    defaults.set_item("max_depth", search.max_depth)?;
    defaults.set_item("min_samples_leaf", search.min_samples_leaf)?;
    defaults.set_item("min_samples_split", search.min_samples_split)?;
    defaults.set_item("min_leaf_weight", search.min_leaf_weight)?;
    defaults.set_item("search", SearchConfig::PRESETS[0].0)?;
    defaults.set_item("upper_bound", search.upper_bound)?;
    defaults.set_item("leaf_penalty", search.leaf_penalty)?;
    defaults.set_item("lexicographic", search.lexicographic)?;
    defaults.set_item("wipe_strategy", memory.strategy.name())?;
    defaults.set_item("wipe_factor", memory.wipe_factor)?;
    module.add("DEFAULTS", defaults)?;

    let presets = PyDict::new(py);
    for (name, make) in SearchConfig::PRESETS {
        let preset = make();
        let switches = PyDict::new(py);
        switches.set_item("cache", preset.cache.name())?;
        switches.set_item("branching", preset.branching.name())?;
        switches.set_item("child_order", preset.child_order.name())?;
        switches.set_item("depth2_solver", preset.depth2_solver)?;
        switches.set_item("incremental_counting", preset.incremental_counting)?;
        switches.set_item("similarity_bound", preset.similarity_bound)?;
        switches.set_item("anytime", preset.anytime)?;
        presets.set_item(name, switches)?;
    }
    module.add("PRESETS", presets)?;

    module.add("OBJECTIVES", PyTuple::new(py, Task::NAMES)?)?;
    let statuses: Vec<&str> = Status::ALL.iter().map(|status| status.as_str()).collect();
    module.add("STATUSES", PyTuple::new(py, statuses)?)?;
    module.add("CACHE_FIGURES", PyTuple::new(py, CacheReport::FIGURES)?)?;
    Ok(())
}
