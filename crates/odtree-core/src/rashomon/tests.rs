//! The Rashomon set against brute force: every tree of small depth over small random data,
//! costed one by one.

use super::*;
use proptest::prelude::*;

/// Every tree of depth at most `depth` over `rows` (a leaf, or a split leaving rows on both
/// sides), with its cost, by plain recursion.
fn every_tree(search: &Rashomon<'_>, rows: &[u64], depth: u32) -> Vec<(f64, Codes)> {
    let (leaf, class) = search.leaf(rows);
    let mut all = vec![(leaf, vec![-1 - i64::from(class)])];
    if depth > 0 {
        for f in 0..search.data.n_features() as u32 {
            if let Some((left, right)) = search.split(rows, f) {
                for (a, left_codes) in every_tree(search, &left, depth - 1) {
                    for (b, right_codes) in every_tree(search, &right, depth - 1) {
                        let mut codes = vec![i64::from(f)];
                        codes.extend(&left_codes);
                        codes.extend(&right_codes);
                        all.push((a + b, codes));
                    }
                }
            }
        }
    }
    all
}

/// Whether a tree holds a trivial split: one whose two children are leaves predicting the same
/// class (in pre-order, a split then two equal leaf codes).
fn has_trivial_split(codes: &[i64]) -> bool {
    codes
        .windows(3)
        .any(|w| w[0] >= 0 && w[1] < 0 && w[2] == w[1])
}

fn problems() -> impl Strategy<Value = (Vec<u8>, Vec<u32>, Vec<f64>)> {
    problems_of(14, 5)
}

/// Data of up to `rows` rows and `features` 0/1 features, three classes, and weights.
fn problems_of(
    rows: usize,
    features: usize,
) -> impl Strategy<Value = (Vec<u8>, Vec<u32>, Vec<f64>)> {
    (2usize..=rows, 1usize..=features).prop_flat_map(|(n_rows, n_features)| {
        (
            prop::collection::vec(0u8..=1, n_rows * n_features),
            prop::collection::vec(0u32..3, n_rows),
            prop::collection::vec(prop_oneof![Just(1.0), Just(2.0), 0.25f64..3.0], n_rows),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The set's size and its sorted costs are brute force's, for depths 0-2, several leaf
    /// penalties and epsilons, with and without trivial splits; a cap on the trees listed
    /// keeps the cheapest.
    #[test]
    fn the_set_is_every_tree_within_the_budget(
        (x, y, weights) in problems(),
        depth in 0u32..=2,
        penalty in prop_oneof![Just(0.0), Just(0.5), Just(1.5)],
        epsilon in prop_oneof![Just(0.0), Just(0.1), Just(0.5), Just(2.0)],
        cap in prop_oneof![Just(None), (1usize..=5).prop_map(Some)],
        trivial in any::<bool>(),
        unit in any::<bool>(),
    ) {
        check_set(&x, &y, weights, depth, penalty, epsilon, cap, trivial, unit)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The same at depth 3, where a subproblem is reached by more paths, each asking for
    /// its subtrees within another budget.
    #[test]
    fn the_depth_3_set_is_every_tree_within_the_budget(
        (x, y, weights) in problems_of(10, 3),
        penalty in prop_oneof![Just(0.0), Just(0.5)],
        epsilon in prop_oneof![Just(0.1), Just(0.5), Just(2.0)],
        cap in prop_oneof![Just(None), (1usize..=30).prop_map(Some)],
        trivial in any::<bool>(),
        unit in any::<bool>(),
    ) {
        check_set(&x, &y, weights, 3, penalty, epsilon, cap, trivial, unit)?;
    }
}

/// Checks the set of the trees of depth at most `depth` over `x` and `y` against brute force,
/// and against searches under a memory limit and on three threads.
#[allow(clippy::too_many_arguments)]
fn check_set(
    x: &[u8],
    y: &[u32],
    weights: Vec<f64>,
    depth: u32,
    penalty: f64,
    epsilon: f64,
    cap: Option<usize>,
    trivial: bool,
    unit: bool,
) -> std::result::Result<(), TestCaseError> {
    // every row weighing 1: the classes' weights are counted from the class masks
    let weights = if unit { vec![1.0; y.len()] } else { weights };
    let data = Dataset::new(x, y.len(), y, 3).unwrap();
    let all: Vec<u32> = (0..data.n_features() as u32).collect();
    let mut search = Rashomon::new(&data, &weights, penalty, &all, Budget::default())
        .unwrap()
        .with_trivial_splits(trivial);
    let set = search.search(depth, epsilon, cap).unwrap();
    let mut brute = every_tree(&search, &search.all_rows(), depth);
    brute.retain(|t| trivial || !has_trivial_split(&t.1));
    let optimum = brute.iter().map(|t| t.0).fold(f64::INFINITY, f64::min);
    prop_assert!((set.optimum - optimum).abs() <= 1e-9 * (1.0 + optimum));
    let bound = (1.0 + epsilon) * optimum + 1e-9 * (1.0 + optimum);
    brute.retain(|t| t.0 <= bound);
    brute.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    prop_assert_eq!(set.count, brute.len() as u128);
    let listed = cap.unwrap_or(usize::MAX).min(brute.len());
    prop_assert_eq!(set.trees.len(), listed);
    for (listed, (want, want_codes)) in set.trees.iter().zip(&brute) {
        prop_assert!((listed.cost - want).abs() <= 1e-9 * (1.0 + want));
        // equal costs may list equal-cost trees in either order only when rounding differs
        if (listed.cost - want).abs() == 0.0 {
            prop_assert_eq!(listed.codes, want_codes.as_slice());
        }
        // each node's class weights: the root's are every row's
        prop_assert_eq!(listed.weights.len(), 3 * listed.codes.len());
        let root: f64 = listed.weights[..3].iter().sum();
        prop_assert!((root - weights.iter().sum::<f64>()).abs() <= 1e-9 * (1.0 + root));
    }
    prop_assert_eq!(set.stopped, None);
    // a memory limit small enough to wipe again and again finds the same set
    let mut tight = Rashomon::new(&data, &weights, penalty, &all, Budget::default())
        .unwrap()
        .with_trivial_splits(trivial)
        .with_max_bytes(Some(1000));
    let again = tight.search(depth, epsilon, cap).unwrap();
    prop_assert_eq!(again.count, set.count);
    prop_assert_eq!(&again.trees, &set.trees);
    // and so does a search splitting the root on three threads, with or without a limit
    let mut threads = Rashomon::new(&data, &weights, penalty, &all, Budget::default())
        .unwrap()
        .with_trivial_splits(trivial)
        .with_max_bytes(if trivial { None } else { Some(3000) })
        .with_threads(3);
    let again = threads.search(depth, epsilon, cap).unwrap();
    prop_assert_eq!(again.optimum, set.optimum);
    prop_assert_eq!(again.count, set.count);
    prop_assert_eq!(&again.trees, &set.trees);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// For regression (squared error around the leaf's weighted mean, absolute error, and
    /// the pinball loss of quantile 0.3) the set's size and sorted costs are brute force's
    /// too, and a leaf costs the least loss over every value.
    #[test]
    fn the_regression_set_is_every_tree_within_the_budget(
        (x, _, weights) in problems(),
        targets_seed in 0u64..1000,
        depth in 0u32..=2,
        penalty in prop_oneof![Just(0.0), Just(0.5)],
        epsilon in prop_oneof![Just(0.0), Just(0.2), Just(1.0)],
        pinball in prop_oneof![Just(None), Just(Some((0.5, 2.0))), Just(Some((0.3, 1.0)))],
    ) {
        let n_rows = weights.len();
        let targets: Vec<f64> = (0..n_rows as u64)
            .map(|i| ((i * 7 + targets_seed) % 5) as f64 * 0.5)
            .collect();
        let data = Dataset::new(&x, n_rows, &vec![0; n_rows], 1).unwrap();
        let all: Vec<u32> = (0..data.n_features() as u32).collect();
        let search = Rashomon::new(&data, &weights, penalty, &all, Budget::default()).unwrap();
        let mut search = match pinball {
            None => search.with_targets(&targets).unwrap(),
            Some((q, scale)) => {
                let search = search.with_quantile(&targets, q, scale).unwrap();
                // every row's leaf: the least loss over every candidate value
                let root = search.all_rows();
                let least = (targets.iter())
                    .map(|&v| {
                        let loss: f64 = (targets.iter().zip(&weights))
                            .map(|(&t, &w)| w * (q * (t - v)).max((q - 1.0) * (t - v)))
                            .sum();
                        scale * loss + penalty
                    })
                    .fold(f64::INFINITY, f64::min);
                prop_assert!((search.leaf(&root).0 - least).abs() <= 1e-9 * (1.0 + least));
                search
            }
        };
        let set = search.search(depth, epsilon, None).unwrap();
        let mut brute = every_tree(&search, &search.all_rows(), depth);
        let optimum = brute.iter().map(|t| t.0).fold(f64::INFINITY, f64::min);
        prop_assert!((set.optimum - optimum).abs() <= 1e-9 * (1.0 + optimum));
        let bound = (1.0 + epsilon) * optimum + 1e-9 * (1.0 + optimum);
        brute.retain(|t| t.0 <= bound);
        brute.sort_by(|a, b| a.0.total_cmp(&b.0));
        prop_assert_eq!(set.count, brute.len() as u128);
        for (listed, (want, _)) in set.trees.iter().zip(&brute) {
            prop_assert!((listed.cost - want).abs() <= 1e-9 * (1.0 + want));
        }
    }
}

#[test]
fn a_feature_left_out_is_never_split_on() {
    let x = [0u8, 1, 1, 0, 1, 1, 0, 0];
    let y = [0u32, 1, 1, 0];
    let data = Dataset::new(&x, 4, &y, 2).unwrap();
    let weights = [1.0; 4];
    let mut search = Rashomon::new(&data, &weights, 0.0, &[1], Budget::default()).unwrap();
    let set = search.search(1, 10.0, None).unwrap();
    assert!(set.trees.iter().all(|tree| !tree.codes.contains(&0)));
    assert_eq!(set.count, 2); // a leaf, and the split on feature 1
}

#[test]
fn an_interrupted_search_returns_what_it_completed() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let x = [0u8, 1, 1, 0, 1, 1, 0, 0];
    let y = [0u32, 1, 1, 0];
    let data = Dataset::new(&x, 4, &y, 2).unwrap();
    let weights = [1.0; 4];
    let flag = Arc::new(AtomicBool::new(true));
    for n_jobs in [1, 2] {
        let budget = Budget::new(None, Some(flag.clone()));
        let mut search = Rashomon::new(&data, &weights, 0.0, &[0, 1], budget)
            .unwrap()
            .with_threads(n_jobs);
        let set = search.search(2, 1.0, None).unwrap();
        assert_eq!(set.stopped, Some(Stop::Interrupted));
        assert_eq!(set.count, 0);
        assert!(set.trees.is_empty());
    }
}

/// The cost of every tree of depth at most `depth` over `rows` whose splits are a column and
/// a way to split the rows by its thresholds, each way once.
fn every_distinct_tree(
    search: &Rashomon<'_>,
    rows: &[u64],
    depth: u32,
    columns: &[u32],
) -> Vec<f64> {
    let mut all = vec![search.leaf(rows).0];
    if depth == 0 {
        return all;
    }
    let mut seen: Vec<(u32, Rows)> = Vec::new();
    for f in 0..columns.len() as u32 {
        let side = |value: bool| -> Rows {
            let mask = search.data.item_mask(item(f, value));
            rows.iter().zip(mask).map(|(r, m)| r & m).collect()
        };
        let (left, right) = (side(false), side(true));
        let empty = |side: &Rows| side.iter().all(|&w| w == 0);
        if empty(&left) || empty(&right) || seen.contains(&(columns[f as usize], left.clone())) {
            continue;
        }
        seen.push((columns[f as usize], left.clone()));
        for a in every_distinct_tree(search, &left, depth - 1, columns) {
            for b in every_distinct_tree(search, &right, depth - 1, columns) {
                all.push(a + b);
            }
        }
    }
    all
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Over numeric columns given as every threshold (`x <= 0.5, 1.5, 2.5`), the set counts a
    /// node's split once per way its column's thresholds split the node's rows.
    #[test]
    fn thresholds_that_split_alike_count_once(
        (values, y) in (2usize..=10, 1usize..=3).prop_flat_map(|(n_rows, n_columns)| (
            prop::collection::vec(prop::collection::vec(0u8..4, n_columns), n_rows),
            prop::collection::vec(0u32..2, n_rows),
        )),
        depth in 1u32..=2,
        epsilon in prop_oneof![Just(0.0), Just(0.3), Just(1.0)],
        n_jobs in 1usize..=2,
    ) {
        let n_columns = values[0].len();
        let columns: Vec<u32> = (0..n_columns as u32).flat_map(|c| [c; 3]).collect();
        let x: Vec<u8> = (values.iter())
            .flat_map(|row| row.iter().flat_map(|&v| (0..3u8).map(move |t| u8::from(v <= t))))
            .collect();
        let data = Dataset::new(&x, y.len(), &y, 2).unwrap();
        let weights = vec![1.0; y.len()];
        let all: Vec<u32> = (0..columns.len() as u32).collect();
        let mut search = Rashomon::new(&data, &weights, 0.5, &all, Budget::default())
            .unwrap()
            .with_columns(&columns)
            .unwrap()
            .with_threads(n_jobs);
        let set = search.search(depth, epsilon, None).unwrap();
        let mut brute = every_distinct_tree(&search, &search.all_rows(), depth, &columns);
        let optimum = brute.iter().copied().fold(f64::INFINITY, f64::min);
        brute.retain(|&cost| cost <= (1.0 + epsilon) * optimum + 1e-9);
        brute.sort_by(f64::total_cmp);
        prop_assert_eq!(set.count, brute.len() as u128);
        let listed: Vec<f64> = set.trees.iter().map(|tree| tree.cost).collect();
        prop_assert_eq!(listed, brute);
    }
}
