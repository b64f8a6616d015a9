//! DTdistinct (spec A.5, Ruggieri 2017): every distinct tree `DT(X)`, `X` a subset of the
//! features, once each, with `O(n)` trees in memory.
//!
//! The search visits nodes `(R, S)` that stand for the subsets `R ∪ P`, `P ⊆ S`. At a node
//! the tree `T = DT(R ∪ S)` is built; features of `S` that `T` does not use are never
//! removed (removing them leaves `T` unchanged), and `T` is reported only when it uses every
//! feature of `R` (the duplicate test). The children remove one used optional feature each,
//! in ascending order of the rows its tests see (the paper's frontier order), with the
//! spec's correction of the loop set to `S \ U`. A child's tree is rebuilt from its parent's
//! by [`GreedyLearner::build_without`] unless incremental building is turned off.

use super::induce::GreedyLearner;
use super::tree::GreedyTree;
use crate::budget::Budget;
use crate::error::{OdtError, Result};

/// The order in which a search node removes its used optional features.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RemovalOrder {
    /// Ascending frontier (rows reaching the feature's tests), then index: the paper's choice,
    /// which builds the fewest duplicate trees.
    #[default]
    FrontierAscending,
    /// Descending frontier, then index.
    FrontierDescending,
    /// Ascending feature index.
    Index,
}

impl RemovalOrder {
    /// The names accepted by [`RemovalOrder::from_name`].
    pub const NAMES: [&'static str; 3] = ["frontier_asc", "frontier_desc", "index"];

    /// The order named `"frontier_asc"`, `"frontier_desc"` or `"index"`.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "frontier_asc" => Ok(RemovalOrder::FrontierAscending),
            "frontier_desc" => Ok(RemovalOrder::FrontierDescending),
            "index" => Ok(RemovalOrder::Index),
            _ => Err(OdtError::InvalidParameter(format!(
                "order must be one of {:?}, got {name:?}",
                Self::NAMES
            ))),
        }
    }
}

/// One distinct tree and the features it uses, the smallest subset that produces it.
#[derive(Clone, Debug, PartialEq)]
pub struct DistinctTree {
    /// `used(T)`, ascending.
    pub features: Vec<usize>,
    /// The tree.
    pub tree: GreedyTree,
}

/// A search node whose loop over its used optional features is under way.
struct Frame {
    tree: GreedyTree,
    required: Vec<usize>,
    optional: Vec<usize>,
    removals: Vec<usize>,
    next: usize,
}

/// A search node whose tree is built but not yet examined.
struct Visit {
    required: Vec<usize>,
    optional: Vec<usize>,
    tree: GreedyTree,
}

/// The enumeration, resumable: each [`DistinctTrees::next_tree`] call runs the search to the
/// next distinct tree. It holds one tree per level of the search, at most `n + 1`.
pub struct DistinctTrees {
    features: Vec<usize>,
    order: RemovalOrder,
    incremental: bool,
    started: bool,
    visit: Option<Visit>,
    stack: Vec<Frame>,
    n_built: usize,
    n_found: usize,
}

impl DistinctTrees {
    /// The enumeration over the subsets of `features` (any order, repeats ignored).
    pub fn new(features: &[usize], order: RemovalOrder, incremental: bool) -> Self {
        let mut features = features.to_vec();
        features.sort_unstable();
        features.dedup();
        Self {
            features,
            order,
            incremental,
            started: false,
            visit: None,
            stack: Vec::new(),
            n_built: 0,
            n_found: 0,
        }
    }

    /// Trees built so far (search nodes visited).
    pub fn n_built(&self) -> usize {
        self.n_built
    }

    /// Distinct trees reported so far.
    pub fn n_found(&self) -> usize {
        self.n_found
    }

    /// Whether every distinct tree has been reported.
    pub fn is_done(&self) -> bool {
        self.started && self.visit.is_none() && self.stack.is_empty()
    }

    /// The next distinct tree, or `None` when all were reported or `budget` ran out (then
    /// `budget.stopped()` says why, and a later call goes on where this one stopped).
    /// `learner` must be the same at every call. The budget is read before each tree is built.
    pub fn next_tree(
        &mut self,
        learner: &GreedyLearner,
        budget: &mut Budget,
    ) -> Result<Option<DistinctTree>> {
        if budget.check_now().is_some() {
            return Ok(None);
        }
        if !self.started {
            self.started = true;
            let tree = learner.build(&self.features)?;
            self.n_built += 1;
            self.visit = Some(Visit {
                required: Vec::new(),
                optional: self.features.clone(),
                tree,
            });
        }
        loop {
            if let Some(visit) = self.visit.take() {
                if let Some(found) = self.examine(visit) {
                    self.n_found += 1;
                    return Ok(Some(found));
                }
                continue;
            }
            let Some(frame) = self.stack.last_mut() else {
                return Ok(None);
            };
            if frame.next < frame.removals.len() && budget.check_now().is_some() {
                return Ok(None); // before any change, so that the next call resumes here
            }
            if frame.next > 0 {
                // the previous child's sub-space is done: its feature becomes optional
                insert_sorted(&mut frame.optional, frame.removals[frame.next - 1]);
            }
            if frame.next == frame.removals.len() {
                self.stack.pop();
                continue;
            }
            let removed = frame.removals[frame.next];
            frame.next += 1;
            frame.required.retain(|&f| f != removed);
            let mut allowed = frame.required.clone();
            allowed.extend_from_slice(&frame.optional);
            let tree = if self.incremental {
                learner.build_without(&frame.tree, &allowed, removed)?
            } else {
                learner.build(&allowed)?
            };
            self.n_built += 1;
            self.visit = Some(Visit {
                required: frame.required.clone(),
                optional: frame.optional.clone(),
                tree,
            });
        }
    }

    /// Pushes the frame of a visited node and returns its tree if it passes the duplicate
    /// test (every required feature used).
    fn examine(&mut self, visit: Visit) -> Option<DistinctTree> {
        let Visit {
            mut required,
            optional,
            tree,
        } = visit;
        let used = tree.used_features();
        let is_used = |f: &usize| used.binary_search(f).is_ok();
        let report = required.iter().all(is_used);
        let (mut removals, unused): (Vec<usize>, Vec<usize>) =
            optional.into_iter().partition(is_used);
        let frontier = |f: usize| frontier(&tree, f);
        match self.order {
            RemovalOrder::FrontierAscending => removals.sort_by_key(|&f| (frontier(f), f)),
            RemovalOrder::FrontierDescending => {
                removals.sort_by_key(|&f| (std::cmp::Reverse(frontier(f)), f))
            }
            RemovalOrder::Index => {}
        }
        required.extend_from_slice(&removals);
        required.sort_unstable();
        let found = report.then(|| DistinctTree {
            features: used,
            tree: tree.clone(),
        });
        self.stack.push(Frame {
            tree,
            required,
            optional: unused,
            removals,
            next: 0,
        });
        found
    }
}

/// `frontier(T, a)`: the training rows reaching the nodes of `tree` that test `feature`.
fn frontier(tree: &GreedyTree, feature: usize) -> usize {
    tree.nodes()
        .iter()
        .filter(|node| {
            node.split
                .as_ref()
                .is_some_and(|split| split.test.feature() == feature)
        })
        .map(|node| node.n_rows)
        .sum()
}

/// Inserts `feature` into the ascending `set`.
fn insert_sorted(set: &mut Vec<usize>, feature: usize) {
    let at = set.partition_point(|&f| f < feature);
    set.insert(at, feature);
}
