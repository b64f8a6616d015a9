"""Race odtree against peer optimal-tree solvers on the binary benchmark sets.

Every (dataset, depth) instance is run with each solver in turn (odtree, peer 1, peer 2, ...,
then the next instance), each run in its own worker process (``_solvers.py``) that is killed
after ``time limit + 30 s``. Results go to a CSV file (one row per run) and to a table per depth
on stdout. Two solvers that both claim optimality with different objectives are a correctness
bug: the script reports it loudly and exits with status 1.

Examples::

    python benchmarks/compare.py --datasets vote,zoo-1 --depths 2,3 --csv out.csv
    python benchmarks/compare.py --suite --csv suite.csv

See ``benchmarks/README.md`` for the columns and the ratio.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from _solvers import SOLVERS

REPO = Path(__file__).resolve().parents[1]
WORKER = Path(__file__).with_name("_solvers.py")
#: Seconds a worker gets beyond the time limit before it is killed.
KILL_GRACE_SECONDS = 30
#: The flag that makes a benchmark script run one job as a worker (``run_script_worker``).
WORKER_FLAG = "--worker"
#: Objectives closer than this are equal (they count misclassified rows).
OBJECTIVE_TOLERANCE = 1e-6

CSV_COLUMNS = [
    "dataset", "depth", "solver", "version", "objective", "optimal", "timed_out",
    "seconds", "runs", "status", "error",
]

#: Settings of a plain run, and of ``--suite``; flags given explicitly override either.
DEFAULTS = {"depths": "2,3", "solvers": ",".join(SOLVERS), "time_limit": 60.0}
SUITE = {"depths": "2,3,4,5", "solvers": "odtree,pystreed", "time_limit": 60.0}


def default_data_dir() -> Path:
    """``$ODTREE_DATA`` if set, else ``../shared/datasets`` next to the repository."""
    return Path(os.environ.get("ODTREE_DATA", REPO.parent / "shared" / "datasets"))


def benchmark_names(data_dir: Path) -> list[str]:
    """The top-level benchmark sets in ``data_dir`` (``*.txt`` except licence files)."""
    return sorted(
        path.stem for path in data_dir.glob("*.txt") if not path.name.startswith("LICENSE")
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line and fill unset options from ``DEFAULTS`` or ``SUITE``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--datasets",
        help="comma-separated names, e.g. anneal,vote or nina/mux6-un_converted "
        "(default: every top-level set in the data directory)",
    )
    parser.add_argument("--depths", help=f"comma-separated depths (default: {DEFAULTS['depths']})")
    parser.add_argument(
        "--solvers",
        help=f"comma-separated, from {', '.join(SOLVERS)}; the first is the reference of "
        f"the time ratios (default: all, in that order)",
    )
    parser.add_argument(
        "--time-limit", type=float, help="seconds per fit (default: 60)", dest="time_limit"
    )
    parser.add_argument(
        "--csv", type=Path, help="output CSV (default: compare-<date>-<time>.csv here)"
    )
    add_data_dir_option(parser)
    parser.add_argument(
        "--suite", action="store_true",
        help="every top-level set at depths 2-5, odtree and pystreed, 60 s",
    )
    args = parser.parse_args(argv)

    for key, value in (SUITE if args.suite else DEFAULTS).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    check_data_dir(parser, args.data_dir)
    args.datasets = (
        args.datasets.split(",") if args.datasets else benchmark_names(args.data_dir)
    )
    args.depths = [int(depth) for depth in args.depths.split(",")]
    args.solvers = args.solvers.split(",")
    unknown = [name for name in args.solvers if name not in SOLVERS]
    if unknown:
        parser.error(f"unknown solver(s) {', '.join(unknown)}; choose from {', '.join(SOLVERS)}")
    check_datasets(parser, args.data_dir, args.datasets)
    if args.time_limit <= 0:
        parser.error("--time-limit must be positive")
    if args.csv is None:
        args.csv = Path(time.strftime("compare-%Y%m%d-%H%M%S.csv"))
    return args


def dataset_path(data_dir: Path, name: str) -> Path:
    """The file of dataset ``name`` (``.txt`` may be omitted)."""
    return data_dir / (name if name.endswith(".txt") else f"{name}.txt")


def add_data_dir_option(parser) -> None:
    """The ``--data-dir`` option every benchmark takes."""
    parser.add_argument(
        "--data-dir", type=Path, default=default_data_dir(),
        help="folder of the benchmark files (default: $ODTREE_DATA, else ../shared/datasets "
        "next to the repository)",
    )


def check_data_dir(parser, data_dir: Path) -> None:
    """Stop with a usage error unless ``data_dir`` is a folder."""
    if not data_dir.is_dir():
        parser.error(f"data directory {data_dir} not found: set --data-dir or ODTREE_DATA")


def check_datasets(parser, data_dir: Path, names) -> None:
    """Stop with a usage error unless ``data_dir`` holds every dataset of ``names``."""
    check_data_dir(parser, data_dir)
    missing = [name for name in names if not dataset_path(data_dir, name).is_file()]
    if missing:
        parser.error(f"no such dataset(s) in {data_dir}: {', '.join(missing)}")


def run_script_worker(script: str, job: dict) -> dict:
    """Run ``script --worker JOB`` in a fresh process and return the JSON object it prints
    last, plus an empty ``error``. A worker that crashes or outlives ``job["time_limit"] +
    KILL_GRACE_SECONDS`` gives status ``crashed`` or ``killed`` and the reason in ``error``."""
    deadline = job["time_limit"] + KILL_GRACE_SECONDS
    try:
        done = subprocess.run([sys.executable, script, WORKER_FLAG, json.dumps(job)],
                              capture_output=True, text=True, timeout=deadline)
    except subprocess.TimeoutExpired:
        return {"status": "killed", "error": f"no result after {deadline} s"}
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        reason = lines[-1] if lines else f"exit status {done.returncode}"
        return {"status": "crashed", "error": reason}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "error": ""}


def run_in_worker(solver: str, path: Path, depth: int, time_limit: float) -> dict:
    """Run one fit in a fresh ``_solvers.py`` process and return the CSV fields it yields.

    A worker that crashes, is killed by a signal, or outlives ``time_limit +
    KILL_GRACE_SECONDS`` gives a row with status ``crashed`` or ``killed`` and the reason in
    ``error``.
    """
    job = {"solver": solver, "path": str(path), "depth": depth, "time_limit": time_limit}
    try:
        done = subprocess.run(
            [sys.executable, str(WORKER), json.dumps(job)],
            capture_output=True,
            text=True,
            timeout=time_limit + KILL_GRACE_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return {"status": "killed", "error": f"no result after {time_limit + KILL_GRACE_SECONDS} s"}
    if done.returncode != 0:
        if done.returncode < 0:
            reason = f"killed by signal {-done.returncode}"
        else:
            lines = done.stderr.strip().splitlines()
            reason = lines[-1] if lines else f"exit status {done.returncode}"
        return {"status": "crashed", "error": reason}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["optimal"]:
        status = "optimal"
    elif result["timed_out"]:
        status = "time_limit"
    else:
        status = "no_proof"
    return {**result, "status": status, "error": ""}


def run_all(args: argparse.Namespace) -> Iterator[dict]:
    """Run every instance with every solver, alternating solvers; yield one row per run."""
    instances = [(name, depth) for depth in args.depths for name in args.datasets]
    total = len(instances) * len(args.solvers)
    count = 0
    for name, depth in instances:
        for solver in args.solvers:
            count += 1
            path = dataset_path(args.data_dir, name)
            row = {"dataset": name, "depth": depth, "solver": solver}
            row.update(run_in_worker(solver, path, depth, args.time_limit))
            print(
                f"[{count}/{total}] {name} depth {depth} {solver}: {row['status']}"
                + (f", objective {row['objective']:g} in {row['seconds']:.3g} s"
                   if row.get("objective") is not None else f" {row['error']}"),
                file=sys.stderr,
                flush=True,
            )
            yield row


def find_disagreements(rows: list[dict]) -> list[str]:
    """Messages for every instance whose results contradict each other.

    Two solvers claiming optimality must report the same objective, and no solver may report
    a tree better than one claimed optimal (every objective is the error of a real tree).
    """
    by_instance: dict[tuple[str, int], list[dict]] = {}
    for row in rows:
        if row.get("objective") is not None:
            by_instance.setdefault((row["dataset"], row["depth"]), []).append(row)
    messages = []
    for (name, depth), found in by_instance.items():
        claims = [row for row in found if row["optimal"]]
        if not claims:
            continue
        best = min(found, key=lambda row: row["objective"])
        for claim in claims:
            if claim["objective"] - best["objective"] > OBJECTIVE_TOLERANCE:
                other = "also claims optimality" if best["optimal"] else "found a tree"
                messages.append(
                    f"{name} depth {depth}: {claim['solver']} claims optimal objective "
                    f"{claim['objective']:g}, but {best['solver']} {other} with "
                    f"{best['objective']:g}"
                )
    return messages


def report_disagreements(rows: list[dict]) -> int:
    """Print a loud banner (stdout and stderr) for proved optima that differ; the exit status."""
    disagreements = find_disagreements(rows)
    if not disagreements:
        return 0
    banner = "!" * 78
    report = "\n".join(
        [banner, "CORRECTNESS BUG: solvers disagree on proved optima", *disagreements, banner]
    )
    print(report)
    print(report, file=sys.stderr)
    return 1


def geometric_mean(values: list[float]) -> float:
    """The geometric mean of positive ``values``."""
    return math.exp(sum(math.log(value) for value in values) / len(values))


def time_cell(row: dict | None) -> str:
    """A run's time if it proved optimality, else why not."""
    if row is None:
        return "-"
    if row["status"] == "optimal":
        return f"{row['seconds']:.3g}"
    return {"time_limit": "timeout", "no_proof": "no proof"}.get(row["status"], row["status"])


def objective_cell(runs: list[dict]) -> str:
    """The proved optimum, or ``<=`` the best objective found when no solver proved one."""
    proved = {row["objective"] for row in runs if row["status"] == "optimal"}
    if len(proved) > 1:
        return "MISMATCH"
    if proved:
        return f"{proved.pop():g}"
    found = [row["objective"] for row in runs if row.get("objective") is not None]
    return f"<={min(found):g}" if found else "-"


def format_line(cells: list[str], widths: list[int]) -> str:
    """One table line: the first cell left-aligned, the others right-aligned."""
    cells = cells + [""] * (len(widths) - len(cells))
    aligned = [cells[0].ljust(widths[0])]
    aligned += [cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True)]
    return "  ".join(aligned).rstrip()


def print_depth_table(results: dict[tuple, dict], depth: int, args: argparse.Namespace) -> None:
    """Print the table of one depth; ``results`` maps (dataset, depth, solver) to its row."""
    reference, peers = args.solvers[0], args.solvers[1:]
    headers = ["dataset", "optimum", *args.solvers, *(f"{reference}/{peer}" for peer in peers)]
    widths = [max(len("geometric mean (n)"), *(len(name) for name in args.datasets)), 9]
    widths += [max(10, len(header)) for header in headers[2:]]
    rule = format_line(["-" * width for width in widths], widths)

    print(f"\nDepth {depth}")
    print(format_line(headers, widths))
    print(rule)
    ratios: dict[str, list[float]] = {peer: [] for peer in peers}
    solved = dict.fromkeys(args.solvers, 0)
    unsolved = []
    for name in args.datasets:
        runs = {solver: results.get((name, depth, solver)) for solver in args.solvers}
        proved = {solver for solver, run in runs.items() if run and run["status"] == "optimal"}
        for solver in proved:
            solved[solver] += 1
        if not proved:
            unsolved.append(name)
        ratio_cells = []
        for peer in peers:
            if {reference, peer} <= proved:
                ratios[peer].append(runs[reference]["seconds"] / runs[peer]["seconds"])
                ratio_cells.append(f"{ratios[peer][-1]:.3g}")
            else:
                ratio_cells.append("-")
        cells = [name, objective_cell([run for run in runs.values() if run])]
        cells += [time_cell(runs[solver]) for solver in args.solvers]
        print(format_line(cells + ratio_cells, widths))
    print(rule)
    means = [
        f"{geometric_mean(ratios[peer]):.3g} ({len(ratios[peer])})" if ratios[peer] else "-"
        for peer in peers
    ]
    print(format_line(["geometric mean (n)", "", *([""] * len(args.solvers)), *means], widths))
    print(format_line(["solved (optimal)", "", *(str(solved[s]) for s in args.solvers)], widths))
    print(f"Solved by no solver at depth {depth}: {', '.join(unsolved) or 'none'}")


def print_tables(rows: list[dict], args: argparse.Namespace) -> None:
    """Print a legend, then one table per depth."""
    reference = args.solvers[0]
    versions = {row["solver"]: row["version"] for row in rows if row.get("version")}
    print("\nSolvers: " + ", ".join(f"{s} {versions.get(s, '?')}" for s in args.solvers))
    print(
        f"Times are seconds per fit (fastest of up to 5 when under 50 ms); time limit "
        f"{args.time_limit:g} s.\nRatio = {reference} time / peer time, when both proved "
        f"optimality: < 1 means {reference} is faster."
    )
    results = {(row["dataset"], row["depth"], row["solver"]): row for row in rows}
    for depth in args.depths:
        print_depth_table(results, depth, args)


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; return 1 if solvers contradict each other, else 0."""
    args = parse_args(argv)
    rows = []
    with args.csv.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS, restval="")
        writer.writeheader()
        for row in run_all(args):
            rows.append(row)
            writer.writerow(row)
            handle.flush()
    print_tables(rows, args)
    print(f"\nWrote {len(rows)} rows to {args.csv}")
    return report_disagreements(rows)


if __name__ == "__main__":
    sys.exit(main())
