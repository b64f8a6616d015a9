//! Depth-one trees by sweeping each column's sorted rows with running statistics: the
//! best split of a set of rows, or of two sets at once (the children of a root threshold,
//! as ConTree's depth-two solver needs them).

use super::loss::Loss;
use super::rows::Rows;

/// A split of a column between two adjacent ranks present in a node: rows of rank up to
/// `below` go left (`x <= t`), those of rank `above` or more go right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    /// The column.
    pub column: u32,
    /// The highest rank that goes left.
    pub below: u32,
    /// The lowest rank that goes right.
    pub above: u32,
}

/// The best tree of depth at most one over some rows: a leaf, or one split into two leaves.
#[derive(Clone, Copy, Debug)]
pub struct Stump {
    /// Its cost, leaf penalties included.
    pub cost: f64,
    /// Its split; `None` for a leaf.
    pub cut: Option<Cut>,
}

/// The limits every leaf of a sweep obeys, and the cost of a leaf.
#[derive(Clone, Copy)]
pub struct Leaves {
    /// Rows a leaf holds at least.
    pub min_rows: usize,
    /// The cost of each leaf, added to its loss.
    pub penalty: f64,
}

/// Scratch space for sweeps: the running statistics of the two sides.
pub struct Sweeper {
    prefix: [Vec<f64>; 2],
}

impl Sweeper {
    /// Scratch for statistics of `width` numbers.
    pub fn new(width: usize) -> Self {
        Self {
            prefix: [vec![0.0; width], vec![0.0; width]],
        }
    }

    /// The best stump of each side: `side(row)` is 0 or 1, `totals` and `counts` are the
    /// sides' statistics and row counts. Columns are swept in order, and a later split
    /// replaces the best only when strictly cheaper.
    pub fn stumps<L: Loss>(
        &mut self,
        loss: &L,
        rows: &Rows,
        side: impl Fn(usize) -> usize,
        totals: [&[f64]; 2],
        counts: [usize; 2],
        leaves: Leaves,
    ) -> [Stump; 2] {
        let leaf = |s: usize| Stump {
            cost: loss.cost(totals[s]) + leaves.penalty,
            cut: None,
        };
        let mut best = [leaf(0), leaf(1)];
        for column in 0..rows.sorted.len() {
            self.column(loss, rows, column, &side, totals, counts, leaves, &mut best);
        }
        best
    }

    /// The best split of each side on one column that beats `best` (the side's best so
    /// far; its own best stays untouched where none does).
    ///
    /// Two of ConTree's bounds save work. Moving rows of weight `w` from the right of a split
    /// to its left lowers the split's cost by at most `slope · w` (the left leaf's cost does
    /// not fall, the right's falls by at most that), so after a split costing `c` the next
    /// `(c − best) / slope` of weight need no costing. And once the left leaf alone costs
    /// `best`, no later split of that side can beat it: the side is done.
    #[allow(clippy::too_many_arguments)]
    pub fn column<L: Loss>(
        &mut self,
        loss: &L,
        rows: &Rows,
        column: usize,
        side: &impl Fn(usize) -> usize,
        totals: [&[f64]; 2],
        counts: [usize; 2],
        leaves: Leaves,
        best: &mut [Stump; 2],
    ) {
        self.prefix.iter_mut().for_each(|p| p.fill(0.0));
        let mut seen = [0usize; 2];
        let mut last = [u32::MAX; 2];
        let mut moved = [0.0f64; 2];
        let mut skip = [0.0f64; 2];
        let mut done = [false; 2];
        let slope = loss.slope().filter(|&s| s > 0.0);
        let split_penalty = 2.0 * leaves.penalty;
        for entry in &rows.sorted[column] {
            let row = entry.row as usize;
            let s = side(row);
            if done[s] {
                continue;
            }
            if last[s] != entry.rank
                && moved[s] > skip[s]
                && seen[s] >= leaves.min_rows
                && counts[s] - seen[s] >= leaves.min_rows
            {
                let prefix = &self.prefix[s];
                let left = loss.cost(prefix) + split_penalty;
                let cost = left + loss.cost_rest(totals[s], prefix);
                if cost < best[s].cost {
                    best[s] = Stump {
                        cost,
                        cut: Some(Cut {
                            column: column as u32,
                            below: last[s],
                            above: entry.rank,
                        }),
                    };
                    skip[s] = -1.0;
                } else {
                    skip[s] = slope.map_or(-1.0, |slope| (cost - best[s].cost) / slope);
                }
                moved[s] = 0.0;
                if left >= best[s].cost {
                    done[s] = true;
                    if done[1 - s] {
                        break;
                    }
                    continue;
                }
            }
            loss.add(&mut self.prefix[s], row);
            moved[s] += loss.weight(row);
            seen[s] += 1;
            last[s] = entry.rank;
        }
    }
}
