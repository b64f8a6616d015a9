//! The similarity lower bound (MurTree §4.4, spec §5.4b).
//!
//! If a node with rows D1 and a budget of depth d and n branching nodes has optimal cost at
//! least b, then a node with rows D2 and the same depth and at most n nodes costs at least
//! `b - weight(D1 \ D2)`: removing rows lowers the optimum by at most their weight, and adding
//! rows never lowers it. The bound holds for misclassification-like costs (a fixed penalty per
//! leaf included) with `min_samples_leaf = 1` only: with larger minimum leaves, the tree of D2
//! may not be valid on fewer rows (the oracle tests find such a case).

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
}

/// Nodes kept per remaining depth.
const KEPT: usize = 2;

impl<C: Cost> SimilarityArchive<C> {
    /// An empty archive for remaining depths up to `max_depth`; a reference serves nodes of
    /// its depth with at most its number of branching nodes.
    pub fn new(max_depth: u32) -> Self {
        Self {
            per_depth: vec![Vec::new(); max_depth as usize + 1],
            dense: Vec::new(),
        }
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
            let removed = removed_weight(&reference.rows, &self.dense, weights);
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
        None => {
            let per_row = weights.per_row();
            let mut total = 0.0;
            for (i, (a, b)) in reference.iter().zip(current).enumerate() {
                total += bits_of(a & !b)
                    .map(|bit| per_row[i * 64 + bit])
                    .sum::<f64>();
            }
            total
        }
    }
}
