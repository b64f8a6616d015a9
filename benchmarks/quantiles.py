"""Several quantile trees: one shared search against one search per quantile (issue 5).

On each dataset the target is the class index plus Gaussian noise (seed 0), so quantiles
differ. ``OptimalTreeRegressor(criterion="quantile", quantiles=Q)`` fits every quantile in one
search; the baseline fits ``OptimalTreeRegressor(criterion="quantile", quantile=q)`` for each q
in turn. The one search also runs without its depth-2 solver (``depth2_solver=False``), to
show what that solver saves. Times are the fastest of ``--repeats``. The script checks that
all three give the same optimum per quantile and exits with status 1 if not.

Examples::

    python benchmarks/quantiles.py
    python benchmarks/quantiles.py --datasets vote,anneal --quantiles 0.05,0.5,0.95 --depth 2
"""

from __future__ import annotations

import argparse
import math
import sys
from functools import partial

import numpy as np
from _solvers import load_dataset
from compare import add_data_dir_option, check_datasets, dataset_path
from objectives import DEFAULT_DATASETS
from regression import fastest


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=DEFAULT_DATASETS)
    parser.add_argument("--quantiles", default="0.1,0.25,0.5,0.75,0.9")
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    add_data_dir_option(parser)
    args = parser.parse_args(argv)
    check_datasets(parser, args.data_dir, args.datasets.split(","))

    from odtree import OptimalTreeRegressor

    quantiles = [float(q) for q in args.quantiles.split(",")]
    print(f"depth {args.depth}, quantiles {quantiles}, fastest of {args.repeats}")
    print("| dataset | one search s | one per quantile s | ratio | one search, no depth-2 s "
          "| depth-2 ratio |")
    print("|---|---|---|---|---|---|")
    agree, ratios, depth2_ratios = True, [], []
    for name in args.datasets.split(","):
        X, y = load_dataset(dataset_path(args.data_dir, name))
        target = y + np.random.default_rng(0).normal(size=len(y))
        joint_s, joint = fastest(partial(OptimalTreeRegressor, max_depth=args.depth,
                                         criterion="quantile", quantiles=quantiles),
                                 X, target, args.repeats)
        plain_s, plain = fastest(partial(OptimalTreeRegressor, max_depth=args.depth,
                                         criterion="quantile", quantiles=quantiles,
                                         depth2_solver=False),
                                 X, target, args.repeats)
        alone_s = 0.0
        for k, q in enumerate(quantiles):
            seconds, alone = fastest(partial(OptimalTreeRegressor, max_depth=args.depth,
                                             criterion="quantile", quantile=q),
                                     X, target, args.repeats)
            alone_s += seconds
            for other in (joint.objectives_[k], plain.objectives_[k]):
                if abs(alone.objective_ - other) > 1e-9 * max(1.0, alone.objective_):
                    agree = False
                    print(f"DISAGREE {name} q={q}: {other} vs {alone.objective_}",
                          file=sys.stderr)
        ratios.append(joint_s / alone_s)
        depth2_ratios.append(joint_s / plain_s)
        print(f"| {name} | {joint_s:.3g} | {alone_s:.3g} | {joint_s / alone_s:.2f} "
              f"| {plain_s:.3g} | {joint_s / plain_s:.2f} |")
    print(f"geometric mean ratio, one search / one per quantile: "
          f"{math.exp(np.mean(np.log(ratios))):.2f}")
    print(f"geometric mean ratio, with / without the depth-2 solver: "
          f"{math.exp(np.mean(np.log(depth2_ratios))):.2f}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
