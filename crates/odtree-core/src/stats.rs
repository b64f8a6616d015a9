//! Statistics of a set of rows: the numbers an objective needs to cost a leaf.
//!
//! Most statistics are additive: the statistics of a node are the sum of its children's. This
//! is what lets the depth-2 solver derive every cell of a split from a few counts. Objectives
//! that need the rows themselves (a median, a centroid, a Python callback) evaluate row sets
//! through a [`RowEvaluator`]; their statistics are not additive, and the engine then counts
//! both children of every split and switches the depth-2 solver off.

use crate::bitset::bits_of;
use crate::cover::Cover;
use crate::data::Dataset;
use crate::error::{OdtError, Result};
use crate::objective::Pinball;

/// The weight of each row in one solve. Rows of weight zero are left out of the root cover.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// One weight per row; empty when every row of non-zero weight weighs `uniform`.
    per_row: Vec<f64>,
    uniform: Option<f64>,
    /// Rows with non-zero weight.
    support: Vec<u64>,
    n_rows: usize,
}

impl Weights {
    /// Checks `weights` (non-negative, finite, not all zero) and picks the compact form;
    /// `None` gives every row weight 1.
    pub fn new(weights: Option<&[f64]>, n_rows: usize) -> Result<Self> {
        let mut support = vec![0u64; crate::bitset::words_for(n_rows)];
        let Some(weights) = weights else {
            for row in 0..n_rows {
                support[row / 64] |= 1 << (row % 64);
            }
            return Ok(Self {
                per_row: Vec::new(),
                uniform: Some(1.0),
                support,
                n_rows,
            });
        };
        if weights.len() != n_rows {
            return Err(OdtError::InvalidWeights(format!(
                "{} weights for {} rows",
                weights.len(),
                n_rows
            )));
        }
        if weights.iter().any(|w| !w.is_finite() || *w < 0.0) {
            return Err(OdtError::InvalidWeights(
                "weights must be finite and non-negative".into(),
            ));
        }
        if !weights.iter().sum::<f64>().is_finite() {
            return Err(OdtError::InvalidWeights(
                "the weights sum to more than a 64-bit float holds: rescale them".into(),
            ));
        }
        for (row, _) in weights.iter().enumerate().filter(|(_, &w)| w > 0.0) {
            support[row / 64] |= 1 << (row % 64);
        }
        let mut positive = weights.iter().copied().filter(|&w| w > 0.0);
        let Some(first) = positive.next() else {
            return Err(OdtError::InvalidWeights("all weights are zero".into()));
        };
        if positive.all(|w| w == first) {
            Ok(Self {
                per_row: Vec::new(),
                uniform: Some(first),
                support,
                n_rows,
            })
        } else {
            Ok(Self {
                per_row: weights.to_vec(),
                uniform: None,
                support,
                n_rows,
            })
        }
    }

    /// Number of rows, weighted or not.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// The shared weight of the rows of non-zero weight, when they all weigh the same.
    #[inline]
    pub fn uniform(&self) -> Option<f64> {
        self.uniform
    }

    /// The weight of `row` (zero for rows outside the support).
    #[inline]
    pub fn of(&self, row: usize) -> f64 {
        match self.uniform {
            Some(w) if self.support[row / 64] >> (row % 64) & 1 == 1 => w,
            Some(_) => 0.0,
            None => self.per_row[row],
        }
    }

    /// One weight per row, when they differ.
    pub fn per_row(&self) -> &[f64] {
        &self.per_row
    }

    /// Rows with non-zero weight, as a bitset.
    pub fn support(&self) -> &[u64] {
        &self.support
    }
}

/// Per-class weight sums of a cover, computed with popcounts when weights are uniform.
#[derive(Clone, Copy, Debug)]
pub struct ClassWeights<'a> {
    data: &'a Dataset,
    weights: &'a Weights,
}

impl<'a> ClassWeights<'a> {
    /// A kernel over `data` with `weights`.
    pub fn new(data: &'a Dataset, weights: &'a Weights) -> Self {
        Self { data, weights }
    }

    /// Length of a statistics vector: the number of classes.
    pub fn len(&self) -> usize {
        self.data.n_classes()
    }

    /// Whether statistics are empty vectors (never: a dataset has at least one class).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the class weights of `cover ∧ mask` into `out` and returns its row count.
    /// With `mask = None` the whole cover is counted.
    #[inline]
    pub fn count(&self, cover: &Cover, mask: Option<&[u64]>, out: &mut [f64]) -> u32 {
        let words = cover.words();
        let k = self.data.n_classes();
        let classes = self.data.class_masks();
        out.fill(0.0);
        let mut rows = 0u32;
        match self.weights.uniform() {
            Some(weight) => {
                let mut counts = [0u32; 8];
                let small = k <= counts.len();
                for &w in cover.word_indices() {
                    let w = w as usize;
                    let t = mask.map_or(words[w], |m| words[w] & m[w]);
                    if t == 0 {
                        continue;
                    }
                    rows += t.count_ones();
                    let cls = &classes[w * k..w * k + k];
                    if small {
                        for c in 1..k {
                            counts[c] += (t & cls[c]).count_ones();
                        }
                    } else {
                        for c in 1..k {
                            out[c] += (t & cls[c]).count_ones() as f64;
                        }
                    }
                }
                if small {
                    for c in 1..k {
                        out[c] = counts[c] as f64;
                    }
                }
                let others: f64 = out[1..].iter().sum();
                out[0] = rows as f64 - others;
                if weight != 1.0 {
                    out.iter_mut().for_each(|v| *v *= weight);
                }
            }
            None => {
                let (labels, ws) = (self.data.labels(), self.weights.per_row());
                for &w in cover.word_indices() {
                    let w = w as usize;
                    let t = mask.map_or(words[w], |m| words[w] & m[w]);
                    rows += t.count_ones();
                    for b in bits_of(t) {
                        let row = w * 64 + b;
                        out[labels[row] as usize] += ws[row];
                    }
                }
            }
        }
        rows
    }
}

/// Per-row vectors that add up: a node's statistics are the sum of its rows' vectors (for
/// example a regression target's weighted moments). The vectors include the row weights.
#[derive(Clone, Debug)]
pub struct RowVectors {
    values: Vec<f64>,
    len: usize,
}

impl RowVectors {
    /// `values` holds one vector of `len` numbers per row, row after row.
    pub fn new(values: Vec<f64>, len: usize) -> Self {
        debug_assert!(len > 0 && values.len() % len == 0);
        Self { values, len }
    }

    /// The vector of `row`.
    #[inline]
    pub fn of(&self, row: usize) -> &[f64] {
        &self.values[row * self.len..(row + 1) * self.len]
    }
}

/// Computes the statistics of a set of rows directly from the rows (not additive).
pub trait RowEvaluator: Send + Sync {
    /// Length of the statistics: the rows' weight, the leaf's cost, and optionally its value.
    fn n_stats(&self) -> usize;
    /// Writes the statistics of `rows` (sorted row ids, each of non-zero weight): `out[0]` is
    /// their total weight, `out[1]` the cost of making them a leaf and, when `n_stats` is 3,
    /// `out[2]` the leaf's value (a class index if [`RowEvaluator::labels`]). An evaluator of
    /// several objectives at once lays out one cost per objective, then one value per
    /// objective ([`QuantileSet`](crate::objective::QuantileSet)).
    fn evaluate(&self, rows: &[u32], weights: &Weights, out: &mut [f64]);
    /// Whether the value is a class index.
    fn labels(&self) -> bool {
        false
    }
    /// The pinball loss this evaluator computes, if it is one: the depth-2 solver then costs
    /// its cells from the targets' ranks instead of through [`evaluate`](Self::evaluate).
    fn as_pinball(&self) -> Option<&Pinball> {
        None
    }
    /// Bytes held besides the data (remembered results); see [`Objective::held_bytes`].
    ///
    /// [`Objective::held_bytes`]: crate::objective::Objective::held_bytes
    fn held_bytes(&self) -> usize {
        0
    }
    /// Frees what [`held_bytes`](Self::held_bytes) counts.
    fn release(&self) {}
}

/// The statistics the engine keeps for every node, as an objective defines them.
#[derive(Clone, Copy)]
pub enum Statistics<'a> {
    /// The weight of each class (popcounts when weights are uniform).
    Classes(ClassWeights<'a>),
    /// Sums of per-row vectors.
    Sums(&'a RowVectors),
    /// Evaluated from the rows; not additive.
    Rows(&'a dyn RowEvaluator, &'a Weights),
}

impl Statistics<'_> {
    /// Length of a statistics vector.
    pub fn len(&self) -> usize {
        match self {
            Statistics::Classes(classes) => classes.len(),
            Statistics::Sums(vectors) => vectors.len,
            Statistics::Rows(evaluator, _) => evaluator.n_stats(),
        }
    }

    /// Whether statistics vectors are empty (never).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pinball loss and the weights of statistics evaluated by one
    /// ([`RowEvaluator::as_pinball`]).
    pub fn pinball(&self) -> Option<(&Pinball, &Weights)> {
        match self {
            Statistics::Rows(evaluator, weights) => Some((evaluator.as_pinball()?, weights)),
            _ => None,
        }
    }

    /// Whether a node's statistics are the sum of its children's.
    pub fn additive(&self) -> bool {
        !matches!(self, Statistics::Rows(..))
    }

    /// The total weight of the rows a statistics vector describes.
    pub fn weight(&self, stats: &[f64]) -> f64 {
        match self {
            Statistics::Classes(_) => stats.iter().sum(),
            _ => stats[0],
        }
    }

    /// Writes the statistics of one row into `out`; false (and nothing written) where they
    /// are not additive.
    #[inline]
    pub fn of_row(&self, row: usize, out: &mut [f64]) -> bool {
        match self {
            Statistics::Classes(classes) => {
                out.fill(0.0);
                out[classes.data.labels()[row] as usize] = classes.weights.of(row);
            }
            Statistics::Sums(vectors) => out.copy_from_slice(vectors.of(row)),
            Statistics::Rows(..) => return false,
        }
        true
    }

    /// Writes the statistics of `cover ∧ mask` into `out` and returns its row count.
    pub fn count(&self, cover: &Cover, mask: Option<&[u64]>, out: &mut [f64]) -> u32 {
        match self {
            Statistics::Classes(classes) => classes.count(cover, mask, out),
            Statistics::Sums(vectors) => {
                out.fill(0.0);
                let mut rows = 0;
                for_each_row(cover, mask, |row| {
                    rows += 1;
                    out.iter_mut()
                        .zip(vectors.of(row))
                        .for_each(|(o, v)| *o += v);
                });
                rows
            }
            Statistics::Rows(evaluator, weights) => {
                let mut rows = Vec::new();
                for_each_row(cover, mask, |row| rows.push(row as u32));
                evaluator.evaluate(&rows, weights, out);
                rows.len() as u32
            }
        }
    }
}

/// Calls `visit` with every row of `cover ∧ mask`, in increasing order.
fn for_each_row(cover: &Cover, mask: Option<&[u64]>, mut visit: impl FnMut(usize)) {
    let words = cover.words();
    for &w in cover.word_indices() {
        let w = w as usize;
        let t = mask.map_or(words[w], |m| words[w] & m[w]);
        for b in bits_of(t) {
            visit(w * 64 + b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_pick_the_compact_form_and_validate() {
        assert_eq!(Weights::new(None, 3).unwrap().uniform(), Some(1.0));
        let zero_first = Weights::new(Some(&[0.0, 2.0, 2.0]), 3).unwrap();
        assert_eq!(zero_first.uniform(), Some(2.0));
        assert_eq!((zero_first.of(0), zero_first.of(1)), (0.0, 2.0));
        assert_eq!(zero_first.support(), &[0b110]);
        assert_eq!(Weights::new(Some(&[1.0, 2.0]), 2).unwrap().uniform(), None);
        assert!(Weights::new(Some(&[0.0, 0.0]), 2).is_err());
        assert!(Weights::new(Some(&[-1.0, 1.0]), 2).is_err());
        assert!(Weights::new(Some(&[f64::NAN, 1.0]), 2).is_err());
        assert!(Weights::new(Some(&[1.0]), 2).is_err());
        assert!(Weights::new(Some(&[f64::MAX, f64::MAX]), 2).is_err());
    }

    #[test]
    fn uniform_and_per_row_counts_agree() {
        let x = [1u8, 0, 1, 1, 0, 1];
        let labels = [0, 1, 2, 1, 0, 2];
        let data = Dataset::new(&x, 6, &labels, 3).unwrap();
        let uniform = Weights::new(Some(&[2.0; 6]), 6).unwrap();
        let per_row = Weights::new(Some(&[2.0, 2.0, 2.0, 2.0, 2.0, 2.000001]), 6).unwrap();
        let mask = data.item_mask(crate::data::item(0, true)).to_vec();
        let cover = Cover::new(uniform.support());
        let (mut a, mut b) = (vec![0.0; 3], vec![0.0; 3]);
        let rows_a = ClassWeights::new(&data, &uniform).count(&cover, Some(&mask), &mut a);
        let rows_b = ClassWeights::new(&data, &per_row).count(&cover, Some(&mask), &mut b);
        assert_eq!((rows_a, rows_b), (4, 4));
        assert_eq!(a, vec![2.0, 2.0, 4.0]);
        assert!(a.iter().zip(&b).all(|(a, b)| (a - b).abs() < 1e-5));
    }
}
