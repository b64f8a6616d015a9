"""One fit at a time per object: a second thread's fit, or a fit from inside the object's own
progress callback, is refused and leaves the object whole."""

import threading

import numpy as np
import pytest
from odtree import OptimalTreeClassifier
from sklearn.datasets import load_breast_cancer


def test_two_threads_cannot_fit_one_estimator_at_once():
    """Both fits ran and left the estimator with parts of each."""
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(200, 6))
    y = X[:, 0] ^ X[:, 1]
    started = threading.Event()

    def slow(weights):
        started.set()
        threading.Event().wait(0.002)
        return float(weights.sum() - weights.max()), int(np.argmax(weights))

    model = OptimalTreeClassifier(max_depth=2, fast_error_function=slow)
    errors = []
    first = threading.Thread(target=lambda: model.fit(X, y))
    first.start()
    started.wait(10)
    try:
        model.fit(X, 1 - y)
    except RuntimeError as error:
        errors.append(error)
    first.join()
    assert len(errors) == 1 and "another thread" in str(errors[0])
    # the estimator holds the first fit alone, and can be fitted again afterwards
    assert model.objective_ == (model.predict(X) != y).sum()
    model.fit(X, 1 - y)
    assert (model.predict(X) == 1 - y).all()


def test_a_fit_from_inside_its_own_callback_is_refused_at_once():
    X, y = load_breast_cancer(return_X_y=True)
    model = OptimalTreeClassifier(max_depth=3, thresholds="midpoints", time_limit=20)
    model.set_params(callback=lambda event: model.fit(X, y))
    with pytest.raises(RuntimeError, match="inside its own progress callback"):
        model.fit(X, y)


@pytest.mark.parametrize("name", ["GreedyTreeClassifier", "DistinctTreeSelector"])
def test_one_object_fitted_from_two_threads_is_refused(name):
    import threading

    import odtree

    estimator = getattr(odtree, name)()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200_000 if name == "GreedyTreeClassifier" else 3_000, 8))
    y = rng.integers(0, 2, len(X))
    errors = []

    def fit(columns):
        try:
            estimator.fit(X[:, :columns], y)
        except RuntimeError as error:
            errors.append(str(error))

    threads = [threading.Thread(target=fit, args=(c,)) for c in (8, 6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(errors) == 1 and "another thread" in errors[0]
    # the fit that ran left a consistent model
    assert estimator.n_features_in_ in (8, 6)
    use = estimator.predict if hasattr(estimator, "predict") else estimator.transform
    assert len(use(X[:5, :estimator.n_features_in_])) == 5
