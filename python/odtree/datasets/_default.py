"""The data set the demo and the examples use: scikit-learn's bundled breast cancer data."""

from __future__ import annotations


def load_default(*, as_frame=False):
    """Load scikit-learn's Wisconsin breast cancer data (569 rows, 30 numeric features).

    The data ships with scikit-learn, so nothing is downloaded.

    Parameters
    ----------
    as_frame : bool, default=False
        Return ``X`` as a pandas DataFrame with the feature names as columns and ``y`` as a
        Series (needs pandas).

    Returns
    -------
    X : ndarray of float64 of shape (569, 30), or DataFrame
    y : ndarray of int64 of shape (569,), or Series named ``"target"``
        0 for malignant, 1 for benign.
    feature_names : list of str
        Readable column names such as ``"mean radius"``.

    Examples
    --------
    >>> X, y, feature_names = load_default()
    >>> X.shape, feature_names[0]
    ((569, 30), 'mean radius')
    """
    from sklearn.datasets import load_breast_cancer

    bunch = load_breast_cancer(as_frame=as_frame)
    return bunch.data, bunch.target, [str(name) for name in bunch.feature_names]
