//! Depth-one sweeps for rows of weight one counted by class, 64 rows of a column a word.
//!
//! A node's columns are packed once ([`Packed::fill`]): each word holds, for 64 rows in the
//! column's order, the starts of runs of equal values and a bit mask of each class. For
//! each root threshold the sides are packed too, and each side then counts its rows and its
//! classes a word at a time. A split's cost changes by at most one per row moved across it,
//! so a word whose rows cannot take the cost at its start below the side's best is skipped
//! whole; elsewhere the splits at the starts of runs are costed (a side's split lies
//! between two of its own distinct values, so at a run start with rows of the side on both
//! sides of it).

use super::rows::{Entry, Rows};
use super::sweep::{improve, window, Leaves, Stump};

/// Most classes a packed sweep counts; more go through the row-by-row count.
pub const MAX_CLASSES: usize = 8;

/// One column of a node, 64 rows of the column's order a word: for `k` classes, `k + 1`
/// masks of each word's rows side by side (see [`RIGHT`], [`STARTS`] and [`CLASSES`]).
#[derive(Default)]
pub struct Packed {
    masks: Vec<u64>,
}

/// A word's rows on the right side of the root threshold being evaluated.
const RIGHT: usize = 0;
/// A word's rows with a value other than the row before.
const STARTS: usize = 1;
/// A word's rows of class `c`, at `CLASSES + c`, for each class but the last (the rows the
/// others leave).
const CLASSES: usize = 2;

impl Packed {
    /// Packs `list` (a column of a node) for rows of the `k` classes `labels`.
    pub fn fill(&mut self, list: &[Entry], labels: &[u8], k: usize) {
        self.masks.clear();
        self.masks.resize(list.len().div_ceil(64) * (k + 1), 0);
        let mut previous = u32::MAX;
        for (chunk, word) in list.chunks(64).zip(self.masks.chunks_exact_mut(k + 1)) {
            for (i, e) in chunk.iter().enumerate() {
                word[STARTS] |= u64::from(e.rank != previous) << i;
                previous = e.rank;
                let class = usize::from(labels[e.row as usize]);
                if class < k - 1 {
                    word[CLASSES + class] |= 1 << i;
                }
            }
        }
    }

    /// Packs the sides of the column's rows.
    fn fill_sides<F: Fn(usize) -> usize>(&mut self, list: &[Entry], sides: &Sides<F>, k: usize) {
        let words = self.masks.chunks_exact_mut(k + 1);
        match *sides {
            Sides::Rows(side) => {
                for (chunk, word) in list.chunks(64).zip(words) {
                    let mut right = 0u64;
                    for (i, e) in chunk.iter().enumerate() {
                        right |= ((side(e.row as usize) & 1) as u64) << i;
                    }
                    word[RIGHT] = right;
                }
            }
            Sides::Positions(keys, position) => {
                for (chunk, word) in keys.chunks(64).zip(words) {
                    let mut right = 0u64;
                    for (i, &key) in chunk.iter().enumerate() {
                        right |= u64::from(key > position) << i;
                    }
                    word[RIGHT] = right;
                }
            }
        }
    }
}

/// Which side of a root threshold each row of a column is on.
pub enum Sides<'a, F> {
    /// `side(row)`: 0 (left) or 1 (right).
    Rows(&'a F),
    /// The column's rows' positions in the root column's order, in the column's order: the
    /// rows above the position go right.
    Positions(&'a [u32], u32),
}

impl<F: Fn(usize) -> usize> Sides<'_, F> {
    /// The side of the `q`th row `e` of the column.
    fn of(&self, q: usize, e: &Entry) -> usize {
        match *self {
            Sides::Rows(side) => side(e.row as usize) & 1,
            Sides::Positions(keys, position) => usize::from(keys[q] > position),
        }
    }
}

/// The best stumps of the two sides (`sides`) of `rows` on `column` that beat `best` (see
/// the module notes), for `K` classes: `totals` holds each side's class counts, `packed`
/// the column as [`Packed::fill`] left it.
pub fn sweep<const K: usize, F: Fn(usize) -> usize>(
    packed: &mut Packed,
    rows: &Rows,
    column: usize,
    sides: &Sides<F>,
    totals: [[i64; K]; 2],
    leaves: Leaves,
    best: &mut [Stump; 2],
) {
    let list = &rows.sorted[column];
    packed.fill_sides(list, sides, K);
    let sizes = totals.map(|t| t.iter().sum::<i64>());
    let (from, to, mut limit) = window(sizes, leaves, best);
    let n = list.len();
    for s in 0..2 {
        if from[s] == i64::MAX {
            continue;
        }
        let cost_at = |seen: i64, counts: &[i64; K]| {
            if K == 2 {
                // the same, as two minimums
                let left = counts[0].min(counts[1]);
                let right = (totals[s][0] - counts[0]).min(totals[s][1] - counts[1]);
                return (left, left + right);
            }
            let (mut top_left, mut top_right) = (0, 0);
            for (&c, &t) in counts.iter().zip(&totals[s]) {
                top_left = top_left.max(c);
                top_right = top_right.max(t - c);
            }
            let left = seen - top_left;
            (left, left + (sizes[s] - seen) - top_right)
        };
        // the class counts of `rows` (a mask of `word`), the last class's from the rest
        let count_in = |word: &[u64], rows: u64| {
            let mut counts = [0i64; K];
            let mut others = 0;
            for (count, &class) in counts.iter_mut().zip(&word[CLASSES..]) {
                *count = i64::from((rows & class).count_ones());
                others += *count;
            }
            counts[K - 1] = i64::from(rows.count_ones()) - others;
            counts
        };
        let (mut seen, mut counts) = (0i64, [0i64; K]);
        'words: for (w, word) in packed.masks.chunks_exact(K + 1).enumerate() {
            let valid = if n - 64 * w >= 64 {
                u64::MAX
            } else {
                (1u64 << (n - 64 * w)) - 1
            };
            let mine = if s == 1 {
                word[RIGHT]
            } else {
                !word[RIGHT] & valid
            };
            let count = i64::from(mine.count_ones());
            let (left, cost) = cost_at(seen, &counts);
            // the left leaf alone costs the best: so does every later split
            if left >= limit[s] || seen > to[s] {
                break;
            }
            if cost - count >= limit[s] || seen + count < from[s] {
                let added = count_in(word, mine);
                seen += count;
                counts.iter_mut().zip(added).for_each(|(c, a)| *c += a);
                continue;
            }
            let mut starts = word[STARTS];
            while starts != 0 {
                let i = starts.trailing_zeros();
                starts &= starts - 1;
                let before = mine & ((1u64 << i) - 1);
                let at = seen + i64::from(before.count_ones());
                if at < from[s] {
                    continue;
                }
                if at > to[s] {
                    break 'words;
                }
                let mut here = count_in(word, before);
                here.iter_mut().zip(counts).for_each(|(h, c)| *h += c);
                let (left, cost) = cost_at(at, &here);
                if cost < limit[s] {
                    let (below, above) = neighbours(list, sides, s, 64 * w + i as usize);
                    improve(&mut best[s], &mut limit[s], cost, column, below, above);
                }
                if left >= limit[s] {
                    break 'words;
                }
            }
            let added = count_in(word, mine);
            seen += count;
            counts.iter_mut().zip(added).for_each(|(c, a)| *c += a);
        }
    }
}

/// The ranks of side `s`'s last row before `position` of `list` and its first from there.
fn neighbours<F: Fn(usize) -> usize>(
    list: &[Entry],
    sides: &Sides<F>,
    s: usize,
    position: usize,
) -> (u32, u32) {
    let below = (0..position).rev().find(|&q| sides.of(q, &list[q]) == s);
    let above = (position..list.len()).find(|&q| sides.of(q, &list[q]) == s);
    let rank = |q: Option<usize>| q.map_or(0, |q| list[q].rank);
    (rank(below), rank(above))
}
