"""Tuning on a dask.distributed cluster, as a user sends it there:
``joblib.parallel_backend("dask")`` around ``OptimalTreeCV`` and
``GridSearchCV(OptimalTreeClassifier())`` on a LocalCluster of two worker processes gives the
serial choices and scores."""

import joblib
import numpy as np
import pytest
from odtree import OptimalTreeClassifier, OptimalTreeCV
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            yield client


def test_tuning_on_a_local_cluster_gives_the_serial_choices(client):
    X, y = load_breast_cancer(return_X_y=True)
    grid = {"max_depth": [1, 2, 3], "max_leaf_nodes": [2, 4, 8]}
    serial_cv = OptimalTreeCV(depths=(1, 2, 3), max_leaf_nodes=(2, 4, 8), cv=3).fit(X, y)
    serial_grid = GridSearchCV(OptimalTreeClassifier(), grid, cv=3).fit(X, y)
    with joblib.parallel_backend("dask"):
        with distributed.get_task_stream(client) as cv_tasks:
            cv = OptimalTreeCV(depths=(1, 2, 3), max_leaf_nodes=(2, 4, 8), cv=3,
                               n_jobs=-1).fit(X, y)
        with distributed.get_task_stream(client) as grid_tasks:
            search = GridSearchCV(OptimalTreeClassifier(), grid, cv=3, n_jobs=-1).fit(X, y)
    assert cv.best_params_ == serial_cv.best_params_
    np.testing.assert_array_equal(cv.cv_results_["mean_test_score"],
                                  serial_cv.cv_results_["mean_test_score"])
    assert search.best_params_ == serial_grid.best_params_
    np.testing.assert_array_equal(search.cv_results_["mean_test_score"],
                                  serial_grid.cv_results_["mean_test_score"])
    # the fits ran as tasks on the cluster's workers (joblib batches them: fewer tasks than
    # fits, and none without the backend)
    assert len(cv_tasks.data) > 0
    assert len(grid_tasks.data) > 0
