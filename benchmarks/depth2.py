"""Time depth-2 fits against the counting work that any exact depth-2 solver must do.

For each dataset, odtree, pystreed and pytrees-rs fit a depth-2 tree (through the
``_solvers.py`` worker, one process per run), and single-threaded numpy computes the per-class
feature co-occurrence counts ``X_c.T @ X_c`` in float32 (boolean row selection and casting
included, one process per run). Repeats alternate: repeat 1 of every runner, then repeat 2, ...;
the fastest repeat is kept. The table gives each runner's time and odtree's time ratio to each
of the others. Two solvers that prove different optima are a correctness bug: the script reports
it loudly and exits with status 1.

Examples::

    python benchmarks/depth2.py
    python benchmarks/depth2.py --datasets mushroom,kr-vs-kp --repeats 3 --csv depth2.csv

See ``benchmarks/README.md`` for how to read the ratios.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import numpy as np
from _solvers import MAX_REPEAT_SECONDS, MAX_REPEATS, REPEAT_BELOW_SECONDS, load_dataset
from compare import (
    KILL_GRACE_SECONDS,
    add_data_dir_option,
    check_datasets,
    dataset_path,
    format_line,
    geometric_mean,
    report_disagreements,
    run_in_worker,
)
from threadpoolctl import threadpool_limits

SOLVER_NAMES = ["odtree", "pystreed", "pytrees-rs"]
#: The runner that times the co-occurrence counts with numpy.
NUMPY = "numpy"
RUNNERS = [*SOLVER_NAMES, NUMPY]
DEFAULT_DATASETS = "pendigits,mushroom,splice-1,kr-vs-kp,hypothyroid"
#: Environment of the numpy worker: one BLAS/OpenMP thread from the moment numpy loads.
SINGLE_THREAD_ENV = {
    name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
}
#: First argument that turns this script into the numpy worker.
NUMPY_WORKER_FLAG = "--numpy-worker"

CSV_COLUMNS = [
    "dataset", "depth", "rows", "features", "solver", "repeat", "version", "objective",
    "optimal", "timed_out", "seconds", "runs", "status", "error",
]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line and check the datasets exist."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--datasets", default=DEFAULT_DATASETS,
        help=f"comma-separated names (default: {DEFAULT_DATASETS})",
    )
    parser.add_argument(
        "--repeats", type=int, default=5, help="runs per runner and dataset (default: 5)"
    )
    parser.add_argument(
        "--time-limit", type=float, default=60.0, dest="time_limit",
        help="seconds per solver fit (default: 60)",
    )
    parser.add_argument("--csv", type=Path, help="also write one row per run to this CSV file")
    add_data_dir_option(parser)
    args = parser.parse_args(argv)
    args.datasets = args.datasets.split(",")
    check_datasets(parser, args.data_dir, args.datasets)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.time_limit <= 0:
        parser.error("--time-limit must be positive")
    return args


def cooccurrence_counts(X: np.ndarray, y: np.ndarray, n_classes: int) -> list[np.ndarray]:
    """Per class ``c``, the float32 matrix ``X[y == c].T @ X[y == c]`` of pair counts.

    Entry ``(i, j)`` counts the rows of class ``c`` with features ``i`` and ``j`` both 1: with
    the class totals, this is everything an exact depth-2 solver needs.
    """
    counts = []
    for label in range(n_classes):
        rows = X[y == label].astype(np.float32)
        counts.append(rows.T @ rows)
    return counts


def time_numpy(path: str) -> dict:
    """Time ``cooccurrence_counts`` on one dataset with one BLAS thread.

    Follows ``_solvers.run_repeated``: a computation under ``REPEAT_BELOW_SECONDS`` is repeated
    (at most ``MAX_REPEATS`` times, ``MAX_REPEAT_SECONDS`` in total) and the fastest is kept.
    """
    X, y = load_dataset(path)
    n_classes = int(y.max()) + 1
    times: list[float] = []
    with threadpool_limits(1):
        while not times or (
            times[0] < REPEAT_BELOW_SECONDS
            and len(times) < MAX_REPEATS
            and sum(times) < MAX_REPEAT_SECONDS
        ):
            start = time.perf_counter()
            cooccurrence_counts(X, y, n_classes)
            times.append(time.perf_counter() - start)
    return {"seconds": min(times), "runs": len(times), "version": version("numpy")}


def run_numpy_worker(path: Path, time_limit: float) -> dict:
    """Run ``time_numpy`` in a fresh single-threaded process; return the CSV fields it yields."""
    try:
        done = subprocess.run(
            [sys.executable, __file__, NUMPY_WORKER_FLAG, str(path)],
            capture_output=True,
            text=True,
            env={**os.environ, **SINGLE_THREAD_ENV},
            timeout=time_limit + KILL_GRACE_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return {"status": "killed", "error": f"no result after {time_limit + KILL_GRACE_SECONDS} s"}
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return {"status": "crashed", "error": lines[-1] if lines else f"exit {done.returncode}"}
    return {**json.loads(done.stdout), "status": "done", "error": ""}


def run_all(args: argparse.Namespace) -> Iterator[dict]:
    """Per dataset, run every runner once per repeat, alternating; yield one row per run."""
    total = len(args.datasets) * args.repeats * len(RUNNERS)
    count = 0
    for name in args.datasets:
        path = dataset_path(args.data_dir, name)
        rows, features = load_dataset(path)[0].shape
        for repeat in range(1, args.repeats + 1):
            for runner in RUNNERS:
                count += 1
                row = {"dataset": name, "depth": 2, "rows": rows, "features": features,
                       "solver": runner, "repeat": repeat}
                if runner == NUMPY:
                    row.update(run_numpy_worker(path, args.time_limit))
                else:
                    row.update(run_in_worker(runner, path, 2, args.time_limit))
                print(
                    f"[{count}/{total}] {name} repeat {repeat} {runner}: {row['status']}"
                    + (f" in {row['seconds']:.3g} s" if "seconds" in row else f" {row['error']}"),
                    file=sys.stderr,
                    flush=True,
                )
                yield row


def finished(row: dict) -> bool:
    """Whether a run produced a usable time: a proved optimum, or numpy's counts."""
    return row["status"] in ("optimal", "done")


def best_runs(rows: list[dict]) -> dict[tuple[str, str], dict]:
    """Per (dataset, solver), the fastest finished repeat, else the first unfinished one."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["dataset"], row["solver"]), []).append(row)
    return {
        key: min(runs, key=lambda row: (not finished(row), row["seconds"] if finished(row) else 0))
        for key, runs in groups.items()
    }


def time_cell(row: dict) -> str:
    """A runner's time in milliseconds, or why it has none."""
    if finished(row):
        return f"{row['seconds'] * 1000:.3g}"
    return "timeout" if row["status"] == "time_limit" else row["status"]


def print_table(rows: list[dict], args: argparse.Namespace) -> None:
    """Print the legend, one line per dataset with times and ratios, and the geometric means."""
    versions = {row["solver"]: row["version"] for row in rows if row.get("version")}
    print("\nRunners: " + ", ".join(f"{r} {versions.get(r, '?')}" for r in RUNNERS))
    print(
        f"Depth-2 fits; times in milliseconds, fastest of {args.repeats} repeat(s) (each of up "
        "to 5 runs when under 50 ms).\nnumpy: per-class float32 X_c.T @ X_c, one thread. "
        "Ratio = odtree time / other time: < 1 means odtree is faster."
    )
    others = RUNNERS[1:]
    headers = ["dataset", "rows", "features", *RUNNERS, *(f"odtree/{other}" for other in others)]
    widths = [max(len("geometric mean (n)"), *(len(name) for name in args.datasets)), 6, 8]
    widths += [max(10, len(header)) for header in headers[3:]]
    rule = format_line(["-" * width for width in widths], widths)
    print(format_line(headers, widths))
    print(rule)
    best = best_runs(rows)
    ratios: dict[str, list[float]] = {other: [] for other in others}
    for name in args.datasets:
        runs = {runner: best[(name, runner)] for runner in RUNNERS}
        cells = [name, str(runs["odtree"]["rows"]), str(runs["odtree"]["features"])]
        cells += [time_cell(runs[runner]) for runner in RUNNERS]
        for other in others:
            if finished(runs["odtree"]) and finished(runs[other]):
                ratios[other].append(runs["odtree"]["seconds"] / runs[other]["seconds"])
                cells.append(f"{ratios[other][-1]:.3g}")
            else:
                cells.append("-")
        print(format_line(cells, widths))
    print(rule)
    means = [
        f"{geometric_mean(ratios[other]):.3g} ({len(ratios[other])})" if ratios[other] else "-"
        for other in others
    ]
    print(format_line(["geometric mean (n)", "", "", *([""] * len(RUNNERS)), *means], widths))


def write_csv(rows: list[dict], path: Path) -> None:
    """Write one CSV row per run."""
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS, restval="")
        writer.writeheader()
        writer.writerows(rows)
    print(f"\nWrote {len(rows)} rows to {path}")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return 1 if solvers contradict each other, else 0."""
    args = parse_args(argv)
    rows = list(run_all(args))
    print_table(rows, args)
    if args.csv is not None:
        write_csv(rows, args.csv)
    return report_disagreements(rows)


if __name__ == "__main__":
    if sys.argv[1:2] == [NUMPY_WORKER_FLAG]:
        print(json.dumps(time_numpy(sys.argv[2])))
    else:
        sys.exit(main())
