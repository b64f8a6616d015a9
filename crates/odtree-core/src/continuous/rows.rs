//! Numeric columns sorted once per fit, and the rows of one subproblem as each column's
//! sorted list, so that a threshold sweep reads its rows in order.

use super::sweep::Cut;
use crate::error::{OdtError, Result};

/// Numeric columns with each value replaced by its rank among the column's distinct values.
pub struct NumericData {
    n_rows: usize,
    /// `ranks[j][row]`: the rank of the row's value in column `j`.
    ranks: Vec<Vec<u32>>,
    /// `distinct[j]`: column `j`'s distinct values, ascending.
    distinct: Vec<Vec<f64>>,
    /// `order[j]`: the rows sorted by column `j` (ties by row).
    order: Vec<Vec<u32>>,
}

impl NumericData {
    /// Reads a row-major `n_rows` × `n_columns` matrix; values must not be NaN (infinities
    /// are fine).
    pub fn new(values: &[f64], n_rows: usize, n_columns: usize) -> Result<Self> {
        if values.len() != n_rows * n_columns {
            return Err(OdtError::InvalidData(format!(
                "{} values do not make {n_rows} rows of {n_columns} columns",
                values.len()
            )));
        }
        if n_rows == 0 || n_rows > u32::MAX as usize {
            return Err(OdtError::InvalidData(format!(
                "{n_rows} rows: need 1 to {} rows",
                u32::MAX
            )));
        }
        if values.iter().any(|v| v.is_nan()) {
            return Err(OdtError::InvalidData("a numeric column holds NaN".into()));
        }
        let mut ranks = Vec::with_capacity(n_columns);
        let mut distinct = Vec::with_capacity(n_columns);
        let mut orders = Vec::with_capacity(n_columns);
        let mut keyed: Vec<u128> = Vec::with_capacity(n_rows);
        for j in 0..n_columns {
            // sorting packed (value, row) keys is several times quicker than an indirect
            // sort comparing values through the row indices
            keyed.clear();
            keyed.extend((0..n_rows).map(|row| {
                (u128::from(ordered_bits(values[row * n_columns + j])) << 32) | row as u128
            }));
            keyed.sort_unstable();
            let order: Vec<u32> = keyed.iter().map(|&key| key as u32).collect();
            let mut rank = vec![0u32; n_rows];
            let mut seen: Vec<f64> = Vec::new();
            for &row in &order {
                let value = values[row as usize * n_columns + j];
                if seen.last() != Some(&value) {
                    seen.push(value);
                }
                rank[row as usize] = (seen.len() - 1) as u32;
            }
            ranks.push(rank);
            distinct.push(seen);
            orders.push(order);
        }
        Ok(Self {
            n_rows,
            ranks,
            distinct,
            order: orders,
        })
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of columns.
    pub fn n_columns(&self) -> usize {
        self.ranks.len()
    }

    /// The value of rank `rank` in column `column`.
    pub fn value(&self, column: usize, rank: u32) -> f64 {
        self.distinct[column][rank as usize]
    }

    /// The rank of `row`'s value in `column`.
    pub fn rank(&self, column: usize, row: usize) -> u32 {
        self.ranks[column][row]
    }

    /// A threshold between the values of ranks `below` and `above` of `column`: their
    /// midpoint, or the lower value where the midpoint rounds up to the upper one (or
    /// is not finite).
    pub fn threshold(&self, column: usize, below: u32, above: u32) -> f64 {
        let (a, b) = (self.value(column, below), self.value(column, above));
        let mid = a / 2.0 + b / 2.0;
        if mid.is_finite() && mid >= a && mid < b {
            mid
        } else {
            a
        }
    }
}

/// `value`'s bits as an unsigned integer whose order is [`f64::total_cmp`]'s.
fn ordered_bits(value: f64) -> u64 {
    let bits = value.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// A row of a sorted list: its index and its value's rank in the list's column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The row.
    pub row: u32,
    /// The rank of the row's value in the column.
    pub rank: u32,
}

/// The rows of one subproblem, sorted by each column.
pub struct Rows {
    /// `sorted[j]`: the rows sorted by column `j`.
    pub sorted: Vec<Vec<Entry>>,
    /// An order-free hash of the set of rows, for the store of solved subproblems.
    pub key: u128,
}

impl Rows {
    /// The cut after the first `position + 1` rows of `column`.
    pub fn cut(&self, column: usize, position: usize) -> Cut {
        let list = &self.sorted[column];
        Cut {
            column: column as u32,
            below: list[position].rank,
            above: list[position + 1].rank,
        }
    }

    /// All rows of weight above zero (`weight(row) > 0`).
    pub fn all(data: &NumericData, keys: &[u128], kept: impl Fn(usize) -> bool) -> Self {
        let sorted: Vec<Vec<Entry>> = (0..data.n_columns())
            .map(|j| {
                data.order[j]
                    .iter()
                    .filter(|&&row| kept(row as usize))
                    .map(|&row| Entry {
                        row,
                        rank: data.rank(j, row as usize),
                    })
                    .collect()
            })
            .collect();
        let key = sorted.first().map_or(0, |list| {
            list.iter()
                .fold(0u128, |k, e| k.wrapping_add(keys[e.row as usize]))
        });
        Self { sorted, key }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.sorted.first().map_or(0, Vec::len)
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows that go left (`left[row]`) and right, each still sorted by every column.
    pub fn split(&self, left: &[bool], keys: &[u128]) -> (Rows, Rows) {
        let n_left = self.sorted[0]
            .iter()
            .filter(|e| left[e.row as usize])
            .count();
        let n_right = self.len() - n_left;
        let (mut lower, mut upper) = (
            Vec::with_capacity(self.sorted.len()),
            Vec::with_capacity(self.sorted.len()),
        );
        for list in &self.sorted {
            let (mut l, mut r) = (Vec::with_capacity(n_left), Vec::with_capacity(n_right));
            for &e in list {
                if left[e.row as usize] {
                    l.push(e);
                } else {
                    r.push(e);
                }
            }
            lower.push(l);
            upper.push(r);
        }
        let key_of = |lists: &Vec<Vec<Entry>>| {
            lists[0]
                .iter()
                .fold(0u128, |k, e| k.wrapping_add(keys[e.row as usize]))
        };
        let (kl, kr) = (key_of(&lower), key_of(&upper));
        (
            Rows {
                sorted: lower,
                key: kl,
            },
            Rows {
                sorted: upper,
                key: kr,
            },
        )
    }
}

/// A random 128-bit key for each row (splitmix64), so that a set's key is the sum of its
/// rows' keys: two different sets share a key with probability about 2^-128 each.
pub fn row_keys(n_rows: usize) -> Vec<u128> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    (0..n_rows)
        .map(|_| (u128::from(next()) << 64) | u128::from(next()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_follow_distinct_values_and_splits_keep_order() {
        // one column: 3, 1, 3, 2
        let data = NumericData::new(&[3.0, 1.0, 3.0, 2.0], 4, 1).unwrap();
        assert_eq!(
            (0..4).map(|r| data.rank(0, r)).collect::<Vec<_>>(),
            [2, 0, 2, 1]
        );
        assert_eq!(data.threshold(0, 0, 1), 1.5);
        let keys = row_keys(4);
        let rows = Rows::all(&data, &keys, |_| true);
        let order: Vec<u32> = rows.sorted[0].iter().map(|e| e.row).collect();
        assert_eq!(order, [1, 3, 0, 2]);
        let (l, r) = rows.split(&[true, false, false, true], &keys);
        assert_eq!(
            l.sorted[0].iter().map(|e| e.row).collect::<Vec<_>>(),
            [3, 0]
        );
        assert_eq!(
            r.sorted[0].iter().map(|e| e.row).collect::<Vec<_>>(),
            [1, 2]
        );
        assert_eq!(l.key.wrapping_add(r.key), rows.key);
        assert!(NumericData::new(&[f64::NAN], 1, 1).is_err());
    }

    #[test]
    fn ordered_bits_sort_as_total_cmp() {
        let values = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            3.0,
            1e300,
            f64::INFINITY,
        ];
        for pair in values.windows(2) {
            assert!(ordered_bits(pair[0]) < ordered_bits(pair[1]), "{pair:?}");
        }
        // -0.0 and 0.0 are one value: one rank
        let data = NumericData::new(&[0.0, -0.0, -1.0], 3, 1).unwrap();
        assert_eq!(
            (0..3).map(|r| data.rank(0, r)).collect::<Vec<_>>(),
            [1, 1, 0]
        );
    }
}
