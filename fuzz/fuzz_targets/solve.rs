//! Fuzzes the core's public entry points: a dataset of random 0/1 features and labels, then
//! one search of a random objective, driver, configuration and budget, the exact search over
//! random numeric columns, and the greedy learner. Every call must return a result or an
//! error; a panic, a crash or a hang is a finding.
//!
//! Run with `cargo +nightly fuzz run solve` from `fuzz/` (see the README).

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use odtree_core::continuous::{self, loss::ClassLoss, rows::NumericData, ContinuousConfig};
use odtree_core::greedy::{Column, GreedyConfig, GreedyLearner, Table};
use odtree_core::{
    Branching, Budget, CacheKind, ChildOrder, Dataset, SearchConfig, Solver, Task, TaskInputs,
    WipeStrategy,
};
use std::time::Duration;

/// One fuzzed call: the data and the knobs, each read from the fuzzer's bytes.
#[derive(Arbitrary, Debug)]
struct Case {
    n_rows: u8,
    n_features: u8,
    n_classes: u8,
    cells: Vec<u8>,
    labels: Vec<u8>,
    weights: Option<Vec<i8>>,
    objective: u8,
    values: Vec<i16>,
    max_depth: u8,
    min_samples_leaf: u8,
    max_nodes: Option<u8>,
    leaf_penalty: u8,
    upper_bound: Option<i16>,
    lexicographic: bool,
    switches: u16,
    memory_entries: Option<u8>,
}

fuzz_target!(|case: Case| {
    let n_rows = usize::from(case.n_rows % 40);
    let n_features = usize::from(case.n_features % 8);
    let n_classes = usize::from(case.n_classes % 4).max(1);
    let features: Vec<u8> = (0..n_rows * n_features)
        .map(|i| case.cells.get(i).copied().unwrap_or(0) & 1)
        .collect();
    let labels: Vec<u32> = (0..n_rows)
        .map(|i| u32::from(case.labels.get(i).copied().unwrap_or(0)) % n_classes as u32)
        .collect();
    let weights: Option<Vec<f64>> = case.weights.as_ref().map(|w| {
        (0..n_rows)
            .map(|i| f64::from(w.get(i).copied().unwrap_or(1)) / 4.0)
            .collect()
    });
    let value = |i: usize| f64::from(case.values.get(i).copied().unwrap_or(0)) / 8.0;
    let targets: Vec<f64> = (0..n_rows).map(value).collect();
    let budget = || Budget::new(Some(Duration::from_millis(200)), None);

    // the 0/1 search, every objective and switch
    if let Ok(data) = Dataset::new(&features, n_rows, &labels, n_classes) {
        let solver = Solver::new(data);
        let s = case.switches;
        let config = SearchConfig {
            max_depth: u32::from(case.max_depth % 5),
            min_samples_leaf: u32::from(case.min_samples_leaf % 4),
            max_nodes: case.max_nodes.map(|n| u32::from(n % 10)),
            leaf_penalty: f64::from(case.leaf_penalty % 8) / 4.0,
            lexicographic: case.lexicographic,
            upper_bound: case
                .upper_bound
                .map_or(f64::INFINITY, |b| f64::from(b) / 4.0),
            branching: [
                Branching::InOrder,
                Branching::GainAscending,
                Branching::GainDescending,
                Branching::Gini,
            ][usize::from(s & 3)],
            cache: [CacheKind::Trie, CacheKind::Hash, CacheKind::Dataset][usize::from(s >> 2) % 3],
            depth2_solver: s & 16 != 0,
            incremental_counting: s & 32 != 0,
            child_order: if s & 64 != 0 {
                ChildOrder::LeftFirst
            } else {
                ChildOrder::LargerLeafCostFirst
            },
            similarity_bound: s & 128 != 0,
            anytime: s & 256 != 0,
            ..SearchConfig::default()
        };
        let mut config = config;
        if let Some(entries) = case.memory_entries {
            config.memory.max_entries = Some(usize::from(entries) + 1);
            config.memory.strategy = [
                WipeStrategy::Reuses,
                WipeStrategy::Descendants,
                WipeStrategy::All,
            ][usize::from(entries) % 3];
        }
        let name = Task::NAMES[usize::from(case.objective) % Task::NAMES.len()];
        let inputs = TaskInputs {
            cost_matrix: Some((0..n_classes * n_classes).map(value).collect()),
            targets: Some(targets.clone()),
            quantile: 0.3,
            quantiles: Some(vec![0.25, 0.5, 0.9]),
            points: Some((targets.clone(), 1)),
        };
        if let Ok(task) = Task::from_name(name, inputs) {
            let _ = solver.solve_task(task, &config, weights.as_deref(), budget());
        }
        let _ = solver.solve_cart(&config, weights.as_deref(), budget());
    }

    // the exact search over numeric columns
    let columns = n_features.max(1);
    let numeric: Vec<f64> = (0..n_rows * columns).map(value).collect();
    if let Ok(data) = NumericData::new(&numeric, n_rows, columns) {
        let unit = weights.clone().unwrap_or_else(|| vec![1.0; n_rows]);
        if unit.iter().all(|&w| w >= 0.0) {
            let loss = ClassLoss::new(labels.clone(), unit, n_classes, None);
            let config = ContinuousConfig {
                max_depth: u32::from(case.max_depth % 4),
                max_nodes: case.max_nodes.map_or(u64::MAX, |n| u64::from(n % 8)),
                min_samples_leaf: usize::from(case.min_samples_leaf % 4),
                min_samples_split: usize::from(case.min_samples_leaf / 4 % 8),
                min_weight_leaf: f64::from(case.leaf_penalty / 8 % 4),
                leaf_penalty: f64::from(case.leaf_penalty % 8) / 4.0,
                upper_bound: case
                    .upper_bound
                    .map_or(f64::INFINITY, |b| f64::from(b) / 4.0),
                max_bytes: usize::MAX,
                max_stored: case
                    .memory_entries
                    .map_or(usize::MAX, |entries| usize::from(entries % 8)),
                max_work: case
                    .upper_bound
                    .map_or(u64::MAX, |b| u64::from(b.unsigned_abs()) * 64),
                threads: 1 + usize::from(case.switches >> 15),
            };
            let _ = continuous::solve(&data, &loss, &config, budget());
        }
    }

    // the greedy learner
    let table_columns: Vec<Column> = (0..columns)
        .map(|j| Column::Numeric((0..n_rows).map(|i| value(i * columns + j)).collect()))
        .collect();
    if let Ok(table) = Table::new(table_columns, labels, n_classes) {
        let config = GreedyConfig {
            min_cases: usize::from(case.min_samples_leaf % 4),
            max_depth: Some(usize::from(case.max_depth % 6)),
            ..GreedyConfig::default()
        };
        if let Ok(learner) = GreedyLearner::new(&table, config) {
            let _ = learner.build(&(0..columns).collect::<Vec<_>>());
        }
    }
});
