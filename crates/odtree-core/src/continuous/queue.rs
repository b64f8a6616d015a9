//! Which thresholds of a column to try, and which to skip: bisection over the candidate
//! positions with the bounds of ConTree.
//!
//! Let `L(i)` and `R(i)` be the optimal costs of the two children of the split at candidate
//! `i`. When the optimal cost of a set never falls as rows join it (no minimum leaf size),
//! `L` rises and `R` falls with `i`, so every split strictly between evaluated `a < b` costs
//! at least `L(a) + R(b)`; and when rows of weight `w` can raise a cost by at most `s·w`,
//! a split `i > a` costs at least `L(a) + R(a) − s·w(a, i]` (the neighbourhood bound), and
//! symmetrically from `b`. With a minimum leaf size only the second fact holds, and the
//! splits between `a` and `b` cost at least `L(b) + R(a) − s·w(a, b]`.
//!
//! Where the children share a budget of splits, each share `k` has its own `L_k` and
//! `R_k`, monotone as above: the splits between `a` and `b` cost at least the least over
//! `k` of `L_k(a) + R_k(b)`, and the neighbourhood bound holds for the least whole cost.

use std::collections::VecDeque;

/// The candidate splits of one column at one node, with what is known of those evaluated.
pub struct Queue {
    /// `positions[i]`: the split puts the first `positions[i] + 1` rows of the column left.
    positions: Vec<usize>,
    /// `weight_before[k]`: the weight of the first `k` rows in the column's order.
    weight_before: Vec<f64>,
    /// Lower bounds on `(L(i), R(i))` at the evaluated candidates.
    known: Vec<Option<(f64, f64)>>,
    /// Where a node budget is shared between the children: for each evaluated candidate,
    /// lower bounds on `(L_k(i), R_k(i))` for each share `k` (the left child's splits, and
    /// the right's the rest), whose `L_k` rise and `R_k` fall with `i`.
    shares: Vec<Vec<(f64, f64)>>,
    /// Ranges of candidates not yet tried, inclusive, with their evaluated neighbours,
    /// tried first in, first out (the tried splits spread evenly over the column).
    ranges: VecDeque<Range>,
    /// The weight of rows between the candidate last returned and the far end of its range.
    reach: f64,
    /// The least bound of the candidates ruled out so far.
    floor: f64,
    /// For the candidate last returned, lower bounds on `L` and `R` from its range's
    /// evaluated neighbours (see [`Self::part_floors`]).
    part_floors: (f64, f64),
    first: Option<usize>,
    monotone: bool,
    slope: Option<f64>,
}

/// What [`Queue::next_slot`] gives.
pub enum Slot {
    /// This candidate, to be tried.
    Try(usize),
    /// A candidate ruled out by the bounds (or a range of them).
    RuledOut,
    /// No candidate is left.
    Done,
}

#[derive(Clone, Copy)]
struct Range {
    lo: usize,
    hi: usize,
    before: Option<usize>,
    after: Option<usize>,
}

impl Queue {
    /// A queue over `positions` (ascending), trying `first` before the others.
    pub fn new(
        positions: Vec<usize>,
        weight_before: Vec<f64>,
        first: usize,
        monotone: bool,
        slope: Option<f64>,
    ) -> Self {
        let n = positions.len();
        Self {
            known: vec![None; n],
            shares: Vec::new(),
            ranges: if n == 0 {
                VecDeque::new()
            } else {
                VecDeque::from([Range {
                    lo: 0,
                    hi: n - 1,
                    before: None,
                    after: None,
                }])
            },
            reach: 0.0,
            floor: f64::INFINITY,
            part_floors: (0.0, 0.0),
            first: (n > 0).then(|| first.min(n - 1)),
            positions,
            weight_before,
            monotone,
            slope,
        }
    }

    /// The row position of candidate `i`.
    pub fn position(&self, i: usize) -> usize {
        self.positions[i]
    }

    /// Records lower bounds on `L(i)` and `R(i)`.
    pub fn record(&mut self, i: usize, left: f64, right: f64) {
        self.known[i] = Some((left, right));
    }

    /// Records lower bounds on each share's `(L_k(i), R_k(i))` (see `shares`); the whole
    /// cost's bound, the least over the shares, stands as the left part (the right 0) for
    /// the neighbourhood bound.
    pub fn record_shares(&mut self, i: usize, shares: Vec<(f64, f64)>) {
        let least = shares
            .iter()
            .map(|&(l, r)| l + r)
            .fold(f64::INFINITY, f64::min);
        self.record(i, least, 0.0);
        if self.shares.is_empty() {
            self.shares = vec![Vec::new(); self.known.len()];
        }
        self.shares[i] = shares;
    }

    /// A lower bound on every candidate strictly between the evaluated `a < b`: `L(a) +
    /// R(b)`, or with shares the least over them of `L_k(a) + R_k(b)` (0 where a side is
    /// not evaluated).
    fn between_bound(&self, a: Option<usize>, b: Option<usize>) -> f64 {
        if self.shares.is_empty() {
            return self.bounds(a).0 + self.bounds(b).1;
        }
        match (a, b) {
            (Some(a), Some(b))
                if !self.shares[a].is_empty() && self.shares[a].len() == self.shares[b].len() =>
            {
                self.shares[a]
                    .iter()
                    .zip(&self.shares[b])
                    .map(|(&(l, _), &(_, r))| l + r)
                    .fold(f64::INFINITY, f64::min)
            }
            _ => 0.0,
        }
    }

    /// The next candidate that may cost less than `best`; `None` when every candidate left
    /// is proven to cost at least `best`.
    pub fn next(&mut self, best: f64) -> Option<usize> {
        loop {
            match self.next_slot(best) {
                Slot::Try(i) => return Some(i),
                Slot::RuledOut => {}
                Slot::Done => return None,
            }
        }
    }

    /// The next slot of the bisection order: the candidate `first`, then the midpoint of each
    /// range in turn, first in, first out, each range split at its midpoint into two. The
    /// order does not depend on `best`, which only rules candidates out, so a node's first
    /// candidate of least cost is the same under any bound above that cost.
    pub fn next_slot(&mut self, best: f64) -> Slot {
        if let Some(first) = self.first.take() {
            let range = self.ranges.pop_front().expect("the whole range");
            self.push_around(range, range, first);
            return Slot::Try(first);
        }
        let Some(range) = self.ranges.pop_front() else {
            return Slot::Done;
        };
        let mid = range.lo + (range.hi - range.lo) / 2;
        match self.narrowed(range, best) {
            Some(open) if (open.lo..=open.hi).contains(&mid) => {
                self.push_around(range, open, mid);
                Slot::Try(mid)
            }
            // the midpoint is ruled out, perhaps not the whole range: its halves keep the
            // range's neighbours (and are narrowed again when their turn comes)
            Some(_) => {
                self.push_halves(range, mid, false);
                Slot::RuledOut
            }
            None => Slot::RuledOut,
        }
    }

    /// The weight of rows between the candidate last returned by [`next`](Self::next) and
    /// the far end of the range it was taken from: a child solved under a bound loosened by
    /// this much tells enough to rule out the whole range.
    pub fn reach(&self) -> f64 {
        self.reach
    }

    /// A lower bound on the cost of every candidate ruled out so far (infinite when none
    /// was): with the costs of those tried, what a search that found nothing proves.
    pub fn floor(&self) -> f64 {
        self.floor
    }

    /// Lower bounds on `L(i)` and `R(i)` for the candidate `i` last returned by
    /// [`next`](Self::next): `L(a)` and `R(b)` of its range's evaluated neighbours `a < i <
    /// b`, where costs are monotone (0 otherwise).
    pub fn part_floors(&self) -> (f64, f64) {
        self.part_floors
    }

    /// Returns `mid` of `range` (whose candidates in `open` are not ruled out) to be tried:
    /// the bounds its range gives it, and the two halves around it, of which it is the
    /// neighbour.
    fn push_around(&mut self, range: Range, open: Range, mid: usize) {
        self.part_floors = if self.monotone && self.shares.is_empty() {
            (self.bounds(range.before).0, self.bounds(range.after).1)
        } else {
            (0.0, 0.0)
        };
        self.reach = self.between(open.lo, mid).max(self.between(mid, open.hi));
        self.push_halves(range, mid, true);
    }

    /// Queues the candidates of `range` above `mid`, then those below it; `mid` is their
    /// neighbour once `tried`, else they keep the range's.
    fn push_halves(&mut self, range: Range, mid: usize, tried: bool) {
        let neighbour = if tried { Some(mid) } else { None };
        if mid < range.hi {
            self.ranges.push_back(Range {
                lo: mid + 1,
                before: neighbour.or(range.before),
                ..range
            });
        }
        if mid > range.lo {
            self.ranges.push_back(Range {
                hi: mid - 1,
                after: neighbour.or(range.after),
                ..range
            });
        }
    }

    fn bounds(&self, i: Option<usize>) -> (f64, f64) {
        i.and_then(|i| self.known[i]).unwrap_or((0.0, 0.0))
    }

    /// Weight of the rows between the splits at candidates `a < b`.
    fn between(&self, a: usize, b: usize) -> f64 {
        self.weight_before[self.positions[b] + 1] - self.weight_before[self.positions[a] + 1]
    }

    /// The part of `range` its bounds do not rule out, if any.
    fn narrowed(&mut self, mut range: Range, best: f64) -> Option<Range> {
        let (la, ra) = self.bounds(range.before);
        let (lb, rb) = self.bounds(range.after);
        if !self.monotone {
            // each share's parts may both fall as rows move: no bound on the whole cost
            if !self.shares.is_empty() {
                return Some(range);
            }
            if let (Some(a), Some(b), Some(s)) = (range.before, range.after, self.slope) {
                let bound = lb + ra - s * self.between(a, b);
                if bound >= best {
                    self.floor = self.floor.min(bound);
                    return None;
                }
            }
            return Some(range);
        }
        // L(a) + R(b), where the parts are known
        let between = self.between_bound(range.before, range.after);
        if between >= best {
            self.floor = self.floor.min(between);
            return None;
        }
        let Some(s) = self.slope.filter(|&s| s > 0.0) else {
            return Some(range);
        };
        if let Some(a) = range.before {
            // skip the candidates i with L(a) + R(a) − s·w(a, i] ≥ best
            let room = (la + ra - best) / s;
            if room >= 0.0 {
                let lo = first_failing(range.lo, range.hi + 1, |i| self.between(a, i) <= room);
                if lo > range.lo {
                    // the last one skipped is the least bounded
                    let bound = la + ra - s * self.between(a, lo - 1);
                    self.floor = self.floor.min(bound.max(between));
                }
                range.lo = lo;
            }
        }
        if let Some(b) = range.after {
            let room = (lb + rb - best) / s;
            if room >= 0.0 && range.lo <= range.hi {
                // the candidates from `keep` on are within reach of b
                let keep = first_failing(range.lo, range.hi + 1, |i| self.between(i, b) > room);
                if keep <= range.hi {
                    let bound = lb + rb - s * self.between(keep, b);
                    self.floor = self.floor.min(bound.max(between));
                }
                if keep == range.lo {
                    return None;
                }
                range.hi = keep - 1;
            }
        }
        (range.lo <= range.hi).then_some(range)
    }
}

/// The first `i` in `lo..end` where `holds(i)` is false, for a `holds` true on a prefix of
/// the range and false after it; `end` when it holds everywhere.
fn first_failing(mut lo: usize, mut end: usize, holds: impl Fn(usize) -> bool) -> usize {
    while lo < end {
        let mid = lo + (end - lo) / 2;
        if holds(mid) {
            lo = mid + 1;
        } else {
            end = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_costly_split_rules_out_its_neighbours() {
        // ten unit-weight rows, a candidate after each of the first nine
        let weight_before: Vec<f64> = (0..=10).map(f64::from).collect();
        let mut queue = Queue::new((0..9).collect(), weight_before, 4, true, Some(1.0));
        assert_eq!(queue.next(1.0), Some(4));
        // L(4) + R(4) = 5 against a best of 1: within 4 rows of it nothing can cost less
        queue.record(4, 2.0, 3.0);
        assert_eq!(queue.next(1.0), None);
    }

    #[test]
    fn every_candidate_is_tried_when_nothing_prunes() {
        let weight_before: Vec<f64> = (0..=6).map(f64::from).collect();
        let mut queue = Queue::new((0..5).collect(), weight_before, 2, true, Some(1.0));
        let mut tried = Vec::new();
        while let Some(i) = queue.next(f64::INFINITY) {
            queue.record(i, 0.0, 0.0);
            tried.push(i);
        }
        tried.sort_unstable();
        assert_eq!(tried, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn shares_bound_the_splits_between_two_evaluated_ones() {
        let weight_before: Vec<f64> = (0..=10).map(f64::from).collect();
        let mut queue = Queue::new((0..9).collect(), weight_before, 0, true, Some(1.0));
        // two shares of the splits: all to the right child, or all to the left; each
        // costs 10 at candidates 0 and 8, so each costs at least 10 between them
        let shares = vec![(10.0, 0.0), (0.0, 10.0)];
        queue.record_shares(0, shares.clone());
        queue.record_shares(8, shares);
        assert_eq!(queue.between_bound(Some(0), Some(8)), 10.0);
        // the least parts alone (min L_k(0) + min R_k(8)) would bound them by 0
        assert_eq!(queue.between_bound(Some(0), None), 0.0);
    }
}
