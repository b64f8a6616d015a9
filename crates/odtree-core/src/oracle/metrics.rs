//! F1-score and balanced accuracy against brute force: every (false positives, false
//! negatives) pair of every tree, every labelling of its leaves included.

use crate::budget::Budget;
use crate::data::Dataset;
use crate::objective::Metric;
use crate::oracle::{instances, Instance};
use crate::search::SearchConfig;
use crate::solver::{Solver, Status};
use proptest::prelude::*;

/// The distinct (fp, fn) pairs of all trees on `rows` of depth ≤ `depth`, with ≤ `nodes`
/// branching nodes and ≥ `min_leaf` rows per leaf, by exhaustive search.
fn outcomes(
    instance: &Instance,
    rows: &[usize],
    depth: u32,
    nodes: u32,
    min_leaf: usize,
) -> Vec<(f64, f64)> {
    let weight = |label: u32| -> f64 {
        rows.iter()
            .filter(|&&r| instance.y[r] == label)
            .map(|&r| instance.weights[r])
            .sum()
    };
    let mut all = vec![(weight(0), 0.0), (0.0, weight(1))];
    if depth > 0 && nodes > 0 {
        let nodes = nodes.min((1 << depth) - 1);
        for f in 0..instance.n_features() {
            let (right, left): (Vec<usize>, Vec<usize>) =
                rows.iter().partition(|&&r| instance.value(r, f));
            if left.len() < min_leaf || right.len() < min_leaf {
                continue;
            }
            for left_nodes in 0..nodes {
                let l = outcomes(instance, &left, depth - 1, left_nodes, min_leaf);
                let r = outcomes(
                    instance,
                    &right,
                    depth - 1,
                    nodes - 1 - left_nodes,
                    min_leaf,
                );
                for a in &l {
                    for b in &r {
                        all.push((a.0 + b.0, a.1 + b.1));
                    }
                }
            }
        }
    }
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    all.dedup_by(|a, b| (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9);
    all
}

/// Two classes: the labels of `instance` taken modulo 2.
fn binary(mut instance: Instance) -> Instance {
    instance.y.iter_mut().for_each(|y| *y %= 2);
    instance.n_classes = 2;
    instance
}

fn check(
    instance: Instance,
    metric: Metric,
    depth: u32,
    max_nodes: Option<u32>,
    min_leaf: u32,
) -> Result<(), TestCaseError> {
    let instance = binary(instance);
    let data = Dataset::new(&instance.x, instance.n_rows, &instance.y, 2).unwrap();
    let config = SearchConfig {
        max_depth: depth,
        max_nodes,
        min_samples_leaf: min_leaf,
        ..SearchConfig::default()
    };
    let solver = Solver::new(data);
    let solution = solver
        .solve_front(metric, &config, Some(&instance.weights), Budget::default())
        .unwrap();
    prop_assert_eq!(solution.status, Status::Optimal);
    // the root's splits on threads: the same front and the same tree
    for n_jobs in [2, 4] {
        let config = SearchConfig {
            n_jobs,
            ..config.clone()
        };
        let threads = solver
            .solve_front(metric, &config, Some(&instance.weights), Budget::default())
            .unwrap();
        prop_assert_eq!(&threads.front, &solution.front);
        prop_assert_eq!(&threads.tree, &solution.tree, "on {} threads", n_jobs);
    }
    let fast = solver
        .solve_metric(metric, &config, Some(&instance.weights), Budget::default())
        .unwrap();
    prop_assert_eq!(fast.status, Status::Optimal);
    let rows: Vec<usize> = (0..instance.n_rows)
        .filter(|&r| instance.weights[r] > 0.0)
        .collect();
    let pairs = outcomes(
        &instance,
        &rows,
        depth,
        max_nodes.unwrap_or(u32::MAX),
        min_leaf as usize,
    );
    let total = |label: u32| -> f64 {
        rows.iter()
            .filter(|&&r| instance.y[r] == label)
            .map(|&r| instance.weights[r])
            .sum()
    };
    let (negatives, positives) = (total(0), total(1));
    let best = pairs
        .iter()
        .map(|&(fp, fn_)| metric.value(fp, fn_, positives, negatives))
        .fold(f64::NEG_INFINITY, f64::max);
    // the front: exactly the brute-force pairs no other pair dominates
    let dominated = |p: &(f64, f64)| {
        pairs.iter().any(|q| {
            q.0 <= p.0 + 1e-9 && q.1 <= p.1 + 1e-9 && (q.0 < p.0 - 1e-9 || q.1 < p.1 - 1e-9)
        })
    };
    let mut expected: Vec<&(f64, f64)> = pairs.iter().filter(|p| !dominated(p)).collect();
    // the same pair summed in two orders is one point
    expected.dedup_by(|a, b| (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9);
    prop_assert_eq!(solution.front.len(), expected.len());
    for (got, want) in solution.front.iter().zip(expected) {
        prop_assert!((got[0] - want.0).abs() < 1e-9 && (got[1] - want.1).abs() < 1e-9);
    }
    // each tree: within the limits, and its predictions give the reported metric
    for solution in [&solution, &fast] {
        prop_assert!(
            (1.0 - solution.objective - best).abs() < 1e-9,
            "found {} brute force {}",
            1.0 - solution.objective,
            best
        );
        prop_assert!(solution.lower_bound == solution.objective);
        let tree = &solution.tree;
        prop_assert!(tree.depth() <= depth as usize);
        if let Some(nodes) = max_nodes {
            prop_assert!(tree.n_leaves() <= nodes as usize + 1);
        }
        let (mut fp, mut fn_) = (0.0, 0.0);
        for &r in &rows {
            let leaf = tree.leaf_of(|f| instance.value(r, f as usize));
            prop_assert!(tree.nodes().len() == 1 || leaf.rows >= min_leaf);
            match (leaf.label, instance.y[r]) {
                (1, 0) => fp += instance.weights[r],
                (0, 1) => fn_ += instance.weights[r],
                _ => {}
            }
        }
        prop_assert!((metric.value(fp, fn_, positives, negatives) - best).abs() < 1e-9);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn f1_matches_brute_force(
        instance in instances(), depth in 0u32..=2, nodes in prop::option::of(0u32..=3), min_leaf in 1u32..=2,
    ) {
        check(instance, Metric::F1, depth, nodes, min_leaf)?;
    }

    #[test]
    fn balanced_accuracy_matches_brute_force(
        instance in instances(), depth in 0u32..=2, nodes in prop::option::of(0u32..=3), min_leaf in 1u32..=2,
    ) {
        check(instance, Metric::BalancedAccuracy, depth, nodes, min_leaf)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Depth 3 on fewer rows, where brute force stays affordable.
    #[test]
    fn depth_three_matches_brute_force(instance in instances().prop_filter("few rows", |i| i.n_rows <= 14 && i.n_features() <= 5), f1: bool) {
        let metric = if f1 { Metric::F1 } else { Metric::BalancedAccuracy };
        check(instance, metric, 3, None, 1)?;
    }
}
