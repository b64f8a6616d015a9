"""The best tree in the time given: odtree, pystreed, LicketySPLIT and CART (issue 14).

Each instance (dataset, depth) is fitted by odtree and by pystreed at every time limit, each
fit in its own worker process (``compare.py``'s), one after the other; LicketySPLIT
(``lambda_leaf=0``, ``depth_budget`` = the depth; it has no time limit) and scikit-learn's CART
(``DecisionTreeClassifier``, the same depth) once each, on the same 0/1 features. The score is
the training errors (lower is better), with odtree's proven ``lower_bound_`` beside them.
Writes a CSV (one row per fit), a table per time limit on stdout (with how many timed-out
fits have a bound above 0) and a PNG of errors against the time limit per instance.
``--solvers`` runs a subset.

Examples::

    python benchmarks/anytime.py --limits 1,10
    python benchmarks/anytime.py --instances german-credit:6,yeast:7 --limits 1,10,60
    python benchmarks/anytime.py --limits 1,10,60 --solvers odtree,licketysplit,cart
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np
from _solvers import load_dataset
from compare import (
    WORKER_FLAG,
    add_data_dir_option,
    check_datasets,
    dataset_path,
    run_script_worker,
)

#: The instances of issue 14, as dataset:depth.
DEFAULT_INSTANCES = ("splice-1:4,splice-1:5,german-credit:6,australian-credit:6,yeast:7,"
                     "ionosphere:5,vehicle:6,kr-vs-kp:7,hypothyroid:6,anneal:7")
#: Solvers given a time limit, and solvers run once.
TIMED = ("odtree", "pystreed")
ONCE = ("licketysplit", "cart")
#: Seconds a solver without a time limit may take before its worker is killed.
ONCE_SECONDS = 600.0
CSV_COLUMNS = ["dataset", "depth", "solver", "time_limit", "errors", "lower_bound", "seconds",
               "status"]


def make(solver: str, depth: int, limit: float):
    """An unfitted model of `solver` (the imports happen here, outside the timed fit)."""
    if solver == "odtree":
        from odtree import OptimalTreeClassifier

        return OptimalTreeClassifier(max_depth=depth, time_limit=limit)
    if solver == "pystreed":
        from _solvers import _make_pystreed

        return _make_pystreed(depth, limit)
    if solver == "licketysplit":
        from licketysplit import LicketySPLITClassifier

        return LicketySPLITClassifier(lambda_leaf=0.0, depth_budget=depth)
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(max_depth=depth, random_state=0)


def fit(job: dict) -> dict:
    """Fits one solver on one instance (in a worker) and counts its training errors."""
    import warnings

    X, y = load_dataset(job["path"])
    if job["solver"] == "pystreed":
        X = X.astype(np.intc)
    model = make(job["solver"], job["depth"], job["time_limit"])
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # odtree's "time limit reached"
        model.fit(X, y)
    seconds = time.perf_counter() - start
    errors = int((np.asarray(model.predict(X)).ravel() != y).sum())
    # odtree's proven bound on the errors (its objective counts weighted rows)
    bound = getattr(model, "lower_bound_", None)
    bound = None if bound is None else float(bound)
    return {"errors": errors, "lower_bound": bound, "seconds": seconds,
            "status": getattr(model, "status_", "")}


def run(args: argparse.Namespace) -> list[dict]:
    """Every fit, printed as it ends."""
    rows = []
    for instance in args.instances.split(","):
        name, depth = instance.split(":")
        path = str(dataset_path(args.data_dir, name))
        jobs = [(solver, limit) for limit in args.limits for solver in TIMED
                if solver in args.solvers]
        jobs += [(solver, None) for solver in ONCE if solver in args.solvers]
        for solver, limit in jobs:
            job = {"path": path, "depth": int(depth), "solver": solver,
                   "time_limit": ONCE_SECONDS if limit is None else limit}
            result = {"errors": None, "seconds": None, **run_script_worker(__file__, job)}
            if result.get("error"):
                result["status"] = f"{result['status']}: {result['error']}"[:80]
            row = {"dataset": name, "depth": int(depth), "solver": solver,
                   "time_limit": limit, **result}
            rows.append(row)
            print(f"{name} d{depth} {solver} limit {limit}: {row['errors']} errors "
                  f"in {row['seconds'] and round(row['seconds'], 2)} s {row['status']}",
                  flush=True)
    return rows


def print_tables(rows: list[dict], limits: list[float], solvers: list[str]) -> None:
    """One table per time limit: each solver's errors and odtree's proven bound."""
    instances = list(dict.fromkeys((r["dataset"], r["depth"]) for r in rows))
    found = {(r["dataset"], r["depth"], r["solver"], r["time_limit"]): r for r in rows}
    peers = [s for s in solvers if s != "odtree"]
    names = {"pystreed": "pystreed", "licketysplit": "LicketySPLIT", "cart": "CART"}
    for limit in limits:
        print(f"\nTraining errors at a {limit:g} s limit (LicketySPLIT and CART: one run, "
              "seconds in brackets)")
        print("| instance | odtree | odtree's lower_bound_ | "
              + " | ".join(names[s] for s in peers) + " |")
        print("|---|---|---|" + "---|" * len(peers))
        wins = dict.fromkeys(peers, 0)
        timed_out = bounded = 0
        for name, depth in instances:
            ours = found[(name, depth, "odtree", limit)]
            if ours["status"] == "time_limit":
                timed_out += 1
                bounded += (ours["lower_bound"] or 0) > 0
            cells = [str(ours["errors"]), f"{ours['lower_bound']:g}"
                     if ours["lower_bound"] is not None else "-"]
            for solver in peers:
                theirs = found[(name, depth, solver, limit if solver in TIMED else None)]
                if None not in (ours["errors"], theirs["errors"]) and \
                        ours["errors"] <= theirs["errors"]:
                    wins[solver] += 1
                cells.append(f"{theirs['errors']}" if solver in TIMED
                             else f"{theirs['errors']} ({theirs['seconds']:.2g} s)")
            print(f"| {name} d{depth} | " + " | ".join(cells) + " |")
        total = len(instances)
        print("odtree no worse than " + ", ".join(
            f"{names[s]} on {wins[s]}/{total}" for s in peers)
              + f"; lower_bound_ > 0 on {bounded} of {timed_out} timed-out fits")


def plot(rows: list[dict], solvers: list[str], png: Path) -> None:
    """Errors against the time limit, one panel per instance."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    instances = list(dict.fromkeys((r["dataset"], r["depth"]) for r in rows))
    columns = min(5, len(instances))
    lines = -(-len(instances) // columns)
    figure, axes = plt.subplots(lines, columns, figsize=(4 * columns, 3 * lines), squeeze=False)
    for ax, (name, depth) in zip(axes.flat, instances, strict=False):
        for solver in (s for s in TIMED if s in solvers):
            points = [(r["time_limit"], r["errors"]) for r in rows
                      if (r["dataset"], r["depth"], r["solver"]) == (name, depth, solver)
                      and r["errors"] is not None]
            if points:
                ax.plot(*zip(*sorted(points), strict=True), marker="o", label=solver)
        for solver, style in zip(ONCE, ("--", ":"), strict=True):
            row = next((r for r in rows if (r["dataset"], r["depth"], r["solver"])
                        == (name, depth, solver)), None)
            if row is not None and row["errors"] is not None:
                ax.axhline(row["errors"], linestyle=style, color="grey", label=solver)
        ax.set_xscale("log")
        ax.set_title(f"{name}, depth {depth}")
        ax.set_xlabel("time limit (s)")
        ax.set_ylabel("training errors")
    axes.flat[0].legend()
    for ax in list(axes.flat)[len(instances):]:
        ax.set_visible(False)
    figure.tight_layout()
    figure.savefig(png, dpi=90)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instances", default=DEFAULT_INSTANCES,
                        help="comma-separated dataset:depth pairs")
    parser.add_argument("--limits", default="1,10,60", help="time limits in seconds")
    parser.add_argument("--solvers", default=",".join(TIMED + ONCE),
                        help="comma-separated subset of " + ",".join(TIMED + ONCE))
    parser.add_argument("--csv", default="anytime.csv")
    parser.add_argument("--png", default="anytime.png")
    add_data_dir_option(parser)
    args = parser.parse_args(argv)
    args.limits = [float(limit) for limit in args.limits.split(",")]
    args.solvers = args.solvers.split(",")
    check_datasets(parser, args.data_dir, [i.split(":")[0] for i in args.instances.split(",")])
    rows = run(args)
    with open(args.csv, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    print_tables(rows, args.limits, args.solvers)
    plot(rows, args.solvers, Path(args.png))
    print(f"\nwrote {args.csv} and {args.png}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == [WORKER_FLAG]:
        import json

        print(json.dumps(fit(json.loads(sys.argv[2]))))
        sys.exit(0)
    sys.exit(main(sys.argv[1:]))
