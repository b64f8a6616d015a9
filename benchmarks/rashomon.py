"""Rashomon sets: odtree's RashomonSet against TREEFARMS (treefarms 0.2.4) on the binary sets.

Each fit runs in a process of its own, which reports the wall time of ``fit`` and the
process's peak resident memory (``ru_maxrss``, imports included); with ``--repeats k``, each
timed fit runs in k processes and the fastest is reported, for both. Both first fit a depth-1
set on 30 rows, so that neither pays its imports and first-call costs in the time. Both get
the same 0/1 features, the objective "misclassification share + ``--alpha`` per leaf", the
bound ``(1 + epsilon) x`` the optimum, and the same depth (TREEFARMS's ``depth_budget``
counts the leaves' level too: depth + 1). odtree lists ``--max-trees`` trees (it counts them
all either way).

The two count the same set when odtree is run as TREEFARMS counts: without trivial splits
(``trivial_splits=False``: no split whose two leaves predict one class) and with a leaf's tie
going to the highest class, which odtree does when fitted on the labels reversed (it breaks
ties to the lowest). That run is timed against TREEFARMS; the ``odtree, every tree`` column
is the count of the issue's definition (trivial splits kept, ties to the lowest class).

Examples::

    python benchmarks/rashomon.py --datasets heart-cleveland,tic-tac-toe --depths 2,3
    python benchmarks/rashomon.py --treefarms-python /path/to/venv/bin/python

A set is a name from the shared data, or a CSV file's path (a header row, 0/1 columns, the
class last), as TREEFARMS's own sets are (``experiments/datasets/monk_1/data.csv`` in its
repository; such a set is named by its folder)::

    python benchmarks/rashomon.py --datasets treefarms/experiments/datasets/monk_1/data.csv

TREEFARMS needs its own environment where its pins clash with odtree's (it pins old pandas):
``--treefarms-python`` runs its fits with that interpreter.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap

ODTREE_WORKER = textwrap.dedent("""
    import json, resource, sys, time
    import numpy as np
    from odtree import RashomonSet
    from odtree.datasets import read_benchmark_file
    if sys.argv[1].endswith(".csv"):  # a header row, the class last
        data = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
        X, y = data[:, :-1], data[:, -1]
    else:
        X, y = read_benchmark_file(sys.argv[1])
    depth, alpha, epsilon, most = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), \\
        int(sys.argv[5])
    as_treefarms = sys.argv[6] == "treefarms"
    if as_treefarms:  # ties to the highest class: the labels reversed
        codes = np.unique(y, return_inverse=True)[1]
        y = codes.max() - codes
    RashomonSet(max_depth=1, ccp_alpha=alpha, epsilon=epsilon).fit(X[:30], y[:30])  # warm-up
    start = time.perf_counter()
    found = RashomonSet(max_depth=depth, ccp_alpha=alpha, epsilon=epsilon, max_trees=most,
                        trivial_splits=not as_treefarms).fit(X, y)
    seconds = time.perf_counter() - start
    print(json.dumps({"count": found.n_trees_, "seconds": seconds,
                      "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
""")


TREEFARMS_WORKER = textwrap.dedent("""
    import contextlib, io, json, resource, sys, time
    import numpy as np, pandas as pd
    from treefarms import TREEFARMS
    if sys.argv[1].endswith(".csv"):  # a header row, the class last
        data = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
        data = data[:, [-1, *range(data.shape[1] - 1)]]
    else:
        data = np.loadtxt(sys.argv[1], dtype=np.int64, ndmin=2)
    X = pd.DataFrame(data[:, 1:], columns=[f"f{j}" for j in range(data.shape[1] - 1)])
    y = pd.Series(data[:, 0], name="class")
    config = {"regularization": float(sys.argv[3]), "rashomon_bound_multiplier":
              float(sys.argv[4]), "depth_budget": int(sys.argv[2]) + 1}
    with contextlib.redirect_stdout(io.StringIO()):  # warm-up
        TREEFARMS({**config, "depth_budget": 2}).fit(X[:30], y[:30])
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        model = TREEFARMS(config).fit(X, y)
    seconds = time.perf_counter() - start
    print(json.dumps({"count": model.get_tree_count(), "seconds": seconds,
                      "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
""")


def _fastest(python: str, worker: str, args: list[str], timeout: float,
             repeats: int) -> dict | str:
    """The run of ``repeats`` (each in a process of its own) with the fastest fit, or the
    first failure."""
    runs = [_run(python, worker, args, timeout) for _ in range(repeats)]
    failed = [run for run in runs if isinstance(run, str)]
    return failed[0] if failed else min(runs, key=lambda run: run["seconds"])


def _run(python: str, worker: str, args: list[str], timeout: float) -> dict | str:
    try:
        done = subprocess.run([python, "-c", worker, *args], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    if done.returncode != 0:
        return "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:80]
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="heart-cleveland,tic-tac-toe,vote,hepatitis")
    parser.add_argument("--depths", default="2,3")
    parser.add_argument("--epsilons", default="0.05,0.1")
    parser.add_argument("--alpha", type=float, default=0.01)
    parser.add_argument("--max-trees", type=int, default=100_000)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--repeats", type=int, default=1,
                        help="processes per fit, the fastest reported (default: 1)")
    parser.add_argument("--treefarms-python", default=sys.executable)
    parser.add_argument("--data-dir", default=os.environ.get("ODTREE_DATA", os.path.join(
        os.path.dirname(__file__), "..", "..", "shared", "datasets")))
    args = parser.parse_args(argv)
    print("| set | depth | epsilon | odtree, every tree | odtree, TREEFARMS's form | "
          "TREEFARMS trees | odtree s | TREEFARMS s | speed-up | odtree MB | TREEFARMS MB |")
    print("|---" * 11 + "|")
    for name in args.datasets.split(","):
        path = name if name.endswith(".csv") else os.path.join(args.data_dir, name + ".txt")
        if name.endswith(".csv"):  # named by its folder, as TREEFARMS's sets are
            name = os.path.basename(os.path.dirname(os.path.abspath(name)))
        for depth in args.depths.split(","):
            for epsilon in args.epsilons.split(","):
                common = [path, depth, str(args.alpha), epsilon]
                every = _run(sys.executable, ODTREE_WORKER,
                             [*common, str(args.max_trees), "every"], args.timeout)
                ours = _fastest(sys.executable, ODTREE_WORKER,
                                [*common, str(args.max_trees), "treefarms"], args.timeout,
                                args.repeats)
                theirs = _fastest(args.treefarms_python, TREEFARMS_WORKER, common,
                                  args.timeout, args.repeats)
                cells = [name, depth, epsilon]
                for result in (every, ours, theirs):
                    if isinstance(result, str):
                        print("| " + " | ".join(cells + [result] * 8) + " |")
                        break
                else:
                    speed = theirs["seconds"] / max(ours["seconds"], 1e-9)
                    cells += [str(every["count"]), str(ours["count"]), str(theirs["count"]),
                              f"{ours['seconds']:.3g}", f"{theirs['seconds']:.3g}",
                              f"{speed:.1f}", f"{ours['mb']:.0f}", f"{theirs['mb']:.0f}"]
                    print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
