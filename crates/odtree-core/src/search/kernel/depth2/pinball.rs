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

use super::pairs::ALL_CHILDREN;
use super::{Depth2, Node, Rules, Trees};
use crate::bitset::{bits_of, words_for};
use crate::budget::Budget;
use crate::cover::Cover;
use crate::data::{item, Dataset};
use crate::objective::{Objective, Pinball, QuantileLane, QuantileSet};
use crate::stats::Weights;
use crate::subproblem::{Cost, Decision};

/// The most rows a node's table of sums is built for (256 numbers per byte of rows: 16 MiB
/// here); a larger node's cells are walked row by row.
const TABLE_ROWS: usize = 1 << 16;

/// A node's rows in increasing order of target (their positions), with each candidate's
/// rows among them; reused from node to node.
#[derive(Debug, Default)]
pub(crate) struct RankedNode {
    /// The targets' ranks, increasing: the rows by position.
    ranks: Vec<u32>,
    /// Target and weight by position.
    targets: Vec<f64>,
    weights: Vec<f64>,
    /// With uniform weights and at most [`TABLE_ROWS`] rows, `sums[b * 256 + v]`: the sum of
    /// `target − targets[0]` over the positions `8b + i` of the bits i of the byte value v
    /// (a lookup of a byte's contribution, so that a cell's sums take one step per byte,
    /// not per row).
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
    /// At most how many bytes a ranked node of `data`'s rows takes: its rows, its columns and
    /// its table of sums (256 numbers per byte of rows).
    pub fn bytes(data: &Dataset) -> usize {
        let (rows, words) = (data.n_rows(), words_for(data.n_rows()));
        let table = words_for(rows.min(TABLE_ROWS)) * 8 * 256 * 8;
        rows * (4 + 2 * 8) + (data.n_features() + 5) * words * 8 + table
    }

    /// Lists the rows of `cover` by target and marks each of `candidates`' rows.
    fn build(
        &mut self,
        data: &Dataset,
        cover: &Cover,
        candidates: &[u32],
        pinball: &Pinball,
        weights: &Weights,
    ) {
        self.ranks.clear();
        (self.ranks).extend(cover.rows().iter().map(|&row| pinball.rank(row as usize)));
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
        self.columns.resize(candidates.len() * self.words, 0);
        for (column, &f) in (self.columns.chunks_exact_mut(self.words)).zip(candidates) {
            let mask = data.item_mask(item(f, true));
            for (p, &rank) in self.ranks.iter().enumerate() {
                let row = pinball.row_of(rank);
                column[p / 64] |= (mask[row / 64] >> (row % 64) & 1) << (p % 64);
            }
        }
        self.cells.resize(4 * self.words, 0);
        self.sums.clear();
        if weights.uniform().is_some() && m > 0 && m <= TABLE_ROWS {
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

    /// Fills the first two cells with the sides of candidate i: where it is 0, then 1.
    #[inline]
    fn fill_sides(&mut self, i: usize) {
        let w = self.words;
        let column = &self.columns[i * w..(i + 1) * w];
        let (zero, one) = self.cells.split_at_mut(w);
        for k in 0..w {
            zero[k] = self.all[k] & !column[k];
            one[k] = column[k];
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

    /// Writes the statistics of cell `c` for each of `quantiles` into `out`, in a quantile
    /// set's layout `[weight, losses.., values..]` (for one quantile, that of [`Pinball`]'s
    /// evaluator), each loss times `scale`; returns the cell's rows. `order` is scratch.
    #[inline]
    fn costs(
        &self,
        c: usize,
        quantiles: &[f64],
        scale: f64,
        uniform: Option<f64>,
        out: &mut [f64],
        order: &mut Vec<(usize, usize, u32)>,
    ) -> u32 {
        let cell = &self.cells[c * self.words..(c + 1) * self.words];
        let rows: u32 = cell.iter().map(|w| w.count_ones()).sum();
        if rows == 0 {
            out.fill(0.0);
        } else if let (Some(w), false) = (uniform, self.sums.is_empty()) {
            self.costs_uniform(cell, rows, w, quantiles, scale, out, order);
        } else {
            let k = quantiles.len();
            for (lane, &q) in quantiles.iter().enumerate() {
                let [weight, loss, value] = self.cost_weighted(cell, q, scale);
                (out[0], out[1 + lane], out[1 + k + lane]) = (weight, loss, value);
            }
        }
        rows
    }

    /// `[weight, loss, value]` of a non-empty `cell` for quantile `q`, the loss times `scale`:
    /// the numbers of [`Pinball::losses`], read in one pass over the cell's rows.
    fn cost_weighted(&self, cell: &[u64], q: f64, scale: f64) -> [f64; 3] {
        let mut positions =
            (cell.iter().enumerate()).flat_map(|(k, &word)| bits_of(word).map(move |b| k * 64 + b));
        let Some(first) = positions.clone().next() else {
            return [0.0; 3];
        };
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
            return [weight, 0.0, 0.0];
        };
        let v = value - origin;
        let above = (sum - sum_below) - v * (weight - weight_below);
        let under = v * weight_below - sum_below;
        let loss = scale * (q * above + (1.0 - q) * under).max(0.0);
        [weight, loss, value]
    }

    /// [`costs`](Self::costs) of a non-empty `cell` of `rows` rows that each weigh `w`: each
    /// quantile is the target of the k-th row, found by counting bits, and one pass over the
    /// cell's bytes reads the sums below each of them and in all from the table of sums.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn costs_uniform(
        &self,
        cell: &[u64],
        rows: u32,
        w: f64,
        quantiles: &[f64],
        scale: f64,
        out: &mut [f64],
        order: &mut Vec<(usize, usize, u32)>,
    ) {
        let total = f64::from(rows) * w;
        // per quantile, the first row whose running weight, (k + 1) w, reaches its share
        order.clear();
        for (lane, &q) in quantiles.iter().enumerate() {
            let need = q * total * (1.0 - 1e-12);
            let mut k = ((need / w).ceil() as u32).saturating_sub(1).min(rows - 1);
            while k > 0 && f64::from(k) * w >= need {
                k -= 1;
            }
            while k + 1 < rows && f64::from(k + 1) * w < need {
                k += 1;
            }
            order.push((select(cell, k), lane, k));
        }
        order.sort_unstable();
        // the running sum, and each quantile's sum below its row (kept in its loss's slot)
        let (mut sum, mut next) = (0.0, 0);
        for (idx, &word) in cell.iter().enumerate() {
            if word == 0 {
                continue;
            }
            for j in 0..8 {
                let b = idx * 8 + j;
                let v = (word >> (8 * j) & 0xff) as usize;
                let table = &self.sums[b * 256..(b + 1) * 256];
                while next < order.len() && order[next].0 / 8 == b {
                    let (at, lane, _) = order[next];
                    out[1 + lane] = sum + table[v & ((1 << (at % 8)) - 1)];
                    next += 1;
                }
                sum += table[v];
            }
        }
        let n = quantiles.len();
        out[0] = total;
        for &(at, lane, k) in order.iter() {
            let (q, below) = (quantiles[lane], out[1 + lane]);
            let value = self.targets[at];
            let v = value - self.targets[0];
            let above = w * (sum - below - v * f64::from(rows - k));
            let under = w * (v * f64::from(k) - below);
            out[1 + lane] = scale * (q * above + (1.0 - q) * under).max(0.0);
            out[1 + n + lane] = value;
        }
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
        ranked.build(rules.data, node.cover, node.candidates, pinball, weights);
        let (q, scale, uniform) = (pinball.quantile(), pinball.scale(), weights.uniform());
        let (mut stats, mut order) = ([0.0; 3], Vec::new());
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
                    rows[c] = ranked.costs(c, &[q], scale, uniform, &mut stats, &mut order);
                    weight[c] = stats[0];
                    cost[c] = rules.objective.leaf_cost(&stats);
                }
                self.relax_children(rules, i, j, cost, rows, weight, ALL_CHILDREN);
            }
        }
        self.ranked = ranked;
        complete
    }
}

/// The depth-2 solver of the quantiles driver: every quantile of a [`QuantileSet`] (a lane
/// each) solved from one ranked node.
#[derive(Debug, Default)]
pub(crate) struct QuantilePairs {
    ranked: RankedNode,
    /// Each lane's leaves and children's best splits.
    lanes: Vec<Depth2<f64>>,
    /// One cell's statistics in the set's layout, `[weight, losses.., values..]`, and its rows.
    stats: Vec<f64>,
}

impl QuantilePairs {
    /// At most how many bytes the solver holds for `lanes` quantiles of `data`: the ranked
    /// node of every row and each lane's numbers per feature.
    pub fn bytes(data: &Dataset, lanes: usize) -> usize {
        RankedNode::bytes(data) + lanes * data.n_features() * 3 * 16
    }

    /// Per lane, the optimal subtrees of depth ≤ `depth_left` (1 or 2) of the node whose
    /// rows are `cover`, splitting on `candidates` (each a valid split), with at most 1, 2 and
    /// 3 branching nodes. `rules[lane]` are that lane's rules (all over `set`), and
    /// `leaf[lane]` its leaf cost of the node. When the budget runs out, the trees are leaves
    /// (the caller sees the stop in `budget`).
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        rules: &[Rules<QuantileLane>],
        set: &QuantileSet,
        cover: &Cover,
        candidates: &[u32],
        leaf: &[f64],
        depth_left: u32,
        budget: &mut Budget,
    ) -> Vec<Trees<f64>> {
        let (data, weights) = (rules[0].data, rules[0].weights);
        let (pinball, quantiles) = (set.pinball(), set.quantiles());
        let ranked = &mut self.ranked;
        ranked.build(data, cover, candidates, pinball, weights);
        self.lanes.resize_with(rules.len(), Depth2::default);
        for lane in &mut self.lanes {
            lane.leaves.clear();
            lane.best_left.clear();
            lane.best_right.clear();
        }
        let uniform = weights.uniform();
        let stats = &mut self.stats;
        stats.resize(1 + 2 * quantiles.len(), 0.0);
        let mut order = Vec::new();
        let mut costs = |c: usize, ranked: &RankedNode, stats: &mut [f64]| {
            ranked.costs(c, quantiles, 1.0, uniform, stats, &mut order)
        };
        let n = candidates.len();
        for i in 0..n {
            ranked.fill_sides(i);
            costs(0, ranked, stats);
            let zero: Vec<f64> = rules.iter().map(|r| r.objective.leaf_cost(stats)).collect();
            costs(1, ranked, stats);
            for ((lane, r), &zero) in self.lanes.iter_mut().zip(rules).zip(&zero) {
                let side = (zero, r.objective.leaf_cost(stats));
                lane.leaves.push(side);
                lane.best_left.push((side.0, None));
                lane.best_right.push((side.1, None));
            }
        }
        if depth_left >= 2 {
            let mut cells = vec![([0.0; 4], [0u32; 4], [0.0; 4]); rules.len()];
            for i in 0..n {
                if budget.exhausted(false) {
                    return leaf
                        .iter()
                        .map(|&cost| [(cost, Decision::Leaf); 3])
                        .collect();
                }
                for j in i + 1..n {
                    ranked.fill_cells(i, j);
                    for c in 0..4 {
                        let rows = costs(c, ranked, stats);
                        for ((cost, cell_rows, weight), r) in cells.iter_mut().zip(rules) {
                            (cost[c], cell_rows[c], weight[c]) =
                                (r.objective.leaf_cost(stats), rows, stats[0]);
                        }
                    }
                    for ((lane, r), &(cost, rows, weight)) in
                        self.lanes.iter_mut().zip(rules).zip(&cells)
                    {
                        lane.relax_children(r, i, j, cost, rows, weight, ALL_CHILDREN);
                    }
                }
            }
        }
        (self.lanes.iter().zip(rules).zip(leaf))
            .map(|((lane, r), &cost)| lane.combine(cost, candidates, r.tolerance))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::RowEvaluator;
    use proptest::prelude::*;

    proptest! {
        /// Every cell of every pair costs what the pinball loss's own evaluator gives its rows,
        /// for uniform and varied weights (zero weights leave rows out of the node), with the
        /// table of sums and without.
        #[test]
        fn cells_cost_what_the_evaluator_gives_their_rows(
            n_rows in 1usize..200,
            seed in prop::collection::vec(0u8..=255, 200 * 3),
            targets in prop::collection::vec(prop_oneof![-5.0f64..5.0, (0u8..4).prop_map(f64::from)], 200),
            w in prop::collection::vec(prop_oneof![Just(0.0), 0.25f64..3.0], 200),
            weighted in any::<bool>(),
            q in 0.05f64..0.95,
            q2 in 0.05f64..0.95,
        ) {
            let x: Vec<u8> = seed[..n_rows * 3].iter().map(|&b| (b % 3 == 0) as u8).collect();
            let data = Dataset::new(&x, n_rows, &vec![0; n_rows], 1).unwrap();
            let w = weighted.then(|| w[..n_rows].to_vec());
            prop_assume!(w.as_ref().is_none_or(|w| w.iter().any(|&v| v > 0.0)));
            let weights = Weights::new(w.as_deref(), n_rows).unwrap();
            let pinball = Pinball::new(&targets[..n_rows], q, 2.0);
            let cover = Cover::new(weights.support());
            let mut node = RankedNode::default();
            node.build(&data, &cover, &[0, 1, 2], &pinball, &weights);
            let by_position: Vec<u32> =
                node.ranks.iter().map(|&r| pinball.row_of(r) as u32).collect();
            // with the table of sums, then as a node too large for one
            for (tables, (i, j)) in [true, false].into_iter().flat_map(|t| [(t, (0, 1)), (t, (0, 2)), (t, (1, 2))]) {
                if !tables {
                    node.sums.clear();
                }
                node.fill_cells(i, j);
                for c in 0..4 {
                    let cell = &node.cells[c * node.words..(c + 1) * node.words];
                    let mut rows: Vec<u32> = (0..node.ranks.len())
                        .filter(|&p| cell[p / 64] >> (p % 64) & 1 == 1)
                        .map(|p| by_position[p])
                        .collect();
                    rows.sort_unstable();
                    let mut stats = [0.0; 3];
                    let count = node.costs(c, &[q], 2.0, weights.uniform(), &mut stats, &mut Vec::new());
                    prop_assert_eq!(count as usize, rows.len());
                    if rows.is_empty() {
                        continue;
                    }
                    let mut expected = [0.0; 3];
                    pinball.evaluate(&rows, &weights, &mut expected);
                    for (a, b) in stats.iter().zip(&expected) {
                        prop_assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{:?} {:?}", stats, expected);
                    }
                    // two quantiles at once, as the quantiles driver asks
                    let set = QuantileSet::new(&targets[..n_rows], &[q2, q]);
                    let (mut both, mut expected) = ([0.0; 5], [0.0; 5]);
                    node.costs(c, set.quantiles(), 1.0, weights.uniform(), &mut both, &mut Vec::new());
                    set.evaluate(&rows, &weights, &mut expected);
                    for (a, b) in both.iter().zip(&expected) {
                        prop_assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{:?} {:?}", both, expected);
                    }
                }
            }
        }
    }
}
