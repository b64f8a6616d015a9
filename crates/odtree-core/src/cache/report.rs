//! What a cache held and did (spec §6 and §7): the counters of its life, and the report a
//! solution carries, with each figure's name in the bindings.

/// Counters of a cache's life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Most keys held at once.
    pub peak_keys: usize,
    /// Most bytes held at once.
    pub peak_bytes: usize,
    /// Number of wipes.
    pub wipes: usize,
    /// Keys created, counting those created again after a wipe.
    pub created: usize,
}

/// What a cache held and did during one search, as reported with its solution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheReport {
    /// Keys at the end.
    pub entries: usize,
    /// Bytes at the end.
    pub bytes: usize,
    /// Most keys held at once.
    pub peak_entries: usize,
    /// Most bytes held at once.
    pub peak_bytes: usize,
    /// Number of wipes.
    pub wipes: usize,
    /// Keys created, counting those created again after a wipe.
    pub created: usize,
    /// Wiped subtrees of the best tree solved again after the search (spec §6.9).
    pub repaired: usize,
    /// Keys held at the start: kept from the last search of a [`Solver`](crate::Solver) on
    /// the same objective, weights and rules.
    pub kept: usize,
}

impl CacheReport {
    /// The name of each figure in the bindings, in the order of [`CacheReport::fields`]: the
    /// one list of them.
    pub const FIGURES: [&'static str; 8] = [
        "cache_entries",
        "cache_bytes",
        "cache_peak_entries",
        "cache_peak_bytes",
        "n_wipes",
        "cache_created_entries",
        "repaired",
        "cache_kept_entries",
    ];

    /// Each figure with its name in the bindings.
    pub fn fields(&self) -> [(&'static str, usize); 8] {
        let values = [
            self.entries,
            self.bytes,
            self.peak_entries,
            self.peak_bytes,
            self.wipes,
            self.created,
            self.repaired,
            self.kept,
        ];
        std::array::from_fn(|i| (Self::FIGURES[i], values[i]))
    }
}
