"""odtree: provably optimal decision trees with a Rust core and a scikit-learn API."""

from importlib.metadata import PackageNotFoundError, version

from . import datasets
from ._binarizer import Binarizer
from ._boosting import LPBoostClassifier, MDBoostClassifier
from ._classes import OptimalTreeClassifier
from ._distinct import DistinctTrees, distinct_trees
from ._export import export_graphviz, export_text, plot_anytime, plot_tree
from ._features import BinaryFeature
from ._greedy import GreedyTreeClassifier
from ._improve import DepthImprover, improve_depth
from ._progress import Progress
from ._regressor import OptimalTreeRegressor
from ._selection import DistinctTreeSelector
from ._serialize import from_json, to_json
from ._sklearn_import import from_sklearn, to_sklearn
from ._solver import Solution, Solver
from ._tree import Tree
from ._tuning import OptimalTreeCV
from ._unsupervised import OptimalTreeClusterer, OptimalTreePredictor
from .exceptions import InfeasibleWarning, NotOptimalWarning

try:
    __version__ = version("odtree")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

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
