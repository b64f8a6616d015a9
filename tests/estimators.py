"""Every public estimator once, with settings small enough to fit hundreds of times: the one
list the tests that run every estimator read (scikit-learn's estimator checks, the fuzz of the
API). Adding an estimator to odtree adds one entry here; ``test_every_public_estimator_has_an
_example`` fails until it does."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import odtree
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor


@dataclass(frozen=True)
class Example:
    """How the shared tests run one public estimator."""

    #: A fresh estimator with small settings.
    make: Callable[[], object]
    #: The scikit-learn check of its kind that must be among those run.
    kind_check: str
    #: Parameters the API fuzz draws, each as (valid values, wrong values); empty: the fuzz
    #: leaves the estimator out.
    fuzz: dict = field(default_factory=dict)


#: Public name -> its example. ``GreedyTreeClassifier`` takes ``min_cases=1``: its
#: ``min_cases`` counts rows, as scikit-learn's ``min_samples_leaf`` does, so a row of weight
#: 2 is two copies of it only at 1 (scikit-learn's own default); its C4.5 default of 2 fails
#: the weight-equivalence check as ``DecisionTreeClassifier(min_samples_leaf=2)`` does.
EXAMPLES = {
    "OptimalTreeClassifier": Example(
        odtree.OptimalTreeClassifier, "check_classifiers_train",
        {"max_depth": ([0, 1, 2, 3, None], [-1]), "min_samples_leaf": ([1, 2], [0]),
         "thresholds": (["auto", "quantile", "exact", "midpoints"], ["x"]),
         "missing": (["error", "split"], []), "ccp_alpha": ([0.0, 0.01], [-1.0]),
         "criterion": (["misclassification", "f1"], []),
         "max_leaf_nodes": ([None, 2, 3], [1])}),
    "OptimalTreeRegressor": Example(
        lambda: odtree.OptimalTreeRegressor(max_depth=2), "check_regressors_train",
        {"max_depth": ([0, 1, 2, None], [-1]), "min_samples_leaf": ([1, 3], [0]),
         "thresholds": (["auto", "quantile", "exact"], []),
         "criterion": (["squared_error", "absolute_error", "quantile"], []),
         "max_leaf_nodes": ([None, 2, 3], [])}),
    "OptimalTreeClusterer": Example(
        lambda: odtree.OptimalTreeClusterer(max_depth=2), "check_clustering",
        {"max_depth": ([1, 2], [-2]), "n_clusters": ([None, 2, 3], [])}),
    "GreedyTreeClassifier": Example(
        lambda: odtree.GreedyTreeClassifier(max_depth=3, min_cases=1), "check_classifiers_train",
        {"max_depth": ([None, 0, 2], [-1]), "min_cases": ([1, 2], [0]),
         "criterion": (["entropy", "gain_ratio"], ["gini"])}),
    "LPBoostClassifier": Example(
        odtree.LPBoostClassifier, "check_classifiers_train",
        {"max_depth": ([1, 2], []), "max_iterations": ([1, 3], [0])}),
    "MDBoostClassifier": Example(odtree.MDBoostClassifier, "check_classifiers_train"),
    "DepthImprover": Example(lambda: odtree.DepthImprover(time_limit=5.0, sat_timeout=2.0),
                             "check_classifiers_train"),
    "DistinctTreeSelector": Example(odtree.DistinctTreeSelector, "check_transformer_general",
                                    {"max_depth": ([None, 1, 2], [])}),
    "OptimalTreeCV": Example(
        odtree.OptimalTreeCV, "check_classifiers_train",
        {"depths": ([(1,), (1, 2)], [(), (0,)]), "cv": ([2, 3], [1])}),
    "Binarizer": Example(odtree.Binarizer, "check_transformer_general"),
    "RashomonSet": Example(
        lambda: odtree.RashomonSet(max_depth=2, epsilon=0.05, max_trees=50),
        "check_classifiers_train",
        {"max_depth": ([0, 1, 2], [-1]), "epsilon": ([0.0, 0.1], [-0.5]),
         "max_trees": ([None, 1, 5], [0])}),
    "RashomonSetRegressor": Example(
        lambda: odtree.RashomonSetRegressor(max_depth=2, epsilon=0.05, max_trees=50),
        "check_regressors_train",
        {"max_depth": ([0, 1, 2], [-1]), "epsilon": ([0.0, 0.1], [-0.5])}),
    "DistilledTreeClassifier": Example(
        lambda: odtree.DistilledTreeClassifier(DecisionTreeClassifier(random_state=0),
                                               max_depth=2), "check_classifiers_train",
        {"max_depth": ([1, 2], [-1]), "soft": ([False, True], []),
         "n_samples": ([0, 20], [-1])}),
    "DistilledTreeRegressor": Example(
        lambda: odtree.DistilledTreeRegressor(DecisionTreeRegressor(random_state=0),
                                              max_depth=2), "check_regressors_train",
        {"max_depth": ([1, 2], [-1]), "n_samples": ([0, 20], [-1])}),
}

#: Public estimators the shared tests leave out, and why.
LEFT_OUT = {
    "OptimalTreePredictor": "fits only with the user's error function (PyDL8.5's predictor), "
                            "which scikit-learn's checks cannot give",
}
