//! A hash table from the full sorted path to its entry (spec §4.3).

use super::{Entry, EntryId, PathCache};
use crate::data::Item;
use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;
use std::mem::size_of;

/// Hash cache keyed by the sorted path.
#[derive(Clone, Debug, Default)]
pub struct HashCache {
    index: HashMap<Box<[Item]>, EntryId, FxBuildHasher>,
    entries: Vec<Entry>,
    key_items: usize,
}

impl HashCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }
}

impl PathCache for HashCache {
    fn find(&self, path: &[Item]) -> Option<EntryId> {
        self.index.get(path).copied()
    }

    fn get_or_insert(&mut self, path: &[Item]) -> (EntryId, bool) {
        if let Some(&id) = self.index.get(path) {
            return (id, false);
        }
        let id = self.entries.len() as EntryId;
        self.entries.push(Entry::NEW);
        self.index.insert(path.into(), id);
        self.key_items += path.len();
        (id, true)
    }

    fn entry(&self, id: EntryId) -> &Entry {
        &self.entries[id as usize]
    }

    fn entry_mut(&mut self, id: EntryId) -> &mut Entry {
        &mut self.entries[id as usize]
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn bytes(&self) -> usize {
        let slot = size_of::<(Box<[Item]>, EntryId)>() + 1;
        self.index.capacity() * slot
            + self.key_items * size_of::<Item>()
            + self.entries.capacity() * size_of::<Entry>()
    }
}
