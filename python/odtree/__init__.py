"""odtree: provably optimal decision trees with a Rust core and a scikit-learn API.

The public names load on first use (PEP 562): ``import odtree`` and ``odtree --version`` do
not import scikit-learn, SciPy, pandas, HiGHS, PySAT or matplotlib; ``from . import
OptimalTreeClassifier`` imports what that estimator needs.
"""

from importlib import import_module

from ._aliases import install as _install_old_paths

_install_old_paths()  # models pickled before the families load (see odtree._aliases)

# Each public name and the submodule that defines it.
_LAZY = {
    "Binarizer": "preprocessing._binarizer",
    "BinaryFeature": "preprocessing._features",
    "DepthImprover": "slim._improve",
    "DistinctTreeSelector": "distinct._selection",
    "DistinctTrees": "distinct._trees",
    "DistilledTreeClassifier": "distillation._distill",
    "DistilledTreeRegressor": "distillation._distill",
    "GreedyTreeClassifier": "tree._greedy",
    "InfeasibleWarning": "exceptions",
    "LPBoostClassifier": "ensemble._boosting",
    "MDBoostClassifier": "ensemble._boosting",
    "NotOptimalWarning": "exceptions",
    "OptimalTreeCV": "model_selection._tuning",
    "OptimalTreeClassifier": "tree._classifier",
    "OptimalTreeClusterer": "tree._unsupervised",
    "OptimalTreePredictor": "tree._unsupervised",
    "OptimalTreeRegressor": "tree._regressor",
    "Progress": "_search.progress",
    "RashomonSet": "rashomon._set",
    "RashomonSetRegressor": "rashomon._set",
    "Solution": "_search.solver",
    "Solver": "_search.solver",
    "Tree": "tree._arrays",
    "distill": "distillation._distill",
    "distinct_trees": "distinct._trees",
    "export_graphviz": "tree._export",
    "export_text": "tree._export",
    "from_json": "_json",
    "from_sklearn": "tree._from_sklearn",
    "to_sklearn": "tree._to_sklearn",
    "improve_depth": "slim._improve",
    "plot_anytime": "tree._export",
    "plot_tree": "tree._export",
    "to_json": "_json",
}


def __getattr__(name):
    """Import a public name's submodule on first use and keep the name in the package."""
    if name == "__version__":  # read on first use: importlib.metadata takes 25 ms to load
        value = _installed_version()
    elif name == "datasets":
        value = import_module(".datasets", __name__)
    elif name in _LAZY:
        value = getattr(import_module("." + _LAZY[name], __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def _installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("odtree")
    except PackageNotFoundError:  # running from a source tree that was not installed
        return "0.0.0+unknown"


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "Binarizer",
    "BinaryFeature",
    "DepthImprover",
    "DistinctTreeSelector",
    "DistinctTrees",
    "DistilledTreeClassifier",
    "DistilledTreeRegressor",
    "GreedyTreeClassifier",
    "InfeasibleWarning",
    "LPBoostClassifier",
    "MDBoostClassifier",
    "NotOptimalWarning",
    "OptimalTreeCV",
    "OptimalTreeClassifier",
    "OptimalTreeClusterer",
    "OptimalTreePredictor",
    "OptimalTreeRegressor",
    "Progress",
    "RashomonSet",
    "RashomonSetRegressor",
    "Solution",
    "Solver",
    "Tree",
    "__version__",
    "datasets",
    "distill",
    "distinct_trees",
    "export_graphviz",
    "export_text",
    "from_json",
    "from_sklearn",
    "to_sklearn",
    "improve_depth",
    "plot_anytime",
    "plot_tree",
    "to_json",
]
