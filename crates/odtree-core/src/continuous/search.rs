//! The exact search over every threshold: depth-first branch and bound over the root
//! thresholds of each column, ConTree's depth-two solver at the bottom, and a store of solved
//! row sets (a set reached by different paths is solved once).

use super::loss::Loss;
use super::queue::Queue;
use super::rows::{NumericData, Rows};
use super::sweep::{Cut, Leaves, Stump, Sweeper};
use super::ContinuousConfig;
use crate::budget::{Budget, Stop};
use hashbrown::HashMap;
use std::rc::Rc;

/// How many thresholds of each column the depth-two solver tries, round after round over
/// the columns, before it searches the columns one at a time.
const PROBE_ROUNDS: usize = 3;

/// A solved subtree: a leaf, or a cut with its two subtrees.
#[derive(Debug)]
pub enum Sub {
    /// A leaf.
    Leaf,
    /// A split: rows with rank up to `cut.below` go left.
    Split(Cut, Rc<Sub>, Rc<Sub>),
}

/// A tree and its cost.
#[derive(Clone, Debug)]
pub struct Found {
    /// The cost, leaf penalties included.
    pub cost: f64,
    /// The tree.
    pub tree: Rc<Sub>,
}

/// A solve's answer: the optimal tree when it costs less than the bound asked, else a lower
/// bound on the optimum (at least the bound asked).
pub type Outcome = Result<Found, f64>;

/// What the store knows of one row set at one depth.
struct Known {
    /// A lower bound on the optimal cost.
    lower: f64,
    /// The optimal tree, once proven.
    optimal: Option<Found>,
}

/// A root split of a depth-two tree: the first `position + 1` rows of `column` go left,
/// with statistics `left_total`.
struct Root<'t> {
    column: usize,
    position: usize,
    left_total: &'t [f64],
}

/// The two children of a root threshold, solved at `depth` under a joint `limit`.
struct Children<'r> {
    lower: &'r Rows,
    upper: &'r Rows,
    depth: u32,
    limit: f64,
}

/// One exact search.
pub struct Search<'a, L: Loss> {
    loss: &'a L,
    budget: Budget,
    keys: &'a [u128],
    leaves: Leaves,
    /// Whether optimal costs never fall as rows join a set (see [`Queue`]).
    monotone: bool,
    /// `left[row]`: the side of each row in the split being evaluated.
    left: Vec<bool>,
    sweeper: Sweeper,
    /// Keyed by the row set, the depth and the node budget.
    store: HashMap<(u128, u32, u64), Known>,
    stopped: Option<Stop>,
    /// In an anytime pass, how many thresholds of each column a node of depth three or more
    /// tries (nothing it finds there is proven, nor stored); `None` in the exact search.
    tries: Option<usize>,
}

impl<'a, L: Loss> Search<'a, L> {
    /// A search over `data` for `loss` under `config` and `budget`; `keys` are the rows'
    /// hash keys ([`super::rows::row_keys`]).
    pub fn new(
        data: &'a NumericData,
        loss: &'a L,
        config: &'a ContinuousConfig,
        budget: Budget,
        keys: &'a [u128],
    ) -> Self {
        Self {
            loss,
            budget,
            keys,
            leaves: Leaves {
                min_rows: config.min_samples_leaf.max(1),
                penalty: config.leaf_penalty,
            },
            monotone: config.min_samples_leaf <= 1,
            left: vec![false; data.n_rows()],
            sweeper: Sweeper::new(loss.width()),
            store: HashMap::new(),
            stopped: None,
            tries: None,
        }
    }

    /// Limits each column of each node of depth three or more to its first `tries`
    /// thresholds (`None`: all of them, the exact search).
    pub fn set_tries(&mut self, tries: Option<usize>) {
        self.tries = tries;
    }

    /// When the time limit ends, if there is one.
    pub fn deadline(&self) -> Option<std::time::Instant> {
        self.budget.deadline()
    }

    /// Why the search stopped early, if it did.
    pub fn stopped(&self) -> Option<Stop> {
        self.stopped
    }

    /// How many row sets the store holds.
    pub fn stored(&self) -> usize {
        self.store.len()
    }

    /// The statistics of `rows`.
    pub fn total(&self, rows: &Rows) -> Vec<f64> {
        let mut acc = vec![0.0; self.loss.width()];
        for e in &rows.sorted[0] {
            self.loss.add(&mut acc, e.row as usize);
        }
        acc
    }

    /// The optimal tree of depth at most `depth` and at most `nodes` splits over `rows`, if
    /// it costs less than `bound`.
    pub fn solve(&mut self, rows: &Rows, depth: u32, nodes: u64, bound: f64) -> Outcome {
        let nodes = nodes.min(full(depth));
        let total = self.total(rows);
        let loss = self.loss.cost(&total);
        let leaf = loss + self.leaves.penalty;
        let split_floor = 2.0 * self.leaves.penalty;
        if depth == 0
            || nodes == 0
            || rows.len() < 2 * self.leaves.min_rows
            || loss <= 0.0
            || split_floor >= leaf
        {
            return if leaf < bound {
                Ok(Found {
                    cost: leaf,
                    tree: Rc::new(Sub::Leaf),
                })
            } else {
                Err(leaf)
            };
        }
        if bound <= self.leaves.penalty.min(split_floor) {
            return Err(bound);
        }
        let key = (rows.key, depth, nodes);
        if let Some(known) = self.store.get(&key) {
            if let Some(found) = &known.optimal {
                return if found.cost < bound {
                    Ok(found.clone())
                } else {
                    Err(found.cost)
                };
            }
            if known.lower >= bound {
                return Err(known.lower);
            }
        }
        let outcome = if depth <= 2 {
            self.depth_two(rows, &total, depth, nodes, bound, leaf)
        } else {
            self.deeper(rows, &total, depth, nodes, bound, leaf)
        };
        if self.stopped.is_none() && (depth <= 2 || self.tries.is_none()) {
            let known = self.store.entry(key).or_insert(Known {
                lower: 0.0,
                optimal: None,
            });
            match &outcome {
                Ok(found) => {
                    known.lower = found.cost;
                    known.optimal = Some(found.clone());
                }
                Err(lower) => known.lower = known.lower.max(*lower),
            }
        }
        outcome
    }

    /// The best stump on each column of `rows`, as the columns' order of promise.
    fn stumps(&mut self, rows: &Rows, total: &[f64]) -> Vec<Stump> {
        let counts = [rows.len(), 0];
        (0..rows.sorted.len())
            .map(|column| {
                let none = Stump {
                    cost: f64::INFINITY,
                    cut: None,
                };
                let mut best = [none, none];
                self.sweeper.column(
                    self.loss,
                    rows,
                    column,
                    &|_| 0,
                    [total, total],
                    counts,
                    self.leaves,
                    &mut best,
                );
                best[0]
            })
            .collect()
    }

    /// The candidate splits of `column` at `rows`, with the queue that tries them starting
    /// at the column's best stump (`totals`: see [`Queue::new`]).
    fn queue(&self, rows: &Rows, column: usize, stump: &Stump, totals: bool) -> Queue {
        let list = &rows.sorted[column];
        let n = list.len();
        let min = self.leaves.min_rows;
        let positions: Vec<usize> = (0..n.saturating_sub(1))
            .filter(|&p| list[p].rank != list[p + 1].rank && p + 1 >= min && n - p > min)
            .collect();
        let mut weight_before = Vec::with_capacity(n + 1);
        weight_before.push(0.0);
        let mut sum = 0.0;
        for e in list {
            sum += self.loss.weight(e.row as usize);
            weight_before.push(sum);
        }
        let first = stump.cut.map_or(positions.len() / 2, |cut| {
            positions.partition_point(|&p| list[p].rank < cut.below)
        });
        Queue::new(
            positions,
            weight_before,
            first,
            self.monotone,
            totals,
            self.loss.slope(),
        )
    }

    /// Marks the first `position + 1` rows of `column` as left, the others as right.
    fn mark(&mut self, rows: &Rows, column: usize, position: usize) {
        for (p, e) in rows.sorted[column].iter().enumerate() {
            self.left[e.row as usize] = p <= position;
        }
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

    /// The columns in order of their best stump's cost (ties by index).
    fn promising(stumps: &[Stump]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..stumps.len()).collect();
        order.sort_by(|&a, &b| stumps[a].cost.total_cmp(&stumps[b].cost).then(a.cmp(&b)));
        order
    }

    /// Whether the budget is spent; records why.
    fn out_of_budget(&mut self) -> bool {
        if let Some(stop) = self.budget.check_now() {
            self.stopped = Some(stop);
        }
        self.stopped.is_some()
    }

    /// Depth one or two: every root threshold's children are solved by one sweep of each
    /// column (ConTree's depth-two solver), the thresholds tried in bisection order.
    fn depth_two(
        &mut self,
        rows: &Rows,
        total: &[f64],
        depth: u32,
        nodes: u64,
        bound: f64,
        leaf: f64,
    ) -> Outcome {
        let mut best = Found {
            cost: bound,
            tree: Rc::new(Sub::Leaf),
        };
        let mut found = leaf < bound;
        if found {
            best.cost = leaf;
        }
        let stumps = self.stumps(rows, total);
        for stump in &stumps {
            if stump.cost < best.cost {
                best = Found {
                    cost: stump.cost,
                    tree: stump_tree(stump),
                };
                found = true;
            }
        }
        // what the search proves when it finds nothing below the bound
        let mut floor = stumps.iter().fold(leaf, |f, stump| f.min(stump.cost));
        if depth == 2 && nodes >= 2 {
            let mut queues: Vec<(usize, Queue, f64)> = Self::promising(&stumps)
                .into_iter()
                .map(|column| {
                    let queue = self.queue(rows, column, &stumps[column], false);
                    (column, queue, f64::INFINITY)
                })
                .collect();
            let mut marked = None;
            // a few rounds of one threshold of each column (its best stump's first, then by
            // bisection), so that a column of good trees bounds the others early
            for _ in 0..PROBE_ROUNDS {
                for (column, queue, least) in &mut queues {
                    let Some(i) = queue.next(best.cost) else {
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
                    };
                    let (parts, pair) = self.root_split(rows, total, nodes, &root, &mut marked);
                    queue.record(i, parts.0, parts.1);
                    *least = least.min(pair.0.cost + pair.1.cost);
                    floor = floor.min(pair.0.cost + pair.1.cost);
                    if pair.0.cost + pair.1.cost < best.cost {
                        best = self.two_level(rows, &root, pair);
                        found = true;
                    }
                }
            }
            // then each column in full, the cheapest so far first
            queues.sort_by(|a, b| a.2.total_cmp(&b.2));
            let width = self.loss.width();
            for (column, mut queue, _) in queues {
                let mut prefixes = Vec::new();
                while let Some(i) = queue.next(best.cost) {
                    if self.out_of_budget() {
                        break;
                    }
                    if prefixes.is_empty() {
                        prefixes = self.prefixes(rows, column);
                    }
                    let position = queue.position(i);
                    let root = Root {
                        column,
                        position,
                        left_total: &prefixes[(position + 1) * width..][..width],
                    };
                    let (parts, pair) = self.root_split(rows, total, nodes, &root, &mut marked);
                    queue.record(i, parts.0, parts.1);
                    floor = floor.min(pair.0.cost + pair.1.cost);
                    if pair.0.cost + pair.1.cost < best.cost {
                        best = self.two_level(rows, &root, pair);
                        found = true;
                    }
                }
                floor = floor.min(queue.floor());
                if self.stopped.is_some() {
                    break;
                }
            }
        }
        if found {
            Ok(best)
        } else {
            Err(floor.max(bound))
        }
    }

    /// The best depth-one children of the root split `root` at depth two: their optimal
    /// costs (for the queue's bounds), and the children the tree takes within `nodes`
    /// splits (with two, one child stays a leaf). `marked` is the split whose sides
    /// `self.left` holds (column, position).
    fn root_split(
        &mut self,
        rows: &Rows,
        total: &[f64],
        nodes: u64,
        root: &Root,
        marked: &mut Option<(usize, usize)>,
    ) -> ((f64, f64), (Stump, Stump)) {
        let (column, position) = (root.column, root.position);
        match *marked {
            Some((c, from)) if c == column => self.remark(rows, column, from, position),
            _ => self.mark(rows, column, position),
        }
        *marked = Some((column, position));
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
        );
        let parts = (l.cost, r.cost);
        if nodes >= 3 {
            return (parts, (l, r));
        }
        let penalty = self.leaves.penalty;
        let leaf_of = |acc: &[f64]| Stump {
            cost: self.loss.cost(acc) + penalty,
            cut: None,
        };
        let (l_leaf, r_leaf) = (leaf_of(root.left_total), leaf_of(&right_total));
        if l.cost + r_leaf.cost <= l_leaf.cost + r.cost {
            (parts, (l, r_leaf))
        } else {
            (parts, (l_leaf, r))
        }
    }

    /// The tree of the root split `root` over the depth-one children `pair`.
    fn two_level(&self, rows: &Rows, root: &Root, pair: (Stump, Stump)) -> Found {
        let cut = self.cut(rows, root.column, root.position);
        Found {
            cost: pair.0.cost + pair.1.cost,
            tree: Rc::new(Sub::Split(cut, stump_tree(&pair.0), stump_tree(&pair.1))),
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

    /// Depth three or more: each root threshold's children are solved recursively. With a
    /// full budget of splits, the larger child first and the smaller under the bound it
    /// leaves; under a smaller budget, every way of sharing it between the children, and
    /// then only the neighbourhood bound on whole costs applies (a child's optimum depends
    /// on its share).
    fn deeper(
        &mut self,
        rows: &Rows,
        total: &[f64],
        depth: u32,
        nodes: u64,
        bound: f64,
        leaf: f64,
    ) -> Outcome {
        let mut best: Option<Found> = (leaf < bound).then(|| Found {
            cost: leaf,
            tree: Rc::new(Sub::Leaf),
        });
        let stumps = self.stumps(rows, total);
        let mut floor = leaf;
        let whole = nodes == full(depth);
        for column in Self::promising(&stumps) {
            let mut queue = self.queue(rows, column, &stumps[column], !whole);
            for _ in 0..self.tries.unwrap_or(usize::MAX) {
                let limit = best.as_ref().map_or(bound, |b| b.cost);
                let Some(i) = queue.next(limit) else { break };
                if self.out_of_budget() {
                    break;
                }
                let position = queue.position(i);
                self.mark(rows, column, position);
                let (lower, upper) = rows.split(&self.left, self.keys);
                let children = Children {
                    lower: &lower,
                    upper: &upper,
                    depth: depth - 1,
                    limit,
                };
                let ((l, r), found) = if whole {
                    let loosen = self.loss.slope().map_or(0.0, |s| s * queue.reach());
                    self.both_children(&children, loosen)
                } else {
                    self.shared_children(&children, nodes - 1)
                };
                queue.record(i, l, r);
                floor = floor.min(l + r);
                if let Some((l, r)) = found {
                    best = Some(Found {
                        cost: l.cost + r.cost,
                        tree: Rc::new(Sub::Split(self.cut(rows, column, position), l.tree, r.tree)),
                    });
                }
            }
            floor = floor.min(queue.floor());
            if self.stopped.is_some() {
                break;
            }
        }
        best.ok_or(floor.max(bound))
    }

    /// The children's optimal trees with full budgets, if together they cost less than the
    /// limit, and lower bounds on their costs. The larger child goes first; the smaller one
    /// under a bound loosened by `loosen`, so that what it proves can rule out the other
    /// thresholds of the range.
    fn both_children(
        &mut self,
        at: &Children,
        loosen: f64,
    ) -> ((f64, f64), Option<(Found, Found)>) {
        let half = full(at.depth);
        let lower_first = at.lower.len() >= at.upper.len();
        let (first, second) = if lower_first {
            (at.lower, at.upper)
        } else {
            (at.upper, at.lower)
        };
        let second_floor = self.lower_bound(second, at.depth, half);
        let (a, b) = match self.solve(first, at.depth, half, at.limit - second_floor) {
            Err(at_least) => (Err(at_least), Err(second_floor)),
            Ok(one) => {
                let other = self.solve(second, at.depth, half, at.limit - one.cost + loosen);
                (Ok(one), other)
            }
        };
        let (l, r) = if lower_first { (a, b) } else { (b, a) };
        let cost_of = |o: &Outcome| match o {
            Ok(found) => found.cost,
            Err(at_least) => *at_least,
        };
        let parts = (cost_of(&l), cost_of(&r));
        match (l, r) {
            (Ok(l), Ok(r)) if l.cost + r.cost < at.limit => (parts, Some((l, r))),
            _ => (parts, None),
        }
    }

    /// The best pair of children sharing `nodes` splits, if it costs less than the limit,
    /// and a lower bound on the cost of every pair (as the first part, the second 0).
    fn shared_children(
        &mut self,
        at: &Children,
        nodes: u64,
    ) -> ((f64, f64), Option<(Found, Found)>) {
        let half = full(at.depth);
        let mut limit = at.limit;
        let mut at_least = f64::INFINITY;
        let mut best = None;
        for left_nodes in nodes.saturating_sub(half)..=nodes.min(half) {
            let right_nodes = nodes - left_nodes;
            let right_floor = self.lower_bound(at.upper, at.depth, right_nodes);
            let left = match self.solve(at.lower, at.depth, left_nodes, limit - right_floor) {
                Ok(left) => left,
                Err(lower_bound) => {
                    at_least = at_least.min(lower_bound + right_floor);
                    continue;
                }
            };
            match self.solve(at.upper, at.depth, right_nodes, limit - left.cost) {
                Err(lower_bound) => at_least = at_least.min(left.cost + lower_bound),
                Ok(right) => {
                    at_least = at_least.min(left.cost + right.cost);
                    if left.cost + right.cost < limit {
                        limit = left.cost + right.cost;
                        best = Some((left, right));
                    }
                }
            }
        }
        ((at_least, 0.0), best)
    }

    /// The cut after the first `position + 1` rows of `column`.
    fn cut(&self, rows: &Rows, column: usize, position: usize) -> Cut {
        let list = &rows.sorted[column];
        Cut {
            column: column as u32,
            below: list[position].rank,
            above: list[position + 1].rank,
        }
    }

    /// What the store proves of `rows` at `depth` within `nodes` splits (0 when nothing).
    fn lower_bound(&self, rows: &Rows, depth: u32, nodes: u64) -> f64 {
        let nodes = nodes.min(full(depth));
        self.store
            .get(&(rows.key, depth, nodes))
            .map_or(0.0, |known| known.lower)
    }
}

/// The splits of a full tree of `depth` levels.
pub fn full(depth: u32) -> u64 {
    if depth >= 63 {
        u64::MAX
    } else {
        (1u64 << depth) - 1
    }
}

fn stump_tree(stump: &Stump) -> Rc<Sub> {
    Rc::new(match stump.cut {
        None => Sub::Leaf,
        Some(cut) => Sub::Split(cut, Rc::new(Sub::Leaf), Rc::new(Sub::Leaf)),
    })
}
