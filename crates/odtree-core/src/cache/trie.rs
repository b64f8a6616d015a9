//! A trie over sorted paths: shared prefixes are stored once (spec §4.2).

use super::{Entry, EntryId, PathCache};
use crate::data::Item;
use std::mem::size_of;

/// One trie node: sorted edges to its children and an optional payload.
#[derive(Clone, Debug, Default)]
struct TrieNode {
    edges: Vec<(Item, u32)>,
    entry: Option<Entry>,
}

/// Trie cache; node 0 is the empty path.
#[derive(Clone, Debug)]
pub struct TrieCache {
    nodes: Vec<TrieNode>,
    n_entries: usize,
}

impl Default for TrieCache {
    fn default() -> Self {
        Self::new()
    }
}

impl TrieCache {
    /// An empty trie holding only the root (without payload).
    pub fn new() -> Self {
        Self {
            nodes: vec![TrieNode::default()],
            n_entries: 0,
        }
    }

    fn child(&self, node: u32, item: Item) -> Option<u32> {
        let edges = &self.nodes[node as usize].edges;
        edges
            .binary_search_by_key(&item, |e| e.0)
            .ok()
            .map(|i| edges[i].1)
    }

    fn walk(&self, path: &[Item]) -> Option<u32> {
        path.iter()
            .try_fold(0u32, |node, &item| self.child(node, item))
    }
}

impl PathCache for TrieCache {
    fn find(&self, path: &[Item]) -> Option<EntryId> {
        self.walk(path)
            .filter(|&n| self.nodes[n as usize].entry.is_some())
    }

    fn get_or_insert(&mut self, path: &[Item]) -> (EntryId, bool) {
        let mut node = 0u32;
        for &item in path {
            let edges = &self.nodes[node as usize].edges;
            node = match edges.binary_search_by_key(&item, |e| e.0) {
                Ok(i) => edges[i].1,
                Err(i) => {
                    let child = self.nodes.len() as u32;
                    self.nodes.push(TrieNode::default());
                    self.nodes[node as usize].edges.insert(i, (item, child));
                    child
                }
            };
        }
        let slot = &mut self.nodes[node as usize].entry;
        let new = slot.is_none();
        if new {
            *slot = Some(Entry::NEW);
            self.n_entries += 1;
        }
        (node, new)
    }

    fn entry(&self, id: EntryId) -> &Entry {
        self.nodes[id as usize]
            .entry
            .as_ref()
            .expect("trie handle points at a payload")
    }

    fn entry_mut(&mut self, id: EntryId) -> &mut Entry {
        self.nodes[id as usize]
            .entry
            .as_mut()
            .expect("trie handle points at a payload")
    }

    fn len(&self) -> usize {
        self.n_entries
    }

    fn bytes(&self) -> usize {
        let edges: usize = self.nodes.iter().map(|n| n.edges.capacity()).sum();
        self.nodes.capacity() * size_of::<TrieNode>() + edges * size_of::<(Item, u32)>()
    }
}
