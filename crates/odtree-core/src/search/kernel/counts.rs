//! Pair counts of two-class data with unit weights, kept up to date incrementally (MurTree
//! §4.3.3, spec §2.7).
//!
//! A [`PairCounts`] holds, for the rows it has counted, the number of rows and of class-1 rows
//! in which both features i and j are 1, for every pair (the diagonal holds single features).
//! The matrix is stored in full (both orientations) so that a root's row is contiguous.
//!
//! Moving the counts to a new set of rows costs either a full recount with popcounts over the
//! rows' words, or one update per row in the symmetric difference, over the pairs of that
//! row's features. [`Counters`] keeps two count sets (a depth-3 node's left and right children
//! each follow one) and moves the cheaper one.

use crate::bitset::bits_of;
use crate::budget::Budget;
use crate::cover::Cover;
use crate::data::{item, Dataset};

/// Pair counts of one set of rows.
#[derive(Debug, Default)]
pub(crate) struct PairCounts {
    /// The counted rows, dense (one word per 64 rows).
    rows: Vec<u64>,
    /// `both[i * n + j]`: rows with features i and j both 1.
    pub both: Vec<i32>,
    /// `ones[i * n + j]`: class-1 rows with features i and j both 1.
    pub ones: Vec<i32>,
    /// Whether the counts are those of `rows` (false after a recount the budget cut short).
    valid: bool,
}

/// The features of every row that are 1 (in increasing order), for incremental updates.
#[derive(Debug, Default)]
struct RowFeatures {
    features: Vec<u32>,
    starts: Vec<u32>,
}

impl RowFeatures {
    /// The lists of `data`, filled feature by feature from the columns' bits.
    fn new(data: &Dataset) -> Self {
        let n_rows = data.n_rows();
        let column = |f: u32| data.item_mask(item(f, true));
        let mut starts = vec![0u32; n_rows + 1];
        for f in 0..data.n_features() as u32 {
            for (w, &word) in column(f).iter().enumerate() {
                for b in bits_of(word) {
                    starts[w * 64 + b + 1] += 1;
                }
            }
        }
        for row in 0..n_rows {
            starts[row + 1] += starts[row];
        }
        let mut next = starts.clone();
        let mut features = vec![0u32; starts[n_rows] as usize];
        for f in 0..data.n_features() as u32 {
            for (w, &word) in column(f).iter().enumerate() {
                for b in bits_of(word) {
                    let at = &mut next[w * 64 + b];
                    features[*at as usize] = f;
                    *at += 1;
                }
            }
        }
        Self { features, starts }
    }

    /// The features that are 1 in `row`.
    fn of(&self, row: usize) -> &[u32] {
        &self.features[self.starts[row] as usize..self.starts[row + 1] as usize]
    }
}

/// The average number of features that are 1 in a row of `data`.
fn features_per_row(data: &Dataset) -> f64 {
    let ones: u64 = (0..data.n_features() as u32)
        .flat_map(|f| data.item_mask(item(f, true)))
        .map(|w| w.count_ones() as u64)
        .sum();
    ones as f64 / data.n_rows().max(1) as f64
}

/// Writes the rows of `cover` into `dense` (one word per 64 rows), and returns which of two
/// sets of rows (`None`: a set that cannot be moved) is nearer to them, and by how many rows
/// each differs (infinitely many for `None`).
pub(super) fn nearer(
    cover: &Cover,
    dense: &mut [u64],
    sets: [Option<&[u64]>; 2],
) -> (usize, [f64; 2]) {
    dense.fill(0);
    for (w, word) in cover.pairs() {
        dense[w as usize] = word;
    }
    let differences = sets.map(|rows| {
        rows.map_or(f64::INFINITY, |rows| {
            (rows.iter().zip(&*dense))
                .map(|(a, b)| (a ^ b).count_ones() as f64)
                .sum::<f64>()
        })
    });
    (usize::from(differences[1] < differences[0]), differences)
}

/// Two pair-count sets and what moving them costs.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    sets: [PairCounts; 2],
    /// Built on the first incremental update.
    row_features: Option<RowFeatures>,
    /// Average number of features per row, squared: the cost of updating one row.
    update_cost: f64,
    /// The rows of the current cover, dense.
    dense: Vec<u64>,
    /// Features' words restricted to the cover (full recount scratch).
    gathered: Vec<u64>,
    incremental: bool,
    n_features: usize,
}

impl Counters {
    /// Counters over `data`; `incremental` allows updates by row differences.
    pub fn new(data: &Dataset, incremental: bool) -> Self {
        let n = data.n_features();
        let m = features_per_row(data);
        let empty = || PairCounts {
            rows: vec![0; data.n_words()],
            both: vec![0; n * n],
            ones: vec![0; n * n],
            valid: true,
        };
        Self {
            sets: [empty(), empty()],
            row_features: None,
            update_cost: m * m,
            dense: vec![0; data.n_words()],
            gathered: Vec::new(),
            incremental,
            n_features: n,
        }
    }

    /// The pair counts of the rows of `cover`, or `None` if the budget ran out first (the
    /// counts then stay consistent with the rows they claim, or are marked for a recount).
    pub fn count(
        &mut self,
        data: &Dataset,
        cover: &Cover,
        budget: &mut Budget,
    ) -> Option<&PairCounts> {
        let sets = self
            .sets
            .each_ref()
            .map(|set| set.valid.then_some(&set.rows[..]));
        let (nearer, differences) = nearer(cover, &mut self.dense, sets);
        let n = self.n_features as f64;
        let recount = n * (n + 1.0) / 2.0 * cover.word_indices().len() as f64;
        let update = differences[nearer] * self.update_cost;
        let s = if self.incremental && update < recount {
            self.update(data, nearer, budget);
            nearer
        } else {
            // the farther set follows the new rows; the nearer one stays for its side
            self.recount(data, cover, 1 - nearer, budget);
            1 - nearer
        };
        (budget.stopped().is_none()).then_some(&self.sets[s])
    }

    /// Moves set `s` to the current rows by adding and removing the rows that differ, one
    /// word of rows at a time (a stop leaves the counts those of the rows recorded so far).
    fn update(&mut self, data: &Dataset, s: usize, budget: &mut Budget) {
        let n = self.n_features;
        let classes = data.class_masks();
        let set = &mut self.sets[s];
        let features = self
            .row_features
            .get_or_insert_with(|| RowFeatures::new(data));
        for (w, (old, new)) in set.rows.iter_mut().zip(&self.dense).enumerate() {
            let changed = *old ^ *new;
            if changed == 0 {
                continue;
            }
            if budget.exhausted(false) {
                return;
            }
            let class1 = classes[w * 2 + 1];
            for b in bits_of(changed) {
                let row = w * 64 + b;
                let sign = if *new >> b & 1 == 1 { 1 } else { -1 };
                let one = sign * (class1 >> b & 1) as i32;
                let list = features.of(row);
                for &i in list {
                    let (both, ones) = (
                        &mut set.both[i as usize * n..(i as usize + 1) * n],
                        &mut set.ones[i as usize * n..(i as usize + 1) * n],
                    );
                    for &j in list {
                        both[j as usize] += sign;
                        ones[j as usize] += one;
                    }
                }
            }
            *old = *new;
        }
    }

    /// Recounts set `s` from scratch with popcounts over the cover's non-zero words.
    fn recount(&mut self, data: &Dataset, cover: &Cover, s: usize, budget: &mut Budget) {
        let n = self.n_features;
        let indices = cover.word_indices();
        self.gathered.clear();
        for f in 0..n as u32 {
            cover.restrict_into(data.item_mask(item(f, true)), &mut self.gathered);
        }
        let classes = data.class_masks();
        let class1: Vec<u64> = indices
            .iter()
            .map(|&w| classes[w as usize * 2 + 1])
            .collect();
        let set = &mut self.sets[s];
        set.valid = count_all_pairs(
            &self.gathered,
            &class1,
            n,
            &mut set.both,
            &mut set.ones,
            budget,
        );
        set.rows.copy_from_slice(&self.dense);
    }
}

/// Writes the counts of every pair of the `n` features whose words (restricted to the rows)
/// are `gathered[f * k..]`, with `class1` the class-1 mask of those words. (Scalar popcounts:
/// an AVX2 version measured slower on short word lists.) Returns false if the budget ran
/// out first, leaving the counts partial.
fn count_all_pairs(
    gathered: &[u64],
    class1: &[u64],
    n: usize,
    both: &mut [i32],
    ones: &mut [i32],
    budget: &mut Budget,
) -> bool {
    let k = class1.len();
    let mut ones_i = vec![0u64; k];
    for i in 0..n {
        if budget.exhausted(false) {
            return false;
        }
        let gi = &gathered[i * k..(i + 1) * k];
        for (o, (&g, &c)) in ones_i.iter_mut().zip(gi.iter().zip(class1)) {
            *o = g & c;
        }
        for j in i..n {
            let gj = &gathered[j * k..(j + 1) * k];
            let count =
                |a: &[u64]| -> u32 { a.iter().zip(gj).map(|(x, y)| (x & y).count_ones()).sum() };
            let (b, o) = (count(gi) as i32, count(&ones_i) as i32);
            both[i * n + j] = b;
            both[j * n + i] = b;
            ones[i * n + j] = o;
            ones[j * n + i] = o;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn incremental_counts_match_a_recount(
            x in prop::collection::vec(0u8..=1, 70 * 4),
            y in prop::collection::vec(0u32..2, 70),
            start in any::<[u64; 2]>(),
            flips in prop::collection::vec(prop::collection::vec(0usize..70, 1..4), 1..8),
        ) {
            let data = Dataset::new(&x, 70, &y, 2).unwrap();
            let mut incremental = Counters::new(&data, true);
            let mut fresh = Counters::new(&data, false);
            let root = [u64::MAX, (1 << 6) - 1];
            let mut mask = start;
            // a few rows change from one cover to the next, so updates are the cheaper move
            for step in &flips {
                for &row in step {
                    mask[row / 64] ^= 1 << (row % 64);
                }
                let mut cover = Cover::new(&root);
                cover.intersect(&mask);
                let mut budget = Budget::default();
                let a = incremental.count(&data, &cover, &mut budget).unwrap();
                let (both, ones) = (a.both.clone(), a.ones.clone());
                let b = fresh.count(&data, &cover, &mut budget).unwrap();
                prop_assert_eq!(&both, &b.both);
                prop_assert_eq!(&ones, &b.ones);
                // the diagonal counts single features
                for f in 0..4u32 {
                    let rows = cover.rows().iter().filter(|&&r| data.value(r as usize, f)).count();
                    prop_assert_eq!(both[f as usize * 4 + f as usize] as usize, rows);
                }
            }
        }
    }
}
