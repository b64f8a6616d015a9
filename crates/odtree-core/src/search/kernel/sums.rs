//! Pair statistics of weighted rows (class weights, a regression's moments), kept up to date
//! incrementally like the two-class counts of [`super::counts`] (MurTree §4.3.3; STreeD's
//! depth-two solver does the same for any additive statistics).
//!
//! A [`PairSums`] holds, for the rows it has summed and every pair of features i < j, the sum
//! of the statistics of the rows where both are 1, and their number. [`SumCounters`] keeps two
//! such sets (a depth-3 node's left and right children each follow one) and moves the cheaper
//! one to a new set of rows: by summing its rows afresh, or by adding and subtracting the rows
//! that differ. Sibling subproblems of thresholds of one column differ by a few rows, so most
//! moves are short.

use super::counts::{features_per_row, RowFeatures};
use crate::bitset::bits_of;
use crate::budget::Budget;
use crate::cover::Cover;
use crate::data::Dataset;

/// Summed moves after which a set is summed afresh, so that the rounding of the additions and
/// subtractions stays far below the search's tolerance.
const MOVES_BEFORE_RESUM: u32 = 256;

/// Pair statistics of one set of rows.
#[derive(Debug, Default)]
pub(crate) struct PairSums {
    /// The summed rows, dense (one word per 64 rows).
    rows: Vec<u64>,
    /// `cells[(i * n + j) * (len + 1)..]` for features i ≤ j: the statistics of the rows
    /// where both are 1, then the number of those rows (an integer, so exact).
    cells: Vec<f64>,
    /// The statistics' length.
    len: usize,
    n_features: usize,
    /// Whether the sums are those of `rows` (false after a summing the budget cut short).
    valid: bool,
    /// Moves by differences since the last summing afresh.
    moves: u32,
}

impl PairSums {
    /// The statistics of the rows where features `i` and `j` are both 1 (where `i` is 1 if
    /// they are the same), and the number of those rows.
    #[inline]
    pub fn of(&self, i: u32, j: u32) -> (&[f64], u32) {
        let (lo, hi) = (i.min(j) as usize, i.max(j) as usize);
        let at = (lo * self.n_features + hi) * (self.len + 1);
        let cell = &self.cells[at..at + self.len + 1];
        (&cell[..self.len], cell[self.len] as u32)
    }

    /// Adds `sign` times the statistics `row` of a row whose features are `list` to every
    /// pair of them, and `sign` to their numbers of rows.
    fn add_row(&mut self, list: &[u32], row: &[f64], sign: f64, delta: &mut Vec<f64>) {
        delta.clear();
        delta.extend(row.iter().map(|v| sign * v));
        delta.push(sign);
        let (cells, n) = (&mut self.cells[..], self.n_features);
        match delta.len() {
            3 => add_to_pairs::<3>(cells, n, list, delta),
            4 => add_to_pairs::<4>(cells, n, list, delta),
            5 => add_to_pairs::<5>(cells, n, list, delta),
            _ => add_to_pairs::<0>(cells, n, list, delta),
        }
    }
}

/// Adds `delta` to the cells of every pair of features of `list` (increasing), the pairs of a
/// feature with itself included, in a table of
/// `n` features by `n` whose cells are `delta.len()` long (`S` when known at compile time, 0
/// if not).
#[inline(always)]
fn add_to_pairs<const S: usize>(cells: &mut [f64], n: usize, list: &[u32], delta: &[f64]) {
    let stride = if S == 0 { delta.len() } else { S };
    for (a, &i) in list.iter().enumerate() {
        let base = i as usize * n;
        for &j in &list[a..] {
            let at = (base + j as usize) * stride;
            let cell = &mut cells[at..at + stride];
            for c in 0..stride {
                cell[c] += delta[c];
            }
        }
    }
}

/// Two pair-sum sets and what moving them costs.
#[derive(Debug)]
pub(crate) struct SumCounters {
    sets: [PairSums; 2],
    row_features: RowFeatures,
    /// The rows of the current cover, dense.
    dense: Vec<u64>,
    /// One row's statistics, and what they add to a cell.
    row: Vec<f64>,
    delta: Vec<f64>,
    /// Average number of features per row.
    per_row: f64,
    incremental: bool,
}

impl SumCounters {
    /// Bytes the sums of `n_features` features with statistics of `len` numbers take, both
    /// sets together.
    pub fn bytes(n_features: usize, len: usize) -> usize {
        2 * n_features * n_features * (len + 1) * std::mem::size_of::<f64>()
    }

    /// Counters over `data` for statistics of `len` numbers; `incremental` allows moves by
    /// row differences.
    pub fn new(data: &Dataset, len: usize, incremental: bool) -> Self {
        let n = data.n_features();
        let empty = || PairSums {
            rows: vec![0; data.n_words()],
            cells: vec![0.0; n * n * (len + 1)],
            len,
            n_features: n,
            valid: true,
            moves: 0,
        };
        Self {
            sets: [empty(), empty()],
            row_features: RowFeatures::new(data),
            dense: vec![0; data.n_words()],
            row: vec![0.0; len],
            delta: Vec::with_capacity(len + 1),
            per_row: features_per_row(data),
            incremental,
        }
    }

    /// The pair sums of the rows of `cover`, where `contribution(row, out)` writes the
    /// statistics of one row; `None` if the budget ran out first.
    pub fn sum(
        &mut self,
        cover: &Cover,
        contribution: impl Fn(usize, &mut [f64]),
        budget: &mut Budget,
    ) -> Option<&PairSums> {
        self.dense.fill(0);
        for (w, word) in cover.pairs() {
            self.dense[w as usize] = word;
        }
        let differences = self.sets.each_ref().map(|set| {
            if !set.valid || set.moves >= MOVES_BEFORE_RESUM {
                return f64::INFINITY;
            }
            set.rows
                .iter()
                .zip(&self.dense)
                .map(|(a, b)| (a ^ b).count_ones() as f64)
                .sum::<f64>()
        });
        let nearer = usize::from(differences[1] < differences[0]);
        // a row costs about per_row² / 2 pair updates either way; summing afresh also clears
        // the table
        let pairs_per_row = (self.per_row * self.per_row / 2.0).max(1.0);
        let n = self.sets[0].n_features as f64;
        let afresh = f64::from(cover.count()) * pairs_per_row + n * n / 2.0;
        let s = if self.incremental && differences[nearer] * pairs_per_row < afresh {
            self.move_by_differences(nearer, contribution, budget);
            nearer
        } else {
            // the farther set follows the new rows; the nearer one stays for its side
            self.sum_afresh(1 - nearer, contribution, budget);
            1 - nearer
        };
        (budget.stopped().is_none()).then_some(&self.sets[s])
    }

    /// Moves set `s` to the current rows by adding and subtracting the rows that differ, one
    /// word of rows at a time (a stop leaves the sums those of the rows recorded so far).
    fn move_by_differences(
        &mut self,
        s: usize,
        contribution: impl Fn(usize, &mut [f64]),
        budget: &mut Budget,
    ) {
        let set = &mut self.sets[s];
        set.moves += 1;
        let mut rows = std::mem::take(&mut set.rows);
        for (w, (old, new)) in rows.iter_mut().zip(&self.dense).enumerate() {
            let changed = *old ^ *new;
            if changed == 0 {
                continue;
            }
            if budget.exhausted(false) {
                break;
            }
            for b in bits_of(changed) {
                let row = w * 64 + b;
                let sign = if *new >> b & 1 == 1 { 1.0 } else { -1.0 };
                contribution(row, &mut self.row);
                set.add_row(self.row_features.of(row), &self.row, sign, &mut self.delta);
            }
            *old = *new;
        }
        set.rows = rows;
    }

    /// Sums set `s` afresh over the current rows.
    fn sum_afresh(
        &mut self,
        s: usize,
        contribution: impl Fn(usize, &mut [f64]),
        budget: &mut Budget,
    ) {
        let set = &mut self.sets[s];
        set.cells.fill(0.0);
        set.rows.copy_from_slice(&self.dense);
        set.moves = 0;
        set.valid = false;
        for (w, &word) in self.dense.iter().enumerate() {
            if word == 0 {
                continue;
            }
            if budget.exhausted(false) {
                return;
            }
            for b in bits_of(word) {
                let row = w * 64 + b;
                contribution(row, &mut self.row);
                set.add_row(self.row_features.of(row), &self.row, 1.0, &mut self.delta);
            }
        }
        set.valid = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Sets moved by row differences hold the sums of their rows, as a set summed afresh
        /// does, for every pair of features.
        #[test]
        fn moved_sums_match_sums_afresh(
            x in prop::collection::vec(0u8..=1, 70 * 4),
            values in prop::collection::vec(-5.0f64..5.0, 70 * 3),
            start in any::<[u64; 2]>(),
            flips in prop::collection::vec(prop::collection::vec(0usize..70, 1..4), 1..8),
        ) {
            let data = Dataset::new(&x, 70, &[0; 70], 1).unwrap();
            let contribution =
                |row: usize, out: &mut [f64]| out.copy_from_slice(&values[row * 3..row * 3 + 3]);
            let mut moved = SumCounters::new(&data, 3, true);
            let mut afresh = SumCounters::new(&data, 3, false);
            let root = [u64::MAX, (1 << 6) - 1];
            let mut mask = start;
            for step in &flips {
                for &row in step {
                    mask[row / 64] ^= 1 << (row % 64);
                }
                let mut cover = Cover::new(&root);
                cover.intersect(&mask);
                let mut budget = Budget::default();
                let a: Vec<(Vec<f64>, u32)> = {
                    let sums = moved.sum(&cover, contribution, &mut budget).unwrap();
                    (0..4u32).flat_map(|i| (i + 1..4).map(move |j| (i, j)))
                        .map(|(i, j)| (sums.of(i, j).0.to_vec(), sums.of(j, i).1))
                        .collect()
                };
                let sums = afresh.sum(&cover, contribution, &mut budget).unwrap();
                let pairs = (0..4u32).flat_map(|i| (i + 1..4).map(move |j| (i, j)));
                for ((i, j), (stats, rows)) in pairs.zip(&a) {
                    let both: Vec<u32> = cover.rows().iter().copied()
                        .filter(|&r| data.value(r as usize, i) && data.value(r as usize, j))
                        .collect();
                    prop_assert_eq!(*rows as usize, both.len());
                    prop_assert_eq!(sums.of(i, j).1 as usize, both.len());
                    for c in 0..3 {
                        let exact: f64 = both.iter().map(|&r| values[r as usize * 3 + c]).sum();
                        prop_assert!((stats[c] - exact).abs() < 1e-9);
                        prop_assert!((sums.of(i, j).0[c] - exact).abs() < 1e-9);
                    }
                }
            }
        }
    }
}
