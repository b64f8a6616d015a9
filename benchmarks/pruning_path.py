"""The exact cost-complexity path against one unconstrained search (issue 32).

On each dataset, ``OptimalTreeClassifier(max_depth=d).cost_complexity_pruning_path(X, y)``
(one search per leaf budget on a kept solver, each finding the subproblems of the last kept)
and ``OptimalTreeClassifier(max_depth=d).fit(X, y)`` are timed in the same process, the
fastest of ``--repeat`` runs each. The target is a path in at most twice the time of one
search.

Examples::

    python benchmarks/pruning_path.py
    python benchmarks/pruning_path.py --datasets vote,anneal --depth 3 --repeat 5
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from functools import partial

from _solvers import load_dataset
from compare import add_data_dir_option, check_datasets, dataset_path

DEFAULT_DATASETS = "german-credit,australian-credit,heart-cleveland,vote,anneal,yeast"


def fastest(call, repeat: int) -> tuple[float, object]:
    """The least wall time of ``repeat`` calls of ``call()``, and the last result."""
    best, result = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=DEFAULT_DATASETS)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    add_data_dir_option(parser)
    args = parser.parse_args(argv)
    check_datasets(parser, args.data_dir, args.datasets.split(","))

    from odtree import OptimalTreeClassifier

    print(f"depth {args.depth}, fastest of {args.repeat}")
    print("| dataset | one search s | path s | path / search | leaves on the path |")
    print("|---|---|---|---|---|")
    ratios = []
    for name in args.datasets.split(","):
        X, y = load_dataset(dataset_path(args.data_dir, name))
        model = OptimalTreeClassifier(max_depth=args.depth)
        search_s, _ = fastest(partial(model.fit, X, y), args.repeat)
        path_s, path = fastest(partial(model.cost_complexity_pruning_path, X, y), args.repeat)
        ratios.append(path_s / search_s)
        print(f"| {name} | {search_s:.3g} | {path_s:.3g} | {path_s / search_s:.2f} | "
              f"{path.n_leaves.tolist()} |")
    mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"\ngeometric mean path / search: {mean:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
