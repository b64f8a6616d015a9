"""F1-score and balanced accuracy: the weighted searches (the default) against the Pareto
front (``pareto_front=True``), and on 1 against 2 threads (``n_jobs``). Each time is the
fastest of ``--repeats`` fits, taken in turn; the optima must be equal, and the script says so
when they are not. Prints a Markdown table::

    python benchmarks/metric_searches.py --cases australian-credit:4,vote:4,kr-vs-kp:5
"""

from __future__ import annotations

import argparse
import time

CASES = "heart-cleveland:4,australian-credit:4,kr-vs-kp:4,anneal:4,mushroom:4,vote:4,kr-vs-kp:5"


def fastest(X, y, repeats: int, **params) -> tuple[float, float]:
    """The least seconds of ``repeats`` fits with ``params``, and the fitted metric."""
    from odtree import OptimalTreeClassifier

    best, value = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        value = OptimalTreeClassifier(**params).fit(X, y).objective_
        best = min(best, time.perf_counter() - start)
    return best, value


def main(argv=None) -> None:
    from odtree.datasets import load_benchmark

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=CASES, help="comma-separated set:depth pairs")
    parser.add_argument("--criteria", default="f1,balanced_accuracy")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    print("| set | depth | criterion | metric | searches s | front s | front / searches "
          "| 2 threads s | 1 / 2 threads |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case in args.cases.split(","):
        name, depth = case.split(":")
        X, y = load_benchmark(name)
        for criterion in args.criteria.split(","):
            common = dict(max_depth=int(depth), criterion=criterion)
            one, value = fastest(X, y, args.repeats, **common)
            front, front_value = fastest(X, y, args.repeats, pareto_front=True, **common)
            two, two_value = fastest(X, y, args.repeats, n_jobs=2, **common)
            same = max(abs(front_value - value), abs(two_value - value)) < 1e-9
            metric = f"{value:.6f}" if same else \
                f"DIFFER: {value:.6f}, front {front_value:.6f}, 2 threads {two_value:.6f}"
            print(f"| {name} | {depth} | {criterion} | {metric} | {one:.3f} | {front:.3f} | "
                  f"{front / one:.1f} | {two:.3f} | {one / two:.2f} |", flush=True)


if __name__ == "__main__":
    main()
