//! Finds the Rashomon set of one benchmark file (class first, then 0/1 features):
//! `rashomon_file PATH DEPTH EPSILON [ALPHA] [MAX_TREES] [REPEATS]`, without trivial splits
//! (TREEFARMS's form), the leaf penalty `ALPHA` (default 0.01) times the number of rows.
//! Used for profiling the Rashomon search without Python in the way.

mod benchmark_file;

use odtree_core::rashomon::Rashomon;
use odtree_core::Budget;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: rashomon_file PATH DEPTH EPSILON");
    let mut number = |default: f64| args.next().and_then(|v| v.parse().ok()).unwrap_or(default);
    let (depth, epsilon, alpha) = (number(2.0) as u32, number(0.1), number(0.01));
    let (max_trees, repeats) = (number(100_000.0) as usize, number(1.0) as usize);
    let data = benchmark_file::read(&path);
    let weights = vec![1.0; data.n_rows()];
    let allowed: Vec<u32> = (0..data.n_features() as u32).collect();
    for _ in 0..repeats {
        let start = Instant::now();
        let found = Rashomon::new(
            &data,
            &weights,
            alpha * data.n_rows() as f64,
            &allowed,
            Budget::default(),
        )
        .expect("valid search")
        .with_trivial_splits(false)
        .search(depth, epsilon, Some(max_trees))
        .expect("searched");
        println!(
            "{} trees, {} listed, optimum {:.6}, {:.6} s",
            found.count,
            found.trees.len(),
            found.optimum / data.n_rows() as f64,
            start.elapsed().as_secs_f64()
        );
    }
}
