//! Counting the statistics of every pair of candidate features within a node's rows: with
//! popcounts for uniform weights, and otherwise row by row (all pairs at once while their table
//! is small) or pair by pair (memory linear in the candidates).

use super::rows::{bit_if, may_improve};
use super::{Depth2, Node, Rules, PAIR_TABLE_BYTES};
use crate::bitset::bits_of;
use crate::budget::Budget;
use crate::data::{item, Dataset};
use crate::objective::Objective;
use crate::search::kernel::sums::SumCounters;
use crate::subproblem::Cost;

/// The children of a pair of candidates i < j, as bits: i's left and right, j's left and right.
pub(super) const ROOT_LEFT: u8 = 1;
pub(super) const ROOT_RIGHT: u8 = 2;
pub(super) const OTHER_LEFT: u8 = 4;
pub(super) const OTHER_RIGHT: u8 = 8;
pub(super) const ALL_CHILDREN: u8 = ROOT_LEFT | ROOT_RIGHT | OTHER_LEFT | OTHER_RIGHT;

/// Writes into `gathered` each candidate's column restricted to the cover's non-zero words,
/// one candidate after another.
fn gather(data: &Dataset, node: &Node, gathered: &mut Vec<u64>) {
    gathered.clear();
    for &f in node.candidates {
        node.cover
            .restrict_into(data.item_mask(item(f, true)), gathered);
    }
}

impl<C: Cost> Depth2<C> {
    /// Counts every pair with popcounts on the cover's non-zero words (uniform weights).
    /// Returns false if the budget ran out first.
    pub(super) fn count_pairs_uniform<O: Objective>(
        &mut self,
        rules: &Rules<O>,
        node: &Node,
        weight: f64,
        budget: &mut Budget,
    ) -> bool {
        let data = rules.data;
        let k_classes = data.n_classes();
        let indices = node.cover.word_indices();
        let n_words = indices.len();
        let n = node.candidates.len();
        gather(data, node, &mut self.gathered);
        let class_masks = data.class_masks();
        self.classes.clear();
        for &w in indices {
            let w = w as usize;
            self.classes
                .extend_from_slice(&class_masks[w * k_classes..(w + 1) * k_classes]);
        }
        let len = node.stats.len();
        let mut pair = std::mem::take(&mut self.pair);
        pair.resize(len, 0.0);
        let gathered = std::mem::take(&mut self.gathered);
        let mut by_class = std::mem::take(&mut self.by_class);
        by_class.resize(n_words * k_classes, 0);
        let mut counts = vec![0u32; k_classes];
        let mut complete = true;
        'roots: for i in 0..n {
            if budget.exhausted(false) {
                complete = false;
                break;
            }
            let gi = &gathered[i * n_words..(i + 1) * n_words];
            for k in 0..n_words {
                for c in 1..k_classes {
                    by_class[c * n_words + k] = gi[k] & self.classes[k * k_classes + c];
                }
            }
            for j in i + 1..n {
                if rules.costly && budget.exhausted(true) {
                    complete = false;
                    break 'roots;
                }
                let gj = &gathered[j * n_words..(j + 1) * n_words];
                if k_classes == 2 {
                    // one fused pass: rows of the pair, and rows of class 1 among them
                    let class1 = &by_class[n_words..2 * n_words];
                    let (mut rows, mut ones) = (0u32, 0u32);
                    for k in 0..n_words {
                        rows += (gi[k] & gj[k]).count_ones();
                        ones += (class1[k] & gj[k]).count_ones();
                    }
                    counts[0] = rows - ones;
                    counts[1] = ones;
                } else {
                    let rows: u32 = gi.iter().zip(gj).map(|(a, b)| (a & b).count_ones()).sum();
                    let mut others = 0;
                    for (c, count) in counts.iter_mut().enumerate().skip(1) {
                        let bc = &by_class[c * n_words..(c + 1) * n_words];
                        *count = bc.iter().zip(gj).map(|(a, b)| (a & b).count_ones()).sum();
                        others += *count;
                    }
                    counts[0] = rows - others;
                }
                let rows = counts.iter().sum();
                pair.iter_mut()
                    .zip(&counts)
                    .for_each(|(p, &c)| *p = c as f64 * weight);
                self.evaluate_pair(rules, node, i, j, &pair, rows);
            }
        }
        self.gathered = gathered;
        self.by_class = by_class;
        self.pair = pair;
        complete
    }

    /// Pair statistics from each row's statistics (`contribution(row, out)` writes them):
    /// kept from one node to the next while the sums of every pair of features are small,
    /// else all pairs at once while their table is small, else one root at a time. Returns
    /// false if the budget ran out first.
    pub(super) fn count_pairs<O: Objective>(
        &mut self,
        rules: &Rules<O>,
        node: &Node,
        budget: &mut Budget,
        contribution: impl Fn(usize, &mut [f64]),
    ) -> bool {
        let (n, len) = (node.candidates.len(), node.stats.len());
        if Self::keeps_sums(rules, len) {
            self.count_pairs_kept(rules, node, budget, contribution)
        } else if n * n * len * std::mem::size_of::<f64>() <= PAIR_TABLE_BYTES {
            self.count_pairs_by_row(rules, node, budget, contribution)
        } else {
            self.count_pairs_by_root(rules, node, budget, contribution)
        }
    }

    /// Pair statistics from the sums kept across nodes ([`SumCounters`]), moved to this
    /// node's rows, one root's row of pairs at a time ([`super::rows`]): the row's leaf costs,
    /// then the children each pair may improve, then those relaxed. Returns false if the
    /// budget ran out first.
    fn count_pairs_kept<O: Objective>(
        &mut self,
        rules: &Rules<O>,
        node: &Node,
        budget: &mut Budget,
        contribution: impl Fn(usize, &mut [f64]),
    ) -> bool {
        let len = node.stats.len();
        let mut counters = self
            .sums
            .take()
            .unwrap_or_else(|| SumCounters::new(rules.data, len, rules.incremental));
        // each feature's position among the candidates (u32::MAX: not one)
        let mut position = std::mem::take(&mut self.position);
        position.clear();
        position.resize(rules.data.n_features(), u32::MAX);
        for (i, &f) in node.candidates.iter().enumerate() {
            position[f as usize] = i as u32;
        }
        let mut row_costs = std::mem::take(&mut self.row_costs);
        let (mut mirror, mut marks) = (
            std::mem::take(&mut self.mirror),
            std::mem::take(&mut self.marks),
        );
        let tol = rules.tolerance;
        let complete = match counters.sum(node.cover, contribution, budget) {
            Some(mut sums) => {
                // each feature's children's best splits so far by feature number (their
                // objectives; −∞ for the features that are not candidates, never improved)
                let n = sums.features().len();
                mirror.clear();
                mirror.resize(2 * n, f64::NEG_INFINITY);
                for (number, &f) in sums.features().iter().enumerate() {
                    if let Some(&p) = position.get(f as usize).filter(|&&p| p != u32::MAX) {
                        mirror[number] = self.best_left[p as usize].0.objective();
                        mirror[n + number] = self.best_right[p as usize].0.objective();
                    }
                }
                sums.for_each_row(
                    budget,
                    |f| position[f as usize] == u32::MAX,
                    |f, row| {
                        let f = f as usize;
                        let si = &node.singles[f * len..(f + 1) * len];
                        row_costs.fill(rules, node, si, &row);
                        let first = n - row.features().len();
                        row_costs.mark(&mirror[first..n], &mirror[n + first..], tol, &mut marks);
                        let i = position[f] as usize;
                        let ri = node.single_rows[f];
                        let (mut left_i, mut right_i) = (
                            self.best_left[i].0.objective(),
                            self.best_right[i].0.objective(),
                        );
                        for (b, &g) in row.features().iter().enumerate() {
                            let cost = row_costs.at(b);
                            // the root's children against their best splits so far
                            let which = marks[b]
                                | bit_if(may_improve(cost[0] + cost[1], left_i, tol), ROOT_LEFT)
                                | bit_if(may_improve(cost[2] + cost[3], right_i, tol), ROOT_RIGHT);
                            let j = position[g as usize];
                            if which == 0 || j == u32::MAX {
                                continue;
                            }
                            let (pair_rows, rj) =
                                (row.pairs(len)[b] as u32, row.singles(len)[b] as u32);
                            let rows = cell_rows(node.rows, ri, rj, pair_rows);
                            let weight = row_costs.weights_at(b).unwrap_or([f64::INFINITY; 4]);
                            let j = j as usize;
                            self.relax_children(rules, i, j, cost, rows, weight, which);
                            (left_i, right_i) = (
                                self.best_left[i].0.objective(),
                                self.best_right[i].0.objective(),
                            );
                            mirror[first + b] = self.best_left[j].0.objective();
                            mirror[n + first + b] = self.best_right[j].0.objective();
                        }
                    },
                )
            }
            None => false,
        };
        self.position = position;
        self.row_costs = row_costs;
        self.mirror = mirror;
        self.marks = marks;
        self.sums = Some(counters);
        complete
    }

    /// Evaluates every pair of candidates i < j (positions among the node's candidates) with
    /// the statistics `pair(i, j)` gives (and their number of rows). Returns false if the
    /// budget ran out first.
    fn evaluate_pairs<'s, O: Objective>(
        &mut self,
        rules: &Rules<O>,
        node: &Node,
        budget: &mut Budget,
        pair: impl Fn(usize, usize) -> (&'s [f64], u32),
    ) -> bool {
        let n = node.candidates.len();
        for i in 0..n {
            if budget.exhausted(false) {
                return false;
            }
            for j in i + 1..n {
                // with slow leaf costs, the clock is read before each pair
                if rules.costly && budget.exhausted(true) {
                    return false;
                }
                let (stats, rows) = pair(i, j);
                self.evaluate_pair(rules, node, i, j, stats, rows);
            }
        }
        true
    }

    /// Pair statistics one root at a time: for each pair, the rows of both features are
    /// visited in the cover's words, so memory stays linear in the candidates.
    pub(super) fn count_pairs_by_root<O: Objective>(
        &mut self,
        rules: &Rules<O>,
        node: &Node,
        budget: &mut Budget,
        contribution: impl Fn(usize, &mut [f64]),
    ) -> bool {
        let indices = node.cover.word_indices();
        let n_words = indices.len();
        let (n, len) = (node.candidates.len(), node.stats.len());
        let mut gathered = std::mem::take(&mut self.gathered);
        gather(rules.data, node, &mut gathered);
        let (mut pair, mut row_stats) = (vec![0.0; len], vec![0.0; len]);
        let mut complete = true;
        'roots: for i in 0..n {
            let gi = &gathered[i * n_words..(i + 1) * n_words];
            for j in i + 1..n {
                if budget.exhausted(rules.costly) {
                    complete = false;
                    break 'roots;
                }
                let gj = &gathered[j * n_words..(j + 1) * n_words];
                pair.fill(0.0);
                let mut rows = 0;
                for ((&a, &b), &w) in gi.iter().zip(gj).zip(indices) {
                    let both = a & b;
                    rows += both.count_ones();
                    for bit in bits_of(both) {
                        contribution(w as usize * 64 + bit, &mut row_stats);
                        pair.iter_mut().zip(&row_stats).for_each(|(p, r)| *p += r);
                    }
                }
                self.evaluate_pair(rules, node, i, j, &pair, rows);
            }
        }
        self.gathered = gathered;
        complete
    }

    /// Pair statistics by visiting rows: `contribution(row, out)` writes the statistics of
    /// one row, which are added to every pair of candidates the row has. Returns false if the
    /// budget ran out first.
    pub(super) fn count_pairs_by_row<O: Objective>(
        &mut self,
        rules: &Rules<O>,
        node: &Node,
        budget: &mut Budget,
        contribution: impl Fn(usize, &mut [f64]),
    ) -> bool {
        let data = rules.data;
        let n = node.candidates.len();
        let len = node.stats.len();
        self.pair_stats.clear();
        self.pair_stats.resize(n * n * len, 0.0);
        self.pair_rows.clear();
        self.pair_rows.resize(n * n, 0);
        let words = node.cover.words();
        let masks: Vec<&[u64]> = node
            .candidates
            .iter()
            .map(|&f| data.item_mask(item(f, true)))
            .collect();
        let mut row_stats = vec![0.0; len];
        for &w in node.cover.word_indices() {
            let w = w as usize;
            if budget.exhausted(false) {
                return false;
            }
            for b in bits_of(words[w]) {
                contribution(w * 64 + b, &mut row_stats);
                self.present.clear();
                self.present
                    .extend((0..n as u32).filter(|&i| masks[i as usize][w] >> b & 1 == 1));
                match len {
                    2 => self.add_to_pairs::<2>(n, &row_stats),
                    3 => self.add_to_pairs::<3>(n, &row_stats),
                    4 => self.add_to_pairs::<4>(n, &row_stats),
                    _ => self.add_to_pairs::<0>(n, &row_stats),
                }
            }
        }
        let (pair_stats, pair_rows) = (
            std::mem::take(&mut self.pair_stats),
            std::mem::take(&mut self.pair_rows),
        );
        let complete = self.evaluate_pairs(rules, node, budget, |i, j| {
            let at = i * n + j;
            (&pair_stats[at * len..(at + 1) * len], pair_rows[at])
        });
        self.pair_stats = pair_stats;
        self.pair_rows = pair_rows;
        complete
    }

    /// Adds one row's statistics to every pair of the candidates in `present`. `N` is the
    /// statistics' length when known at compile time (0: read from `row_stats`).
    #[inline(always)]
    fn add_to_pairs<const N: usize>(&mut self, n: usize, row_stats: &[f64]) {
        let len = if N == 0 { row_stats.len() } else { N };
        for (a, &i) in self.present.iter().enumerate() {
            let base = i as usize * n;
            for &j in &self.present[a + 1..] {
                let at = base + j as usize;
                self.pair_rows[at] += 1;
                let cell = &mut self.pair_stats[at * len..(at + 1) * len];
                for c in 0..len {
                    cell[c] += row_stats[c];
                }
            }
        }
    }

    /// Uses the counts of candidates i < j to improve the children of roots i and j.
    #[inline(always)]
    fn evaluate_pair<O: Objective>(
        &mut self,
        rules: &Rules<O>,
        node: &Node,
        i: usize,
        j: usize,
        pair: &[f64],
        pair_rows: u32,
    ) {
        let len = pair.len();
        let (fi, fj) = (node.candidates[i] as usize, node.candidates[j] as usize);
        let si = &node.singles[fi * len..(fi + 1) * len];
        let sj = &node.singles[fj * len..(fj + 1) * len];
        let (ri, rj) = (node.single_rows[fi], node.single_rows[fj]);
        let s = node.stats;
        let objective = rules.objective;
        // cells: 0 = (¬i,¬j), 1 = (¬i,j), 2 = (i,¬j), 3 = (i,j)
        let cost = match len {
            2 => four_costs::<2, O>(objective, s, si, sj, pair),
            3 => four_costs::<3, O>(objective, s, si, sj, pair),
            _ => {
                fill_cells(&mut self.cells, s, si, sj, pair);
                std::array::from_fn(|cell| {
                    objective.leaf_cost(&self.cells[cell * len..(cell + 1) * len])
                })
            }
        };
        let rows = cell_rows(node.rows, ri, rj, pair_rows);
        // the cells' weights, when a least leaf weight needs them
        let mut weight = [f64::INFINITY; 4];
        if rules.min_leaf_weight > 0.0 {
            fill_cells(&mut self.cells, s, si, sj, pair);
            for (cell, w) in weight.iter_mut().enumerate() {
                *w = rules
                    .statistics
                    .weight(&self.cells[cell * len..(cell + 1) * len]);
            }
        }
        self.relax_children(rules, i, j, cost, rows, weight, ALL_CHILDREN);
    }

    /// Improves the children of roots i and j (candidates i < j) by the splits on each other,
    /// from the leaf costs, row counts and weights of the pair's four cells: 0 = (¬i,¬j),
    /// 1 = (¬i,j), 2 = (i,¬j), 3 = (i,j). Only the children in `which` ([`ROOT_LEFT`] …
    /// [`OTHER_RIGHT`]) are looked at.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn relax_children<O: Objective>(
        &mut self,
        rules: &Rules<O>,
        i: usize,
        j: usize,
        cost: [f64; 4],
        rows: [u32; 4],
        weight: [f64; 4],
        which: u8,
    ) {
        let m = rules.min_samples_leaf;
        let tol = rules.tolerance;
        let least = rules.min_leaf_weight * (1.0 - 1e-12);
        let min_split = rules.min_samples_split;
        // a child's best split so far, by its feature's position among the candidates: a
        // cheaper split replaces it, and so does an equal one from an earlier candidate, so
        // that the winner does not depend on the order the pairs come in
        let relax = |slot: &mut (C, Option<u32>), a: usize, b: usize, position: usize| {
            let split = C::leaf(cost[a]) + C::leaf(cost[b]);
            let wins = split.below(slot.0, tol)
                || matches!(slot.1, Some(p) if (position as u32) < p && !slot.0.below(split, tol));
            if wins
                && rows[a] >= m
                && rows[b] >= m
                && rows[a] + rows[b] >= min_split
                && weight[a] >= least
                && weight[b] >= least
            {
                *slot = (split, Some(position as u32));
            }
        };
        if which & ROOT_LEFT != 0 {
            relax(&mut self.best_left[i], 0, 1, j);
        }
        if which & ROOT_RIGHT != 0 {
            relax(&mut self.best_right[i], 2, 3, j);
        }
        if which & OTHER_LEFT != 0 {
            relax(&mut self.best_left[j], 0, 2, i);
        }
        if which & OTHER_RIGHT != 0 {
            relax(&mut self.best_right[j], 1, 3, i);
        }
    }
}

/// Writes the statistics of a pair's four cells into `cells` (four of `s.len()` numbers),
/// from the node's statistics `s`, the two features' `si` and `sj` and the pair's.
pub(super) fn fill_cells(cells: &mut [f64], s: &[f64], si: &[f64], sj: &[f64], pair: &[f64]) {
    let len = s.len();
    for c in 0..len {
        cells[c] = s[c] - si[c] - sj[c] + pair[c];
        cells[len + c] = sj[c] - pair[c];
        cells[2 * len + c] = si[c] - pair[c];
        cells[3 * len + c] = pair[c];
    }
}

/// The rows of a pair's four cells, from the node's `rows`, the two features' `ri` and `rj`
/// and the pair's.
#[inline(always)]
fn cell_rows(rows: u32, ri: u32, rj: u32, pair_rows: u32) -> [u32; 4] {
    [
        rows + pair_rows - ri - rj,
        rj - pair_rows,
        ri - pair_rows,
        pair_rows,
    ]
}

/// The leaf costs of a pair's four cells, from the node's statistics `s`, the two features'
/// `si` and `sj` and the pair's, all `N` long (known at compile time, so the cells stay in
/// registers).
#[inline(always)]
pub(super) fn four_costs<const N: usize, O: Objective>(
    objective: &O,
    s: &[f64],
    si: &[f64],
    sj: &[f64],
    pair: &[f64],
) -> [f64; 4] {
    let (mut none, mut j_only, mut i_only, mut both) = ([0.0; N], [0.0; N], [0.0; N], [0.0; N]);
    for c in 0..N {
        none[c] = s[c] - si[c] - sj[c] + pair[c];
        j_only[c] = sj[c] - pair[c];
        i_only[c] = si[c] - pair[c];
        both[c] = pair[c];
    }
    [
        objective.leaf_cost(&none),
        objective.leaf_cost(&j_only),
        objective.leaf_cost(&i_only),
        objective.leaf_cost(&both),
    ]
}
