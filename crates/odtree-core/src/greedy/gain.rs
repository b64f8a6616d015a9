//! Information gain and split information of a binary split, computed exactly from integer
//! class counts.
//!
//! With class counts `c_k` summing to `n`, `n·H = n ln n − Σ c_k ln c_k` (nats). Each term
//! `c ln c` is rounded once to f64 and then held as a fixed-point integer with
//! [`FRACTION_BITS`] fractional bits. That conversion is exact: every term is 0 or at least
//! `2 ln 2 > 1`, where an f64 is a multiple of `2⁻⁵²`. Sums of terms are then exact integer
//! sums, independent of their order, so a split's gain depends only on the multiset of its
//! counts (permuting the classes or swapping the branches gives the same bits) and equal counts
//! always give equal scores: ties are real ties, which the learner breaks by feature index.

/// Fractional bits of the fixed-point terms `c ln c`.
const FRACTION_BITS: i32 = 52;

/// `c ln c` for every count `c` up to the number of training rows, in fixed point.
pub(crate) struct NLogN {
    terms: Vec<i128>,
}

impl NLogN {
    /// The terms for the counts `0..=max_count`.
    pub fn new(max_count: usize) -> Self {
        let scale = 2f64.powi(FRACTION_BITS);
        let terms = (0..=max_count)
            .map(|c| {
                if c < 2 {
                    0 // 0 ln 0 = 1 ln 1 = 0
                } else {
                    let c = c as f64;
                    (c * c.ln() * scale) as i128
                }
            })
            .collect();
        Self { terms }
    }

    /// `n·H` of class counts summing to `total`, in fixed-point nats.
    pub fn entropy_mass(&self, counts: impl Iterator<Item = usize>, total: usize) -> i128 {
        self.terms[total] - counts.map(|c| self.terms[c]).sum::<i128>()
    }

    /// The gain and split information of splitting a node (`parent`) into the rows with class
    /// counts `inside` (`n_inside` rows) and the others.
    ///
    /// A split whose branches have the class proportions of the node (an exact test on the
    /// integer counts) has gain exactly 0, whatever the rounding of the terms; no gain is
    /// negative.
    pub fn split_gain(&self, parent: &NodeCounts, inside: &[usize], n_inside: usize) -> SplitGain {
        let n_outside = parent.n_rows - n_inside;
        let outside = parent.counts.iter().zip(inside).map(|(&all, &i)| all - i);
        let independent =
            parent.counts.iter().zip(inside).all(|(&all, &i)| {
                i as u128 * parent.n_rows as u128 == all as u128 * n_inside as u128
            });
        let gain = if independent {
            0
        } else {
            let inside_mass = self.entropy_mass(inside.iter().copied(), n_inside);
            let outside_mass = self.entropy_mass(outside, n_outside);
            (parent.mass - inside_mass - outside_mass).max(0)
        };
        let split_info = self.terms[parent.n_rows] - self.terms[n_inside] - self.terms[n_outside];
        SplitGain { gain, split_info }
    }
}

/// The class counts of a node, against which its splits are scored.
pub(crate) struct NodeCounts<'a> {
    counts: &'a [usize],
    n_rows: usize,
    mass: i128,
}

impl<'a> NodeCounts<'a> {
    /// The node with these class counts.
    pub fn new(nlogn: &NLogN, counts: &'a [usize]) -> Self {
        let n_rows = counts.iter().sum();
        let mass = nlogn.entropy_mass(counts.iter().copied(), n_rows);
        Self {
            counts,
            n_rows,
            mass,
        }
    }

    /// Number of rows of the node.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }
}

/// A binary split's information gain and split information, both times the node's row count,
/// in fixed-point nats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SplitGain {
    /// `n` times the information gain.
    pub gain: i128,
    /// `n` times the entropy of the branch sizes.
    pub split_info: i128,
}

impl SplitGain {
    /// The information gain in bits per row of a node of `n_rows` rows.
    pub fn bits(&self, n_rows: usize) -> f64 {
        self.gain as f64 / 2f64.powi(FRACTION_BITS) / n_rows as f64 / std::f64::consts::LN_2
    }

    /// Gain divided by split information (0 if the split information is not positive).
    pub fn ratio(&self) -> f64 {
        if self.split_info > 0 {
            self.gain as f64 / self.split_info as f64
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gain_of(parent: &[usize], inside: &[usize]) -> (f64, f64) {
        let nlogn = NLogN::new(100);
        let node = NodeCounts::new(&nlogn, parent);
        let split = nlogn.split_gain(&node, inside, inside.iter().sum());
        (split.bits(node.n_rows()), split.ratio())
    }

    #[test]
    fn hand_computed_gain_and_ratio() {
        // Quinlan's "play tennis" (9 yes, 5 no) split by windy: 6 rows (3 yes, 3 no) are
        // windy. Gain = H(9/14) - 6/14·1 - 8/14·H(6/8) = 0.048127 bits.
        let h = |p: f64| -(p * p.log2() + (1.0 - p) * (1.0 - p).log2());
        let expected = h(9.0 / 14.0) - 6.0 / 14.0 - 8.0 / 14.0 * h(0.75);
        let (bits, ratio) = gain_of(&[9, 5], &[3, 3]);
        assert!((bits - expected).abs() < 1e-12, "{bits} vs {expected}");
        assert!((bits - 0.048127).abs() < 1e-6);
        let split_info = h(6.0 / 14.0);
        assert!((ratio - expected / split_info).abs() < 1e-12);
    }

    #[test]
    fn a_split_keeping_the_proportions_has_no_gain() {
        assert_eq!(gain_of(&[6, 3, 9], &[2, 1, 3]).0, 0.0);
        assert!((gain_of(&[5, 5], &[5, 0]).0 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn order_of_classes_and_branches_does_not_change_the_bits() {
        let nlogn = NLogN::new(100);
        let score = |parent: &[usize], inside: &[usize]| {
            let node = NodeCounts::new(&nlogn, parent);
            nlogn.split_gain(&node, inside, inside.iter().sum())
        };
        let base = score(&[17, 23, 11, 7], &[3, 19, 5, 2]);
        assert_eq!(base, score(&[11, 7, 23, 17], &[5, 2, 19, 3]));
        assert_eq!(base, score(&[17, 23, 11, 7], &[14, 4, 6, 5]));
    }
}
