//! Metrics of a binary classifier's (false positives, false negatives) that are not sums over
//! leaves, F1-score and balanced accuracy: `search/metric.rs` maximises them by weighted
//! searches, the Pareto driver (`search/drivers/pareto/`, MurTree §4.8.6) over the root's
//! front.

/// A metric of the (false positives, false negatives) of a binary classifier, to maximise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// `2 TP / (2 TP + FP + FN)`.
    F1,
    /// The mean of the true positive and true negative rates.
    BalancedAccuracy,
}

impl Metric {
    /// The metric named as in the Python API (`"f1"`, `"balanced_accuracy"`), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "f1" => Some(Metric::F1),
            "balanced_accuracy" => Some(Metric::BalancedAccuracy),
            _ => None,
        }
    }

    /// The metric of a classifier with `fp` false positives and `fn_` false negatives, out of
    /// `positives` and `negatives` (weights). Balanced accuracy averages the rates of the
    /// classes present; F1 is 0 without true positives.
    pub fn value(self, fp: f64, fn_: f64, positives: f64, negatives: f64) -> f64 {
        match self {
            Metric::F1 => {
                let tp = (positives - fn_).max(0.0);
                if tp == 0.0 {
                    0.0
                } else {
                    2.0 * tp / (2.0 * tp + fp + fn_)
                }
            }
            Metric::BalancedAccuracy => {
                let rates: Vec<f64> = [(fn_, positives), (fp, negatives)]
                    .into_iter()
                    .filter(|&(_, total)| total > 0.0)
                    .map(|(errors, total)| 1.0 - errors / total)
                    .collect();
                rates.iter().sum::<f64>() / rates.len().max(1) as f64
            }
        }
    }
}
