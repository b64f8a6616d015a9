//! A deterministic C4.5-style greedy tree learner on numeric and categorical columns.
//!
//! [`GreedyLearner::build`] grows a binary tree top-down, splitting only on a given set of
//! allowed features, as the enumeration of distinct trees needs (`DT(X)` of the spec, part A).
//! At each node:
//!
//! - **Tests.** A numeric column is tested by `x <= t`, `t` the midpoint between two
//!   consecutive distinct values of the node's rows (the lower value where the two are
//!   adjacent floats). C4.5 instead takes the largest training value below the cut; the
//!   midpoint routes the training rows the same way, is what the Python binarizer and
//!   scikit-learn use, and sits in the middle of the gap for unseen values. A categorical
//!   column is tested by `x == v` against the rest (one-vs-rest), so that every tree is
//!   binary; a column may be tested again further down. Within a column, the test of largest
//!   information gain wins, the lowest threshold or category code on ties (C4.5 also picks a
//!   numeric column's threshold by gain, whatever the criterion).
//! - **Columns.** The columns' best tests are ranked by [`Criterion`]: information gain, or
//!   gain ratio. C4.5 ranks by gain ratio only the attributes whose gain is at least the
//!   average over the available ones; that average depends on which features are allowed,
//!   which breaks the enumeration (spec A.2), so this learner has no such filter. Instead,
//!   as the spec proposes, [`GreedyConfig::min_gain`] is a fixed minimum gain in bits per row
//!   (0 by default). There is no per-threshold MDL penalty either. Columns are scanned by
//!   index and a column replaces the best only with a strictly larger score: ties go to the
//!   lowest feature index.
//! - **Stopping.** A node is a leaf when it is pure, is at `max_depth`, or has no allowed test
//!   whose two branches both hold at least `min_cases` rows (C4.5's `-m`) and that gains at
//!   least `min_gain`. With the default `min_gain = 0` a test that gains nothing is still
//!   taken when nothing better exists, as C4.5 and CART do, so with `min_cases = 1` the tree
//!   fits consistent data exactly. There is no pruning and no other simplification.
//! - **Determinism.** Gains are exact sums of fixed-point `c ln c` terms over integer counts
//!   (see `gain.rs`): they depend only on the class counts of the branches, not on the order
//!   of the rows, the classes or the branches, and equal counts give equal scores. The score
//!   of a column depends only on that column and the node's rows, never on the other allowed
//!   features.
//! - **Weights.** A table may weigh its rows ([`Table::with_weights`]). Each weight is held as
//!   a whole number of units of one power of two, chosen from the weights alone (see
//!   `weights.rs`), and a row counts as that many rows in the class counts, the gains and the
//!   split information; so counts stay exact integers and everything above holds as without
//!   weights. Integer weights are never rounded: a row of weight 3 counts exactly as three
//!   copies of it, and weights that are all 1 give the unweighted tree. `min_cases` still
//!   counts rows, and rows of weight zero take no part.
//!
//! These are the assumptions of spec A.2 (argmax split with a per-feature score, a global
//! tie-break order, stopping that depends on the allowed set only through the admissible
//! tests, no simplification), so removing features a tree does not use leaves it unchanged.
//!
//! ```
//! use odtree_core::greedy::{Column, GreedyConfig, GreedyLearner, Table, Test};
//! // class 1 exactly when x0 > 2
//! let x0 = Column::Numeric(vec![1.0, 2.0, 3.0, 4.0]);
//! let x1 = Column::Categorical(vec![0, 1, 0, 1]);
//! let table = Table::new(vec![x0, x1], vec![0, 0, 1, 1], 2).unwrap();
//! let learner = GreedyLearner::new(&table, GreedyConfig::default()).unwrap();
//! let tree = learner.build(&[0, 1]).unwrap();
//! let root = tree.nodes()[0].split.as_ref().unwrap();
//! assert_eq!(root.test, Test::Threshold { feature: 0, threshold: 2.5 });
//! assert!((root.gain - 1.0).abs() < 1e-12); // bits per row
//! assert_eq!(tree.used_features(), vec![0]);
//! ```

mod distinct;
mod eliminate;
mod gain;
mod induce;
mod scan;
mod table;
mod tree;
mod weights;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod weighted_tests;

pub use distinct::{DistinctTree, DistinctTrees, RemovalOrder};
pub use eliminate::{backward_elimination, Elimination, Fold, Selection};
pub use induce::{Criterion, GreedyConfig, GreedyLearner};
pub use table::{Column, Table};
pub use tree::{GreedyNode, GreedyTree, Split, Test};
