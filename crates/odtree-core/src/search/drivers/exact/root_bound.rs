//! The bound proven at the root when the search stops early: the root's stored bound, or the
//! least over every way to split the root (the leaf included) of what is proven of its two
//! children, from the store or, for children never reached, from the similarity bound against
//! the nodes evaluated at the same depth.

use super::{Cost, Engine};
use crate::cache::KeyIndex;
use crate::data::{item, Item};
use crate::objective::Objective;
use crate::subproblem::Limits;

impl<I: KeyIndex, O: Objective, C: Cost> Engine<'_, I, O, C> {
    /// What is proven of the root (the current node, with statistics `stats`) within `limits`
    /// before the exact search: its stored bound, or the least its leaf or a split can cost.
    /// On a cache kept from an earlier search, the stored bound counts only if this search's
    /// first trees solved the root within `limits` too (as a fresh search's would have
    /// stored it), so that the search settles, or not, as a fresh one does and returns its
    /// tree (a root an earlier search proved is then read from the cache).
    pub(super) fn root_floor(&self, limits: Limits, stats: &[f64]) -> C {
        let leaf = C::leaf(self.objective.leaf_cost(stats));
        let stored = (self.cache.find(self.key()))
            .filter(|_| !self.adopted() || self.root_ahead)
            .map_or(C::ZERO, |id| self.cache.known(id, limits).lower_bound);
        stored.max(self.node_floor(leaf))
    }

    /// A lower bound of the root's optimum within `limits`, from what the stopped search
    /// proved; the root is the current node, with statistics `stats` of `rows` rows.
    pub(super) fn stopped_root_bound(&mut self, limits: Limits, stats: &[f64], rows: u32) -> C {
        let stored = self
            .cache
            .find(self.key())
            .map_or(C::ZERO, |id| self.cache.known(id, limits).lower_bound);
        // each child's bound costs a leaf evaluation, too slow for a callback's
        if limits.is_leaf() || self.objective.costly() || !self.splittable(rows) {
            return stored;
        }
        let depth = self.path.len();
        let mut level = std::mem::take(&mut self.levels[depth]);
        self.valid_splits(&mut level, rows);
        let mut least = C::leaf(self.objective.leaf_cost(stats));
        let mut child_stats = vec![0.0; stats.len()];
        for &f in &level.candidates {
            for (left, right) in limits.divisions() {
                let mut sum = C::ZERO;
                for (value, limits) in [(false, left), (true, right)] {
                    let test = item(f, value);
                    self.push(test);
                    self.statistics.count(&self.cover, None, &mut child_stats);
                    self.pop(test);
                    let leaf = C::leaf(self.objective.leaf_cost(&child_stats));
                    // the proven bound only: a solution stored once the search stopped is
                    // no optimum (a proven one has its cost as its bound)
                    let known = if limits.is_leaf() {
                        leaf
                    } else {
                        self.find_child(test)
                            .map_or(C::ZERO, |id| self.cache.known(id, limits).lower_bound)
                            .max(self.node_floor(leaf))
                    };
                    sum = sum + known.max(self.similar_child(test, limits));
                }
                least = least.min(sum, self.tolerance);
            }
        }
        self.levels[depth] = level;
        stored.max(least)
    }

    /// The similarity bound of the current node's child reached by `test` within `limits`
    /// (zero where the bound does not apply).
    fn similar_child(&mut self, test: Item, limits: Limits) -> C {
        if self.similarity.is_none() || limits.is_leaf() {
            return C::ZERO;
        }
        self.push(test);
        let (cover, weights) = (&self.kernel.cover, self.kernel.weights);
        let bound = self
            .kernel
            .similarity
            .as_mut()
            .map_or(C::ZERO, |archive| archive.bound(cover, limits, weights));
        self.pop(test);
        bound
    }
}
