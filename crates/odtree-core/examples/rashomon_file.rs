//! Finds the Rashomon set of one benchmark file (class first, then 0/1 features):
//! `rashomon_file PATH DEPTH EPSILON [ALPHA] [MAX_TREES] [REPEATS]`, without trivial splits
//! (TREEFARMS's form), the leaf penalty `ALPHA` (default 0.01) times the number of rows.
//! Used for profiling the Rashomon search without Python in the way.

use odtree_core::rashomon::Rashomon;
use odtree_core::{Budget, Dataset};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: rashomon_file PATH DEPTH EPSILON");
    let mut number = |default: f64| args.next().and_then(|v| v.parse().ok()).unwrap_or(default);
    let (depth, epsilon, alpha) = (number(2.0) as u32, number(0.1), number(0.01));
    let (max_trees, repeats) = (number(100_000.0) as usize, number(1.0) as usize);
    let text = std::fs::read_to_string(&path).expect("readable file");
    let rows: Vec<Vec<u32>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split_whitespace()
                .map(|v| v.parse().expect("integer"))
                .collect()
        })
        .collect();
    let labels: Vec<u32> = rows.iter().map(|r| r[0]).collect();
    let features: Vec<u8> = rows
        .iter()
        .flat_map(|r| r[1..].iter().map(|&v| v as u8))
        .collect();
    let n_classes = *labels.iter().max().unwrap_or(&0) as usize + 1;
    let data = Dataset::new(&features, rows.len(), &labels, n_classes).expect("valid data");
    let weights = vec![1.0; rows.len()];
    let allowed: Vec<u32> = (0..data.n_features() as u32).collect();
    for _ in 0..repeats {
        let start = Instant::now();
        let found = Rashomon::new(
            &data,
            &weights,
            alpha * rows.len() as f64,
            &allowed,
            Budget::default(),
        )
        .expect("valid search")
        .with_trivial_splits(false)
        .search(depth, epsilon, Some(max_trees))
        .expect("searched");
        println!(
            "{} trees, {} listed, optimum {:.6}, {:.4} s",
            found.count,
            found.trees.len(),
            found.optimum / rows.len() as f64,
            start.elapsed().as_secs_f64()
        );
    }
}
