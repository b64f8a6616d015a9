//! Every native objective against the brute-force oracle, each leaf costed from first
//! principles (a mean, a search over candidate medians and quantiles, a centroid).

use crate::budget::Budget;
use crate::data::Dataset;
use crate::objective::{ByRows, CentroidDistance, CostMatrix, Objective, Pinball, SquaredError};
use crate::oracle::{all_configs, capped, instances, Instance, Rules};
use crate::search::{CacheKind, SearchConfig};
use crate::solver::{Solver, Status};
use crate::stats::Weights;
use proptest::prelude::*;

/// The objectives under test, with what each needs besides the instance.
#[derive(Clone, Debug)]
enum Kind {
    CostMatrix(Vec<f64>),
    Squared,
    Absolute,
    Quantile(f64),
    Centroid,
}

fn kinds() -> impl Strategy<Value = Kind> {
    prop_oneof![
        prop::collection::vec(prop_oneof![Just(0.0), 0.0f64..5.0], 16).prop_map(Kind::CostMatrix),
        Just(Kind::Squared),
        Just(Kind::Absolute),
        (0.05f64..0.95).prop_map(Kind::Quantile),
        Just(Kind::Centroid),
    ]
}

/// Cost of a leaf by definition: the best constant prediction, found by trying each.
fn leaf_cost(kind: &Kind, instance: &Instance, targets: &[f64], rows: &[usize]) -> f64 {
    let w = |r: usize| instance.weights[r];
    let pinball = |q: f64, scale: f64| {
        rows.iter()
            .map(|&v| {
                let loss: f64 = rows
                    .iter()
                    .map(|&r| {
                        let u = targets[r] - targets[v];
                        w(r) * if u >= 0.0 { q * u } else { (q - 1.0) * u }
                    })
                    .sum();
                scale * loss
            })
            .fold(if rows.is_empty() { 0.0 } else { f64::INFINITY }, f64::min)
    };
    match kind {
        Kind::CostMatrix(costs) => {
            let k = instance.n_classes;
            (0..k)
                .map(|p| {
                    rows.iter()
                        .map(|&r| w(r) * costs[instance.y[r] as usize * k + p])
                        .sum::<f64>()
                })
                .fold(f64::INFINITY, f64::min)
        }
        Kind::Squared => {
            let total: f64 = rows.iter().map(|&r| w(r)).sum();
            if total == 0.0 {
                return 0.0;
            }
            let mean = rows.iter().map(|&r| w(r) * targets[r]).sum::<f64>() / total;
            rows.iter()
                .map(|&r| w(r) * (targets[r] - mean).powi(2))
                .sum()
        }
        Kind::Absolute => pinball(0.5, 2.0),
        Kind::Quantile(q) => pinball(*q, 1.0),
        Kind::Centroid => {
            let point = |r: usize| [targets[r], instance.y[r] as f64];
            let total: f64 = rows.iter().map(|&r| w(r)).sum();
            if total == 0.0 {
                return 0.0;
            }
            let mut c = [0.0; 2];
            for &r in rows {
                c[0] += w(r) * point(r)[0] / total;
                c[1] += w(r) * point(r)[1] / total;
            }
            rows.iter()
                .map(|&r| {
                    let p = point(r);
                    w(r) * ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2)).sqrt()
                })
                .sum()
        }
    }
}

/// Solves `instance` under `kind` with every `step`-th switch combination.
fn solve_all(
    kind: &Kind,
    instance: &Instance,
    targets: &[f64],
    depth: u32,
    rules: &Rules,
    expected: f64,
) -> Result<(), TestCaseError> {
    let data = Dataset::new(
        &instance.x,
        instance.n_rows,
        &instance.y,
        instance.n_classes,
    )
    .unwrap();
    let solver = Solver::new(data);
    let k = instance.n_classes;
    for config in all_configs(depth, rules)
        .iter()
        .skip(instance.n_rows % 8)
        .step_by(8)
    {
        let weights = Some(&instance.weights[..]);
        let budget = Budget::default();
        let solution = match kind {
            Kind::CostMatrix(costs) => solver.solve_objective(config, weights, budget, |_, _| {
                CostMatrix::new(costs[..k * k].to_vec(), k)
            }),
            Kind::Squared => solver.solve_objective(config, weights, budget, |_, w: &Weights| {
                SquaredError::new(targets, w)
            }),
            Kind::Absolute => solver.solve_objective(config, weights, budget, |_, _| {
                Ok(ByRows::new(Pinball::absolute(targets)))
            }),
            Kind::Quantile(q) => solver.solve_objective(config, weights, budget, |_, _| {
                Ok(ByRows::new(Pinball::new(targets, *q, 1.0)))
            }),
            Kind::Centroid => solver.solve_objective(config, weights, budget, |_, w| {
                let points = (0..instance.n_rows)
                    .flat_map(|r| [targets[r], instance.y[r] as f64])
                    .collect();
                Ok(ByRows::new(CentroidDistance::new(points, 2, w)?))
            }),
        }
        .unwrap();
        prop_assert_eq!(solution.status, Status::Optimal);
        let tol = 1e-7 * (1.0 + expected.abs());
        prop_assert!(
            (solution.objective - expected).abs() < tol,
            "{:?} {:?}: got {} expected {}",
            kind,
            config,
            solution.objective,
            expected
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn native_objectives_match_brute_force(
        instance in instances(),
        kind in kinds(),
        targets in prop::collection::vec(prop_oneof![-50.0f64..50.0, (0i32..5).prop_map(f64::from)], 40),
        depth in 0u32..=3,
        min_leaf in 1u32..=3,
        max_nodes in prop_oneof![Just(None), (0u32..=7).prop_map(Some)],
        penalty in prop_oneof![Just(0.0), 0.1f64..3.0],
    ) {
        let rules = Rules { min_leaf: min_leaf as usize, max_nodes, penalty };
        let rows: Vec<usize> = (0..instance.n_rows).filter(|&r| instance.weights[r] > 0.0).collect();
        let leaf = |rows: &[usize]| leaf_cost(&kind, &instance, &targets, rows);
        let (expected, _) = instance.brute_force_with(
            &rows, depth, max_nodes.unwrap_or(u32::MAX), &rules, &leaf);
        solve_all(&kind, &instance, &targets[..instance.n_rows], depth, &rules, expected)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// The multi-quantile driver, under every limit (node limits, an upper bound, a capped
    /// cache), with and without its depth-2 solver and on every cache, finds each quantile's
    /// optimum, or proves that none beats the upper bound.
    #[test]
    fn one_search_finds_every_quantile_optimum(
        instance in instances(),
        targets in prop::collection::vec(prop_oneof![-50.0f64..50.0, (0i32..5).prop_map(f64::from)], 40),
        quantiles in prop::collection::vec(0.05f64..0.95, 1..=3),
        depth in 0u32..=3,
        min_leaf in 1u32..=3,
        max_nodes in prop_oneof![Just(None), (0u32..=7).prop_map(Some)],
        penalty in prop_oneof![Just(0.0), 0.1f64..3.0],
        upper_bound in prop_oneof![Just(f64::INFINITY), 0.0f64..300.0],
        memory in prop_oneof![Just(None), capped().prop_map(Some)],
        (fast, depth2_solver, cache) in (any::<bool>(), any::<bool>(), 0usize..3),
    ) {
        let rules = Rules { min_leaf: min_leaf as usize, max_nodes, penalty };
        let rows: Vec<usize> = (0..instance.n_rows).filter(|&r| instance.weights[r] > 0.0).collect();
        let targets = &targets[..instance.n_rows];
        let data = Dataset::new(&instance.x, instance.n_rows, &instance.y, instance.n_classes).unwrap();
        let base = if fast { SearchConfig::default() } else { SearchConfig::dl85() };
        let config = SearchConfig {
            max_depth: depth,
            min_samples_leaf: min_leaf,
            leaf_penalty: penalty,
            max_nodes,
            upper_bound,
            depth2_solver,
            cache: [CacheKind::Trie, CacheKind::Hash, CacheKind::Dataset][cache],
            memory: memory.unwrap_or_default(),
            ..base
        };
        let solutions = Solver::new(data)
            .solve_quantiles(&config, Some(&instance.weights), Budget::default(), targets, &quantiles)
            .unwrap();
        prop_assert_eq!(solutions.len(), quantiles.len());
        for (&q, solution) in quantiles.iter().zip(&solutions) {
            let kind = Kind::Quantile(q);
            let leaf = |rows: &[usize]| leaf_cost(&kind, &instance, targets, rows);
            let (expected, _) = instance.brute_force_with(
                &rows, depth, max_nodes.unwrap_or(u32::MAX), &rules, &leaf);
            let tol = 1e-7 * (1.0 + expected.abs());
            let tree = &solution.tree;
            prop_assert!(tree.depth() <= depth as usize);
            prop_assert!(tree.n_leaves() as u32 - 1 <= max_nodes.unwrap_or(u32::MAX));
            if let Some(cap) = memory.and_then(|m| m.max_entries) {
                prop_assert!(solution.cache.peak_entries <= cap);
            }
            match solution.status {
                Status::Optimal => {
                    prop_assert!((solution.objective - expected).abs() < tol,
                        "q {}: got {} expected {}", q, solution.objective, expected);
                    prop_assert!((solution.lower_bound - expected).abs() < tol);
                    prop_assert!(expected < upper_bound + tol);
                }
                Status::Infeasible => {
                    prop_assert!(expected > upper_bound - tol, "q {}: {} is below {}", q, expected, upper_bound);
                    prop_assert_eq!(tree.n_leaves(), 1);
                }
                Status::MemoryLimit => {
                    prop_assert!(memory.is_some());
                    prop_assert!(solution.lower_bound < expected + tol);
                }
                status => prop_assert!(false, "unexpected status {:?}", status),
            }
        }
    }
}

#[test]
fn objectives_report_what_they_allow() {
    let weights = Weights::new(None, 2).unwrap();
    assert!(
        SquaredError::new(&[1.0, 2.0], &weights)
            .unwrap()
            .capabilities()
            .depth2
    );
    // a pinball loss's cells are costed from ranks, and its removed rows bounded; other row
    // evaluators get neither the depth-2 solver nor the similarity bound
    assert!(
        ByRows::new(Pinball::absolute(&[1.0, 2.0]))
            .capabilities()
            .depth2
    );
    assert!(
        ByRows::new(Pinball::absolute(&[1.0, 2.0]))
            .capabilities()
            .similarity_bound
    );
    let centroid = CentroidDistance::new(vec![0.0, 1.0], 1, &weights).unwrap();
    let centroid = ByRows::new(centroid).capabilities();
    assert!(!centroid.depth2 && !centroid.similarity_bound);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// The similarity bound of a pinball loss (`Pinball::removal_costs`): for two row sets
    /// under the same depth, `T(new) ≥ T(old) − Σ removal(old \ new)`, by brute force on
    /// random weighted instances, quantiles and leaf penalties (with `min_samples_leaf = 1`,
    /// where the engine uses it).
    #[test]
    fn pinball_optimum_drops_by_at_most_the_removal_costs(
        instance in instances(),
        quantile in prop_oneof![Just(0.5), 0.05f64..0.95],
        targets in prop::collection::vec(prop_oneof![-50.0f64..50.0, (0i32..5).prop_map(f64::from)], 40),
        keep in prop::collection::vec((any::<bool>(), any::<bool>()), 40),
        depth in 0u32..=2,
        penalty in prop_oneof![Just(0.0), 0.1f64..3.0],
    ) {
        let n = instance.n_rows;
        let targets = &targets[..n];
        let kind = Kind::Quantile(quantile);
        let rules = Rules { min_leaf: 1, max_nodes: None, penalty };
        let leaf = |rows: &[usize]| leaf_cost(&kind, &instance, targets, rows);
        let weights = Weights::new(Some(&instance.weights), n).unwrap();
        let removal = Pinball::new(targets, quantile, 1.0).removal_costs(&weights);
        let support = |r: &usize| instance.weights[*r] > 0.0;
        let old: Vec<usize> = (0..n).filter(|&r| keep[r].0).filter(support).collect();
        let new: Vec<usize> = (0..n).filter(|&r| keep[r].1).filter(support).collect();
        let removed: f64 = old.iter().filter(|r| !new.contains(r)).map(|&r| removal[r]).sum();
        let t_old = instance.brute_force_with(&old, depth, u32::MAX, &rules, &leaf).0;
        let t_new = instance.brute_force_with(&new, depth, u32::MAX, &rules, &leaf).0;
        prop_assert!(t_new >= t_old - removed - 1e-7 * (1.0 + t_old.abs()),
            "{} < {} - {}", t_new, t_old, removed);
    }
}
