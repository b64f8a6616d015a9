//! Pair statistics of weighted rows (class weights, a regression's moments), kept up to date
//! incrementally like the two-class counts of [`super::counts`] (MurTree §4.3.3; STreeD's
//! depth-two solver does the same for any additive statistics), and counted by chains of
//! nested features.
//!
//! **Chains.** The thresholds of one numeric column, `x ≤ t₁ ⊂ x ≤ t₂ ⊂ …`, are nested: a
//! row is in a suffix of them, so it enters the chain at one feature. The sums are kept per
//! pair of entry features (a row adds to one cell per pair of chains it is in, not to one per
//! pair of features it has: 55 cells, not 1,275, for a row of ten columns of ten thresholds),
//! and the sums of a pair of features are the two-dimensional prefix sum over the entries
//! of their chains. Features nested in no other are chains of their own, where the two agree.
//!
//! **Moves.** A [`SumCounters`] keeps two sets of sums (a depth-3 node's left and right
//! children each follow one) and moves the cheaper one to a new set of rows: by summing its
//! rows afresh, or by adding and subtracting the rows that differ. Sibling subproblems of
//! thresholds of one column differ by a few rows, so most moves are short.

use super::counts::nearer;
use crate::bitset::bits_of;
use crate::budget::Budget;
use crate::cover::Cover;
use crate::data::{item, Dataset};

/// Summed moves after which a set is summed afresh, so that the rounding of the additions and
/// subtractions stays far below the search's tolerance.
const MOVES_BEFORE_RESUM: u32 = 256;

/// Features grouped into chains of nested features, numbered chain after chain (each chain
/// from its smallest feature), and each row's entry into each chain it is in.
#[derive(Debug)]
struct Chains {
    /// `rank[f]`: feature f's number.
    rank: Vec<u32>,
    /// `feature[r]`: the feature of number r.
    feature: Vec<u32>,
    /// `chain[r]`: the chain of number r.
    chain: Vec<u32>,
    /// The numbers of the features each row enters its chains at, increasing:
    /// `entries[starts[row]..starts[row + 1]]`.
    entries: Vec<u32>,
    starts: Vec<u32>,
}

impl Chains {
    /// The chains of `data`: each feature, from the fewest rows to the most, ends the first
    /// chain whose last feature it holds, else starts one.
    fn new(data: &Dataset) -> Self {
        let n = data.n_features();
        let column = |f: usize| data.item_mask(item(f as u32, true));
        let count = |f: usize| column(f).iter().map(|w| w.count_ones()).sum::<u32>();
        let mut by_size: Vec<usize> = (0..n).collect();
        by_size.sort_by_key(|&f| (count(f), f));
        let mut chains: Vec<Vec<usize>> = Vec::new();
        for f in by_size {
            let holds = |last: usize| column(last).iter().zip(column(f)).all(|(a, b)| a & !b == 0);
            match chains
                .iter_mut()
                .find(|chain| holds(chain[chain.len() - 1]))
            {
                Some(chain) => chain.push(f),
                None => chains.push(vec![f]),
            }
        }
        let mut rank = vec![0u32; n];
        let mut feature = Vec::with_capacity(n);
        let mut chain_of = Vec::with_capacity(n);
        for (c, chain) in chains.iter().enumerate() {
            for &f in chain {
                rank[f] = chain_of.len() as u32;
                feature.push(f as u32);
                chain_of.push(c as u32);
            }
        }
        // a row enters a chain at its smallest feature holding the row; chains in order
        // give each row's entries in increasing order
        let n_rows = data.n_rows();
        let entering = |chain: &[usize], mut visit: Box<dyn FnMut(usize, u32) + '_>| {
            let mut entered = vec![0u64; data.n_words()];
            for &f in chain {
                for (w, (&word, seen)) in column(f).iter().zip(entered.iter_mut()).enumerate() {
                    for b in bits_of(word & !*seen) {
                        visit(w * 64 + b, rank[f]);
                    }
                    *seen |= word;
                }
            }
        };
        let mut starts = vec![0u32; n_rows + 1];
        for chain in &chains {
            entering(chain, Box::new(|row, _| starts[row + 1] += 1));
        }
        for row in 0..n_rows {
            starts[row + 1] += starts[row];
        }
        let mut next = starts.clone();
        let mut entries = vec![0u32; starts[n_rows] as usize];
        for chain in &chains {
            entering(
                chain,
                Box::new(|row, number| {
                    entries[next[row] as usize] = number;
                    next[row] += 1;
                }),
            );
        }
        Self {
            rank,
            feature,
            chain: chain_of,
            entries,
            starts,
        }
    }

    /// Whether number `r` continues the chain of number r − 1.
    #[inline]
    fn continues(&self, r: usize) -> bool {
        r > 0 && self.chain[r - 1] == self.chain[r]
    }

    /// The numbers of the features `row` enters its chains at, increasing.
    fn of(&self, row: usize) -> &[u32] {
        &self.entries[self.starts[row] as usize..self.starts[row + 1] as usize]
    }

    /// The average number of chains a row is in.
    fn per_row(&self) -> f64 {
        self.entries.len() as f64 / (self.starts.len() - 1).max(1) as f64
    }
}

/// Sums of one set of rows by pair of entry features.
#[derive(Debug, Default)]
struct EntrySums {
    /// The summed rows, dense (one word per 64 rows).
    rows: Vec<u64>,
    /// `cells[(a * n + b) * (len + 1)..]` for feature numbers a ≤ b: the statistics of the
    /// rows entering their chains at both, then the number of those rows (an integer, so
    /// exact).
    cells: Vec<f64>,
    /// Whether the sums are those of `rows` (false after a summing the budget cut short).
    valid: bool,
    /// Moves by differences since the last summing afresh.
    moves: u32,
}

/// The statistics of every feature and every pair of features within a set of rows.
pub(crate) struct KeptSums<'a> {
    /// The set's sums by pair of entry features.
    entry: &'a [f64],
    /// Each feature's sums and number of rows, column by column: `diagonal[c * n + a]` for
    /// number a.
    diagonal: &'a [f64],
    /// One row of the sums by pair of features, column by column like `diagonal`, as
    /// [`for_each_row`](Self::for_each_row) goes.
    running: &'a mut [f64],
    chains: &'a Chains,
    len: usize,
}

/// The sums of one feature number a with every later number b > a, column by column: what
/// [`KeptSums::for_each_row`] hands over.
pub(crate) struct RowSums<'a> {
    /// `running[c * n + b]`: statistic c of the rows where both a and b are 1 (c = len: the
    /// number of those rows).
    running: &'a [f64],
    diagonal: &'a [f64],
    feature: &'a [u32],
    n: usize,
    a: usize,
}

impl RowSums<'_> {
    /// Statistic `c` (c = len: the number of rows) of the rows where a and b are both 1, for
    /// b = a + 1, a + 2, ….
    #[inline]
    pub fn pairs(&self, c: usize) -> &[f64] {
        &self.running[c * self.n + self.a + 1..(c + 1) * self.n]
    }

    /// Statistic `c` (c = len: the number of rows) of the rows where b is 1, for b = a + 1,
    /// a + 2, ….
    #[inline]
    pub fn singles(&self, c: usize) -> &[f64] {
        &self.diagonal[c * self.n + self.a + 1..(c + 1) * self.n]
    }

    /// The features of numbers a + 1, a + 2, ….
    #[inline]
    pub fn features(&self) -> &[u32] {
        &self.feature[self.a + 1..]
    }
}

impl KeptSums<'_> {
    /// The features by number.
    pub fn features(&self) -> &[u32] {
        &self.chains.feature
    }

    /// Writes into `out` the statistics of the rows where feature `f` is 1, and returns the
    /// number of those rows.
    #[inline]
    pub fn single(&self, f: u32, out: &mut [f64]) -> u32 {
        let (a, n) = (
            self.chains.rank[f as usize] as usize,
            self.chains.rank.len(),
        );
        for (c, value) in out.iter_mut().enumerate() {
            *value = self.diagonal[c * n + a];
        }
        self.diagonal[self.len * n + a] as u32
    }

    /// Calls `visit(f, row)` for every feature f not `skip`ped (`skip(f)` true), with the
    /// sums of f's number a with every later number ([`RowSums`]): every pair of distinct
    /// features once. Returns false if the budget ran out first.
    ///
    /// The sums of a pair of numbers a < b are the two-dimensional prefix sum of the entry
    /// sums over their chains: one row of them, a's, is kept, and made from the row before
    /// (when a continues its chain) and the running sum of the entry sums along b.
    pub fn for_each_row(
        &mut self,
        budget: &mut Budget,
        skip: impl Fn(u32) -> bool,
        mut visit: impl FnMut(u32, RowSums<'_>),
    ) -> bool {
        let (chains, len) = (self.chains, self.len);
        let (n, stride) = (chains.rank.len(), len + 1);
        let running = &mut *self.running;
        for a in 0..n {
            if budget.exhausted(false) {
                return false;
            }
            let entry = &self.entry[a * n * stride..(a + 1) * n * stride];
            match stride {
                3 => prefix_row::<3>(entry, running, chains, a, stride),
                4 => prefix_row::<4>(entry, running, chains, a, stride),
                5 => prefix_row::<5>(entry, running, chains, a, stride),
                _ => prefix_row::<0>(entry, running, chains, a, stride),
            }
            let f = chains.feature[a];
            if !skip(f) {
                visit(
                    f,
                    RowSums {
                        running,
                        diagonal: self.diagonal,
                        feature: &chains.feature,
                        n,
                        a,
                    },
                );
            }
        }
        true
    }
}

/// Makes number a's row of pair sums (`running[c * n + b]` for b ≥ a, from the row of
/// number a − 1 where a continues its chain) from a's `entry` sums (`entry[b * stride + c]`):
/// the entry sums' running sum along b within each chain, plus the row before. `S` is the
/// stride when known at compile time (0 if not).
#[inline(always)]
fn prefix_row<const S: usize>(
    entry: &[f64],
    running: &mut [f64],
    chains: &Chains,
    a: usize,
    stride: usize,
) {
    let stride = if S == 0 { stride } else { S };
    let n = chains.rank.len();
    let continues = chains.continues(a);
    // the running sums along b, in registers when the stride is known
    let (mut fixed, mut any) = ([0.0; S], Vec::new());
    let along: &mut [f64] = if S == 0 {
        any.resize(stride, 0.0);
        &mut any
    } else {
        &mut fixed
    };
    for b in a..n {
        let cells = &entry[b * stride..(b + 1) * stride];
        let chained = b > a && chains.continues(b);
        for c in 0..stride {
            along[c] = if chained {
                cells[c] + along[c]
            } else {
                cells[c]
            };
            let sum = &mut running[c * n + b];
            *sum = if continues { along[c] + *sum } else { along[c] };
        }
    }
}

/// Adds `delta` to the cells of every pair of the feature numbers of `list` (increasing), the
/// pairs of a number with itself included, in a table of `n` by `n` whose cells are
/// `delta.len()` long (`S` when known at compile time, 0 if not).
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

/// Two sets of sums, what moving them costs, and the buffers their reading uses.
#[derive(Debug)]
pub(crate) struct SumCounters {
    sets: [EntrySums; 2],
    chains: Chains,
    /// Each feature's sums within the set last read, by number, column by column.
    diagonal: Vec<f64>,
    /// The buffer of [`KeptSums::for_each_row`]: one row of pair sums.
    running: Vec<f64>,
    /// The rows of the current cover, dense.
    dense: Vec<u64>,
    /// One row's statistics, and what they add to a cell.
    row: Vec<f64>,
    delta: Vec<f64>,
    n_features: usize,
    len: usize,
    incremental: bool,
}

impl SumCounters {
    /// Bytes the sums of `n_features` features with statistics of `len` numbers take: two
    /// sets.
    pub fn bytes(n_features: usize, len: usize) -> usize {
        2 * n_features * n_features * (len + 1) * std::mem::size_of::<f64>()
    }

    /// Counters over `data` for statistics of `len` numbers; `incremental` allows moves by
    /// row differences.
    pub fn new(data: &Dataset, len: usize, incremental: bool) -> Self {
        let n = data.n_features();
        let chains = Chains::new(data);
        let empty = || EntrySums {
            rows: vec![0; data.n_words()],
            cells: vec![0.0; n * n * (len + 1)],
            valid: true,
            moves: 0,
        };
        Self {
            sets: [empty(), empty()],
            diagonal: vec![0.0; n * (len + 1)],
            running: vec![0.0; n * (len + 1)],
            chains,
            dense: vec![0; data.n_words()],
            row: vec![0.0; len],
            delta: Vec::with_capacity(len + 1),
            n_features: n,
            len,
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
    ) -> Option<KeptSums<'_>> {
        let sets = (self.sets.each_ref())
            .map(|set| (set.valid && set.moves < MOVES_BEFORE_RESUM).then_some(&set.rows[..]));
        let (nearer, differences) = nearer(cover, &mut self.dense, sets);
        // a row costs about per_row² / 2 pair updates either way; summing afresh also clears
        // the table
        let per_row = self.chains.per_row();
        let pairs_per_row = (per_row * per_row / 2.0).max(1.0);
        let n = self.n_features as f64;
        let afresh = f64::from(cover.count()) * pairs_per_row + n * n / 2.0;
        let s = if differences[nearer] == 0.0 {
            nearer
        } else if self.incremental && differences[nearer] * pairs_per_row < afresh {
            self.move_by_differences(nearer, contribution, budget);
            nearer
        } else {
            // the farther set follows the new rows; the nearer one stays for its side
            self.sum_afresh(1 - nearer, contribution, budget);
            1 - nearer
        };
        if budget.stopped().is_some() {
            return None;
        }
        // each feature's sums: within one chain a row enters once, so the cells off the
        // diagonal are 0 and a feature's sums are those of the entries up to it
        let (n, stride) = (self.n_features, self.len + 1);
        let entry = &self.sets[s].cells;
        for a in 0..n {
            let at = (a * n + a) * stride;
            for c in 0..stride {
                let here = entry[at + c];
                self.diagonal[c * n + a] = if self.chains.continues(a) {
                    here + self.diagonal[c * n + a - 1]
                } else {
                    here
                };
            }
        }
        Some(KeptSums {
            entry,
            diagonal: &self.diagonal,
            running: &mut self.running,
            chains: &self.chains,
            len: self.len,
        })
    }

    /// Adds `sign` times the statistics of `row` to set `s`.
    fn add_row(
        &mut self,
        s: usize,
        row: usize,
        sign: f64,
        contribution: &impl Fn(usize, &mut [f64]),
    ) {
        contribution(row, &mut self.row);
        self.delta.clear();
        self.delta.extend(self.row.iter().map(|v| sign * v));
        self.delta.push(sign);
        let (cells, n) = (&mut self.sets[s].cells[..], self.n_features);
        let (list, delta) = (self.chains.of(row), &self.delta[..]);
        match delta.len() {
            3 => add_to_pairs::<3>(cells, n, list, delta),
            4 => add_to_pairs::<4>(cells, n, list, delta),
            5 => add_to_pairs::<5>(cells, n, list, delta),
            _ => add_to_pairs::<0>(cells, n, list, delta),
        }
    }

    /// Moves set `s` to the current rows by adding and subtracting the rows that differ, one
    /// word of rows at a time (a stop leaves the sums those of the rows recorded so far).
    fn move_by_differences(
        &mut self,
        s: usize,
        contribution: impl Fn(usize, &mut [f64]),
        budget: &mut Budget,
    ) {
        self.sets[s].moves += 1;
        let mut rows = std::mem::take(&mut self.sets[s].rows);
        for (w, old) in rows.iter_mut().enumerate() {
            let new = self.dense[w];
            let changed = *old ^ new;
            if changed == 0 {
                continue;
            }
            if budget.exhausted(false) {
                break;
            }
            for b in bits_of(changed) {
                let sign = if new >> b & 1 == 1 { 1.0 } else { -1.0 };
                self.add_row(s, w * 64 + b, sign, &contribution);
            }
            *old = new;
        }
        self.sets[s].rows = rows;
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
        for w in 0..self.dense.len() {
            let word = self.dense[w];
            if word == 0 {
                continue;
            }
            if budget.exhausted(false) {
                return;
            }
            for b in bits_of(word) {
                self.add_row(s, w * 64 + b, 1.0, &contribution);
            }
        }
        self.sets[s].valid = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Sets moved by row differences hold the sums of their rows, as a set summed afresh
        /// does, for every pair of features: random ones, and thresholds of two columns
        /// (nested, so chained), in a shuffled order.
        #[test]
        fn moved_sums_match_sums_afresh(
            random in prop::collection::vec(0u8..=1, 70 * 2),
            numbers in prop::collection::vec(0u8..5, 70 * 2),
            order in Just((0..8usize).collect::<Vec<_>>()).prop_shuffle(),
            values in prop::collection::vec(-5.0f64..5.0, 70 * 3),
            start in any::<[u64; 2]>(),
            flips in prop::collection::vec(prop::collection::vec(0usize..70, 1..4), 1..8),
        ) {
            // columns 0-1 random, 2-4 "first number <= 0, 1, 2", 5-7 "second number <= 1, 2, 3"
            let column = |row: usize, c: usize| match c {
                0 | 1 => random[row * 2 + c],
                2..=4 => u8::from(numbers[row * 2] <= (c - 2) as u8),
                _ => u8::from(numbers[row * 2 + 1] <= (c - 4) as u8),
            };
            let x: Vec<u8> = (0..70)
                .flat_map(|row| order.iter().map(move |&c| (row, c)))
                .map(|(row, c)| column(row, c))
                .collect();
            let data = Dataset::new(&x, 70, &[0; 70], 1).unwrap();
            let n = 8u32;
            let contribution =
                |row: usize, out: &mut [f64]| out.copy_from_slice(&values[row * 3..row * 3 + 3]);
            let mut moved = SumCounters::new(&data, 3, true);
            let mut afresh = SumCounters::new(&data, 3, false);
            // each column's thresholds are nested: at least three to a chain
            prop_assert!(moved.chains.chain.iter().max() <= Some(&5));
            let root = [u64::MAX, (1 << 6) - 1];
            let mut mask = start;
            for step in &flips {
                for &row in step {
                    mask[row / 64] ^= 1 << (row % 64);
                }
                let mut cover = Cover::new(&root);
                cover.intersect(&mask);
                let mut budget = Budget::default();
                for counters in [&mut moved, &mut afresh] {
                    // every pair's sums, by (f, g) with f ≤ g, the features with themselves
                    let mut read = std::collections::BTreeMap::new();
                    let mut sums = counters.sum(&cover, contribution, &mut budget).unwrap();
                    let mut singles = std::collections::BTreeMap::new();
                    for f in 0..n {
                        let mut stats = vec![0.0; 3];
                        let rows = sums.single(f, &mut stats);
                        singles.insert(f, (stats.clone(), rows));
                        read.insert((f, f), (stats, rows));
                    }
                    let complete = sums.for_each_row(&mut budget, |_| false, |f, row| {
                        for (b, &g) in row.features().iter().enumerate() {
                            let stats: Vec<f64> = (0..3).map(|c| row.pairs(c)[b]).collect();
                            let rows = row.pairs(3)[b] as u32;
                            assert!(read.insert((f.min(g), f.max(g)), (stats, rows)).is_none());
                            // the later feature's own sums, beside the pair's
                            let single: Vec<f64> = (0..3).map(|c| row.singles(c)[b]).collect();
                            assert_eq!((single, row.singles(3)[b] as u32), singles[&g]);
                        }
                    });
                    prop_assert!(complete);
                    prop_assert_eq!(read.len(), (n * (n + 1) / 2) as usize);
                    for (&(i, j), (stats, rows)) in &read {
                        let both: Vec<u32> = cover.rows().iter().copied()
                            .filter(|&r| data.value(r as usize, i) && data.value(r as usize, j))
                            .collect();
                        prop_assert_eq!(*rows as usize, both.len());
                        for c in 0..3 {
                            let exact: f64 = both.iter().map(|&r| values[r as usize * 3 + c]).sum();
                            prop_assert!((stats[c] - exact).abs() < 1e-9);
                        }
                    }
                }
            }
        }
    }
}
