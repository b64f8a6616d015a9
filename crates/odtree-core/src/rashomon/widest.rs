//! The widest budget each subproblem is asked for. A subproblem reached by several paths is
//! asked by each for its subtrees within another budget (the parent's, less the sibling's
//! optimum); computed first for a smaller budget, its histogram or list would be computed
//! again for the larger one. A pass from the root down, one depth at a time, finds the
//! largest budget each subproblem is asked for before any is computed, so that each is
//! computed once. Leaves are left out: a leaf's list is one part, made again for a wider
//! budget at less cost than keeping the widest budget of every leaf, the most numerous of
//! the subproblems.

use super::{key, with_key, Key, Rashomon};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// Per subproblem within the budget, the largest budget it is asked for.
pub(super) type Widest = Arc<FxHashMap<Key, f64>>;

impl Rashomon<'_> {
    /// The widest budget of each subproblem but the leaves of the trees over `root` of depth
    /// at most `depth` costing at most `bound`; `None` when the search's budget ran out.
    pub(super) fn widest(
        &mut self,
        root: &[u64],
        depth: u32,
        bound: f64,
    ) -> Option<FxHashMap<Key, f64>> {
        let mut widest = FxHashMap::default();
        let mut level = FxHashMap::default();
        level.insert(key(root, depth), bound);
        for depth in (2..=depth).rev() {
            let mut next: FxHashMap<Key, f64> = FxHashMap::default();
            for (node, &bound) in &level {
                let rows = &node[..node.len() - 1];
                for at in 0..self.allowed.len() {
                    if self.budget.check().is_some() {
                        return None;
                    }
                    let Some((left, right, solved_left, solved_right)) =
                        self.split_within(rows, depth, self.allowed[at], bound)
                    else {
                        continue;
                    };
                    let (low_left, low_right) = (solved_left.cost, solved_right.cost);
                    for (side, room) in [(left, bound - low_right), (right, bound - low_left)] {
                        let seen = with_key(&side, depth - 1, |probe| {
                            next.get_mut(probe).map(|wide| *wide = wide.max(room))
                        });
                        if seen.is_none() {
                            next.insert(key(&side, depth - 1), room);
                        }
                    }
                }
            }
            widest.extend(std::mem::replace(&mut level, next));
        }
        widest.extend(level);
        Some(widest)
    }

    /// Finds the widest budget of each subproblem of the trees over `root` of depth at most
    /// `depth` costing at most `bound`, for this search and its `forks`; not under a memory
    /// limit, where what is kept is counted. `None` when the search's budget ran out.
    pub(super) fn widen(
        &mut self,
        forks: &mut [Self],
        root: &[u64],
        depth: u32,
        bound: f64,
    ) -> Option<()> {
        if self.max_bytes.is_some() {
            return Some(());
        }
        self.widest = Arc::new(self.widest(root, depth, bound)?);
        for fork in forks {
            fork.widest = self.widest.clone();
        }
        Some(())
    }

    /// The budget to compute the subproblem of `rows` at `depth` for, when asked for `bound`:
    /// the widest it is asked for, when known.
    pub(super) fn widened(&self, rows: &[u64], depth: u32, bound: f64) -> f64 {
        with_key(rows, depth, |probe| self.widest.get(probe).copied())
            .map_or(bound, |wide| wide.max(bound))
    }
}
