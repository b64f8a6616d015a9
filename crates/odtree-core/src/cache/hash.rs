//! Hash indexes over keys stored flat: the sorted path ([`PathIndex`], spec §4.3), and the
//! storage shared with the dataset index.

use super::{Key, KeyIndex};
use crate::data::Item;
use hashbrown::HashTable;
use std::hash::{BuildHasher, Hash};
use std::mem::size_of;

/// Keys of type `[T]` stored one after the other in one vector, with a hash table of ids.
#[derive(Clone, Debug)]
pub(super) struct FlatKeys<T> {
    table: HashTable<u32>,
    /// `(start, end, hash)` of each key in `items`.
    spans: Vec<(u32, u32, u64)>,
    items: Vec<T>,
}

impl<T> Default for FlatKeys<T> {
    fn default() -> Self {
        Self {
            table: HashTable::new(),
            spans: Vec::new(),
            items: Vec::new(),
        }
    }
}

impl<T: Copy> FlatKeys<T> {
    fn key(&self, id: u32) -> &[T] {
        let (start, end, _) = self.spans[id as usize];
        &self.items[start as usize..end as usize]
    }

    /// The id of the key with this hash for which `eq` holds.
    #[inline]
    pub fn find(&self, hash: u64, eq: impl Fn(&[T]) -> bool) -> Option<u32> {
        self.table
            .find(hash, |&id| {
                self.spans[id as usize].2 == hash && eq(self.key(id))
            })
            .copied()
    }

    /// The id of the key, inserting `items` as a new key if no stored key satisfies `eq`.
    pub fn insert(
        &mut self,
        hash: u64,
        eq: impl Fn(&[T]) -> bool,
        items: impl Iterator<Item = T>,
    ) -> u32 {
        if let Some(id) = self.find(hash, eq) {
            return id;
        }
        let id = self.spans.len() as u32;
        let start = self.items.len() as u32;
        self.items.extend(items);
        self.spans.push((start, self.items.len() as u32, hash));
        let spans = &self.spans;
        self.table
            .insert_unique(hash, id, |&id| spans[id as usize].2);
        id
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn bytes(&self) -> usize {
        self.table.capacity() * (size_of::<u32>() + 1)
            + self.spans.capacity() * size_of::<(u32, u32, u64)>()
            + self.items.capacity() * size_of::<T>()
    }
}

/// Hash index keyed by the sorted path.
#[derive(Clone, Debug, Default)]
pub struct PathIndex {
    keys: FlatKeys<Item>,
}

fn path_hash(path: &[Item]) -> u64 {
    let mut hasher = rustc_hash::FxBuildHasher.build_hasher();
    path.hash(&mut hasher);
    std::hash::Hasher::finish(&hasher)
}

impl KeyIndex for PathIndex {
    const BY_ROWS: bool = false;

    fn find(&self, key: Key) -> Option<u32> {
        self.keys.find(path_hash(key.path), |k| k == key.path)
    }

    fn insert(&mut self, key: Key) -> u32 {
        let path = key.path;
        self.keys
            .insert(path_hash(path), |k| k == path, path.iter().copied())
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    fn bytes(&self) -> usize {
        self.keys.bytes()
    }
}
