//! The fronts of subproblems of depth 2 from pair counts (MurTree's depth-2 solver, §4.3, for
//! fronts as STreeD does): the class counts of every pair of features within the node, kept
//! up to date by row differences ([`Counters`]), give the four cells of every root and child
//! split without visiting a child. Each child's front (depth 1) and the node's front are made
//! of the same points in the same order as the general walk makes them, so that a tree read
//! back through the general walk finds the same fronts.

use super::{leaf_front, non_dominated, How, Pareto, Point};
use crate::search::kernel::counts::{Counters, PairCounts};

/// A node's class counts: (rows, positive rows).
type Cell = (i32, i32);

impl Pareto<'_> {
    /// The front of the current node (`totals` its class weights, `rows` its row count) with
    /// 2 levels and `nodes` branching nodes left (1 to 3), when its rows have unit-free
    /// uniform weights `weight`; `None` if the budget ran out while counting.
    pub(super) fn depth2_front(
        &mut self,
        totals: [f64; 2],
        rows: u32,
        nodes: u32,
        weight: f64,
    ) -> Option<Vec<Point>> {
        let kernel = &mut self.kernel;
        let counters = self
            .counters
            .get_or_insert_with(|| Counters::new(kernel.data, kernel.config.incremental_counting));
        let counts = counters.count(kernel.data, &kernel.cover, &mut kernel.budget)?;
        let n = kernel.data.n_features();
        let node = (rows as i32, (totals[1] / weight).round() as i32);
        let rules = Rules {
            counts,
            n,
            min_rows: kernel.config.min_samples_leaf as i32,
            min_split: kernel.config.min_samples_split as i32,
            weight,
        };
        let mut points = leaf_front(totals);
        let shared = nodes - 1;
        let (low, high) = (shared.saturating_sub(1), shared.min(1));
        for i in 0..n as u32 {
            let right = rules.single(i);
            let left = (node.0 - right.0, node.1 - right.1);
            if !(rules.holds(left) && rules.holds(right)) {
                continue;
            }
            if kernel.budget.check().is_some() {
                break;
            }
            for left_nodes in low..=high {
                let fronts = [
                    (left, left_nodes, false),
                    (right, shared - left_nodes, true),
                ]
                .map(|(cell, child_nodes, side)| {
                    if child_nodes == 0 {
                        leaf_front(rules.totals(cell))
                    } else {
                        rules.child_front(i, side, cell)
                    }
                });
                for (a, p) in fronts[0].iter().enumerate() {
                    for (b, q) in fronts[1].iter().enumerate() {
                        points.push(Point {
                            fp: p.fp + q.fp,
                            fn_: p.fn_ + q.fn_,
                            how: How::Split {
                                feature: i,
                                left_nodes,
                                left: a as u32,
                                right: b as u32,
                            },
                        });
                    }
                }
            }
            points = non_dominated(points, self.tolerance);
            // a split with no error dominates every other: nothing better is left to find
            if (points.first()).is_some_and(|p| p.fp + p.fn_ <= self.tolerance) {
                break;
            }
        }
        Some(non_dominated(points, self.tolerance))
    }
}

/// What the fronts of one depth-2 node are made from.
struct Rules<'a> {
    counts: &'a PairCounts,
    n: usize,
    min_rows: i32,
    min_split: i32,
    weight: f64,
}

impl Rules<'_> {
    /// The counts of the node's rows where feature `i` is 1.
    fn single(&self, i: u32) -> Cell {
        self.pair(i, i)
    }

    /// The counts of the node's rows where features `i` and `j` are both 1.
    fn pair(&self, i: u32, j: u32) -> Cell {
        let at = i as usize * self.n + j as usize;
        (self.counts.both[at], self.counts.ones[at])
    }

    /// Whether a child with these counts may be a leaf (`min_samples_leaf`).
    fn holds(&self, cell: Cell) -> bool {
        cell.0 >= self.min_rows
    }

    /// The class weights (negative, positive) of a cell.
    fn totals(&self, cell: Cell) -> [f64; 2] {
        [
            f64::from(cell.0 - cell.1) * self.weight,
            f64::from(cell.1) * self.weight,
        ]
    }

    /// The front of depth 1 of the child where root feature `i` is `side`, whose counts are
    /// `child`: its leaves, and every valid split's pairs of leaves, feature by feature. The
    /// counts are integers, so the points are sorted by integer keys (ties in the order made,
    /// which [`non_dominated`] keeps).
    fn child_front(&self, i: u32, side: bool, child: Cell) -> Vec<Point> {
        let leaves = leaf_front(self.totals(child));
        if leaves.len() == 1 || child.0 < 2 * self.min_rows || child.0 < self.min_split {
            return leaves;
        }
        // the front so far: (false positives, false negatives) in rows, and how each is made
        let mut front = Staircase::default();
        for (point, (errors, _)) in leaves.iter().zip(leaf_errors(child).0) {
            front.offer(errors, point.how);
        }
        for j in 0..self.n as u32 {
            // the child's rows where j is 1, and where it is 0
            let (both, only_j) = (self.pair(i, j), self.single(j));
            let positive = if side {
                both
            } else {
                (only_j.0 - both.0, only_j.1 - both.1)
            };
            let negative = (child.0 - positive.0, child.1 - positive.1);
            if !(self.holds(positive) && self.holds(negative)) {
                continue;
            }
            let ((left, n_left), (right, n_right)) = (leaf_errors(negative), leaf_errors(positive));
            for (a, &(p, _)) in left[..n_left].iter().enumerate() {
                for (b, &(q, _)) in right[..n_right].iter().enumerate() {
                    let how = How::Split {
                        feature: j,
                        left_nodes: 0,
                        left: a as u32,
                        right: b as u32,
                    };
                    front.offer((p.0 + q.0, p.1 + q.1), how);
                }
            }
            // a split with no error dominates every other: nothing better is left to find
            if front.points[0].0 == (0, 0) {
                break;
            }
        }
        let weight = self.weight;
        (front.points.into_iter())
            .map(|((fp, fn_), how)| Point {
                fp: f64::from(fp) * weight,
                fn_: f64::from(fn_) * weight,
                how,
            })
            .collect()
    }
}

/// A front of integer points kept non-dominated as points are offered: by increasing false
/// positives (and decreasing false negatives); of equal points, the first offered.
#[derive(Default)]
struct Staircase {
    points: Vec<(Cell, How)>,
}

impl Staircase {
    /// Adds `(fp, fn)` made by `how` unless a point of the front is as good in both, and
    /// drops the points it is as good as.
    fn offer(&mut self, (fp, fn_): Cell, how: How) {
        let points = &mut self.points;
        let mut at = points.partition_point(|&((f, _), _)| f <= fp);
        if at > 0 {
            let ((f, n), _) = points[at - 1];
            if n <= fn_ {
                return;
            }
            if f == fp {
                at -= 1; // the same false positives, more false negatives: replaced
            }
        }
        let end = at + points[at..].partition_point(|&((_, n), _)| n >= fn_);
        points.splice(at..end, [((fp, fn_), how)]);
    }
}

/// The (false positives, false negatives) of the leaves of a node with counts `cell`, in
/// [`leaf_front`]'s order, and how many there are.
fn leaf_errors(cell: Cell) -> ([(Cell, bool); 2], usize) {
    let (rows, ones) = cell;
    let negative = ((0, ones), false);
    let positive = ((rows - ones, 0), true);
    match (rows == ones, ones == 0) {
        (true, _) => ([positive, negative], 1),
        (false, true) => ([negative, positive], 1),
        _ => ([negative, positive], 2),
    }
}
