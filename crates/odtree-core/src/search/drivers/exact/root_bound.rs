//! The bound proven at the root when the search stops early: the root's stored bound, or the
//! least over every way to split the root (the leaf included) of what is proven of its two
//! children, from the store or, for children never reached, from the similarity bound against
//! the nodes evaluated at the same depth; and, where the objective allows it, the equal-rows
//! bound, which holds for every tree.

use super::{Cost, Engine};
use crate::cache::KeyIndex;
use crate::continuous::rows::row_keys;
use crate::data::{item, Item};
use crate::objective::Objective;
use crate::subproblem::Limits;
use rustc_hash::FxHashMap;

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
        stored.max(self.node_floor(leaf)).max(self.equal_rows)
    }

    /// The equal-rows bound of the current node: rows with the same features end in the same
    /// leaf whatever the tree, so where the objective allows it (see
    /// [`Capabilities::equal_rows`](crate::objective::Capabilities)) every tree costs at least
    /// the sum over groups of equal rows of their leaf costs, less the fixed cost per leaf
    /// for all but one leaf. Rows are grouped by the sum of a random 128-bit key per feature
    /// they have (two different rows share a sum with probability about 2^-128). Zero where
    /// the objective does not allow it.
    pub(super) fn equal_rows_bound(&self) -> C {
        if !self.objective.capabilities().equal_rows || !self.statistics.additive() {
            return C::ZERO;
        }
        let keys = row_keys(self.data.n_features());
        let mut sums = vec![0u128; self.data.n_rows()];
        let words = self.cover.words();
        for (f, key) in keys.iter().enumerate() {
            let mask = self.data.item_mask(item(f as u32, true));
            for &w in self.cover.word_indices() {
                let mut bits = mask[w as usize] & words[w as usize];
                while bits != 0 {
                    let row = w as usize * 64 + bits.trailing_zeros() as usize;
                    sums[row] = sums[row].wrapping_add(*key);
                    bits &= bits - 1;
                }
            }
        }
        let rows = self.cover.rows();
        let len = self.statistics.len();
        let mut groups: FxHashMap<u128, Vec<f64>> = FxHashMap::default();
        let mut one = vec![0.0; len];
        for &row in &rows {
            self.statistics.of_row(row as usize, &mut one);
            let group = groups
                .entry(sums[row as usize])
                .or_insert_with(|| vec![0.0; len]);
            group.iter_mut().zip(&one).for_each(|(g, x)| *g += x);
        }
        let least = self.objective.least_leaf();
        let cost: f64 = groups
            .values()
            .map(|group| self.objective.leaf_cost(group) - least)
            .sum();
        C::value(cost + least)
    }

    /// A lower bound of the root's optimum within `limits`, from what the stopped search
    /// proved; the root is the current node, with statistics `stats` of `rows` rows.
    pub(super) fn stopped_root_bound(&mut self, limits: Limits, stats: &[f64], rows: u32) -> C {
        let stored = self
            .cache
            .find(self.key())
            .map_or(C::ZERO, |id| self.cache.known(id, limits).lower_bound);
        // each child's bound costs a leaf evaluation: too slow for a callback's, and where
        // statistics are not additive (the centroid's), a pass over the child's rows
        if limits.is_leaf()
            || self.objective.costly()
            || !self.statistics.additive()
            || !self.splittable(rows)
        {
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
