//! Caches of solved and bounded subproblems.
//!
//! A subproblem is a set of rows with a budget: the depth left and the number of branching
//! nodes allowed. The cache maps a *key* to a subproblem id through one of three indexes:
//! the sorted path in a trie ([`TrieIndex`]) or a hash table ([`PathIndex`]), or the rows
//! themselves ([`DatasetIndex`], which also finds equal row sets reached by other paths).
//! Each id owns a short list of [`Entry`]s, one per budget that was asked of it.
//!
//! All storage is flat (a few large vectors), so a cache of millions of entries is freed at
//! once and its size in bytes is read off the vectors' capacities.

mod dataset;
mod hash;
mod trie;

pub use dataset::DatasetIndex;
pub use hash::PathIndex;
pub use trie::TrieIndex;

use crate::cover::Cover;
use crate::data::Item;
use crate::search::Cost;
use std::mem::size_of;

/// How the best subtree of a cached subproblem is rebuilt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// No solution known yet (the entry may still hold a lower bound).
    Unsolved,
    /// The node is a leaf.
    Leaf,
    /// The node splits on `feature`; each child's best subtree uses this many branching nodes
    /// and is looked up in the cache under that budget.
    Split {
        /// Feature tested at this node.
        feature: u32,
        /// Branching nodes in the left (feature = 0) subtree.
        left: u32,
        /// Branching nodes in the right (feature = 1) subtree.
        right: u32,
    },
    /// A subtree of depth ≤ 2 solved in one piece: the root feature, and the feature each
    /// child splits on (`None`: that child is a leaf). Its children are not cached.
    Terminal {
        /// Feature tested at this node.
        feature: u32,
        /// Feature tested by the left (feature = 0) child.
        left: Option<u32>,
        /// Feature tested by the right (feature = 1) child.
        right: Option<u32>,
    },
}

impl Decision {
    /// Number of branching nodes of the subtree this decision roots.
    pub fn size(self) -> u32 {
        match self {
            Decision::Unsolved | Decision::Leaf => 0,
            Decision::Split { left, right, .. } => 1 + left + right,
            Decision::Terminal { left, right, .. } => {
                1 + left.is_some() as u32 + right.is_some() as u32
            }
        }
    }
}

/// The limits of a subproblem: the depth left and the branching nodes allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Remaining depth.
    pub depth: u32,
    /// Maximum number of branching nodes.
    pub nodes: u32,
}

impl Limits {
    /// The budget with neither limit wasted: at most `2^depth - 1` nodes, and no more depth
    /// than nodes (MurTree Eq. 1).
    pub fn normalised(depth: u32, nodes: u32) -> Self {
        let nodes = nodes.min(Self::full_nodes(depth));
        Self {
            depth: depth.min(nodes),
            nodes,
        }
    }

    /// The number of branching nodes of a complete tree of this depth.
    pub fn full_nodes(depth: u32) -> u32 {
        if depth >= 31 {
            u32::MAX
        } else {
            (1u32 << depth) - 1
        }
    }

    /// Whether only a leaf fits.
    pub fn is_leaf(self) -> bool {
        self.depth == 0 || self.nodes == 0
    }
}

/// What the cache knows about one subproblem under one budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry<C> {
    /// The limits this entry is about.
    pub limits: Limits,
    /// Proven lower bound on the optimal cost.
    pub lower_bound: C,
    /// Cost of the solution in `decision` (meaningless while unsolved).
    pub cost: C,
    /// The best subtree's root decision.
    pub decision: Decision,
    /// Next entry of the same subproblem (`NONE` ends the list).
    next: u32,
}

const NONE: u32 = u32::MAX;

impl<C> Entry<C> {
    /// Whether the entry holds a solution.
    pub fn is_solved(&self) -> bool {
        self.decision != Decision::Unsolved
    }
}

/// The key of the current search node: its sorted path and its rows. Each index reads the
/// part it is keyed by.
#[derive(Clone, Copy)]
pub struct Key<'a> {
    /// The tests leading to the node, sorted.
    pub path: &'a [Item],
    /// The rows reaching the node.
    pub cover: &'a Cover,
}

/// Maps keys to dense subproblem ids `0..len`.
pub trait KeyIndex: Default {
    /// Whether the key is the rows (else the path).
    const BY_ROWS: bool;
    /// The id of `key`, if it was inserted.
    fn find(&self, key: Key) -> Option<u32>;
    /// The id of `key`, inserting it as id `len()` if missing.
    fn insert(&mut self, key: Key) -> u32;
    /// Number of keys.
    fn len(&self) -> usize;
    /// Whether no key was inserted.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes allocated (capacities times element sizes).
    fn bytes(&self) -> usize;
}

/// What the cache proves about a subproblem under a budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Known<C> {
    /// An optimal solution: its cost and root decision.
    pub solution: Option<(C, Decision)>,
    /// The best lower bound.
    pub lower_bound: C,
}

/// A cache: a key index and the budget entries of every subproblem.
#[derive(Debug, Default)]
pub struct Cache<I, C> {
    index: I,
    /// First entry of each subproblem.
    heads: Vec<u32>,
    entries: Vec<Entry<C>>,
}

impl<I: KeyIndex, C: Cost> Cache<I, C> {
    /// An empty cache.
    pub fn new() -> Self {
        Self {
            index: I::default(),
            heads: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// The id of the subproblem `key`, if cached.
    #[inline]
    pub fn find(&self, key: Key) -> Option<u32> {
        self.index.find(key)
    }

    /// The id of the subproblem `key`, created if missing.
    #[inline]
    pub fn insert(&mut self, key: Key) -> u32 {
        let id = self.index.insert(key);
        if id as usize == self.heads.len() {
            self.heads.push(NONE);
        }
        id
    }

    fn entries_of(&self, id: u32) -> impl Iterator<Item = &Entry<C>> {
        let mut at = self.heads[id as usize];
        std::iter::from_fn(move || {
            let entry = self.entries.get(at as usize)?;
            at = entry.next;
            Some(entry)
        })
    }

    /// What is known of subproblem `id` under `budget`: a solution stored for a budget at
    /// least as large whose tree fits this one (MurTree Prop. 10), and the largest lower bound
    /// stored for a budget at least as large (Prop. 11).
    pub fn known(&self, id: u32, budget: Limits) -> Known<C> {
        let mut known = Known {
            solution: None,
            lower_bound: C::ZERO,
        };
        for entry in self.entries_of(id) {
            let b = entry.limits;
            if b.depth < budget.depth || b.nodes < budget.nodes {
                continue;
            }
            known.lower_bound = known.lower_bound.max(entry.lower_bound);
            let size = entry.decision.size();
            if entry.is_solved() && size <= budget.nodes && b.depth.min(size) <= budget.depth {
                known.solution = Some((entry.cost, entry.decision));
            }
        }
        known
    }

    /// The entry of subproblem `id` for exactly `budget`, created if missing.
    pub fn entry_mut(&mut self, id: u32, budget: Limits) -> &mut Entry<C> {
        let mut at = self.heads[id as usize];
        while at != NONE {
            if self.entries[at as usize].limits == budget {
                return &mut self.entries[at as usize];
            }
            at = self.entries[at as usize].next;
        }
        let at = self.entries.len();
        self.entries.push(Entry {
            limits: budget,
            lower_bound: C::ZERO,
            cost: C::INFINITY,
            decision: Decision::Unsolved,
            next: self.heads[id as usize],
        });
        self.heads[id as usize] = at as u32;
        &mut self.entries[at]
    }

    /// Records the best solution found for subproblem `id` under `budget`. Only a `proven`
    /// optimum raises the lower bound (a search stopped early stores its incumbents too).
    pub fn store(&mut self, id: u32, budget: Limits, cost: C, decision: Decision, proven: bool) {
        let entry = self.entry_mut(id, budget);
        entry.cost = cost;
        entry.decision = decision;
        if proven {
            entry.lower_bound = entry.lower_bound.max(cost);
        }
    }

    /// Raises the lower bound of subproblem `id` under `budget` (bounds only grow).
    pub fn raise(&mut self, id: u32, budget: Limits, bound: C) {
        let entry = self.entry_mut(id, budget);
        entry.lower_bound = entry.lower_bound.max(bound);
    }

    /// Number of budget entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the cache holds no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of subproblems (keys).
    pub fn n_keys(&self) -> usize {
        self.index.len()
    }

    /// Bytes allocated by the cache.
    pub fn bytes(&self) -> usize {
        self.index.bytes()
            + self.heads.capacity() * size_of::<u32>()
            + self.entries.capacity() * size_of::<Entry<C>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keyed<I: KeyIndex>(paths: &[&[Item]]) {
        let data_rows = [0b1111u64, 0b1];
        let mut cover = Cover::new(&data_rows);
        let mut cache = Cache::<I, f64>::new();
        fn key<'a>(path: &'a [Item], cover: &'a Cover) -> Key<'a> {
            Key { path, cover }
        }
        assert!(cache.find(key(paths[0], &cover)).is_none());
        let a = cache.insert(key(paths[0], &cover));
        assert_eq!(cache.insert(key(paths[0], &cover)), a);
        cover.intersect(&[0b0011, 0]);
        let b = cache.insert(key(paths[1], &cover));
        assert_ne!(a, b);
        assert_eq!(cache.find(key(paths[1], &cover)), Some(b));
        assert_eq!(cache.n_keys(), 2);

        let full = Limits::normalised(2, 3);
        cache.raise(b, full, 4.0);
        cache.raise(b, full, 2.0);
        assert_eq!(cache.known(b, full).lower_bound, 4.0);
        // a bound for a larger budget holds for a smaller one, not the other way round
        assert_eq!(cache.known(b, Limits::normalised(1, 1)).lower_bound, 4.0);
        assert_eq!(cache.known(b, Limits::normalised(3, 7)).lower_bound, 0.0);
        // an optimum using one node is optimal for every budget from one node up
        let one = Decision::Terminal {
            feature: 2,
            left: None,
            right: None,
        };
        cache.store(b, full, 5.0, one, true);
        assert_eq!(
            cache.known(b, Limits::normalised(1, 1)).solution,
            Some((5.0, one))
        );
        assert_eq!(
            cache.known(b, Limits::normalised(2, 2)).solution,
            Some((5.0, one))
        );
        assert_eq!(cache.known(b, Limits::normalised(0, 0)).solution, None);
        assert_eq!(cache.len(), 1);
        assert!(cache.bytes() > 0);
    }

    #[test]
    fn every_index_behaves_alike() {
        keyed::<TrieIndex>(&[&[], &[3]]);
        keyed::<PathIndex>(&[&[], &[3]]);
        keyed::<DatasetIndex>(&[&[], &[3]]);
    }

    #[test]
    fn budgets_normalise() {
        assert_eq!(Limits::normalised(3, 100), Limits { depth: 3, nodes: 7 });
        assert_eq!(Limits::normalised(4, 2), Limits { depth: 2, nodes: 2 });
        assert!(Limits::normalised(5, 0).is_leaf());
        assert_eq!(Limits::full_nodes(40), u32::MAX);
    }

    #[test]
    fn decision_sizes() {
        let split = Decision::Split {
            feature: 0,
            left: 2,
            right: 0,
        };
        assert_eq!(split.size(), 3);
        assert_eq!(Decision::Leaf.size(), 0);
    }
}
