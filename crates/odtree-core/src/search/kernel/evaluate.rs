//! Evaluating a node: the candidate splits with their children's statistics, the order they
//! are tried in, and what the cache already proves about a child.

use super::depth2::Depth2;
use super::order::{gini_gain, information_gain};
use super::{Child, Cost, Kernel, Level};
use crate::cache::KeyIndex;
use crate::data::{item, Item};
use crate::objective::Objective;
use crate::search::Branching;

impl<I: KeyIndex, O: Objective, C: Cost> Kernel<'_, I, O, C> {
    /// What the cache already proves about `child`: its cost if solved, else its lower bound
    /// (its exact leaf cost when only a leaf fits).
    pub(crate) fn known_bound(&mut self, child: &Child<C>) -> C {
        // a child whose leaves must all predict one class is its leaf (see `solve`)
        if child.limits.is_leaf() || self.lane_label(child.limits.lane).is_some() {
            return child.leaf_cost;
        }
        let known = self
            .find_child(child.item)
            .map(|id| self.cache.known(id, child.limits));
        let floor = self.node_floor(child.leaf_cost);
        known.map_or(floor, |k| {
            k.proven(self.tolerance)
                .map_or(k.lower_bound.max(floor), |(cost, _)| cost)
        })
    }

    /// The stored id of the current node's child reached by `test`, if any (a use of it).
    #[inline]
    pub(crate) fn find_child(&mut self, test: Item) -> Option<u32> {
        let at = self.path.partition_point(|&x| x < test);
        self.path.insert(at, test);
        if I::BY_ROWS {
            self.cover.intersect(self.data.item_mask(test));
        }
        let id = self.cache.find(self.key());
        if let Some(id) = id {
            self.cache.touch(id);
        }
        if I::BY_ROWS {
            self.cover.backtrack();
        }
        self.path.remove(at);
        id
    }

    /// Lists the valid splits of the current node (both children with enough rows and
    /// weight), without their statistics.
    pub(crate) fn valid_splits(&self, level: &mut Level, rows: u32) {
        let min_rows = self.config.min_samples_leaf;
        let weight = self.node_weight(None);
        level.candidates.clear();
        for f in 0..self.data.n_features() as u32 {
            if self.on_path[f as usize] {
                continue;
            }
            let positive = self.cover.count_within(self.data.item_mask(item(f, true)));
            if positive >= min_rows
                && rows - positive >= min_rows
                && self.heavy_enough(f, weight, None)
            {
                level.candidates.push(f);
            }
        }
    }

    /// Lists the valid splits of the current node with their positive children's statistics.
    pub(crate) fn scan(&mut self, level: &mut Level, stats: &[f64], rows: u32) {
        let len = stats.len();
        let n_features = self.data.n_features();
        level.positive.resize(n_features * len, 0.0);
        // a feature the loop does not reach has no rows, which no split allows
        level.positive_rows.clear();
        level.positive_rows.resize(n_features, 0);
        let min_rows = self.config.min_samples_leaf;
        for f in 0..n_features as u32 {
            if self.on_path[f as usize] {
                continue;
            }
            let slot = f as usize * len..(f as usize + 1) * len;
            let mask = self.data.item_mask(item(f, true));
            let positive_rows = if self.statistics.additive() {
                self.statistics
                    .count(&self.cover, Some(mask), &mut level.positive[slot])
            } else {
                // each evaluation may be slow (a Python callback): the time limit is checked
                // before each, and a stopped search no longer proves bounds, so it may stop
                // with part of the node's splits listed
                if self.budget.check_now().is_some() {
                    break;
                }
                // a child too small to be a leaf is never evaluated
                let positive_rows = self.cover.count_within(mask);
                if positive_rows < min_rows || rows - positive_rows < min_rows {
                    level.positive_rows[f as usize] = positive_rows;
                    continue;
                }
                level.negatives.resize(n_features * len, 0.0);
                let negative = self.data.item_mask(item(f, false));
                self.statistics.count(
                    &self.cover,
                    Some(negative),
                    &mut level.negatives[slot.clone()],
                );
                self.statistics
                    .count(&self.cover, Some(mask), &mut level.positive[slot])
            };
            level.positive_rows[f as usize] = positive_rows;
        }
        self.list_valid(level, stats, rows);
    }

    /// [`scan`](Self::scan) from the depth-2 solver's pair sums, moved to the current node's
    /// rows (where its solve then finds them): for a node of depth 2 whose statistics the
    /// solver keeps such sums of. False, with nothing listed, where it does not keep them or
    /// the budget ran out.
    pub(crate) fn scan_kept(&mut self, level: &mut Level, stats: &[f64], rows: u32) -> bool {
        let len = stats.len();
        let rules = self.depth2_rules();
        if !Depth2::<C>::keeps_sums(&rules, len) {
            return false;
        }
        let n_features = self.data.n_features();
        let Some(sums) = self
            .depth2
            .kept_sums(&rules, &self.cover, len, &mut self.budget)
        else {
            return false;
        };
        level.positive.resize(n_features * len, 0.0);
        level.positive_rows.resize(n_features, 0);
        for f in 0..n_features as u32 {
            if !self.on_path[f as usize] {
                let slot = f as usize * len..(f as usize + 1) * len;
                level.positive_rows[f as usize] = sums.single(f, &mut level.positive[slot]);
            }
        }
        self.list_valid(level, stats, rows);
        true
    }

    /// Lists as candidates the features off the path whose two children both have enough
    /// rows (`min_samples_leaf`, at least 1) and weight, from the positive children's
    /// statistics `level` holds.
    fn list_valid(&self, level: &mut Level, stats: &[f64], rows: u32) {
        let len = stats.len();
        let min_rows = self.config.min_samples_leaf;
        let weight = self.node_weight(Some(stats));
        level.candidates.clear();
        for f in 0..self.data.n_features() as u32 {
            if self.on_path[f as usize] {
                continue;
            }
            let positive_rows = level.positive_rows[f as usize];
            let positive = &level.positive[f as usize * len..(f as usize + 1) * len];
            if positive_rows >= min_rows
                && rows - positive_rows >= min_rows
                && self.heavy_enough(f, weight, Some(positive))
            {
                level.candidates.push(f);
            }
        }
    }

    /// The weight of the current node's rows, when a least leaf weight needs it (else 0),
    /// read from its statistics `stats` when given and additive.
    fn node_weight(&self, stats: Option<&[f64]>) -> f64 {
        match stats {
            _ if self.config.min_leaf_weight <= 0.0 => 0.0,
            Some(stats) if self.statistics.additive() => self.statistics.weight(stats),
            _ => self.weight_within(None),
        }
    }

    /// Sorts the candidates by the branching heuristic (stable: ties keep column order).
    pub(crate) fn order(&self, level: &mut Level, stats: &[f64]) {
        type Gain = fn(&[f64], &[f64]) -> f64;
        // a restricted round tries the splits a heuristic ranks best
        let branching = match self.width {
            Some(_) => Branching::Gini,
            None => self.config.branching,
        };
        let (descending, gain): (bool, Option<Gain>) = match branching {
            Branching::InOrder => return,
            // without class statistics, every gain order falls back on the objective's own
            _ if !self.gain_order => (true, None),
            Branching::GainAscending => (false, Some(information_gain)),
            Branching::GainDescending => (true, Some(information_gain)),
            Branching::Gini => (true, Some(gini_gain)),
        };
        let len = stats.len();
        level.gains.resize(self.data.n_features(), 0.0);
        level.negative.resize(len, 0.0);
        for &f in &level.candidates {
            let slot = f as usize * len..(f as usize + 1) * len;
            let positive = &level.positive[slot.clone()];
            level.gains[f as usize] = match gain {
                Some(gain) => gain(stats, positive),
                // the objective of the two leaves, negated: cheaper splits rank higher
                None => {
                    let negative = if self.statistics.additive() {
                        for (n, (s, p)) in level.negative.iter_mut().zip(stats.iter().zip(positive))
                        {
                            *n = s - p;
                        }
                        &level.negative[..]
                    } else {
                        &level.negatives[slot]
                    };
                    -(self.objective.leaf_cost(positive) + self.objective.leaf_cost(negative))
                }
            };
        }
        let gains = &level.gains;
        level.candidates.sort_by(|&a, &b| {
            let order = gains[a as usize].total_cmp(&gains[b as usize]);
            if descending {
                order.reverse()
            } else {
                order
            }
        });
    }
}
