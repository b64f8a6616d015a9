//! The one map of the core's errors to Python exceptions.

use odtree_core::OdtError;
use pyo3::exceptions::PyValueError;
use pyo3::PyErr;

/// The core's error as the Python exception it raises: every error of the core is a value
/// the caller gave (a parameter, the data), so a `ValueError` with the core's message, which
/// says what to change.
pub fn to_py_err(error: OdtError) -> PyErr {
    PyValueError::new_err(error.to_string())
}
