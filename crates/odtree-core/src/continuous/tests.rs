//! The exact search against a brute force over every threshold on tiny random data.

use super::loss::{ClassLoss, Loss, SquaredLoss};
use super::rows::NumericData;
use super::*;
use proptest::prelude::*;

/// The least cost of a tree of depth at most `depth` and at most `nodes` splits over
/// `rows`, every split tried.
fn brute<L: Loss>(
    data: &NumericData,
    loss: &L,
    rows: &[usize],
    depth: u32,
    nodes: u64,
    config: &ContinuousConfig,
) -> f64 {
    let mut stats = vec![0.0; loss.width()];
    rows.iter().for_each(|&r| loss.add(&mut stats, r));
    let mut best = loss.cost(&stats) + config.leaf_penalty;
    if depth == 0 || nodes == 0 || rows.len() < config.min_samples_split {
        return best;
    }
    let weight = |part: &[usize]| part.iter().map(|&r| loss.weight(r)).sum::<f64>();
    for column in 0..data.n_columns() {
        let mut ranks: Vec<u32> = rows.iter().map(|&r| data.rank(column, r)).collect();
        ranks.sort_unstable();
        ranks.dedup();
        for &below in &ranks[..ranks.len().saturating_sub(1)] {
            let (l, r): (Vec<usize>, Vec<usize>) = rows
                .iter()
                .partition(|&&row| data.rank(column, row) <= below);
            if l.len() < config.min_samples_leaf
                || r.len() < config.min_samples_leaf
                || weight(&l).min(weight(&r)) < config.min_weight_leaf * (1.0 - 1e-12)
            {
                continue;
            }
            let shared = nodes.min(16);
            for left_nodes in 0..shared {
                let cost = brute(data, loss, &l, depth - 1, left_nodes, config)
                    + brute(data, loss, &r, depth - 1, shared - 1 - left_nodes, config);
                best = best.min(cost);
            }
        }
    }
    best
}

/// Values (row-major), rows, columns, labels, weights, depth, minimum leaf size, penalty,
/// node budget.
type Tiny = (
    Vec<f64>,
    usize,
    usize,
    Vec<u32>,
    Vec<f64>,
    u32,
    usize,
    f64,
    u64,
);

fn tiny() -> impl Strategy<Value = Tiny> {
    (3usize..10, 1usize..4).prop_flat_map(|(n, m)| {
        (
            proptest::collection::vec(0u8..4, n * m),
            Just(n),
            Just(m),
            proptest::collection::vec(0u32..3, n),
            proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(2.5)], n),
            1u32..5,
            1usize..3,
            prop_oneof![Just(0.0), Just(0.5)],
            prop_oneof![Just(u64::MAX), 1u64..6],
        )
            .prop_map(|(x, n, m, y, w, d, min, pen, nodes)| {
                (
                    x.into_iter().map(f64::from).collect(),
                    n,
                    m,
                    y,
                    w,
                    d,
                    min,
                    pen,
                    nodes,
                )
            })
    })
}

/// Every split's threshold sends each of its rows the way the tree's counts say: the rows
/// with a value at most the threshold reach the left child.
fn check_thresholds(
    data: &NumericData,
    nodes: &[NumericNode],
    at: usize,
    rows: &[usize],
) -> Result<(), TestCaseError> {
    let node = &nodes[at];
    prop_assert_eq!(node.rows, rows.len());
    if let Some(column) = node.column {
        let (left, right): (Vec<usize>, Vec<usize>) = rows
            .iter()
            .partition(|&&row| data.value(column, data.rank(column, row)) <= node.threshold);
        check_thresholds(data, nodes, node.left, &left)?;
        check_thresholds(data, nodes, node.right, &right)?;
    }
    Ok(())
}

/// How the costs of trees compare.
#[derive(Clone, Copy, PartialEq)]
enum Ties {
    /// Costs are sums of class weights that add up exactly: equal trees are equal.
    Exact,
    /// Costs are real numbers (squared error): two trees whose costs differ by rounding
    /// alone may go either way.
    Rounded,
}

/// The search on 2 and 4 threads finds `alone`, the tree of the search on one thread (with
/// `Ties::Rounded`, the same cost up to rounding).
fn same_tree_on_threads<L: Loss>(
    data: &NumericData,
    loss: &L,
    config: &ContinuousConfig,
    alone: &NumericSolution,
    ties: Ties,
) -> Result<(), TestCaseError> {
    for threads in [2, 4] {
        let config = ContinuousConfig {
            threads,
            ..config.clone()
        };
        let found = solve(data, loss, &config, Budget::default());
        prop_assert_eq!(found.status, alone.status);
        if ties == Ties::Exact {
            prop_assert_eq!(&found.nodes, &alone.nodes, "on {} threads", threads);
        } else {
            let noise = 1e-9 * alone.objective.abs().max(1.0);
            prop_assert!((found.objective - alone.objective).abs() <= noise);
        }
    }
    Ok(())
}

fn check<L: Loss>(
    data: &NumericData,
    loss: &L,
    config: &ContinuousConfig,
    ties: Ties,
) -> Result<(), TestCaseError> {
    let kept: Vec<usize> = (0..data.n_rows())
        .filter(|&r| loss.weight(r) > 0.0)
        .collect();
    prop_assume!(!kept.is_empty());
    let nodes = config.max_nodes.min(exact::full(config.max_depth));
    let expected = brute(data, loss, &kept, config.max_depth, nodes, config);
    let found = solve(data, loss, config, Budget::default());
    prop_assert_eq!(found.status, Status::Optimal);
    check_thresholds(data, &found.nodes, 0, &kept)?;
    same_tree_on_threads(data, loss, config, &found, ties)?;
    prop_assert!(
        (found.objective - expected).abs() < 1e-9,
        "{} vs {}",
        found.objective,
        expected
    );
    // and a bound at the optimum (less rounding) proves that nothing is cheaper
    let bounded = ContinuousConfig {
        upper_bound: expected - 1e-9,
        ..config.clone()
    };
    prop_assert_eq!(
        solve(data, loss, &bounded, Budget::default()).status,
        Status::Infeasible
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn classification_meets_the_brute_force((x, n, m, y, w, depth, min, pen, nodes) in tiny()) {
        let data = NumericData::new(&x, n, m).unwrap();
        let loss = ClassLoss::new(y, w, 3, None);
        let config = ContinuousConfig { max_depth: depth, max_nodes: nodes, min_samples_leaf: min, leaf_penalty: pen, ..Default::default() };
        check(&data, &loss, &config, Ties::Exact)?;
    }

    #[test]
    fn cost_matrices_meet_the_brute_force((x, n, m, y, w, depth, min, pen, nodes) in tiny()) {
        let data = NumericData::new(&x, n, m).unwrap();
        let costs = vec![0.0, 1.0, 4.0, 2.0, 0.0, 1.0, 0.5, 3.0, 0.0];
        let loss = ClassLoss::new(y, w, 3, Some(costs));
        let config = ContinuousConfig { max_depth: depth, max_nodes: nodes, min_samples_leaf: min, leaf_penalty: pen, ..Default::default() };
        check(&data, &loss, &config, Ties::Exact)?;
    }

    #[test]
    fn squared_error_meets_the_brute_force((x, n, m, y, w, depth, min, pen, nodes) in tiny()) {
        let data = NumericData::new(&x, n, m).unwrap();
        let targets: Vec<f64> = y.iter().map(|&v| f64::from(v) * 1.5 - 1.0).collect();
        let loss = SquaredLoss::new(&targets, w);
        let config = ContinuousConfig { max_depth: depth, max_nodes: nodes, min_samples_leaf: min, leaf_penalty: pen, ..Default::default() };
        check(&data, &loss, &config, Ties::Rounded)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Rows of weight one (or zero) of 2 to 9 classes over several words of 64 rows, with
    /// many repeated values: the depth-two solver's sweeps over packed bits (and, for 9
    /// classes, row by row).
    #[test]
    fn counted_classes_meet_the_brute_force(
        (x, n, m) in (60usize..200, 1usize..4).prop_flat_map(|(n, m)| {
            (proptest::collection::vec(0u8..16, n * m), Just(n), Just(m))
        }),
        seed in any::<u64>(),
        classes in prop_oneof![Just(2u32), Just(2), 3u32..6, Just(9)],
        depth in 1u32..3,
        min in 1usize..5,
        nodes in prop_oneof![Just(u64::MAX), Just(2u64)],
    ) {
        let values: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
        let data = NumericData::new(&values, n, m).unwrap();
        // labels mostly following the first column, with noise, and a few rows left out
        let mix = |i: usize| {
            (seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).rotate_left(17)
        };
        let noisy = |i: usize| u32::from(x[i * m]) * classes / 16 + u32::from(mix(i) % 3 == 0);
        let y: Vec<u32> = (0..n).map(|i| noisy(i) % classes).collect();
        let w: Vec<f64> = (0..n).map(|i| if mix(i) % 11 == 0 { 0.0 } else { 1.0 }).collect();
        let loss = ClassLoss::new(y, w, classes as usize, None);
        prop_assert!(loss.counted().is_some());
        let config = ContinuousConfig {
            max_depth: depth, max_nodes: nodes, min_samples_leaf: min, ..Default::default()
        };
        check(&data, &loss, &config, Ties::Exact)?;
    }

    /// `min_samples_split` and a least leaf weight (a share of the total), with the other
    /// limits, and a store wiped whenever it would hold more than a few row sets.
    #[test]
    fn split_and_weight_limits_meet_the_brute_force(
        (x, n, m, y, w, depth, min, pen, nodes) in tiny(),
        split in 2usize..6,
        share in prop_oneof![Just(0.0), Just(0.15), Just(0.3)],
        squared in any::<bool>(),
        max_stored in prop_oneof![Just(usize::MAX), 1usize..4],
    ) {
        let data = NumericData::new(&x, n, m).unwrap();
        let config = ContinuousConfig {
            max_depth: depth,
            max_nodes: nodes,
            min_samples_leaf: min,
            min_samples_split: split,
            min_weight_leaf: share * w.iter().sum::<f64>(),
            leaf_penalty: pen,
            max_stored,
            ..Default::default()
        };
        if squared {
            let targets: Vec<f64> = y.iter().map(|&v| f64::from(v) * 1.5 - 1.0).collect();
            check(&data, &SquaredLoss::new(&targets, w), &config, Ties::Rounded)?;
        } else {
            check(&data, &ClassLoss::new(y, w, 3, None), &config, Ties::Exact)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// Depth 3 and 4 over 40 to 160 rows of few distinct values (many trees tie): the
    /// same tree on 1, 2 and 4 threads (for squared error, the same cost), with a node
    /// budget, a leaf penalty or a least leaf size too.
    #[test]
    fn threads_find_the_tree_of_one_thread(
        (x, n, m) in (40usize..160, 2usize..6).prop_flat_map(|(n, m)| {
            (proptest::collection::vec(0u8..12, n * m), Just(n), Just(m))
        }),
        seed in any::<u64>(),
        depth in 3u32..5,
        min in prop_oneof![Just(1usize), 2usize..6],
        pen in prop_oneof![Just(0.0), Just(2.0)],
        nodes in prop_oneof![Just(u64::MAX), 3u64..6],
        squared in any::<bool>(),
    ) {
        let values: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
        let data = NumericData::new(&values, n, m).unwrap();
        let mix = |i: usize| {
            (seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).rotate_left(23)
        };
        let y: Vec<u32> = (0..n)
            .map(|i| (u32::from(x[i * m] > 5) + u32::from(mix(i) % 4 == 0)) % 3)
            .collect();
        let w = vec![1.0; n];
        let config = ContinuousConfig {
            max_depth: depth, max_nodes: nodes, min_samples_leaf: min, leaf_penalty: pen,
            ..Default::default()
        };
        if squared {
            let targets: Vec<f64> = y.iter().map(|&v| f64::from(v) * 0.5).collect();
            let loss = SquaredLoss::new(&targets, w);
            let alone = solve(&data, &loss, &config, Budget::default());
            same_tree_on_threads(&data, &loss, &config, &alone, Ties::Rounded)?;
        } else {
            let loss = ClassLoss::new(y, w, 3, None);
            let alone = solve(&data, &loss, &config, Budget::default());
            same_tree_on_threads(&data, &loss, &config, &alone, Ties::Exact)?;
        }
    }
}

#[test]
fn a_spent_budget_returns_the_best_found() {
    let x: Vec<f64> = (0..200).map(|i| f64::from((i * 37) % 101)).collect();
    let y: Vec<u32> = (0..100).map(|i| u32::from(i % 3 == 0)).collect();
    let data = NumericData::new(&x, 100, 2).unwrap();
    let loss = ClassLoss::new(y, vec![1.0; 100], 2, None);
    let config = ContinuousConfig {
        max_depth: 4,
        ..Default::default()
    };
    let stopped = solve(
        &data,
        &loss,
        &config,
        Budget::new(Some(std::time::Duration::ZERO), None),
    );
    assert_eq!(stopped.status, Status::TimeLimit);
    assert!(stopped.objective <= 34.0);
}

/// 200 rows of three columns of scattered values, two classes.
fn three_columns() -> (NumericData, ClassLoss) {
    let x: Vec<f64> = (0..600).map(|i| f64::from((i * 37) % 101)).collect();
    let y: Vec<u32> = (0..200)
        .map(|i| u32::from(i % 3 == 0 || i % 7 == 1))
        .collect();
    let data = NumericData::new(&x, 200, 3).unwrap();
    (data, ClassLoss::new(y, vec![1.0; 200], 2, None))
}

#[test]
fn a_work_limit_stops_at_the_same_tree_every_time_and_a_large_one_proves() {
    let (data, loss) = three_columns();
    let limited = |max_work| {
        let config = ContinuousConfig {
            max_depth: 3,
            max_work,
            ..Default::default()
        };
        solve(&data, &loss, &config, Budget::default())
    };
    let optimum = limited(u64::MAX);
    assert_eq!(optimum.status, Status::Optimal);
    let (first, again) = (limited(5_000), limited(5_000));
    assert_eq!(first.status, Status::TimeLimit);
    assert_eq!(first.nodes, again.nodes);
    assert!(first.objective >= optimum.objective);
    let ample = limited(1 << 40);
    assert_eq!(ample.status, Status::Optimal);
    assert_eq!(ample.objective, optimum.objective);
}

#[test]
fn a_store_within_a_memory_limit_is_wiped_and_the_optimum_kept() {
    let (data, loss) = three_columns();
    let free = ContinuousConfig {
        max_depth: 3,
        ..Default::default()
    };
    let unlimited = solve(&data, &loss, &free, Budget::default());
    assert_eq!(unlimited.status, Status::Optimal);
    assert_eq!(unlimited.wipes, 0);
    assert!(unlimited.peak_stored > 50);
    let limits = [
        ContinuousConfig {
            max_stored: 20,
            ..free.clone()
        },
        ContinuousConfig {
            max_bytes: unlimited.peak_bytes - 1,
            ..free.clone()
        },
    ];
    let on_threads = limits.clone().map(|limits| ContinuousConfig {
        threads: 2,
        ..limits
    });
    for limited in limits.into_iter().chain(on_threads) {
        let found = solve(&data, &loss, &limited, Budget::default());
        assert_eq!(found.status, Status::Optimal);
        assert_eq!(found.objective, unlimited.objective);
        assert!(found.wipes > 0);
        assert!(found.peak_stored <= limited.max_stored);
        assert!(found.peak_bytes <= limited.max_bytes);
    }
    // below what the columns and row lists take, nothing can run
    let tiny = ContinuousConfig {
        max_bytes: 1000,
        ..free
    };
    let stopped = solve(&data, &loss, &tiny, Budget::default());
    assert_eq!(stopped.status, Status::MemoryLimit);
}
