"""F1-score trees against pystreed (issue 18): the optimal training F1-score of
``OptimalTreeClassifier(criterion="f1")`` and of ``STreeDClassifier(optimization_task=
"f1-score")`` in the same run, with the seconds of each and their ratio. The optima must be
equal; the script says so when they are not. Prints a Markdown table.

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
    print("| dataset | depth | F1 (both) | pystreed s | odtree s | odtree / pystreed |")
    print("|---|---|---|---|---|---|")
    for name in args.datasets.split(","):
        X, y = load_benchmark(name)
        for depth in map(int, args.depths.split(",")):
            start = time.perf_counter()
            peer = STreeDClassifier(optimization_task="f1-score", max_depth=depth).fit(X, y)
            peer_seconds = time.perf_counter() - start
            peer_f1 = f1_score(y, peer.predict(X))
            start = time.perf_counter()
            ours = OptimalTreeClassifier(max_depth=depth, criterion="f1").fit(X, y)
            seconds = time.perf_counter() - start
            same = abs(ours.objective_ - peer_f1) < 1e-9
            value = f"{ours.objective_:.6f}" if same else \
                f"DIFFER: odtree {ours.objective_:.6f}, pystreed {peer_f1:.6f}"
            print(f"| {name} | {depth} | {value} | {peer_seconds:.3f} | {seconds:.3f} | "
                  f"{seconds / peer_seconds:.2f} |", flush=True)


if __name__ == "__main__":
    main()
