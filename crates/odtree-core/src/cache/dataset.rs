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

    fn insert(&mut self, key: Key) -> u32 {
        let cover = key.cover;
        self.keys
            .insert(cover.hash(), |k| cover.equals(k), cover.pairs())
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    fn bytes(&self) -> usize {
        self.keys.bytes()
    }
}
