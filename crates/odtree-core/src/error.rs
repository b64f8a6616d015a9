//! Errors the core reports; the binding maps them to Python exceptions.

use thiserror::Error;

/// Everything that can go wrong before or during a search.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum OdtError {
    /// The input data are unusable (shapes, values, labels).
    #[error("invalid data: {0}")]
    InvalidData(String),
    /// A search parameter is out of range.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// The sample weights are unusable.
    #[error("invalid sample_weight: {0}")]
    InvalidWeights(String),
}

/// Shorthand for results in this crate.
pub type Result<T> = std::result::Result<T, OdtError>;
