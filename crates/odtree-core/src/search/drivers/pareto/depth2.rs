//! The fronts of subproblems of depth 2 from pair counts (MurTree's depth-2 solver, §4.3, for
//! fronts as STreeD does): the class counts of every pair of features within the node, kept
//! up to date by row differences ([`Counters`]), give the four cells of every root and child
//! split without visiting a child. With uniform weights every point is a pair of row counts,
//! so fronts are kept as integer staircases. Each child's front (depth 1) and the node's
//! front are made of the same points, offered in the same order, as the general walk makes
//! them, so that a tree read back through the general walk finds the same fronts.

use super::{How, Pareto, Point};
use crate::search::kernel::counts::{Counters, PairCounts};

/// Class counts of a node, (rows, positive rows); or a point, (false positives, false
/// negatives) in rows.
type Cell = (i32, i32);

impl Pareto<'_> {
    /// The front of the current node (`totals` its class weights, `rows` its row count) with
    /// 2 levels and `nodes` branching nodes left (1 to 3), when its rows have uniform weights
    /// `weight`; `None` if the budget ran out while counting.
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
        let rules = Rules {
            counts,
            n: kernel.data.n_features(),
            min_rows: kernel.config.min_samples_leaf as i32,
            min_split: kernel.config.min_samples_split as i32,
        };
        let node = (rows as i32, (totals[1] / weight).round() as i32);
        let mut front = Staircase::leaves(node);
        let mut buckets = Vec::new();
        let shared = nodes - 1;
        let (low, high) = (shared.saturating_sub(1), shared.min(1));
        for i in 0..rules.n as u32 {
            let right = rules.pair(i, i);
            let left = (node.0 - right.0, node.1 - right.1);
            if !(rules.holds(left) && rules.holds(right)) {
                continue;
            }
            if kernel.budget.check().is_some() {
                break;
            }
            for left_nodes in low..=high {
                let [l, r] = [
                    (left, left_nodes, false),
                    (right, shared - left_nodes, true),
                ]
                .map(|(cell, child_nodes, side)| {
                    if child_nodes == 0 {
                        Staircase::leaves(cell)
                    } else {
                        rules.child_front(i, side, cell, &mut buckets)
                    }
                });
                for (a, &(p, _)) in l.points.iter().enumerate() {
                    for (b, &(q, _)) in r.points.iter().enumerate() {
                        let how = How::Split {
                            feature: i,
                            left_nodes,
                            left: a as u32,
                            right: b as u32,
                        };
                        front.offer((p.0 + q.0, p.1 + q.1), how);
                    }
                }
            }
            // a split with no error dominates every other: nothing better is left to find
            if front.perfect() {
                break;
            }
        }
        Some(front.points(weight))
    }
}

/// What the fronts of one depth-2 node are made from.
struct Rules<'a> {
    counts: &'a PairCounts,
    n: usize,
    min_rows: i32,
    min_split: i32,
}

impl Rules<'_> {
    /// The counts of the node's rows where features `i` and `j` are both 1 (`i` if the same).
    fn pair(&self, i: u32, j: u32) -> Cell {
        let at = i as usize * self.n + j as usize;
        (self.counts.both[at], self.counts.ones[at])
    }

    /// Whether a child with these counts may be a leaf (`min_samples_leaf`).
    fn holds(&self, cell: Cell) -> bool {
        cell.0 >= self.min_rows
    }

    /// The front of depth 1 of the child where root feature `i` is `side`, whose counts are
    /// `child`: its leaves, and every valid split's leaves predicting different classes
    /// (those predicting one class are its own leaves' points), feature by feature. Where
    /// the child has few negative rows for its splits, each number of false positives keeps
    /// its fewest false negatives in `buckets` (the first point offered on a tie), and one
    /// pass over them makes the staircase; else the points are offered to one.
    fn child_front(
        &self,
        i: u32,
        side: bool,
        child: Cell,
        buckets: &mut Vec<(i32, How)>,
    ) -> Staircase {
        let mut front = Staircase::leaves(child);
        if front.points.len() == 1 || child.0 < 2 * self.min_rows || child.0 < self.min_split {
            return front;
        }
        let negatives = (child.0 - child.1) as usize;
        let bucketed = negatives < 4 * (2 * self.n + 2);
        if bucketed {
            buckets.clear();
            buckets.resize(negatives + 1, (i32::MAX, How::Leaf { positive: false }));
            for &((fp, fn_), how) in &front.points {
                buckets[fp as usize] = (fn_, how);
            }
        }
        for j in 0..self.n as u32 {
            // the child's rows where j is 1, and where it is 0
            let (both, only_j) = (self.pair(i, j), self.pair(j, j));
            let positive = if side {
                both
            } else {
                (only_j.0 - both.0, only_j.1 - both.1)
            };
            let negative = (child.0 - positive.0, child.1 - positive.1);
            if !(self.holds(positive) && self.holds(negative)) {
                continue;
            }
            let ((l, n_l), (r, n_r)) = (leaves(negative), leaves(positive));
            for (a, &((fp_a, fn_a), how_a)) in l[..n_l].iter().enumerate() {
                for (b, &((fp_b, fn_b), how_b)) in r[..n_r].iter().enumerate() {
                    if how_a != how_b {
                        let how = How::Split {
                            feature: j,
                            left_nodes: 0,
                            left: a as u32,
                            right: b as u32,
                        };
                        let (fp, fn_) = (fp_a + fp_b, fn_a + fn_b);
                        if !bucketed {
                            front.offer((fp, fn_), how);
                        } else if fn_ < buckets[fp as usize].0 {
                            buckets[fp as usize] = (fn_, how);
                        }
                    }
                }
            }
            let perfect = if bucketed {
                buckets[0].0 == 0
            } else {
                front.perfect()
            };
            if perfect {
                break;
            }
        }
        if bucketed {
            front.points.clear();
            let mut least = i32::MAX;
            for (fp, &(fn_, how)) in buckets.iter().enumerate() {
                if fn_ < least {
                    least = fn_;
                    front.points.push(((fp as i32, fn_), how));
                }
            }
        }
        front
    }
}

/// The points of the two leaves of a node with counts `(rows, positives)`, in
/// [`leaf_front`](super::leaf_front)'s order: predicting negative, then positive; one when
/// the node is pure (the first of the two returned).
fn leaves((rows, ones): Cell) -> ([(Cell, How); 2], usize) {
    let negative = ((0, ones), How::Leaf { positive: false });
    let positive = ((rows - ones, 0), How::Leaf { positive: true });
    match (rows == ones, ones == 0) {
        (true, _) => ([positive, negative], 1),
        (false, true) => ([negative, positive], 1),
        _ => ([negative, positive], 2),
    }
}

/// A front of integer points kept non-dominated as points are offered: by increasing false
/// positives (and decreasing false negatives); of equal points, the first offered, as
/// [`non_dominated`](super::non_dominated) keeps it.
struct Staircase {
    points: Vec<(Cell, How)>,
}

impl Staircase {
    /// The front of the two leaves of a node with counts `cell` (see [`leaves`]).
    fn leaves(cell: Cell) -> Self {
        let (points, n) = leaves(cell);
        Self {
            points: points[..n].to_vec(),
        }
    }

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
        if end == at {
            points.insert(at, ((fp, fn_), how));
        } else {
            points[at] = ((fp, fn_), how);
            points.drain(at + 1..end);
        }
    }

    /// Whether the front holds a point with no error.
    fn perfect(&self) -> bool {
        self.points[0].0 == (0, 0)
    }

    /// The points in weights of `weight` a row.
    fn points(self, weight: f64) -> Vec<Point> {
        (self.points.into_iter())
            .map(|((fp, fn_), how)| Point {
                fp: f64::from(fp) * weight,
                fn_: f64::from(fn_) * weight,
                how,
            })
            .collect()
    }
}
