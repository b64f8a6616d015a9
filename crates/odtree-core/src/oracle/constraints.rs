//! scikit-learn's tree constraints held to a brute force: `min_samples_split`, a least leaf
//! weight and monotonicity constraints, under every switch combination of the search.
//!
//! The brute force tries every split at every node and keeps, for each subtree, its least
//! cost for each range of the classes its leaves predict ({0}, {1}, or both): that is all an
//! ancestor's monotonicity constraint looks at, so the optimum under the constraints is the
//! least cost over the ranges at the root. It shares nothing with the search's lanes.

use crate::budget::Budget;
use crate::data::Dataset;
use crate::oracle::{all_configs, capped, instances, Instance, Rules};
use crate::search::SearchConfig;
use crate::solver::{Solution, Solver, Status};
use crate::tree::TreeNode;
use proptest::prelude::*;

/// The ranges of predicted classes a subtree may have: {0}, {1}, {0, 1}.
const RANGES: [(u32, u32); 3] = [(0, 0), (1, 1), (0, 1)];

/// The constraints of one brute-force run besides the depth and the node limit.
#[derive(Clone, Debug)]
struct Constraints {
    min_leaf: usize,
    min_split: usize,
    min_weight: f64,
    penalty: f64,
    /// One sign per feature (-1, 0, 1); empty: none.
    monotonic: Vec<i8>,
}

/// A (cost, leaves) pair, better when cheaper, then smaller.
type Best = (f64, u32);

fn better(a: Best, b: Best) -> bool {
    a.0 < b.0 - 1e-9 || (a.0 <= b.0 + 1e-9 && a.1 < b.1)
}

impl Instance {
    fn weight_of(&self, rows: &[usize]) -> f64 {
        rows.iter().map(|&r| self.weights[r]).sum()
    }

    /// The weight of `rows` outside class `label`.
    fn errors(&self, rows: &[usize], label: u32) -> f64 {
        rows.iter()
            .filter(|&&r| self.y[r] != label)
            .map(|&r| self.weights[r])
            .sum()
    }

    /// For each of [`RANGES`], the best subtree of `rows` whose leaves predict classes
    /// spanning exactly that range (two classes), within `depth` and `nodes`.
    fn by_range(&self, rows: &[usize], depth: u32, nodes: u32, rules: &Constraints) -> [Best; 3] {
        let none = (f64::INFINITY, 0);
        let mut best = [
            (self.errors(rows, 0) + rules.penalty, 1),
            (self.errors(rows, 1) + rules.penalty, 1),
            none,
        ];
        if depth == 0 || nodes == 0 || rows.len() < rules.min_split {
            return best;
        }
        let nodes = nodes.min((1 << depth) - 1);
        for f in 0..self.n_features() {
            let (right, left): (Vec<usize>, Vec<usize>) =
                rows.iter().partition(|&&r| self.value(r, f));
            if left.len() < rules.min_leaf.max(1) || right.len() < rules.min_leaf.max(1) {
                continue;
            }
            let least = rules.min_weight * (1.0 - 1e-12);
            if self.weight_of(&left) < least || self.weight_of(&right) < least {
                continue;
            }
            let sign = rules.monotonic.get(f).copied().unwrap_or(0);
            for left_nodes in 0..nodes {
                let l = self.by_range(&left, depth - 1, left_nodes, rules);
                let r = self.by_range(&right, depth - 1, nodes - 1 - left_nodes, rules);
                for (a, &(a_lo, a_hi)) in RANGES.iter().enumerate() {
                    for (b, &(b_lo, b_hi)) in RANGES.iter().enumerate() {
                        let allowed = match sign {
                            1 => a_hi <= b_lo,
                            -1 => a_lo >= b_hi,
                            _ => true,
                        };
                        if !allowed {
                            continue;
                        }
                        let range = (a_lo.min(b_lo), a_hi.max(b_hi));
                        let slot = RANGES.iter().position(|&x| x == range).unwrap();
                        let candidate = (l[a].0 + r[b].0, l[a].1 + r[b].1);
                        if better(candidate, best[slot]) {
                            best[slot] = candidate;
                        }
                    }
                }
            }
        }
        best
    }

    /// The optimum under `rules` within `depth` and `nodes` branching nodes.
    fn constrained_optimum(&self, depth: u32, nodes: u32, rules: &Constraints) -> f64 {
        let rows: Vec<usize> = (0..self.n_rows)
            .filter(|&r| self.weights[r] > 0.0)
            .collect();
        let best = self.by_range(&rows, depth, nodes, rules);
        best.iter()
            .fold((f64::INFINITY, 0), |a, &b| if better(b, a) { b } else { a })
            .0
    }
}

/// The labels of the leaves below `node`.
fn labels_below(nodes: &[TreeNode], node: usize) -> Vec<u32> {
    let here = &nodes[node];
    if here.is_leaf() {
        return vec![here.label];
    }
    let mut labels = labels_below(nodes, here.left as usize);
    labels.extend(labels_below(nodes, here.right as usize));
    labels
}

/// Checks that the solution's tree respects the constraints.
fn check_constrained_tree(solution: &Solution, config: &SearchConfig, signs: &[i8]) {
    let nodes = solution.tree.nodes();
    for (i, node) in nodes.iter().enumerate() {
        let Some(feature) = node.feature else {
            assert!(
                nodes.len() == 1 || node.weight >= config.min_leaf_weight * (1.0 - 1e-9),
                "leaf below the least weight"
            );
            continue;
        };
        assert!(
            node.rows >= config.min_samples_split,
            "split of too few rows"
        );
        let (low, high) = (
            labels_below(nodes, node.left as usize),
            labels_below(nodes, node.right as usize),
        );
        let (low_max, high_min) = (*low.iter().max().unwrap(), *high.iter().min().unwrap());
        let (low_min, high_max) = (*low.iter().min().unwrap(), *high.iter().max().unwrap());
        match signs.get(feature as usize).copied().unwrap_or(0) {
            1 => assert!(
                low_max <= high_min,
                "node {i} decreases on feature {feature}"
            ),
            -1 => assert!(
                low_min >= high_max,
                "node {i} increases on feature {feature}"
            ),
            _ => {}
        }
    }
}

/// Two-class instances (the classes of [`instances`] taken modulo 2).
fn two_class_instances() -> impl Strategy<Value = Instance> {
    instances().prop_map(|mut instance| {
        instance.y.iter_mut().for_each(|y| *y %= 2);
        instance.n_classes = 2;
        instance
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn constraints_match_brute_force(
        instance in two_class_instances(),
        depth in 0u32..=3,
        min_leaf in 1u32..=2,
        min_split in 2u32..=8,
        weight_share in prop_oneof![Just(0.0), 0.05f64..0.4],
        max_nodes in prop_oneof![Just(None), (0u32..=7).prop_map(Some)],
        penalty in prop_oneof![Just(0.0), 0.2f64..1.5],
        signs in prop::collection::vec(-1i8..=1, 8),
        monotonic in any::<bool>(),
        lexicographic in any::<bool>(),
    ) {
        let signs: Vec<i8> = if monotonic {
            signs[..instance.n_features()].to_vec()
        } else {
            Vec::new()
        };
        let total: f64 = instance.weights.iter().sum();
        let rules = Constraints {
            min_leaf: min_leaf as usize,
            min_split: min_split as usize,
            min_weight: weight_share * total,
            penalty,
            monotonic: signs.clone(),
        };
        let expected =
            instance.constrained_optimum(depth, max_nodes.unwrap_or(u32::MAX), &rules);
        let data =
            Dataset::new(&instance.x, instance.n_rows, &instance.y, instance.n_classes).unwrap();
        let solver = Solver::new(data);
        let base = Rules { min_leaf: min_leaf as usize, max_nodes, penalty };
        let configs = all_configs(depth, &base);
        // every switch combination on a rotating subset keeps the run short
        for config in configs.iter().skip(instance.n_rows % 8).step_by(8) {
            let config = SearchConfig {
                min_samples_split: min_split,
                min_leaf_weight: rules.min_weight,
                monotonic: signs.clone(),
                lexicographic,
                ..config.clone()
            };
            let solution =
                solver.solve(&config, Some(&instance.weights), Budget::default()).unwrap();
            prop_assert_eq!(solution.status, Status::Optimal);
            let tol = 1e-9 * (1.0 + expected.abs());
            prop_assert!((solution.objective - expected).abs() < tol,
                "{:?}: got {} expected {}", config, solution.objective, expected);
            prop_assert!((solution.lower_bound - expected).abs() < tol);
            check_constrained_tree(&solution, &config, &signs);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Under a capped cache, whose wipes solve parts of the best tree again, the least rows
    /// to split and the least leaf weight still give the optimum (or, under a cap too small
    /// to finish, a valid tree no better than it).
    #[test]
    fn capped_cache_keeps_the_constrained_optimum(
        instance in instances(),
        depth in 1u32..=3,
        min_split in 2u32..=8,
        weight_share in prop_oneof![Just(0.0), 0.05f64..0.4],
        memory in capped(),
    ) {
        let total: f64 = instance.weights.iter().sum();
        let rules = Constraints {
            min_leaf: 1,
            min_split: min_split as usize,
            min_weight: weight_share * total,
            penalty: 0.0,
            monotonic: Vec::new(),
        };
        // the brute force counts two classes
        let instance = Instance { y: instance.y.iter().map(|y| y % 2).collect(), n_classes: 2, ..instance };
        let expected = instance.constrained_optimum(depth, u32::MAX, &rules);
        let data =
            Dataset::new(&instance.x, instance.n_rows, &instance.y, instance.n_classes).unwrap();
        let solver = Solver::new(data);
        let base = Rules { min_leaf: 1, max_nodes: None, penalty: 0.0 };
        for config in all_configs(depth, &base).iter().skip(instance.n_rows % 6).step_by(6) {
            let config = SearchConfig {
                min_samples_split: min_split,
                min_leaf_weight: rules.min_weight,
                memory,
                ..config.clone()
            };
            let solution =
                solver.solve(&config, Some(&instance.weights), Budget::default()).unwrap();
            let tol = 1e-9 * (1.0 + expected.abs());
            match solution.status {
                Status::Optimal => {
                    prop_assert!((solution.objective - expected).abs() < tol,
                        "{:?}: got {} expected {}", config, solution.objective, expected);
                    check_constrained_tree(&solution, &config, &[]);
                }
                Status::MemoryLimit => prop_assert!(solution.objective > expected - tol),
                status => prop_assert!(false, "unexpected status {:?}", status),
            }
        }
    }
}

#[test]
fn monotonic_constraints_are_refused_where_they_cannot_hold() {
    let x = [0, 1, 1, 0, 1, 1];
    let data = Dataset::new(&x, 3, &[0, 1, 2], 3).unwrap();
    let config = SearchConfig {
        monotonic: vec![1, 0],
        ..SearchConfig::default()
    };
    let error = Solver::new(data.clone())
        .solve(&config, None, Budget::default())
        .unwrap_err();
    assert!(error.to_string().contains("two classes"));
    let wrong_length = SearchConfig {
        monotonic: vec![1],
        ..SearchConfig::default()
    };
    let error = Solver::new(data)
        .solve(&wrong_length, None, Budget::default())
        .unwrap_err();
    assert!(error.to_string().contains("one per feature"));
    let bad_sign = SearchConfig {
        monotonic: vec![2, 0],
        ..SearchConfig::default()
    };
    assert!(bad_sign.validate().is_err());
}

/// The lookahead incumbent does not deepen the children of a depth-2 tree split on a
/// monotonicity-constrained feature apart (a hypothesis case that once broke the constraint).
#[test]
fn the_lookahead_incumbent_keeps_monotonicity() {
    let rows: [[u8; 3]; 10] = [
        [0, 0, 0],
        [0, 0, 1],
        [0, 0, 0],
        [0, 1, 0],
        [1, 0, 0],
        [0, 0, 0],
        [1, 0, 0],
        [1, 1, 0],
        [0, 0, 0],
        [0, 0, 0],
    ];
    let instance = Instance {
        x: rows.concat(),
        y: vec![0, 0, 0, 0, 0, 0, 0, 1, 1, 0],
        weights: vec![0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 2.0, 1.0],
        n_rows: 10,
        n_classes: 2,
    };
    let signs = vec![1, 0, -1];
    let rules = Constraints {
        min_leaf: 1,
        min_split: 2,
        min_weight: 0.0,
        penalty: 0.0,
        monotonic: signs.clone(),
    };
    let expected = instance.constrained_optimum(3, u32::MAX, &rules);
    assert_eq!(expected, 2.0);
    let data = Dataset::new(&instance.x, 10, &instance.y, 2).unwrap();
    let solver = Solver::new(data);
    let base = Rules {
        min_leaf: 1,
        max_nodes: None,
        penalty: 0.0,
    };
    for config in all_configs(3, &base) {
        let config = SearchConfig {
            monotonic: signs.clone(),
            ..config
        };
        let solution = solver
            .solve(&config, Some(&instance.weights), Budget::default())
            .unwrap();
        assert_eq!(solution.objective, expected, "{config:?}");
        check_constrained_tree(&solution, &config, &signs);
    }
}
