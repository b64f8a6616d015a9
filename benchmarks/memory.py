"""Time the memory-bounded search under caps on its cache (memory-bounded DL8.5, Table 2).

For each dataset and depth, an unbounded fit gives the peak number of cache entries P. Then
every wipe strategy runs under caps of 100 %, 50 %, 25 % and 10 % of P (``max_cache_entries``,
the paper's unit). Each fit runs in a fresh process, which also reports how much its resident
memory grew during the fit. A capped fit whose optimum differs from the unbounded one is a
correctness bug: the script reports it and exits with status 1.

Examples::

    python benchmarks/memory.py
    python benchmarks/memory.py --cases anneal:5,yeast:5 --shares 0.5,0.1 --repeats 3
    python benchmarks/memory.py --csv memory.csv
    python benchmarks/memory.py --solver pydl85 --cases yeast:4 --shares 0.5,0.1

See ``benchmarks/README.md`` for how to read the ratios.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

from _solvers import load_dataset
from compare import (
    WORKER_FLAG,
    add_data_dir_option,
    check_datasets,
    dataset_path,
    format_line,
    run_script_worker,
)

#: Dataset and depth pairs that take seconds unbounded here; the paper's sets, shallower.
DEFAULT_CASES = "anneal:6,diabetes:5,german-credit:5,kr-vs-kp:6,yeast:5"
STRATEGIES = ("reuses", "descendants", "all")
#: pydl8-5's names of the same strategies (its `wipe_type`).
PYDL85_WIPES = {"reuses": "Reuses", "descendants": "Subnodes", "all": "All"}
DEFAULT_SHARES = "1,0.5,0.25,0.1"

CSV_COLUMNS = [
    "dataset", "depth", "share", "cap", "strategy", "objective", "status", "seconds",
    "peak_entries", "created_entries", "peak_bytes", "rss_growth", "wipes", "error",
]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line and check the datasets exist."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=DEFAULT_CASES,
                        help=f"comma-separated name:depth pairs (default: {DEFAULT_CASES})")
    parser.add_argument("--shares", default=DEFAULT_SHARES,
                        help=f"caps as shares of the unbounded peak (default: {DEFAULT_SHARES})")
    parser.add_argument("--time-limit", type=float, default=600.0, dest="time_limit",
                        help="seconds per fit (default: 600)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="fits per setting; the fastest is kept (default: 1)")
    parser.add_argument("--solver", choices=("odtree", "pydl85"), default="odtree",
                        help="whose bounded cache to time, each with its default wipe factor "
                        "(default: odtree)")
    parser.add_argument("--csv", type=Path, help="also write one row per fit to this CSV file")
    add_data_dir_option(parser)
    args = parser.parse_args(argv)
    try:
        args.cases = [(name, int(depth)) for name, depth in
                      (case.split(":") for case in args.cases.split(","))]
        args.shares = [float(share) for share in args.shares.split(",")]
    except ValueError:
        parser.error("--cases takes name:depth pairs and --shares numbers")
    check_datasets(parser, args.data_dir, [name for name, _ in args.cases])
    if args.repeats < 1 or not all(0 < share <= 1 for share in args.shares):
        parser.error("--repeats must be >= 1 and every share in (0, 1]")
    return args


def _kib(key: str) -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(key))


def fit_once(job: dict) -> dict:
    """Fit one estimator as ``job`` says; return its result and its resident-memory growth."""
    X, y = load_dataset(job["path"])
    if job["solver"] == "pydl85":
        return fit_pydl85(job, X, y)
    from odtree import OptimalTreeClassifier

    OptimalTreeClassifier(max_depth=1).fit(X, y)  # loads every module a fit uses
    estimator = OptimalTreeClassifier(max_depth=job["depth"], time_limit=job["time_limit"],
                                      max_cache_entries=job["cap"],
                                      wipe_strategy=job["strategy"])
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # the peak restarts from the current size
    base = _kib("VmRSS:")
    start = time.perf_counter()
    estimator.fit(X, y)
    seconds = time.perf_counter() - start
    return {
        "objective": estimator.objective_, "status": estimator.status_, "seconds": seconds,
        "peak_entries": estimator.cache_peak_entries_,
        "created_entries": estimator.cache_created_entries_,
        "peak_bytes": estimator.cache_peak_bytes_,
        "rss_growth": (_kib("VmHWM:") - base) * 1024, "wipes": estimator.n_wipes_,
    }


def fit_pydl85(job: dict, X, y) -> dict:
    """The same fit with pydl8-5's bounded trie. It reports its cache size at the end (its
    peak when unbounded), neither bytes nor entries created again."""
    from pydl85 import DL85Classifier, Wipe_Type

    DL85Classifier(max_depth=1).fit(X, y)
    estimator = DL85Classifier(max_depth=job["depth"], time_limit=job["time_limit"],
                               maxcachesize=job["cap"] or 0,
                               wipe_type=getattr(Wipe_Type, PYDL85_WIPES[job["strategy"]]))
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    base = _kib("VmRSS:")
    start = time.perf_counter()
    estimator.fit(X, y)
    seconds = time.perf_counter() - start
    return {
        "objective": float(estimator.error_),
        "status": "time_limit" if estimator.timeout_ else "optimal", "seconds": seconds,
        "peak_entries": int(estimator.lattice_size_), "created_entries": 0, "peak_bytes": 0,
        "rss_growth": (_kib("VmHWM:") - base) * 1024, "wipes": "",
    }


def fastest(args, job: dict) -> dict:
    """The fastest of ``args.repeats`` fits of ``job``."""
    rows = [run_script_worker(__file__, job) for _ in range(args.repeats)]
    return min(rows, key=lambda row: (row["status"] != "optimal", row.get("seconds", 0)))


def run_case(args, name: str, depth: int, writer) -> list[dict]:
    """The unbounded fit, then every share and strategy; returns the table rows."""
    path = str(dataset_path(args.data_dir, name))
    base = {"path": path, "depth": depth, "time_limit": args.time_limit, "solver": args.solver}
    free = fastest(args, {**base, "cap": None, "strategy": "reuses"})
    rows = [{"dataset": name, "depth": depth, "share": None, "cap": None,
             "strategy": "unbounded", **free}]
    print(f"{name} d{depth} unbounded: {free['status']} {free.get('seconds', 0):.3g} s",
          file=sys.stderr, flush=True)
    if free["status"] != "optimal":
        return rows
    for share in args.shares:
        cap = max(1, int(share * free["peak_entries"]))
        for strategy in STRATEGIES:
            row = fastest(args, {**base, "cap": cap, "strategy": strategy})
            rows.append({"dataset": name, "depth": depth, "share": share, "cap": cap,
                         "strategy": strategy, **row})
            print(f"{name} d{depth} {share:.0%} {strategy}: {row['status']} "
                  f"{row.get('seconds', 0):.3g} s", file=sys.stderr, flush=True)
    if writer:
        for row in rows:
            writer.writerow({column: row.get(column, "") for column in CSV_COLUMNS})
    return rows


def print_table(rows: list[dict]) -> None:
    """One line per fit, with the time ratio to the unbounded fit of the same case."""
    widths = [22, 6, 12, 11, 11, 9, 9, 7, 8, 6]
    print(format_line(["case", "cap", "strategy", "peak entr.", "created", "cache MB",
                       "RSS MB", "wipes", "time s", "ratio"], widths))
    reference = {}
    for row in rows:
        case = f"{row['dataset']} d{row['depth']}"
        if row["strategy"] == "unbounded":
            reference[case] = row.get("seconds")
        ok = row["status"] == "optimal"
        ratio = row["seconds"] / reference[case] if ok and reference.get(case) else None
        print(format_line([
            case, "none" if row["share"] is None else f"{row['share']:.0%}", row["strategy"],
            f"{row.get('peak_entries', 0):,}", f"{row.get('created_entries', 0):,}",
            f"{row.get('peak_bytes', 0) / 1e6:.1f}", f"{row.get('rss_growth', 0) / 1e6:.1f}",
            str(row.get("wipes", "")), f"{row['seconds']:.3g}" if ok else row["status"],
            f"{ratio:.2f}" if ratio else "",
        ], widths))


def disagreements(rows: list[dict]) -> list[str]:
    """Capped fits that proved another optimum than the unbounded fit of their case."""
    free = {(r["dataset"], r["depth"]): r["objective"] for r in rows
            if r["strategy"] == "unbounded" and r["status"] == "optimal"}
    return [f"{r['dataset']} d{r['depth']} {r['share']:.0%} {r['strategy']}: "
            f"{r['objective']} != {free[(r['dataset'], r['depth'])]}"
            for r in rows if r["strategy"] != "unbounded" and r["status"] == "optimal"
            and abs(r["objective"] - free[(r["dataset"], r["depth"])]) > 1e-6]


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == [WORKER_FLAG]:
        print(json.dumps(fit_once(json.loads(sys.argv[2]))))
        return 0
    args = parse_args(argv)
    handle = args.csv.open("w", newline="") if args.csv else None
    writer = csv.DictWriter(handle, CSV_COLUMNS) if handle else None
    if writer:
        writer.writeheader()
    rows = []
    for name, depth in args.cases:
        rows += run_case(args, name, depth, writer)
    if handle:
        handle.close()
    print_table(rows)
    wrong = disagreements(rows)
    for line in wrong:
        print(f"DISAGREEMENT {line}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
