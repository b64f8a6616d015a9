//! The similarity lower bound (MurTree §4.4, spec §5.4b).
//!
//! If a node with rows D1 and a budget of depth d and n branching nodes has optimal cost at
//! least b, then a node with rows D2 and the same depth and at most n nodes costs at least
//! `b - weight(D1 \ D2)`: removing rows lowers the optimum by at most their weight, and adding
//! rows never lowers it. The bound holds for misclassification-like costs (a fixed penalty per
//! leaf included) with `min_samples_leaf = 1` only: with larger minimum leaves, the tree of D2
//! may not be valid on fewer rows (the oracle tests find such a case). For a pinball loss a
//! removed row counts its loss at the farthest target instead of its weight
//! ([`crate::objective::Pinball::removal_costs`]).

use super::Cost;
use crate::bitset::bits_of;
use crate::cover::Cover;
use crate::stats::Weights;
use crate::subproblem::Limits;

/// One evaluated node: its rows (dense words) and a proven lower bound of its cost.
#[derive(Clone, Debug)]
struct Reference<C> {
    rows: Vec<u64>,
    nodes: u32,
    bound: C,
}

/// Up to two evaluated nodes per remaining depth.
#[derive(Debug, Default)]
pub(crate) struct SimilarityArchive<C> {
    per_depth: Vec<Vec<Reference<C>>>,
    dense: Vec<u64>,
    /// What each row's removal may lower a cost by, where it is not the row's weight.
    removal: Option<Vec<f64>>,
}

/// Nodes kept per remaining depth.
const KEPT: usize = 2;

impl<C: Cost> SimilarityArchive<C> {
    /// An empty archive for remaining depths up to `max_depth`; a reference serves nodes of
    /// its depth with at most its number of branching nodes. `removal`: what removing each
    /// row may lower a cost by (`None`: the row's weight).
    pub fn new(max_depth: u32, removal: Option<Vec<f64>>) -> Self {
        Self {
            per_depth: vec![Vec::new(); max_depth as usize + 1],
            dense: Vec::new(),
            removal,
        }
    }

    /// Bytes of the removal costs of `n_rows` rows, held besides the references.
    pub fn removal_bytes(n_rows: usize) -> usize {
        n_rows * size_of::<f64>()
    }

    fn load(&mut self, cover: &Cover) {
        let words = cover.words();
        self.dense.clear();
        self.dense.resize(words.len(), 0);
        for &w in cover.word_indices() {
            self.dense[w as usize] = words[w as usize];
        }
    }

    /// The best similarity bound for the current node (0 when nothing is known).
    pub fn bound(&mut self, cover: &Cover, limits: Limits, weights: &Weights) -> C {
        let references = &self.per_depth[limits.depth as usize];
        if references.iter().all(|r| r.nodes < limits.nodes) {
            return C::ZERO;
        }
        self.load(cover);
        let mut best = C::ZERO;
        let references = &self.per_depth[limits.depth as usize];
        for reference in references.iter().filter(|r| r.nodes >= limits.nodes) {
            let removed = match &self.removal {
                Some(per_row) => removed_sum(&reference.rows, &self.dense, per_row),
                None => removed_weight(&reference.rows, &self.dense, weights),
            };
            best = best.max(reference.bound - C::value(removed));
        }
        best
    }

    /// Records the current node, just evaluated, with a proven lower bound of its cost; it
    /// replaces the most similar archived node of the same remaining depth.
    pub fn record(&mut self, cover: &Cover, limits: Limits, bound: C) {
        self.load(cover);
        let references = &mut self.per_depth[limits.depth as usize];
        if references.len() < KEPT {
            references.push(Reference {
                rows: self.dense.clone(),
                nodes: limits.nodes,
                bound,
            });
            return;
        }
        let distance = |r: &Reference<C>| -> u32 {
            r.rows
                .iter()
                .zip(&self.dense)
                .map(|(a, b)| (a ^ b).count_ones())
                .sum()
        };
        let closest = (0..references.len())
            .min_by_key(|&i| distance(&references[i]))
            .unwrap_or(0);
        let slot = &mut references[closest];
        slot.rows.copy_from_slice(&self.dense);
        slot.nodes = limits.nodes;
        slot.bound = bound;
    }
}

/// Weight of the rows in `reference` but not in `current`.
fn removed_weight(reference: &[u64], current: &[u64], weights: &Weights) -> f64 {
    match weights.uniform() {
        Some(w) => {
            let count: u32 = reference
                .iter()
                .zip(current)
                .map(|(a, b)| (a & !b).count_ones())
                .sum();
            count as f64 * w
        }
        None => removed_sum(reference, current, weights.per_row()),
    }
}

/// The sum of `per_row` over the rows in `reference` but not in `current`.
fn removed_sum(reference: &[u64], current: &[u64], per_row: &[f64]) -> f64 {
    let mut total = 0.0;
    for (i, (a, b)) in reference.iter().zip(current).enumerate() {
        total += bits_of(a & !b)
            .map(|bit| per_row[i * 64 + bit])
            .sum::<f64>();
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitset::words_for;
    use proptest::prelude::*;

    /// A cover of exactly the rows `rows` marks.
    fn cover_of(rows: &[bool]) -> Cover {
        let mut words = vec![0u64; words_for(rows.len())];
        for (row, _) in rows.iter().enumerate().filter(|(_, &on)| on) {
            words[row / 64] |= 1 << (row % 64);
        }
        Cover::new(&words)
    }

    /// `bound − weight(reference \ current)`, counted row by row.
    fn naive(reference: &[bool], bound: f64, current: &[bool], weights: &Weights) -> f64 {
        let removed: f64 = (0..current.len())
            .filter(|&row| reference[row] && !current[row])
            .map(|row| weights.of(row))
            .sum();
        bound - removed
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        /// The archive's bound is the best of `bound − removed weight` over the references of
        /// the node's depth with at least its branching nodes (never below 0); a third
        /// reference replaces one, and the bound then still counts the newest.
        #[test]
        fn the_bound_is_the_best_reference_less_the_removed_weight(
            n_rows in 1usize..=150,
            seed in any::<u64>(),
            per_row in any::<bool>(),
            nodes in prop::collection::vec(1u32..=3, 3),
            bounds in prop::collection::vec(0.0f64..60.0, 3),
            asked in 1u32..=3,
        ) {
            let mut state = seed | 1;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let rows: Vec<Vec<bool>> = (0..4).map(|_| (0..n_rows).map(|_| next() % 3 != 0).collect()).collect();
            let weight_values: Vec<f64> = (0..n_rows).map(|_| 0.5 + (next() % 4) as f64).collect();
            let weights = Weights::new(per_row.then_some(&weight_values[..]), n_rows).unwrap();
            let limits = |nodes| Limits { depth: 2, nodes, lane: 0 };
            let mut archive = SimilarityArchive::<f64>::new(2, None);
            let current = cover_of(&rows[3]);
            prop_assert_eq!(archive.bound(&current, limits(asked), &weights), 0.0);
            for k in 0..2 {
                archive.record(&cover_of(&rows[k]), limits(nodes[k]), bounds[k]);
            }
            let expected = (0..2)
                .filter(|&k| limits(nodes[k]).nodes >= limits(asked).nodes)
                .map(|k| naive(&rows[k], bounds[k], &rows[3], &weights))
                .fold(0.0, f64::max);
            let got = archive.bound(&current, limits(asked), &weights);
            prop_assert!((got - expected).abs() < 1e-9, "{} against {}", got, expected);
            // another depth's references never count
            prop_assert_eq!(archive.bound(&current, Limits { depth: 1, nodes: 1, lane: 0 }, &weights), 0.0);
            archive.record(&cover_of(&rows[2]), limits(nodes[2]), bounds[2]);
            let got = archive.bound(&current, limits(asked), &weights);
            let all = (0..3)
                .filter(|&k| limits(nodes[k]).nodes >= limits(asked).nodes)
                .map(|k| naive(&rows[k], bounds[k], &rows[3], &weights))
                .fold(0.0, f64::max);
            prop_assert!(got <= all + 1e-9, "{} is above every reference's {}", got, all);
            if limits(nodes[2]).nodes >= limits(asked).nodes {
                let newest = naive(&rows[2], bounds[2], &rows[3], &weights);
                prop_assert!(got >= newest - 1e-9, "the newest reference {} is lost: {}", newest, got);
            }
        }
    }
}
