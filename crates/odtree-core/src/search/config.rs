//! Search settings: limits, and the switches that choose the techniques (DL8.5 and MurTree
//! are presets of them, MurTree §4). Each string setting lists its names in the Python API
//! once (`NAMES`, [`SearchConfig::PRESETS`]), for parsing and for the bindings to read.

use crate::cache::WipeStrategy;
use crate::error::{OdtError, Result};
use std::str::FromStr;

/// Order in which the features are tried at a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branching {
    /// Column order.
    InOrder,
    /// Increasing information gain.
    GainAscending,
    /// Decreasing information gain.
    GainDescending,
    /// Decreasing Gini gain (MurTree §4.7).
    Gini,
}

/// The cache layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheKind {
    /// A trie keyed by the sorted path.
    Trie,
    /// A hash table keyed by the sorted path.
    Hash,
    /// A hash table keyed by the node's rows: paths reaching the same rows share an entry.
    Dataset,
}

/// Which child of a split is solved first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChildOrder {
    /// Always the left child (feature = 0) first, as in DL8.5.
    LeftFirst,
    /// The child with the larger leaf cost first (MurTree's dynamic order).
    LargerLeafCostFirst,
}

impl Branching {
    /// Each order with its name in the Python API (`branching`), in the order errors list
    /// them.
    pub const NAMES: [(&'static str, Self); 4] = [
        ("in_order", Self::InOrder),
        ("gini", Self::Gini),
        ("gain_asc", Self::GainAscending),
        ("gain_desc", Self::GainDescending),
    ];

    /// The name of the order in the Python API.
    pub fn name(self) -> &'static str {
        name_of(&Self::NAMES, self)
    }
}

impl CacheKind {
    /// Each layout with its name in the Python API (`cache`), in the order errors list them.
    pub const NAMES: [(&'static str, Self); 3] = [
        ("trie", Self::Trie),
        ("hash", Self::Hash),
        ("dataset", Self::Dataset),
    ];

    /// The name of the layout in the Python API.
    pub fn name(self) -> &'static str {
        name_of(&Self::NAMES, self)
    }
}

impl ChildOrder {
    /// Each order with its name in the Python API (`child_order`), in the order errors list
    /// them.
    pub const NAMES: [(&'static str, Self); 2] = [
        ("larger_error_first", Self::LargerLeafCostFirst),
        ("left_first", Self::LeftFirst),
    ];

    /// The name of the order in the Python API.
    pub fn name(self) -> &'static str {
        name_of(&Self::NAMES, self)
    }
}

impl WipeStrategy {
    /// The name of the strategy in the Python API.
    pub fn name(self) -> &'static str {
        name_of(&Self::NAMES, self)
    }
}

/// The name `value` has in `names`. Every value of the enums above has one.
fn name_of<T: Copy + PartialEq>(names: &[(&'static str, T)], value: T) -> &'static str {
    names
        .iter()
        .find(|&&(_, named)| named == value)
        .map_or("", |&(name, _)| name)
}

/// How a named preset of [`SearchConfig::PRESETS`] is made.
pub type Preset = fn() -> SearchConfig;

/// Reads a setting from its name in the Python API; the error lists the valid names.
fn parse<T: Copy>(what: &str, name: &str, options: &[(&str, T)]) -> Result<T> {
    options
        .iter()
        .find(|(option, _)| *option == name)
        .map(|&(_, value)| value)
        .ok_or_else(|| {
            let valid: Vec<&str> = options.iter().map(|(option, _)| *option).collect();
            OdtError::InvalidParameter(format!(
                "unknown {what} {name:?}: expected one of {}",
                valid.join(", ")
            ))
        })
}

impl FromStr for Branching {
    type Err = OdtError;
    fn from_str(name: &str) -> Result<Self> {
        parse("branching", name, &Self::NAMES)
    }
}

impl FromStr for CacheKind {
    type Err = OdtError;
    fn from_str(name: &str) -> Result<Self> {
        parse("cache", name, &Self::NAMES)
    }
}

impl FromStr for ChildOrder {
    type Err = OdtError;
    fn from_str(name: &str) -> Result<Self> {
        parse("child_order", name, &Self::NAMES)
    }
}

impl FromStr for WipeStrategy {
    type Err = OdtError;
    fn from_str(name: &str) -> Result<Self> {
        parse("wipe_strategy", name, &Self::NAMES)
    }
}

/// Caps on the cache (spec §6); both `None` means an unbounded cache.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryLimits {
    /// Most bytes the search may hold: the cache, from its allocations, plus its working
    /// memory, estimated from the data's shape.
    pub max_bytes: Option<usize>,
    /// Most keys the cache may hold (trie nodes, or hash keys).
    pub max_entries: Option<usize>,
    /// Which keys a wipe frees first.
    pub strategy: WipeStrategy,
    /// The share of the keys a wipe frees: of `max_entries`, or of the keys held when only
    /// the byte limit is set.
    pub wipe_factor: f64,
}

impl Default for MemoryLimits {
    fn default() -> Self {
        Self {
            max_bytes: None,
            max_entries: None,
            strategy: WipeStrategy::Reuses,
            wipe_factor: 0.1,
        }
    }
}

impl MemoryLimits {
    /// Whether a limit is set.
    pub fn is_bounded(&self) -> bool {
        self.max_bytes.is_some() || self.max_entries.is_some()
    }
}

/// Everything that defines one search, built once and passed down.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    /// Maximum number of tests on a root-to-leaf path (0: a single leaf).
    pub max_depth: u32,
    /// A split is allowed only if both children hold at least this many rows of non-zero weight.
    pub min_samples_leaf: u32,
    /// A node is split only if it holds at least this many rows of non-zero weight.
    pub min_samples_split: u32,
    /// A split is allowed only if both children weigh at least this much (the rows' weights
    /// summed; 0: no limit).
    pub min_leaf_weight: f64,
    /// Per feature, a monotonicity constraint on the leaves' predicted classes (two classes
    /// and misclassification only): `1`: at every split on the feature, every leaf below its
    /// left child (feature = 0) predicts a class no higher than every leaf below its right
    /// child; `-1`: no lower; `0`: none. Empty: no constraint.
    pub monotonic: Vec<i8>,
    /// Maximum number of branching nodes (a tree with k of them has k + 1 leaves); `None`:
    /// only the depth limits the tree.
    pub max_nodes: Option<u32>,
    /// Cost of each leaf added to the objective, in objective units (sparse trees).
    pub leaf_penalty: f64,
    /// Among the trees of least objective, find one with the fewest leaves (MurTree §4.8.4),
    /// by comparing (objective, leaves) pairs inside the search.
    pub lexicographic: bool,
    /// Only trees with a cost strictly below this are wanted (exclusive bound).
    pub upper_bound: f64,
    /// Feature order.
    pub branching: Branching,
    /// Cache layout.
    pub cache: CacheKind,
    /// Solve remaining depth ≤ 2 with the specialised counting solver.
    pub depth2_solver: bool,
    /// Let the depth-2 solver update its counts by the rows that changed since the last node,
    /// when that is cheaper than recounting (MurTree §4.3.3).
    pub incremental_counting: bool,
    /// Child order.
    pub child_order: ChildOrder,
    /// Tighten the first child's bound by the sibling's lower bound (MurTree).
    pub sibling_bound: bool,
    /// Start each node with its leaf as the incumbent, so splits must beat it.
    pub leaf_incumbent: bool,
    /// Bound new nodes by similar nodes already evaluated at the same depth (MurTree §4.4);
    /// used only where valid (`min_samples_leaf = 1`, an objective that allows it).
    pub similarity_bound: bool,
    /// On failure, store the refined bound min over splits of the children's bounds (MurTree
    /// Eq. 15–17) instead of only the upper bound (DL8.5).
    pub refined_lower_bound: bool,
    /// Before the search, build the best of a CART-style and a lookahead tree and search only
    /// for trees cheaper than it, returning it if the search stops first (not with node
    /// limits).
    pub incumbent: bool,
    /// With a time limit, rounds of the search restricted to each node's best-ranked splits
    /// and a LicketySPLIT-style tree before the proof (the anytime rounds,
    /// `search/drivers/exact/anytime.rs`), then the bound passes (`bound_passes.rs`).
    pub anytime: bool,
    /// Caps on the cache.
    pub memory: MemoryLimits,
    /// Threads the proof may use (1: this thread only). The root's splits are shared out
    /// among them; the tree is the one a single thread finds. A bounded cache, a Python
    /// objective and the anytime rounds run on one thread.
    pub n_jobs: usize,
}

impl Default for SearchConfig {
    /// The fastest correct settings.
    fn default() -> Self {
        Self {
            max_depth: 3,
            min_samples_leaf: 1,
            min_samples_split: 2,
            min_leaf_weight: 0.0,
            monotonic: Vec::new(),
            max_nodes: None,
            leaf_penalty: 0.0,
            lexicographic: false,
            upper_bound: f64::INFINITY,
            branching: Branching::InOrder,
            cache: CacheKind::Trie,
            depth2_solver: true,
            incremental_counting: true,
            child_order: ChildOrder::LargerLeafCostFirst,
            sibling_bound: true,
            leaf_incumbent: true,
            similarity_bound: true,
            refined_lower_bound: true,
            incumbent: true,
            anytime: true,
            memory: MemoryLimits::default(),
            n_jobs: 1,
        }
    }
}

impl SearchConfig {
    /// DL8.5 as published: no depth-2 solver, left child first, plain infeasibility bounds,
    /// the leaf only compared once the splits are done, and no incumbent or anytime rounds.
    pub fn dl85() -> Self {
        Self {
            depth2_solver: false,
            incremental_counting: false,
            child_order: ChildOrder::LeftFirst,
            sibling_bound: false,
            leaf_incumbent: false,
            similarity_bound: false,
            refined_lower_bound: false,
            incumbent: false,
            anytime: false,
            ..Self::default()
        }
    }

    /// Each preset with its name in the Python API (`search`), the default first:
    /// `"murtree"` (every technique) and `"dl85"`.
    pub const PRESETS: [(&'static str, Preset); 2] = [
        ("murtree", <Self as Default>::default),
        ("dl85", Self::dl85),
    ];

    /// The preset named `name` (see [`SearchConfig::PRESETS`]).
    pub fn preset(name: &str) -> Result<Self> {
        parse("search", name, &Self::PRESETS).map(|make| make())
    }

    /// Largest accepted depth: beyond it the search space is beyond any budget anyway.
    pub const MAX_DEPTH: u32 = 64;

    /// Whether a constraint other than the depth, the node count and the least leaf rows
    /// applies: the techniques that assume none (the depth-2 solver, the similarity bound)
    /// are then switched off.
    pub fn constrained(&self) -> bool {
        self.min_samples_split > 2 * self.min_samples_leaf
            || self.min_leaf_weight > 0.0
            || self.is_monotonic()
    }

    /// Whether a monotonicity constraint applies to some feature.
    pub fn is_monotonic(&self) -> bool {
        self.monotonic.iter().any(|&c| c != 0)
    }

    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        if self.max_depth > Self::MAX_DEPTH {
            return Err(OdtError::InvalidParameter(format!(
                "max_depth must be at most {}, got {}",
                Self::MAX_DEPTH,
                self.max_depth
            )));
        }
        if self.min_samples_leaf == 0 {
            return Err(OdtError::InvalidParameter(
                "min_samples_leaf must be at least 1".into(),
            ));
        }
        if !(self.min_leaf_weight >= 0.0 && self.min_leaf_weight.is_finite()) {
            return Err(OdtError::InvalidParameter(
                "the least leaf weight must be finite and non-negative".into(),
            ));
        }
        if self.monotonic.iter().any(|&c| !(-1..=1).contains(&c)) {
            return Err(OdtError::InvalidParameter(
                "monotonic constraints must be -1, 0 or 1".into(),
            ));
        }
        if !(self.leaf_penalty >= 0.0 && self.leaf_penalty.is_finite()) {
            return Err(OdtError::InvalidParameter(
                "the leaf penalty must be finite and non-negative".into(),
            ));
        }
        let factor = self.memory.wipe_factor;
        if !(factor > 0.0 && factor <= 1.0) {
            return Err(OdtError::InvalidParameter(format!(
                "wipe_factor must be in (0, 1], got {factor}"
            )));
        }
        if self.memory.max_entries == Some(0) || self.memory.max_bytes == Some(0) {
            return Err(OdtError::InvalidParameter(
                "memory limits must be positive".into(),
            ));
        }
        if self.upper_bound.is_nan() {
            return Err(OdtError::InvalidParameter(
                "upper_bound must not be NaN".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_errors_list_the_valid_ones() {
        assert_eq!("gini".parse::<Branching>(), Ok(Branching::Gini));
        assert_eq!("dataset".parse::<CacheKind>(), Ok(CacheKind::Dataset));
        assert_eq!(
            "left_first".parse::<ChildOrder>(),
            Ok(ChildOrder::LeftFirst)
        );
        assert_eq!("all".parse::<WipeStrategy>(), Ok(WipeStrategy::All));
        assert_eq!(SearchConfig::preset("dl85"), Ok(SearchConfig::dl85()));
        let error = "heap".parse::<CacheKind>().unwrap_err().to_string();
        assert!(error.contains(r#"unknown cache "heap": expected one of trie, hash, dataset"#));
        assert!(SearchConfig::preset("cart").is_err());
    }

    #[test]
    fn every_name_reads_back_its_value() {
        for (name, value) in Branching::NAMES {
            assert_eq!((name.parse(), value.name()), (Ok(value), name));
        }
        for (name, value) in CacheKind::NAMES {
            assert_eq!((name.parse(), value.name()), (Ok(value), name));
        }
        for (name, value) in ChildOrder::NAMES {
            assert_eq!((name.parse(), value.name()), (Ok(value), name));
        }
        for (name, value) in WipeStrategy::NAMES {
            assert_eq!((name.parse(), value.name()), (Ok(value), name));
        }
        assert_eq!(
            SearchConfig::preset(SearchConfig::PRESETS[0].0),
            Ok(SearchConfig::default())
        );
    }
}
