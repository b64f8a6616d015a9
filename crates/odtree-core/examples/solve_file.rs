//! Solves one benchmark file (class first, then 0/1 features):
//! `solve_file PATH DEPTH [trie|hash|dataset] [lexicographic|plain] [MAX_CACHE_ENTRIES]
//! [reuses|descendants|all] [WIPE_FACTOR]`.
//! Used for profiling the engine without Python in the way.

mod benchmark_file;

use odtree_core::{Budget, CacheKind, MemoryLimits, SearchConfig, Solver, WipeStrategy};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: solve_file PATH DEPTH");
    let depth: u32 = args.next().and_then(|d| d.parse().ok()).unwrap_or(3);
    let cache = match args.next().as_deref() {
        Some("hash") => CacheKind::Hash,
        Some("dataset") => CacheKind::Dataset,
        _ => CacheKind::Trie,
    };
    let lexicographic = args.next().as_deref() == Some("lexicographic");
    let max_entries = args.next().and_then(|n| n.parse().ok());
    let strategy = match args.next().as_deref() {
        Some("descendants") => WipeStrategy::Descendants,
        Some("all") => WipeStrategy::All,
        _ => WipeStrategy::Reuses,
    };
    let defaults = MemoryLimits::default();
    let wipe_factor = args
        .next()
        .and_then(|f| f.parse().ok())
        .unwrap_or(defaults.wipe_factor);
    let data = benchmark_file::read(&path);
    let config = SearchConfig {
        max_depth: depth,
        cache,
        lexicographic,
        memory: MemoryLimits {
            max_entries,
            strategy,
            wipe_factor,
            ..defaults
        },
        ..SearchConfig::default()
    };
    let solution = Solver::new(data)
        .solve(&config, None, Budget::default())
        .expect("solved");
    println!(
        "objective {} status {:?} entries {} created {} wipes {} repaired {} seconds {:.3}",
        solution.objective,
        solution.status,
        solution.cache.entries,
        solution.cache.created,
        solution.cache.wipes,
        solution.cache.repaired,
        solution.seconds
    );
}
