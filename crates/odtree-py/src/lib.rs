//! Python bindings for odtree-core: this file only registers what the modules define. Every
//! decision about the search lives in odtree-core; this crate only translates (conversions in
//! `convert`, errors in `error`, GIL release and Ctrl-C in `interrupt`).

mod callbacks;
mod config;
mod convert;
mod distinct;
mod error;
mod greedy;
mod interrupt;
mod numeric;
mod rashomon;
mod solver;
mod vocabulary;

use pyo3::prelude::*;

/// The compiled core of odtree.
#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<solver::PySolver>()?;
    module.add_class::<config::PyConfig>()?;
    module.add_function(wrap_pyfunction!(greedy::greedy_tree, module)?)?;
    module.add_function(wrap_pyfunction!(numeric::solve_numeric, module)?)?;
    module.add_class::<distinct::PyDistinctTreeSearch>()?;
    module.add_function(wrap_pyfunction!(distinct::backward_elimination, module)?)?;
    module.add_function(wrap_pyfunction!(rashomon::rashomon_set, module)?)?;
    vocabulary::add_to(module)?;
    Ok(())
}
