//! A trie over sorted paths: shared prefixes are stored once (spec §4.2).
//!
//! Every trie node is a key (a prefix never inserted simply has no entries), so a node's
//! index is its subproblem id. Nodes removed by a wipe go to a free list and are reused.

use super::{Key, KeyIndex, NONE};
use crate::data::Item;
use std::mem::size_of;

/// One trie node: sorted edges to its children, its parent and the item leading to it.
#[derive(Clone, Debug)]
struct TrieNode {
    edges: Vec<(Item, u32)>,
    /// `NONE` for the root, `FREE` for a slot on the free list.
    parent: u32,
    item: Item,
}

/// Parent of a node on the free list.
const FREE: u32 = NONE - 1;

/// Trie index keyed by the sorted path; node 0 is the empty path.
#[derive(Clone, Debug)]
pub struct TrieIndex {
    nodes: Vec<TrieNode>,
    free: Vec<u32>,
    /// Total capacity of all edge lists, so that `bytes` is constant time.
    edge_capacity: usize,
}

impl Default for TrieIndex {
    fn default() -> Self {
        Self {
            nodes: vec![TrieNode {
                edges: Vec::new(),
                parent: NONE,
                item: 0,
            }],
            free: Vec::new(),
            edge_capacity: 0,
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

    fn new_node(&mut self, parent: u32, item: Item) -> u32 {
        let node = TrieNode {
            edges: Vec::new(),
            parent,
            item,
        };
        match self.free.pop() {
            Some(slot) => {
                self.nodes[slot as usize] = node;
                slot
            }
            None => {
                self.nodes.push(node);
                self.nodes.len() as u32 - 1
            }
        }
    }
}

impl KeyIndex for TrieIndex {
    const BY_ROWS: bool = false;
    const NESTED: bool = true;

    fn find(&self, key: Key) -> Option<u32> {
        key.path
            .iter()
            .try_fold(0u32, |node, &item| self.child(node, item))
    }

    fn insert(&mut self, key: Key, mut reused: impl FnMut(u32)) -> u32 {
        let mut node = 0u32;
        for &item in key.path {
            let edges = &self.nodes[node as usize].edges;
            node = match edges.binary_search_by_key(&item, |e| e.0) {
                Ok(i) => {
                    let child = edges[i].1;
                    reused(child);
                    child
                }
                Err(i) => {
                    let child = self.new_node(node, item);
                    let edges = &mut self.nodes[node as usize].edges;
                    let before = edges.capacity();
                    edges.insert(i, (item, child));
                    self.edge_capacity += edges.capacity() - before;
                    child
                }
            };
        }
        node
    }

    fn len(&self) -> usize {
        self.nodes.len() - self.free.len()
    }

    fn slots(&self) -> usize {
        self.nodes.len()
    }

    fn removable(&self, id: u32) -> bool {
        id != 0 && self.nodes[id as usize].parent != FREE
    }

    fn parent(&self, id: u32) -> Option<u32> {
        Some(self.nodes[id as usize].parent).filter(|&p| p != NONE && p != FREE)
    }

    fn has_children(&self, id: u32) -> bool {
        !self.nodes[id as usize].edges.is_empty()
    }

    fn path(&self, id: u32, path: &mut Vec<Item>) -> bool {
        let mut at = id;
        while let Some(parent) = self.parent(at) {
            path.push(self.nodes[at as usize].item);
            at = parent;
        }
        true
    }

    fn new_slots(&self, key: Key) -> usize {
        let mut node = 0u32;
        for (at, &item) in key.path.iter().enumerate() {
            match self.child(node, item) {
                Some(child) => node = child,
                None => return key.path.len() - at,
            }
        }
        0
    }

    fn remove(&mut self, id: u32) {
        debug_assert!(self.removable(id) && !self.has_children(id));
        let TrieNode {
            edges,
            parent,
            item,
        } = std::mem::replace(
            &mut self.nodes[id as usize],
            TrieNode {
                edges: Vec::new(),
                parent: FREE,
                item: 0,
            },
        );
        self.edge_capacity -= edges.capacity();
        let siblings = &mut self.nodes[parent as usize].edges;
        if let Ok(i) = siblings.binary_search_by_key(&item, |e| e.0) {
            siblings.remove(i);
        }
        self.free.push(id);
    }

    fn finish_removal(&mut self) {}

    fn bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<TrieNode>()
            + self.edge_capacity * size_of::<(Item, u32)>()
            + self.free.capacity() * size_of::<u32>()
    }

    fn growth(&self, key: Key) -> usize {
        let new_keys = key.path.len();
        let spare = self.nodes.capacity() - self.nodes.len() + self.free.len();
        let nodes = if spare >= new_keys {
            0
        } else {
            self.nodes.capacity().max(new_keys) * size_of::<TrieNode>()
        };
        // each new node adds one edge to a list that may double (bounded by the feature count)
        nodes + new_keys * 4 * size_of::<(Item, u32)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cover::Cover;

    #[test]
    fn prefixes_are_nodes_and_removal_frees_slots() {
        let cover = Cover::new(&[1]);
        let key = |path| Key {
            path,
            cover: &cover,
        };
        let mut trie = TrieIndex::default();
        let mut reuses = 0;
        let leaf = trie.insert(key(&[2, 5, 9]), |_| reuses += 1);
        assert_eq!(reuses, 0);
        assert_eq!(trie.len(), 4);
        let middle = trie.find(key(&[2, 5])).unwrap();
        assert_eq!(trie.parent(leaf), Some(middle));
        assert_eq!(trie.insert(key(&[2, 5]), |_| reuses += 1), middle);
        assert_eq!(
            reuses, 2,
            "the prefix [2] and the key [2, 5] were traversed"
        );
        assert!(trie.has_children(middle));
        trie.remove(leaf);
        assert!(!trie.removable(leaf));
        assert!(trie.find(key(&[2, 5, 9])).is_none());
        assert_eq!(trie.len(), 3);
        // the freed slot is reused by the next new node
        assert_eq!(trie.insert(key(&[2, 7]), |_| ()), leaf);
        assert_eq!(trie.find(key(&[2, 7])), Some(leaf));
    }
}
