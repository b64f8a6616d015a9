"""scikit-learn's estimator checks on every public estimator, every one of them run (none
skipped, none expected to fail)."""

import inspect

import odtree
import pytest
from estimators import EXAMPLES, LEFT_OUT
from odtree import OptimalTreeClassifier
from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import check_estimator

#: Each public estimator (``tests/estimators.py``), and more settings of some, with the check
#: of its kind that must be among those run. ``check_class_weight_classifiers`` passes
#: through ``min_weight_fraction_leaf``, which the check sets on every estimator that has it
#: (as on scikit-learn's trees).
CONFIGURATIONS = [
    *(pytest.param(example.make(), example.kind_check, id=name)
      for name, example in EXAMPLES.items()),
    pytest.param(OptimalTreeClassifier(search="dl85", cache="hash", branching="gain_desc"),
                 "check_classifiers_train", id="OptimalTreeClassifier-dl85-hash"),
]


def test_every_public_estimator_has_an_example():
    public = {name for name in odtree.__all__
              if isinstance(getattr(odtree, name), type)
              and issubclass(getattr(odtree, name), BaseEstimator)}
    assert public == set(EXAMPLES) | set(LEFT_OUT)


#: Checks every estimator must have run, whatever its kind.
COMMON = {"check_fit2d_1sample", "check_array_api_input", "check_estimators_pickle",
          "check_n_features_in_after_fitting"}

#: Checks every estimator that takes ``sample_weight`` must have run.
WEIGHTED = {"check_sample_weight_equivalence_on_dense_data", "check_sample_weights_shape"}


@pytest.mark.parametrize("estimator, kind_check", CONFIGURATIONS)
def test_check_estimator(monkeypatch, estimator, kind_check):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")  # else check_array_api_input is skipped
    results = check_estimator(estimator, on_fail=None)
    assert len(results) >= 40
    names = {result["check_name"] for result in results}
    assert COMMON | {kind_check} <= names
    if "sample_weight" in inspect.signature(estimator.fit).parameters:
        assert WEIGHTED <= names
    bad = [(result["check_name"], result["status"], repr(result["exception"]))
           for result in results if result["status"] != "passed"]
    assert bad == []


def test_class_weight_check_passes_by_min_weight_fraction_leaf():
    """The exact optimum with class_weight={0: 1000, 1: 0.0001} fits pure leaves of the light
    class; min_weight_fraction_leaf=0.01, which the check sets, makes every leaf hold weight
    of the heavy class, as on scikit-learn's trees."""
    import numpy as np
    from sklearn.datasets import make_blobs
    from sklearn.model_selection import train_test_split

    X, y = make_blobs(centers=2, random_state=0, cluster_std=20)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.5, random_state=0)
    weights = {0: 1000, 1: 0.0001}
    free = OptimalTreeClassifier(class_weight=weights).fit(X_train, y_train)
    held = OptimalTreeClassifier(class_weight=weights, min_weight_fraction_leaf=0.01).fit(
        X_train, y_train)
    assert np.mean(free.predict(X_test) == 0) <= 0.87
    assert np.mean(held.predict(X_test) == 0) > 0.87
    least = 0.01 * (1000 * np.sum(y_train == 0) + 0.0001 * np.sum(y_train == 1))
    leaves = held.tree_.children_left < 0
    assert np.all(held.tree_.weighted_n_node_samples[leaves] >= least)
