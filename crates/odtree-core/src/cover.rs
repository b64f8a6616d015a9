//! The reversible sparse bitset (RSBS): the set of rows reaching the current search node.
//!
//! A single cover follows the depth-first search. `intersect` narrows it to a child and
//! `backtrack` restores the parent in time proportional to the number of non-zero words,
//! without copying the parent (spec §3.3). Words that became zero are moved past `limit`
//! and never touched again below that node.
//!
//! The per-word stacks of the thesis are stored as one flat array of levels: the value of
//! word `w` at depth `d` is `levels[d * n_words + w]`, valid while `w` is among the first
//! `limit` entries of `non_zero` at that depth.

/// The rows of the current node as a sparse bitset with undo.
#[derive(Clone, Debug)]
pub struct Cover {
    n_words: usize,
    levels: Vec<u64>,
    non_zero: Vec<u32>,
    limits: Vec<usize>,
}

impl Cover {
    /// A cover holding the rows of `root` (one word per 64 rows).
    pub fn new(root: &[u64]) -> Self {
        let n_words = root.len();
        let mut non_zero: Vec<u32> = (0..n_words as u32)
            .filter(|&w| root[w as usize] != 0)
            .collect();
        let limit = non_zero.len();
        non_zero.extend((0..n_words as u32).filter(|&w| root[w as usize] == 0));
        Self {
            n_words,
            levels: root.to_vec(),
            non_zero,
            limits: vec![limit],
        }
    }

    /// Number of intersections currently applied (the depth of the node).
    pub fn depth(&self) -> usize {
        self.limits.len() - 1
    }

    /// Indices of the non-zero words of the current cover.
    #[inline]
    pub fn word_indices(&self) -> &[u32] {
        &self.non_zero[..*self.limits.last().expect("cover has a root level")]
    }

    /// The current words, indexed by word index (only `word_indices` entries are meaningful).
    #[inline]
    pub fn words(&self) -> &[u64] {
        let base = self.depth() * self.n_words;
        &self.levels[base..base + self.n_words]
    }

    /// Narrows the cover to the rows set in `mask` (one word per 64 rows).
    pub fn intersect(&mut self, mask: &[u64]) {
        let depth = self.depth();
        let (parent, child) = (depth * self.n_words, (depth + 1) * self.n_words);
        if self.levels.len() < child + self.n_words {
            self.levels.resize(child + self.n_words, 0);
        }
        let mut limit = *self.limits.last().expect("cover has a root level");
        let mut i = 0;
        while i < limit {
            let w = self.non_zero[i] as usize;
            let word = self.levels[parent + w] & mask[w];
            self.levels[child + w] = word;
            if word == 0 {
                limit -= 1;
                self.non_zero.swap(i, limit); // re-check the word swapped into position i
            } else {
                i += 1;
            }
        }
        self.limits.push(limit);
    }

    /// Undoes the last intersection.
    pub fn backtrack(&mut self) {
        debug_assert!(self.limits.len() > 1, "backtrack past the root");
        self.limits.pop();
    }

    /// Number of rows in the cover.
    pub fn count(&self) -> u32 {
        let words = self.words();
        self.word_indices()
            .iter()
            .map(|&w| words[w as usize].count_ones())
            .sum()
    }

    /// Row ids in the cover, in increasing order.
    pub fn rows(&self) -> Vec<u32> {
        let words = self.words();
        let mut indices = self.word_indices().to_vec();
        indices.sort_unstable();
        let mut rows = Vec::new();
        for w in indices {
            let base = w * 64;
            rows.extend(crate::bitset::bits_of(words[w as usize]).map(|b| base + b as u32));
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn to_rows(words: &[u64]) -> Vec<u32> {
        let mut rows = Vec::new();
        for (w, &word) in words.iter().enumerate() {
            rows.extend(crate::bitset::bits_of(word).map(|b| (w * 64 + b) as u32));
        }
        rows
    }

    proptest! {
        #[test]
        fn intersect_and_backtrack_round_trip(
            root in prop::collection::vec(any::<u64>(), 1..6),
            masks in prop::collection::vec(prop::collection::vec(any::<u64>(), 6), 1..5),
        ) {
            let mut cover = Cover::new(&root);
            let mut expected = vec![root.clone()];
            for mask in &masks {
                cover.intersect(&mask[..root.len()]);
                let next: Vec<u64> =
                    expected.last().unwrap().iter().zip(mask).map(|(a, b)| a & b).collect();
                prop_assert_eq!(cover.rows(), to_rows(&next));
                prop_assert_eq!(cover.count() as usize, to_rows(&next).len());
                expected.push(next);
            }
            for _ in &masks {
                cover.backtrack();
                expected.pop();
                prop_assert_eq!(cover.rows(), to_rows(expected.last().unwrap()));
            }
        }
    }
}
