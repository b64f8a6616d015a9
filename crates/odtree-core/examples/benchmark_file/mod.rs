//! Reading a benchmark file for the examples: one row per line, the class first, then the 0/1
//! features, separated by spaces.

use odtree_core::Dataset;

/// The dataset of the benchmark file at `path`; panics on a file that is not one.
pub fn read(path: &str) -> Dataset {
    let text = std::fs::read_to_string(path).expect("readable file");
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
    Dataset::new(&features, rows.len(), &labels, n_classes).expect("valid data")
}
