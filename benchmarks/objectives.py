"""Time every objective against native misclassification on the same data and depth (issue 5).

Per dataset, each objective of ``OBJECTIVES`` fits a depth-``d`` tree on the 0/1 features:
the native classification objectives (misclassification, a cost matrix), the native regression
objectives on the class index as a float target (squared error, absolute error, the 0.9
quantile), and misclassification written as a Python callback, once on class weights
(``fast_error_function``) and once on row ids with numpy (``error_function``). Each fit runs in
a fresh process, killed after time limit + 30 s; a fit under 50 ms is repeated within its
process and the fastest kept, and ``--repeats`` starts that many processes per fit.

The fits go through the estimators (``OptimalTreeClassifier``, ``OptimalTreeRegressor``) when
odtree has them, else through ``odtree._core.Solver`` (``--api``). The callbacks compute
misclassification, so they must prove the same optimum as the native objective, and so must
absolute error on two classes (the median of 0/1 targets is the majority class). A
disagreement is a correctness bug: the script reports it and exits with status 1.

Examples::

    python benchmarks/objectives.py
    python benchmarks/objectives.py --datasets vote,anneal --objectives misclassification,quantile
    python benchmarks/objectives.py --repeats 3 --csv objectives.csv

See ``benchmarks/README.md`` for how to read the ratios.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np
from _solvers import MAX_REPEAT_SECONDS, MAX_REPEATS, REPEAT_BELOW_SECONDS, load_dataset
from compare import (
    OBJECTIVE_TOLERANCE,
    WORKER_FLAG,
    add_data_dir_option,
    check_datasets,
    dataset_path,
    format_line,
    geometric_mean,
    run_script_worker,
)

DEFAULT_DATASETS = "anneal,diabetes,german-credit,kr-vs-kp,vote"
#: The objectives, in table order; the first is the reference of the ratios.
OBJECTIVES = (
    "misclassification", "cost_matrix", "squared_error", "absolute_error", "quantile",
    "fast_error_function", "error_function",
)
REFERENCE = OBJECTIVES[0]
#: Objectives fitted by the regressor, on the class index as a float target.
REGRESSION = {"squared_error", "absolute_error", "quantile"}
#: Objectives that compute misclassification, whose optimum must be the reference's.
SAME_AS_REFERENCE = {"fast_error_function", "error_function"}
#: The quantile of the ``quantile`` objective.
QUANTILE = 0.9
#: First argument that turns this script into the worker that runs one fit.

CSV_COLUMNS = [
    "dataset", "depth", "objective", "api", "repeat", "status", "seconds", "runs", "value",
    "n_classes", "error",
]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line and check the datasets and objectives exist."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=DEFAULT_DATASETS,
                        help=f"comma-separated names (default: {DEFAULT_DATASETS})")
    parser.add_argument("--objectives", default=",".join(OBJECTIVES),
                        help=f"comma-separated, from {', '.join(OBJECTIVES)}; {REFERENCE} is "
                        "always run, as the reference (default: all)")
    parser.add_argument("--depth", type=int, default=3, help="maximum depth (default: 3)")
    parser.add_argument("--time-limit", type=float, default=300.0, dest="time_limit",
                        help="seconds per fit (default: 300)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="processes per fit; the fastest is kept (default: 1)")
    parser.add_argument("--api", choices=("auto", "estimators", "core"), default="auto",
                        help="fit through the estimators or odtree._core.Solver; auto: the "
                        "estimators when odtree has OptimalTreeRegressor (default: auto)")
    parser.add_argument("--csv", type=Path, help="also write one row per fit to this CSV file")
    add_data_dir_option(parser)
    args = parser.parse_args(argv)
    args.datasets = args.datasets.split(",")
    check_datasets(parser, args.data_dir, args.datasets)
    chosen = set(args.objectives.split(","))
    if chosen - set(OBJECTIVES):
        parser.error(f"unknown objective(s): {', '.join(sorted(chosen - set(OBJECTIVES)))}")
    args.objectives = [name for name in OBJECTIVES if name in chosen | {REFERENCE}]
    if args.depth < 0 or args.repeats < 1 or args.time_limit <= 0:
        parser.error("--depth must be >= 0, --repeats >= 1 and --time-limit > 0")
    if args.api == "auto":
        args.api = "estimators" if has_estimators() else "core"
    return args


def has_estimators() -> bool:
    """Whether the installed odtree has the estimators of issue 5 (checked in a subprocess)."""
    probe = "import odtree; odtree.OptimalTreeRegressor"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


def cost_matrix(n_classes: int) -> np.ndarray:
    """Predicting any wrong class for a row of class i costs ``i + 1``; a right one costs 0."""
    costs = np.repeat(np.arange(1.0, n_classes + 1)[:, None], n_classes, axis=1)
    np.fill_diagonal(costs, 0.0)
    return costs


def misclassification_callbacks(classes: np.ndarray, n_classes: int):
    """Misclassification as ``(fast_error_function, error_function)`` in Python.

    ``classes`` holds each row's class index. Both return ``(error, class index)`` with the
    majority class, as the native objective does (ties may go elsewhere; the error is the same).
    """

    def fast_error_function(class_weights: np.ndarray) -> tuple[float, int]:
        best = int(np.argmax(class_weights))
        return float(class_weights.sum() - class_weights[best]), best

    def error_function(rows: np.ndarray) -> tuple[float, int]:
        counts = np.bincount(classes[rows], minlength=n_classes)
        best = int(np.argmax(counts))
        return float(rows.size - counts[best]), best

    return fast_error_function, error_function


def objective_settings(objective: str, classes: np.ndarray, n_classes: int) -> dict:
    """The ``_core`` ``solve`` keywords of ``objective`` (its estimator maps them back)."""
    fast_error_function, error_function = misclassification_callbacks(classes, n_classes)
    targets = classes.astype(np.float64)
    return {
        "misclassification": {},
        "cost_matrix": {"cost_matrix": cost_matrix(n_classes)},
        "squared_error": {"targets": targets},
        "absolute_error": {"targets": targets},
        "quantile": {"targets": targets, "quantile": QUANTILE},
        "fast_error_function": {"function": fast_error_function},
        "error_function": {"function": error_function},
    }[objective]


def make_fit(job: dict, X: np.ndarray, y: np.ndarray):
    """A function that fits ``job["objective"]`` on ``(X, y)`` from scratch; returns
    ``(objective value, status)``. Everything it does is timed."""
    objective, depth, time_limit = job["objective"], job["depth"], job["time_limit"]
    labels, classes = np.unique(y, return_inverse=True)
    settings = objective_settings(objective, classes, len(labels))
    if job["api"] == "core":
        from odtree._core import Config, Solver

        solver = Solver(X, classes.astype(np.uint32), len(labels))
        config = Config(max_depth=depth, time_limit=time_limit)

        def fit_core():
            result = solver.solve(config, objective=objective, **settings)
            return result["objective"], result["status"]

        return fit_core

    from odtree import OptimalTreeClassifier, OptimalTreeRegressor

    if objective in REGRESSION:
        def make():
            return OptimalTreeRegressor(max_depth=depth, time_limit=time_limit,
                                        criterion=objective, quantile=QUANTILE)

        target = settings["targets"]
    else:
        if "function" in settings:
            settings = {objective: settings["function"]}

        def make():
            return OptimalTreeClassifier(max_depth=depth, time_limit=time_limit, **settings)

        target = y

    def fit_estimator():
        estimator = make().fit(X, target)
        return estimator.objective_, estimator.status_

    return fit_estimator


def fit_once(job: dict) -> dict:
    """Time ``job``'s fit, repeated while it is quick; return the fastest, JSON-ready."""
    X, y = load_dataset(job["path"])
    fit = make_fit(job, X, y)
    make_fit({**job, "depth": 1}, X, y)()  # loads every module a fit uses
    times: list[float] = []
    while True:
        start = time.perf_counter()
        value, status = fit()
        times.append(time.perf_counter() - start)
        if (times[-1] >= REPEAT_BELOW_SECONDS or len(times) >= MAX_REPEATS
                or sum(times) >= MAX_REPEAT_SECONDS):
            break
    return {"status": status, "seconds": min(times), "runs": len(times), "value": value,
            "n_classes": len(np.unique(y))}


def run_all(args: argparse.Namespace, writer) -> list[dict]:
    """Every objective on dataset 1, then dataset 2, ...; returns the fastest fit of each."""
    best = []
    for name in args.datasets:
        for objective in args.objectives:
            job = {"path": str(dataset_path(args.data_dir, name)), "depth": args.depth,
                   "time_limit": args.time_limit, "objective": objective, "api": args.api}
            fits = []
            for repeat in range(1, args.repeats + 1):
                row = {"dataset": name, "depth": args.depth, "objective": objective,
                       "api": args.api, "repeat": repeat, **run_script_worker(__file__, job)}
                fits.append(row)
                if writer:
                    writer.writerow({column: row.get(column, "") for column in CSV_COLUMNS})
                print(f"{name} {objective} repeat {repeat}: {row['status']}"
                      + (f", {row['value']:.6g} in {row['seconds']:.3g} s" if "seconds" in row
                         else f" {row['error']}"), file=sys.stderr, flush=True)
                if row["status"] != "optimal":
                    break
            best.append(min(fits, key=lambda r: (r["status"] != "optimal", r.get("seconds", 0))))
    return best


def time_cell(row: dict) -> str:
    """A fit's seconds if it proved optimality, else why not."""
    if row["status"] == "optimal":
        return f"{row['seconds']:.3g}"
    return "timeout" if row["status"] == "time_limit" else row["status"]


def ratios(rows: list[dict]) -> dict[tuple[str, str], float]:
    """Per (objective, dataset): its time / the reference's, where both proved optimality."""
    reference = {row["dataset"]: row for row in rows if row["objective"] == REFERENCE}
    return {
        (row["objective"], row["dataset"]): row["seconds"] / reference[row["dataset"]]["seconds"]
        for row in rows
        if row["status"] == reference[row["dataset"]]["status"] == "optimal"
    }


def print_table(rows: list[dict], args: argparse.Namespace) -> None:
    """One line per fit, grouped by objective, then the geometric mean ratio per objective."""
    print(f"\nodtree {version('odtree')} ({args.api}): depth {args.depth}, time limit "
          f"{args.time_limit:g} s; seconds per fit (fastest of {args.repeats}).")
    print(f"Ratio = objective time / {REFERENCE} time on the same dataset.")
    widths = [19, max(7, *(len(name) for name in args.datasets)), 9, 8, 12]
    print(format_line(["objective", "dataset", "seconds", "ratio", "value"], widths))
    rule = format_line(["-" * width for width in widths], widths)
    print(rule)
    by_pair = ratios(rows)
    for objective in args.objectives:
        for row in (r for r in rows if r["objective"] == objective):
            ratio = by_pair.get((objective, row["dataset"]))
            print(format_line([
                objective, row["dataset"], time_cell(row),
                "" if ratio is None else f"{ratio:.3g}",
                f"{row['value']:.6g}" if "value" in row else "",
            ], widths))
    print(rule)
    widths = [19, 22]
    print(format_line(["objective", "geo. mean ratio (n)"], widths))
    for objective in args.objectives:
        values = [ratio for (name, _), ratio in by_pair.items() if name == objective]
        cell = f"{geometric_mean(values):.3g} ({len(values)})" if values else "-"
        print(format_line([objective, cell], widths))


def disagreements(rows: list[dict]) -> list[str]:
    """Fits whose optimum must be the reference's but is not."""
    reference = {row["dataset"]: row for row in rows
                 if row["objective"] == REFERENCE and row["status"] == "optimal"}
    wrong = []
    for row in rows:
        expected = reference.get(row["dataset"])
        must_agree = row["objective"] in SAME_AS_REFERENCE or (
            row["objective"] == "absolute_error" and row["n_classes"] == 2)
        if (expected and must_agree and row["status"] == "optimal"
                and abs(row["value"] - expected["value"]) > OBJECTIVE_TOLERANCE):
            wrong.append(f"{row['dataset']} {row['objective']}: {row['value']} != "
                         f"{REFERENCE} {expected['value']}")
    return wrong


def main(argv: list[str] | None = None) -> int:
    """Run every objective; return 1 if an optimum contradicts the reference's, else 0."""
    args = parse_args(argv)
    handle = args.csv.open("w", newline="") if args.csv else None
    writer = csv.DictWriter(handle, CSV_COLUMNS) if handle else None
    if writer:
        writer.writeheader()
    try:
        rows = run_all(args, writer)
    finally:
        if handle:
            handle.close()
    print_table(rows, args)
    wrong = disagreements(rows)
    for line in wrong:
        print(f"DISAGREEMENT {line}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    if sys.argv[1:2] == [WORKER_FLAG]:
        print(json.dumps(fit_once(json.loads(sys.argv[2]))))
    else:
        sys.exit(main())
