//! Depth-one trees by sweeping each column's sorted rows with running statistics: the
//! best split of a set of rows, or of two sets at once (the children of a root threshold,
//! as ConTree's depth-two solver needs them).

use super::loss::Loss;
use super::packed::{self, Packed, Sides, MAX_CLASSES};
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
    /// Rows a node holds at least to split.
    pub min_split: usize,
    /// Weight a leaf holds at least (0: any).
    pub min_weight: f64,
    /// The cost of each leaf, added to its loss.
    pub penalty: f64,
}

/// Scratch space for sweeps: the running statistics of the two sides.
pub struct Sweeper {
    prefix: [Vec<f64>; 2],
    /// Each column of the node packed into bits, for classes counted (see
    /// [`Sweeper::prepare`]).
    packed: Vec<Packed>,
    /// `keys[c]`: the positions of column `c`'s rows in the root column's order (see
    /// [`Sweeper::root`]).
    keys: Vec<Vec<u32>>,
    /// Scratch: each row's position in the root column's order.
    inverse: Vec<u32>,
}

impl Sweeper {
    /// Scratch for statistics of `width` numbers.
    pub fn new(width: usize) -> Self {
        Self {
            prefix: [vec![0.0; width], vec![0.0; width]],
            packed: Vec::new(),
            keys: Vec::new(),
            inverse: Vec::new(),
        }
    }

    /// Packs each column of `rows` into bits for the sweeps of [`Self::stumps`] over them,
    /// where `loss` counts up to [`MAX_CLASSES`] classes (a no-op otherwise).
    pub fn prepare<L: Loss>(&mut self, loss: &L, rows: &Rows) {
        let Some(labels) = loss.counted().filter(|_| loss.width() <= MAX_CLASSES) else {
            return;
        };
        self.packed.resize_with(rows.sorted.len(), Packed::default);
        for (list, packed) in rows.sorted.iter().zip(&mut self.packed) {
            packed.fill(list, labels, loss.width().max(2));
        }
    }

    /// Whether sweeps for `loss` within `leaves` count classes over packed bits (see
    /// [`Self::prepare`]), and so can take a root threshold by its position (see
    /// [`Self::root`]).
    pub fn packs<L: Loss>(loss: &L, leaves: Leaves) -> bool {
        loss.counted().is_some()
            && loss.width() <= MAX_CLASSES
            && leaves.penalty == 0.0
            && leaves.min_weight == 0.0
    }

    /// Records, for the root thresholds of `column` over `rows` (of the last
    /// [`Self::prepare`]), each row's position in that column's order, so that [`Self::stumps`]
    /// can take the sides of a threshold from its position alone. `n_rows` is the data's.
    pub fn root(&mut self, rows: &Rows, column: usize, n_rows: usize) {
        self.inverse.resize(n_rows, 0);
        for (p, e) in rows.sorted[column].iter().enumerate() {
            self.inverse[e.row as usize] = p as u32;
        }
        self.keys.resize_with(rows.sorted.len(), Vec::new);
        let inverse = &self.inverse;
        for (list, keys) in rows.sorted.iter().zip(&mut self.keys) {
            keys.clear();
            keys.extend(list.iter().map(|e| inverse[e.row as usize]));
        }
    }

    /// The best stump of each side of the rows of the last [`Self::prepare`]: `side(row)`
    /// is 0 or 1, or where [`Self::packs`], with `root` given, the rows after the first
    /// `root + 1` in the order of the last [`Self::root`] are on side 1; `totals` and
    /// `counts` are the sides' statistics and row counts. The `columns` (every column, the
    /// likely best first, so that the caps fall early) are swept in that order, and a later
    /// split replaces the best only when strictly cheaper.
    ///
    /// Only stumps costing less than `caps[s]` are wanted on side `s` (as ConTree's
    /// depth-two solver, a sweep stops early once nothing below it is left): a side with
    /// none is returned as a leaf costing its cap, a lower bound on its optimum, not the
    /// leaf's own cost.
    #[allow(clippy::too_many_arguments)]
    pub fn stumps<L: Loss>(
        &mut self,
        loss: &L,
        rows: &Rows,
        side: impl Fn(usize) -> usize,
        totals: [&[f64]; 2],
        counts: [usize; 2],
        leaves: Leaves,
        caps: [f64; 2],
        columns: &[usize],
        root: Option<u32>,
    ) -> [Stump; 2] {
        let leaf = |s: usize| Stump {
            cost: (loss.cost(totals[s]) + leaves.penalty).min(caps[s]),
            cut: None,
        };
        let mut best = [leaf(0), leaf(1)];
        if let (Some(labels), 0.0, 0.0) = (loss.counted(), leaves.penalty, leaves.min_weight) {
            match loss.width() {
                0..=2 => {
                    self.packed_sweeps::<2>(rows, &side, root, totals, leaves, columns, &mut best)
                }
                3 => self.packed_sweeps::<3>(rows, &side, root, totals, leaves, columns, &mut best),
                4 => self.packed_sweeps::<4>(rows, &side, root, totals, leaves, columns, &mut best),
                5 => self.packed_sweeps::<5>(rows, &side, root, totals, leaves, columns, &mut best),
                6 => self.packed_sweeps::<6>(rows, &side, root, totals, leaves, columns, &mut best),
                7 => self.packed_sweeps::<7>(rows, &side, root, totals, leaves, columns, &mut best),
                8 => self.packed_sweeps::<8>(rows, &side, root, totals, leaves, columns, &mut best),
                _ => {
                    let totals = totals.map(|t| t.iter().map(|&w| w as i64).collect::<Vec<_>>());
                    let mut counts = vec![0; 2 * totals[0].len()];
                    let sweep = Counted {
                        labels,
                        totals: [&totals[0], &totals[1]],
                        leaves,
                    };
                    for &column in columns {
                        sweep.column(rows, column, &side, &mut counts, &mut best);
                    }
                }
            }
            return best;
        }
        for &column in columns {
            self.column(loss, rows, column, &side, totals, counts, leaves, &mut best);
        }
        best
    }

    /// [`packed::sweep`] over `columns` for `K` classes.
    #[allow(clippy::too_many_arguments)]
    fn packed_sweeps<const K: usize>(
        &mut self,
        rows: &Rows,
        side: &impl Fn(usize) -> usize,
        root: Option<u32>,
        totals: [&[f64]; 2],
        leaves: Leaves,
        columns: &[usize],
        best: &mut [Stump; 2],
    ) {
        debug_assert_eq!(self.packed.len(), rows.sorted.len());
        let totals = totals.map(|t| {
            let mut counts = [0i64; K];
            counts.iter_mut().zip(t).for_each(|(c, &w)| *c = w as i64);
            counts
        });
        for &column in columns {
            let sides = match root {
                Some(position) => Sides::Positions(&self.keys[column], position),
                None => Sides::Rows(side),
            };
            packed::sweep(
                &mut self.packed[column],
                rows,
                column,
                &sides,
                totals,
                leaves,
                best,
            );
        }
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
        let mut done = counts.map(|n| n < leaves.min_split);
        if done == [true, true] {
            return;
        }
        // with a least leaf weight, each side's weight and the weight seen on its left
        let least = leaves.min_weight * (1.0 - 1e-12);
        let mut weighed = [0.0f64; 2];
        let mut side_weight = [0.0f64; 2];
        if least > 0.0 {
            for entry in &rows.sorted[column] {
                side_weight[side(entry.row as usize)] += loss.weight(entry.row as usize);
            }
        }
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
                && (least <= 0.0 || weighed[s] >= least && side_weight[s] - weighed[s] >= least)
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
            weighed[s] += loss.weight(row);
            seen[s] += 1;
            last[s] = entry.rank;
        }
    }
}

/// For a counting sweep of sides of `size` rows: the numbers of rows on the left between
/// which a side's splits are costed (`from[s] <= seen <= to[s]`, each leaf keeping
/// `min_rows`; `from` is `i64::MAX` for a side too small to split), and each side's best
/// cost rounded up (costs are whole: below `best` means below its ceiling).
pub(super) fn window(
    size: [i64; 2],
    leaves: Leaves,
    best: &[Stump; 2],
) -> ([i64; 2], [i64; 2], [i64; 2]) {
    let min = leaves.min_rows as i64;
    let to = size.map(|n| n - min);
    let from = [0, 1].map(|s| {
        if to[s] < min || size[s] < leaves.min_split as i64 {
            i64::MAX
        } else {
            min
        }
    });
    (from, to, best.map(|b| ceiling(b.cost)))
}

/// Records a split of whole cost `cost` between ranks `below` and `above` of `column` as a
/// side's best.
pub(super) fn improve(
    best: &mut Stump,
    limit: &mut i64,
    cost: i64,
    column: usize,
    below: u32,
    above: u32,
) {
    *limit = cost;
    *best = Stump {
        cost: cost as f64,
        cut: Some(Cut {
            column: column as u32,
            below,
            above,
        }),
    };
}

/// The least whole number at least `cost` (saturating).
fn ceiling(cost: f64) -> i64 {
    if cost >= i64::MAX as f64 {
        i64::MAX
    } else {
        cost.ceil() as i64
    }
}

/// A sweep over rows of weight one with leaves without a penalty, for any number of
/// classes: whole class counts, costed where a side's value changes.
struct Counted<'a> {
    labels: &'a [u8],
    /// Each side's class counts.
    totals: [&'a [i64]; 2],
    leaves: Leaves,
}

impl Counted<'_> {
    /// [`Sweeper::column`] in whole counts; `counts` is scratch for both sides' counts.
    fn column(
        &self,
        rows: &Rows,
        column: usize,
        side: &impl Fn(usize) -> usize,
        counts: &mut [i64],
        best: &mut [Stump; 2],
    ) {
        let k = self.totals[0].len();
        counts.fill(0);
        let size = self.totals.map(|t| t.iter().sum::<i64>());
        let (mut from, to, mut limit) = window(size, self.leaves, best);
        let mut seen = [0i64; 2];
        let mut last = [u32::MAX; 2];
        for entry in &rows.sorted[column] {
            let row = entry.row as usize;
            let s = side(row);
            if last[s] != entry.rank && seen[s] >= from[s] && seen[s] <= to[s] {
                let (mut top_left, mut top_right) = (0, 0);
                let here = &counts[s * k..][..k];
                for (&c, &t) in here.iter().zip(self.totals[s]) {
                    top_left = top_left.max(c);
                    top_right = top_right.max(t - c);
                }
                let left = seen[s] - top_left;
                let cost = left + (size[s] - seen[s]) - top_right;
                if cost < limit[s] {
                    improve(
                        &mut best[s],
                        &mut limit[s],
                        cost,
                        column,
                        last[s],
                        entry.rank,
                    );
                } else {
                    // each row moved left lowers the cost by at most one
                    from[s] = seen[s] + cost - limit[s] + 1;
                }
                if left >= limit[s] || from[s] > to[s] {
                    from[s] = i64::MAX;
                    if from[1 - s] == i64::MAX {
                        break;
                    }
                }
            }
            counts[s * k + usize::from(self.labels[row])] += 1;
            seen[s] += 1;
            last[s] = entry.rank;
        }
    }
}
