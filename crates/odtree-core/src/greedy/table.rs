//! The training data of the greedy learner: typed columns over the same rows, and labels.

use super::weights::RowWeights;
use crate::error::{OdtError, Result};

/// One input column, a feature of the greedy learner.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// Finite numbers, split by thresholds `x <= t`.
    Numeric(Vec<f64>),
    /// Category codes, split by tests `x == v`; codes are compared, never ordered by meaning.
    Categorical(Vec<u32>),
}

impl Column {
    fn len(&self) -> usize {
        match self {
            Column::Numeric(values) => values.len(),
            Column::Categorical(codes) => codes.len(),
        }
    }
}

/// Columns, class labels and optional weights of the training rows, checked once; feature
/// `j` is column `j`.
#[derive(Clone, Debug)]
pub struct Table {
    columns: Vec<Column>,
    labels: Vec<u32>,
    n_classes: usize,
    weights: Option<RowWeights>,
}

impl Table {
    /// Checks and holds the data: every column has one value per label, numeric values are
    /// finite, labels lie in `0..n_classes`, and there is at least one row.
    pub fn new(columns: Vec<Column>, labels: Vec<u32>, n_classes: usize) -> Result<Self> {
        let n_rows = labels.len();
        if n_rows == 0 {
            return Err(OdtError::InvalidData("the dataset has no rows".into()));
        }
        if u32::try_from(n_rows).is_err() {
            return Err(OdtError::InvalidData(format!(
                "{n_rows} rows; at most {} are supported",
                u32::MAX
            )));
        }
        if n_classes == 0 || labels.iter().any(|&c| c as usize >= n_classes) {
            return Err(OdtError::InvalidData(format!(
                "labels must lie in 0..{n_classes}"
            )));
        }
        for (feature, column) in columns.iter().enumerate() {
            if column.len() != n_rows {
                return Err(OdtError::InvalidData(format!(
                    "column {feature} has {} values for {n_rows} rows",
                    column.len()
                )));
            }
            if let Column::Numeric(values) = column {
                if values.iter().any(|v| !v.is_finite()) {
                    return Err(OdtError::InvalidData(format!(
                        "column {feature} holds a value that is NaN or infinite"
                    )));
                }
            }
        }
        Ok(Self {
            columns,
            labels,
            n_classes,
            weights: None,
        })
    }

    /// The table with a weight for each row: finite, non-negative, not all zero. The learner
    /// counts each row by its weight, rounded to a power-of-two unit so that sums of weights
    /// are exact (integer weights are never rounded; see `weights.rs`), and leaves out rows of
    /// weight zero.
    pub fn with_weights(mut self, weights: &[f64]) -> Result<Self> {
        if weights.len() != self.n_rows() {
            return Err(OdtError::InvalidWeights(format!(
                "{} weights for {} rows",
                weights.len(),
                self.n_rows()
            )));
        }
        self.weights = Some(RowWeights::quantise(weights)?);
        Ok(self)
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.labels.len()
    }

    /// Number of features (columns).
    pub fn n_features(&self) -> usize {
        self.columns.len()
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// The columns, in feature order.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The class label of each row.
    pub fn labels(&self) -> &[u32] {
        &self.labels
    }

    /// The weight of each row as given to [`Table::with_weights`], or `None`: every row
    /// weighs 1.
    pub fn weights(&self) -> Option<&[f64]> {
        self.weights.as_ref().map(RowWeights::given)
    }

    /// The quantised weights, if any.
    pub(crate) fn row_weights(&self) -> Option<&RowWeights> {
        self.weights.as_ref()
    }

    /// The table of the given rows (in that order, repeats kept), with their weights, which
    /// are quantised again.
    pub fn select_rows(&self, rows: &[usize]) -> Result<Self> {
        let columns = self
            .columns
            .iter()
            .map(|column| match column {
                Column::Numeric(values) => {
                    Column::Numeric(rows.iter().map(|&r| values[r]).collect())
                }
                Column::Categorical(codes) => {
                    Column::Categorical(rows.iter().map(|&r| codes[r]).collect())
                }
            })
            .collect();
        let labels = rows.iter().map(|&r| self.labels[r]).collect();
        let table = Self::new(columns, labels, self.n_classes)?;
        match self.weights() {
            Some(weights) => {
                table.with_weights(&rows.iter().map(|&r| weights[r]).collect::<Vec<_>>())
            }
            None => Ok(table),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_data() {
        let numeric = |v: Vec<f64>| Column::Numeric(v);
        assert!(Table::new(vec![], vec![], 2).is_err());
        assert!(Table::new(vec![numeric(vec![1.0])], vec![2], 2).is_err());
        assert!(Table::new(vec![numeric(vec![1.0, 2.0])], vec![0], 2).is_err());
        assert!(Table::new(vec![numeric(vec![f64::NAN])], vec![0], 2).is_err());
        assert!(Table::new(vec![numeric(vec![f64::INFINITY])], vec![0], 2).is_err());
        let table = Table::new(vec![Column::Categorical(vec![7, 3])], vec![0, 1], 2).unwrap();
        assert_eq!(
            (table.n_rows(), table.n_features(), table.n_classes()),
            (2, 1, 2)
        );
        assert!(table.clone().with_weights(&[1.0]).is_err());
        assert!(table.clone().with_weights(&[1.0, -1.0]).is_err());
        assert!(table.clone().with_weights(&[0.0, 0.0]).is_err());
        assert!(table.weights().is_none());
    }

    #[test]
    fn selected_rows_keep_their_weights() {
        let table = Table::new(vec![Column::Categorical(vec![7, 3, 5])], vec![0, 1, 1], 2)
            .unwrap()
            .with_weights(&[0.5, 2.0, 0.0])
            .unwrap();
        let selected = table.select_rows(&[1, 1, 0]).unwrap();
        assert_eq!(selected.weights(), Some(&[2.0, 2.0, 0.5][..]));
        assert_eq!(selected.row_weights().unwrap().units(), &[4, 4, 1]);
        assert!(table.select_rows(&[2]).is_err()); // only a row of weight zero
    }
}
