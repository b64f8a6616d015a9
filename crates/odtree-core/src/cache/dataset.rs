//! A hash index keyed by the rows of a node (MurTree §4.5.2): every path that leads to the
//! same rows shares one subproblem.

use super::hash::FlatKeys;
use super::{Key, KeyIndex};

/// Dataset index: the key is the cover's non-zero words with their indices.
#[derive(Clone, Debug, Default)]
pub struct DatasetIndex {
    keys: FlatKeys<(u32, u64)>,
}

impl KeyIndex for DatasetIndex {
    const BY_ROWS: bool = true;

    fn find(&self, key: Key) -> Option<u32> {
        self.keys.find(key.cover.hash(), |k| key.cover.equals(k))
    }

    fn insert(&mut self, key: Key, reused: impl FnMut(u32)) -> u32 {
        let cover = key.cover;
        self.keys
            .insert(cover.hash(), |k| cover.equals(k), cover.pairs(), reused)
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    fn slots(&self) -> usize {
        self.keys.slots()
    }

    fn removable(&self, id: u32) -> bool {
        self.keys.is_live(id)
    }

    fn new_slots(&self, key: Key) -> usize {
        usize::from(self.find(key).is_none())
    }

    fn remove(&mut self, id: u32) {
        self.keys.remove(id);
    }

    fn finish_removal(&mut self) {
        self.keys.finish_removal();
    }

    fn bytes(&self) -> usize {
        self.keys.bytes()
    }

    fn growth(&self, key: Key) -> usize {
        self.keys.growth(1, key.cover.word_indices().len())
    }

    fn removal_scratch(&self) -> usize {
        self.keys.removal_scratch()
    }
}
