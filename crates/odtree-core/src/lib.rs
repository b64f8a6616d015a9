//! odtree-core: provably optimal decision trees over binary features.
//!
//! Build a [`Dataset`], wrap it in a [`Solver`], and call [`Solver::solve`] with a
//! [`SearchConfig`] and a [`Budget`]. The search is one branch-and-bound engine with caching;
//! DL8.5 and MurTree are presets of its switches.
//!
//! ```
//! use odtree_core::{Budget, Dataset, SearchConfig, Solver, Status};
//! // four rows, two features; the class is feature 0 XOR feature 1
//! let x = [0, 0, 0, 1, 1, 0, 1, 1];
//! let data = Dataset::new(&x, 4, &[0, 1, 1, 0], 2).unwrap();
//! let config = SearchConfig { max_depth: 2, ..SearchConfig::default() };
//! let solution = Solver::new(data).solve(&config, None, Budget::default()).unwrap();
//! assert_eq!(solution.objective, 0.0);
//! assert_eq!(solution.status, Status::Optimal);
//! ```

pub mod bitset;
pub mod budget;
pub mod cache;
pub mod continuous;
pub mod cover;
pub mod data;
pub mod error;
pub mod greedy;
pub mod objective;
pub mod rashomon;
pub mod search;
pub mod solver;
pub mod stats;
pub mod subproblem;
mod sync;
pub mod task;
pub mod tree;

#[cfg(test)]
mod oracle;

pub use budget::{Budget, Feed, Stop};
pub use cache::{CacheReport, WipeStrategy};
pub use data::Dataset;
pub use error::{OdtError, Result};
pub use search::{Branching, CacheKind, ChildOrder, MemoryLimits, SearchConfig};
pub use solver::{Solution, Solver, Status};
pub use task::{Task, TaskInputs};
pub use tree::{Tree, TreeNode};
