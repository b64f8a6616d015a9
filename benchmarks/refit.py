"""Refits of one kept Solver against fresh estimator fits (issue 13).

On each dataset, the same 50 random weight vectors (seed 0, uniform in [0.5, 1.5]) are solved
twice at depth ``--depth``: with one ``odtree.Solver`` built once, and with a fresh
``OptimalTreeClassifier`` fitted per vector (validation, binarization and building the solver
every time, as boosting without a kept solver would). The total times are compared, and the
script checks that both give the same optimum each time (exit status 1 if not).

Examples::

    python benchmarks/refit.py
    python benchmarks/refit.py --datasets vote,anneal --refits 20 --depth 2
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from _solvers import load_dataset
from compare import add_data_dir_option, check_datasets, dataset_path
from objectives import DEFAULT_DATASETS


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=DEFAULT_DATASETS)
    parser.add_argument("--refits", type=int, default=50)
    parser.add_argument("--depth", type=int, default=3)
    add_data_dir_option(parser)
    args = parser.parse_args(argv)
    check_datasets(parser, args.data_dir, args.datasets.split(","))

    from odtree import OptimalTreeClassifier, Solver

    print(f"depth {args.depth}, {args.refits} weight vectors per dataset")
    print("| dataset | kept Solver s | fresh estimators s | ratio |")
    print("|---|---|---|---|")
    agree, ratios = True, []
    for name in args.datasets.split(","):
        X, y = load_dataset(dataset_path(args.data_dir, name))
        rng = np.random.default_rng(0)
        weights = [rng.uniform(0.5, 1.5, size=len(y)) for _ in range(args.refits)]
        start = time.perf_counter()
        solver = Solver(X, y)
        kept = [solver.solve(w, max_depth=args.depth).objective for w in weights]
        kept_s = time.perf_counter() - start
        start = time.perf_counter()
        fresh = [OptimalTreeClassifier(max_depth=args.depth).fit(X, y, sample_weight=w).objective_
                 for w in weights]
        fresh_s = time.perf_counter() - start
        if not np.allclose(kept, fresh, rtol=1e-9):
            agree = False
            print(f"DISAGREE {name}: {kept} vs {fresh}", file=sys.stderr)
        ratios.append(kept_s / fresh_s)
        print(f"| {name} | {kept_s:.3f} | {fresh_s:.3f} | {ratios[-1]:.3f} |", flush=True)
    mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean ratio (kept / fresh): {mean:.3f}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
