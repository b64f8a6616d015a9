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
//!
//! A cache may be bounded (spec §6): [`Cache::wipe`] frees the keys ranked lowest, first by
//! a tier the search gives (whether its recursion stack can still reach the key, and how
//! soon), then by a [`WipeStrategy`], except those the search protects. Freed ids and entries go to free lists and are
//! reused, so the vectors stop growing; each id has a generation, bumped when it is freed,
//! so a [`Handle`] held across a wipe can tell whether it still names the same key.

mod dataset;
#[cfg(test)]
mod example;
mod hash;
mod report;
mod store;
mod trie;
mod wipe;

pub use dataset::{ByRows, DatasetIndex};
pub use hash::{ByPath, HashIndex, HashKey, PathIndex};
pub use report::{CacheReport, CacheStats};
pub use store::{Cache, Known};
pub use trie::TrieIndex;

use crate::cover::Cover;
use crate::data::Item;
use crate::subproblem::{Decision, Limits};

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

/// Maps keys to subproblem ids `0..slots()`; ids freed by `remove` are reused. (Sent with
/// the cache a solver keeps between searches, and cloned for the threads of a search.)
pub trait KeyIndex: Clone + Default + Send + 'static {
    /// Whether the key is the rows (else the path).
    const BY_ROWS: bool;
    /// Whether ids form a tree ([`KeyIndex::parent`]): a key can only be removed after its
    /// children, and is kept whenever a descendant is.
    const NESTED: bool = false;
    /// The id of `key`, if it was inserted.
    fn find(&self, key: Key) -> Option<u32>;
    /// The id of `key`, inserting it if missing. `reused` is told every existing id the
    /// insertion went through (for a trie, the key's prefixes too).
    fn insert(&mut self, key: Key, reused: impl FnMut(u32)) -> u32;
    /// Number of live ids.
    fn len(&self) -> usize;
    /// Whether no key was inserted.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// One more than the largest id ever handed out.
    fn slots(&self) -> usize;
    /// Whether `id` is live and may be removed.
    fn removable(&self, id: u32) -> bool;
    /// The parent of `id` in a nested index.
    fn parent(&self, _id: u32) -> Option<u32> {
        None
    }
    /// Whether `id` has children in a nested index.
    fn has_children(&self, _id: u32) -> bool {
        false
    }
    /// At most how many ids inserting `key` creates.
    fn new_slots(&self, key: Key) -> usize;
    /// Writes the path of `id` into `path` (in any order) and returns true, or returns false
    /// when the index is not keyed by paths.
    fn path(&self, id: u32, path: &mut Vec<Item>) -> bool;
    /// Frees `id` (in a nested index, one without children).
    fn remove(&mut self, id: u32);
    /// Finishes a batch of removals.
    fn finish_removal(&mut self);
    /// Bytes allocated (capacities times element sizes).
    fn bytes(&self) -> usize;
    /// At most how many bytes inserting `key` may add, counting a reallocation's old and new
    /// blocks while both are held.
    fn growth(&self, key: Key) -> usize;
    /// Bytes a batch of removals borrows while it runs.
    fn removal_scratch(&self) -> usize {
        0
    }
}

/// Which keys a wipe frees first (spec §6.6), among those of the lowest tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WipeStrategy {
    /// The least reused: a key scores the lookups that found it (a trie counts a visit for
    /// every prefix on the way) plus the keys its own solving created, which each reuse saves.
    Reuses,
    /// Those with the fewest descendants: trie nodes below them, or for hash indexes the keys
    /// created while they were being solved.
    Descendants,
    /// Every key not protected.
    All,
}

impl WipeStrategy {
    /// Each strategy with its name in the Python API (`wipe_strategy`), in the order errors
    /// list them.
    pub const NAMES: [(&'static str, Self); 3] = [
        ("reuses", Self::Reuses),
        ("descendants", Self::Descendants),
        ("all", Self::All),
    ];
}

/// A reference to a cached subproblem that a wipe cannot silently repoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handle {
    /// The subproblem id.
    pub id: u32,
    generation: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keyed<I: KeyIndex>(paths: &[&[Item]]) {
        let data_rows = [0b1111u64, 0b1];
        let mut cover = Cover::new(&data_rows);
        let mut cache = Cache::<I, f64>::new(None);
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
        assert!(cache.len() >= 2);

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
        assert_eq!(cache.n_entries(), 1);
        assert!(cache.bytes() > 0);
    }

    #[test]
    fn every_index_behaves_alike() {
        keyed::<TrieIndex>(&[&[1], &[1, 3]]);
        keyed::<PathIndex>(&[&[1], &[1, 3]]);
        keyed::<DatasetIndex>(&[&[1], &[1, 3]]);
        keyed::<example::BTreeIndex>(&[&[1], &[1, 3]]);
    }

    #[test]
    fn budgets_normalise() {
        assert_eq!(
            Limits::normalised(3, 100),
            Limits {
                depth: 3,
                nodes: 7,
                lane: 0
            }
        );
        assert_eq!(
            Limits::normalised(4, 2),
            Limits {
                depth: 2,
                nodes: 2,
                lane: 0
            }
        );
        assert!(Limits::normalised(5, 0).is_leaf());
        assert_eq!(Limits::full_nodes(40), u32::MAX);
    }

    #[test]
    fn wipes_free_low_tiers_first_and_never_a_parent_before_its_child() {
        let data_rows = [0b1111u64];
        let cover = Cover::new(&data_rows);
        let mut cache = Cache::<TrieIndex, f64>::new(Some(WipeStrategy::Reuses));
        let mut id = |path: &[Item]| {
            cache.insert(Key {
                path,
                cover: &cover,
            })
        };
        let (a, ac, b, bd) = (id(&[1]), id(&[1, 3]), id(&[2]), id(&[2, 5]));
        let mut tiers = vec![0u8; cache.slots()];
        // [1] is unreachable itself, but its child [1, 3] is reachable soon
        (tiers[a as usize], tiers[ac as usize]) = (0, 2);
        (tiers[b as usize], tiers[bd as usize]) = (1, 0);
        let freed = cache.wipe(&mut Vec::new(), 2, WipeStrategy::Reuses, &tiers);
        assert_eq!(freed, 2);
        let live = |cache: &Cache<TrieIndex, f64>, path: &[Item]| {
            cache
                .find(Key {
                    path,
                    cover: &cover,
                })
                .is_some()
        };
        assert!(!live(&cache, &[2, 5]) && !live(&cache, &[2]));
        assert!(live(&cache, &[1]) && live(&cache, &[1, 3]));
        // within a tier, the more reused key stays
        let mut cache = Cache::<PathIndex, f64>::new(Some(WipeStrategy::Reuses));
        let mut id = |path: &[Item]| {
            cache.insert(Key {
                path,
                cover: &cover,
            })
        };
        let (x, y) = (id(&[4]), id(&[6]));
        id(&[6]);
        cache.record_work(x, 0);
        cache.wipe(&mut Vec::new(), 1, WipeStrategy::Reuses, &[1, 1]);
        assert!(cache
            .find(Key {
                path: &[4],
                cover: &cover
            })
            .is_none());
        assert_eq!(
            cache.find(Key {
                path: &[6],
                cover: &cover
            }),
            Some(y)
        );
    }

    #[test]
    fn decision_sizes() {
        let split = Decision::Split {
            feature: 0,
            left: 2,
            right: 0,
            lanes: None,
        };
        assert_eq!(split.size(), 3);
        assert_eq!(Decision::Leaf.size(), 0);
    }
}
