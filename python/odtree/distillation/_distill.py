"""The tree that agrees best with a fitted model: :func:`distill` and the
:class:`DistilledTreeClassifier` and :class:`DistilledTreeRegressor` meta-estimators.

The model labels the rows (``X``, and optionally extra rows drawn around ``X``); an optimal
tree is then fitted to those labels, so that among the trees of the given depth over the
binarized features it is the one that disagrees with the model on the least weight of rows
(for a regressor: whose squared distance to the model's predictions is least).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, RegressorMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.metrics import r2_score
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._search.fitting import one_fit_at_a_time
from .._utils.inputs import is_dataframe
from ..tree._classifier import OptimalTreeClassifier
from ..tree._regressor import OptimalTreeRegressor

__all__ = ["DistilledTreeClassifier", "DistilledTreeRegressor", "distill"]

#: The student tree's settings each meta-estimator takes, with their checks.
_TREE_SETTINGS = {
    "max_depth": [Interval(Integral, 0, None, closed="left")],
    "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
    "max_leaf_nodes": [Interval(Integral, 1, None, closed="left"), None],
    "ccp_alpha": [Interval(Real, 0, None, closed="left")],
    "thresholds": [StrOptions({"auto", "quantile", "midpoints", "exact"})],
    "n_thresholds": [Interval(Integral, 1, None, closed="left")],
    "time_limit": [Interval(Real, 0, None, closed="left"), None],
    "n_jobs": [Integral, None],
}

#: The settings of the extra rows.
_SAMPLING = {
    "n_samples": [Interval(Integral, 0, None, closed="left")],
    "random_state": ["random_state"],
}


def _fitted_model(model, X, y, sample_weight):
    """``model`` when it is fitted (or is not a scikit-learn estimator, so cannot say), else a
    clone fitted on ``(X, y)``."""
    try:
        check_is_fitted(model)
        return model
    except TypeError:  # not an estimator: a black box with ``predict`` is taken as fitted
        return model
    except NotFittedError:
        if y is None:
            raise ValueError("the model is not fitted, so fitting it requires y to be "
                             "passed, but the target y is None (or fit the model first)") \
                from None
        fitted = clone(model)
        if sample_weight is None:
            return fitted.fit(X, y)
        return fitted.fit(X, y, sample_weight=sample_weight)


def extra_rows(X, n_samples: int, rng: np.random.Generator):
    """``n_samples`` rows drawn around ``X``: each is a random row of ``X`` whose columns are
    each, with probability 1/2, taken from another random row instead. Every value is one
    ``X`` holds in that column, so categories, integers and 0/1 columns stay valid, and the
    rows fill the space between the training rows where the model's answers are unseen."""
    n_rows = X.shape[0]
    first = rng.integers(0, n_rows, n_samples)
    second = rng.integers(0, n_rows, n_samples)
    swap = rng.random((n_samples, X.shape[1])) < 0.5
    if is_dataframe(X):
        import pandas as pd

        columns = {name: X.iloc[np.where(swap[:, j], second, first), j].reset_index(drop=True)
                   for j, name in enumerate(X.columns)}
        return pd.DataFrame(columns)
    X = np.asarray(X)
    rows = np.where(swap, second[:, None], first[:, None])
    return X[rows, np.arange(X.shape[1])]


def _stack(X, extra):
    if extra is None:
        return X
    if is_dataframe(X):
        import pandas as pd

        return pd.concat([X.reset_index(drop=True), extra], ignore_index=True)
    return np.concatenate([np.asarray(X), extra])


class _Distilled(MetaEstimatorMixin, BaseEstimator):
    """What the two meta-estimators share: the rows, the model's labels, the student."""

    _student: type

    def _tree(self):
        return self._student(**{name: getattr(self, name) for name in _TREE_SETTINGS})

    def _rows(self, X, sample_weight):
        """The rows the tree is fitted on (``X``, then the extra rows) and their weights."""
        weight = (np.ones(X.shape[0]) if sample_weight is None
                  else np.asarray(sample_weight, dtype=float))
        if weight.shape != (X.shape[0],):
            raise ValueError(f"sample_weight has shape {weight.shape}; X has {X.shape[0]} rows")
        extra = None
        if self.n_samples:
            rng = np.random.default_rng(self.random_state if isinstance(
                self.random_state, Integral | None) else self.random_state.randint(2**31))
            extra = extra_rows(X, self.n_samples, rng)
            # an extra row weighs what an average row of X does
            weight = np.concatenate([weight, np.full(self.n_samples, weight.mean())])
        return _stack(X, extra), weight

    @one_fit_at_a_time
    def fit(self, X, y=None, sample_weight=None):
        """Distils the model on ``X`` (and the extra rows).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The rows whose answers the tree must reproduce.
        y : array-like of shape (n_samples,), default=None
            Used only when ``model`` is not fitted yet: a clone of it is fitted on
            ``(X, y)`` first (and kept as ``model_``).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows of ``X`` (for the model's fit too, when it is fitted here).

        Returns
        -------
        self
        """
        self._validate_params()
        if issparse(X):
            raise TypeError("distillation does not accept sparse input: the extra rows are "
                            "drawn from dense rows; pass X.toarray()")
        if y is not None and len(getattr(y, "shape", ())) == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)  # one column: a DataConversionWarning, as sklearn
        if not (is_dataframe(X) or isinstance(X, np.ndarray)):
            X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
        model = self.model if self.model is not None else self._default_model()
        self.model_ = _fitted_model(model, X, y, sample_weight)
        rows, weight = self._rows(X, sample_weight)
        self.estimator_ = self._fit_student(rows, weight)
        self.n_rows_used_ = rows.shape[0]
        self.fidelity_ = self._fidelity(rows)
        self.n_features_in_ = self.estimator_.n_features_in_
        if hasattr(self.estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.estimator_.feature_names_in_
        elif hasattr(self, "feature_names_in_"):  # a refit on columns without names
            del self.feature_names_in_
        return self

    def score_fidelity(self, X) -> float:
        """How well the tree agrees with the model on ``X``: the share of rows where both
        give the same class (classifier), or the R² of the tree's predictions against the
        model's (regressor)."""
        check_is_fitted(self)
        return self._fidelity(X)

    def predict(self, X):
        check_is_fitted(self)
        return self.estimator_.predict(X)

    def apply(self, X):
        check_is_fitted(self)
        return self.estimator_.apply(X)

    def decision_path(self, X):
        check_is_fitted(self)
        return self.estimator_.decision_path(X)

    def get_depth(self) -> int:
        check_is_fitted(self)
        return self.estimator_.get_depth()

    def get_n_leaves(self) -> int:
        check_is_fitted(self)
        return self.estimator_.get_n_leaves()

    @property
    def tree_(self):
        """The distilled tree's ``tree_``."""
        check_is_fitted(self)
        return self.estimator_.tree_

    @property
    def feature_importances_(self) -> np.ndarray:
        """The distilled tree's ``feature_importances_``."""
        check_is_fitted(self)
        return self.estimator_.feature_importances_


class DistilledTreeClassifier(ClassifierMixin, _Distilled):
    """The optimal tree that agrees best with a fitted classifier.

    The model labels the rows (``X`` and ``n_samples`` extra rows drawn around it), and an
    optimal classification tree is fitted to its labels: among the trees within the limits,
    over the binarized features, the one that disagrees with the model on the least weight
    of rows. With ``soft=True`` the model's ``predict_proba`` is used instead: each row counts
    once per class, weighted by the model's probability of that class, so the tree
    minimises the expected disagreement and a row the model is unsure of matters less.

    Parameters
    ----------
    model : classifier or None, default=None
        The black box, with ``predict`` (and ``predict_proba`` for ``soft=True``): used as
        it is when fitted (or not a scikit-learn estimator), else a clone fitted on
        ``fit``'s ``(X, y)``. ``None``: scikit-learn's
        ``RandomForestClassifier(random_state=0)``.
    soft : bool, default=False
        Weigh each row's classes by the model's probabilities instead of taking its
        predicted class.
    max_depth, min_samples_leaf, max_leaf_nodes, ccp_alpha, thresholds, n_thresholds, \
time_limit, n_jobs
        The distilled tree's settings, as in :class:`OptimalTreeClassifier`; ``time_limit``
        returns the best tree found so far.
    n_samples : int, default=0
        Extra rows drawn around ``X`` for the model to label: each is a random row of ``X``
        whose columns are each, with probability 1/2, taken from another random row. Every
        value is one ``X`` holds in its column (categories and integers stay valid). Each
        weighs the mean weight of ``X``'s rows. They show the tree the model's answers
        between the training rows; 0 fits on ``X`` alone.
    random_state : int, RandomState or None, default=None
        Seeds the extra rows.

    Attributes
    ----------
    estimator_ : OptimalTreeClassifier
        The distilled tree; ``predict``, ``predict_proba``, ``apply``, ``decision_path``,
        ``get_depth``, ``get_n_leaves``, ``tree_`` and ``feature_importances_`` are its own.
    model_ : object
        The model distilled (``model`` itself, or its clone fitted here).
    fidelity_ : float
        The share of the rows used (``X`` and the extra rows) on which the tree predicts the
        model's class.
    n_rows_used_ : int
        Rows the tree was fitted on.
    classes_ : ndarray
        The classes the tree can predict: those the model gave some row.
    n_features_in_ : int
        Number of input columns.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from odtree import DistilledTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> forest = RandomForestClassifier(n_estimators=50, random_state=0).fit(X, y)
    >>> tree = DistilledTreeClassifier(forest, max_depth=2).fit(X)
    >>> tree.get_depth(), round(tree.fidelity_, 3) > 0.9
    (2, True)
    """

    _student = OptimalTreeClassifier
    _parameter_constraints: dict = {
        "model": [HasMethods(["predict"]), None], "soft": ["boolean"],
        **_TREE_SETTINGS, **_SAMPLING}

    def __init__(self, model=None, *, soft=False, max_depth=3, min_samples_leaf=1,
                 max_leaf_nodes=None, ccp_alpha=0.0, thresholds="auto", n_thresholds=10,
                 time_limit=None, n_jobs=None, n_samples=0, random_state=None):
        self.model = model
        self.soft = soft
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_leaf_nodes = max_leaf_nodes
        self.ccp_alpha = ccp_alpha
        self.thresholds = thresholds
        self.n_thresholds = n_thresholds
        self.time_limit = time_limit
        self.n_jobs = n_jobs
        self.n_samples = n_samples
        self.random_state = random_state

    @staticmethod
    def _default_model():
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(random_state=0)

    def _fit_student(self, rows, weight):
        tree = self._tree()
        if not self.soft:
            return tree.fit(rows, self.model_.predict(rows), sample_weight=weight)
        if not hasattr(self.model_, "predict_proba"):
            raise ValueError("soft=True needs a model with predict_proba")
        proba = np.asarray(self.model_.predict_proba(rows), dtype=float)
        classes = np.asarray(self.model_.classes_)
        row, column = np.nonzero(proba > 0)
        stacked = rows.iloc[row] if is_dataframe(rows) else rows[row]
        return tree.fit(stacked, classes[column], sample_weight=weight[row] * proba[row, column])

    def _fidelity(self, X) -> float:
        return float(np.mean(self.estimator_.predict(X) == self.model_.predict(X)))

    @property
    def classes_(self) -> np.ndarray:
        check_is_fitted(self)
        return self.estimator_.classes_

    def predict_proba(self, X):
        check_is_fitted(self)
        return self.estimator_.predict_proba(X)


class DistilledTreeRegressor(RegressorMixin, _Distilled):
    """The optimal regression tree closest to a fitted regressor.

    The model predicts a value for each row (``X`` and ``n_samples`` extra rows drawn around
    it), and an optimal regression tree is fitted to those values: among the trees within the
    limits, over the binarized features, the one of least weighted squared distance to the
    model's predictions.

    Parameters
    ----------
    model : regressor or None, default=None
        The black box, with ``predict``: used as it is when fitted (or not a scikit-learn
        estimator), else a clone fitted on ``fit``'s ``(X, y)``. ``None``: scikit-learn's
        ``RandomForestRegressor(random_state=0)``.
    max_depth, min_samples_leaf, max_leaf_nodes, ccp_alpha, thresholds, n_thresholds, \
time_limit, n_jobs
        The distilled tree's settings, as in :class:`OptimalTreeRegressor`; ``time_limit``
        returns the best tree found so far.
    n_samples : int, default=0
        Extra rows drawn around ``X`` for the model to label: each is a random row of ``X``
        whose columns are each, with probability 1/2, taken from another random row. Every
        value is one ``X`` holds in its column (categories and integers stay valid). Each
        weighs the mean weight of ``X``'s rows. They show the tree the model's answers
        between the training rows; 0 fits on ``X`` alone.
    random_state : int, RandomState or None, default=None
        Seeds the extra rows.

    Attributes
    ----------
    estimator_ : OptimalTreeRegressor
        The distilled tree; ``predict``, ``apply``, ``decision_path``, ``get_depth``,
        ``get_n_leaves``, ``tree_`` and ``feature_importances_`` are its own.
    model_ : object
        The model distilled (``model`` itself, or its clone fitted here).
    fidelity_ : float
        The R² of the tree's predictions against the model's, on the rows used.
    n_rows_used_ : int
        Rows the tree was fitted on.
    n_features_in_ : int
        Number of input columns.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.ensemble import GradientBoostingRegressor
    >>> from odtree import DistilledTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> boosted = GradientBoostingRegressor(random_state=0).fit(X, y)
    >>> tree = DistilledTreeRegressor(boosted, max_depth=3).fit(X)
    >>> tree.get_n_leaves() <= 8, tree.fidelity_ > 0.5
    (True, True)
    """

    _student = OptimalTreeRegressor
    _parameter_constraints: dict = {
        "model": [HasMethods(["predict"]), None], **_TREE_SETTINGS, **_SAMPLING}

    def __init__(self, model=None, *, max_depth=3, min_samples_leaf=1, max_leaf_nodes=None,
                 ccp_alpha=0.0, thresholds="auto", n_thresholds=10, time_limit=None,
                 n_jobs=None, n_samples=0, random_state=None):
        self.model = model
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_leaf_nodes = max_leaf_nodes
        self.ccp_alpha = ccp_alpha
        self.thresholds = thresholds
        self.n_thresholds = n_thresholds
        self.time_limit = time_limit
        self.n_jobs = n_jobs
        self.n_samples = n_samples
        self.random_state = random_state

    @staticmethod
    def _default_model():
        from sklearn.ensemble import RandomForestRegressor

        return RandomForestRegressor(random_state=0)

    def _fit_student(self, rows, weight):
        targets = np.asarray(self.model_.predict(rows), dtype=float)
        return self._tree().fit(rows, targets, sample_weight=weight)

    def _fidelity(self, X) -> float:
        return float(r2_score(self.model_.predict(X), self.estimator_.predict(X)))


def distill(model, X, *, max_depth=3, soft=False, n_samples=0, random_state=None,
            sample_weight=None, min_samples_leaf=1, max_leaf_nodes=None, ccp_alpha=0.0,
            thresholds="auto", n_thresholds=10, time_limit=None, n_jobs=None):
    """The optimal tree that agrees best with the fitted ``model`` on ``X``: a fitted
    :class:`DistilledTreeClassifier` for a classifier, :class:`DistilledTreeRegressor` for a
    regressor (``soft`` is for classifiers only).

    Parameters
    ----------
    model : fitted estimator
        The black box, with ``predict``.
    X : array-like or DataFrame of shape (n_samples, n_features)
        The rows whose answers the tree must reproduce.
    max_depth, soft, n_samples, random_state
        As in :class:`DistilledTreeClassifier`.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the rows of ``X``.
    min_samples_leaf, max_leaf_nodes, ccp_alpha, thresholds, n_thresholds, time_limit, n_jobs
        As in :class:`DistilledTreeClassifier`.

    Returns
    -------
    DistilledTreeClassifier or DistilledTreeRegressor
        Fitted, with ``fidelity_`` and ``score_fidelity``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.ensemble import GradientBoostingClassifier
    >>> from odtree import distill
    >>> X, y = load_iris(return_X_y=True)
    >>> boosted = GradientBoostingClassifier(random_state=0).fit(X, y)
    >>> distill(boosted, X, max_depth=2).fidelity_ > 0.9
    True
    """
    from sklearn.base import is_regressor

    tree_settings = dict(min_samples_leaf=min_samples_leaf, max_leaf_nodes=max_leaf_nodes,
                         ccp_alpha=ccp_alpha, thresholds=thresholds, n_thresholds=n_thresholds,
                         time_limit=time_limit, n_jobs=n_jobs)
    if is_regressor(model):
        if soft:
            raise ValueError("soft=True is for classifiers: a regressor has no probabilities")
        meta = DistilledTreeRegressor(model, max_depth=max_depth, n_samples=n_samples,
                                      random_state=random_state, **tree_settings)
    else:
        meta = DistilledTreeClassifier(model, max_depth=max_depth, soft=soft,
                                       n_samples=n_samples, random_state=random_state,
                                       **tree_settings)
    return meta.fit(X, sample_weight=sample_weight)
