//! The kept-sums path of the depth-2 solver works one root's row of pairs at a time: the leaf
//! costs of the row's cells in one loop the compiler vectorises ([`RowCosts`]), then, in
//! another, which of the later features' children each pair may improve
//! ([`RowCosts::mark`]). Most pairs improve none, and only the children they may improve are
//! relaxed.

use super::pairs::{four_costs, OTHER_LEFT, OTHER_RIGHT};
use super::{Node, Rules};
use crate::objective::Objective;
use crate::search::kernel::sums::RowSums;

/// The leaf costs of one root's row of pairs, and the cells' weights where a least leaf
/// weight needs them: four columns each (cells 0 = (¬i,¬b), 1 = (¬i,b), 2 = (i,¬b),
/// 3 = (i,b) for root i and each later feature b).
#[derive(Debug, Default)]
pub(super) struct RowCosts {
    costs: Vec<f64>,
    weights: Vec<f64>,
    /// One row's four cells and a later feature's and a pair's statistics (any length).
    cells: Vec<f64>,
    /// The row's length.
    m: usize,
}

impl RowCosts {
    /// The costs (and weights) of the cells of root i (whose rows have statistics `si`) with
    /// each later feature of `row`.
    pub fn fill<O: Objective>(&mut self, rules: &Rules<O>, node: &Node, si: &[f64], row: &RowSums) {
        let (m, len) = (row.features().len(), node.stats.len());
        self.m = m;
        self.costs.resize(4 * m, 0.0);
        let objective = rules.objective;
        match len {
            2 => costs::<2, O>(objective, node.stats, si, row, &mut self.costs),
            3 => costs::<3, O>(objective, node.stats, si, row, &mut self.costs),
            _ => self.each_cell(node.stats, si, row, |cell, b, stats, costs, _| {
                costs[cell * m + b] = objective.leaf_cost(stats);
            }),
        }
        self.weights.clear();
        if rules.min_leaf_weight > 0.0 {
            self.weights.resize(4 * m, 0.0);
            self.each_cell(node.stats, si, row, |cell, b, stats, _, weights| {
                weights[cell * m + b] = rules.statistics.weight(stats);
            });
        }
    }

    /// Calls `visit(cell, b, stats, costs, weights)` with the statistics of each cell of each
    /// pair of the row.
    fn each_cell(
        &mut self,
        s: &[f64],
        si: &[f64],
        row: &RowSums,
        mut visit: impl FnMut(usize, usize, &[f64], &mut [f64], &mut [f64]),
    ) {
        let len = s.len();
        self.cells.resize(6 * len, 0.0);
        let (four, rest) = self.cells.split_at_mut(4 * len);
        let (sj, pair) = rest.split_at_mut(len);
        for b in 0..self.m {
            for c in 0..len {
                sj[c] = row.singles(c)[b];
                pair[c] = row.pairs(c)[b];
            }
            super::pairs::fill_cells(four, s, si, sj, pair);
            for cell in 0..4 {
                let stats = &four[cell * len..(cell + 1) * len];
                visit(cell, b, stats, &mut self.costs, &mut self.weights);
            }
        }
    }

    /// Cell `cell`'s costs, by later feature.
    #[inline]
    fn cost(&self, cell: usize) -> &[f64] {
        &self.costs[cell * self.m..(cell + 1) * self.m]
    }

    /// The costs of the four cells with later feature `b`.
    #[inline(always)]
    pub fn at(&self, b: usize) -> [f64; 4] {
        std::array::from_fn(|cell| self.costs[cell * self.m + b])
    }

    /// Marks in `out`, for each later feature b, which of b's children its pair with the
    /// root may improve ([`may_improve`]), whose best splits so far cost `left` and `right`
    /// (by b).
    pub fn mark(&self, left: &[f64], right: &[f64], tol: f64, out: &mut Vec<u8>) {
        let m = self.m;
        let (none, b_only, i_only, both) = (self.cost(0), self.cost(1), self.cost(2), self.cost(3));
        let (left, right) = (&left[..m], &right[..m]);
        out.resize(m, 0);
        for (b, mark) in out.iter_mut().enumerate() {
            // b's left child split by the root: cells (¬i,¬b) and (i,¬b); its right: (¬i,b)
            // and (i,b)
            *mark = bit_if(may_improve(none[b] + i_only[b], left[b], tol), OTHER_LEFT)
                | bit_if(may_improve(b_only[b] + both[b], right[b], tol), OTHER_RIGHT);
        }
    }

    /// The weights of the four cells with later feature `b` (`None`: no least leaf weight).
    #[inline(always)]
    pub fn weights_at(&self, b: usize) -> Option<[f64; 4]> {
        let m = self.m;
        (!self.weights.is_empty()).then(|| std::array::from_fn(|cell| self.weights[cell * m + b]))
    }
}

/// Writes the leaf costs of root i's cells (singles `si`) with each later feature of `row`
/// into `out`, cell after cell, from the node's statistics `s`. The statistics are `N` long
/// (known at compile time, so the cells stay in registers and the loop runs on vectors).
#[inline(always)]
fn costs<const N: usize, O: Objective>(
    objective: &O,
    s: &[f64],
    si: &[f64],
    row: &RowSums,
    out: &mut [f64],
) {
    let m = row.features().len();
    let (s, si): ([f64; N], [f64; N]) = (
        std::array::from_fn(|c| s[c]),
        std::array::from_fn(|c| si[c]),
    );
    let pairs: [&[f64]; N] = std::array::from_fn(|c| &row.pairs(c)[..m]);
    let singles: [&[f64]; N] = std::array::from_fn(|c| &row.singles(c)[..m]);
    let (none, rest) = out[..4 * m].split_at_mut(m);
    let (b_only, rest) = rest.split_at_mut(m);
    let (i_only, both) = rest.split_at_mut(m);
    for b in 0..m {
        let (sb, p): ([f64; N], [f64; N]) = (
            std::array::from_fn(|c| singles[c][b]),
            std::array::from_fn(|c| pairs[c][b]),
        );
        [none[b], b_only[b], i_only[b], both[b]] = four_costs::<N, O>(objective, &s, &si, &sb, &p);
    }
}

/// Whether a split of objective `split` may replace a child's best split of objective `best`
/// ([`crate::subproblem::Cost::below`] either way round, within `tol`): a superset of the
/// splits [`super::Depth2::relax_children`] takes, and larger for a larger `best`.
#[inline(always)]
// negated as `Cost::below` is, so that a NaN passes here where it may pass there
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub(super) fn may_improve(split: f64, best: f64, tol: f64) -> bool {
    !(best < split - tol) || split <= best + tol
}

/// `bit` where `on`, else 0.
#[inline(always)]
pub(super) fn bit_if(on: bool, bit: u8) -> u8 {
    u8::from(on) * bit
}
