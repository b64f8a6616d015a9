"""F1-score trees against pystreed (issue 18): the optimal training F1-score of
``OptimalTreeClassifier(criterion="f1")`` (searches of weighted misclassification), of the
same with ``pareto_front=True`` (the Pareto fronts of every subproblem) and of
``STreeDClassifier(optimization_task="f1-score")`` in the same run, with the seconds of each
and the ratios to pystreed. The optima must be equal; the script says so when they are not.
Prints a Markdown table.

Example::

    ODTREE_DATA=/work/shared/datasets python benchmarks/f1.py --depths 2,3
"""

from __future__ import annotations

import argparse
import time

SETS = "heart-cleveland,vote,tic-tac-toe,australian-credit,hepatitis,anneal,kr-vs-kp,mushroom"


def main() -> None:
    from odtree import OptimalTreeClassifier
    from odtree.datasets import load_benchmark
    from pystreed import STreeDClassifier
    from sklearn.metrics import f1_score

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=SETS)
    parser.add_argument("--depths", default="2,3")
    args = parser.parse_args()
    print("| dataset | depth | F1 (all) | pystreed s | odtree s | odtree / pystreed "
          "| odtree front s | front / pystreed |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.datasets.split(","):
        X, y = load_benchmark(name)
        for depth in map(int, args.depths.split(",")):
            start = time.perf_counter()
            peer = STreeDClassifier(optimization_task="f1-score", max_depth=depth).fit(X, y)
            peer_seconds = time.perf_counter() - start
            peer_f1 = f1_score(y, peer.predict(X))
            found, seconds = [], []
            for front in (False, True):
                start = time.perf_counter()
                found.append(OptimalTreeClassifier(max_depth=depth, criterion="f1",
                                                   pareto_front=front).fit(X, y).objective_)
                seconds.append(time.perf_counter() - start)
            same = all(abs(value - peer_f1) < 1e-9 for value in found)
            value = f"{peer_f1:.6f}" if same else \
                f"DIFFER: odtree {found[0]:.6f}, front {found[1]:.6f}, pystreed {peer_f1:.6f}"
            print(f"| {name} | {depth} | {value} | {peer_seconds:.3f} | {seconds[0]:.3f} | "
                  f"{seconds[0] / peer_seconds:.2f} | {seconds[1]:.3f} | "
                  f"{seconds[1] / peer_seconds:.2f} |", flush=True)


if __name__ == "__main__":
    main()
