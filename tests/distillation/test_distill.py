"""Distillation: the distilled tree is optimal on the rows used (brute force on tiny data, hard
and soft), agrees with forests and boosting on held-out rows at least as well as CART grown
on the model's labels, and refuses what it cannot do."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from odtree import DistilledTreeClassifier, DistilledTreeRegressor, distill
from odtree.distillation._distill import extra_rows
from oracles import brute_force_objective
from scipy.sparse import csr_matrix
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.ensemble import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor


class LookupModel:
    """A black box that is no scikit-learn estimator: a class per distinct row, and made-up
    probabilities."""

    def __init__(self, n_classes, seed):
        self.n_classes, self.seed = n_classes, seed
        self.classes_ = np.arange(n_classes)

    def _code(self, X):
        return (np.asarray(X, dtype=np.int64) @ (3 ** np.arange(X.shape[1]))) * 7919 + self.seed

    def predict(self, X):
        return self._code(X) % self.n_classes

    def predict_proba(self, X):
        raw = np.stack([(self._code(X) * (c + 3)) % 5 + 0.5 for c in range(self.n_classes)],
                       axis=1)
        return raw / raw.sum(axis=1, keepdims=True)


@st.composite
def tiny(draw):
    n_rows = draw(st.integers(2, 12))
    n_columns = draw(st.integers(1, 4))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=n_columns,
                                        max_size=n_columns), min_size=n_rows,
                               max_size=n_rows)))
    model = LookupModel(draw(st.integers(2, 3)), draw(st.integers(0, 50)))
    return X, model, draw(st.integers(0, 2)), draw(st.integers(0, 6))


@settings(max_examples=300, deadline=None)
@given(tiny())
def test_the_tree_disagrees_least_with_the_model_on_the_rows_used(case):
    X, model, depth, n_samples = case
    tree = DistilledTreeClassifier(model, max_depth=depth, n_samples=n_samples,
                                   random_state=3).fit(X)
    rows = X if not n_samples else np.vstack(
        [X, extra_rows(X, n_samples, np.random.default_rng(3))])
    labels = model.predict(rows)
    disagreements = int(np.sum(tree.predict(rows) != labels))
    assert disagreements == brute_force_objective(rows, labels, np.ones(len(rows)), depth, 1)
    assert tree.fidelity_ == pytest.approx(1 - disagreements / len(rows))
    assert tree.n_rows_used_ == len(rows)


@settings(max_examples=200, deadline=None)
@given(tiny())
def test_the_soft_tree_minimises_the_expected_disagreement(case):
    X, model, depth, _ = case
    tree = DistilledTreeClassifier(model, max_depth=depth, soft=True).fit(X)
    proba = model.predict_proba(X)
    leaves = tree.apply(X)
    predicted = np.searchsorted(model.classes_, tree.predict(X))
    expected = float(np.sum(1 - proba[np.arange(len(X)), predicted]))

    def leaf(rows):  # the least expected disagreement of one leaf over these rows
        return float(np.min(np.sum(1 - proba[rows], axis=0)))

    best = brute_force_objective(X, np.zeros(len(X)), np.ones(len(X)), depth, 1, leaf=leaf)
    assert expected == pytest.approx(best, abs=1e-9)
    assert len(np.unique(leaves)) <= 2 ** depth


@pytest.mark.parametrize("model", [RandomForestClassifier(n_estimators=50, random_state=0),
                                   GradientBoostingClassifier(random_state=0)],
                         ids=["forest", "boosting"])
def test_held_out_fidelity_is_at_least_carts_on_the_models_labels(model):
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, _ = train_test_split(X, y, random_state=0)
    model.fit(X_train, y_train)
    tree = distill(model, X_train, max_depth=3)
    cart = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X_train,
                                                                   model.predict(X_train))
    assert tree.fidelity_ >= np.mean(cart.predict(X_train) == model.predict(X_train))
    assert tree.score_fidelity(X_test) >= np.mean(cart.predict(X_test) == model.predict(X_test))
    assert tree.get_depth() <= 3


@pytest.mark.parametrize("model", [RandomForestRegressor(n_estimators=50, random_state=0),
                                   GradientBoostingRegressor(random_state=0)],
                         ids=["forest", "boosting"])
@pytest.mark.parametrize("n_samples", [0, 1000])
def test_a_regressor_distils_at_least_as_well_as_cart(model, n_samples):
    X, y = load_diabetes(return_X_y=True)
    X_train, X_test, y_train, _ = train_test_split(X, y, random_state=0)
    model.fit(X_train, y_train)
    tree = distill(model, X_train, max_depth=3, n_samples=n_samples, random_state=0)
    assert isinstance(tree, DistilledTreeRegressor)
    cart = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X_train,
                                                                  model.predict(X_train))
    assert tree.score_fidelity(X_test) >= r2_score(model.predict(X_test), cart.predict(X_test))


def test_an_unfitted_model_is_fitted_on_y_and_the_outputs_are_the_trees():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    meta = DistilledTreeClassifier(DecisionTreeClassifier(max_depth=4, random_state=0),
                                   max_depth=2, n_samples=200, random_state=1).fit(X, y)
    assert meta.model_ is not meta.model and meta.model_.get_depth() == 4
    assert list(meta.feature_names_in_) == list(X.columns)
    assert meta.n_rows_used_ == len(X) + 200
    np.testing.assert_array_equal(meta.predict(X), meta.estimator_.predict(X))
    np.testing.assert_allclose(meta.predict_proba(X), meta.estimator_.predict_proba(X))
    assert meta.get_n_leaves() <= 4 and meta.tree_ is meta.estimator_.tree_
    assert meta.feature_importances_.shape == (X.shape[1],)
    again = pickle.loads(pickle.dumps(meta))
    np.testing.assert_array_equal(again.predict(X), meta.predict(X))
    assert again.score_fidelity(X) == meta.score_fidelity(X)


def test_extra_rows_keep_each_columns_values():
    X = np.array([[0, 10, 1.5], [1, 20, 2.5], [1, 30, 3.5]])
    extra = extra_rows(X, 200, np.random.default_rng(0))
    assert extra.shape == (200, 3)
    for j in range(3):
        assert set(extra[:, j]) <= set(X[:, j])


def test_what_cannot_be_distilled_is_refused():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="requires y"):
        DistilledTreeClassifier(DecisionTreeClassifier()).fit(X)
    regressor = DecisionTreeRegressor(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="soft=True is for classifiers"):
        distill(regressor, X, soft=True)

    class NoProbabilities:
        classes_ = np.array([0, 1])

        def predict(self, X):
            return (np.asarray(X)[:, 0] > 14).astype(int)

    with pytest.raises(ValueError, match="predict_proba"):
        DistilledTreeClassifier(NoProbabilities(), soft=True).fit(X)
    with pytest.raises(TypeError, match="sparse"):
        DistilledTreeClassifier(NoProbabilities()).fit(csr_matrix(X))
    with pytest.raises(ValueError, match="max_depth"):
        DistilledTreeClassifier(NoProbabilities(), max_depth=-1).fit(X)
