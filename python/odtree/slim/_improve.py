"""Make a fitted tree shallower: :func:`improve_depth` and the :class:`DepthImprover`
meta-estimator, around the DT-SLIM loop of :mod:`odtree.slim._slimmer`."""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions, validate_params
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._search.fitting import one_fit_at_a_time
from .._utils.deadline import Deadline
from ..preprocessing._binarizer import Binarizer
from ..tree._base import binarize_input
from ..tree._classifier import OptimalTreeClassifier
from ..tree._fitted import fitted_classifier
from ._slimmer import SAMPLE_LIMITS, Slimmer
from ._tree import SlimTree

#: improve_depth's settings, checked by DepthImprover as its parameters.
_SETTINGS = {
    "oracle": [StrOptions({"sat", "dp", "both"})],
    "time_limit": [Interval(Real, 0, None, closed="left"), None],
    "sat_timeout": [Interval(Real, 0, None, closed="neither")],
    "sample_limit": [StrOptions(set(SAMPLE_LIMITS)), list],
    "encoding": [StrOptions({"hybrid", "depth", "partition"})],
    "solver": [str],
    "max_errors": [Interval(Integral, 0, None, closed="left")],
    "pilot": ["boolean"],
    "n_thresholds": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
    "n_jobs": [Integral, None],
}


@validate_params({"model": "no_validation", "X": "no_validation", "y": "no_validation",
                  **_SETTINGS}, prefer_skip_nested_validation=True)
def improve_depth(model, X, y=None, *, oracle="both", time_limit=300.0, sat_timeout=60.0,
                  sample_limit="mid", encoding="hybrid", solver="glucose4", max_errors=0,
                  pilot=True, n_thresholds=16, random_state=0,
                  n_jobs=None) -> OptimalTreeClassifier:
    """A tree of at most the depth of ``model`` that classifies every row of ``X`` as
    ``model`` does (or all but ``max_errors`` of them), by DT-SLIM's local improvements.

    Parameters
    ----------
    model : fitted sklearn.tree.DecisionTreeClassifier or OptimalTreeClassifier
        The tree to improve; it is not changed.
    X : array-like or DataFrame of shape (n_samples, n_features)
        The rows whose classification is kept (the training rows).
    y : array-like of shape (n_samples,), default=None
        Their true classes, for the class counts of the nodes and ``objective_``; the
        model's predictions by default.
    oracle : {"both", "sat", "dp"}, default="both"
        What finds a shallower subtree: SAT (DT_depth and DT_pb encodings), the exact
        engine, or the engine first (targets up to depth 6) and SAT for lower still.
    time_limit : float or None, default=300
        Seconds for the whole improvement; the best tree so far is returned.
    sat_timeout : float, default=60
        Seconds per oracle call.
    sample_limit : {"short", "mid", "long"} or list of int, default="mid"
        The most (distinct) rows a selected subtree of each depth may have; its length
        bounds the subtrees' depth. The authors' tables for 60, 300 and 800 s per call.
    encoding : {"hybrid", "depth", "partition"}, default="hybrid"
        DT_depth below depth 10 and DT_pb from it, or one of them.
    solver : str, default="glucose4"
        A PySAT solver name (Glucose 4.1 is the paper's; PySAT cannot stop CaDiCaL within a
        time limit, so calls with one use Glucose instead).
    max_errors : int, default=0
        How many rows may end up classified differently from ``model``; only the engine
        oracle spends them (trading errors for depth).
    pilot : bool, default=True
        First rebuild the whole tree by the pilot method (beyond the paper: at each node, of
        the splits Gini ranks best and those dividing the node's CART leaves most evenly,
        the one whose children CART classifies with the shallowest trees; the shallowest
        tree of the settings that finish within a quarter of ``time_limit``, the first
        setting within 80 %), kept when shallower than the model; the oracles then improve
        that tree. The pilot is also the first oracle of every local call.
    n_thresholds : int, default=16
        Thresholds per numeric column added to the model's own tests: the features a new
        subtree may use.
    random_state : int, RandomState or None, default=0
        Seeds the support-set heuristic.
    n_jobs : int or None, default=None
        Threads of each call to the exact engine (as ``OptimalTreeClassifier``'s
        ``n_jobs``). The local improvements themselves run one after another: each replaces
        a subtree, which changes the rows, classes and error budget of the next.

    Returns
    -------
    OptimalTreeClassifier
        A fitted tree (``status_ = "heuristic"``) with ``depth_log_`` (seconds, depth),
        ``slim_log_`` (one :class:`~odtree.slim._slimmer.Attempt` per oracle call),
        ``oracle_wins_`` (how many kept subtrees each of ``"sat"``, ``"dp"`` and
        ``"pilot"`` gave), ``original_depth_`` and ``depth_lower_bound_`` (the engine proved
        that no tree of lower depth over the same features keeps the classification within
        ``max_errors``; 0 when it proved nothing).
    """
    started = time.monotonic()
    source = _as_odtree(model)
    if _has_missing(X):
        raise ValueError("improve_depth needs X without missing values (NaN, None or NA): "
                         "fill or drop them first (sklearn.impute)")
    binarize_input(source, X[:1] if hasattr(X, "shape") else X)  # X fits the model's columns
    universe = _wider_binarizer(source, X, n_thresholds)
    binary = np.ascontiguousarray(universe.transform(X), dtype=np.uint8)
    # the model's own features come first in the wider set
    codes = source.node_classes_[source.tree_.apply(binary[:, :len(source.binary_features_)])]
    y_codes = codes if y is None else _class_codes(source, y, len(binary))
    if max_errors > len(codes):
        raise ValueError(f"max_errors={max_errors} is more than the {len(codes)} rows")
    limits = list(SAMPLE_LIMITS[sample_limit]) if isinstance(sample_limit, str) \
        else list(sample_limit)
    slimmer = Slimmer(SlimTree.from_tree(source.tree_, source.node_classes_), binary, codes,
                      len(source.classes_), oracle=oracle, sample_limit=limits,
                      sat_timeout=sat_timeout, encoding=encoding, solver=solver,
                      max_errors=max_errors, pilot=pilot, n_jobs=n_jobs,
                      deadline=Deadline(time_limit, start=started),
                      rng=np.random.default_rng(random_state if isinstance(
                          random_state, Integral | None) else random_state.randint(2**31)))
    slimmer.run()
    return _result(source, universe, binary, slimmer, y_codes, time.monotonic() - started)


def _as_odtree(model) -> OptimalTreeClassifier:
    """The fitted odtree classifier of ``model``."""
    from ..tree._from_sklearn import from_sklearn

    if isinstance(model, DecisionTreeClassifier):
        return from_sklearn(model)
    if isinstance(model, OptimalTreeClassifier):
        check_is_fitted(model)
        return model
    raise TypeError(f"improve_depth needs a fitted DecisionTreeClassifier or "
                    f"OptimalTreeClassifier, got {type(model).__name__}")


def _has_missing(X) -> bool:
    """Whether ``X`` (an array or a DataFrame) holds a missing value."""
    if hasattr(X, "isna"):
        return bool(X.isna().to_numpy().any())
    X = np.asarray(X)
    if X.dtype.kind in "fc":
        return bool(np.isnan(X).any())
    return X.dtype == object and any(v is None or v != v for v in X.ravel())


def _class_codes(model, y, n_rows) -> np.ndarray:
    y = np.asarray(y)
    if y.shape != (n_rows,):
        raise ValueError(f"y has shape {y.shape}; X has {n_rows} rows")
    codes = np.searchsorted(model.classes_, y)
    codes = np.minimum(codes, len(model.classes_) - 1)
    if not np.all(model.classes_[codes] == y):
        raise ValueError("y holds classes the model does not know")
    return codes


def _wider_binarizer(model, X, n_thresholds) -> Binarizer:
    """The model's binarizer with more features: ``n_thresholds`` per numeric column (and
    every category), after the model's own, which keep their indices."""
    data = model.binarizer_.to_dict()
    extra = Binarizer(n_thresholds=n_thresholds).fit(X)
    own = data["features"]
    seen = {(f["column"], f["kind"], repr(f["value"])) for f in own}
    for feature in extra.to_dict()["features"]:
        key = (feature["column"], feature["kind"], repr(feature["value"]))
        if key not in seen and extra.column_kinds_[feature["column"]] == \
                data["column_kinds"][feature["column"]]:
            own.append(feature)
            seen.add(key)
    return Binarizer.from_dict(data)


def _result(source, universe, binary, slimmer, y_codes, seconds) -> OptimalTreeClassifier:
    """The improved tree as a fitted classifier on the binary features it uses."""
    tree, node_classes = slimmer.tree.to_tree(binary, y_codes, len(source.classes_))
    inner = tree.feature >= 0
    used = np.unique(tree.feature[inner])
    tree.feature[inner] = np.searchsorted(used, tree.feature[inner])
    data = universe.to_dict()
    data["features"] = [data["features"][j] for j in used]
    binarizer = Binarizer.from_dict(data)
    model = fitted_classifier(OptimalTreeClassifier(max_depth=tree.max_depth), tree=tree,
                              classes=source.classes_, binarizer=binarizer,
                              node_classes=node_classes, fit_time=seconds)
    model.n_features_in_ = source.n_features_in_
    if hasattr(source, "feature_names_in_"):
        model.feature_names_in_ = source.feature_names_in_
    model.original_depth_ = slimmer.depth_log[0][1]
    model.depth_lower_bound_ = slimmer.least_depth
    model.depth_log_ = np.array(slimmer.depth_log)
    model.slim_log_ = slimmer.log
    model.oracle_wins_ = dict(slimmer.wins)
    return model


class DepthImprover(ClassifierMixin, BaseEstimator):
    """Fits a heuristic tree and makes it shallower with :func:`improve_depth`.

    Parameters
    ----------
    estimator : classifier or None, default=None
        A ``DecisionTreeClassifier`` or ``OptimalTreeClassifier``: used as it is when
        fitted, else cloned and fitted. ``None``: scikit-learn's CART grown until the
        training rows are classified (``random_state`` as below).
    oracle, time_limit, sat_timeout, sample_limit, encoding, solver, max_errors, pilot, \
n_thresholds, random_state, n_jobs
        As in :func:`improve_depth`.

    Attributes
    ----------
    original_ : DecisionTreeClassifier or OptimalTreeClassifier
        The heuristic tree: ``estimator`` itself when it was given fitted, else its fitted
        clone (scikit-learn's CART without one).
    improved_ : OptimalTreeClassifier
        The shallower tree. ``predict``, ``predict_proba``, ``predict_log_proba``, ``apply``,
        ``decision_path``, ``get_depth``, ``get_n_leaves``, ``to_sklearn``,
        ``feature_importances_`` and ``n_classes_`` are its own.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_features_in_ : int
        Number of input columns.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from odtree import DepthImprover
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = DepthImprover(time_limit=5).fit(X, y)
    >>> model.improved_.get_depth() <= model.original_.get_depth()
    True
    >>> bool((model.predict(X) == model.original_.predict(X)).all())
    True
    """

    _parameter_constraints: dict = {"estimator": [HasMethods(["fit", "predict"]), None],
                                    **_SETTINGS}

    def __init__(self, estimator=None, *, oracle="both", time_limit=300.0, sat_timeout=60.0,
                 sample_limit="mid", encoding="hybrid", solver="glucose4", max_errors=0,
                 pilot=True, n_thresholds=16, random_state=0, n_jobs=None):
        self.estimator = estimator
        self.oracle = oracle
        self.time_limit = time_limit
        self.sat_timeout = sat_timeout
        self.sample_limit = sample_limit
        self.encoding = encoding
        self.solver = solver
        self.max_errors = max_errors
        self.pilot = pilot
        self.n_thresholds = n_thresholds
        self.random_state = random_state
        self.n_jobs = n_jobs

    @one_fit_at_a_time
    def fit(self, X, y):
        """Fits (or takes) the heuristic tree and improves it on ``X``."""
        self._validate_params()
        if issparse(X):
            raise TypeError("DepthImprover does not accept sparse input: the SAT oracle reads "
                            "dense rows; pass X.toarray()")
        if y is not None and np.asarray(y).ndim == 2 and np.asarray(y).shape[1] == 1:
            y = column_or_1d(y, warn=True)  # one column: a DataConversionWarning, as sklearn
        estimator = self.estimator
        if estimator is None:
            estimator = DecisionTreeClassifier(random_state=self.random_state).fit(X, y)
        else:
            try:
                check_is_fitted(estimator)
            except NotFittedError:
                estimator = clone(estimator).fit(X, y)
        self.original_ = estimator
        self.improved_ = improve_depth(
            estimator, X, y, **{name: getattr(self, name) for name in _SETTINGS})
        self.classes_ = self.improved_.classes_
        self.n_features_in_ = self.improved_.n_features_in_
        return self

    def predict(self, X):
        check_is_fitted(self)
        return self.improved_.predict(X)

    def predict_proba(self, X):
        check_is_fitted(self)
        return self.improved_.predict_proba(X)

    def apply(self, X):
        check_is_fitted(self)
        return self.improved_.apply(X)

    def predict_log_proba(self, X):
        check_is_fitted(self)
        return self.improved_.predict_log_proba(X)

    def decision_path(self, X):
        check_is_fitted(self)
        return self.improved_.decision_path(X)

    def get_depth(self) -> int:
        check_is_fitted(self)
        return self.improved_.get_depth()

    def get_n_leaves(self) -> int:
        check_is_fitted(self)
        return self.improved_.get_n_leaves()

    def to_sklearn(self):
        """The improved tree as a fitted scikit-learn ``DecisionTreeClassifier``."""
        check_is_fitted(self)
        return self.improved_.to_sklearn()

    @property
    def feature_importances_(self) -> np.ndarray:
        """The improved tree's ``feature_importances_``."""
        check_is_fitted(self)
        return self.improved_.feature_importances_

    @property
    def n_classes_(self) -> int:
        check_is_fitted(self)
        return self.improved_.n_classes_
