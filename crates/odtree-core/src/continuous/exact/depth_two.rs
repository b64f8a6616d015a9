//! The depth-two solver: every root threshold's children are solved by one sweep of each
//! column (ConTree's depth-two solver), the thresholds of each column tried in bisection
//! order.

use super::{stump_tree, Found, Outcome, Search, Sub};
use crate::continuous::loss::Loss;
use crate::continuous::queue::{Queue, Slot};
use crate::continuous::rows::Rows;
use crate::continuous::sweep::{Stump, Sweeper};
use std::sync::Arc;

/// How many thresholds of each column the depth-two solver tries, round after round over
/// the columns, before it searches the columns one at a time.
const PROBE_ROUNDS: usize = 3;

/// The most numbers the statistics of every prefix of a column may take (64 MiB); wider
/// statistics (many classes, or the distinct targets of a quantile loss) are summed for
/// each root threshold instead.
const PREFIX_NUMBERS: usize = 1 << 23;

/// A root split of a depth-two tree: the first `position + 1` rows of `column` go left,
/// with statistics `left_total`.
struct Root<'t> {
    column: usize,
    position: usize,
    left_total: &'t [f64],
    /// Lower bounds on the optimal costs of its left and right children.
    part_floors: (f64, f64),
    /// The columns in the order the children's sweeps take them.
    columns: &'t [usize],
    /// Whether the sweeper holds the rows' positions in `column`'s order (see
    /// [`crate::continuous::sweep::Sweeper::root`]).
    keyed: bool,
}

/// What the depth-two solver knows so far: its best tree (costing the bound when it has
/// found none below it), whether it found one, and the least cost of the trees it tried.
struct Tally {
    best: Found,
    found: bool,
    floor: f64,
}

impl Tally {
    /// Takes the tree of the root split `root` over the depth-one children `pair` when it
    /// beats the best; `parts` bound the children's optimal costs.
    fn offer(&mut self, rows: &Rows, root: &Root, parts: (f64, f64), pair: (Stump, Stump)) {
        self.floor = self.floor.min(parts.0 + parts.1);
        let cost = pair.0.cost + pair.1.cost;
        if cost < self.best.cost {
            let cut = rows.cut(root.column, root.position);
            self.best = Found {
                cost,
                tree: Arc::new(Sub::Split(cut, stump_tree(&pair.0), stump_tree(&pair.1))),
            };
            self.found = true;
        }
    }
}

impl<L: Loss> Search<'_, L> {
    /// Depth one or two: every root threshold's children are solved by one sweep of each
    /// column (ConTree's depth-two solver), the thresholds tried in bisection order.
    pub(super) fn depth_two(
        &mut self,
        rows: &Rows,
        total: &[f64],
        depth: u32,
        nodes: u64,
        bound: f64,
        leaf: f64,
    ) -> Outcome {
        let stumps = self.stumps(rows, total);
        let mut tally = Tally {
            best: Found {
                cost: bound.min(leaf),
                tree: Arc::new(Sub::Leaf),
            },
            found: leaf < bound,
            floor: leaf,
        };
        for stump in &stumps {
            tally.floor = tally.floor.min(stump.cost);
            if stump.cost < tally.best.cost {
                tally.best = Found {
                    cost: stump.cost,
                    tree: stump_tree(stump),
                };
                tally.found = true;
            }
        }
        if depth == 2 && nodes >= 2 {
            self.sweeper.prepare(self.loss, rows);
            let order = Self::promising(&stumps);
            let mut queues: Vec<(usize, Queue)> = order
                .iter()
                .map(|&column| (column, self.queue(rows, column, &stumps[column])))
                .collect();
            let mut marked = None;
            // a few rounds of one threshold of each column (its best stump's first, then by
            // bisection), so that a column of good trees bounds the others early
            for _ in 0..PROBE_ROUNDS {
                for (column, queue) in &mut queues {
                    // one slot a round, tried or ruled out: the order of the candidates
                    // tried does not depend on the bound
                    let Slot::Try(i) = queue.next_slot(tally.best.cost) else {
                        continue;
                    };
                    if self.out_of_budget() {
                        break;
                    }
                    let position = queue.position(i);
                    let left_total = self.prefix(rows, *column, position);
                    let root = Root {
                        column: *column,
                        position,
                        left_total: &left_total,
                        part_floors: queue.part_floors(),
                        columns: &order,
                        keyed: false,
                    };
                    let (parts, pair) =
                        self.root_split(rows, total, nodes, &root, &mut marked, tally.best.cost);
                    queue.record(i, parts.0, parts.1);
                    tally.offer(rows, &root, parts, pair);
                }
            }
            // then each column in full, in order of promise (the order of the probes' bounds
            // would depend on the bound the node is searched under, and with it the tree
            // among equal ones: see `queue.rs`)
            let width = self.loss.width();
            // every prefix's statistics at once where they fit in PREFIX_NUMBERS
            let at_once = (rows.len() + 1).saturating_mul(width) <= PREFIX_NUMBERS;
            let packs = Sweeper::packs(self.loss, self.leaves);
            for (column, mut queue) in queues {
                let mut prefixes = Vec::new();
                let mut tried = 0;
                while let Some(i) = queue.next(tally.best.cost) {
                    if self.out_of_budget() {
                        break;
                    }
                    // from a column's second threshold on, sides come from positions
                    if packs && tried == 1 {
                        self.sweeper.root(rows, column, self.left.len());
                    }
                    tried += 1;
                    if prefixes.is_empty() && at_once {
                        prefixes = self.prefixes(rows, column);
                    }
                    let position = queue.position(i);
                    let one;
                    let left_total = if at_once {
                        &prefixes[(position + 1) * width..][..width]
                    } else {
                        one = self.prefix(rows, column, position);
                        &one
                    };
                    let root = Root {
                        column,
                        position,
                        left_total,
                        part_floors: queue.part_floors(),
                        columns: &order,
                        keyed: packs && tried > 1,
                    };
                    let (parts, pair) =
                        self.root_split(rows, total, nodes, &root, &mut marked, tally.best.cost);
                    queue.record(i, parts.0, parts.1);
                    tally.offer(rows, &root, parts, pair);
                }
                tally.floor = tally.floor.min(queue.floor());
                if self.stopped.is_some() {
                    break;
                }
            }
        }
        if tally.found {
            Ok(tally.best)
        } else {
            // what the search proves when it finds nothing below the bound
            Err(tally.floor.max(bound))
        }
    }

    /// The best depth-one children of the root split `root` at depth two: their optimal
    /// costs (for the queue's bounds), and the children the tree takes within `nodes`
    /// splits (with two, one child stays a leaf). `marked` is the split whose sides
    /// `self.left` holds (column, position). Only children costing less than `cap` each
    /// are wanted: a child's cost is at most `cap` less the other's floor (`root.part_floors`),
    /// and then a lower bound.
    fn root_split(
        &mut self,
        rows: &Rows,
        total: &[f64],
        nodes: u64,
        root: &Root,
        marked: &mut Option<(usize, usize)>,
        cap: f64,
    ) -> ((f64, f64), (Stump, Stump)) {
        let (column, position) = (root.column, root.position);
        self.charge(rows);
        if root.keyed {
            *marked = None; // the sweeps read the sides from the rows' positions
        } else {
            match *marked {
                Some((c, from)) if c == column => self.remark(rows, column, from, position),
                _ => self.mark(rows, column, position),
            }
            *marked = Some((column, position));
        }
        let right_total: Vec<f64> = total
            .iter()
            .zip(root.left_total)
            .map(|(t, l)| t - l)
            .collect();
        let left = &self.left;
        let n = rows.len();
        let [l, r] = self.sweeper.stumps(
            self.loss,
            rows,
            |row| usize::from(!left[row]),
            [root.left_total, &right_total],
            [position + 1, n - position - 1],
            self.leaves,
            // with a split each side, a side costing more than the cap less the other's
            // floor cannot be part of a cheaper tree
            if nodes >= 3 {
                [cap - root.part_floors.1, cap - root.part_floors.0]
            } else {
                [cap, cap]
            },
            root.columns,
            root.keyed.then_some(position as u32),
        );
        let parts = (l.cost, r.cost);
        let penalty = self.leaves.penalty;
        let leaf_of = |acc: &[f64]| Stump {
            cost: self.loss.cost(acc) + penalty,
            cut: None,
        };
        let (l_leaf, r_leaf) = (leaf_of(root.left_total), leaf_of(&right_total));
        // a side with no split below its cap comes back costing the cap, a bound for the
        // queue: its tree is the leaf, at the leaf's own cost
        let (l, r) = (
            if l.cut.is_some() { l } else { l_leaf },
            if r.cut.is_some() { r } else { r_leaf },
        );
        if nodes >= 3 {
            return (parts, (l, r));
        }
        if l.cost + r_leaf.cost <= l_leaf.cost + r.cost {
            (parts, (l, r_leaf))
        } else {
            (parts, (l_leaf, r))
        }
    }

    /// The statistics of the first `position + 1` rows of `column`.
    fn prefix(&self, rows: &Rows, column: usize, position: usize) -> Vec<f64> {
        let mut acc = vec![0.0; self.loss.width()];
        for e in &rows.sorted[column][..=position] {
            self.loss.add(&mut acc, e.row as usize);
        }
        acc
    }

    /// Moves the mark of `column` from after its first `from + 1` rows to after its first
    /// `to + 1` (see [`Self::mark`]), flipping only the rows in between.
    fn remark(&mut self, rows: &Rows, column: usize, from: usize, to: usize) {
        let (range, left) = if from < to {
            (from + 1..=to, true)
        } else {
            (to + 1..=from, false)
        };
        for e in &rows.sorted[column][range] {
            self.left[e.row as usize] = left;
        }
    }

    /// The statistics of the first `p` rows of `column`, for every `p` (`width` numbers
    /// each, summed in the column's order).
    fn prefixes(&self, rows: &Rows, column: usize) -> Vec<f64> {
        let width = self.loss.width();
        let list = &rows.sorted[column];
        let mut sums = vec![0.0; (list.len() + 1) * width];
        for (p, e) in list.iter().enumerate() {
            let (done, next) = sums.split_at_mut((p + 1) * width);
            next[..width].copy_from_slice(&done[p * width..]);
            self.loss.add(&mut next[..width], e.row as usize);
        }
        sums
    }
}
