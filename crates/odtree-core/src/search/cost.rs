//! What the search minimises: the objective alone ([`f64`]), or the objective then the number
//! of leaves ([`Lexicographic`], MurTree §4.8.4).
//!
//! Both are ordered groups: adding the same cost to both sides keeps their order. That is all
//! the bounds need: an exclusive upper bound minus a sibling's lower bound, a node's bound
//! from its children's, and the similarity bound all hold for either.

use std::fmt::Debug;
use std::ops::{Add, Sub};

/// A cost the engine can add, subtract and compare (within a rounding tolerance).
pub trait Cost:
    Copy + Debug + Default + PartialEq + Add<Output = Self> + Sub<Output = Self>
{
    /// The cost of nothing.
    const ZERO: Self;
    /// A cost above every tree's.
    const INFINITY: Self;
    /// A cost of `value` objective units and no leaf (weights, bounds from the caller).
    fn value(value: f64) -> Self;
    /// A leaf costing `value`.
    fn leaf(value: f64) -> Self;
    /// The objective part.
    fn objective(self) -> f64;
    /// `self < other` beyond rounding noise of size `tolerance` on the objective.
    fn below(self, other: Self, tolerance: f64) -> bool;
    /// The larger of two costs.
    fn max(self, other: Self) -> Self {
        if other.below(self, 0.0) {
            self
        } else {
            other
        }
    }
    /// The smaller of two costs.
    fn min(self, other: Self) -> Self {
        if self.below(other, 0.0) {
            self
        } else {
            other
        }
    }
}

impl Cost for f64 {
    const ZERO: Self = 0.0;
    const INFINITY: Self = f64::INFINITY;

    #[inline]
    fn value(value: f64) -> Self {
        value
    }

    #[inline]
    fn leaf(value: f64) -> Self {
        value
    }

    #[inline]
    fn objective(self) -> f64 {
        self
    }

    #[inline]
    fn below(self, other: Self, tolerance: f64) -> bool {
        self < other - tolerance
    }

    #[inline]
    fn max(self, other: Self) -> Self {
        f64::max(self, other)
    }

    #[inline]
    fn min(self, other: Self) -> Self {
        f64::min(self, other)
    }
}

/// The objective, then the number of leaves: a tree is better if it costs less, or costs the
/// same with fewer leaves.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Lexicographic {
    /// The objective.
    pub objective: f64,
    /// The number of leaves.
    pub leaves: f64,
}

impl Add for Lexicographic {
    type Output = Self;
    #[inline]
    fn add(self, other: Self) -> Self {
        Self {
            objective: self.objective + other.objective,
            leaves: self.leaves + other.leaves,
        }
    }
}

impl Sub for Lexicographic {
    type Output = Self;
    #[inline]
    fn sub(self, other: Self) -> Self {
        Self {
            objective: self.objective - other.objective,
            leaves: self.leaves - other.leaves,
        }
    }
}

impl Cost for Lexicographic {
    const ZERO: Self = Self {
        objective: 0.0,
        leaves: 0.0,
    };
    const INFINITY: Self = Self {
        objective: f64::INFINITY,
        leaves: 0.0,
    };

    #[inline]
    fn value(value: f64) -> Self {
        Self {
            objective: value,
            leaves: 0.0,
        }
    }

    #[inline]
    fn leaf(value: f64) -> Self {
        Self {
            objective: value,
            leaves: 1.0,
        }
    }

    #[inline]
    fn objective(self) -> f64 {
        self.objective
    }

    #[inline]
    fn below(self, other: Self, tolerance: f64) -> bool {
        // infinite objectives are equal whatever their leaves (their difference is NaN)
        if self.objective < other.objective - tolerance {
            return true;
        }
        self.objective <= other.objective + tolerance
            && self.objective.is_finite()
            && self.leaves < other.leaves
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexicographic_order_prefers_fewer_leaves_on_ties() {
        let a = Lexicographic::leaf(3.0) + Lexicographic::leaf(2.0);
        let b = Lexicographic::leaf(5.0);
        assert!(b.below(a, 1e-9) && !a.below(b, 1e-9));
        assert!(Lexicographic::leaf(4.0).below(a, 1e-9));
        // an exclusive bound of value u admits exactly the trees costing less than u
        assert!(!b.below(Lexicographic::value(5.0), 1e-9));
        assert!(b.below(Lexicographic::value(5.5), 1e-9));
        // translation: a + b < u  <=>  b < u - a
        let u = Lexicographic::value(6.0) + Lexicographic::leaf(0.0);
        assert_eq!((a + b).below(u, 0.0), b.below(u - a, 0.0));
        assert!(!Lexicographic::INFINITY.below(Lexicographic::INFINITY, 0.0));
        assert_eq!(a.max(b), a);
    }
}
