//! A hash index keyed by the rows of a node (MurTree §4.5.2): every path that leads to the
//! same rows shares one subproblem.

use super::hash::{HashIndex, HashKey};
use super::Key;
use crate::data::Item;

/// The cover's non-zero words with their indices as the key.
#[derive(Clone, Copy, Debug, Default)]
pub struct ByRows;

impl HashKey for ByRows {
    type Item = (u32, u64);
    const BY_ROWS: bool = true;

    fn hash(key: Key) -> u64 {
        key.cover.hash()
    }

    fn matches(key: Key, stored: &[(u32, u64)]) -> bool {
        key.cover.equals(stored)
    }

    fn items<'a>(key: Key<'a>) -> impl Iterator<Item = (u32, u64)> + 'a {
        key.cover.pairs()
    }

    fn len(key: Key) -> usize {
        key.cover.word_indices().len()
    }

    fn path(_: &[(u32, u64)], _: &mut Vec<Item>) -> bool {
        false
    }
}

/// Dataset index: paths reaching the same rows share one key.
pub type DatasetIndex = HashIndex<ByRows>;
