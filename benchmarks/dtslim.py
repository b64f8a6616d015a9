"""DT-SLIM in our terms (the paper's Table 1): the depth of scikit-learn's CART tree grown
until the training rows are classified, before and after ``improve_depth``, with each
oracle setting.

For each set, CART is fitted once; then ``improve_depth`` runs with its defaults
(``oracle="both"`` with the pilot method), with SAT alone and with the engine alone
(``--oracles``; these two without the pilot), each under its own time limit. Every result
is checked to classify the training rows as CART does. Prints a Markdown table and the
average depth before and after. ``nina`` in ``--datasets`` stands for all the ``nina/``
sets.

Example::

    python benchmarks/dtslim.py --datasets nina/hungarian-un_converted,mushroom --time-limit 60
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

#: The shared sets of 1,000 rows or more, scikit-learn's digits and generated data; "nina"
#: adds the nina/ sets.
SETS = ("german-credit,yeast,segment,splice-1,kr-vs-kp,hypothyroid,pendigits,mushroom,"
        "digits,generated-10k,generated-100k")


def load(name):
    """A shared benchmark set, scikit-learn's digits, or generated data of n rows."""
    from sklearn.datasets import load_digits, make_classification

    if name == "digits":
        return load_digits(return_X_y=True)
    if name.startswith("generated-"):
        rows = int(name.removeprefix("generated-").removesuffix("k")) * 1000
        return make_classification(rows, 20, n_informative=10, n_classes=2, flip_y=0.02,
                                   random_state=0)
    from odtree.datasets import load_benchmark

    return load_benchmark(name)


def nina_sets() -> list[str]:
    """The shared ``nina/`` sets (not their ``reduced/`` variants)."""
    from odtree.datasets import list_benchmarks

    return [name for name in list_benchmarks() if name.count("/") == 1
            and name.startswith("nina/")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=SETS)
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--single-limit", type=float, default=100.0,
                        help="seconds for SAT alone and for the engine alone")
    parser.add_argument("--sat-timeout", type=float, default=10.0)
    parser.add_argument("--sample-limit", default="mid")
    parser.add_argument("--oracles", default="both,sat,dp",
                        help="the settings to run: both (at --time-limit), sat, dp (at "
                             "--single-limit)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    from odtree import improve_depth
    from sklearn.tree import DecisionTreeClassifier

    settings = [(oracle, args.time_limit if oracle == "both" else args.single_limit)
                for oracle in args.oracles.split(",")]
    header = " | ".join(f"{oracle} depth (s) | {oracle} proved least | "
                        f"{oracle} wins sat/dp/pilot" for oracle, _ in settings)
    print(f"| set | rows | features | CART depth | {header} |")
    print("|---" * (4 + 3 * len(settings)) + "|")
    before, after = [], {oracle: [] for oracle, _ in settings}
    proved = {oracle: 0 for oracle, _ in settings}
    names = []
    for name in args.datasets.split(","):
        names += nina_sets() if name == "nina" else [name]
    for name in names:
        X, y = load(name)
        cart = DecisionTreeClassifier(random_state=0).fit(X, y)
        cells = [name, str(len(y)), str(X.shape[1]), str(cart.get_depth())]
        before.append(cart.get_depth())
        for oracle, limit in settings:
            start = time.perf_counter()
            model = improve_depth(cart, X, y, oracle=oracle, time_limit=limit,
                                  sat_timeout=args.sat_timeout,
                                  sample_limit=args.sample_limit, pilot=oracle == "both")
            seconds = time.perf_counter() - start
            if not np.array_equal(model.predict(X), cart.predict(X)):
                raise AssertionError(f"{name}: the improved tree classifies differently")
            after[oracle].append(model.get_depth())
            proved[oracle] += model.depth_lower_bound_ == model.get_depth()
            wins = model.oracle_wins_
            cells += [f"{model.get_depth()} ({seconds:.0f})",
                      str(model.depth_lower_bound_ or "-"),
                      f"{wins['sat']}/{wins['dp']}/{wins['pilot']}"]
        print("| " + " | ".join(cells) + " |", flush=True)
    mean = np.mean(before)
    print(f"\naverage CART depth {mean:.2f}")
    for oracle, depths in after.items():
        reduction = 100 * (1 - np.mean(depths) / mean)
        per_set = 100 * np.mean(1 - np.array(depths) / np.array(before))
        print(f"average depth with {oracle}: {np.mean(depths):.2f} ({reduction:.0f} % lower; "
              f"the sets' own reductions average {per_set:.0f} %); proved least on "
              f"{proved[oracle]} of {len(depths)} sets")


if __name__ == "__main__":
    main()
