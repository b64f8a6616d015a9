"""The best tree within a time limit over every threshold of real-valued columns: odtree's
exact search against scikit-learn's CART and pytrees-rs's anytime ConTree
(``ConTreeClassifier(use_lds=True)``), one fit at a time in one run, on the sets of
``continuous/`` in the benchmark directory.

Each cell is the training errors (and, for the searches, the seconds); ``*`` marks a search
stopped by the limit. The last lines count the sets where odtree's tree has at most as many
errors as each other's::

    python benchmarks/continuous_anytime.py --depths 4,5 --time-limit 10

Needs the bench extra (``pip install ".[bench]"``) for pytrees-rs.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from odtree.datasets import list_continuous, load_continuous


def fit_odtree(X, y, depth, time_limit):
    from odtree import OptimalTreeClassifier

    model = OptimalTreeClassifier(max_depth=depth, thresholds="exact", time_limit=time_limit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model.fit(X, y)
    return int(np.sum(model.predict(X) != y)), time.perf_counter() - start, model.optimal_


def fit_cart(X, y, depth, time_limit):
    from sklearn.tree import DecisionTreeClassifier

    start = time.perf_counter()
    model = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
    return int(np.sum(model.predict(X) != y)), time.perf_counter() - start, False


def fit_lds(X, y, depth, time_limit):
    from pytrees import ConTreeClassifier

    model = ConTreeClassifier(max_depth=depth, max_time=time_limit, use_lds=True)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    return int(np.sum(model.predict(X) != y)), seconds, model.status_ != "time_limit"


SOLVERS = {"odtree": fit_odtree, "cart": fit_cart, "pytrees-lds": fit_lds}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=None,
                        help="comma-separated set names (default: every continuous set)")
    parser.add_argument("--depths", default="4,5")
    parser.add_argument("--time-limit", type=float, default=10.0)
    args = parser.parse_args(argv)
    names = args.sets.split(",") if args.sets else list_continuous()
    print(f"{'set':<11} {'rows':>6} {'cols':>4} {'depth':>5}  "
          + "  ".join(f"{s:>16}" for s in SOLVERS))
    wins = {other: 0 for other in SOLVERS if other != "odtree"}
    count = 0
    for depth in map(int, args.depths.split(",")):
        for name in names:
            X, y = load_continuous(name)
            errors, cells = {}, []
            for solver, fit in SOLVERS.items():
                errors[solver], seconds, proved = fit(X, y, depth, args.time_limit)
                cells.append(f"{errors[solver]:>6} {seconds:7.2f} s{'' if proved else '*'}")
            count += 1
            for other in wins:
                wins[other] += errors["odtree"] <= errors[other]
            print(f"{name:<11} {X.shape[0]:>6} {X.shape[1]:>4} {depth:>5}  "
                  + "  ".join(f"{c:>16}" for c in cells), flush=True)
    for other, won in wins.items():
        print(f"odtree has at most {other}'s training errors on {won} of {count} fits")


if __name__ == "__main__":
    main()
