//! The depth-2 solver's cells for a pinball loss (absolute error, or one quantile), costed
//! from the targets' ranks.
//!
//! A pinball loss has no additive statistics, so a pair's four cells cannot be had by
//! subtraction from counts. Instead, the node's rows are listed once in increasing order of
//! target, and each candidate's rows are marked in a bitset over those positions. A cell of
//! a pair is then two such bitsets combined word by word, and its loss one pass over the
//! cell's set bits, which come in target order: the numbers of [`Pinball::losses`], without
//! a ranked bitset built for every child. Each pair is costed once for both of its roots,
//! and the general search's cache entry for every child of depth 1 is not made.

use super::{Depth2, Node, Rules};
use crate::bitset::{bits_of, words_for};
use crate::budget::Budget;
use crate::data::{item, Dataset};
use crate::objective::{Objective, Pinball};
use crate::stats::Weights;
use crate::subproblem::Cost;

/// A node's rows in increasing order of target (their positions), with each candidate's
/// rows among them; reused from node to node.
#[derive(Debug, Default)]
pub(super) struct RankedNode {
    /// The targets' ranks, increasing: the rows by position.
    ranks: Vec<u32>,
    /// Target and weight by position.
    targets: Vec<f64>,
    weights: Vec<f64>,
    /// With uniform weights, `sums[b * 256 + v]`: the sum of `target − targets[0]` over the
    /// positions `8b + i` of the bits i of the byte value v (MurTree-style lookup of a
    /// byte's contribution, so that a cell's sums take one step per byte, not per row).
    sums: Vec<f64>,
    /// Words per bitset of positions.
    words: usize,
    /// Every position.
    all: Vec<u64>,
    /// `columns[i * words..]`: the positions of the rows where candidate i is 1.
    columns: Vec<u64>,
    /// The four cells of one pair, `words` each: (¬i,¬j), (¬i,j), (i,¬j), (i,j).
    cells: Vec<u64>,
}

impl RankedNode {
    /// Lists the rows of `node` by target and marks each candidate's.
    fn build(&mut self, data: &Dataset, node: &Node, pinball: &Pinball, weights: &Weights) {
        self.ranks.clear();
        (self.ranks).extend(
            node.cover
                .rows()
                .iter()
                .map(|&row| pinball.rank(row as usize)),
        );
        self.ranks.sort_unstable();
        let m = self.ranks.len();
        self.words = words_for(m);
        self.targets.clear();
        self.weights.clear();
        for &rank in &self.ranks {
            self.targets.push(pinball.target_of_rank(rank));
            self.weights.push(weights.of(pinball.row_of(rank)));
        }
        self.all.clear();
        self.all.resize(self.words, u64::MAX);
        if m % 64 != 0 {
            self.all[self.words - 1] = (1 << (m % 64)) - 1;
        }
        self.columns.clear();
        self.columns.resize(node.candidates.len() * self.words, 0);
        for (column, &f) in (self.columns.chunks_exact_mut(self.words)).zip(node.candidates) {
            let mask = data.item_mask(item(f, true));
            for (p, &rank) in self.ranks.iter().enumerate() {
                let row = pinball.row_of(rank);
                column[p / 64] |= (mask[row / 64] >> (row % 64) & 1) << (p % 64);
            }
        }
        self.cells.resize(4 * self.words, 0);
        self.sums.clear();
        if weights.uniform().is_some() && m > 0 {
            let floor = self.targets[0];
            self.sums.resize(self.words * 8 * 256, 0.0);
            for (b, table) in self.sums.chunks_exact_mut(256).enumerate() {
                for v in 1..256 {
                    let p = 8 * b + (v as u32).trailing_zeros() as usize;
                    let y = self.targets.get(p).map_or(0.0, |y| y - floor);
                    table[v] = table[v & (v - 1)] + y;
                }
            }
        }
    }

    /// Fills the four cells of candidates i and j.
    #[inline]
    fn fill_cells(&mut self, i: usize, j: usize) {
        let w = self.words;
        let (ci, cj) = (
            &self.columns[i * w..(i + 1) * w],
            &self.columns[j * w..(j + 1) * w],
        );
        let (none, rest) = self.cells.split_at_mut(w);
        let (j_only, rest) = rest.split_at_mut(w);
        let (i_only, both) = rest.split_at_mut(w);
        for k in 0..w {
            let (a, b) = (ci[k], cj[k]);
            none[k] = self.all[k] & !a & !b;
            j_only[k] = !a & b;
            i_only[k] = a & !b;
            both[k] = a & b;
        }
    }

    /// The rows of cell `c` and its statistics as [`Pinball`]'s evaluator writes them:
    /// `[weight, loss, value]`, the loss that of quantile `q` times `scale`.
    #[inline]
    fn cost(&self, c: usize, q: f64, scale: f64, uniform: Option<f64>) -> (u32, [f64; 3]) {
        let cell = &self.cells[c * self.words..(c + 1) * self.words];
        let rows: u32 = cell.iter().map(|w| w.count_ones()).sum();
        let mut positions =
            (cell.iter().enumerate()).flat_map(|(k, &word)| bits_of(word).map(move |b| k * 64 + b));
        let Some(first) = positions.clone().next() else {
            return (0, [0.0; 3]);
        };
        if let Some(w) = uniform {
            return (rows, self.cost_uniform(cell, rows, w, q, scale));
        }
        let origin = self.targets[first];
        let total: f64 = positions.clone().map(|p| self.weights[p]).sum();
        // the first position where the running weight reaches the quantile's share
        let need = q * total * (1.0 - 1e-12);
        let (mut weight, mut sum) = (0.0, 0.0);
        let mut below = None;
        for p in positions.by_ref() {
            let (y, w) = (self.targets[p], self.weights[p]);
            let reached = weight + w;
            if reached >= need {
                below = Some((weight, sum, y));
                weight = reached;
                sum += w * (y - origin);
                break;
            }
            weight = reached;
            sum += w * (y - origin);
        }
        for p in positions {
            let w = self.weights[p];
            weight += w;
            sum += w * (self.targets[p] - origin);
        }
        let Some((weight_below, sum_below, value)) = below else {
            return (rows, [weight, 0.0, 0.0]);
        };
        let v = value - origin;
        let above = (sum - sum_below) - v * (weight - weight_below);
        let under = v * weight_below - sum_below;
        let loss = scale * (q * above + (1.0 - q) * under).max(0.0);
        (rows, [weight, loss, value])
    }

    /// [`cost`](Self::cost)'s statistics of a non-empty `cell` of `rows` rows that each weigh
    /// `w`: the quantile is the target of the k-th row, found by counting bits, and the sums
    /// of the targets below it and from it on are read byte by byte from the table of sums.
    #[inline]
    fn cost_uniform(&self, cell: &[u64], rows: u32, w: f64, q: f64, scale: f64) -> [f64; 3] {
        let total = f64::from(rows) * w;
        let need = q * total * (1.0 - 1e-12);
        // the first row whose running weight, (k + 1) w, reaches the quantile's share
        let mut k = ((need / w).ceil() as u32).saturating_sub(1).min(rows - 1);
        while k > 0 && f64::from(k) * w >= need {
            k -= 1;
        }
        while k + 1 < rows && f64::from(k + 1) * w < need {
            k += 1;
        }
        let at = select(cell, k);
        // the bytes before the quantile's, that byte's bits below it, and the rest
        let (mut below, mut all) = (0.0, 0.0);
        let (at_byte, at_bit) = (at / 8, at % 8);
        for (idx, &word) in cell.iter().enumerate() {
            if word == 0 {
                continue;
            }
            for j in 0..8 {
                let b = idx * 8 + j;
                let v = (word >> (8 * j) & 0xff) as usize;
                let sum = self.sums[b * 256 + v];
                all += sum;
                if b < at_byte {
                    below += sum;
                } else if b == at_byte {
                    below += self.sums[b * 256 + (v & ((1 << at_bit) - 1))];
                }
            }
        }
        let from = all - below;
        let value = self.targets[at];
        let v = value - self.targets[0];
        let above = w * (from - v * f64::from(rows - k));
        let under = w * (v * f64::from(k) - below);
        let loss = scale * (q * above + (1.0 - q) * under).max(0.0);
        [total, loss, value]
    }
}

/// The position of the k-th (from 0) set bit of `bits`, which has more than k.
#[inline]
fn select(bits: &[u64], mut k: u32) -> usize {
    for (idx, &word) in bits.iter().enumerate() {
        let ones = word.count_ones();
        if k < ones {
            let mut word = word;
            for _ in 0..k {
                word &= word - 1;
            }
            return idx * 64 + word.trailing_zeros() as usize;
        }
        k -= ones;
    }
    unreachable!("fewer than k + 1 set bits")
}

impl<C: Cost> Depth2<C> {
    /// Costs every pair of candidates' four cells under the pinball loss `pinball` and
    /// improves the roots' children with them. Returns false if the budget ran out first.
    pub(super) fn pinball_pairs<O: Objective>(
        &mut self,
        rules: &Rules<O>,
        node: &Node,
        pinball: &Pinball,
        weights: &Weights,
        budget: &mut Budget,
    ) -> bool {
        let mut ranked = std::mem::take(&mut self.ranked);
        ranked.build(rules.data, node, pinball, weights);
        let (q, scale, uniform) = (pinball.quantile(), pinball.scale(), weights.uniform());
        let n = node.candidates.len();
        let mut complete = true;
        for i in 0..n {
            if budget.exhausted(false) {
                complete = false;
                break;
            }
            for j in i + 1..n {
                ranked.fill_cells(i, j);
                let (mut cost, mut rows, mut weight) = ([0.0; 4], [0; 4], [0.0; 4]);
                for c in 0..4 {
                    let (r, stats) = ranked.cost(c, q, scale, uniform);
                    (rows[c], weight[c]) = (r, stats[0]);
                    cost[c] = rules.objective.leaf_cost(&stats);
                }
                self.relax_children(rules, i, j, cost, rows, weight);
            }
        }
        self.ranked = ranked;
        complete
    }
}
