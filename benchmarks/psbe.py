"""PSBE against SBE (Ruggieri, ICML 2017, Table 1): the time of a feature selection and the
cross-validation error of the tree grown on the selected columns.

Protocol (spec A.9): stratified 10-fold cross-validation, repeated ``--repeats`` times. In
each fold, ``DistinctTreeSelector`` (information gain, ``min_cases=2``) splits the training
rows 70/30 into building and search rows and eliminates columns, once with PSBE and once
with SBE; the CV error is the error, on the held-out fold, of the tree grown on the whole
training part with the selected columns. Times are seconds per selection, averaged over the
folds. A method that reaches ``--time-limit`` in some fold is shown as ``>limit``, and its
errors then come from the subsets accepted until then. Prints a Markdown table and writes a
CSV.

Example::

    ODTREE_DATA=/work/shared/datasets python benchmarks/psbe.py --repeats 1 --csv psbe.csv
"""

from __future__ import annotations

import argparse
import csv

import numpy as np

SETS = "breast_cancer,wine,digits,ionosphere,anneal,madelon"


def load(name):
    """scikit-learn's sets, a shared benchmark set, or the Madelon-like generated set."""
    from sklearn import datasets

    if name == "madelon":
        return datasets.make_classification(n_samples=2600, n_features=500, n_informative=5,
                                            n_redundant=15, random_state=0)
    if name in ("breast_cancer", "wine", "digits"):
        return getattr(datasets, f"load_{name}")(return_X_y=True)
    from odtree.datasets import load_benchmark

    return load_benchmark(name)


def run(name, repeats, time_limit, max_folds):
    """One row of the table: mean seconds and CV errors (mean, std) of both methods."""
    from odtree import DistinctTreeSelector
    from sklearn.model_selection import StratifiedKFold

    X, y = load(name)
    row = {"dataset": name, "rows": len(y), "features": X.shape[1]}
    for method in ("sbe", "psbe"):
        seconds, errors, timed_out, built, selected = [], [], False, [], []
        for repeat in range(repeats):
            folds = StratifiedKFold(10, shuffle=True, random_state=repeat)
            for fold, (train, test) in enumerate(folds.split(X, y)):
                if fold == max_folds:
                    break
                selector = DistinctTreeSelector(method=method, random_state=10 * repeat + fold,
                                                time_limit=time_limit)
                selector.fit(X[train], y[train])
                predicted = selector.estimator_.predict(selector.transform(X[test]))
                seconds.append(selector.fit_time_)
                errors.append(float(np.mean(predicted != y[test])))
                timed_out |= selector.stopped_ is not None
                built.append(selector.n_trees_built_)
                selected.append(int(selector.support_.sum()))
        row[f"{method}_seconds"] = float(np.mean(seconds))
        row[f"{method}_timed_out"] = timed_out
        row[f"{method}_error"] = float(np.mean(errors))
        row[f"{method}_error_std"] = float(np.std(errors))
        row[f"{method}_trees"] = float(np.mean(built))
        row[f"{method}_selected"] = float(np.mean(selected))
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=SETS)
    parser.add_argument("--repeats", type=int, default=5,
                        help="repetitions of the 10-fold cross-validation (the paper: 5)")
    parser.add_argument("--time-limit", type=float, default=600.0,
                        help="seconds allowed to one selection")
    parser.add_argument("--max-folds", type=int, default=10,
                        help="run only the first folds of each repetition (for slow sets)")
    parser.add_argument("--csv", default=None, help="also write the rows to this CSV file")
    args = parser.parse_args()

    rows = []
    print("| dataset | features | SBE s | PSBE s | speed-up | CV error SBE % | "
          "CV error PSBE % |")
    print("|---|---|---|---|---|---|---|")
    for name in args.datasets.split(","):
        row = run(name, args.repeats, args.time_limit, args.max_folds)
        rows.append(row)
        sbe = (f">{args.time_limit:g}" if row["sbe_timed_out"] else
               f"{row['sbe_seconds']:.3f}")
        psbe = (f">{args.time_limit:g}" if row["psbe_timed_out"] else
                f"{row['psbe_seconds']:.3f}")
        speedup = row["sbe_seconds"] / max(row["psbe_seconds"], 1e-9)
        speedup = f">{speedup:.0f}x" if row["sbe_timed_out"] else f"{speedup:.1f}x"
        print(f"| {name} | {row['features']} | {sbe} | {psbe} | {speedup} | "
              f"{100 * row['sbe_error']:.2f} ± {100 * row['sbe_error_std']:.2f} | "
              f"{100 * row['psbe_error']:.2f} ± {100 * row['psbe_error_std']:.2f} |", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
