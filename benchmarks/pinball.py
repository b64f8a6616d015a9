"""Time the pinball losses (absolute error, one quantile, several quantiles) against squared error.

The data are those of ``benchmarks/regression.py``: scikit-learn's diabetes set and
``make_friedman1``, each binarized once with ``odtree.Binarizer``. No peer fits these losses
(pystreed's regression is squared error), so each fit is timed against odtree's own
squared-error fit of the same depth, in the same run: ``ratio`` is the loss's time over squared
error's. Each time is the fastest of ``--repeats`` fits in this process. A fit that stops at
``--time-limit`` is marked ``>``; ``objective`` is the proven optimum, so that two builds'
runs can be checked against each other.

Examples::

    python benchmarks/pinball.py
    python benchmarks/pinball.py --depths 2,3 --friedman-rows 500 --repeats 3
"""

from __future__ import annotations

import argparse
import sys
from functools import partial

import numpy as np
from regression import add_data_arguments, fastest, regression_sets

#: The losses timed: (label, regressor keywords).
LOSSES = [
    ("squared error", {"criterion": "squared_error"}),
    ("absolute error", {"criterion": "absolute_error"}),
    ("quantile 0.9", {"criterion": "quantile", "quantile": 0.9}),
    ("quantiles 0.1, 0.5, 0.9", {"criterion": "quantile", "quantiles": [0.1, 0.5, 0.9]}),
]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depths", default="2,3,4", help="comma-separated depths (default: 2,3,4)")
    add_data_arguments(parser)
    parser.add_argument("--repeats", type=int, default=2, help="fits per loss (default: 2)")
    parser.add_argument("--time-limit", type=float, default=120.0, dest="time_limit",
                        help="seconds per fit (default: 120)")
    args = parser.parse_args(argv)

    from odtree import Binarizer, OptimalTreeRegressor

    sets = regression_sets(args)
    print("| data | depth | loss | seconds | ratio to squared error | objective |")
    print("|---|---|---|---|---|---|")
    for name, (X, y) in sets.items():
        binary = Binarizer(n_thresholds=args.thresholds).fit(X).transform(X).astype(np.int64)
        for depth in (int(d) for d in args.depths.split(",")):
            reference = None
            for label, keywords in LOSSES:
                seconds, model = fastest(
                    partial(OptimalTreeRegressor, max_depth=depth, time_limit=args.time_limit,
                            **keywords),
                    binary, y, args.repeats)
                reference = reference or seconds
                mark = "" if model.optimal_ else ">"
                print(f"| {name} | {depth} | {label} | {mark}{seconds:.3g} | "
                      f"{seconds / reference:.1f} | {model.objective_:.6g} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
