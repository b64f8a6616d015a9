//! The store of subproblems: per id of a key index, the bounds and solutions of each budget
//! asked of it, and what a memory limit needs to count (spec §4.1 and §6).

use super::{CacheStats, Entry, Handle, Key, KeyIndex, WipeStrategy, NONE};
use crate::data::Item;
use crate::subproblem::{Cost, Decision, Limits};
use std::mem::size_of;

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
#[derive(Clone, Debug, Default)]
pub struct Cache<I, C> {
    pub(super) index: I,
    /// First entry of each subproblem.
    pub(super) heads: Vec<u32>,
    pub(super) entries: Vec<Entry<C>>,
    /// Freed entries, linked through `next`.
    pub(super) free_entries: u32,
    pub(super) n_free_entries: usize,
    /// What wipes rank keys by; `None` for an unbounded cache, which keeps no metadata.
    pub(super) strategy: Option<WipeStrategy>,
    /// Per id: bumped each time the id is freed.
    pub(super) generations: Vec<u32>,
    /// Per id: the strategy's score (reuses and work, or keys created while it was solved).
    pub(super) scores: Vec<u32>,
    pub(super) stats: CacheStats,
    /// The least cost of any leaf (a leaf penalty), when positive: a tree deeper than `d`
    /// then costs at least `d + 2` of it (see [`Cache::known`]).
    pub(super) least_leaf: C,
    /// The rounding noise of costs, within which [`Cache::known`] compares them to that.
    pub(super) tolerance: f64,
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

    /// Counts in this cache's figures its copies that searched beside it, with `copies` their
    /// figures at the end: their keys and bytes held at once on top of this cache's, and
    /// their wipes and keys created since they were copied.
    pub fn count_copies(&mut self, copies: &[CacheStats]) {
        let at_copy = self.stats;
        let sum = |figure: fn(&CacheStats) -> usize| copies.iter().map(figure).sum::<usize>();
        self.stats.peak_bytes = (at_copy.peak_bytes).max(self.bytes() + sum(|c| c.peak_bytes));
        self.stats.peak_keys = (at_copy.peak_keys).max(self.len() + sum(|c| c.peak_keys));
        self.stats.wipes += sum(|c| c.wipes) - copies.len() * at_copy.wipes;
        self.stats.created += sum(|c| c.created) - copies.len() * at_copy.created;
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
