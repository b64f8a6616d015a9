"""F1-score and balanced accuracy trees over every threshold of real-valued columns, against
the same criterion on the quantile grid: the training metric and the seconds of each, one fit
at a time, on the two-class sets of ``continuous/`` in the benchmark directory. ``*`` marks a
fit stopped by the time limit (its tree is the best found, not proved). Prints a Markdown
table::

    python benchmarks/f1_thresholds.py --depths 2,3 --time-limit 60
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from odtree import OptimalTreeClassifier
from odtree.datasets import list_continuous, load_continuous


def fit(X, y, depth, criterion, thresholds, time_limit):
    """The training metric, the seconds and whether it was proven, of one fit."""
    model = OptimalTreeClassifier(max_depth=depth, criterion=criterion, thresholds=thresholds,
                                  time_limit=time_limit)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    return model.objective_, time.perf_counter() - start, model.optimal_


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=None, help="comma-separated (default: the two-class "
                        "sets of continuous/)")
    parser.add_argument("--depths", default="2,3")
    parser.add_argument("--criteria", default="f1,balanced_accuracy")
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args(argv)
    names = args.sets.split(",") if args.sets else list_continuous()
    print("| set | rows | criterion | depth | grid | grid s | every threshold | s | gain |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in names:
        X, y = load_continuous(name)
        if len(np.unique(y)) != 2:
            continue
        for criterion in args.criteria.split(","):
            for depth in map(int, args.depths.split(",")):
                grid = fit(X, y, depth, criterion, "quantile", args.time_limit)
                exact = fit(X, y, depth, criterion, "exact", args.time_limit)
                cells = [f"{value:.4f}{'' if proven else '*'} | {seconds:.2f}"
                         for value, seconds, proven in (grid, exact)]
                print(f"| {name} | {len(y)} | {criterion} | {depth} | {cells[0]} | "
                      f"{cells[1]} | {exact[0] - grid[0]:+.4f} |", flush=True)


if __name__ == "__main__":
    main()
