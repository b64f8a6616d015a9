"""Turn raw numeric and categorical data into the 0/1 matrix that the optimal-tree search needs."""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import replace
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import (
    _check_feature_names_in,
    _check_sample_weight,
    check_array,
    check_consistent_length,
    check_is_fitted,
    validate_data,
)

from .._utils.deadline import NO_DEADLINE
from .._utils.inputs import forget_feature_names, is_dataframe, is_plain_matrix
from ..tree._arrays import UNKNOWN
from ._columns import (
    category_codes,
    column_kind,
    column_names,
    missing_rows,
)
from ._features import BinaryFeature
from ._thresholds import thresholds_of

COLUMN_KINDS = ("numeric", "categorical")
#: Numeric values binarized together between two looks at the deadline (a block of 8,192
#: values takes a few hundredths of a second; larger blocks are no faster).
_BLOCK_VALUES = 2**13

#: Array dtypes read as they are (no copy to float64): floats, integers and booleans.
NUMERIC_DTYPES = [np.float64, np.float32, np.int64, np.int32, np.int16, np.int8, np.uint64,
                  np.uint32, np.uint16, np.uint8, np.bool_]

#: What to do about missing values in fit, said by every error about them.
MISSING_ADVICE = ("fill or drop them first (sklearn.impute), or pass missing='split' to learn "
                  "where rows with missing values go")


@contextmanager
def missing_values_hint(advice: str):
    """Turn scikit-learn's error about NaN in X (which suggests other estimators) into one
    that says ``advice``."""
    try:
        yield
    except ValueError as exc:
        if "contains NaN" not in str(exc):
            raise
        raise ValueError(f"Input X contains NaN (missing values): {advice}") from exc


class Binarizer(TransformerMixin, BaseEstimator):
    """Binarize numeric and categorical columns into tests the optimal-tree search can split on.

    Each output column is one :class:`BinaryFeature` of ``features_``:

    - a numeric column holding only 0 and 1 passes through as one ``"binary"`` feature, even when
      constant, so that binary data reaches the search unchanged, column for column; its test is
      ``x > 0.5``, so that in ``transform`` any other number routes as it would at a threshold
      between 0 and 1 (2 as 1, -1 as 0);
    - any other numeric column gives ``"threshold"`` features ``x <= t`` (see Notes);
    - a categorical column (pandas ``category``, ``object``, ``string`` or ``bool`` dtype) gives a
      ``"category"`` feature ``x == value`` per category, in sorted order, but only the first of
      two categories (the other is its complement) and none for one. A category unseen in ``fit``
      gives 0 on every feature of its column.

    With ``missing="split"``, a column with missing values (NaN, None or NA) among the rows of
    ``fit`` also gives a ``"missing"`` feature ``x is missing``; its ``x = value`` features fail
    on missing rows, and each threshold of a numeric one gives two features, ``x <= t`` (missing
    rows fail it) and ``x <= t or missing`` (they pass it), so that the search picks where
    missing rows go at each split. Such a column's thresholds are computed from its present
    values. A value missing in ``transform`` but in no row of ``fit`` fails every
    ``x = value`` test of its column, as an unseen category does, and gives
    ``odtree.tree._arrays.UNKNOWN`` (2) on the ``x <= t`` and 0/1 features of a numeric column: a
    tree sends such a row to the child that held more training weight.

    Zero-weight rows are ignored as if absent; integer weights act exactly as repeated rows.

    Parameters
    ----------
    strategy : {"quantile", "midpoints", "tree"}, default="quantile"
        How thresholds are chosen for non-binary numeric columns.

        - ``"quantile"``: up to ``n_thresholds`` per column, at weighted quantiles (see Notes).
        - ``"midpoints"``: all of them; the search stays optimal for the original columns.
        - ``"tree"``: those of a greedy scikit-learn tree (a regressor if ``y`` is continuous,
          else a classifier) with at most ``2 * n_thresholds`` leaves and ``random_state=0``,
          fitted on all non-binary numeric columns together: at most ``2 * n_thresholds - 1``
          thresholds in all. Each is moved to the float64 midpoint of its gap between training
          values (scikit-learn trees work in float32). Needs ``y``.
    n_thresholds : int, default=10
        Threshold budget: per column for ``"quantile"``, for all columns for ``"tree"``. Ignored by
        ``"midpoints"``.
    max_categories : int or None, default=None
        Keep only this many categories per categorical column, the ones of largest total weight
        (ties go to the first in sorted order). ``None`` keeps them all.
    missing : {"error", "split"}, default="error"
        ``"error"``: a missing value (NaN, None or NA) raises ValueError, so that a data bug
        does not pass silently. ``"split"``: missing values become features of their own (see
        above). Infinite values raise either way.

    Attributes
    ----------
    features_ : list of BinaryFeature
        The test computed by each output column, in column order.
    column_kinds_ : list of {"numeric", "categorical"}
        The kind of each input column.
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str, shape (n_features_in_,)
        Input column names; set only when ``X`` has string column names.
    stopped_ : {"time_limit", "interrupted"} or None
        Why the estimator that fitted this binarizer stopped it before the last column (its
        ``features_`` then cover a prefix of the columns); ``None`` when every column was done.

    Notes
    -----
    Thresholds are midpoints between consecutive distinct values ``v_1 < ... < v_k`` of the
    non-zero-weight rows (the lower value if the two are adjacent floats), so a constant column
    gives none.

    ``"quantile"``: let ``F(v_i)`` be the total weight of the rows with value at most ``v_i``
    divided by the total weight. For each level ``q = i / (n_thresholds + 1)``, ``i = 1, ...,
    n_thresholds``, take the smallest ``v_i`` with ``F(v_i) >= q - 1e-12`` and, unless it is
    ``v_k``, the threshold between ``v_i`` and ``v_{i+1}``. Duplicates are dropped, so a column
    gets at most ``min(n_thresholds, k - 1)`` thresholds. The levels are computed in float64, as
    ``float(i) / float(n_thresholds + 1) - 1e-12``; the work grows with ``k``, not with
    ``n_thresholds``, which may be as large as wanted (budgets beyond ``2**1000`` act as
    ``2**1000``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0, 18.0], [1, 25.0], [1, 40.0], [0, 61.0]])
    >>> binarizer = Binarizer(n_thresholds=1).fit(X)
    >>> binarizer.get_feature_names_out().tolist()
    ['x0 = 1', 'x1 <= 32.5']
    >>> binarizer.transform(X)
    array([[0, 1],
           [1, 1],
           [1, 0],
           [0, 0]], dtype=uint8)
    """

    _parameter_constraints: dict = {
        "strategy": [StrOptions({"quantile", "midpoints", "tree"})],
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
        "max_categories": [Interval(Integral, 1, None, closed="left"), None],
        "missing": [StrOptions({"error", "split"})],
    }

    def __init__(self, strategy="quantile", n_thresholds=10, max_categories=None,
                 missing="error"):
        self.strategy = strategy
        self.n_thresholds = n_thresholds
        self.max_categories = max_categories
        self.missing = missing

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Choose the binary features from training data.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Training data without infinite values, and without missing ones unless
            ``missing="split"``. Arrays are numeric; a DataFrame may also hold categorical
            columns.
        y : array-like of shape (n_samples,), default=None
            Targets; needed only by ``strategy="tree"``.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights; ``None`` gives every row weight 1.

        Returns
        -------
        self : Binarizer
            The fitted binarizer.

        Examples
        --------
        >>> import numpy as np
        >>> X = np.array([[1.0], [2.0], [3.0], [10.0]])
        >>> binarizer = Binarizer(strategy="midpoints").fit(X, sample_weight=[1, 1, 1, 0])
        >>> binarizer.get_feature_names_out().tolist()  # the last row has no weight
        ['x0 <= 1.5', 'x0 <= 2.5']
        """
        self._fit_kept(X, y, sample_weight)
        if self.stopped_ == "interrupted":
            raise KeyboardInterrupt
        return self

    def _fit_kept(self, X, y, sample_weight, validated=False, deadline=NO_DEADLINE):
        """Fit, and return the binary matrix of the rows of non-zero weight (what the
        estimators search on), reading ``X`` once. ``validated``: an estimator has already
        checked ``X`` (when an array) and ``sample_weight`` with the same rules.

        ``deadline`` (a :class:`~odtree._utils.deadline.Deadline`) and Ctrl-C stop the work between
        blocks of columns: ``features_`` then holds the features of the columns done, and
        ``stopped_`` says why (``"time_limit"`` or ``"interrupted"``; else None)."""
        numeric, categorical, kinds = self._read(X, reset=True, validated=validated)
        if validated:
            weight = sample_weight
        elif sample_weight is None:
            weight = np.ones(numeric.shape[0])
        else:
            weight = _check_sample_weight(sample_weight, numeric, dtype=np.float64,
                                          ensure_non_negative=True)
        kept = weight > 0
        if not kept.all():
            numeric, weight = numeric[kept], weight[kept]
            categorical = {j: column[kept] for j, column in categorical.items()}
        # one vectorised pass finds the 0/1 columns, which pass through unchanged
        if numeric.dtype.kind in "ub":  # unsigned: one comparison per value
            zero_one = (numeric <= 1).all(axis=0)
        else:
            zero_one = ((numeric == 0) | (numeric == 1)).all(axis=0)
        tree_thresholds = {}
        if self.strategy == "tree":
            if y is None:
                raise ValueError("strategy='tree' needs y: pass the targets to fit")
            y = np.asarray(y)
            check_consistent_length(kept, y)
            tree_thresholds = self._greedy_tree_thresholds(numeric, y[kept], weight, kinds,
                                                           zero_one)
        names = column_names(self)
        self.column_kinds_ = kinds
        self.features_, self.stopped_ = [], None
        # whether every numeric column gets a threshold at each midpoint of its values (read
        # by the estimators right after fitting, to say what their optimum covers)
        self._every_midpoint = True
        try:
            for start, stop in _blocks(kinds, numeric.shape[0]):
                if deadline.passed():
                    self.stopped_ = "time_limit"
                    break
                if kinds[start] == "categorical":
                    self.features_ += self._category_features(start, names[start],
                                                              categorical[start], weight)
                else:
                    self.features_ += self._numeric_features(
                        start, numeric[:, start:stop], weight, zero_one[start:stop], names,
                        tree_thresholds)
        except KeyboardInterrupt:
            self.stopped_ = "interrupted"
        return self._binary_matrix(numeric, categorical)

    def transform(self, X):
        """Compute the binary features of ``X``.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features_in_)
            Data with the same columns as in ``fit``.

        Returns
        -------
        binary_X : ndarray of uint8, shape (n_samples, len(features_))
            Column ``i`` is 1 on the rows where ``features_[i]`` holds.

        Examples
        --------
        >>> import pandas as pd
        >>> train = pd.DataFrame({"color": ["red", "blue", "green"], "size": [1.0, 2.0, 3.0]})
        >>> binarizer = Binarizer(strategy="midpoints").fit(train)
        >>> binarizer.get_feature_names_out().tolist()
        ['color = blue', 'color = green', 'color = red', 'size <= 1.5', 'size <= 2.5']
        >>> binarizer.transform(pd.DataFrame({"color": ["pink"], "size": [2.0]}))
        array([[0, 0, 0, 0, 1]], dtype=uint8)
        """
        return self._transform_checked(X, validated=False)

    def _transform_checked(self, X, validated=True):
        """:meth:`transform` for rows that an estimator has checked against its fit (columns,
        names, values): the check is not repeated, so that a mismatch warns once, in the
        estimator's name, not again in this internal binarizer's."""
        check_is_fitted(self)
        numeric, categorical, _ = self._read(X, reset=False, validated=validated)
        return self._binary_matrix(numeric, categorical)

    def _binary_matrix(self, numeric, categorical) -> np.ndarray:
        """The binary features of validated data (``_read``'s numeric and categorical parts);
        :data:`~odtree.tree._arrays.UNKNOWN` where a missing value meets a feature that has no
        direction for it."""
        features = self.features_
        column = np.array([f.column for f in features], dtype=np.intp)
        if self._passes_through(column):
            return self._above_half(numeric)
        binary_X = _zeros_that_fit(numeric.shape[0], len(features))
        kind = np.array([f.kind for f in features], dtype=object)

        is_threshold = kind == "threshold"
        value = np.array([f.value if f.kind == "threshold" else 0.0 for f in features],
                         dtype=float)
        missing = (np.isnan(numeric) if self.missing == "split" and numeric.dtype.kind == "f"
                   else None)
        # a block of features at a time, so that the temporaries stay small whatever the
        # number of thresholds
        block = max(1, _ENTRIES_AT_ONCE // max(1, numeric.shape[0]))
        for start in range(0, len(features), block):
            part = np.flatnonzero(is_threshold[start:start + block]) + start
            if not len(part):
                continue
            binary_X[:, part] = numeric[:, column[part]] <= value[part]  # NaN: 0
            if missing is None:
                continue
            # the features that missing values do not fail: 1 or UNKNOWN where missing
            filled = part[missing.any(axis=0)[column[part]]]
            fill = np.array([UNKNOWN if features[i].missing_holds is None
                             else int(features[i].missing_holds) for i in filled], np.uint8)
            passed = fill > 0
            filled, fill = filled[passed], fill[passed]
            if len(filled):
                binary_X[:, filled] = np.where(missing[:, column[filled]], fill,
                                               binary_X[:, filled])

        is_binary = kind == "binary"
        binary_X[:, is_binary] = self._above_half(numeric[:, column[is_binary]])

        for i, feature in enumerate(features):
            if feature.kind == "category":
                binary_X[:, i] = categorical[feature.column] == feature.value
            elif feature.kind == "missing":
                binary_X[:, i] = (missing_rows(categorical[feature.column])
                                  if feature.column in categorical
                                  else np.isnan(numeric[:, feature.column]))
        return binary_X

    def _passes_through(self, column) -> bool:
        """Whether every input column is a 0/1 column passed through unchanged, in order."""
        return (len(column) == self.n_features_in_
                and all(f.kind == "binary" for f in self.features_)
                and np.array_equal(column, np.arange(len(column))))

    def _above_half(self, passed) -> np.ndarray:
        """The ``"binary"`` features of their columns' values ``passed``: 1 above 0.5, else 0,
        so that a value other than 0 and 1 routes as at a threshold between them;
        :data:`~odtree.tree._arrays.UNKNOWN` where a value is missing (with ``missing="split"``)."""
        binary = (passed > 0.5).astype(np.uint8)
        if self.missing == "split" and passed.dtype.kind == "f":
            binary[np.isnan(passed)] = UNKNOWN
        return binary

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns: the test each one computes.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Input column names to use; by default ``feature_names_in_``, else ``x0, x1, ...``.

        Returns
        -------
        feature_names_out : ndarray of str objects
            ``features_[i].name`` for each output column ``i``.

        Examples
        --------
        >>> import numpy as np
        >>> binarizer = Binarizer().fit(np.array([[1.0], [3.0]]))
        >>> binarizer.get_feature_names_out(["age"])
        array(['age <= 2'], dtype=object)
        """
        check_is_fitted(self)
        names = _check_feature_names_in(self, input_features)
        return np.array([replace(f, column_name=str(names[f.column])).name
                         for f in self.features_], dtype=object)

    def to_dict(self) -> dict:
        """Describe the fitted binarizer with JSON-ready data; :meth:`from_dict` reads it back.

        Returns
        -------
        data : dict
            Keys ``params``, ``n_features_in``, ``feature_names_in`` (a list or None),
            ``column_kinds`` and ``features`` (each as :meth:`BinaryFeature.to_dict`).

        Examples
        --------
        >>> import json
        >>> import numpy as np
        >>> binarizer = Binarizer().fit(np.array([[1.0], [3.0]]))
        >>> copy = Binarizer.from_dict(json.loads(json.dumps(binarizer.to_dict())))
        >>> copy.transform(np.array([[0.0], [5.0]])).ravel().tolist()
        [1, 0]
        """
        check_is_fitted(self)
        names = getattr(self, "feature_names_in_", None)
        params = {key: int(value) if isinstance(value, Integral) else value
                  for key, value in self.get_params().items()}
        return {
            "params": params,
            "n_features_in": int(self.n_features_in_),
            "feature_names_in": None if names is None else [str(name) for name in names],
            "column_kinds": list(self.column_kinds_),
            "features": [feature.to_dict() for feature in self.features_],
        }

    @classmethod
    def from_dict(cls, data: dict) -> Binarizer:
        """Rebuild a fitted binarizer from :meth:`to_dict` output.

        Parameters
        ----------
        data : dict
            Output of :meth:`to_dict`, possibly after a JSON round trip.

        Returns
        -------
        binarizer : Binarizer
            A fitted binarizer that transforms exactly as the original. Malformed ``data`` raises
            ValueError.

        Examples
        --------
        >>> import numpy as np
        >>> original = Binarizer(strategy="midpoints").fit(np.array([[1.0], [2.0], [4.0]]))
        >>> Binarizer.from_dict(original.to_dict()).get_feature_names_out().tolist()
        ['x0 <= 1.5', 'x0 <= 3']
        """
        try:
            binarizer = cls(**data["params"])
            binarizer._validate_params()
            n_features, kinds = data["n_features_in"], list(data["column_kinds"])
            names = data["feature_names_in"]
            features = [BinaryFeature.from_dict(feature) for feature in data["features"]]
            _check_fitted_state(n_features, kinds, names, features)
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise ValueError(f"malformed Binarizer data: {exc}") from exc
        return binarizer._fitted_with(kinds, names, features)

    def _fitted_with(self, kinds: list[str], names: list[str] | None,
                     features: list[BinaryFeature]) -> Binarizer:
        """This binarizer, fitted to columns of ``kinds`` (named ``names``, None for
        unnamed) with these features; they are trusted to fit the columns."""
        self.n_features_in_ = len(kinds)
        if names is not None:
            self.feature_names_in_ = np.array(names, dtype=object)
        self.column_kinds_ = kinds
        self.features_ = features
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = []  # the output is always uint8
        tags.input_tags.allow_nan = self.missing == "split"
        return tags

    def _read(self, X, reset, validated=False):
        """Validate ``X`` (unless an estimator has) and split it into a numeric matrix
        (categorical columns left at 0), a dict column -> object array of the categorical
        columns, and the kind of every column."""
        kinds = None if reset else self.column_kinds_
        split = self.missing == "split"
        checked = validated and not reset  # an estimator checked X against this fit
        if not is_dataframe(X):
            if kinds is None or "categorical" not in kinds:
                if reset and (validated and type(X) is np.ndarray or is_plain_matrix(
                        X, NUMERIC_DTYPES, allow_nan=split)):
                    forget_feature_names(self, X)  # what the check below records, at less cost
                elif not checked:
                    with missing_values_hint(MISSING_ADVICE):
                        X = validate_data(self, X, reset=reset, dtype=NUMERIC_DTYPES,
                                          skip_check_array=validated,
                                          ensure_all_finite="allow-nan" if split else True)
                return X, {}, kinds or ["numeric"] * X.shape[1]
            import pandas as pd  # fitted on a DataFrame with categorical columns

            X = pd.DataFrame(check_array(X, dtype=None, ensure_all_finite=False))
        import pandas as pd

        if not checked:
            validate_data(self, X, reset=reset, skip_check_array=True)
        if X.shape[0] < 1 or X.shape[1] < 1:
            raise ValueError(f"Found a DataFrame of shape {X.shape}: Binarizer needs at least one "
                             "row and one column")
        names = column_names(self)
        missing = X.isna().any().to_numpy()
        if missing.any() and not split:
            raise ValueError(f"column {names[np.argmax(missing)]!r} has missing values "
                             f"(NaN, None or NA); {MISSING_ADVICE}")
        if kinds is None:
            kinds = [column_kind(dtype, name) for dtype, name in zip(X.dtypes, names, strict=True)]
        numeric_columns = [j for j, kind in enumerate(kinds) if kind == "numeric"]
        numeric = np.zeros(X.shape, dtype=np.float64)
        numeric[:, numeric_columns] = X.iloc[:, numeric_columns].to_numpy(dtype=np.float64,
                                                                          na_value=np.nan)
        infinite = np.isinf(numeric).any(axis=0)
        if infinite.any():
            raise ValueError(f"column {names[np.argmax(infinite)]!r} has infinite values")
        categorical = {}
        for j, kind in enumerate(kinds):
            if kind == "categorical":
                categorical[j] = X.iloc[:, j].to_numpy(dtype=object)
                if missing[j]:  # None for NaN and NA too, which compare safely
                    categorical[j] = np.where(pd.isna(categorical[j]), None, categorical[j])
        return numeric, categorical, kinds

    def _greedy_tree_thresholds(self, numeric, y, weight, kinds, zero_one):
        """Thresholds per column picked by a greedy tree on the non-binary numeric columns
        (only the columns it splits on)."""
        columns = [j for j, kind in enumerate(kinds) if kind == "numeric" and not zero_one[j]]
        if not columns:
            return {}
        is_continuous = type_of_target(y).startswith("continuous")
        greedy = (DecisionTreeRegressor if is_continuous else DecisionTreeClassifier)(
            max_leaf_nodes=2 * self.n_thresholds, random_state=0)
        tree = greedy.fit(numeric[:, columns], y, sample_weight=weight).tree_
        splits = tree.feature >= 0
        used = np.asarray(columns)[tree.feature[splits]]
        return {j: tree.threshold[splits][used == j] for j in np.unique(used).tolist()}

    def _numeric_features(self, first, block, weight, zero_one, names, tree_thresholds):
        """Features of the numeric columns ``first, first + 1, ...``, whose non-zero-weight
        values are the columns of ``block`` and which hold only 0 and 1 where ``zero_one``."""
        if zero_one.all():  # every column passes through: nothing to bin
            return [BinaryFeature(j, names[j], "binary")
                    for j in range(first, first + len(zero_one))]
        gappy = np.zeros(len(zero_one), dtype=bool)
        if self.missing == "split" and block.dtype.kind == "f":
            gappy = np.isnan(block).any(axis=0)  # such columns are never 0/1 columns
        thresholds = {}  # position in the block -> the column's thresholds
        complete = np.flatnonzero(~zero_one & ~gappy)
        # an exact search that needs no first tree on a grid asks for no thresholds
        grid = getattr(self, "_numeric_grid", True)
        if not grid:
            self._every_midpoint = False
            complete = complete[:0]
        if len(complete):
            tree = [(i, tree_thresholds[first + j]) for i, j in enumerate(complete.tolist())
                    if first + j in tree_thresholds]
            counts, values, midpoints = thresholds_of(block[:, complete], weight,
                                                      self.strategy, self.n_thresholds, tree)
            self._every_midpoint &= bool(np.all(counts == midpoints))
            thresholds.update(zip(complete.tolist(), np.split(values, np.cumsum(counts)[:-1]),
                                  strict=True))
        for j in np.flatnonzero(gappy).tolist():  # thresholds from the present values
            present = ~np.isnan(block[:, j])
            thresholds[j] = np.empty(0)
            if present.any() and grid:
                tree = [(0, tree_thresholds[first + j])] if first + j in tree_thresholds else []
                counts, thresholds[j], midpoints = thresholds_of(
                    block[present, j:j + 1], weight[present], self.strategy,
                    self.n_thresholds, tree)
                self._every_midpoint &= bool(np.all(counts == midpoints))
        features = []
        for j in range(len(zero_one)):
            column, name = first + j, names[first + j]
            if zero_one[j]:
                features.append(BinaryFeature(column, name, "binary"))
            elif not gappy[j]:
                features += [BinaryFeature(column, name, "threshold", t)
                             for t in thresholds.get(j, np.empty(0)).tolist()]
            elif not np.isnan(block[:, j]).all():  # a column missing everywhere tells nothing
                features += [BinaryFeature(column, name, "threshold", t, missing_holds=holds)
                             for t in thresholds[j].tolist() for holds in (False, True)]
                features.append(BinaryFeature(column, name, "missing"))
        return features

    def _category_features(self, j, name, column, weight):
        """Features of categorical column ``j`` from its non-zero-weight values ``column``
        (``None`` where missing)."""
        categories, codes = category_codes(column, name)
        present = codes >= 0
        totals = np.bincount(codes[present], weights=weight[present], minlength=len(categories))
        heaviest = np.argsort(-totals, kind="stable")[:self.max_categories]
        kept = sorted(heaviest.tolist())
        features = []
        if present.all():
            if len(categories) < 2:
                kept = []
            elif len(kept) == len(categories) == 2:
                kept = kept[:1]  # the second category is the complement of the first
        elif present.any():  # "x is missing", and x = v unless it is its complement
            features = [BinaryFeature(j, name, "missing")]
            if len(categories) < 2:
                kept = []
        else:  # missing everywhere: nothing to tell apart
            kept = []
        return [BinaryFeature(j, name, "category", categories[i]) for i in kept] + features


def _blocks(kinds, n_rows):
    """``(start, stop)`` of the runs of columns binarized together: consecutive numeric columns
    holding up to ``_BLOCK_VALUES`` values, or one categorical column."""
    width = max(1, _BLOCK_VALUES // n_rows)
    start = 0
    while start < len(kinds):
        stop = start + 1
        if kinds[start] == "numeric":
            while stop < len(kinds) and stop - start < width and kinds[stop] == "numeric":
                stop += 1
        yield start, stop
        start = stop


def _check_fitted_state(n_features, kinds, names, features) -> None:
    """Raise ValueError unless these attributes describe a binarizer that can transform."""
    if type(n_features) is not int or n_features < 1 or len(kinds) != n_features:
        raise ValueError("n_features_in must be a positive int, one per column kind")
    if any(kind not in COLUMN_KINDS for kind in kinds):
        raise ValueError(f"column kinds must be in {COLUMN_KINDS}")
    if names is not None and (not isinstance(names, list) or len(names) != n_features
                              or not all(isinstance(name, str) for name in names)):
        raise ValueError("feature_names_in must be None or a list of n_features_in strings")
    for feature in features:
        value = feature.value
        if not 0 <= feature.column < n_features:
            raise ValueError(f"feature column {feature.column} is not in range({n_features})")
        expected = {"category": "categorical", "missing": kinds[feature.column]}.get(
            feature.kind, "numeric")
        if kinds[feature.column] != expected:
            raise ValueError(f"a {feature.kind} feature needs a {expected} column, but column "
                             f"{feature.column} is {kinds[feature.column]}")
        if feature.kind in ("binary", "missing") and value is not None:
            raise ValueError(f"a {feature.kind} feature has value {value!r}")
        if feature.kind == "threshold" and (isinstance(value, bool) or not isinstance(value, Real)
                                            or not np.isfinite(value)):
            raise ValueError(f"threshold {value!r} is not a finite number")
        if feature.kind == "category" and not isinstance(value, str | Real):
            raise ValueError(f"category {value!r} is not a str, int, float or bool")


#: Entries of the 0/1 matrix computed at a time (the temporaries of a block stay this small).
_ENTRIES_AT_ONCE = 1 << 22


def _zeros_that_fit(n_rows: int, n_features: int) -> np.ndarray:
    """A zero uint8 matrix of ``n_rows`` × ``n_features``, or a MemoryError that gives its
    size when it would not fit in the memory this machine has free."""
    needed = n_rows * n_features
    try:
        free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # no such figure on this system
        free = None
    if free is not None and needed > free:
        raise MemoryError(
            f"the 0/1 matrix of {n_features:,} binary features over {n_rows:,} rows needs "
            f"{needed / 2**30:.1f} GiB, more than the {free / 2**30:.1f} GiB free: fewer "
            "thresholds (thresholds=\"quantile\", n_thresholds) or thresholds=\"exact\", "
            "which searches every threshold without this matrix")
    return np.zeros((n_rows, n_features), dtype=np.uint8)
