"""The shortcuts past scikit-learn's checks (``_utils.inputs``, ``_utils.params``) take only
what those checks would pass unchanged, record what they record, and leave every error to
them."""

import numpy as np
import pandas as pd
import pytest
from odtree import DistilledTreeClassifier, OptimalTreeClassifier, RashomonSet
from odtree._utils.inputs import as_vector, encode_labels, is_plain_matrix
from odtree.preprocessing._binarizer import NUMERIC_DTYPES
from sklearn.ensemble import RandomForestClassifier
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.validation import check_array, column_or_1d

RNG = np.random.default_rng(0)
X = RNG.integers(0, 2, size=(40, 4))
Y = X[:, 0] ^ X[:, 1]

TAKEN = [X, X.astype(np.float32), X.astype(bool), np.asfortranarray(X.astype(float)),
         X[:, ::2], np.array([[np.nan, 1.0]])]
LEFT = [X.astype(">f8"), X.astype(object), X.astype(np.float16), np.asmatrix(X),
        X[0], X[:0], X[:, :0], np.array([[np.inf, 1.0]]), np.array([[np.nan, 1.0]]),
        X.astype(complex), X.tolist()]


@pytest.mark.parametrize("matrix", TAKEN, ids=range(len(TAKEN)))
def test_a_plain_matrix_is_what_check_array_returns_unchanged(matrix):
    allow_nan = bool(np.isnan(np.asarray(matrix, dtype=float)).any())
    assert is_plain_matrix(matrix, NUMERIC_DTYPES, allow_nan=allow_nan)
    checked = check_array(matrix, dtype=NUMERIC_DTYPES,
                          ensure_all_finite="allow-nan" if allow_nan else True)
    assert checked.dtype == matrix.dtype and np.array_equal(checked, matrix, equal_nan=True)


@pytest.mark.parametrize("matrix", LEFT, ids=range(len(LEFT)))
def test_anything_else_is_left_to_scikit_learn(matrix):
    assert not is_plain_matrix(matrix, NUMERIC_DTYPES)


@pytest.mark.parametrize("y", [Y, Y.astype(float), Y.astype(str), Y.astype(bool),
                               Y.reshape(-1, 1), Y.tolist(), Y.astype(object)])
def test_as_vector_equals_column_or_1d(y):
    with pytest.warns(Warning) if np.ndim(y) == 2 else _no_warning():
        got = as_vector(y)
    expected = column_or_1d(y)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


def _no_warning():
    import contextlib
    import warnings

    context = contextlib.ExitStack()
    context.enter_context(warnings.catch_warnings())
    warnings.simplefilter("error")
    return context


@pytest.mark.parametrize("estimator", [
    OptimalTreeClassifier(max_depth=2), RashomonSet(max_depth=2),
    DistilledTreeClassifier(RandomForestClassifier(n_estimators=3, random_state=0), max_depth=2),
], ids=["tree", "rashomon", "distilled"])
def test_a_refit_on_an_array_forgets_the_dataframe_names(estimator):
    frame = pd.DataFrame(X, columns=list("abcd"))
    estimator.fit(frame, Y)
    assert list(estimator.feature_names_in_) == list("abcd")
    estimator.fit(X, Y)
    assert not hasattr(estimator, "feature_names_in_")
    assert estimator.n_features_in_ == 4
    assert np.array_equal(estimator.predict(X), estimator.fit(frame, Y).predict(frame))


def test_bad_values_in_plain_arrays_still_get_scikit_learn_errors():
    for bad, match in [(np.array([[np.nan, 1.0], [0.0, 1.0]]), "NaN"),
                       (np.array([[np.inf, 1.0], [0.0, 1.0]]), "infinity"),
                       (X[:0], "0 sample")]:
        for estimator in (OptimalTreeClassifier(max_depth=1), RashomonSet(max_depth=1)):
            with pytest.raises(ValueError, match=match):
                estimator.fit(bad, Y[:len(bad)])


def test_a_value_found_valid_is_not_taken_for_another_of_its_type():
    RashomonSet(max_depth=1, importance=True).fit(X, Y)
    # 1 == True, but a bool parameter takes no int: the type is part of what is remembered
    for _ in range(2):
        with pytest.raises(InvalidParameterError, match="importance"):
            RashomonSet(max_depth=1, importance=1).fit(X, Y)
    # an invalid value fails at every fit, and a valid one in another parameter passes
    for _ in range(2):
        with pytest.raises(InvalidParameterError, match="max_depth"):
            RashomonSet(max_depth=-1).fit(X, Y)
    with pytest.raises(InvalidParameterError, match="n_jobs"):
        RashomonSet(max_depth=1, n_jobs=[1]).fit(X, Y)  # not a plain value: checked each time
    with pytest.raises(InvalidParameterError, match="max_depth"):
        OptimalTreeClassifier(max_depth=-1).fit(X, Y)


LABELS = [np.array([3, 0, 3, 7], dtype=dtype) for dtype in
          (np.int8, np.int16, np.int64, np.uint8, np.uint32, np.uint64)] + [
    np.array([-1, 2, -1]), np.array([0, 10**9]), np.array([True, False, True]),
    np.array(["b", "a", "b"]), np.array([0.5, 0.0, 0.5]), np.array([5]),
    RNG.integers(0, 3, size=500), RNG.integers(0, 600, size=500)]


@pytest.mark.parametrize("labels", LABELS, ids=range(len(LABELS)))
def test_labels_are_encoded_as_np_unique_encodes_them(labels):
    classes, codes = encode_labels(labels)
    expected_classes, expected_codes = np.unique(labels, return_inverse=True)
    assert classes.dtype == expected_classes.dtype and codes.dtype == expected_codes.dtype
    np.testing.assert_array_equal(classes, expected_classes)
    np.testing.assert_array_equal(codes, expected_codes)
