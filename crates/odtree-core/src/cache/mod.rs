//! Caches of solved and bounded subproblems, keyed by the sorted path of tests leading to them.

mod hash;
mod trie;

pub use hash::HashCache;
pub use trie::TrieCache;

use crate::data::Item;

/// How the best subtree of a cached node is rebuilt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// No solution known yet (the entry may still hold a lower bound).
    Unsolved,
    /// The node is a leaf.
    Leaf,
    /// The node splits on this feature; both children are looked up in the cache
    /// (or are leaves when no depth is left below them).
    Split(u32),
    /// A depth-2 subtree solved in one piece: the root feature, and the feature each child
    /// splits on (`None`: that child is a leaf). Its children are not cached.
    Terminal {
        /// Feature tested at this node.
        feature: u32,
        /// Feature tested by the left (feature = 0) child.
        left: Option<u32>,
        /// Feature tested by the right (feature = 1) child.
        right: Option<u32>,
    },
}

/// What the cache knows about one subproblem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// Proven lower bound on the subproblem's optimal cost.
    pub lower_bound: f64,
    /// Cost of the solution in `decision` (meaningless while unsolved).
    pub cost: f64,
    /// The best subtree's root decision.
    pub decision: Decision,
}

impl Entry {
    /// A fresh entry: no solution, lower bound zero.
    pub const NEW: Entry = Entry {
        lower_bound: 0.0,
        cost: f64::INFINITY,
        decision: Decision::Unsolved,
    };

    /// Whether the entry holds a solution.
    pub fn is_solved(&self) -> bool {
        self.decision != Decision::Unsolved
    }
}

/// Handle of an entry inside a cache.
pub type EntryId = u32;

/// A cache of entries keyed by sorted paths (sets of items).
pub trait PathCache {
    /// The entry for `path`, if one exists.
    fn find(&self, path: &[Item]) -> Option<EntryId>;
    /// The entry for `path`, created fresh if missing; the flag says whether it is new.
    fn get_or_insert(&mut self, path: &[Item]) -> (EntryId, bool);
    /// Reads an entry.
    fn entry(&self, id: EntryId) -> &Entry;
    /// Updates an entry.
    fn entry_mut(&mut self, id: EntryId) -> &mut Entry;
    /// Number of entries holding data (structural trie nodes excluded).
    fn len(&self) -> usize;
    /// Whether the cache is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes the cache has allocated (capacities times element sizes).
    fn bytes(&self) -> usize;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise(cache: &mut dyn PathCache) {
        assert!(cache.find(&[1, 4]).is_none());
        let (a, new) = cache.get_or_insert(&[1, 4]);
        assert!(new);
        cache.entry_mut(a).lower_bound = 3.0;
        let (b, new) = cache.get_or_insert(&[1, 4]);
        assert!(!new && a == b);
        assert_eq!(cache.entry(b).lower_bound, 3.0);
        let (c, _) = cache.get_or_insert(&[1]);
        assert_ne!(a, c);
        assert_eq!(cache.entry(c), &Entry::NEW);
        let (root, _) = cache.get_or_insert(&[]);
        assert_eq!(cache.find(&[]), Some(root));
        assert_eq!(cache.len(), 3);
        assert!(cache.bytes() > 0);
    }

    #[test]
    fn trie_and_hash_behave_alike() {
        exercise(&mut TrieCache::new());
        exercise(&mut HashCache::new());
    }

    #[test]
    fn trie_prefix_nodes_are_not_entries() {
        let mut trie = TrieCache::new();
        trie.get_or_insert(&[2, 5, 9]);
        assert!(trie.find(&[2]).is_none());
        assert!(trie.find(&[2, 5]).is_none());
        assert_eq!(trie.len(), 1);
        let (_, new) = trie.get_or_insert(&[2, 5]);
        assert!(
            new,
            "a structural prefix counts as new when reached as a search node"
        );
    }
}
