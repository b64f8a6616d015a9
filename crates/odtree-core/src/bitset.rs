//! Fixed-length bitsets stored as 64-bit words, the unit of every support count.

/// Number of 64-bit words needed for `n_bits` bits.
pub fn words_for(n_bits: usize) -> usize {
    n_bits.div_ceil(64)
}

/// A bitset over rows, stored as words; bits past the length are always zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bitset {
    words: Vec<u64>,
    len: usize,
}

impl Bitset {
    /// An all-zero bitset of `len` bits.
    pub fn zeros(len: usize) -> Self {
        Self {
            words: vec![0; words_for(len)],
            len,
        }
    }

    /// A bitset with the bits of `rows` set.
    pub fn from_indices(len: usize, rows: impl IntoIterator<Item = usize>) -> Self {
        let mut set = Self::zeros(len);
        for row in rows {
            set.insert(row);
        }
        set
    }

    /// Sets bit `row`.
    pub fn insert(&mut self, row: usize) {
        debug_assert!(row < self.len);
        self.words[row / 64] |= 1 << (row % 64);
    }

    /// Whether bit `row` is set.
    pub fn contains(&self, row: usize) -> bool {
        self.words[row / 64] >> (row % 64) & 1 == 1
    }

    /// Number of bits (rows) the set ranges over.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the bitset ranges over zero rows.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of set bits.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The words, least significant bit first.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Indices of the set bits, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words
            .iter()
            .enumerate()
            .flat_map(|(i, &w)| bits_of(w).map(move |b| i * 64 + b))
    }
}

/// Positions of the set bits of one word, lowest first.
pub fn bits_of(mut word: u64) -> impl Iterator<Item = usize> + Clone {
    std::iter::from_fn(move || {
        if word == 0 {
            return None;
        }
        let bit = word.trailing_zeros() as usize;
        word &= word - 1;
        Some(bit)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_count_and_iterate() {
        let set = Bitset::from_indices(130, [0, 63, 64, 129]);
        assert_eq!(set.count(), 4);
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![0, 63, 64, 129]);
        assert!(set.contains(64) && !set.contains(65));
        assert_eq!(set.words().len(), 3);
    }
}
