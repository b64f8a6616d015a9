//! The search: a kernel that evaluates subproblems and drivers that walk them (DL8.5 §3,
//! MurTree §4, spec §2, §5 and §6).
//!
//! - `config`: the settings of a search, [`SearchConfig`]; DL8.5 and MurTree are presets of
//!   its switches.
//! - `kernel/`: what every driver shares: the cursor over the lattice of paths, node
//!   evaluation (candidate splits, their order, the depth-2 solver, the similarity bound),
//!   the store of subproblems and tree extraction.
//! - `drivers/`: the orders in which subproblems are walked: the exact depth-first search with
//!   its anytime rounds, the multi-quantile search, the Pareto search and the CART-style
//!   tree.
//! - `memory`: keeping any driver within its memory limits (spec §6).

mod config;
pub(crate) mod drivers;
pub(crate) mod kernel;
pub(crate) mod memory;
pub(crate) mod metric;

pub use crate::objective::Metric;
pub use crate::subproblem::{Cost, Lexicographic};
pub use config::{Branching, CacheKind, ChildOrder, MemoryLimits, Preset, SearchConfig};
pub use drivers::{Pareto, ParetoOutcome, SearchOutcome};
pub use kernel::order::{gini_gain, information_gain};
