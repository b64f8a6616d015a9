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


@pytest.mark.parametrize("estimator_class, params, kind_check", CONFIGURATIONS)
def test_check_estimator(monkeypatch, estimator_class, params, kind_check):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")  # else check_array_api_input is skipped
    results = check_estimator(estimator_class(**params), on_fail=None)
    assert len(results) >= 50
    names = {result["check_name"] for result in results}
    assert {"check_fit2d_1sample", "check_sample_weight_equivalence_on_dense_data",
            kind_check, "check_array_api_input"} <= names
    bad = [(result["check_name"], result["status"], repr(result["exception"]))
           for result in results if result["status"] in ("skipped", "failed")]
    assert bad == []
    assert all(result["status"] == "passed" for result in results), {
        result["check_name"]: result["status"] for result in results}
