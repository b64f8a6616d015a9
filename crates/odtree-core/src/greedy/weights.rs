//! Row weights as whole numbers of one power-of-two unit, so that the weight of any set of
//! rows is an exact integer sum, whatever the order of its rows.
//!
//! A weight `w` becomes `round(w / unit)` units, `unit = 2^-k`, and the learner counts a row
//! of `u` units as `u` rows: the gain code sees integer class counts, as without weights, so
//! equal counts still give equal scores and ties still go to the lowest feature index. The
//! unit is chosen from the weights alone, never from a floating-point sum (which would depend
//! on the order of the rows):
//!
//! - **Exact.** The coarsest power of two, at most 1, of which every weight is a whole
//!   multiple, if the total then stays within [`MAX_TOTAL_UNITS`]. Integer weights are then
//!   counts (`unit = 1`): a row of weight 3 counts exactly as three copies of it, and weights
//!   that are all 1 give the tree of the unweighted table, bit for bit.
//! - **Rounded.** Otherwise (weights such as 1/3, or a total beyond `2^53`), the finest power
//!   of two at which `p` rows (those of non-zero weight) of the largest weight stay within
//!   `2^53` units; each weight is rounded to the nearest unit, and a positive weight to at
//!   least one unit. The unit is below `p·2^-51` times the largest weight, and the error of a
//!   weight at most half a unit.
//!
//! Rows of weight zero have no units; the learner leaves them out.

use crate::error::{OdtError, Result};

/// The largest total weight, in units: `2^53`, so that every count is exact as an `f64`, and
/// `c ln c` in the gain's fixed point fits an `i128` with room to spare.
pub(crate) const MAX_TOTAL_UNITS: u64 = 1 << 53;

/// Row weights quantised to whole units of `2^-exponent` (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RowWeights {
    /// The weights as given.
    given: Vec<f64>,
    /// Each row's weight in units.
    units: Vec<u64>,
    /// `k` of `unit = 2^-k`.
    exponent: i32,
    /// The sum of `units`, at most [`MAX_TOTAL_UNITS`].
    total: u64,
}

/// A positive finite weight as `mantissa · 2^exponent`, with its lowest and highest bits:
/// `weight` is a multiple of `2^low` and below `2^high`.
#[derive(Clone, Copy)]
struct Binary {
    mantissa: u64,
    exponent: i32,
    low: i32,
    high: i32,
}

impl Binary {
    fn of(weight: f64) -> Self {
        let bits = weight.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1 << 52) - 1);
        let (mantissa, exponent) = if biased == 0 {
            (fraction, -1074) // subnormal
        } else {
            (fraction | (1 << 52), biased - 1075)
        };
        Self {
            mantissa,
            exponent,
            low: exponent + mantissa.trailing_zeros() as i32,
            high: exponent + (64 - mantissa.leading_zeros()) as i32,
        }
    }

    /// `weight · 2^k` rounded to the nearest integer (halves up); exact when `k >= -low`.
    fn units(self, k: i32) -> u64 {
        let shift = self.exponent + k;
        if shift >= 0 {
            self.mantissa << shift
        } else if shift >= -63 {
            let kept = self.mantissa >> -shift;
            kept + ((self.mantissa >> (-shift - 1)) & 1)
        } else {
            0
        }
    }
}

impl RowWeights {
    /// Checks the weights (finite, non-negative, not all zero) and quantises them.
    pub fn quantise(weights: &[f64]) -> Result<Self> {
        if let Some(bad) = weights.iter().find(|w| !(w.is_finite() && **w >= 0.0)) {
            return Err(OdtError::InvalidWeights(format!(
                "weights must be finite and non-negative, got {bad}"
            )));
        }
        let binary: Vec<Option<Binary>> = weights
            .iter()
            .map(|&w| (w > 0.0).then(|| Binary::of(w)))
            .collect();
        let positive = binary.iter().flatten();
        let (Some(low), Some(high)) = (
            positive.clone().map(|b| b.low).min(),
            positive.clone().map(|b| b.high).max(),
        ) else {
            return Err(OdtError::InvalidWeights(
                "every weight is zero: at least one row must count".into(),
            ));
        };
        let quantised = |k: i32, at_least_one: bool| -> Vec<u64> {
            binary
                .iter()
                .map(|b| b.map_or(0, |b| b.units(k).max(u64::from(at_least_one))))
                .collect()
        };
        let exact = (-low).max(0);
        if high + exact <= 53 {
            let units = quantised(exact, false);
            let total: u128 = units.iter().map(|&u| u128::from(u)).sum();
            if total <= u128::from(MAX_TOTAL_UNITS) {
                return Ok(Self::from_units(weights, units, exact));
            }
        }
        let n_positive = positive.count() as u64;
        let rounded = 53 - n_positive.next_power_of_two().trailing_zeros() as i32 - high;
        Ok(Self::from_units(weights, quantised(rounded, true), rounded))
    }

    fn from_units(given: &[f64], units: Vec<u64>, exponent: i32) -> Self {
        let total = units.iter().sum();
        debug_assert!(total <= MAX_TOTAL_UNITS);
        Self {
            given: given.to_vec(),
            units,
            exponent,
            total,
        }
    }

    /// The weights as given.
    pub fn given(&self) -> &[f64] {
        &self.given
    }

    /// Each row's weight in units.
    pub fn units(&self) -> &[u64] {
        &self.units
    }

    /// The total weight, in units.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The weight of `units` units, exact unless it is below the smallest normal `f64`.
    pub fn value(&self, units: u64) -> f64 {
        let (mut value, mut exponent) = (units as f64, -self.exponent);
        // 2^e overflows an f64 beyond ±1023: scale in steps
        while exponent > 1000 {
            value *= 2f64.powi(1000);
            exponent -= 1000;
        }
        while exponent < -1000 {
            value *= 2f64.powi(-1000);
            exponent += 1000;
        }
        value * 2f64.powi(exponent)
    }
}

/// How the learner counts a row: once, or by its weight in units. The learner is generic over
/// it, so that the unweighted path carries no weights through its sorts.
pub(crate) trait Weighing: Copy {
    /// What a row carries through a scan's sort besides its value and label: nothing, or its
    /// units.
    type Carried: Copy + Ord;

    /// Whether every row counts once, so that counts never exceed the rows.
    const UNIT_WEIGHTS: bool;

    /// What `row` carries.
    fn carried(self, row: u32) -> Self::Carried;

    /// The units a row that carries `carried` counts for.
    fn units(carried: Self::Carried) -> u64;

    /// The units of `row`.
    #[inline]
    fn units_of(self, row: u32) -> u64 {
        Self::units(self.carried(row))
    }
}

/// Every row counts once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unweighted;

impl Weighing for Unweighted {
    type Carried = ();
    const UNIT_WEIGHTS: bool = true;

    #[inline]
    fn carried(self, _row: u32) {}

    #[inline]
    fn units(_carried: ()) -> u64 {
        1
    }
}

/// Every row counts by its weight in units.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Weighted<'a> {
    units: &'a [u64],
}

impl<'a> Weighted<'a> {
    /// The rows of these units.
    pub fn new(units: &'a [u64]) -> Self {
        Self { units }
    }
}

impl Weighing for Weighted<'_> {
    type Carried = u64;
    const UNIT_WEIGHTS: bool = false;

    #[inline]
    fn carried(self, row: u32) -> u64 {
        self.units[row as usize]
    }

    #[inline]
    fn units(carried: u64) -> u64 {
        carried
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units_of(weights: &[f64]) -> (Vec<u64>, i32) {
        let quantised = RowWeights::quantise(weights).unwrap();
        (quantised.units().to_vec(), quantised.exponent)
    }

    #[test]
    fn integer_weights_are_counts() {
        assert_eq!(units_of(&[1.0, 2.0, 3.0, 0.0]), (vec![1, 2, 3, 0], 0));
        assert_eq!(units_of(&[4.0, 8.0]), (vec![4, 8], 0)); // the unit is at most 1
        assert_eq!(units_of(&[1.0; 5]), (vec![1; 5], 0));
    }

    #[test]
    fn dyadic_weights_are_exact() {
        assert_eq!(units_of(&[0.5, 0.25, 1.75]), (vec![2, 1, 7], 2));
        let tiny = f64::from_bits(1); // the smallest subnormal, 2^-1074
        let quantised = RowWeights::quantise(&[tiny, 2.0 * tiny]).unwrap();
        assert_eq!((quantised.units(), quantised.exponent), (&[1, 2][..], 1074));
        assert_eq!(quantised.value(3), 3.0 * tiny);
    }

    #[test]
    fn other_weights_are_rounded_within_the_total() {
        // 1/3 has no finite binary expansion: 4 rows of the largest weight fill 2^53 units
        let weights = [1.0 / 3.0, 1.0, 1000.0, 0.0, 1e-300];
        let quantised = RowWeights::quantise(&weights).unwrap();
        let k = quantised.exponent;
        assert_eq!(k, 53 - 2 - 10); // 4 positive rows; 1000 < 2^10
        assert!(quantised.total() <= MAX_TOTAL_UNITS);
        for (&w, &u) in weights.iter().zip(quantised.units()) {
            if w == 0.0 {
                assert_eq!(u, 0);
            } else {
                assert!(u >= 1);
                assert!((quantised.value(u) - w).abs() <= quantised.value(1) / 2.0 || u == 1);
            }
        }
        assert_eq!(quantised.units()[1], 1 << k);
        assert_eq!(quantised.units()[4], 1); // a positive weight keeps one unit
    }

    #[test]
    fn totals_beyond_2_53_are_rounded() {
        let weights = [1e300, 3e299, 1.0];
        let quantised = RowWeights::quantise(&weights).unwrap();
        assert!(quantised.total() <= MAX_TOTAL_UNITS);
        let relative = quantised.value(quantised.units()[1]) / 3e299 - 1.0;
        assert!(relative.abs() < 1e-15, "{relative}");
        assert_eq!(quantised.units()[2], 1);
        let large = [2f64.powi(52), 2f64.powi(52), 1.0]; // exact, but 2^53 + 1 units
        let quantised = RowWeights::quantise(&large).unwrap();
        assert_eq!(quantised.units(), &[1 << 50, 1 << 50, 1]); // 3 rows: k = -2
    }

    #[test]
    fn the_units_do_not_depend_on_the_order_of_the_rows() {
        let weights: Vec<f64> = (1..200).map(|i| 1.0 / f64::from(i)).collect();
        let mut reversed = weights.clone();
        reversed.reverse();
        let mut units = RowWeights::quantise(&reversed).unwrap().units().to_vec();
        units.reverse();
        assert_eq!(units, RowWeights::quantise(&weights).unwrap().units());
    }

    #[test]
    fn rejects_bad_weights() {
        for weights in [
            &[1.0, -1.0][..],
            &[f64::NAN],
            &[f64::INFINITY],
            &[0.0, 0.0],
            &[],
        ] {
            assert!(matches!(
                RowWeights::quantise(weights),
                Err(OdtError::InvalidWeights(_))
            ));
        }
        assert!(RowWeights::quantise(&[-0.0, 1.0]).is_ok());
    }
}
