//! A trie over sorted paths: shared prefixes are stored once (spec §4.2).

use super::{Key, KeyIndex, NONE};
use crate::data::Item;
use std::mem::size_of;

/// One trie node: sorted edges to its children and the id of its path, if it is a key.
#[derive(Clone, Debug)]
struct TrieNode {
    edges: Vec<(Item, u32)>,
    id: u32,
}

const EMPTY: TrieNode = TrieNode {
    edges: Vec::new(),
    id: NONE,
};

/// Trie index keyed by the sorted path; node 0 is the empty path.
#[derive(Clone, Debug)]
pub struct TrieIndex {
    nodes: Vec<TrieNode>,
    n_keys: u32,
}

impl Default for TrieIndex {
    fn default() -> Self {
        Self {
            nodes: vec![EMPTY],
            n_keys: 0,
        }
    }
}

impl TrieIndex {
    fn child(&self, node: u32, item: Item) -> Option<u32> {
        let edges = &self.nodes[node as usize].edges;
        edges
            .binary_search_by_key(&item, |e| e.0)
            .ok()
            .map(|i| edges[i].1)
    }
}

impl KeyIndex for TrieIndex {
    const BY_ROWS: bool = false;

    fn find(&self, key: Key) -> Option<u32> {
        let node = key
            .path
            .iter()
            .try_fold(0u32, |node, &item| self.child(node, item))?;
        Some(self.nodes[node as usize].id).filter(|&id| id != NONE)
    }

    fn insert(&mut self, key: Key) -> u32 {
        let mut node = 0u32;
        for &item in key.path {
            let edges = &self.nodes[node as usize].edges;
            node = match edges.binary_search_by_key(&item, |e| e.0) {
                Ok(i) => edges[i].1,
                Err(i) => {
                    let child = self.nodes.len() as u32;
                    self.nodes.push(EMPTY);
                    self.nodes[node as usize].edges.insert(i, (item, child));
                    child
                }
            };
        }
        let slot = &mut self.nodes[node as usize].id;
        if *slot == NONE {
            *slot = self.n_keys;
            self.n_keys += 1;
        }
        *slot
    }

    fn len(&self) -> usize {
        self.n_keys as usize
    }

    fn bytes(&self) -> usize {
        let edges: usize = self.nodes.iter().map(|n| n.edges.capacity()).sum();
        self.nodes.capacity() * size_of::<TrieNode>() + edges * size_of::<(Item, u32)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cover::Cover;

    #[test]
    fn prefixes_are_not_keys() {
        let cover = Cover::new(&[1]);
        let key = |path| Key {
            path,
            cover: &cover,
        };
        let mut trie = TrieIndex::default();
        assert_eq!(trie.insert(key(&[2, 5, 9])), 0);
        assert!(trie.find(key(&[2])).is_none());
        assert!(trie.find(key(&[2, 5])).is_none());
        assert_eq!(trie.insert(key(&[2, 5])), 1);
        assert_eq!(trie.len(), 2);
    }
}
