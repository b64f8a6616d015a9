//! The reversible sparse bitset (RSBS): the set of rows reaching the current search node.
//!
//! A single cover follows the depth-first search. `intersect` narrows it to a child and
//! `backtrack` restores the parent in constant time, without copying the parent (spec §3.3).
//! Words that became zero are dropped from the child's index list and never touched again
//! below that node.
//!
//! Each depth keeps its own list of non-zero word indices, in increasing order, so that two
//! covers holding the same rows have the same (index, word) sequence: that sequence, and a hash
//! of it computed during the intersection, is the key of the dataset cache.

/// The rows of the current node as a sparse bitset with undo.
#[derive(Clone, Debug)]
pub struct Cover {
    n_words: usize,
    /// `levels[d * n_words + w]`: word w at depth d (meaningful only for listed indices).
    levels: Vec<u64>,
    /// The non-zero word indices of every depth, concatenated.
    indices: Vec<u32>,
    /// `starts[d]..starts[d + 1]`: the slice of `indices` of depth d.
    starts: Vec<usize>,
    /// Hash of the (index, word) sequence of every depth.
    hashes: Vec<u64>,
}

/// Mixes one non-zero word and its index into a running hash.
#[inline]
fn mix(hash: u64, index: u32, word: u64) -> u64 {
    let value = word ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (hash.rotate_left(5) ^ value).wrapping_mul(0x517C_C1B7_2722_0A95)
}

impl Cover {
    /// A cover holding the rows of `root` (one word per 64 rows).
    pub fn new(root: &[u64]) -> Self {
        let n_words = root.len();
        let indices: Vec<u32> = (0..n_words as u32)
            .filter(|&w| root[w as usize] != 0)
            .collect();
        let hash = indices.iter().fold(0, |h, &w| mix(h, w, root[w as usize]));
        Self {
            n_words,
            levels: root.to_vec(),
            starts: vec![0, indices.len()],
            indices,
            hashes: vec![hash],
        }
    }

    /// Number of intersections currently applied (the depth of the node).
    #[inline]
    pub fn depth(&self) -> usize {
        self.hashes.len() - 1
    }

    /// Indices of the non-zero words of the current cover, in increasing order.
    #[inline]
    pub fn word_indices(&self) -> &[u32] {
        let d = self.depth();
        &self.indices[self.starts[d]..self.starts[d + 1]]
    }

    /// The current words, indexed by word index (only `word_indices` entries are meaningful).
    #[inline]
    pub fn words(&self) -> &[u64] {
        let base = self.depth() * self.n_words;
        &self.levels[base..base + self.n_words]
    }

    /// A hash of the rows of the cover: equal covers have equal hashes.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hashes[self.depth()]
    }

    /// Narrows the cover to the rows set in `mask` (one word per 64 rows).
    pub fn intersect(&mut self, mask: &[u64]) {
        let depth = self.depth();
        let (parent, child) = (depth * self.n_words, (depth + 1) * self.n_words);
        if self.levels.len() < child + self.n_words {
            self.levels.resize(child + self.n_words, 0);
        }
        let (from, to) = (self.starts[depth], self.starts[depth + 1]);
        let mut hash = 0;
        for i in from..to {
            let w = self.indices[i];
            let word = self.levels[parent + w as usize] & mask[w as usize];
            if word != 0 {
                self.levels[child + w as usize] = word;
                self.indices.push(w);
                hash = mix(hash, w, word);
            }
        }
        self.starts.push(self.indices.len());
        self.hashes.push(hash);
    }

    /// Undoes the last intersection.
    pub fn backtrack(&mut self) {
        debug_assert!(self.depth() > 0, "backtrack past the root");
        self.hashes.pop();
        self.starts.pop();
        self.indices.truncate(self.starts[self.depth() + 1]);
    }

    /// Number of rows in the cover.
    pub fn count(&self) -> u32 {
        let words = self.words();
        self.word_indices()
            .iter()
            .map(|&w| words[w as usize].count_ones())
            .sum()
    }

    /// Number of rows in both the cover and `mask`.
    pub fn count_within(&self, mask: &[u64]) -> u32 {
        let words = self.words();
        self.word_indices()
            .iter()
            .map(|&w| (words[w as usize] & mask[w as usize]).count_ones())
            .sum()
    }

    /// Whether the cover holds exactly the rows of `key`, a list of (index, word) pairs in
    /// increasing index order.
    pub fn equals(&self, key: &[(u32, u64)]) -> bool {
        let words = self.words();
        let indices = self.word_indices();
        indices.len() == key.len()
            && indices
                .iter()
                .zip(key)
                .all(|(&w, &(kw, word))| w == kw && words[w as usize] == word)
    }

    /// The rows as (index, word) pairs in increasing index order (the form [`Self::equals`] takes).
    pub fn pairs(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        let words = self.words();
        self.word_indices()
            .iter()
            .map(move |&w| (w, words[w as usize]))
    }

    /// Appends to `out` the cover's non-zero words, in [`Self::word_indices`] order, each ANDed
    /// with the same word of `mask`: the rows of `mask` within the cover, compacted.
    pub fn restrict_into(&self, mask: &[u64], out: &mut Vec<u64>) {
        let words = self.words();
        out.extend(
            self.word_indices()
                .iter()
                .map(|&w| words[w as usize] & mask[w as usize]),
        );
    }

    /// Row ids in the cover, in increasing order.
    pub fn rows(&self) -> Vec<u32> {
        let mut rows = Vec::new();
        for (w, word) in self.pairs() {
            rows.extend(crate::bitset::bits_of(word).map(|b| w * 64 + b as u32));
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
                // the same rows reached directly give the same key and hash
                let direct = Cover::new(&next);
                let key: Vec<(u32, u64)> = direct.pairs().collect();
                prop_assert!(cover.equals(&key));
                prop_assert_eq!(cover.hash(), direct.hash());
                expected.push(next);
            }
            for _ in &masks {
                cover.backtrack();
                expected.pop();
                prop_assert_eq!(cover.rows(), to_rows(expected.last().unwrap()));
            }
        }
    }

    #[test]
    fn different_rows_are_not_equal() {
        let mut cover = Cover::new(&[0b1111, 0b1]);
        cover.intersect(&[0b0011, 0]);
        assert!(!cover.equals(&[(0, 0b0111)]));
        assert!(!cover.equals(&[(0, 0b0011), (1, 0b1)]));
        assert!(cover.equals(&[(0, 0b0011)]));
    }
}
