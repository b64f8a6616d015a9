"""scikit-learn's estimator checks, every one of them run (none skipped)."""

import pytest
from odtree import OptimalTreeClassifier, OptimalTreeClusterer, OptimalTreeRegressor
from sklearn.utils.estimator_checks import check_estimator

CONFIGURATIONS = [
    pytest.param(OptimalTreeClassifier, {}, "check_classifiers_train", id="default"),
    pytest.param(OptimalTreeClassifier,
                 {"search": "dl85", "cache": "hash", "branching": "gain_desc"},
                 "check_classifiers_train", id="dl85-hash"),
    pytest.param(OptimalTreeRegressor, {"max_depth": 2}, "check_regressors_train",
                 id="regressor"),
    pytest.param(OptimalTreeClusterer, {"max_depth": 2}, "check_clustering", id="clusterer"),
]


#: The one check an exact tree fails by design: with class_weight={0: 1000, 1: 0.0001} on noisy
#: blobs, the optimal depth-3 tree gives class 1 every leaf where no row of class 0 falls (which
#: costs less), so fewer than 87 % of the test rows are predicted 0. scikit-learn's own trees
#: pass only because the check sets their min_weight_fraction_leaf; with
#: min_samples_leaf=0.2 ours pass too (tests/test_sklearn_api.py).
EXPECTED_FAILURES = {
    "check_class_weight_classifiers": "the exact optimum fits pure leaves of the light class",
}


@pytest.mark.parametrize("estimator_class, params, kind_check", CONFIGURATIONS)
def test_check_estimator(monkeypatch, estimator_class, params, kind_check):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")  # else check_array_api_input is skipped
    expected = EXPECTED_FAILURES if estimator_class is OptimalTreeClassifier else {}
    results = check_estimator(estimator_class(**params), on_fail=None,
                              expected_failed_checks=expected)
    assert len(results) >= 50
    names = {result["check_name"] for result in results}
    assert {"check_fit2d_1sample", "check_sample_weight_equivalence_on_dense_data",
            kind_check, "check_array_api_input"} <= names
    bad = [(result["check_name"], result["status"], repr(result["exception"]))
           for result in results if result["status"] in ("skipped", "failed")]
    assert bad == []
    assert {result["check_name"] for result in results if result["status"] == "xfail"} == set(
        expected)
    assert all(result["status"] == "passed" for result in results
               if result["check_name"] not in expected), {
        result["check_name"]: result["status"] for result in results}
