//! The best test of one column at one node: the threshold, or the category, of largest gain.

use super::gain::{NLogN, NodeCounts, SplitGain};
use super::table::Column;
use super::tree::Test;
use super::weights::Weighing;

/// A column's best test at a node, with its gain.
pub(crate) struct ColumnBest {
    pub test: Test,
    pub gain: SplitGain,
}

/// Scans columns for their best test, with buffers reused from node to node. Rows count as
/// `weighing` says; each sorted row carries its label and, when weighted, its weight.
pub(crate) struct Scanner<'a, W: Weighing> {
    nlogn: &'a NLogN,
    min_cases: usize,
    /// The least weight of a branch, in units.
    min_units: u64,
    weighing: W,
    numeric: Vec<(f64, u32, W::Carried)>,
    coded: Vec<(u32, u32, W::Carried)>,
    inside: Vec<u64>,
}

impl<'a, W: Weighing> Scanner<'a, W> {
    /// A scanner for tests whose two branches each hold at least `min_cases` rows (rows,
    /// whatever their weights).
    pub fn new(nlogn: &'a NLogN, min_cases: usize, n_classes: usize, weighing: W) -> Self {
        Self {
            nlogn,
            min_cases,
            min_units: 0,
            weighing,
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

    /// The same scanner, for tests whose two branches also weigh at least `min_units` units.
    pub fn with_min_units(self, min_units: u64) -> Self {
        Self { min_units, ..self }
    }

    /// Whether the node weighs enough for two branches of the least weight.
    pub fn may_split(&self, node: &NodeCounts) -> bool {
        node.total() >= 2 * self.min_units
    }

    /// Whether a branch of `rows_inside` rows weighing `units_inside` units, out of the
    /// node's, leaves both sides large and heavy enough.
    fn balanced(&self, rows_inside: usize, units_inside: u64, node: &NodeCounts) -> bool {
        rows_inside >= self.min_cases
            && node.n_rows() - rows_inside >= self.min_cases
            && units_inside >= self.min_units
            && node.total() - units_inside >= self.min_units
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
        let weighing = self.weighing;
        let triples = rows
            .iter()
            .map(|&r| (values[r as usize], labels[r as usize], weighing.carried(r)));
        self.numeric.extend(triples);
        self.numeric.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        self.inside.fill(0);
        let mut weight_inside = 0;
        let mut best: Option<ColumnBest> = None;
        for (i, window) in self.numeric.windows(2).enumerate() {
            let ((value, label, carried), (next, _, _)) = (window[0], window[1]);
            let units = W::units(carried);
            self.inside[label as usize] += units;
            weight_inside += units;
            // `==`, not the sort's total order: -0.0 and 0.0 are one value
            if value == next || !self.balanced(i + 1, weight_inside, node) {
                continue;
            }
            // the rows when unweighted: no second running sum in that loop
            let n_inside = if W::UNIT_WEIGHTS {
                i as u64 + 1
            } else {
                weight_inside
            };
            let gain = self.nlogn.split_gain::<W>(node, &self.inside, n_inside);
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
        let weighing = self.weighing;
        let triples = rows
            .iter()
            .map(|&r| (codes[r as usize], labels[r as usize], weighing.carried(r)));
        self.coded.extend(triples);
        self.coded.sort_unstable();
        self.inside.fill(0);
        let mut best: Option<ColumnBest> = None;
        for group in self.coded.chunk_by(|a, b| a.0 == b.0) {
            let n_inside = group.iter().map(|&(_, _, carried)| W::units(carried)).sum();
            if !self.balanced(group.len(), n_inside, node) {
                continue;
            }
            for &(_, label, carried) in group {
                self.inside[label as usize] += W::units(carried);
            }
            let gain = self.nlogn.split_gain::<W>(node, &self.inside, n_inside);
            for &(_, label, carried) in group {
                self.inside[label as usize] -= W::units(carried);
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
    use super::super::weights::{Unweighted, Weighted};
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
        let node = NodeCounts::new::<Unweighted>(&nlogn, &counts, 6);
        let rows: Vec<u32> = (0..6).collect();
        let mut scanner = Scanner::new(&nlogn, 1, 2, Unweighted);
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
        let mut strict = Scanner::new(&nlogn, 4, 2, Unweighted);
        assert!(strict.best(0, &values, &labels, &rows, &node).is_none());
    }

    #[test]
    fn weighted_rows_count_as_their_copies() {
        // row weights (in units) 1, 3, 2, 1 against the rows repeated that many times
        let nlogn = NLogN::new(10);
        let (labels, units) = ([0, 1, 1, 0], [1, 3, 2, 1]);
        let values = Column::Numeric(vec![1.0, 2.0, 3.0, 4.0]);
        let codes = Column::Categorical(vec![5, 6, 6, 5]);
        let counts = [2, 5];
        let weighted_node = NodeCounts::new::<Weighted>(&nlogn, &counts, 4);
        let rows: Vec<u32> = (0..4).collect();
        let mut weighted = Scanner::new(&nlogn, 1, 2, Weighted::new(&units));
        let copies: Vec<usize> = (0..4).flat_map(|r| vec![r; units[r] as usize]).collect();
        let copied_labels: Vec<u32> = copies.iter().map(|&r| labels[r]).collect();
        let copied = |column: &Column| match column {
            Column::Numeric(v) => Column::Numeric(copies.iter().map(|&r| v[r]).collect()),
            Column::Categorical(c) => Column::Categorical(copies.iter().map(|&r| c[r]).collect()),
        };
        let copied_rows: Vec<u32> = (0..copies.len() as u32).collect();
        let copied_node = NodeCounts::new::<Unweighted>(&nlogn, &counts, copies.len());
        let mut unweighted = Scanner::new(&nlogn, 1, 2, Unweighted);
        for column in [values, codes] {
            let by_weight = weighted
                .best(0, &column, &labels, &rows, &weighted_node)
                .unwrap();
            let by_copies = unweighted
                .best(
                    0,
                    &copied(&column),
                    &copied_labels,
                    &copied_rows,
                    &copied_node,
                )
                .unwrap();
            assert_eq!(by_weight.test, by_copies.test);
            assert_eq!(by_weight.gain, by_copies.gain);
        }
        // min_cases counts rows, not weight: 4 rows of weight 7 cannot leave 3 on each side
        let mut strict = Scanner::new(&nlogn, 3, 2, Weighted::new(&units));
        let values = Column::Numeric(vec![1.0, 2.0, 3.0, 4.0]);
        assert!(strict
            .best(0, &values, &labels, &rows, &weighted_node)
            .is_none());
    }
}
