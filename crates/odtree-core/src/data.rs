//! The binary dataset as vertical bitsets: one mask per item (feature = 0 or 1) and per class.

use crate::bitset::words_for;
use crate::error::{OdtError, Result};

/// A test on one feature: `2 * feature + value`, where value 1 means "the feature is 1".
pub type Item = u32;

/// The item testing `feature == value`.
#[inline]
pub fn item(feature: u32, value: bool) -> Item {
    2 * feature + value as u32
}

/// The feature an item tests.
#[inline]
pub fn item_feature(item: Item) -> u32 {
    item / 2
}

/// Binary features and class labels, stored column-wise as bitsets over rows.
#[derive(Clone, Debug)]
pub struct Dataset {
    n_rows: usize,
    n_features: usize,
    n_classes: usize,
    n_words: usize,
    /// `item_masks[item * n_words..]`: the rows satisfying each item; padding bits are zero.
    item_masks: Vec<u64>,
    /// `class_masks[word * n_classes + class]`: interleaved so one row-word's classes are adjacent.
    class_masks: Vec<u64>,
    labels: Vec<u32>,
}

impl Dataset {
    /// The most classes a dataset may have (each takes a bitset over the rows).
    pub const MAX_CLASSES: usize = 1 << 20;

    /// Builds the bitsets from a row-major 0/1 matrix of `n_rows × n_features` and class labels
    /// in `0..n_classes`.
    pub fn new(features: &[u8], n_rows: usize, labels: &[u32], n_classes: usize) -> Result<Self> {
        if n_rows == 0 {
            return Err(OdtError::InvalidData("the dataset has no rows".into()));
        }
        if labels.len() != n_rows {
            return Err(OdtError::InvalidData(format!(
                "{} labels for {} rows",
                labels.len(),
                n_rows
            )));
        }
        if features.len() % n_rows != 0 {
            return Err(OdtError::InvalidData(
                "feature matrix size is not a multiple of n_rows".into(),
            ));
        }
        let n_features = features.len() / n_rows;
        if n_classes > Self::MAX_CLASSES {
            return Err(OdtError::InvalidData(format!(
                "at most {} classes are supported, got {n_classes}",
                Self::MAX_CLASSES
            )));
        }
        if n_classes == 0 || labels.iter().any(|&c| c as usize >= n_classes) {
            return Err(OdtError::InvalidData(format!(
                "labels must lie in 0..{n_classes}"
            )));
        }
        if let Some(v) = features.iter().find(|&&v| v > 1) {
            return Err(OdtError::InvalidData(format!(
                "features must be 0 or 1, found {v}"
            )));
        }
        let n_words = words_for(n_rows);
        let mut item_masks = vec![0u64; 2 * n_features * n_words];
        // 64 rows at a time: each feature's word is built in a small buffer (one pass over
        // each contiguous row, which vectorises), then stored in the feature's column
        let mut block = vec![0u64; n_features];
        for (word, rows) in features.chunks(64 * n_features.max(1)).enumerate() {
            block.fill(0);
            for (bit, values) in rows.chunks_exact(n_features.max(1)).enumerate() {
                for (slot, &v) in block.iter_mut().zip(values) {
                    *slot |= (v as u64) << bit;
                }
            }
            for (feature, &ones) in block.iter().enumerate() {
                item_masks[(2 * feature + 1) * n_words + word] = ones;
            }
        }
        // the rows where a feature is 0: the complement of its ones, within the rows
        let mut all_rows = vec![u64::MAX; n_words];
        if n_rows % 64 != 0 {
            all_rows[n_words - 1] = (1u64 << (n_rows % 64)) - 1;
        }
        for feature in 0..n_features {
            let (zeros, ones) = item_masks[2 * feature * n_words..(2 * feature + 2) * n_words]
                .split_at_mut(n_words);
            for ((zero, one), all) in zeros.iter_mut().zip(ones.iter()).zip(&all_rows) {
                *zero = !one & all;
            }
        }
        let mut class_masks = vec![0u64; n_words * n_classes];
        for (row, &label) in labels.iter().enumerate() {
            class_masks[(row / 64) * n_classes + label as usize] |= 1 << (row % 64);
        }
        Ok(Self {
            n_rows,
            n_features,
            n_classes,
            n_words,
            item_masks,
            class_masks,
            labels: labels.to_vec(),
        })
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of binary features.
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// Number of 64-bit words per row bitset.
    pub fn n_words(&self) -> usize {
        self.n_words
    }

    /// Rows satisfying `item`, one word per 64 rows.
    #[inline]
    pub fn item_mask(&self, item: Item) -> &[u64] {
        let start = item as usize * self.n_words;
        &self.item_masks[start..start + self.n_words]
    }

    /// Class masks, interleaved by word: `class_masks()[word * n_classes + class]`.
    #[inline]
    pub fn class_masks(&self) -> &[u64] {
        &self.class_masks
    }

    /// Class label of every row.
    pub fn labels(&self) -> &[u32] {
        &self.labels
    }

    /// The features worth branching on, in column order: one of each group of columns that
    /// split the rows alike (equal or complementary columns), and no constant column. A tree
    /// over all columns has a tree of the same cost over these, testing the kept column of the
    /// group (with its children swapped for a complement).
    pub fn distinct_features(&self) -> Vec<u32> {
        let mut seen = hashbrown::HashSet::new();
        let mut kept = Vec::new();
        for f in 0..self.n_features as u32 {
            let (ones, zeros) = (
                self.item_mask(item(f, true)),
                self.item_mask(item(f, false)),
            );
            if ones.iter().all(|&w| w == 0) || zeros.iter().all(|&w| w == 0) {
                continue;
            }
            // the same canonical form for a column and its complement: the one holding row 0
            let canonical = if ones[0] & 1 == 1 { ones } else { zeros };
            if seen.insert(canonical) {
                kept.push(f);
            }
        }
        kept
    }

    /// Per column, which of `kept` (the [`distinct_features`](Self::distinct_features))
    /// splits the rows alike, as its index in `kept` (`None`: a constant column), and whether
    /// the column is that one's complement.
    pub fn feature_groups(&self, kept: &[u32]) -> Vec<(Option<u32>, bool)> {
        // a column and its complement share the canonical form holding row 0
        let canonical = |f: u32| {
            let ones = self.item_mask(item(f, true));
            if ones[0] & 1 == 1 {
                (ones, true)
            } else {
                (self.item_mask(item(f, false)), false)
            }
        };
        let index: hashbrown::HashMap<&[u64], (u32, bool)> = kept
            .iter()
            .enumerate()
            .map(|(i, &f)| {
                let (form, row0) = canonical(f);
                (form, (i as u32, row0))
            })
            .collect();
        if self.n_words == 0 {
            return vec![(None, false); self.n_features];
        }
        (0..self.n_features as u32)
            .map(|f| {
                let (form, row0) = canonical(f);
                index.get(form).map_or((None, false), |&(i, kept_row0)| {
                    (Some(i), row0 != kept_row0)
                })
            })
            .collect()
    }

    /// The dataset of `features`, each a column and whether it is complemented (its two
    /// items swapped).
    pub fn with_oriented(&self, features: &[(u32, bool)]) -> Dataset {
        let n = self.n_words;
        let mut item_masks = Vec::with_capacity(2 * features.len() * n);
        for &(f, flipped) in features {
            item_masks.extend_from_slice(self.item_mask(item(f, flipped)));
            item_masks.extend_from_slice(self.item_mask(item(f, !flipped)));
        }
        Dataset {
            n_features: features.len(),
            item_masks,
            ..self.clone()
        }
    }

    /// The dataset restricted to `features` (feature i of the result is `features[i]`).
    pub fn with_features(&self, features: &[u32]) -> Dataset {
        let n = self.n_words;
        let mut item_masks = Vec::with_capacity(2 * features.len() * n);
        for &f in features {
            item_masks.extend_from_slice(self.item_mask(item(f, false)));
            item_masks.extend_from_slice(self.item_mask(item(f, true)));
        }
        Dataset {
            n_features: features.len(),
            item_masks,
            ..self.clone()
        }
    }

    /// Whether `row` has `feature` equal to 1.
    pub fn value(&self, row: usize, feature: u32) -> bool {
        self.item_mask(item(feature, true))[row / 64] >> (row % 64) & 1 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_match_the_matrix() {
        let x = [0u8, 1, 1, 1, 0, 0];
        let data = Dataset::new(&x, 3, &[0, 1, 1], 2).unwrap();
        assert_eq!(data.n_features(), 2);
        assert_eq!(data.item_mask(item(0, true))[0], 0b010);
        assert_eq!(data.item_mask(item(0, false))[0], 0b101);
        assert_eq!(data.item_mask(item(1, true))[0], 0b011);
        assert_eq!(data.class_masks()[1], 0b110);
        assert!(data.value(1, 0) && !data.value(2, 1));
    }

    #[test]
    fn distinct_features_drop_copies_complements_and_constants() {
        // columns: a, copy of a, constant, complement of a, b
        let x = [0u8, 0, 1, 1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1];
        let data = Dataset::new(&x, 3, &[0, 1, 1], 2).unwrap();
        assert_eq!(data.distinct_features(), vec![0, 4]);
        let reduced = data.with_features(&[0, 4]);
        assert_eq!(reduced.n_features(), 2);
        assert_eq!(
            reduced.item_mask(item(1, true)),
            data.item_mask(item(4, true))
        );
    }

    #[test]
    fn rejects_bad_input() {
        assert!(Dataset::new(&[], 0, &[], 2).is_err());
        assert!(Dataset::new(&[2], 1, &[0], 2).is_err());
        assert!(Dataset::new(&[1], 1, &[3], 2).is_err());
        assert!(Dataset::new(&[1, 0], 2, &[0], 2).is_err());
    }
}
