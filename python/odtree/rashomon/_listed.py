"""The listed trees of a Rashomon set, kept as the flat arrays the search returns."""

from __future__ import annotations

import numpy as np


def _integers(values) -> np.ndarray:
    """``values`` as an array of integers: as they are if they are, else as 64-bit ones."""
    values = np.asarray(values)
    return values if values.dtype.kind in "iu" else values.astype(np.int64)


class Listed:
    """The listed trees, one after another: ``codes`` (each tree in pre-order, a split as its
    feature, a leaf as ``-1 - class``), ``stats`` (a row of node statistics per node) and
    ``rows`` (each node's rows), with ``starts[i]`` where tree ``i`` begins. Indexing gives a
    tree's ``(codes, stats, rows)`` as views; slicing gives the ``Listed`` of those trees.
    Arrays of integers are kept in their own integer type (the search's rows are 32-bit), not
    copied."""

    def __init__(self, sizes, codes, stats, rows, n_stats: int):
        self.starts = np.concatenate(([0], np.cumsum(sizes, dtype=np.int64)))
        self.codes = _integers(codes)
        self.stats = np.asarray(stats, dtype=np.float64).reshape(len(self.codes), n_stats)
        self.rows = _integers(rows)
        if len(self.rows) != len(self.codes) or self.starts[-1] != len(self.codes):
            raise ValueError("the listed trees' sizes, codes and rows disagree")

    @classmethod
    def of_trees(cls, trees: list, n_stats: int) -> Listed:
        """The ``Listed`` of ``(codes, stats, rows)`` triples."""
        parts = list(zip(*trees, strict=True)) or [(), (), ()]
        return cls([len(codes) for codes in parts[0]],
                   np.concatenate(parts[0]) if trees else [],
                   np.concatenate(parts[1]) if trees else np.empty((0, n_stats)),
                   np.concatenate(parts[2]) if trees else [], n_stats)

    def __len__(self) -> int:
        return len(self.starts) - 1

    def __getitem__(self, index):
        if isinstance(index, slice):
            first, stop, step = index.indices(len(self))
            if step != 1:
                raise ValueError("listed trees slice with step 1 only")
            stop = max(stop, first)
            at = slice(self.starts[first], self.starts[stop])
            return Listed(np.diff(self.starts[first:stop + 1]), self.codes[at],
                          self.stats[at], self.rows[at], self.stats.shape[1])
        index = range(len(self))[index]
        at = slice(self.starts[index], self.starts[index + 1])
        return self.codes[at], self.stats[at], self.rows[at]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def tests(self, columns: np.ndarray, n_columns: int) -> np.ndarray:
        """Whether each tree tests each input column (``columns``: each feature's column): a
        boolean array of shape (n_trees, n_columns)."""
        tree = np.repeat(np.arange(len(self)), np.diff(self.starts))
        split = self.codes >= 0
        out = np.zeros((len(self), n_columns), dtype=bool)
        out[tree[split], columns[self.codes[split]]] = True
        return out
