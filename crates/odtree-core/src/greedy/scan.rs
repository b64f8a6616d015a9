//! The best test of one column at one node: the threshold, or the category, of largest gain.

use super::gain::{NLogN, NodeCounts, SplitGain};
use super::table::Column;
use super::tree::Test;

/// A column's best test at a node, with its gain.
pub(crate) struct ColumnBest {
    pub test: Test,
    pub gain: SplitGain,
}

/// Scans columns for their best test, with buffers reused from node to node.
pub(crate) struct Scanner<'a> {
    nlogn: &'a NLogN,
    min_cases: usize,
    numeric: Vec<(f64, u32)>,
    coded: Vec<(u32, u32)>,
    inside: Vec<usize>,
}

impl<'a> Scanner<'a> {
    /// A scanner for tests whose two branches each hold at least `min_cases` rows.
    pub fn new(nlogn: &'a NLogN, min_cases: usize, n_classes: usize) -> Self {
        Self {
            nlogn,
            min_cases,
            numeric: Vec::new(),
            coded: Vec::new(),
            inside: vec![0; n_classes],
        }
    }

    /// The test of largest gain of column `feature` on the node's `rows` (ties: the lowest
    /// threshold or category code), or `None` when no test leaves `min_cases` rows on both
    /// sides.
    pub fn best(
        &mut self,
        feature: usize,
        column: &Column,
        labels: &[u32],
        rows: &[u32],
        node: &NodeCounts,
    ) -> Option<ColumnBest> {
        match column {
            Column::Numeric(values) => self.best_threshold(feature, values, labels, rows, node),
            Column::Categorical(codes) => self.best_category(feature, codes, labels, rows, node),
        }
    }

    /// Whether a branch of `n_inside` rows, out of the node's, leaves both sides large enough.
    fn balanced(&self, n_inside: usize, node: &NodeCounts) -> bool {
        n_inside >= self.min_cases && node.n_rows() - n_inside >= self.min_cases
    }

    /// Thresholds at the midpoints between consecutive distinct values, scanned upwards.
    fn best_threshold(
        &mut self,
        feature: usize,
        values: &[f64],
        labels: &[u32],
        rows: &[u32],
        node: &NodeCounts,
    ) -> Option<ColumnBest> {
        self.numeric.clear();
        let pairs = rows
            .iter()
            .map(|&r| (values[r as usize], labels[r as usize]));
        self.numeric.extend(pairs);
        self.numeric.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        self.inside.fill(0);
        let mut best: Option<ColumnBest> = None;
        for (i, window) in self.numeric.windows(2).enumerate() {
            let ((value, label), (next, _)) = (window[0], window[1]);
            self.inside[label as usize] += 1;
            let n_inside = i + 1;
            // `==`, not the sort's total order: -0.0 and 0.0 are one value
            if value == next || !self.balanced(n_inside, node) {
                continue;
            }
            let gain = self.nlogn.split_gain(node, &self.inside, n_inside);
            if best.as_ref().is_none_or(|b| gain.gain > b.gain.gain) {
                let threshold = midpoint(value, next);
                best = Some(ColumnBest {
                    test: Test::Threshold { feature, threshold },
                    gain,
                });
            }
        }
        best
    }

    /// One-vs-rest tests `x == code`, scanned by increasing code.
    fn best_category(
        &mut self,
        feature: usize,
        codes: &[u32],
        labels: &[u32],
        rows: &[u32],
        node: &NodeCounts,
    ) -> Option<ColumnBest> {
        self.coded.clear();
        let pairs = rows
            .iter()
            .map(|&r| (codes[r as usize], labels[r as usize]));
        self.coded.extend(pairs);
        self.coded.sort_unstable();
        self.inside.fill(0);
        let mut best: Option<ColumnBest> = None;
        for group in self.coded.chunk_by(|a, b| a.0 == b.0) {
            if !self.balanced(group.len(), node) {
                continue;
            }
            for &(_, label) in group {
                self.inside[label as usize] += 1;
            }
            let gain = self.nlogn.split_gain(node, &self.inside, group.len());
            for &(_, label) in group {
                self.inside[label as usize] -= 1;
            }
            if best.as_ref().is_none_or(|b| gain.gain > b.gain.gain) {
                let code = group[0].0;
                best = Some(ColumnBest {
                    test: Test::Category { feature, code },
                    gain,
                });
            }
        }
        best
    }
}

/// The cut between consecutive distinct values: their midpoint, or `lower` where the two are
/// adjacent floats (as the Python binarizer's midpoints).
fn midpoint(lower: f64, upper: f64) -> f64 {
    let middle = lower / 2.0 + upper / 2.0; // no overflow near the largest floats
    if lower < middle && middle < upper {
        middle
    } else {
        lower
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midpoints_stay_inside_their_gap() {
        assert_eq!(midpoint(1.0, 2.0), 1.5);
        let next = f64::from_bits(1.0f64.to_bits() + 1);
        assert_eq!(midpoint(1.0, next), 1.0);
        let large = midpoint(f64::MAX / 2.0, f64::MAX);
        assert!(f64::MAX / 2.0 < large && large < f64::MAX);
    }

    #[test]
    fn best_threshold_and_category() {
        let nlogn = NLogN::new(10);
        let labels = [0, 0, 1, 1, 1, 0];
        let counts = [3, 3];
        let node = NodeCounts::new(&nlogn, &counts);
        let rows: Vec<u32> = (0..6).collect();
        let mut scanner = Scanner::new(&nlogn, 1, 2);
        // x: the cut between 2 and 3 parts the classes; -0.0 and 0.0 are one value
        let values = Column::Numeric(vec![-0.0, 2.0, 3.0, 4.0, 5.0, 0.0]);
        let best = scanner.best(0, &values, &labels, &rows, &node).unwrap();
        assert_eq!(
            best.test,
            Test::Threshold {
                feature: 0,
                threshold: 2.5
            }
        );
        // codes: code 4 holds the three rows of class 1
        let codes = Column::Categorical(vec![9, 9, 4, 4, 4, 2]);
        let best = scanner.best(1, &codes, &labels, &rows, &node).unwrap();
        assert_eq!(
            best.test,
            Test::Category {
                feature: 1,
                code: 4
            }
        );
        assert!((best.gain.bits(6) - 1.0).abs() < 1e-12);
        // with min_cases = 4 no test leaves 4 rows on both sides
        let mut strict = Scanner::new(&nlogn, 4, 2);
        assert!(strict.best(0, &values, &labels, &rows, &node).is_none());
    }
}
