//! The exact search over every threshold: depth-first branch and bound over the root
//! thresholds of each column, ConTree's depth-two solver at the bottom, and a store of solved
//! row sets (a set reached by different paths is solved once).

mod depth_two;
mod threads;

pub use threads::with_ties;

use super::loss::Loss;
use super::queue::Queue;
use super::rows::{NumericData, Rows};
use super::sweep::{Cut, Leaves, Stump, Sweeper};
use super::ContinuousConfig;
use crate::budget::{Budget, Stop};
use hashbrown::HashMap;
use std::sync::Arc;
use threads::Limit;

/// A solved subtree: a leaf, or a cut with its two subtrees.
#[derive(Debug)]
pub enum Sub {
    /// A leaf.
    Leaf,
    /// A split: rows with rank up to `cut.below` go left.
    Split(Cut, Arc<Sub>, Arc<Sub>),
}

/// A tree and its cost.
#[derive(Clone, Debug)]
pub struct Found {
    /// The cost, leaf penalties included.
    pub cost: f64,
    /// The tree.
    pub tree: Arc<Sub>,
}

/// A solve's answer: the optimal tree when it costs less than the bound asked, else a lower
/// bound on the optimum (at least the bound asked).
pub type Outcome = Result<Found, f64>;

/// What the store knows of one row set at one depth.
#[derive(Clone)]
struct Known {
    /// A lower bound on the optimal cost.
    lower: f64,
    /// The optimal tree, once proven.
    optimal: Option<Found>,
}

/// The two children's trees of a root threshold.
type Pair = (Found, Found);

/// The two children of a root threshold, solved at `depth` under a joint `limit`.
struct Children<'r> {
    lower: &'r Rows,
    upper: &'r Rows,
    depth: u32,
    limit: f64,
}

/// A node being searched: its rows, the best stump of each of their columns, and its
/// limits.
struct Node<'n> {
    rows: &'n Rows,
    stumps: &'n [Stump],
    depth: u32,
    nodes: u64,
}

/// One exact search.
pub struct Search<'a, L: Loss> {
    data: &'a NumericData,
    config: &'a ContinuousConfig,
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
    memory: Memory,
    /// The work left (see [`ContinuousConfig::max_work`]).
    work_left: u64,
    /// The key of the row set whose columns are tried on `config.threads` threads.
    root: Option<u128>,
}

/// What the search holds against its memory limits, and what it did to stay within them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Memory {
    /// Most bytes, and most stored row sets.
    max_bytes: usize,
    max_stored: usize,
    /// The bytes held whatever the store holds: the sorted columns and each level's lists.
    working: usize,
    /// The most row sets stored at once, and the most bytes held.
    pub peak_stored: usize,
    pub peak_bytes: usize,
    /// How many times the store was wiped.
    pub wipes: usize,
}

/// The bytes of one node of a stored tree (each stored optimum adds its root).
const TREE_NODE_BYTES: usize = std::mem::size_of::<Sub>() + 2 * std::mem::size_of::<usize>();

/// The bytes of the store's table once it holds `capacity` row sets, as hashbrown allocates
/// it (buckets at 7/8 load, a power of two of them, one control byte each), and of the trees
/// of `stored` optima.
fn store_bytes(capacity: usize, stored: usize) -> usize {
    let buckets = (capacity.max(1) * 8 / 7).next_power_of_two();
    buckets * (std::mem::size_of::<((u128, u32, u64), Known)>() + 1) + stored * TREE_NODE_BYTES
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
        let mut search = Self {
            data,
            config,
            loss,
            budget,
            keys,
            leaves: Leaves {
                min_rows: config.min_samples_leaf.max(1),
                min_split: config.min_samples_split.max(2),
                min_weight: config.min_weight_leaf.max(0.0),
                penalty: config.leaf_penalty,
            },
            // a node's optimum can fall as rows join it once they let it split
            monotone: config.min_samples_leaf <= 1
                && config.min_samples_split <= 2
                && config.min_weight_leaf <= 0.0,
            left: vec![false; data.n_rows()],
            sweeper: Sweeper::new(loss.width()),
            store: HashMap::new(),
            stopped: None,
            tries: None,
            work_left: config.max_work,
            root: None,
            memory: Memory {
                max_bytes: config.max_bytes,
                max_stored: config.max_stored,
                // the ranks, values and orders of the columns, and two row lists per level
                working: data.n_rows()
                    * data.n_columns()
                    * (16 + 2 * (config.max_depth.min(64) as usize + 1) * 8),
                ..Memory::default()
            },
        };
        search.memory.peak_bytes = search.memory.working;
        search
    }

    /// What the search held against its memory limits.
    pub fn memory(&self) -> Memory {
        self.memory
    }

    /// Tries the columns of `rows` on `config.threads` threads when the exact search
    /// solves them (see `threads.rs`).
    pub fn set_root(&mut self, rows: &Rows) {
        self.root = Some(rows.key);
    }

    /// The bytes held now: the working memory and the store.
    fn held_bytes(&self) -> usize {
        self.memory.working + store_bytes(self.store.capacity(), self.store.len())
    }

    /// Whether the working memory alone passes the byte limit (the search cannot run).
    pub fn over_memory_limit(&self) -> bool {
        self.memory.working > self.memory.max_bytes
    }

    /// Makes room for one more row set in the store, wiping it where the set would take the
    /// store past a limit. Returns whether the set may be stored.
    fn room_for_one_more(&mut self) -> bool {
        let memory = &mut self.memory;
        let len = self.store.len();
        let grows = len >= self.store.capacity();
        let capacity = if grows {
            (2 * len).max(4)
        } else {
            self.store.capacity()
        };
        let bytes = memory.working + store_bytes(capacity, len + 1);
        if len + 1 > memory.max_stored || bytes > memory.max_bytes {
            memory.wipes += 1;
            // a table outgrowing the limit is freed; one within it is kept for reuse
            if bytes > memory.max_bytes {
                self.store = HashMap::new();
            } else {
                self.store.clear();
            }
            let fits = memory.working + store_bytes(1, 1) <= memory.max_bytes;
            return memory.max_stored >= 1 && fits;
        }
        memory.peak_stored = memory.peak_stored.max(len + 1);
        memory.peak_bytes = memory
            .peak_bytes
            .max(memory.working + store_bytes(self.store.capacity().max(len + 1), len + 1));
        true
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

    /// Runs the search until `deadline` at the latest (as well as within its budget), until
    /// [`Self::resume`] is given the budget this returns.
    pub fn slice(&mut self, deadline: std::time::Instant) -> Budget {
        let part = self.budget.until(deadline);
        std::mem::replace(&mut self.budget, part)
    }

    /// Goes back to the `full` budget after a [`Self::slice`]: a stop at the slice's end is
    /// forgotten; an interrupt, or a stop for memory, stands.
    pub fn resume(&mut self, full: Budget) {
        self.budget = full;
        if self.stopped == Some(Stop::TimeLimit) {
            self.stopped = None;
            if let Some(stop) = self.budget.check_now() {
                self.stopped = Some(stop);
            }
        }
    }

    /// Stops the search for `why`.
    pub fn stop(&mut self, why: Stop) {
        self.stopped = Some(why);
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
            || rows.len() < (2 * self.leaves.min_rows).max(self.leaves.min_split)
            || !self.heavy_enough(rows)
            || loss <= 0.0
            || split_floor >= leaf
        {
            return if leaf < bound {
                Ok(Found {
                    cost: leaf,
                    tree: Arc::new(Sub::Leaf),
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
        if self.stopped.is_none()
            && (depth <= 2 || self.tries.is_none())
            && (self.store.contains_key(&key) || self.room_for_one_more())
        {
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

    /// Whether `rows` weigh enough for two leaves of the least leaf weight.
    fn heavy_enough(&self, rows: &Rows) -> bool {
        let least = self.leaves.min_weight * (1.0 - 1e-12);
        least <= 0.0
            || rows.sorted[0]
                .iter()
                .map(|e| self.loss.weight(e.row as usize))
                .sum::<f64>()
                >= 2.0 * least
    }

    /// The best stump on each column of `rows`, as the columns' order of promise.
    fn stumps(&mut self, rows: &Rows, total: &[f64]) -> Vec<Stump> {
        self.charge(rows);
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
    /// at the column's best stump.
    fn queue(&self, rows: &Rows, column: usize, stump: &Stump) -> Queue {
        let list = &rows.sorted[column];
        let n = list.len();
        let min = self.leaves.min_rows;
        let mut weight_before = Vec::with_capacity(n + 1);
        weight_before.push(0.0);
        let mut sum = 0.0;
        for e in list {
            sum += self.loss.weight(e.row as usize);
            weight_before.push(sum);
        }
        let least = self.leaves.min_weight * (1.0 - 1e-12);
        let heavy = |p: usize| {
            least <= 0.0 || weight_before[p + 1].min(sum - weight_before[p + 1]) >= least
        };
        let positions: Vec<usize> = (0..n.saturating_sub(1))
            .filter(|&p| {
                list[p].rank != list[p + 1].rank && p + 1 >= min && n - p > min && heavy(p)
            })
            .collect();
        let first = stump.cut.map_or(positions.len() / 2, |cut| {
            positions.partition_point(|&p| list[p].rank < cut.below)
        });
        Queue::new(
            positions,
            weight_before,
            first,
            self.monotone,
            self.loss.slope(),
        )
    }

    /// Marks the first `position + 1` rows of `column` as left, the others as right.
    fn mark(&mut self, rows: &Rows, column: usize, position: usize) {
        for (p, e) in rows.sorted[column].iter().enumerate() {
            self.left[e.row as usize] = p <= position;
        }
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
        } else if self.work_left == 0 {
            self.stopped = Some(Stop::TimeLimit);
        }
        self.stopped.is_some()
    }

    /// Counts a sweep over every column of `rows` against the work limit.
    fn charge(&mut self, rows: &Rows) {
        let work = (rows.len() * rows.sorted.len()) as u64;
        self.work_left = self.work_left.saturating_sub(work);
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
            tree: Arc::new(Sub::Leaf),
        });
        let stumps = self.stumps(rows, total);
        let order = Self::promising(&stumps);
        let at = Node {
            rows,
            stumps: &stumps,
            depth,
            nodes,
        };
        let mut floor = leaf;
        if self.on_threads(rows, &order) {
            floor = floor.min(self.columns_on_threads(&at, &order, bound, &mut best));
        } else {
            let limit = Limit::Own(bound);
            for column in order {
                floor = floor.min(self.try_column(&at, column, &limit, &mut best));
                if self.stopped.is_some() {
                    break;
                }
            }
        }
        best.ok_or(floor.max(bound))
    }

    /// Tries the thresholds of `column` at the node `at`, improving `best` with each tree
    /// cheaper than it and than `under`. Returns a lower bound on the cost of the column's
    /// thresholds that found no tree.
    fn try_column(
        &mut self,
        at: &Node,
        column: usize,
        under: &Limit,
        best: &mut Option<Found>,
    ) -> f64 {
        let (rows, depth, nodes) = (at.rows, at.depth, at.nodes);
        let whole = nodes == full(depth);
        let mut floor = f64::INFINITY;
        let mut queue = self.queue(rows, column, &at.stumps[column]);
        for _ in 0..self.tries.unwrap_or(usize::MAX) {
            let limit = best
                .as_ref()
                .map_or(f64::INFINITY, |b| b.cost)
                .min(under.get());
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
                let (parts, found) = self.both_children(&children, loosen);
                queue.record(i, parts.0, parts.1);
                (parts, found)
            } else {
                let (shares, found) = self.shared_children(&children, nodes - 1);
                let least = shares
                    .iter()
                    .map(|&(l, r)| l + r)
                    .fold(f64::INFINITY, f64::min);
                queue.record_shares(i, shares);
                ((least, 0.0), found)
            };
            floor = floor.min(l + r);
            if let Some((l, r)) = found {
                let cost = l.cost + r.cost;
                under.offer(cost);
                *best = Some(Found {
                    cost,
                    tree: Arc::new(Sub::Split(rows.cut(column, position), l.tree, r.tree)),
                });
            }
        }
        floor.min(queue.floor())
    }

    /// The children's optimal trees with full budgets, if together they cost less than the
    /// limit, and lower bounds on their costs. The larger child goes first. Both are solved
    /// under bounds loosened by `loosen`, so that what they prove can rule out the other
    /// thresholds of the range, and so that a child costing exactly what the limit leaves
    /// it is solved (and stored as solved) rather than only bounded: on wilt at depth 4
    /// this alone took a third off the search.
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
        let first_loosen = loosen.min(FIRST_LOOSEN * at.limit.max(0.0));
        let (a, b) = match self.solve(
            first,
            at.depth,
            half,
            at.limit - second_floor + first_loosen,
        ) {
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
    /// and for each share of the splits (the left child's from the least up) lower bounds on
    /// the two children's costs under it. Each share's costs rise (left) and fall (right)
    /// with the threshold as full-budget costs do, so the queue's bounds between two
    /// thresholds hold share by share.
    fn shared_children(&mut self, at: &Children, nodes: u64) -> (Vec<(f64, f64)>, Option<Pair>) {
        let half = full(at.depth);
        let mut limit = at.limit;
        let mut shares = Vec::new();
        let mut best = None;
        for left_nodes in nodes.saturating_sub(half)..=nodes.min(half) {
            let right_nodes = nodes - left_nodes;
            let right_floor = self.lower_bound(at.upper, at.depth, right_nodes);
            let left = match self.solve(at.lower, at.depth, left_nodes, limit - right_floor) {
                Ok(left) => left,
                Err(lower_bound) => {
                    shares.push((lower_bound, right_floor));
                    continue;
                }
            };
            match self.solve(at.upper, at.depth, right_nodes, limit - left.cost) {
                Err(lower_bound) => shares.push((left.cost, lower_bound)),
                Ok(right) => {
                    shares.push((left.cost, right.cost));
                    if left.cost + right.cost < limit {
                        limit = left.cost + right.cost;
                        best = Some((left, right));
                    }
                }
            }
        }
        (shares, best)
    }

    /// What the store proves of `rows` at `depth` within `nodes` splits (0 when nothing):
    /// also what it proves within every split the depth allows, which fewer splits cannot
    /// beat.
    fn lower_bound(&self, rows: &Rows, depth: u32, nodes: u64) -> f64 {
        let nodes = nodes.min(full(depth));
        let known = |nodes: u64| {
            self.store
                .get(&(rows.key, depth, nodes))
                .map_or(0.0, |known| known.lower)
        };
        if nodes < full(depth) {
            known(nodes).max(known(full(depth)))
        } else {
            known(nodes)
        }
    }
}

/// The share of its limit by which the larger child's bound is loosened at most: a wide
/// range of thresholds (at the root) would otherwise have it solved almost without a bound
/// (bank at depth 4: 0.12 s without this cap, 0.03 s with it).
const FIRST_LOOSEN: f64 = 0.3;

/// The splits of a full tree of `depth` levels.
pub fn full(depth: u32) -> u64 {
    if depth >= 63 {
        u64::MAX
    } else {
        (1u64 << depth) - 1
    }
}

fn stump_tree(stump: &Stump) -> Arc<Sub> {
    Arc::new(match stump.cut {
        None => Sub::Leaf,
        Some(cut) => Sub::Split(cut, Arc::new(Sub::Leaf), Arc::new(Sub::Leaf)),
    })
}
