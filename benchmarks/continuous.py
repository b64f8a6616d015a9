"""Exact trees over every threshold of real-valued columns: odtree against pycontree (ConTree)
and pytrees-rs's ``ConTreeClassifier``, one fit at a time in one run, on the real-valued sets
of ``continuous/`` in the benchmark directory.

Each cell is the training errors and the seconds of one fit; ``*`` marks a fit stopped by the
time limit (its tree is the best found, not proved). odtree runs twice: with
``thresholds="midpoints"`` (every threshold as a 0/1 feature: exact over the raw columns) and
with its default quantile grid (exact over the grid only)::

    python benchmarks/continuous.py --depths 2,3 --time-limit 30
    python benchmarks/continuous.py --sets bank,rice --depths 2 --solvers pycontree,midpoints

Needs the bench extra (``pip install ".[bench]"``) for the peers.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from odtree.datasets import list_continuous, load_continuous


def fit_pycontree(X, y, depth, time_limit):
    from pycontree import ConTree

    model = ConTree(max_depth=depth, time_limit=time_limit)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    return int(np.sum(model.predict(X) != y)), seconds, seconds < 0.99 * time_limit


def fit_pytrees(X, y, depth, time_limit):
    from pytrees import ConTreeClassifier

    model = ConTreeClassifier(max_depth=depth, max_time=time_limit)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    return int(np.sum(model.predict(X) != y)), seconds, model.status_ != "time_limit"


def fit_odtree(thresholds):
    def fit(X, y, depth, time_limit):
        from odtree import OptimalTreeClassifier

        model = OptimalTreeClassifier(max_depth=depth, time_limit=time_limit,
                                      thresholds=thresholds)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            model.fit(X, y)
            seconds = time.perf_counter() - start
        return int(np.sum(model.predict(X) != y)), seconds, bool(model.optimal_)
    return fit


SOLVERS = {
    "pycontree": fit_pycontree,
    "pytrees-rs": fit_pytrees,
    "midpoints": fit_odtree("midpoints"),
    "quantile": fit_odtree("quantile"),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=None,
                        help="comma-separated set names (default: every continuous set)")
    parser.add_argument("--depths", default="2,3")
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--solvers", default=",".join(SOLVERS),
                        help=f"comma-separated, among {', '.join(SOLVERS)}")
    args = parser.parse_args(argv)
    names = args.sets.split(",") if args.sets else list_continuous()
    solvers = args.solvers.split(",")
    print(f"{'set':<11} {'rows':>6} {'cols':>4} {'depth':>5}  "
          + "  ".join(f"{s:>16}" for s in solvers))
    for depth in map(int, args.depths.split(",")):
        for name in names:
            X, y = load_continuous(name)
            cells = []
            for solver in solvers:
                errors, seconds, proved = SOLVERS[solver](X, y, depth, args.time_limit)
                cells.append(f"{errors:>6} {seconds:7.2f} s{'' if proved else '*'}")
            print(f"{name:<11} {X.shape[0]:>6} {X.shape[1]:>4} {depth:>5}  "
                  + "  ".join(f"{c:>16}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
