"""OptimalTreeCV against GridSearchCV over the same grid, and pystreed's hyper_tune (issue 18).

On each dataset, the grid of ``max_depth`` in ``--depths`` and ``max_leaf_nodes`` in
``--leaves`` is cross-validated (5-fold StratifiedKFold without shuffling, accuracy) by
``odtree.OptimalTreeCV`` and by ``GridSearchCV(OptimalTreeClassifier(), grid)``, both on one
core and both refitting the best point on all the data. The script checks that both select
the same parameters with the same cross-validated scores (exit status 1 if not). pystreed's
``STreeDClassifier(hyper_tune=True, max_depth=<largest depth>)`` tunes the number of
branching nodes with its own 5-fold validation (other folds, other candidates), so its choice
is reported as the size of the tree it returns, for comparison only. Times are the best of
``--repeat`` runs.

Examples::

    python benchmarks/tuning.py
    python benchmarks/tuning.py --datasets vote,anneal --depths 1,2,3,4 --repeat 1
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from pathlib import Path

import numpy as np
from _solvers import load_dataset
from compare import add_data_dir_option, check_datasets, dataset_path

DEFAULT_DATASETS = "anneal,australian-credit,heart-cleveland,hepatitis,vote"


def best_time(make, X, y, repeat: int):
    """``make()`` fitted on ``(X, y)``, and the least wall time of the fit over ``repeat``
    fits."""
    best, result = math.inf, None
    for _ in range(repeat):
        estimator = make()
        start = time.perf_counter()
        result = estimator.fit(X, y)
        best = min(best, time.perf_counter() - start)
    return result, best


def params_cell(params: dict) -> str:
    return f"d={params['max_depth']}, k={params.get('max_leaf_nodes')}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=DEFAULT_DATASETS)
    parser.add_argument("--depths", default="1,2,3")
    parser.add_argument("--leaves", default="2,3,4,5,6,7,8")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--csv", type=Path, default=Path("tuning.csv"))
    add_data_dir_option(parser)
    args = parser.parse_args(argv)
    names = args.datasets.split(",")
    check_datasets(parser, args.data_dir, names)

    from odtree import OptimalTreeClassifier, OptimalTreeCV
    from pystreed import STreeDClassifier
    from sklearn.model_selection import GridSearchCV

    depths = [int(d) for d in args.depths.split(",")]
    leaves = [int(k) for k in args.leaves.split(",")]
    grid = {"max_depth": depths, "max_leaf_nodes": leaves}
    n_points = len(depths) * len(leaves)
    print(f"grid: max_depth in {depths} x max_leaf_nodes in {leaves} ({n_points} points), "
          f"5-fold CV, n_jobs=1, best of {args.repeat} runs")
    print("| dataset | rows x features | OptimalTreeCV choice | GridSearchCV choice | "
          "CV accuracy | searches (CV / grid) | OptimalTreeCV s | GridSearchCV s | speed-up | "
          "pystreed hyper_tune s | pystreed tree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rows, agree = [], True
    for name in names:
        X, y = load_dataset(dataset_path(args.data_dir, name))
        search, search_s = best_time(
            lambda: OptimalTreeCV(depths=depths, max_leaf_nodes=leaves, cv=5), X, y,
            args.repeat)
        reference, reference_s = best_time(
            lambda: GridSearchCV(OptimalTreeClassifier(), grid, cv=5), X, y, args.repeat)
        same = (search.best_params_ == reference.best_params_ and all(
            np.array_equal(search.cv_results_[f"split{i}_test_score"],
                           reference.cv_results_[f"split{i}_test_score"]) for i in range(5)))
        if not same:
            agree = False
            print(f"DISAGREE on {name}: {search.best_params_} vs {reference.best_params_}",
                  file=sys.stderr)
        streed, streed_s = best_time(
            lambda: STreeDClassifier(max_depth=max(depths), hyper_tune=True, time_limit=1e9),
            X, y, args.repeat)
        streed_tree = f"d={streed.get_depth()}, k={streed.get_n_leaves()}"
        row = {
            "dataset": name, "rows": X.shape[0], "features": X.shape[1],
            "odtree_cv_params": params_cell(search.best_params_),
            "grid_search_params": params_cell(reference.best_params_),
            "same": same, "cv_accuracy": search.best_score_,
            "searches": search.n_searches_, "grid_fits": n_points * search.n_splits_,
            "odtree_cv_s": search_s, "grid_search_s": reference_s,
            "speedup": reference_s / search_s,
            "pystreed_s": streed_s, "pystreed_tree": streed_tree,
        }
        rows.append(row)
        print(f"| {name} | {X.shape[0]} x {X.shape[1]} | {row['odtree_cv_params']} | "
              f"{row['grid_search_params']} | {row['cv_accuracy']:.4f} | "
              f"{row['searches']} / {row['grid_fits']} | {search_s:.3f} | {reference_s:.3f} | "
              f"{row['speedup']:.1f}x | {streed_s:.3f} | {streed_tree} |", flush=True)
    mean = math.exp(sum(math.log(row["speedup"]) for row in rows) / len(rows))
    print(f"\ngeometric mean speed-up over GridSearchCV: {mean:.1f}x; same choices and "
          f"scores: {agree}")
    with open(args.csv, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
