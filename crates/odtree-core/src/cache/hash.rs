//! Hash indexes over keys stored flat: the sorted path ([`PathIndex`], spec §4.3), and the
//! storage shared with the dataset index.

use super::{Key, KeyIndex};
use crate::data::Item;
use hashbrown::HashTable;
use std::fmt::Debug;
use std::hash::{BuildHasher, Hash};
use std::mem::size_of;

/// Keys of type `[T]` stored one after the other in one vector, with a hash table of ids.
/// Removed ids go to a free list; [`FlatKeys::finish_removal`] closes the gaps they leave.
#[derive(Clone, Debug)]
pub(super) struct FlatKeys<T> {
    table: HashTable<u32>,
    /// `(start, end, hash)` of each key in `items`; `start == DEAD` for a free id.
    spans: Vec<(u32, u32, u64)>,
    items: Vec<T>,
    free: Vec<u32>,
}

/// Start of the span of a removed key.
const DEAD: u32 = u32::MAX;

impl<T> Default for FlatKeys<T> {
    fn default() -> Self {
        Self {
            table: HashTable::new(),
            spans: Vec::new(),
            items: Vec::new(),
            free: Vec::new(),
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

    /// The id of the key, inserting `items` as a new key if no stored key satisfies `eq`;
    /// `reused` is told the id when the key was there.
    pub fn insert(
        &mut self,
        hash: u64,
        eq: impl Fn(&[T]) -> bool,
        items: impl Iterator<Item = T>,
        reused: impl FnOnce(u32),
    ) -> u32 {
        if let Some(id) = self.find(hash, eq) {
            reused(id);
            return id;
        }
        let start = self.items.len() as u32;
        self.items.extend(items);
        let span = (start, self.items.len() as u32, hash);
        let id = match self.free.pop() {
            Some(id) => {
                self.spans[id as usize] = span;
                id
            }
            None => {
                self.spans.push(span);
                self.spans.len() as u32 - 1
            }
        };
        let spans = &self.spans;
        self.table
            .insert_unique(hash, id, |&id| spans[id as usize].2);
        id
    }

    pub fn len(&self) -> usize {
        self.spans.len() - self.free.len()
    }

    pub fn slots(&self) -> usize {
        self.spans.len()
    }

    pub fn is_live(&self, id: u32) -> bool {
        self.spans[id as usize].0 != DEAD
    }

    /// Frees `id`; the table and the items are fixed by `finish_removal`.
    pub fn remove(&mut self, id: u32) {
        self.spans[id as usize].0 = DEAD;
        self.free.push(id);
    }

    /// Rebuilds the table in its own allocation and moves the live keys' items down over the
    /// gaps, oldest first, so no key overlaps another.
    pub fn finish_removal(&mut self) {
        let spans = &self.spans;
        self.table.clear();
        let mut live: Vec<u32> = (0..spans.len() as u32)
            .filter(|&id| spans[id as usize].0 != DEAD)
            .collect();
        live.sort_unstable_by_key(|&id| spans[id as usize].0);
        let mut end = 0u32;
        for &id in &live {
            let (start, stop, hash) = self.spans[id as usize];
            self.items
                .copy_within(start as usize..stop as usize, end as usize);
            self.spans[id as usize] = (end, end + stop - start, hash);
            end += stop - start;
            let spans = &self.spans;
            self.table
                .insert_unique(hash, id, |&id| spans[id as usize].2);
        }
        self.items.truncate(end as usize);
    }

    pub fn bytes(&self) -> usize {
        self.table.allocation_size()
            + self.spans.capacity() * size_of::<(u32, u32, u64)>()
            + self.items.capacity() * size_of::<T>()
            + self.free.capacity() * size_of::<u32>()
    }

    /// Bytes that inserting `new_keys` keys of up to `key_len` items each may allocate: a
    /// vector that must grow doubles, and a growing table holds its old and new allocations
    /// at once.
    pub fn growth(&self, new_keys: usize, key_len: usize) -> usize {
        let table = if self.table.capacity() - self.table.len() >= new_keys {
            0
        } else {
            2 * self.table.allocation_size().max(64)
        };
        let spans = if self.spans.capacity() - self.spans.len() + self.free.len() >= new_keys {
            0
        } else {
            self.spans.capacity().max(new_keys) * size_of::<(u32, u32, u64)>()
        };
        let needed = new_keys * key_len;
        let items = if self.items.capacity() - self.items.len() >= needed {
            0
        } else {
            self.items.capacity().max(needed) * size_of::<T>()
        };
        table + spans + items
    }

    /// Bytes `finish_removal` borrows for a moment.
    pub fn removal_scratch(&self) -> usize {
        self.spans.len() * size_of::<u32>()
    }
}

/// How a hash index reads its key off the search node.
pub trait HashKey: Clone + Debug + Default + Send + 'static {
    /// One unit of a stored key.
    type Item: Copy + Debug + Send;
    /// Whether the key is the rows (else the path).
    const BY_ROWS: bool;
    /// The key's hash.
    fn hash(key: Key) -> u64;
    /// Whether `stored` is this key.
    fn matches(key: Key, stored: &[Self::Item]) -> bool;
    /// The key's units, to store.
    fn items<'a>(key: Key<'a>) -> impl Iterator<Item = Self::Item> + 'a;
    /// Number of units of the key.
    fn len(key: Key) -> usize;
    /// Writes the path a stored key is, if it is one.
    fn path(stored: &[Self::Item], path: &mut Vec<Item>) -> bool;
}

/// A hash index over keys stored flat, read off the node as `K` says.
#[derive(Clone, Debug)]
pub struct HashIndex<K: HashKey> {
    keys: FlatKeys<K::Item>,
}

impl<K: HashKey> Default for HashIndex<K> {
    fn default() -> Self {
        Self {
            keys: FlatKeys::default(),
        }
    }
}

impl<K: HashKey> KeyIndex for HashIndex<K> {
    const BY_ROWS: bool = K::BY_ROWS;

    fn find(&self, key: Key) -> Option<u32> {
        self.keys.find(K::hash(key), |k| K::matches(key, k))
    }

    fn insert(&mut self, key: Key, reused: impl FnMut(u32)) -> u32 {
        self.keys
            .insert(K::hash(key), |k| K::matches(key, k), K::items(key), reused)
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

    fn path(&self, id: u32, path: &mut Vec<Item>) -> bool {
        K::path(self.keys.key(id), path)
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
        self.keys.growth(1, K::len(key))
    }

    fn removal_scratch(&self) -> usize {
        self.keys.removal_scratch()
    }
}

/// The sorted path as the key.
#[derive(Clone, Copy, Debug, Default)]
pub struct ByPath;

impl HashKey for ByPath {
    type Item = Item;
    const BY_ROWS: bool = false;

    fn hash(key: Key) -> u64 {
        let mut hasher = rustc_hash::FxBuildHasher.build_hasher();
        key.path.hash(&mut hasher);
        std::hash::Hasher::finish(&hasher)
    }

    fn matches(key: Key, stored: &[Item]) -> bool {
        stored == key.path
    }

    fn items<'a>(key: Key<'a>) -> impl Iterator<Item = Item> + 'a {
        key.path.iter().copied()
    }

    fn len(key: Key) -> usize {
        key.path.len()
    }

    fn path(stored: &[Item], path: &mut Vec<Item>) -> bool {
        path.extend_from_slice(stored);
        true
    }
}

/// Hash index keyed by the sorted path.
pub type PathIndex = HashIndex<ByPath>;
