"""Speed-up of the exact search by number of threads (``n_jobs``) on race instances.

Each instance is solved to optimality once per thread count, one after the other in this
process (the fastest of ``--repeats`` fits); the script checks that every thread count gives
the same objective and tree, and prints the time and the speed-up over one thread, with the
geometric mean of the speed-ups. Run it on a machine with at least as many cores as the
largest thread count. With ``--thresholds exact`` the instances are the real-valued sets of
the ``continuous/`` folder, solved over every threshold of their columns; with ``--front``,
the trees of greatest F1-score through the Pareto fronts (``criterion="f1",
pareto_front=True``), whose fronts must be the same too.

Examples::

    python benchmarks/threads.py
    python benchmarks/threads.py --threads 1,2,4,8,16 --instances german-credit:4,yeast:5
    python benchmarks/threads.py --thresholds exact
    python benchmarks/threads.py --front
"""

from __future__ import annotations

import argparse
import math
import sys
import time

DEFAULT_INSTANCES = {
    "grid": "german-credit:4,vehicle:4,anneal:5,hypothyroid:5,kr-vs-kp:5,yeast:5,"
            "australian-credit:5",
    "exact": "wilt:3,raisin:3,segment:3,page:3,rice:3,occupancy:3,fault:3",
    "front": "heart-cleveland:4,vote:4,australian-credit:4,anneal:4,kr-vs-kp:4,mushroom:4,"
             "hepatitis:4,tic-tac-toe:4",
}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", default="1,2", help="thread counts (default: 1,2)")
    parser.add_argument("--thresholds", choices=("grid", "exact"), default="grid",
                        help="grid: the 0/1 benchmark sets as they are (default); exact: the "
                             "real-valued sets over every threshold")
    parser.add_argument("--front", action="store_true",
                        help="F1-score trees through the Pareto fronts")
    parser.add_argument("--instances", help="dataset:depth pairs, comma-separated (default: "
                        "the --thresholds kind's instances, or --front's)")
    parser.add_argument("--repeats", type=int, default=1, help="fits per count (default: 1)")
    args = parser.parse_args(argv)

    from odtree import OptimalTreeClassifier, export_text
    from odtree.datasets import load_benchmark, load_continuous

    exact = args.thresholds == "exact"
    load = load_continuous if exact else load_benchmark
    settings = {"thresholds": "exact"} if exact else {}
    if args.front:
        settings.update(criterion="f1", pareto_front=True)
    kind = "front" if args.front else args.thresholds

    counts = [int(t) for t in args.threads.split(",")]
    print("| instance | " + " | ".join(f"{n} thread{'s' * (n > 1)} s" for n in counts)
          + " | " + " | ".join(f"speed-up ×{n}" for n in counts[1:]) + " |")
    print("|---" * (1 + 2 * len(counts) - 1) + "|")
    speedups: dict[int, list[float]] = {n: [] for n in counts[1:]}
    same = True
    for instance in (args.instances or DEFAULT_INSTANCES[kind]).split(","):
        name, depth = instance.split(":")
        X, y = load(name)
        times, trees = [], []
        for n_jobs in counts:
            best = math.inf
            for _ in range(args.repeats):
                model = OptimalTreeClassifier(max_depth=int(depth), n_jobs=n_jobs, **settings)
                start = time.perf_counter()
                model.fit(X, y)
                best = min(best, time.perf_counter() - start)
            times.append(best)
            front = model.pareto_front_.tolist() if args.front else None
            trees.append((model.objective_, front, export_text(model)))
        if any(tree != trees[0] for tree in trees):
            same = False
            print(f"{name} d{depth}: the thread counts gave different trees", file=sys.stderr)
        for n, t in zip(counts[1:], times[1:], strict=True):
            speedups[n].append(times[0] / t)
        print(f"| {name} d{depth} | " + " | ".join(f"{t:.3g}" for t in times) + " | "
              + " | ".join(f"{times[0] / t:.2f}" for t in times[1:]) + " |")
    for n, values in speedups.items():
        mean = math.exp(sum(math.log(v) for v in values) / len(values))
        print(f"geometric mean speed-up with {n} threads: {mean:.2f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
