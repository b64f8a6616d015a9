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
mod trie;
mod wipe;

pub use dataset::{ByRows, DatasetIndex};
pub use hash::{ByPath, HashIndex, HashKey, PathIndex};
pub use trie::TrieIndex;

use crate::cover::Cover;
use crate::data::Item;
use crate::subproblem::{Cost, Decision, Limits};
use std::mem::size_of;

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

/// Maps keys to subproblem ids `0..slots()`; ids freed by `remove` are reused.
pub trait KeyIndex: Default {
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

/// A reference to a cached subproblem that a wipe cannot silently repoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handle {
    /// The subproblem id.
    pub id: u32,
    generation: u32,
}

/// Counters of a cache's life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Most keys held at once.
    pub peak_keys: usize,
    /// Most bytes held at once.
    pub peak_bytes: usize,
    /// Number of wipes.
    pub wipes: usize,
    /// Keys created, counting those created again after a wipe.
    pub created: usize,
}

/// What a cache held and did during one search, as reported with its solution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheReport {
    /// Keys at the end.
    pub entries: usize,
    /// Bytes at the end.
    pub bytes: usize,
    /// Most keys held at once.
    pub peak_entries: usize,
    /// Most bytes held at once.
    pub peak_bytes: usize,
    /// Number of wipes.
    pub wipes: usize,
    /// Keys created, counting those created again after a wipe.
    pub created: usize,
    /// Wiped subtrees of the best tree solved again after the search (spec §6.9).
    pub repaired: usize,
}

impl CacheReport {
    /// Each figure with its name in the bindings: the one list of them.
    pub fn fields(&self) -> [(&'static str, usize); 7] {
        [
            ("cache_entries", self.entries),
            ("cache_bytes", self.bytes),
            ("cache_peak_entries", self.peak_entries),
            ("cache_peak_bytes", self.peak_bytes),
            ("n_wipes", self.wipes),
            ("cache_created_entries", self.created),
            ("repaired", self.repaired),
        ]
    }
}

/// What the cache proves about a subproblem under a budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Known<C> {
    /// An optimal solution: its cost and root decision.
    pub solution: Option<(C, Decision)>,
    /// The best lower bound.
    pub lower_bound: C,
}

impl<C: Cost> Known<C> {
    /// The solution if it is proven optimal: the bound reaches its cost (within
    /// `tolerance`). A solution a restricted or stopped search stored is only a tree.
    pub fn proven(&self, tolerance: f64) -> Option<(C, Decision)> {
        self.solution
            .filter(|&(cost, _)| !self.lower_bound.below(cost, tolerance))
    }
}

/// A cache: a key index and the budget entries of every subproblem.
#[derive(Debug, Default)]
pub struct Cache<I, C> {
    index: I,
    /// First entry of each subproblem.
    heads: Vec<u32>,
    entries: Vec<Entry<C>>,
    /// Freed entries, linked through `next`.
    free_entries: u32,
    n_free_entries: usize,
    /// What wipes rank keys by; `None` for an unbounded cache, which keeps no metadata.
    strategy: Option<WipeStrategy>,
    /// Per id: bumped each time the id is freed.
    generations: Vec<u32>,
    /// Per id: the strategy's score (reuses and work, or keys created while it was solved).
    scores: Vec<u32>,
    stats: CacheStats,
    /// The least cost of any leaf (a leaf penalty), when positive: a tree deeper than `d`
    /// then costs at least `d + 2` of it (see [`Cache::known`]).
    least_leaf: C,
    /// The rounding noise of costs, within which [`Cache::known`] compares them to that.
    tolerance: f64,
}

/// Bytes a vector of `len` items, `capacity` slots and `free` reusable slots may add when
/// `needed` more items arrive: doubling, counted from its capacity.
fn vec_growth<T>(v: &Vec<T>, free: usize, needed: usize) -> usize {
    if v.capacity() - v.len() + free >= needed {
        0
    } else {
        v.capacity().max(needed) * size_of::<T>()
    }
}

impl<I: KeyIndex, C: Cost> Cache<I, C> {
    /// An empty cache; `strategy` is set for a bounded one.
    pub fn new(strategy: Option<WipeStrategy>) -> Self {
        // an index may start with ids (a trie's root)
        let index = I::default();
        let slots = index.slots();
        let per_id = if strategy.is_some() { slots } else { 0 };
        Self {
            index,
            heads: vec![NONE; slots],
            entries: Vec::new(),
            free_entries: NONE,
            n_free_entries: 0,
            strategy,
            generations: vec![0; per_id],
            scores: vec![0; per_id],
            stats: CacheStats::default(),
            least_leaf: C::ZERO,
            tolerance: 0.0,
        }
    }

    /// Tells the cache that every leaf costs at least `least_leaf`, costs being equal within
    /// `tolerance` (the search's trees have no node limit).
    pub fn set_least_leaf(&mut self, least_leaf: C, tolerance: f64) {
        self.least_leaf = least_leaf;
        self.tolerance = tolerance;
    }

    /// The least cost of any leaf (zero when not known).
    pub fn least_leaf(&self) -> C {
        self.least_leaf
    }

    /// The least cost of a tree deeper than `depth` when every leaf costs at least
    /// `least_leaf`: it has at least `depth + 2` leaves.
    pub fn deeper_than(&self, depth: u32) -> C {
        (0..depth + 2).fold(C::ZERO, |sum, _| sum + self.least_leaf)
    }

    /// The id of the subproblem `key`, if cached.
    #[inline]
    pub fn find(&self, key: Key) -> Option<u32> {
        self.index.find(key)
    }

    /// The id of the subproblem `key`, created if missing.
    #[inline]
    pub fn insert(&mut self, key: Key) -> u32 {
        let before = self.index.len();
        let id = match self.strategy {
            Some(WipeStrategy::Reuses) => {
                let scores = &mut self.scores;
                self.index.insert(key, |id| {
                    let score = &mut scores[id as usize];
                    *score = score.saturating_add(1);
                })
            }
            _ => self.index.insert(key, |_| ()),
        };
        let slots = self.index.slots();
        if self.heads.len() < slots {
            self.heads.resize(slots, NONE);
            if self.strategy.is_some() {
                self.generations.resize(slots, 0);
                self.scores.resize(slots, 0);
            }
        }
        let after = self.index.len();
        if after > before {
            self.stats.created += after - before;
            self.stats.peak_keys = self.stats.peak_keys.max(after);
            self.note_bytes();
        }
        id
    }

    /// A handle to `id`, valid until `id` is freed.
    pub fn handle(&self, id: u32) -> Handle {
        Handle {
            id,
            generation: self.generations.get(id as usize).copied().unwrap_or(0),
        }
    }

    /// Whether `handle` still names the key it was taken for.
    pub fn is_current(&self, handle: Handle) -> bool {
        self.handle(handle.id) == handle
    }

    /// Counts a use of `id`'s bounds by a lookup (for a trie, of its prefixes too, so that a
    /// parent is never used less than its child).
    pub fn touch(&mut self, id: u32) {
        if self.strategy == Some(WipeStrategy::Reuses) {
            let mut at = Some(id);
            while let Some(id) = at {
                let score = &mut self.scores[id as usize];
                *score = score.saturating_add(1);
                at = self.index.parent(id);
            }
        }
    }

    /// Records that solving `id` created `keys` keys: added to its reuses score, and the
    /// descendants score of hash indexes.
    pub fn record_work(&mut self, id: u32, keys: usize) {
        let keys = keys.min(u32::MAX as usize) as u32;
        match self.strategy {
            Some(WipeStrategy::Reuses) => {
                self.scores[id as usize] = self.scores[id as usize].saturating_add(keys);
            }
            Some(WipeStrategy::Descendants) if !I::NESTED => {
                self.scores[id as usize] = self.scores[id as usize].max(keys);
            }
            _ => {}
        }
    }

    /// One more than the largest id ever handed out.
    pub fn slots(&self) -> usize {
        self.index.slots()
    }

    /// Writes the path of live `id` into `path`; false if freed or not keyed by paths.
    pub fn path(&self, id: u32, path: &mut Vec<Item>) -> bool {
        path.clear();
        self.index.removable(id) && self.index.path(id, path)
    }

    fn note_bytes(&mut self) {
        self.stats.peak_bytes = self.stats.peak_bytes.max(self.bytes());
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
    /// stored for a budget at least as large (Prop. 11), both in the budget's lane.
    ///
    /// With a least leaf cost, a shallower budget of depth `d` tells about a deeper one too:
    /// every tree deeper than `d` costs at least `c = deeper_than(d)`, so its bound `b` gives
    /// `min(b, c)`, and a solution costing at most `c` is optimal at every depth. A search
    /// under an upper bound below `c` thus solves the shallower budget.
    pub fn known(&self, id: u32, budget: Limits) -> Known<C> {
        let mut known = Known {
            solution: None,
            lower_bound: C::ZERO,
        };
        let floored = C::ZERO.below(self.least_leaf, 0.0);
        // a proven solution (its entry's bound reaches its cost) before a mere tree
        let mut solution_proven = false;
        let mut offer = |known: &mut Known<C>, entry: &Entry<C>| {
            let proven = !entry.lower_bound.below(entry.cost, 0.0);
            if known.solution.is_none() || (proven && !solution_proven) {
                known.solution = Some((entry.cost, entry.decision));
                solution_proven = proven;
            }
        };
        for entry in self.entries_of(id) {
            let b = entry.limits;
            if b.lane != budget.lane {
                continue;
            }
            if b.depth >= budget.depth && b.nodes >= budget.nodes {
                known.lower_bound = known.lower_bound.max(entry.lower_bound);
                let size = entry.decision.size();
                if entry.is_solved() && size <= budget.nodes && b.depth.min(size) <= budget.depth {
                    offer(&mut known, entry);
                }
            } else if floored
                && b.depth < budget.depth
                && b.nodes >= budget.nodes.min(Limits::full_nodes(b.depth))
            {
                // the entry covers every tree of the budget as shallow as its own
                let deeper = self.deeper_than(b.depth);
                let bound = entry.lower_bound.min(deeper, self.tolerance);
                known.lower_bound = known.lower_bound.max(bound);
                let size = entry.decision.size();
                if entry.is_solved()
                    && size <= budget.nodes
                    && !deeper.below(entry.cost, self.tolerance)
                {
                    offer(&mut known, entry);
                }
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
        let entry = Entry {
            limits: budget,
            lower_bound: C::ZERO,
            cost: C::INFINITY,
            decision: Decision::Unsolved,
            next: self.heads[id as usize],
        };
        let at = if self.free_entries != NONE {
            let at = self.free_entries;
            self.free_entries = self.entries[at as usize].next;
            self.n_free_entries -= 1;
            self.entries[at as usize] = entry;
            at as usize
        } else {
            let capacity = self.entries.capacity();
            self.entries.push(entry);
            if self.entries.capacity() != capacity {
                self.note_bytes();
            }
            self.entries.len() - 1
        };
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

    /// Number of live keys (for a trie, its nodes, prefixes included).
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether the cache holds no key.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Number of budget entries.
    pub fn n_entries(&self) -> usize {
        self.entries.len() - self.n_free_entries
    }

    /// Bytes allocated by the cache.
    pub fn bytes(&self) -> usize {
        self.index.bytes()
            + (self.heads.capacity() + self.generations.capacity() + self.scores.capacity())
                * size_of::<u32>()
            + self.entries.capacity() * size_of::<Entry<C>>()
    }

    /// The counters of the cache's life so far.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// At most how many keys inserting `key` creates.
    pub fn new_keys(&self, key: Key) -> usize {
        self.index.new_slots(key)
    }

    /// At most how many bytes inserting `key` and then `entries` budget entries may add,
    /// plus what a wipe would then borrow.
    pub fn growth(&self, key: Key, entries: usize) -> usize {
        let slots = self.index.new_slots(key);
        let free_slots = self.index.slots() - self.index.len();
        let per_id = if self.strategy.is_some() { 3 } else { 1 };
        self.index.growth(key)
            + per_id * vec_growth(&self.heads, free_slots, slots)
            + vec_growth(&self.entries, self.n_free_entries, entries)
            + self.wipe_scratch(slots)
    }
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
