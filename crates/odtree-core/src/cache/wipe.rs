//! Wiping a bounded cache (spec §6): freeing the keys ranked lowest, first by the tier the
//! search gives, then by the strategy's score, sparing protected keys and, in a nested index,
//! their ancestors.

use super::{Cache, KeyIndex, WipeStrategy, NONE};
use crate::subproblem::Cost;
use std::mem::size_of;

/// Score buckets: exact below 32, then 8 per power of two.
const BUCKETS: usize = 256;

/// The bucket of a score; larger scores never fall in smaller buckets.
fn bucket(score: u32) -> usize {
    if score < 32 {
        return score as usize;
    }
    let log = 31 - score.leading_zeros();
    32 + (log as usize - 5) * 8 + ((score >> (log - 3)) & 7) as usize
}

impl<I: KeyIndex, C: Cost> Cache<I, C> {
    /// Bytes a wipe borrows, with `extra` more ids.
    pub(super) fn wipe_scratch(&self, extra: usize) -> usize {
        // per id: its depth, tier and rank, and its place in the order of freeing (twice)
        let per_id = 2 + 3 * size_of::<u32>();
        (self.index.slots() + extra) * per_id
            + self.index.removal_scratch()
            + extra * size_of::<u32>()
    }

    /// Frees about `target` keys, lowest rank first: by `tiers[id]` (ids beyond it are tier
    /// 0), then by `strategy` score. Never frees a key in `protected`, nor in a nested index
    /// its ancestors; there a key ranks at least as high as its descendants, so children go
    /// before their parents. Returns how many keys were freed.
    pub fn wipe(
        &mut self,
        protected: &mut Vec<u32>,
        target: usize,
        strategy: WipeStrategy,
        tiers: &[u8],
    ) -> usize {
        for i in 0..protected.len() {
            let mut at = protected[i];
            while let Some(parent) = self.index.parent(at) {
                protected.push(parent);
                at = parent;
            }
        }
        protected.sort_unstable();
        protected.dedup();
        let slots = self.index.slots() as u32;
        // a nested index frees deeper keys first, so children go before their parents
        let depth = |id: u32| {
            let mut depth = 0u8;
            let mut at = id;
            while let Some(parent) = self.index.parent(at) {
                depth = depth.saturating_add(1);
                at = parent;
            }
            depth
        };
        let mut order: Vec<u32> = (0..slots).filter(|&id| self.index.removable(id)).collect();
        if I::NESTED {
            let depths: Vec<u8> = (0..slots).map(depth).collect();
            order.sort_by_key(|&id| std::cmp::Reverse(depths[id as usize]));
        }
        if strategy == WipeStrategy::Descendants && I::NESTED {
            self.scores.iter_mut().for_each(|s| *s = 0);
            for &id in &order {
                let mut at = id;
                while let Some(parent) = self.index.parent(at) {
                    self.scores[parent as usize] = self.scores[parent as usize].saturating_add(1);
                    at = parent;
                }
            }
        }
        let mut ranks: Vec<u32> = (0..slots as usize)
            .map(|id| match strategy {
                WipeStrategy::All => 0,
                _ => {
                    let tier = tiers.get(id).copied().unwrap_or(0) as u32;
                    tier * BUCKETS as u32 + bucket(self.scores[id]) as u32
                }
            })
            .collect();
        if I::NESTED {
            for &id in &order {
                if let Some(parent) = self.index.parent(id) {
                    ranks[parent as usize] = ranks[parent as usize].max(ranks[id as usize]);
                }
            }
        }
        order.retain(|&id| protected.binary_search(&id).is_err());
        let mut counts = vec![0usize; ranks.iter().max().map_or(1, |&r| r as usize + 1)];
        for &id in &order {
            counts[ranks[id as usize] as usize] += 1;
        }
        // free every rank below `threshold`, and `quota` keys of the threshold rank
        let (mut threshold, mut quota, mut below) = (counts.len() as u32, 0, 0);
        for (rank, &count) in counts.iter().enumerate() {
            if below + count >= target {
                (threshold, quota) = (rank as u32, target - below);
                break;
            }
            below += count;
        }
        let (lower, at): (Vec<u32>, Vec<u32>) = order
            .into_iter()
            .filter(|&id| ranks[id as usize] <= threshold)
            .partition(|&id| ranks[id as usize] < threshold);
        let mut freed = 0;
        for id in lower.into_iter().chain(at) {
            let at_threshold = ranks[id as usize] == threshold;
            if at_threshold && quota == 0 {
                break;
            }
            if self.index.has_children(id) {
                continue;
            }
            quota -= usize::from(at_threshold);
            self.free(id);
            freed += 1;
        }
        self.index.finish_removal();
        self.stats.wipes += 1;
        freed
    }

    /// Frees `id` and its entries.
    fn free(&mut self, id: u32) {
        let mut at = std::mem::replace(&mut self.heads[id as usize], NONE);
        while at != NONE {
            let entry = &mut self.entries[at as usize];
            let next = std::mem::replace(&mut entry.next, self.free_entries);
            self.free_entries = at;
            self.n_free_entries += 1;
            at = next;
        }
        self.generations[id as usize] = self.generations[id as usize].wrapping_add(1);
        self.scores[id as usize] = 0;
        self.index.remove(id);
    }
}
