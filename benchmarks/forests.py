"""Optimal forests against pydl8-5's ``DL85Booster`` (issue 15, in progress).

For each set, depth and model, fits odtree's ``OptimalBoostingClassifier`` and the peer with
the same regulariser, in one process, one after the other, and prints both master objectives
(the peer's computed from its margins, with its tree weights, which sum to 1, rescaled to
MDBoost's ``D``), their relative difference and the time ratio. The peer solves its master
with cvxpy and SCS, to about 1e-3; odtree with HiGHS.

Example::

    python benchmarks/forests.py --datasets vote,lymph --depths 1,2
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

#: The ten CP4IM sets of thesis chapter 6.
THESIS_SETS = ("anneal,audiology,heart-cleveland,hepatitis,lymph,primary-tumor,soybean,"
               "tic-tac-toe,vote,zoo-1")


def lpboost_objective(margins: np.ndarray, regulariser: float) -> float:
    """LPBoost's primal for fixed tree weights summing to 1: the best soft margin ``rho``
    less ``D`` times the slacks, at one of the margins."""
    return max(rho - regulariser * np.maximum(0.0, rho - margins).sum() for rho in margins)


def mdboost_objective(margins: np.ndarray) -> float:
    """MDBoost's primal: the margins' sum less half of ``rho' A rho``."""
    m = len(margins)
    return float(margins.sum() - margins @ ((m * margins - margins.sum()) / (m - 1)) / 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=THESIS_SETS)
    parser.add_argument("--depths", default="1,2")
    parser.add_argument("--lpboost-d", type=float, default=0.1)
    parser.add_argument("--mdboost-d", type=float, default=3.0)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    np.in1d = np.isin  # pydl85's booster calls it; numpy 2.4 removed it
    import pydl85
    from odtree._boosting import OptimalBoostingClassifier
    from odtree.datasets import load_benchmark

    models = [("lpboost", args.lpboost_d, pydl85.MODEL_LP_RATSCH),
              ("mdboost", args.mdboost_d, pydl85.MODEL_QP_MDBOOST)]
    print("| set | depth | model | odtree | DL85Booster | relative difference | "
          "odtree s | peer s | peer / odtree |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for name in args.datasets.split(","):
        X, y = load_benchmark(name)
        for depth in map(int, args.depths.split(",")):
            for model, regulariser, peer_model in models:
                if model == "mdboost" and len(np.unique(y)) > 2:
                    continue  # two classes only for now
                start = time.perf_counter()
                ours = OptimalBoostingClassifier(model=model, regulariser=regulariser,
                                                 max_depth=depth).fit(X, y)
                ours_seconds = time.perf_counter() - start
                start = time.perf_counter()
                peer = pydl85.DL85Booster(max_depth=depth, model=peer_model,
                                          regulator=regulariser, quiet=True).fit(X, y)
                peer_seconds = time.perf_counter() - start
                weights = np.asarray(peer.estimator_weights_, dtype=float)
                margins = np.asarray(peer.margins_, dtype=float) / weights.sum()
                peer_objective = (lpboost_objective(margins, regulariser) if model == "lpboost"
                                  else mdboost_objective(margins * regulariser))
                difference = abs(ours.objective_ - peer_objective) / max(abs(peer_objective),
                                                                         1e-12)
                ratios.append(peer_seconds / ours_seconds)
                print(f"| {name} | {depth} | {model} | {ours.objective_:.6f} | "
                      f"{peer_objective:.6f} | {difference:.1e} | {ours_seconds:.3f} | "
                      f"{peer_seconds:.3f} | {ratios[-1]:.1f} |", flush=True)
    print(f"geometric mean of peer / odtree time: {np.exp(np.mean(np.log(ratios))):.1f}")


if __name__ == "__main__":
    main()
