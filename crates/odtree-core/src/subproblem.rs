//! What a subproblem is to both the search and the caches: its limits, the decision that
//! rebuilds its best subtree, and the cost type the search minimises. Both build on this
//! module, and neither on the other's types.
//!
//! Costs: the objective alone ([`f64`]), or the objective then the number of leaves
//! ([`Lexicographic`], MurTree §4.8.4). Both are ordered groups: adding the same cost to both
//! sides keeps their order. That is all the bounds need: an exclusive upper bound minus a
//! sibling's lower bound, a node's bound from its children's, and the similarity bound all hold
//! for either.

use std::fmt::Debug;
use std::ops::{Add, Sub};

/// A cost the engine can add, subtract and compare (within a rounding tolerance).
pub trait Cost:
    Copy + Debug + Default + PartialEq + Add<Output = Self> + Sub<Output = Self> + Send + Sync + 'static
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
    /// The larger of two costs (of two lower bounds, the stronger; when they differ by less
    /// than rounding noise, either is a valid bound).
    fn max(self, other: Self) -> Self {
        if other.below(self, 0.0) {
            self
        } else {
            other
        }
    }
    /// A lower bound of two costs compared within `tolerance`: the one below the other, else
    /// each part's least. Comparing exactly would let a difference of rounding noise in the
    /// objective pick the cost with more leaves, a bound above a tree the search can find.
    fn min(self, other: Self, tolerance: f64) -> Self;
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
    fn min(self, other: Self, _: f64) -> Self {
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

    fn min(self, other: Self, tolerance: f64) -> Self {
        if self.below(other, tolerance) {
            self
        } else if other.below(self, tolerance) {
            other
        } else {
            Self {
                objective: self.objective.min(other.objective),
                leaves: self.leaves.min(other.leaves),
            }
        }
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

/// How the best subtree of a cached subproblem is rebuilt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// No solution known yet (the entry may still hold a lower bound).
    Unsolved,
    /// The node is a leaf.
    Leaf,
    /// The node splits on `feature`; each child's best subtree uses this many branching nodes
    /// and is looked up in the cache under that budget.
    Split {
        /// Feature tested at this node.
        feature: u32,
        /// Branching nodes in the left (feature = 0) subtree.
        left: u32,
        /// Branching nodes in the right (feature = 1) subtree.
        right: u32,
        /// The lanes of the left and right children, where they differ from the node's (a
        /// monotonicity constraint's division of the node's allowed predictions); `None`: the
        /// node's lane.
        lanes: Option<[u8; 2]>,
    },
    /// A subtree of depth ≤ 2 solved in one piece: the root feature, and the feature each
    /// child splits on (`None`: that child is a leaf). Its children are not cached.
    Terminal {
        /// Feature tested at this node.
        feature: u32,
        /// Feature tested by the left (feature = 0) child.
        left: Option<u32>,
        /// Feature tested by the right (feature = 1) child.
        right: Option<u32>,
    },
}

impl Decision {
    /// Number of branching nodes of the subtree this decision roots.
    pub fn size(self) -> u32 {
        match self {
            Decision::Unsolved | Decision::Leaf => 0,
            Decision::Split { left, right, .. } => 1 + left + right,
            Decision::Terminal { left, right, .. } => {
                1 + left.is_some() as u32 + right.is_some() as u32
            }
        }
    }
}

/// The limits of a subproblem: the depth left and the branching nodes allowed, and which of
/// the objectives of a search that serves several at once (its lane; 0 when there is one).
/// Each lane of a key is its own subproblem, with its own bounds and solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Remaining depth.
    pub depth: u32,
    /// Maximum number of branching nodes.
    pub nodes: u32,
    /// The objective, for a search over several (a vector of costs).
    pub lane: u32,
}

impl Limits {
    /// The budget with neither limit wasted: at most `2^depth - 1` nodes, and no more depth
    /// than nodes (MurTree Eq. 1), in lane 0.
    pub fn normalised(depth: u32, nodes: u32) -> Self {
        let nodes = nodes.min(Self::full_nodes(depth));
        Self {
            depth: depth.min(nodes),
            nodes,
            lane: 0,
        }
    }

    /// The same limits in `lane`.
    pub fn in_lane(self, lane: u32) -> Self {
        Self { lane, ..self }
    }

    /// The normalised limits of a child with `depth` and `nodes`, in this lane.
    pub fn child(self, depth: u32, nodes: u32) -> Self {
        Self::normalised(depth, nodes).in_lane(self.lane)
    }

    /// The number of branching nodes of a complete tree of this depth.
    pub fn full_nodes(depth: u32) -> u32 {
        if depth >= 31 {
            u32::MAX
        } else {
            (1u32 << depth) - 1
        }
    }

    /// Each way of sharing the branching nodes left below a split between its two children,
    /// as their limits; one way when only the depth limits the nodes (however deep).
    pub fn divisions(self) -> impl Iterator<Item = (Limits, Limits)> {
        let depth = self.depth.saturating_sub(1);
        let full = Self::full_nodes(depth);
        let depth_only = self.depth_only();
        let below = self.nodes.saturating_sub(1);
        let (least, most) = if depth_only {
            (full, full)
        } else {
            (below - full.min(below), full.min(below))
        };
        (least..=most).map(move |left| {
            let right = if depth_only { full } else { below - left };
            (self.child(depth, left), self.child(depth, right))
        })
    }

    /// Whether the nodes are limited by the depth alone.
    pub fn depth_only(self) -> bool {
        self.nodes == Self::full_nodes(self.depth)
    }

    /// Whether only a leaf fits.
    pub fn is_leaf(self) -> bool {
        self.depth == 0 || self.nodes == 0
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
        // within rounding noise, the bound of two costs takes the fewer leaves
        let noisy = Lexicographic {
            objective: 5.0 + 1e-15,
            leaves: 2.0,
        };
        let more = Lexicographic {
            objective: 5.0,
            leaves: 3.0,
        };
        assert_eq!(noisy.min(more, 1e-9), noisy);
        assert_eq!(more.min(noisy, 1e-9), noisy);
        assert_eq!(more.min(noisy, 0.0), more);
    }
}
