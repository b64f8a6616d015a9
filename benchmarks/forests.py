"""Optimal forests against pydl8-5's ``DL85Booster``, and the thesis's tables 6.2 and 6.3.

``peer`` (the default): for each set, depth and model, fits odtree's forest and the peer with
the same regulariser, in one process, one after the other, and prints

- the master objectives: odtree's, and the peer's computed from its margins (its LPBoost
  weights sum to 1 and are rescaled for MDBoost's ``D``);
- the peer's trees re-solved: the exact master (HiGHS) over the trees the peer found. The
  peer solves its master with cvxpy and SCS, to about 1e-3, so its own weights are off by
  that much even when its trees are the right ones;
- the relative difference between odtree's objective and that re-solved one, and the time
  ratio.

``thesis``: table 6.2's comparison (the objective reached with optimal and with greedy
pricing, the same ``D``) and table 6.3's (5-fold test accuracy of the optimal forests against
scikit-learn's AdaBoost, random forest and gradient boosting), at the thesis's depth 3.

Examples::

    python benchmarks/forests.py peer --datasets vote,lymph --depths 1,2
    python benchmarks/forests.py thesis --datasets vote
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

#: The ten CP4IM sets of thesis chapter 6.
THESIS_SETS = ("anneal,audiology,heart-cleveland,hepatitis,lymph,primary-tumor,soybean,"
               "tic-tac-toe,vote,zoo-1")


def lpboost_objective(margins: np.ndarray, D: float) -> float:
    """The thesis LPBoost primal for fixed tree weights summing to 1: the best soft margin
    ``rho`` less ``D`` times the slacks (optimal at one of the margins)."""
    return max(rho - D * np.maximum(0.0, rho - margins).sum() for rho in margins)


def demiriz_objective(margins: np.ndarray, weights: np.ndarray, D: float) -> float:
    """Demiriz et al.'s primal for fixed tree weights: their sum plus ``D`` times the slacks
    below a margin of 1."""
    return float(weights.sum() + D * np.maximum(0.0, 1.0 - margins).sum())


def mdboost_objective(margins: np.ndarray) -> float:
    """MDBoost's primal: the margins' sum less half of ``rho' A rho``."""
    m = len(margins)
    return float(margins.sum() - margins @ ((m * margins - margins.sum()) / (m - 1)) / 2)


def peer_objective(model, peer, D) -> float:
    weights = np.asarray(peer.estimator_weights_, dtype=float)
    margins = np.asarray(peer.margins_, dtype=float)
    if model == "demiriz":
        return demiriz_objective(margins, weights, D)
    margins = margins / weights.sum()
    return lpboost_objective(margins, D) if model == "lpboost" else \
        mdboost_objective(margins * D)


def resolved(model, peer, X, y, D) -> float:
    """The exact master optimum over the trees the peer found."""
    from odtree.ensemble._master import DemirizMaster, LPBoostMaster, MDBoostMaster

    master = {"lpboost": LPBoostMaster, "demiriz": DemirizMaster,
              "mdboost": MDBoostMaster}[model](len(y), D)
    for tree in peer.estimators_:
        master.add_tree(np.asarray(tree.predict(X)) == y)
    master.solve()
    return master.objective


def ours(model, D, depth, **options):
    from odtree import LPBoostClassifier, MDBoostClassifier

    if model == "mdboost":
        return MDBoostClassifier(D=D, max_depth=depth, **options)
    form = "demiriz" if model == "demiriz" else "thesis"
    return LPBoostClassifier(D=D, max_depth=depth, form=form, **options)


def run_peer(name, depth, model, D, gap, results) -> None:
    """Fits the peer (in a child process, so that a run past the cap can be stopped) and
    puts its objective, the exact master over its trees and its time in ``results``."""
    import warnings

    warnings.filterwarnings("ignore")
    np.in1d = np.isin  # pydl85's booster calls it; numpy 2.4 removed it
    import pydl85
    from odtree.datasets import load_benchmark

    X, y = load_benchmark(name)
    peer_model = {"lpboost": pydl85.MODEL_LP_RATSCH, "demiriz": pydl85.MODEL_LP_DEMIRIZ,
                  "mdboost": pydl85.MODEL_QP_MDBOOST}[model]
    start = time.perf_counter()
    peer = pydl85.DL85Booster(max_depth=depth, model=peer_model, regulator=D, opti_gap=gap,
                              quiet=True).fit(X, y)
    seconds = time.perf_counter() - start
    results.put((peer_objective(model, peer, D), resolved(model, peer, X, y, D), seconds))


def peer_fit(name, depth, model, D, gap, cap):
    """``(objective, exact, seconds)`` of the peer, or None past ``cap`` seconds."""
    import multiprocessing

    results = multiprocessing.Queue()
    child = multiprocessing.Process(target=run_peer, args=(name, depth, model, D, gap, results))
    child.start()
    child.join(cap)
    if child.is_alive():
        child.kill()
        child.join()
        return None
    return results.get()


def peer_table(args) -> None:
    from odtree.datasets import load_benchmark

    models = [("lpboost", args.lpboost_d), ("demiriz", args.demiriz_d),
              ("mdboost", args.mdboost_d)]
    print("| set | depth | model | odtree | peer | peer's trees, exact master | "
          "odtree vs that | odtree s | peer s | peer / odtree |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios, worst, capped = [], 0.0, 0
    for name in args.datasets.split(","):
        X, y = load_benchmark(name)
        for depth in map(int, args.depths.split(",")):
            for model, D in models:
                start = time.perf_counter()
                forest = ours(model, D, depth).fit(X, y)
                ours_seconds = time.perf_counter() - start
                peer = peer_fit(name, depth, model, D, args.peer_gap, args.peer_cap)
                if peer is None:
                    capped += 1
                    ratios.append(args.peer_cap / ours_seconds)
                    print(f"| {name} | {depth} | {model} | {forest.objective_:.7g} | "
                          f"stopped at {args.peer_cap:.0f} s | | | {ours_seconds:.3f} | "
                          f"> {args.peer_cap:.0f} | > {ratios[-1]:.1f} |", flush=True)
                    continue
                objective, exact, peer_seconds = peer
                difference = abs(forest.objective_ - exact) / max(abs(exact), 1e-12)
                worst = max(worst, difference)
                ratios.append(peer_seconds / ours_seconds)
                print(f"| {name} | {depth} | {model} | {forest.objective_:.7g} | "
                      f"{objective:.7g} | {exact:.7g} | {difference:.1e} | "
                      f"{ours_seconds:.3f} | {peer_seconds:.3f} | {ratios[-1]:.1f} |",
                      flush=True)
    print(f"\nlargest relative difference: {worst:.1e}; geometric mean of peer / odtree "
          f"time: {np.exp(np.mean(np.log(ratios))):.1f} over {len(ratios)} fits "
          f"({capped} peer fits stopped at {args.peer_cap:.0f} s, counted at the cap)")


def thesis_tables(args) -> None:
    from odtree.datasets import load_benchmark
    from sklearn.ensemble import (
        AdaBoostClassifier,
        GradientBoostingClassifier,
        RandomForestClassifier,
    )
    from sklearn.model_selection import StratifiedKFold
    from sklearn.tree import DecisionTreeClassifier

    depth, sets = args.thesis_depth, args.datasets.split(",")
    print(f"Table 6.2 (shape): master objective with optimal and greedy (CART) pricing, "
          f"depth {depth}, LPBoost D={args.lpboost_d}, MDBoost D={args.mdboost_d}\n")
    print("| set | LPBoost greedy | LPBoost optimal | MDBoost greedy | MDBoost optimal |")
    print("|---|---|---|---|---|")
    for name in sets:
        X, y = load_benchmark(name)
        row = [name]
        for model, D in (("lpboost", args.lpboost_d), ("mdboost", args.mdboost_d)):
            for pricing in ("greedy", "optimal"):
                forest = ours(model, D, depth, pricing=pricing).fit(X, y)
                row.append(f"{forest.objective_:.4g}" + ("" if forest.optimal_ or
                                                          pricing == "greedy" else " (t)"))
        print("| " + " | ".join(row) + " |", flush=True)

    print(f"\nTable 6.3 (shape): 5-fold test accuracy %, trees; depth {depth} for the "
          "forests and AdaBoost's 100 trees\n")
    print("| set | OptiLP trees / train / test | OptiMD trees / train / test | AdaBoost | "
          "RandomForest | GradientBoosting |")
    print("|---|---|---|---|---|---|")
    for name in sets:
        X, y = load_benchmark(name)
        folds = StratifiedKFold(5, shuffle=True, random_state=0)
        scores = {key: [] for key in ("lp", "md", "ada", "rf", "gb")}
        for train, test in folds.split(X, y):
            for key, model, D in (("lp", "lpboost", args.lpboost_d),
                                  ("md", "mdboost", args.mdboost_d)):
                forest = ours(model, D, depth).fit(X[train], y[train])
                scores[key].append((len(forest.estimators_), forest.score(X[train], y[train]),
                                    forest.score(X[test], y[test])))
            for key, peer in (
                    ("ada", AdaBoostClassifier(DecisionTreeClassifier(max_depth=depth),
                                               n_estimators=100, random_state=0)),
                    ("rf", RandomForestClassifier(random_state=0)),
                    ("gb", GradientBoostingClassifier(random_state=0))):
                scores[key].append(peer.fit(X[train], y[train]).score(X[test], y[test]))
        cells = [name]
        for key in ("lp", "md"):
            trees, train_acc, test_acc = np.mean(scores[key], axis=0)
            cells.append(f"{trees:.1f} / {100 * train_acc:.2f} / {100 * test_acc:.2f}")
        cells += [f"{100 * np.mean(scores[key]):.2f}" for key in ("ada", "rf", "gb")]
        print("| " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", nargs="?", choices=("peer", "thesis"), default="peer")
    parser.add_argument("--datasets", default=THESIS_SETS)
    parser.add_argument("--depths", default="1,2", help="peer: the trees' depths")
    parser.add_argument("--thesis-depth", type=int, default=3)
    parser.add_argument("--lpboost-d", type=float, default=0.25)
    parser.add_argument("--demiriz-d", type=float, default=0.5)
    parser.add_argument("--mdboost-d", type=float, default=3.0)
    parser.add_argument("--peer-gap", type=float, default=1e-6,
                        help="peer: its opti_gap (its default, 0.01, stops before the optimum)")
    parser.add_argument("--peer-cap", type=float, default=300.0,
                        help="peer: seconds after which a peer fit is stopped")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    peer_table(args) if args.part == "peer" else thesis_tables(args)


if __name__ == "__main__":
    main()
