"""The field's binary benchmark files: one row per line, the class then the 0/1 features."""

from __future__ import annotations

import difflib
import os
import warnings
from pathlib import Path, PurePosixPath

import numpy as np

ENV_VAR = "ODTREE_DATA"

#: The folder of real-valued sets, which are no binary benchmark files.
CONTINUOUS = "continuous"

#: Where the benchmark files are when ``ODTREE_DATA`` is unset: ``shared/datasets`` beside a
#: checkout of this repository, from the repository's root (where its commands run).
DEFAULT_DIR = Path("..") / "shared" / "datasets"


def read_benchmark_file(path) -> tuple[np.ndarray, np.ndarray]:
    """Read one benchmark file: space-separated integers, the class first, no header.

    Parameters
    ----------
    path : str or path-like
        The file. LF and CRLF line endings both work.

    Returns
    -------
    X : ndarray of uint8, shape (n_samples, n_features)
        The 0/1 features.
    y : ndarray of int64, shape (n_samples,)
        The classes.

    Raises
    ------
    ValueError
        If the file is empty, has rows of different lengths or non-integers, or features other
        than 0 and 1.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.txt"
    >>> _ = path.write_bytes(b"1 0 1\\r\\n0 1 1\\r\\n")
    >>> X, y = read_benchmark_file(path)
    >>> X.tolist(), y.tolist()
    ([[0, 1], [1, 1]], [1, 0])
    """
    path = Path(path)
    try:
        with warnings.catch_warnings():  # an empty file is reported below, not as a warning
            warnings.simplefilter("ignore", UserWarning)
            data = np.loadtxt(path, dtype=np.int64, ndmin=2, comments=None)
    except ValueError as exc:
        reason = str(exc).split(";")[0]  # numpy appends advice about usecols
        raise ValueError(
            f"{path} is not a benchmark file (integers in equal rows): {reason}") from exc
    if data.size == 0:
        raise ValueError(f"{path} holds no rows")
    features = data[:, 1:]
    if ((features != 0) & (features != 1)).any():
        row, column = np.argwhere((features != 0) & (features != 1))[0]
        raise ValueError(f"{path}: line {row + 1} has {features[row, column]} in feature column "
                         f"{column}; features must be 0 or 1")
    return features.astype(np.uint8), data[:, 0].copy()


def load_benchmark(name, *, data_dir=None) -> tuple[np.ndarray, np.ndarray]:
    """Load a benchmark set by name from the benchmark directory.

    Parameters
    ----------
    name : str
        The file's path inside the directory, with or without ``.txt``: ``"anneal"``,
        ``"anneal.txt"``, ``"nina/corral-un_converted"``. :func:`list_benchmarks` lists them.
    data_dir : str, path-like or None, default=None
        The benchmark directory; ``None`` reads it from the environment variable ``ODTREE_DATA``,
        and when that is unset takes ``../shared/datasets`` from the working directory (the
        folder beside a checkout of this repository, from its root).

    Returns
    -------
    X : ndarray of uint8, shape (n_samples, n_features)
    y : ndarray of int64, shape (n_samples,)

    Raises
    ------
    FileNotFoundError
        If the directory or the file is missing.
    ValueError
        If ``name`` leaves the directory or the file is malformed.

    Examples
    --------
    >>> X, y = load_benchmark("anneal")  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (812, 93)
    """
    directory = _benchmark_dir(data_dir)
    parts = PurePosixPath(str(name).strip()).parts
    if not parts or parts[0] == "/" or ".." in parts or "\\" in str(name):
        raise ValueError(f"benchmark name {name!r} must be a relative path such as 'anneal' or "
                         "'nina/corral-un_converted'")
    relative = PurePosixPath(*parts)
    if relative.suffix != ".txt":
        relative = relative.with_name(relative.name + ".txt")
    path = directory.joinpath(*relative.parts)
    if not path.is_file():
        close = difflib.get_close_matches(relative.stem, list_benchmarks(directory), n=3)
        hint = f"; close names: {', '.join(close)}" if close else ""
        raise FileNotFoundError(f"no benchmark {name!r}: {path} does not exist{hint}")
    return read_benchmark_file(path)


def list_benchmarks(data_dir=None) -> list[str]:
    """Names of the benchmark files in the benchmark directory and its subfolders.

    Parameters
    ----------
    data_dir : str, path-like or None, default=None
        The benchmark directory; ``None`` reads it from ``ODTREE_DATA``, else
        ``../shared/datasets`` (as :func:`load_benchmark` does).

    Returns
    -------
    list of str
        Paths relative to the directory without ``.txt`` (``"anneal"``,
        ``"nina/corral-un_converted"``), top-level files first, each group sorted. Licence files
        and the real-valued sets of the ``continuous/`` folder are left out.

    Examples
    --------
    >>> "anneal" in list_benchmarks()  # doctest: +SKIP
    True
    """
    directory = _benchmark_dir(data_dir)
    names = [path.relative_to(directory).with_suffix("").as_posix()
             for path in directory.rglob("*.txt")
             if path.is_file() and not path.name.upper().startswith("LICENSE")
             and path.relative_to(directory).parts[0] != CONTINUOUS]
    return sorted(names, key=lambda name: (name.count("/"), name))


def _benchmark_dir(data_dir) -> Path:
    source = ""
    if data_dir is None:
        data_dir = os.environ.get(ENV_VAR)
        source = f" (from {ENV_VAR})"
        if not data_dir:
            data_dir = DEFAULT_DIR
            if not (Path.cwd() / data_dir).is_dir():
                raise FileNotFoundError(
                    f"no benchmark directory: {ENV_VAR} is unset and {DEFAULT_DIR} (beside a "
                    f"checkout of odtree) does not exist here; pass data_dir=... or set {ENV_VAR} "
                    "to the folder holding the benchmark files (anneal.txt, ...)")
    directory = Path(data_dir).expanduser()
    if not directory.is_dir():
        raise FileNotFoundError(f"benchmark directory {directory}{source} does not exist")
    return directory
