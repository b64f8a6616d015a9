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
//!
//! Weighted rows count by their weight in units (`weights.rs`), so counts are integers either
//! way, up to `2^53`: the terms of the counts up to the number of rows are looked up in a
//! table, and larger ones (weighted counts only) are computed by the same expression, so a
//! count has one term wherever it comes from. `c ln c · 2^52` stays below `2^112` for
//! `c ≤ 2^53`, within an `i128`.

use super::weights::Weighing;

/// Fractional bits of the fixed-point terms `c ln c`.
const FRACTION_BITS: i32 = 52;

/// `c ln c` of a count in fixed point: the same expression for the table and beyond it.
fn term(count: u64) -> i128 {
    if count < 2 {
        0 // 0 ln 0 = 1 ln 1 = 0
    } else {
        let c = count as f64;
        (c * c.ln() * 2f64.powi(FRACTION_BITS)) as i128
    }
}

/// [`term`] out of line, for the counts beyond the table (weighted counts only), so that the
/// lookup stays small where it is inlined.
#[cold]
#[inline(never)]
fn computed_term(count: u64) -> i128 {
    term(count)
}

/// `c ln c` in fixed point for every count, looked up for counts up to a bound.
pub(crate) struct NLogN {
    terms: Vec<i128>,
}

impl NLogN {
    /// The terms, with those of the counts `0..=max_count` in a table.
    pub fn new(max_count: usize) -> Self {
        let terms = (0..=max_count as u64).map(term).collect();
        Self { terms }
    }

    /// `c ln c` of `count`, in fixed point, for rows counted by `W`. Unweighted counts are
    /// rows, always in the table (the learner's table covers them all): a plain lookup, as
    /// fast as before weights existed.
    #[inline]
    fn term<W: Weighing>(&self, count: u64) -> i128 {
        if W::UNIT_WEIGHTS {
            return self.terms[count as usize];
        }
        match self.terms.get(count as usize) {
            Some(&looked_up) => looked_up,
            None => computed_term(count),
        }
    }

    /// `n·H` of class counts summing to `total`, in fixed-point nats.
    pub fn entropy_mass<W: Weighing>(&self, counts: impl Iterator<Item = u64>, total: u64) -> i128 {
        self.term::<W>(total) - counts.map(|c| self.term::<W>(c)).sum::<i128>()
    }

    /// The gain and split information of splitting a node (`parent`) into the rows with class
    /// counts `inside` (`n_inside` in all) and the others.
    ///
    /// A split whose branches have the class proportions of the node (an exact test on the
    /// integer counts) has gain exactly 0, whatever the rounding of the terms; no gain is
    /// negative.
    pub fn split_gain<W: Weighing>(
        &self,
        parent: &NodeCounts,
        inside: &[u64],
        n_inside: u64,
    ) -> SplitGain {
        let n_outside = parent.total - n_inside;
        let outside = parent.counts.iter().zip(inside).map(|(&all, &i)| all - i);
        let independent =
            parent.counts.iter().zip(inside).all(|(&all, &i)| {
                i as u128 * parent.total as u128 == all as u128 * n_inside as u128
            });
        let gain = if independent {
            0
        } else {
            let inside_mass = self.entropy_mass::<W>(inside.iter().copied(), n_inside);
            let outside_mass = self.entropy_mass::<W>(outside, n_outside);
            (parent.mass - inside_mass - outside_mass).max(0)
        };
        let split_info =
            self.term::<W>(parent.total) - self.term::<W>(n_inside) - self.term::<W>(n_outside);
        SplitGain { gain, split_info }
    }
}

/// The class counts of a node, against which its splits are scored.
pub(crate) struct NodeCounts<'a> {
    counts: &'a [u64],
    total: u64,
    n_rows: usize,
    mass: i128,
}

impl<'a> NodeCounts<'a> {
    /// The node of `n_rows` rows with these class counts (rows, or weights in units, as `W`
    /// counts them).
    pub fn new<W: Weighing>(nlogn: &NLogN, counts: &'a [u64], n_rows: usize) -> Self {
        let total = counts.iter().sum();
        let mass = nlogn.entropy_mass::<W>(counts.iter().copied(), total);
        Self {
            counts,
            total,
            n_rows,
            mass,
        }
    }

    /// The class counts.
    pub fn counts(&self) -> &[u64] {
        self.counts
    }

    /// Number of rows of the node.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// The sum of the class counts: the rows, or their weight in units.
    pub fn total(&self) -> u64 {
        self.total
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
    /// The information gain in bits per row (per unit of weight) of a node whose counts sum
    /// to `total`.
    pub fn bits(&self, total: u64) -> f64 {
        self.gain as f64 / 2f64.powi(FRACTION_BITS) / total as f64 / std::f64::consts::LN_2
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
    use super::super::weights::{Unweighted, Weighted};
    use super::*;

    fn gain_of(parent: &[u64], inside: &[u64]) -> (f64, f64) {
        let nlogn = NLogN::new(100);
        let node = NodeCounts::new::<Weighted>(&nlogn, parent, 0);
        let split = nlogn.split_gain::<Weighted>(&node, inside, inside.iter().sum());
        (split.bits(node.total()), split.ratio())
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
        let score = |parent: &[u64], inside: &[u64]| {
            let node = NodeCounts::new::<Unweighted>(&nlogn, parent, 0);
            nlogn.split_gain::<Unweighted>(&node, inside, inside.iter().sum())
        };
        let base = score(&[17, 23, 11, 7], &[3, 19, 5, 2]);
        assert_eq!(base, score(&[11, 7, 23, 17], &[5, 2, 19, 3]));
        assert_eq!(base, score(&[17, 23, 11, 7], &[14, 4, 6, 5]));
    }

    #[test]
    fn terms_beyond_the_table_are_the_same_expression() {
        let (small, large) = (NLogN::new(10), NLogN::new(1000));
        for count in [0, 1, 2, 11, 500, 1000] {
            assert_eq!(
                small.term::<Weighted>(count),
                large.term::<Unweighted>(count)
            );
        }
        // the largest count, 2^53, stays well inside an i128
        let top = small.term::<Weighted>(1 << 53);
        assert!(top > 0 && top < 1 << 112);
    }

    #[test]
    fn scaled_counts_score_as_the_counts() {
        // weights in units: the same class proportions, scaled by 3 and by 2^20, give the
        // same bits up to rounding, and scaling every count by one factor keeps ties tied
        let (bits, ratio) = gain_of(&[9, 5], &[3, 3]);
        for scale in [3, 1 << 20, 1 << 40] {
            let (scaled_bits, scaled_ratio) =
                gain_of(&[9 * scale, 5 * scale], &[3 * scale, 3 * scale]);
            assert!((scaled_bits - bits).abs() < 1e-12);
            assert!((scaled_ratio - ratio).abs() < 1e-12);
        }
        let big = 1u64 << 40;
        let nlogn = NLogN::new(0);
        let (counts, swapped_counts) = ([7 * big, 5 * big], [5 * big, 7 * big]);
        let node = NodeCounts::new::<Weighted>(&nlogn, &counts, 0);
        let swapped = NodeCounts::new::<Weighted>(&nlogn, &swapped_counts, 0);
        assert_eq!(
            nlogn.split_gain::<Weighted>(&node, &[3 * big, 1], 3 * big + 1),
            nlogn.split_gain::<Weighted>(&swapped, &[1, 3 * big], 3 * big + 1)
        );
    }
}
