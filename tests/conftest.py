"""Shared fixtures: where the benchmark datasets live and how to read one."""

import os
from pathlib import Path

import numpy as np
import pytest

DEFAULT_DATA_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"


def data_path() -> Path:
    """The dataset folder: env ``ODTREE_DATA`` if set, else ``<repo>/../shared/datasets``."""
    return Path(os.environ.get("ODTREE_DATA", DEFAULT_DATA_DIR))


def load_dataset(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Read ``<name>.txt`` (class first, then 0/1 features) as ``(X, y)``."""
    path = data_path() / f"{name}.txt"
    if not path.is_file():
        pytest.fail(f"dataset {path} not found (set ODTREE_DATA to the dataset folder)")
    data = np.loadtxt(path, dtype=np.int64)
    return data[:, 1:], data[:, 0]


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The dataset folder; fails loudly when it does not exist."""
    path = data_path()
    if not path.is_dir():
        pytest.fail(f"dataset folder {path} not found (set ODTREE_DATA to it)")
    return path


@pytest.fixture(scope="session")
def load(data_dir):
    """``load(name) -> (X, y)`` for a benchmark dataset of ``data_dir``."""
    return load_dataset
