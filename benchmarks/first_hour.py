"""What a new user meets in the first hour, timed: importing odtree, the README's fits, a
perfect tree that used to be proved twice, and cross-validation on integer data.

Run it once for each build to compare, one after the other on the same machine, and compare
ratios (these machines are shared)::

    python benchmarks/first_hour.py                       # the installed odtree
    PYTHONPATH=/path/to/other/python python benchmarks/first_hour.py

Every fit runs on data that ships with scikit-learn (no download).
"""

from __future__ import annotations

import subprocess
import sys
import time
import warnings

import numpy as np


def import_seconds(repeats: int = 3) -> float:
    """The least wall time of ``import odtree`` in a fresh interpreter, less Python's own start."""
    def run(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - start
    bare = min(run("pass") for _ in range(repeats))
    return min(run("import odtree") for _ in range(repeats)) - bare


def timed_fit(make, X, y):
    """(seconds, objective, status) of one fit, warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model = make().fit(X, y)
        return time.perf_counter() - start, model.objective_, model.status_


def main() -> None:
    from odtree import OptimalTreeClassifier
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.model_selection import cross_val_score

    print(f"{'case':<62}  {'seconds':>8}  {'objective':>10}  status")
    print(f"{'-' * 62}  {'-' * 8}  {'-' * 10}  {'-' * 10}")
    print(f"{'import odtree (fresh interpreter, less bare Python)':<62}  "
          f"{import_seconds():8.3f}  {'-':>10}  -")
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    cases = {
        "breast cancer, depth 3 (README)": dict(max_depth=3),
        "breast cancer, depth 5 (a perfect tree exists)": dict(max_depth=5),
        "breast cancer, depth 5, time_limit=60": dict(max_depth=5, time_limit=60),
        "breast cancer, depth 3, 6 leaves, ccp_alpha 0.002 (README)":
            dict(max_depth=3, max_leaf_nodes=6, ccp_alpha=0.002),
        "breast cancer, depth 4, 8 leaves, ccp_alpha 0.002 (old README)":
            dict(max_depth=4, max_leaf_nodes=8, ccp_alpha=0.002),
    }
    for name, params in cases.items():
        seconds, objective, status = timed_fit(lambda p=params: OptimalTreeClassifier(**p), X, y)
        print(f"{name:<62}  {seconds:8.2f}  {objective:10.4g}  {status}")
    X, y = load_digits(return_X_y=True)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = cross_val_score(OptimalTreeClassifier(max_depth=2), X, y, cv=5)
    finite = int(np.isfinite(scores).sum())
    print(f"{'digits, cross_val_score depth 2, 5 folds (finite folds)':<62}  "
          f"{time.perf_counter() - start:8.2f}  {f'{finite} of 5':>10}  "
          f"mean {np.nanmean(scores):.3f}")


if __name__ == "__main__":
    main()
