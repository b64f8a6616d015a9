//! Tests of the learner on weighted tables: integer weights against repeated rows, rows of
//! weight zero, scaling, row order, and weights that must be rounded.

use super::*;
use proptest::prelude::*;

fn numeric(values: &[f64]) -> Column {
    Column::Numeric(values.to_vec())
}

fn config(criterion: Criterion, min_cases: usize) -> GreedyConfig {
    GreedyConfig {
        criterion,
        min_cases,
        ..GreedyConfig::default()
    }
}

fn build(table: &Table, config: GreedyConfig) -> GreedyTree {
    let all: Vec<usize> = (0..table.n_features()).collect();
    GreedyLearner::new(table, config)
        .unwrap()
        .build(&all)
        .unwrap()
}

/// The table of `table`'s rows, row `r` repeated `copies[r]` times, without weights.
fn repeated(table: &Table, copies: &[u32]) -> Table {
    let rows: Vec<usize> = copies
        .iter()
        .enumerate()
        .flat_map(|(row, &n)| std::iter::repeat_n(row, n as usize))
        .collect();
    table.select_rows(&rows).unwrap()
}

/// Whether two trees make the same tests with the same gains and class weights, whatever their
/// row counts.
fn same_splits(weighted: &GreedyTree, other: &GreedyTree) -> bool {
    weighted.nodes().len() == other.nodes().len()
        && weighted
            .nodes()
            .iter()
            .zip(other.nodes())
            .all(|(a, b)| a.split == b.split && a.class_weights == b.class_weights)
}

/// A random table of 1 to 4 columns, 1 to 30 rows and 1 to 3 classes, with a weight from 0 to 4
/// for each row, not all zero.
fn weighted_tables() -> impl Strategy<Value = (Table, Vec<u32>)> {
    (1usize..=4, 1usize..=30, 1u32..=3).prop_flat_map(|(n_features, n_rows, n_classes)| {
        let column = (any::<bool>(), prop::collection::vec(0u32..4, n_rows));
        let columns = prop::collection::vec(column, n_features);
        let labels = prop::collection::vec(0..n_classes, n_rows);
        let weights = prop::collection::vec(0u32..=4, n_rows)
            .prop_filter("some row must count", |w| w.iter().any(|&w| w > 0));
        (columns, labels, weights).prop_map(move |(columns, labels, weights)| {
            let columns = super::tests::typed_columns(columns);
            let table = Table::new(columns, labels, n_classes as usize).unwrap();
            (table, weights)
        })
    })
}

fn criteria() -> impl Strategy<Value = Criterion> {
    prop_oneof![Just(Criterion::InformationGain), Just(Criterion::GainRatio)]
}

fn as_f64(weights: &[u32]) -> Vec<f64> {
    weights.iter().map(|&w| f64::from(w)).collect()
}

proptest! {
    /// With `min_cases = 1` (where rows and copies allow the same tests), a row of weight `w`
    /// counts exactly as `w` copies of it: same tests, same gains, same class weights.
    #[test]
    fn integer_weights_are_repeated_rows(
        (table, weights) in weighted_tables(), criterion in criteria(), depth in 0usize..4,
    ) {
        let config = GreedyConfig { max_depth: Some(depth), ..config(criterion, 1) };
        let weighted = table.clone().with_weights(&as_f64(&weights)).unwrap();
        let tree = build(&weighted, config);
        let copies = build(&repeated(&table, &weights), config);
        prop_assert!(same_splits(&tree, &copies), "{:?}\n{:?}", tree, copies);
        for node in copies.nodes() {
            let counts: Vec<f64> = node.class_counts.iter().map(|&c| c as f64).collect();
            prop_assert_eq!(&node.class_weights, &counts);
        }
    }

    /// Rows of weight zero take no part (not even in the thresholds), and weights that are
    /// all 1 give the unweighted tree; halving integer weights, some odd, keeps the units
    /// (`2^-1` instead of 1) and so halves the class weights only.
    #[test]
    fn zero_unit_and_halved_weights(
        (table, weights) in weighted_tables(), criterion in criteria(), min_cases in 1usize..4,
    ) {
        let config = config(criterion, min_cases);
        let kept: Vec<u32> = weights.iter().map(|&w| u32::from(w > 0)).collect();
        let ones = table.clone().with_weights(&as_f64(&kept)).unwrap();
        let tree = build(&ones, config);
        let unweighted = build(&repeated(&table, &kept), config);
        prop_assert_eq!(&tree, &unweighted);
        if weights.iter().all(|&w| w % 2 == 0) {
            return Ok(()); // the halves would be integers, counted in other units
        }
        let weighted = build(&table.clone().with_weights(&as_f64(&weights)).unwrap(), config);
        let halves: Vec<f64> = weights.iter().map(|&w| f64::from(w) / 2.0).collect();
        let halved = build(&table.clone().with_weights(&halves).unwrap(), config);
        prop_assert_eq!(weighted.nodes().len(), halved.nodes().len());
        for (node, half) in weighted.nodes().iter().zip(halved.nodes()) {
            prop_assert_eq!(&node.split, &half.split);
            let halved_weights: Vec<f64> = node.class_weights.iter().map(|w| w / 2.0).collect();
            prop_assert_eq!(&half.class_weights, &halved_weights);
        }
    }

    /// Weights that must be rounded (thirds, a wide range) give a tree that depends neither on
    /// the order of the rows nor on features it does not use, and rebuilding without a used
    /// feature is building anew.
    #[test]
    fn rounded_weights_keep_the_enumeration_properties(
        (table, weights) in weighted_tables(), criterion in criteria(), min_cases in 1usize..3,
        seed: u64,
    ) {
        let config = config(criterion, min_cases);
        let thirds: Vec<f64> = weights
            .iter()
            .enumerate()
            .map(|(row, &w)| f64::from(w) / 3.0 * if row % 2 == 0 { 1e6 } else { 1.0 })
            .collect();
        let weighted = table.clone().with_weights(&thirds).unwrap();
        let tree = build(&weighted, config);
        let mut order: Vec<usize> = (0..table.n_rows()).collect();
        order.sort_by_key(|&r| (r as u64 ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let shuffled = weighted.select_rows(&order).unwrap();
        prop_assert_eq!(&tree, &build(&shuffled, config));
        let learner = GreedyLearner::new(&weighted, config).unwrap();
        let used = tree.used_features();
        prop_assert_eq!(&learner.build(&used).unwrap(), &tree);
        for &removed in &used {
            let all: Vec<usize> = (0..table.n_features()).collect();
            let allowed: Vec<usize> = all.iter().copied().filter(|&f| f != removed).collect();
            prop_assert_eq!(
                learner.build_without(&tree, &allowed, removed).unwrap(),
                learner.build(&allowed).unwrap()
            );
        }
    }
}

#[test]
fn weights_move_the_split_and_the_majority() {
    // x0 separates rows 0-1 (class 0) from 2-5; x1 separates rows 0-3 from 4-5 (class 1)
    let x0 = numeric(&[0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    let x1 = numeric(&[0.0, 0.0, 0.0, 0.0, 1.0, 1.0]);
    let labels = vec![0, 0, 1, 0, 1, 1];
    let table = Table::new(vec![x0, x1], labels, 2).unwrap();
    let config = GreedyConfig {
        max_depth: Some(1),
        ..config(Criterion::InformationGain, 1)
    };
    let root = |tree: &GreedyTree| tree.nodes()[0].split.as_ref().unwrap().test.feature();
    // unweighted: x0 (a pure branch of 2) and x1 (pure branch of 2) tie; the lower index wins
    assert_eq!(root(&build(&table, config)), 0);
    // weighing row 2 (class 1, x0 = 1, x1 = 0) up makes x0's impure side purer
    let heavy = table
        .clone()
        .with_weights(&[1.0, 1.0, 10.0, 1.0, 1.0, 1.0])
        .unwrap();
    let tree = build(&heavy, config);
    assert_eq!(root(&tree), 0);
    let right = &tree.nodes()[2];
    assert_eq!(right.class_counts, vec![1, 3]);
    assert_eq!(right.class_weights, vec![1.0, 12.0]);
    // weighing row 3 (class 0, x0 = 1, x1 = 0) up instead makes x1 the better test
    let other = table
        .clone()
        .with_weights(&[1.0, 1.0, 1.0, 10.0, 1.0, 1.0])
        .unwrap();
    assert_eq!(root(&build(&other, config)), 1);
    // a leaf predicts the class of largest weight, not the most frequent class
    let leaf = Table::new(vec![numeric(&[0.0; 3])], vec![0, 0, 1], 2)
        .unwrap()
        .with_weights(&[1.0, 1.0, 2.5])
        .unwrap();
    let tree = build(&leaf, config);
    assert_eq!((tree.n_leaves(), tree.nodes()[0].majority_class()), (1, 1));
    assert_eq!(tree.nodes()[0].class_weights, vec![2.0, 2.5]);
}

#[test]
fn min_cases_counts_rows_not_weight() {
    let table = Table::new(vec![numeric(&[0.0, 1.0, 2.0, 3.0])], vec![0, 0, 1, 1], 2).unwrap();
    let config = config(Criterion::GainRatio, 2);
    assert_eq!(build(&table, config).n_leaves(), 2);
    // heavy rows do not make one row enough for a branch of two
    let single = table.select_rows(&[0, 2, 3]).unwrap();
    let heavy = single.with_weights(&[100.0, 100.0, 100.0]).unwrap();
    assert_eq!(build(&heavy, config).n_leaves(), 1);
    // and light rows still count as rows
    let light = table.with_weights(&[1e-9, 1e-9, 1e-9, 1e-9]).unwrap();
    assert_eq!(build(&light, config).n_leaves(), 2);
}
