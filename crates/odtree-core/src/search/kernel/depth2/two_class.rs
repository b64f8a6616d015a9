//! The depth-2 solver's fast path for two-class data with unit weights and a minority-class
//! leaf cost (MurTree §4.3.3, spec §5.4d): pair counts kept up to date incrementally
//! ([`Counters`]), and a branch-free scan of each root's row of counts in integers; the
//! children's features are recovered for the winners only.

use super::{leaves_only, prefer_smaller, Depth2, Node, Rules, Trees};
use crate::budget::Budget;
use crate::objective::Objective;
use crate::search::kernel::counts::Counters;
use crate::subproblem::{Cost, Decision};

impl<C: Cost> Depth2<C> {
    /// The depth-2 trees from integer pair counts: a leaf of `[a, b]` rows costs
    /// `weight * min(a, b) + per_leaf`.
    pub(super) fn solve_two_class<O: Objective>(
        &mut self,
        rules: &Rules<O>,
        node: &Node,
        weight: f64,
        per_leaf: f64,
        budget: &mut Budget,
    ) -> Trees<C> {
        let data = rules.data;
        let n = data.n_features();
        let counters = self
            .counters
            .get_or_insert_with(|| Counters::new(data, rules.incremental));
        let Some(counts) = counters.count(data, node.cover, budget) else {
            return leaves_only(node);
        };
        let (both, ones) = (&counts.both[..], &counts.ones[..]);
        self.singles.clear();
        self.singles
            .extend((0..n).map(|j| (both[j * n + j], ones[j * n + j])));
        let total = node.rows as i32;
        let total1 = (node.stats[1] / weight).round() as i32;
        // a leaf of uniform weight rows weighs enough with enough rows
        let heavy = (rules.min_leaf_weight / weight * (1.0 - 1e-12)).ceil();
        let m = (rules.min_samples_leaf as i32).max(heavy.min(i32::MAX as f64) as i32);
        let min_split = rules.min_samples_split as i32;
        self.split_errors.clear();
        for &i in node.candidates {
            if budget.exhausted(false) {
                return leaves_only(node);
            }
            let i = i as usize;
            let row = (&both[i * n..(i + 1) * n], &ones[i * n..(i + 1) * n]);
            let (mut left, mut right) =
                best_child_splits(row, &self.singles, (total, total1), i, m);
            // a child of too few rows stays a leaf
            let right_rows = self.singles[i].0;
            if total - right_rows < min_split {
                left = i32::MAX;
            }
            if right_rows < min_split {
                right = i32::MAX;
            }
            self.split_errors.push((left, right));
        }
        let errors = |rows: i32, class1: i32| (rows - class1).min(class1);
        let leaf = C::leaf(per_leaf);
        let cost = |errors: i32, leaves: u32| {
            let one = C::value(errors as f64 * weight) + leaf;
            if leaves == 1 {
                one
            } else {
                one + leaf
            }
        };
        let tol = rules.tolerance;
        // (cost, index of the root among the candidates, left splits, right splits)
        let mut best = [(C::leaf(node.leaf.cost), usize::MAX, false, false); 3];
        let mut relax = |slot: usize, value: C, at: usize, left: bool, right: bool| {
            if value.below(best[slot].0, tol) {
                best[slot] = (value, at, left, right);
            }
        };
        for (at, &i) in node.candidates.iter().enumerate() {
            let (ni, oi) = self.singles[i as usize];
            let (leaf_left, leaf_right) = (
                cost(errors(total - ni, total1 - oi), 1),
                cost(errors(ni, oi), 1),
            );
            let (split_left, split_right) = self.split_errors[at];
            let split = |e: i32| {
                if e == i32::MAX {
                    C::INFINITY
                } else {
                    cost(e, 2)
                }
            };
            let (split_left, split_right) = (split(split_left), split(split_right));
            let left_splits = split_left.below(leaf_left, tol);
            let right_splits = split_right.below(leaf_right, tol);
            let left = if left_splits { split_left } else { leaf_left };
            let right = if right_splits {
                split_right
            } else {
                leaf_right
            };
            relax(0, leaf_left + leaf_right, at, false, false);
            if !(leaf_left + right).below(left + leaf_right, 0.0) {
                relax(1, left + leaf_right, at, left_splits, false);
            } else {
                relax(1, leaf_left + right, at, false, right_splits);
            }
            relax(2, left + right, at, left_splits, right_splits);
        }
        let mut trees = [(C::leaf(node.leaf.cost), Decision::Leaf); 3];
        for (tree, &(value, at, left, right)) in trees.iter_mut().zip(&best) {
            if at == usize::MAX {
                continue;
            }
            let root = node.candidates[at] as usize;
            let row = (
                &both[root * n..(root + 1) * n],
                &ones[root * n..(root + 1) * n],
            );
            let child = |right_side: bool, wanted: i32| {
                node.candidates.iter().copied().find(|&j| {
                    let (e, valid) =
                        child_split(row, &self.singles, (total, total1), root, j as usize, m);
                    valid[right_side as usize] && e[right_side as usize] == wanted
                })
            };
            let (split_left, split_right) = self.split_errors[at];
            *tree = (
                value,
                Decision::Terminal {
                    feature: root as u32,
                    left: if left { child(false, split_left) } else { None },
                    right: if right {
                        child(true, split_right)
                    } else {
                        None
                    },
                },
            );
        }
        prefer_smaller(&mut trees, tol);
        trees
    }
}

/// Errors of root `i`'s left and right child when each splits on `j`, and whether each of those
/// splits is valid (both cells hold at least `m` rows). `row` is root i's row of pair counts
/// (rows, class-1 rows), `singles` the single-feature counts, `total` the node's counts.
#[inline(always)]
fn child_split(
    row: (&[i32], &[i32]),
    singles: &[(i32, i32)],
    total: (i32, i32),
    i: usize,
    j: usize,
    m: i32,
) -> ([i32; 2], [bool; 2]) {
    let errors = |rows: i32, class1: i32| (rows - class1).min(class1);
    let (ni, oi) = singles[i];
    let (nj, oj) = singles[j];
    let (nij, oij) = (row.0[j], row.1[j]);
    // left child (i = 0): cells (¬i, j) and (¬i, ¬j)
    let (n01, o01) = (nj - nij, oj - oij);
    let (n00, o00) = (total.0 - ni - n01, total.1 - oi - o01);
    // right child (i = 1): cells (i, ¬j) and (i, j)
    let (n10, o10) = (ni - nij, oi - oij);
    (
        [
            errors(n00, o00) + errors(n01, o01),
            errors(n10, o10) + errors(nij, oij),
        ],
        [n00 >= m && n01 >= m, n10 >= m && nij >= m],
    )
}

/// The fewest errors of root `i`'s left and right child over every valid split of each
/// (`i32::MAX` where none is valid). A branch-free loop over all features, which the compiler
/// vectorises.
fn best_child_splits(
    row: (&[i32], &[i32]),
    singles: &[(i32, i32)],
    total: (i32, i32),
    i: usize,
    m: i32,
) -> (i32, i32) {
    let (mut left, mut right) = (i32::MAX, i32::MAX);
    for j in 0..singles.len() {
        let (e, valid) = child_split(row, singles, total, i, j, m);
        left = left.min(if valid[0] { e[0] } else { i32::MAX });
        right = right.min(if valid[1] { e[1] } else { i32::MAX });
    }
    (left, right)
}
