"""The real-valued benchmark sets of the ``continuous/`` folder: one row per line, the class
then the features (scaled to [0, 1]), the sets ConTree reports on."""

from __future__ import annotations

import difflib

import numpy as np

from ._benchmark import CONTINUOUS, _benchmark_dir


def list_continuous(data_dir=None) -> list[str]:
    """Names of the real-valued sets in the benchmark directory's ``continuous/`` folder.

    Parameters
    ----------
    data_dir : str, path-like or None, default=None
        The benchmark directory, as for :func:`load_benchmark`.

    Returns
    -------
    list of str
        The file names without ``.txt``, sorted; licence files are left out.

    Examples
    --------
    >>> "bank" in list_continuous()  # doctest: +SKIP
    True
    """
    folder = _benchmark_dir(data_dir) / CONTINUOUS
    if not folder.is_dir():
        return []
    return sorted(path.stem for path in folder.glob("*.txt")
                  if not path.name.upper().startswith("LICENSE"))


def load_continuous(name, *, data_dir=None) -> tuple[np.ndarray, np.ndarray]:
    """Load a real-valued set by name from the benchmark directory's ``continuous/`` folder.

    Parameters
    ----------
    name : str
        The file's name, with or without ``.txt``: ``"bank"``, ``"occupancy.txt"``.
        :func:`list_continuous` lists them.
    data_dir : str, path-like or None, default=None
        The benchmark directory, as for :func:`load_benchmark`.

    Returns
    -------
    X : ndarray of float64, shape (n_samples, n_features)
    y : ndarray of int64, shape (n_samples,)

    Raises
    ------
    FileNotFoundError
        If the directory or the file is missing.
    ValueError
        If ``name`` is a path, or the file holds no rows, rows of different lengths, or a
        class that is no integer.

    Examples
    --------
    >>> X, y = load_continuous("bank")  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (1372, 4)
    """
    stem = str(name).strip().removesuffix(".txt")
    if not stem or "/" in stem or "\\" in stem or stem.startswith("."):
        raise ValueError(f"set name {name!r} must be a file name such as 'bank'")
    directory = _benchmark_dir(data_dir)
    path = directory / CONTINUOUS / f"{stem}.txt"
    if not path.is_file():
        close = difflib.get_close_matches(stem, list_continuous(directory), n=3)
        hint = f"; close names: {', '.join(close)}" if close else ""
        raise FileNotFoundError(f"no continuous set {name!r}: {path} does not exist{hint}")
    try:
        data = np.loadtxt(path, dtype=np.float64, ndmin=2, comments=None)
    except ValueError as exc:
        reason = str(exc).split(";")[0]
        raise ValueError(f"{path} is not a continuous set (numbers in equal rows): "
                         f"{reason}") from exc
    if data.size == 0:
        raise ValueError(f"{path} holds no rows")
    labels = data[:, 0]
    if not np.array_equal(labels, np.round(labels)):
        raise ValueError(f"{path}: the first column (the class) must hold integers")
    return np.ascontiguousarray(data[:, 1:]), labels.astype(np.int64)
