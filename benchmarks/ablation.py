"""Time odtree with each search technique switched off in turn (MurTree paper, section 5.2).

Every variant is an ``OptimalTreeClassifier`` with ``search="murtree"`` and one override (see
``VARIANTS``). All variants run on dataset 1, then all on dataset 2, and so on; each fit runs in
a fresh process, killed after time limit + 30 s. With ``--repeats`` above 1 the fastest repeat is
kept, and a variant that did not prove optimality is not run again on that dataset. Variants that
prove different optima (or a tree better than a proved optimum) are a correctness bug: the script
reports it loudly and exits with status 1.

Examples::

    python benchmarks/ablation.py
    python benchmarks/ablation.py --datasets anneal,vote --depth 3 --time-limit 10
    python benchmarks/ablation.py --max-leaf-nodes 8 --repeats 3 --csv ablation.csv

See ``benchmarks/README.md`` for how to read the ratios.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

from _solvers import load_dataset
from compare import (
    WORKER_FLAG,
    add_data_dir_option,
    check_datasets,
    dataset_path,
    format_line,
    geometric_mean,
    report_disagreements,
    run_script_worker,
)

#: Name of each variant and its overrides of ``OptimalTreeClassifier``'s defaults.
VARIANTS: dict[str, dict] = {
    "default": {},
    "no depth-2 solver": {"depth2_solver": False},
    "no incremental counting": {"incremental_counting": False},
    "no similarity bound": {"similarity_bound": False},
    "trie cache": {"cache": "trie"},
    "hash cache": {"cache": "hash"},
    "dataset cache": {"cache": "dataset"},
    "gini order": {"branching": "gini"},
    "in-order": {"branching": "in_order"},
    "left child first": {"child_order": "left_first"},
    "dl85 preset": {"search": "dl85"},
    # not a technique switched off but an objective switched on: what the tie-break costs
    "lexicographic": {"lexicographic": True},
}
REFERENCE = "default"
DEFAULT_DATASETS = (
    "anneal,australian-credit,diabetes,german-credit,heart-cleveland,hypothyroid,kr-vs-kp,"
    "vehicle,yeast"
)
#: First argument that turns this script into the worker that runs one fit.

CSV_COLUMNS = [
    "dataset", "variant", "repeat", "objective", "optimal", "seconds", "cache_entries",
    "status", "error",
]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line and check the datasets exist."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--datasets", default=DEFAULT_DATASETS,
        help=f"comma-separated names (default: {DEFAULT_DATASETS})",
    )
    parser.add_argument("--depth", type=int, default=4, help="maximum depth (default: 4)")
    parser.add_argument(
        "--time-limit", type=float, default=60.0, dest="time_limit",
        help="seconds per fit (default: 60)",
    )
    parser.add_argument(
        "--max-leaf-nodes", type=int, dest="max_leaf_nodes",
        help="leaf limit of every tree (default: none, full trees)",
    )
    parser.add_argument(
        "--repeats", type=int, default=1, help="fits per variant and dataset (default: 1)"
    )
    parser.add_argument("--csv", type=Path, help="also write one row per fit to this CSV file")
    add_data_dir_option(parser)
    args = parser.parse_args(argv)
    args.datasets = args.datasets.split(",")
    check_datasets(parser, args.data_dir, args.datasets)
    if args.depth < 0 or args.repeats < 1 or args.time_limit <= 0:
        parser.error("--depth must be >= 0, --repeats >= 1 and --time-limit > 0")
    return args


def fit_once(job: dict) -> dict:
    """Fit one fresh estimator as ``job`` says and return its JSON-ready result.

    ``job`` holds ``path``, ``depth``, ``time_limit``, ``max_leaf_nodes`` and ``overrides``.
    Reading the data and building the estimator are not timed.
    """
    from odtree import OptimalTreeClassifier

    X, y = load_dataset(job["path"])
    estimator = OptimalTreeClassifier(
        max_depth=job["depth"],
        time_limit=job["time_limit"],
        max_leaf_nodes=job["max_leaf_nodes"],
        **job["overrides"],
    )
    start = time.perf_counter()
    estimator.fit(X, y)
    seconds = time.perf_counter() - start
    return {
        "objective": estimator.objective_,
        "optimal": bool(estimator.optimal_),
        "seconds": seconds,
        "cache_entries": estimator.n_cache_entries_,
        "status": estimator.status_,
    }


def run_all(args: argparse.Namespace) -> Iterator[dict]:
    """Per dataset and repeat, run each variant that has not fallen short yet; yield each fit."""
    for name in args.datasets:
        unfinished: set[str] = set()
        for repeat in range(1, args.repeats + 1):
            for variant, overrides in VARIANTS.items():
                if variant in unfinished:
                    continue
                job = {
                    "path": str(dataset_path(args.data_dir, name)), "depth": args.depth,
                    "time_limit": args.time_limit, "max_leaf_nodes": args.max_leaf_nodes,
                    "overrides": overrides,
                }
                row = {"dataset": name, "variant": variant, "repeat": repeat}
                row.update(run_script_worker(__file__, job))
                if row["status"] != "optimal":
                    unfinished.add(variant)
                print(
                    f"{name} repeat {repeat} {variant}: {row['status']}"
                    + (f", objective {row['objective']:g} in {row['seconds']:.3g} s"
                       if "seconds" in row else f" {row['error']}"),
                    file=sys.stderr,
                    flush=True,
                )
                yield row


def best_times(rows: list[dict]) -> dict[tuple[str, str], dict]:
    """Per (dataset, variant), the fastest optimal fit, else the first fit that fell short."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["dataset"], row["variant"]), []).append(row)
    return {
        key: min(fits, key=lambda row: (row["status"] != "optimal", row.get("seconds", 0)))
        for key, fits in groups.items()
    }


def time_cell(row: dict) -> str:
    """A fit's seconds if it proved optimality, else why not."""
    if row["status"] == "optimal":
        return f"{row['seconds']:.3g}"
    return "timeout" if row["status"] == "time_limit" else row["status"]


def print_table(rows: list[dict], args: argparse.Namespace) -> None:
    """Print the legend, one line of times per dataset, the mean ratios and solved counts."""
    leaves = "no leaf limit" if args.max_leaf_nodes is None else f"{args.max_leaf_nodes} leaves"
    print(f"\nodtree {version('odtree')}: depth {args.depth}, {leaves}, time limit "
          f"{args.time_limit:g} s; seconds per fit (fastest of {args.repeats}).")
    print(f"Ratio = variant time / {REFERENCE} time, over the datasets both solved: > 1 means "
          f"{REFERENCE} is faster (the technique the variant drops pays off).")
    first = "geo. mean ratio (n)"
    widths = [max(len(first), *(len(name) for name in args.datasets))]
    widths += [max(9, len(variant)) for variant in VARIANTS]
    rule = format_line(["-" * width for width in widths], widths)
    print(format_line(["dataset", *VARIANTS], widths))
    print(rule)
    best = best_times(rows)
    for name in args.datasets:
        print(format_line([name, *(time_cell(best[(name, v)]) for v in VARIANTS)], widths))
    print(rule)
    print(format_line([first, *(mean_ratio_cell(best, v, args.datasets) for v in VARIANTS)],
                      widths))
    solved = [
        sum(best[(name, variant)]["status"] == "optimal" for name in args.datasets)
        for variant in VARIANTS
    ]
    print(format_line(["solved (optimal)", *map(str, solved)], widths))


def mean_ratio_cell(best: dict[tuple[str, str], dict], variant: str, datasets: list[str]) -> str:
    """The geometric mean of ``variant`` time / reference time, with the number of datasets."""
    ratios = [
        best[(name, variant)]["seconds"] / best[(name, REFERENCE)]["seconds"]
        for name in datasets
        if best[(name, variant)]["status"] == best[(name, REFERENCE)]["status"] == "optimal"
    ]
    return f"{geometric_mean(ratios):.3g} ({len(ratios)})" if ratios else "-"


def write_csv(rows: list[dict], path: Path) -> None:
    """Write one CSV row per fit."""
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS, restval="")
        writer.writeheader()
        writer.writerows(rows)
    print(f"\nWrote {len(rows)} rows to {path}")


def main(argv: list[str] | None = None) -> int:
    """Run the ablation; return 1 if variants contradict each other, else 0."""
    args = parse_args(argv)
    rows = list(run_all(args))
    print_table(rows, args)
    if args.csv is not None:
        write_csv(rows, args.csv)
    return report_disagreements(
        [{**row, "solver": row["variant"], "depth": args.depth} for row in rows]
    )


if __name__ == "__main__":
    if sys.argv[1:2] == [WORKER_FLAG]:
        print(json.dumps(fit_once(json.loads(sys.argv[2]))))
    else:
        sys.exit(main())
