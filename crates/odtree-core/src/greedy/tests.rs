//! Tests of the greedy learner as a whole: hand-checked trees, stopping rules, and properties
//! (determinism, exact fit, the spec's Remark 4.3) on random tables.

use super::*;
use crate::budget::{Budget, Stop};
use proptest::prelude::*;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A budget that has already run out, as after a Ctrl-C.
fn interrupted() -> Budget {
    Budget::new(None, Some(Arc::new(AtomicBool::new(true))))
}

fn numeric(values: &[f64]) -> Column {
    Column::Numeric(values.to_vec())
}

fn learner(table: &Table, criterion: Criterion, min_cases: usize) -> GreedyLearner<'_> {
    let config = GreedyConfig {
        criterion,
        min_cases,
        ..GreedyConfig::default()
    };
    GreedyLearner::new(table, config).unwrap()
}

fn root_test(tree: &GreedyTree) -> Test {
    tree.nodes()[0].split.as_ref().unwrap().test
}

/// 20 rows, 10 of each class. Feature 0 splits 10/10 with 8 of a class on each side (gain
/// 0.278 bits, ratio 0.278); feature 1 peels off 4 rows of class 1 (gain 0.237, ratio 0.328).
fn gain_against_ratio() -> Table {
    let labels: Vec<u32> = (0..20).map(|r| u32::from(r >= 10)).collect();
    let balanced: Vec<f64> = (0..20)
        .map(|r| f64::from(!(r < 8 || r == 10 || r == 11)))
        .collect();
    let peeled: Vec<f64> = (0..20).map(|r| f64::from(r < 16)).collect();
    Table::new(vec![numeric(&balanced), numeric(&peeled)], labels, 2).unwrap()
}

#[test]
fn entropy_and_gain_ratio_pick_different_roots() {
    let table = gain_against_ratio();
    let by_gain = learner(&table, Criterion::InformationGain, 2)
        .build(&[0, 1])
        .unwrap();
    let by_ratio = learner(&table, Criterion::GainRatio, 2)
        .build(&[0, 1])
        .unwrap();
    assert_eq!(root_test(&by_gain).feature(), 0);
    assert_eq!(root_test(&by_ratio).feature(), 1);
    let gain = by_gain.nodes()[0].split.as_ref().unwrap().gain;
    assert!((gain - 0.278_071_905_112_638).abs() < 1e-12, "{gain}");
}

#[test]
fn hand_checked_tree() {
    // x0 (numeric) cuts off class 0 at x0 <= 1.5; then the category of x1 tells 1 from 2
    let x0 = numeric(&[1.0, 1.0, 2.0, 2.0, 3.0, 3.0]);
    let x1 = Column::Categorical(vec![5, 6, 5, 6, 5, 6]);
    let table = Table::new(vec![x0, x1], vec![0, 0, 1, 2, 1, 2], 3).unwrap();
    let tree = learner(&table, Criterion::InformationGain, 1)
        .build(&[0, 1])
        .unwrap();
    let nodes = tree.nodes();
    assert_eq!(nodes.len(), 5);
    assert_eq!(
        root_test(&tree),
        Test::Threshold {
            feature: 0,
            threshold: 1.5
        }
    );
    let root = nodes[0].split.as_ref().unwrap();
    // H(1/3, 1/3, 1/3) - 4/6 · 1 = log2(3) - 2/3
    assert!((root.gain - (3f64.log2() - 2.0 / 3.0)).abs() < 1e-12);
    assert_eq!(root.children, [1, 2]);
    assert_eq!(nodes[1].class_counts, vec![2, 0, 0]);
    let second = nodes[2].split.as_ref().unwrap();
    assert_eq!(
        second.test,
        Test::Category {
            feature: 1,
            code: 5
        }
    );
    assert_eq!(second.children, [3, 4]);
    assert_eq!(
        (nodes[3].majority_class(), nodes[4].majority_class()),
        (1, 2)
    );
    assert_eq!(
        (tree.depth(), tree.n_leaves(), tree.used_features()),
        (2, 3, vec![0, 1])
    );
    let predictions: Vec<u32> = (0..6).map(|row| tree.predict(&table, row)).collect();
    assert_eq!(predictions, table.labels());
}

#[test]
fn stopping_rules() {
    let table = gain_against_ratio();
    let all = [0, 1];
    // no test leaves 11 rows on both sides of 20
    assert_eq!(
        learner(&table, Criterion::GainRatio, 11)
            .build(&all)
            .unwrap()
            .n_leaves(),
        1
    );
    let shallow = GreedyConfig {
        max_depth: Some(1),
        ..GreedyConfig::default()
    };
    let tree = GreedyLearner::new(&table, shallow)
        .unwrap()
        .build(&all)
        .unwrap();
    assert_eq!(tree.depth(), 1);
    let demanding = GreedyConfig {
        min_gain: 0.3,
        ..GreedyConfig::default()
    };
    let tree = GreedyLearner::new(&table, demanding)
        .unwrap()
        .build(&all)
        .unwrap();
    assert_eq!(tree.n_leaves(), 1);
    // no features, or one class: a single leaf
    assert_eq!(
        learner(&table, Criterion::GainRatio, 1)
            .build(&[])
            .unwrap()
            .n_leaves(),
        1
    );
    let one_class = Table::new(vec![numeric(&[1.0, 2.0])], vec![1, 1], 2).unwrap();
    let leaf = learner(&one_class, Criterion::GainRatio, 1)
        .build(&[0])
        .unwrap();
    assert_eq!((leaf.n_leaves(), leaf.nodes()[0].majority_class()), (1, 1));
}

#[test]
fn rejects_bad_settings() {
    let table = gain_against_ratio();
    let config = |min_cases, min_gain| GreedyConfig {
        min_cases,
        min_gain,
        ..GreedyConfig::default()
    };
    assert!(GreedyLearner::new(&table, config(0, 0.0)).is_err());
    assert!(GreedyLearner::new(&table, config(1, -1.0)).is_err());
    assert!(GreedyLearner::new(&table, config(1, f64::NAN)).is_err());
    assert!(learner(&table, Criterion::GainRatio, 1)
        .build(&[2])
        .is_err());
    assert!(Criterion::from_name("gini").is_err());
    assert_eq!(
        Criterion::from_name("entropy"),
        Ok(Criterion::InformationGain)
    );
}

#[test]
fn duplicate_columns_lose_to_the_lower_index() {
    let values = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0];
    let table = Table::new(
        vec![numeric(&values), numeric(&values)],
        vec![0, 0, 1, 0, 1, 1],
        2,
    )
    .unwrap();
    let tree = learner(&table, Criterion::GainRatio, 1)
        .build(&[1, 0])
        .unwrap();
    assert_eq!(tree.used_features(), vec![0]);
}

/// A random table: 1 to 5 columns (numeric with few values, or categorical), 1 to 40 rows and
/// 1 to 3 classes; with `consistent`, each row's class is a function of its values.
fn tables(consistent: bool) -> impl Strategy<Value = Table> {
    (1usize..=5, 1usize..=40, 1u32..=3).prop_flat_map(move |(n_features, n_rows, n_classes)| {
        let column = (any::<bool>(), prop::collection::vec(0u32..4, n_rows));
        let columns = prop::collection::vec(column, n_features);
        let labels = prop::collection::vec(0..n_classes, n_rows);
        (columns, labels).prop_map(move |(columns, mut labels)| {
            if consistent {
                for (row, label) in labels.iter_mut().enumerate() {
                    let key = columns.iter().fold(7u32, |h, (_, v)| h * 31 + v[row]);
                    *label = key % n_classes;
                }
            }
            let columns = typed_columns(columns);
            Table::new(columns, labels, n_classes as usize).unwrap()
        })
    })
}

/// Random columns as the tables' columns: numeric ones centred around 0, or categorical.
pub(super) fn typed_columns(columns: Vec<(bool, Vec<u32>)>) -> Vec<Column> {
    columns
        .into_iter()
        .map(|(is_numeric, values)| {
            if is_numeric {
                Column::Numeric(values.iter().map(|&v| f64::from(v) - 1.5).collect())
            } else {
                Column::Categorical(values)
            }
        })
        .collect()
}

fn criteria() -> impl Strategy<Value = Criterion> {
    prop_oneof![Just(Criterion::InformationGain), Just(Criterion::GainRatio)]
}

/// The table with its rows in the order `order`.
fn reordered(table: &Table, order: &[usize]) -> Table {
    let columns = table
        .columns()
        .iter()
        .map(|column| match column {
            Column::Numeric(v) => Column::Numeric(order.iter().map(|&r| v[r]).collect()),
            Column::Categorical(v) => Column::Categorical(order.iter().map(|&r| v[r]).collect()),
        })
        .collect();
    let labels = order.iter().map(|&r| table.labels()[r]).collect();
    Table::new(columns, labels, table.n_classes()).unwrap()
}

proptest! {
    #[test]
    fn deterministic_and_blind_to_row_order(
        table in tables(false), criterion in criteria(), min_cases in 1usize..4, seed: u64,
    ) {
        let all: Vec<usize> = (0..table.n_features()).collect();
        let tree = learner(&table, criterion, min_cases).build(&all).unwrap();
        prop_assert_eq!(&tree, &learner(&table, criterion, min_cases).build(&all).unwrap());
        // a fixed shuffle of the rows
        let mut order: Vec<usize> = (0..table.n_rows()).collect();
        order.sort_by_key(|&r| (r as u64 ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let shuffled = reordered(&table, &order);
        prop_assert_eq!(&tree, &learner(&shuffled, criterion, min_cases).build(&all).unwrap());
    }

    #[test]
    fn fits_consistent_data_with_min_cases_one(table in tables(true), criterion in criteria()) {
        let all: Vec<usize> = (0..table.n_features()).collect();
        let tree = learner(&table, criterion, 1).build(&all).unwrap();
        for node in tree.nodes().iter().filter(|node| node.is_leaf()) {
            prop_assert!(node.class_counts.iter().filter(|&&count| count > 0).count() == 1);
        }
        for row in 0..table.n_rows() {
            prop_assert_eq!(tree.predict(&table, row), table.labels()[row]);
        }
    }

    /// Remark 4.3: for `used(DT(X)) ⊆ Y ⊆ X`, `DT(Y) = DT(X)`.
    #[test]
    fn unused_features_do_not_matter(
        table in tables(false), criterion in criteria(), min_cases in 1usize..4,
        x_mask: u8, y_mask: u8,
    ) {
        let x: Vec<usize> = (0..table.n_features()).filter(|f| x_mask >> f & 1 == 1).collect();
        let learner = learner(&table, criterion, min_cases);
        let tree = learner.build(&x).unwrap();
        let used = tree.used_features();
        prop_assert!(used.iter().all(|f| x.contains(f)));
        let y: Vec<usize> =
            x.iter().copied().filter(|f| used.contains(f) || y_mask >> f & 1 == 1).collect();
        prop_assert_eq!(&tree, &learner.build(&y).unwrap());
    }
}

fn orders() -> impl Strategy<Value = RemovalOrder> {
    prop_oneof![
        Just(RemovalOrder::FrontierAscending),
        Just(RemovalOrder::FrontierDescending),
        Just(RemovalOrder::Index),
    ]
}

#[test]
fn distinct_trees_of_no_features_is_one_leaf() {
    let table = gain_against_ratio();
    let learner = learner(&table, Criterion::InformationGain, 2);
    let mut search = DistinctTrees::new(&[], RemovalOrder::default(), true);
    let found = search
        .next_tree(&learner, &mut Budget::default())
        .unwrap()
        .unwrap();
    assert!(found.features.is_empty() && found.tree.nodes().len() == 1);
    assert!(search
        .next_tree(&learner, &mut Budget::default())
        .unwrap()
        .is_none());
    assert!(search.is_done());
}

proptest! {
    /// Property 3: a tree rebuilt without a used feature is the tree grown without it.
    #[test]
    fn build_without_is_build(
        table in tables(false), criterion in criteria(), min_cases in 1usize..4,
        max_depth in prop::option::of(1usize..4), x_mask: u8,
    ) {
        let config = GreedyConfig { criterion, min_cases, max_depth, ..GreedyConfig::default() };
        let learner = GreedyLearner::new(&table, config).unwrap();
        let x: Vec<usize> = (0..table.n_features()).filter(|f| x_mask >> f & 1 == 1).collect();
        let tree = learner.build(&x).unwrap();
        for removed in tree.used_features() {
            let rest: Vec<usize> = x.iter().copied().filter(|&f| f != removed).collect();
            prop_assert_eq!(learner.build_without(&tree, &rest, removed).unwrap(),
                            learner.build(&rest).unwrap());
        }
    }

    /// DTdistinct reports exactly the distinct trees of all feature subsets, each once, with
    /// the features it uses, whatever the order and with or without incremental building.
    #[test]
    fn distinct_trees_are_all_subsets_trees_once(
        table in tables(false), criterion in criteria(), min_cases in 1usize..4,
        order in orders(), incremental: bool,
    ) {
        let learner = learner(&table, criterion, min_cases);
        let n = table.n_features();
        let mut expected: Vec<GreedyTree> = Vec::new();
        for mask in 0..1usize << n {
            let subset: Vec<usize> = (0..n).filter(|f| mask >> f & 1 == 1).collect();
            let tree = learner.build(&subset).unwrap();
            if !expected.contains(&tree) {
                expected.push(tree);
            }
        }
        let all: Vec<usize> = (0..n).collect();
        let mut search = DistinctTrees::new(&all, order, incremental);
        let mut found: Vec<GreedyTree> = Vec::new();
        while let Some(distinct) = search.next_tree(&learner, &mut Budget::default()).unwrap() {
            prop_assert_eq!(&distinct.features, &distinct.tree.used_features());
            prop_assert!(!found.contains(&distinct.tree));
            found.push(distinct.tree);
        }
        prop_assert_eq!(found.len(), expected.len());
        prop_assert!(expected.iter().all(|tree| found.contains(tree)));
        prop_assert_eq!(search.n_found(), found.len());
        prop_assert!(search.n_built() >= found.len());
    }

    /// PSBE and SBE accept the same subsets with the same errors.
    #[test]
    fn psbe_selects_what_sbe_selects(
        table in tables(false), criterion in criteria(), min_cases in 1usize..3, split: u64,
    ) {
        prop_assume!(table.n_rows() >= 2);
        let (mut building, mut search) = (Vec::new(), Vec::new());
        for row in 0..table.n_rows() {
            if (row as u64 ^ split).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62 == 0 {
                search.push(row);
            } else {
                building.push(row);
            }
        }
        prop_assume!(!building.is_empty() && !search.is_empty());
        let folds = [Fold { building, search }];
        let config = GreedyConfig { criterion, min_cases, ..GreedyConfig::default() };
        let all: Vec<usize> = (0..table.n_features()).collect();
        let run = |method, n_jobs| {
            backward_elimination(&table, &folds, config, &all, method, &mut Budget::default(), n_jobs)
                .unwrap()
        };
        let (pruned, black_box) = (run(Elimination::Pruned, 1), run(Elimination::BlackBox, 1));
        prop_assert_eq!(&pruned.trace, &black_box.trace);
        // the candidates on several threads: the same rounds, the same trees built
        prop_assert_eq!(&run(Elimination::Pruned, 3), &pruned);
        prop_assert_eq!(&run(Elimination::BlackBox, 2), &black_box);
        prop_assert!(pruned.n_built <= black_box.n_built);
        prop_assert_eq!(pruned.stopped, None);
    }

    /// An enumeration stopped by its budget at any point goes on where it stopped: the trees
    /// are the same, in the same order, as without stops.
    #[test]
    fn a_stopped_enumeration_resumes(
        table in tables(false), min_cases in 1usize..3, stops in prop::collection::vec(any::<bool>(), 0..40),
    ) {
        let learner = learner(&table, Criterion::InformationGain, min_cases);
        let all: Vec<usize> = (0..table.n_features()).collect();
        let mut plain = DistinctTrees::new(&all, RemovalOrder::default(), true);
        let mut expected = Vec::new();
        while let Some(distinct) = plain.next_tree(&learner, &mut Budget::default()).unwrap() {
            expected.push(distinct);
        }
        let mut resumed = DistinctTrees::new(&all, RemovalOrder::default(), true);
        let mut found = Vec::new();
        let mut stops = stops.into_iter();
        loop {
            if stops.next().unwrap_or(false) {
                let mut budget = interrupted();
                prop_assert!(resumed.next_tree(&learner, &mut budget).unwrap().is_none());
                prop_assert_eq!(budget.stopped(), Some(Stop::Interrupted));
                continue;
            }
            match resumed.next_tree(&learner, &mut Budget::default()).unwrap() {
                Some(distinct) => found.push(distinct),
                None => break,
            }
        }
        prop_assert_eq!(found, expected);
        prop_assert_eq!(resumed.n_built(), plain.n_built());
    }
}

#[test]
fn an_interrupted_elimination_keeps_the_subset_it_had() {
    let table = gain_against_ratio();
    let folds = [Fold {
        building: (0..table.n_rows()).collect(),
        search: (0..table.n_rows()).collect(),
    }];
    let all: Vec<usize> = (0..table.n_features()).collect();
    let config = GreedyConfig::default();
    let mut budget = interrupted();
    let selection = backward_elimination(
        &table,
        &folds,
        config,
        &all,
        Elimination::Pruned,
        &mut budget,
        2,
    )
    .unwrap();
    assert_eq!(selection.stopped, Some(Stop::Interrupted));
    assert_eq!(selection.features(), &all[..]);
    assert_eq!(selection.trace.len(), 1);
}
