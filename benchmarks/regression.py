"""Race odtree's squared-error regression tree against pystreed's on the same 0/1 features.

The data need no download: scikit-learn's diabetes set and ``make_friedman1``, each binarized
once with ``odtree.Binarizer``. Both solvers get that matrix, and each fit's time is the
fastest of ``--repeats`` fits in this process. The script checks that both prove the same sum
of squared errors (pystreed's from its training predictions) and exits with status 1 if not.

Examples::

    python benchmarks/regression.py
    python benchmarks/regression.py --depths 2,3 --friedman-rows 500 --repeats 3
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from functools import partial

import numpy as np
from sklearn.datasets import load_diabetes, make_friedman1


def fastest(make, X, y, repeats: int):
    """The time of the fastest of ``repeats`` fits of ``make()`` on (X, y), and its model."""
    best = (math.inf, None)
    for _ in range(repeats):
        model = make()
        start = time.perf_counter()
        model.fit(X, y)
        best = min(best, (time.perf_counter() - start, model), key=lambda pair: pair[0])
    return best


def add_data_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that shape the data: thresholds per column, rows of friedman1."""
    parser.add_argument("--thresholds", type=int, default=10,
                        help="thresholds per column of the binarizer (default: 10)")
    parser.add_argument("--friedman-rows", type=int, default=2000, dest="friedman_rows",
                        help="rows of make_friedman1 (default: 2000)")


def regression_sets(args: argparse.Namespace) -> dict:
    """The two data sets by name, each ``(X, y)`` with numeric columns."""
    return {
        "diabetes": load_diabetes(return_X_y=True),
        f"friedman1 ({args.friedman_rows} rows)": make_friedman1(
            n_samples=args.friedman_rows, random_state=0),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depths", default="3,4", help="comma-separated depths (default: 3,4)")
    add_data_arguments(parser)
    parser.add_argument("--repeats", type=int, default=2, help="fits per solver (default: 2)")
    args = parser.parse_args(argv)

    from odtree import Binarizer, OptimalTreeRegressor
    from pystreed import STreeDRegressor

    sets = regression_sets(args)
    print("| data | binary features | depth | odtree s | pystreed s | ratio |")
    print("|---|---|---|---|---|---|")
    agree = True
    for name, (X, y) in sets.items():
        binary = Binarizer(n_thresholds=args.thresholds).fit(X).transform(X).astype(np.int64)
        for depth in (int(d) for d in args.depths.split(",")):
            ours_s, ours = fastest(partial(OptimalTreeRegressor, max_depth=depth), binary, y,
                                   args.repeats)
            peer_s, peer = fastest(partial(
                STreeDRegressor, optimization_task="regression", max_depth=depth,
                max_num_nodes=None, min_leaf_node_size=1, cost_complexity=0.0), binary, y,
                args.repeats)
            peer_sse = float(np.sum((peer.predict(binary) - y) ** 2))
            if abs(ours.objective_ - peer_sse) > 1e-9 * max(1.0, peer_sse):
                agree = False
                print(f"DISAGREE {name} depth {depth}: odtree {ours.objective_} "
                      f"pystreed {peer_sse}", file=sys.stderr)
            print(f"| {name} | {binary.shape[1]} | {depth} | {ours_s:.3g} | {peer_s:.3g} | "
                  f"{ours_s / peer_s:.2f} |")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
