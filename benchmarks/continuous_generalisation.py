"""Do optimal trees over every threshold predict unseen rows better than CART? Five-fold test
accuracy of odtree's exact search (``thresholds="exact"``) and scikit-learn's CART at the
same depth, on the sets of ``continuous/`` in the benchmark directory and scikit-learn's
breast cancer set.

Each cell is the mean test accuracy over the folds (the same stratified folds for both);
``odtree proved`` counts the folds whose search finished within the limit::

    python benchmarks/continuous_generalisation.py --depths 2,3 --time-limit 10
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from odtree.datasets import list_continuous, load_continuous
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier


def load(name):
    if name == "breast-cancer":
        return load_breast_cancer(return_X_y=True)
    return load_continuous(name)


def main(argv=None) -> None:
    from odtree import OptimalTreeClassifier

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=None,
                        help="comma-separated set names (default: all, and breast-cancer)")
    parser.add_argument("--depths", default="2,3")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args(argv)
    names = args.sets.split(",") if args.sets else [*list_continuous(), "breast-cancer"]
    print(f"{'set':<14} {'depth':>5} {'CART':>7} {'odtree':>7} {'odtree proved':>14}")
    for depth in map(int, args.depths.split(",")):
        for name in names:
            X, y = load(name)
            folds = StratifiedKFold(args.folds, shuffle=True, random_state=0).split(X, y)
            cart, exact, proved = [], [], 0
            for train, test in folds:
                tree = DecisionTreeClassifier(max_depth=depth, random_state=0)
                cart.append(tree.fit(X[train], y[train]).score(X[test], y[test]))
                model = OptimalTreeClassifier(max_depth=depth, thresholds="exact",
                                              time_limit=args.time_limit)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(X[train], y[train])
                exact.append(model.score(X[test], y[test]))
                proved += bool(model.optimal_)
            print(f"{name:<14} {depth:>5} {np.mean(cart):7.3f} {np.mean(exact):7.3f} "
                  f"{proved:>9} of {args.folds}", flush=True)


if __name__ == "__main__":
    main()
