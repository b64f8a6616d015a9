//! Optimal trees over numeric columns, searching every threshold: each column is one
//! feature whose tests are `x <= t` for every midpoint between two of its distinct values,
//! as in ConTree (Brița et al., AAAI 2025).
//!
//! Columns are sorted once; a subproblem holds its rows as each column's sorted list.
//! Depth-one and depth-two subproblems are solved by sweeps with running statistics
//! ([`sweep`]); deeper ones by branch and bound over each column's thresholds, tried in
//! bisection order and skipped in ranges by ConTree's bounds ([`queue`]), with a store of
//! solved row sets. An upper bound (such as the cost of a tree on a coarse grid of
//! thresholds) prunes from the start; when no tree beats it, the status is
//! [`Status::Infeasible`], which proves that tree optimal.

pub mod exact;
pub mod loss;
mod metric;
pub mod packed;
pub mod pinball;
pub mod queue;
pub mod rows;
pub mod sweep;

use crate::budget::Budget;
use crate::solver::Status;
use exact::{Search, Sub};
use loss::Loss;
pub use metric::solve_metric;
use rows::{row_keys, NumericData, Rows};
use std::time::{Duration, Instant};

/// The limits of one exact search over numeric columns.
#[derive(Clone, Debug)]
pub struct ContinuousConfig {
    /// Levels of splits at most.
    pub max_depth: u32,
    /// Splits at most (`u64::MAX`: as many as the depth allows).
    pub max_nodes: u64,
    /// Rows (of non-zero weight) each leaf holds at least.
    pub min_samples_leaf: usize,
    /// Rows (of non-zero weight) a node holds at least to split.
    pub min_samples_split: usize,
    /// Weight each leaf holds at least (within a relative 1e-12 of rounding).
    pub min_weight_leaf: f64,
    /// The cost added per leaf.
    pub leaf_penalty: f64,
    /// Only trees costing strictly less than this are wanted.
    pub upper_bound: f64,
    /// Most bytes the search may hold: the sorted columns, each level's row lists, and the
    /// store of solved row sets, which is wiped (and its sets solved again when met again)
    /// rather than outgrow it. `usize::MAX`: no limit.
    pub max_bytes: usize,
    /// Most row sets the store holds before it is wiped. `usize::MAX`: no limit.
    pub max_stored: usize,
    /// Most work the search may do, counted in rows times columns swept (`u64::MAX`: no
    /// limit). A search that runs out stops as at a time limit, but at the same point on
    /// every machine; it is there to prove quickly, so it makes no anytime passes.
    pub max_work: u64,
    /// Threads the exact search's root tries its columns on (1: this thread alone; see
    /// `exact/threads.rs`).
    pub threads: usize,
}

impl Default for ContinuousConfig {
    fn default() -> Self {
        Self {
            max_depth: 2,
            max_nodes: u64::MAX,
            min_samples_leaf: 1,
            min_samples_split: 2,
            min_weight_leaf: 0.0,
            leaf_penalty: 0.0,
            upper_bound: f64::INFINITY,
            max_bytes: usize::MAX,
            max_stored: usize::MAX,
            max_work: u64::MAX,
            threads: 1,
        }
    }
}

/// One node of a found tree, in pre-order.
#[derive(Clone, Debug, PartialEq)]
pub struct NumericNode {
    /// The column split on; `None` for a leaf.
    pub column: Option<usize>,
    /// Rows with a value at most this go to `left`, the others to `right`.
    pub threshold: f64,
    /// The children's indices (0 for a leaf).
    pub left: usize,
    /// See `left`.
    pub right: usize,
    /// The statistics of the node's rows (class weights, or weight and sums of targets).
    pub stats: Vec<f64>,
    /// Rows of non-zero weight reaching the node.
    pub rows: usize,
    /// Their weight.
    pub weight: f64,
    /// The class the node predicts as a leaf (0 without classes).
    pub label: usize,
    /// The value it predicts as a leaf (the class index, or the regression value).
    pub value: f64,
    /// Its rows' loss around that prediction, leaf penalty left out.
    pub loss: f64,
}

/// The outcome of [`solve`].
#[derive(Clone, Debug)]
pub struct NumericSolution {
    /// The tree, root first; a single leaf when no tree beat the upper bound.
    pub nodes: Vec<NumericNode>,
    /// The tree's cost, leaf penalties included.
    pub objective: f64,
    /// A proven lower bound on the optimal cost.
    pub lower_bound: f64,
    /// `Optimal`, `Infeasible` (nothing beats the upper bound), `TimeLimit` or `Interrupted`.
    pub status: Status,
    /// Row sets the store held at the end.
    pub stored: usize,
    /// The most row sets it held at once.
    pub peak_stored: usize,
    /// The bytes the search held at its peak (see [`ContinuousConfig::max_bytes`]).
    pub peak_bytes: usize,
    /// How many times the store was wiped to stay within the limits.
    pub wipes: usize,
    /// Wall time in seconds.
    pub seconds: f64,
}

/// The optimal tree over every threshold of `data`'s columns for `loss` (rows of weight
/// zero are left out).
pub fn solve<L: Loss>(
    data: &NumericData,
    loss: &L,
    config: &ContinuousConfig,
    budget: Budget,
) -> NumericSolution {
    let start = Instant::now();
    let keys = row_keys(data.n_rows());
    let rows = Rows::all(data, &keys, |row| loss.weight(row) > 0.0);
    let mut search = Search::new(data, loss, config, budget, &keys);
    search.set_root(&rows);
    let (depth, nodes) = (config.max_depth, config.max_nodes);
    let mut bound = config.upper_bound;
    let mut first = None;
    let mut proven = None;
    // the passes find good trees early for a time limit, or where no first tree bounds the
    // search; a search without either is there to prove, and an upper bound serves it
    // better (bank, bidding and raisin at depth 4 were 0-35 % faster without the passes)
    if depth >= ANYTIME_DEPTH
        && config.max_work == u64::MAX
        && (search.deadline().is_some() || !bound.is_finite())
        && !search.over_memory_limit()
    {
        // a short exact search first: an instance it proves needs no passes (bank at depth
        // 4 under a time limit: 66 ms with the passes first); what it stores serves the rest
        let full = search.slice(Instant::now() + EXACT_FIRST);
        let proof = search.solve(&rows, depth, nodes, bound);
        let sliced = search.stopped();
        search.resume(full);
        match (proof, sliced) {
            (proof, None) => proven = Some(proof),
            (Ok(found), Some(_)) => {
                bound = found.cost;
                first = Some(found);
            }
            (Err(_), Some(_)) => {}
        }
        if proven.is_none() && search.stopped().is_none() {
            if let Some(found) = anytime_passes(&mut search, &rows, depth, nodes, &mut bound) {
                first = Some(found);
            }
        }
    }
    // the first trees may cost the optimum: the proof looks for trees no dearer than them,
    // so that its tree is the one a proof without them finds (the same whatever the bound
    // and the number of threads, see `exact/threads.rs`)
    let proof_bound = first.as_ref().map_or(bound, |found| {
        config.upper_bound.min(exact::with_ties(found.cost))
    });
    let mut outcome = first.ok_or(bound);
    if search.over_memory_limit() {
        search.stop(crate::budget::Stop::MemoryLimit);
    }
    if let Some(proof) = proven {
        outcome = proof.or(outcome);
    } else if search.stopped().is_none() {
        search.set_tries(None);
        match search.solve(&rows, depth, nodes, proof_bound) {
            Ok(better)
                if outcome
                    .as_ref()
                    .map_or(true, |first| better.cost <= first.cost) =>
            {
                outcome = Ok(better);
            }
            _ => {}
        }
    }
    let stopped = search.stopped();
    let (tree, status) = match (outcome, stopped) {
        (Ok(found), None) => (found.tree, Status::Optimal),
        (Err(_), None) => (std::sync::Arc::new(Sub::Leaf), Status::Infeasible),
        (Ok(found), Some(stop)) => (found.tree, status_of(stop)),
        (Err(_), Some(stop)) => (std::sync::Arc::new(Sub::Leaf), status_of(stop)),
    };
    let mut nodes = Vec::new();
    let kept: Vec<usize> = rows.sorted[0].iter().map(|e| e.row as usize).collect();
    flatten(data, loss, &tree, &kept, &mut nodes);
    let objective = nodes
        .iter()
        .filter(|n| n.column.is_none())
        .map(|n| loss.cost(&n.stats) + config.leaf_penalty)
        .sum();
    let lower_bound = match status {
        Status::Optimal => objective,
        Status::Infeasible => config.upper_bound,
        _ => 0.0,
    };
    NumericSolution {
        nodes,
        objective,
        lower_bound,
        status,
        stored: search.stored(),
        peak_stored: search.memory().peak_stored,
        peak_bytes: search.memory().peak_bytes,
        wipes: search.memory().wipes,
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// From this depth on, anytime passes come before the exact search.
pub const ANYTIME_DEPTH: u32 = 4;

/// How long the exact search runs before the anytime passes: what it proves in that time
/// needs no passes.
const EXACT_FIRST: Duration = Duration::from_millis(100);

/// The most time the anytime passes take before the exact search under a time limit.
const PASSES_AT_MOST: Duration = Duration::from_secs(5);

/// Anytime passes (see [`Search::set_tries`]) with 1, 2, 4, ... thresholds per column at
/// the nodes of depth three or more, each looking for a tree cheaper than the last one
/// found (`bound`, lowered as they find them), while they fit in half the time left and
/// [`PASSES_AT_MOST`] (a second without a time limit, when no upper bound was given), and
/// until they try every threshold: a search that can prove the optimum spends little on
/// them. Returns the best tree found.
fn anytime_passes<L: Loss>(
    search: &mut Search<'_, L>,
    rows: &Rows,
    depth: u32,
    nodes: u64,
    bound: &mut f64,
) -> Option<exact::Found> {
    let started = Instant::now();
    // without a time limit the search is there to prove: passes get a second
    let share = search
        .deadline()
        .map_or(Duration::from_secs(1), |deadline| {
            (deadline.saturating_duration_since(started) / 2).min(PASSES_AT_MOST)
        });
    let mut best = None;
    let mut tries = 1;
    while search.stopped().is_none() && tries < rows.len() {
        let pass = Instant::now();
        search.set_tries(Some(tries));
        if let Ok(found) = search.solve(rows, depth, nodes, *bound) {
            *bound = found.cost;
            best = Some(found);
        }
        // the next pass tries twice the thresholds: it would likely overrun the share
        if started.elapsed() + 2 * pass.elapsed() > share {
            break;
        }
        tries *= 2;
    }
    best
}

fn status_of(stop: crate::budget::Stop) -> Status {
    match stop {
        crate::budget::Stop::TimeLimit => Status::TimeLimit,
        crate::budget::Stop::Interrupted => Status::Interrupted,
        crate::budget::Stop::MemoryLimit => Status::MemoryLimit,
    }
}

/// Appends `tree`'s nodes in pre-order, with the statistics of the rows `here` reaching them.
fn flatten<L: Loss>(
    data: &NumericData,
    loss: &L,
    tree: &Sub,
    here: &[usize],
    nodes: &mut Vec<NumericNode>,
) {
    let mut stats = vec![0.0; loss.width()];
    here.iter().for_each(|&row| loss.add(&mut stats, row));
    let (label, value) = loss.predict(&stats);
    let leaf_loss = loss.cost(&stats);
    let at = nodes.len();
    nodes.push(NumericNode {
        column: None,
        threshold: 0.0,
        left: 0,
        right: 0,
        rows: here.len(),
        weight: here.iter().map(|&row| loss.weight(row)).sum(),
        stats,
        label,
        value,
        loss: leaf_loss,
    });
    if let Sub::Split(cut, left, right) = tree {
        let column = cut.column as usize;
        let (lower, upper): (Vec<usize>, Vec<usize>) = here
            .iter()
            .partition(|&&row| data.rank(column, row) <= cut.below);
        nodes[at].column = Some(column);
        nodes[at].threshold = data.threshold(column, cut.below, cut.above);
        nodes[at].left = nodes.len();
        flatten(data, loss, left, &lower, nodes);
        nodes[at].right = nodes.len();
        flatten(data, loss, right, &upper, nodes);
    }
}

#[cfg(test)]
mod tests;
