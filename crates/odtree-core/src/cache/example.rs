//! The worked example of "Adding a cache" in the guide: the simplest path index, a
//! `BTreeMap` from each sorted path to its id. It is compiled and tested with the others (the
//! search finds the same optima with it), but not offered to users: the trie and the hash
//! index do the same job faster.

use super::{Key, KeyIndex};
use crate::data::Item;
use std::collections::BTreeMap;
use std::mem::size_of;

/// Bytes a `BTreeMap` entry costs beyond its key's items: the key's vector header, the id,
/// and the node's share of its pointers (an estimate).
const ENTRY_BYTES: usize = 64;

/// Sorted paths in a `BTreeMap`; each id remembers its path, so that a wipe can read it.
#[derive(Clone, Debug, Default)]
pub struct BTreeIndex {
    ids: BTreeMap<Vec<Item>, u32>,
    /// `paths[id]`: the path of a live id, `None` for a freed one.
    paths: Vec<Option<Vec<Item>>>,
    free: Vec<u32>,
}

impl KeyIndex for BTreeIndex {
    const BY_ROWS: bool = false;

    fn find(&self, key: Key) -> Option<u32> {
        self.ids.get(key.path).copied()
    }

    fn insert(&mut self, key: Key, mut reused: impl FnMut(u32)) -> u32 {
        if let Some(&id) = self.ids.get(key.path) {
            reused(id);
            return id;
        }
        let id = self.free.pop().unwrap_or_else(|| {
            self.paths.push(None);
            self.paths.len() as u32 - 1
        });
        self.paths[id as usize] = Some(key.path.to_vec());
        self.ids.insert(key.path.to_vec(), id);
        id
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    fn slots(&self) -> usize {
        self.paths.len()
    }

    fn removable(&self, id: u32) -> bool {
        self.paths.get(id as usize).is_some_and(Option::is_some)
    }

    fn new_slots(&self, key: Key) -> usize {
        usize::from(!self.ids.contains_key(key.path))
    }

    fn path(&self, id: u32, path: &mut Vec<Item>) -> bool {
        path.clear();
        path.extend(self.paths[id as usize].iter().flatten());
        true
    }

    fn remove(&mut self, id: u32) {
        if let Some(path) = self.paths[id as usize].take() {
            self.ids.remove(&path);
            self.free.push(id);
        }
    }

    fn finish_removal(&mut self) {}

    fn bytes(&self) -> usize {
        let items: usize = self.paths.iter().flatten().map(Vec::len).sum();
        self.ids.len() * ENTRY_BYTES
            + 2 * items * size_of::<Item>()
            + self.paths.capacity() * size_of::<Option<Vec<Item>>>()
            + self.free.capacity() * size_of::<u32>()
    }

    fn growth(&self, key: Key) -> usize {
        let entry = ENTRY_BYTES + 2 * key.path.len() * size_of::<Item>();
        let slots = if self.free.is_empty() && self.paths.len() == self.paths.capacity() {
            self.paths.capacity().max(1) * 2 * size_of::<Option<Vec<Item>>>()
        } else {
            0
        };
        entry + slots
    }
}

#[cfg(test)]
mod tests {
    use super::BTreeIndex;
    use crate::objective::Misclassification;
    use crate::oracle::instances;
    use crate::search::drivers::exact::Engine;
    use crate::stats::Weights;
    use crate::{Budget, Dataset, MemoryLimits, SearchConfig, Solver};
    use proptest::prelude::*;

    proptest! {
        /// The search with this index, capped or not, finds the trie's optimum.
        #[test]
        fn the_example_cache_finds_the_same_optima(
            instance in instances(),
            depth in 1u32..=3,
            capped in any::<bool>(),
        ) {
            let data = Dataset::new(&instance.x, instance.n_rows, &instance.y, instance.n_classes)
                .unwrap();
            let mut config = SearchConfig { max_depth: depth, ..SearchConfig::default() };
            if capped {
                config.memory = MemoryLimits { max_entries: Some(8), ..MemoryLimits::default() };
            }
            let solver = Solver::new(data);
            let weights = &instance.weights;
            let expected = solver.solve(&config, Some(weights), Budget::default()).unwrap();
            let mut totals = vec![0.0; instance.n_classes];
            for (&label, &weight) in instance.y.iter().zip(weights) {
                totals[label as usize] += weight;
            }
            let objective = Misclassification::new(&totals);
            let weights = Weights::new(Some(weights), instance.n_rows).unwrap();
            let outcome = Engine::<BTreeIndex, _, f64>::new(
                solver.data(), &weights, &objective, &config, Budget::default(),
            ).run();
            let tolerance = 1e-9 * (1.0 + expected.objective);
            prop_assert!((outcome.tree.cost() - expected.objective).abs() <= tolerance);
        }
    }
}
