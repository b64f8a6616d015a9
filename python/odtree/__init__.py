"""odtree: provably optimal decision trees with a Rust core and a scikit-learn API.

The public names load on first use (PEP 562): ``import odtree`` and ``odtree --version`` do
not import scikit-learn, SciPy, pandas, HiGHS, PySAT or matplotlib; ``from odtree import
OptimalTreeClassifier`` imports what that estimator needs.
"""

from importlib import import_module

# Each public name and the submodule that defines it.
_LAZY = {
    "Binarizer": "_binarizer",
    "BinaryFeature": "_features",
    "DepthImprover": "_improve",
    "DistinctTreeSelector": "_selection",
    "DistinctTrees": "_distinct",
    "GreedyTreeClassifier": "_greedy",
    "InfeasibleWarning": "exceptions",
    "LPBoostClassifier": "_boosting",
    "MDBoostClassifier": "_boosting",
    "NotOptimalWarning": "exceptions",
    "OptimalTreeCV": "_tuning",
    "OptimalTreeClassifier": "_classes",
    "OptimalTreeClusterer": "_unsupervised",
    "OptimalTreePredictor": "_unsupervised",
    "OptimalTreeRegressor": "_regressor",
    "Progress": "_progress",
    "Solution": "_solver",
    "Solver": "_solver",
    "Tree": "_tree",
    "distinct_trees": "_distinct",
    "export_graphviz": "_export",
    "export_text": "_export",
    "from_json": "_serialize",
    "from_sklearn": "_sklearn_import",
    "to_sklearn": "_sklearn_import",
    "improve_depth": "_improve",
    "plot_anytime": "_export",
    "plot_tree": "_export",
    "to_json": "_serialize",
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
    "Solution",
    "Solver",
    "Tree",
    "__version__",
    "datasets",
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
