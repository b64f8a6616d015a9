"""Shared fixtures and checks: where the benchmark datasets live and how to read one, and what
several test families check of a fitted classifier."""

import os
from pathlib import Path

import numpy as np
import pytest
from odtree._search import interrupts

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


@pytest.fixture(autouse=True)
def no_interrupt_before(monkeypatch):
    """Each test starts as if no Ctrl-C came before it: two within a few seconds stop the
    caller's program, and one test's interrupt must not count as another's first."""
    monkeypatch.setattr(interrupts, "_last_interrupt", [float("-inf")])


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


#: The benchmark datasets (0/1 features).
ALL_DATASETS = sorted(p.stem for p in data_path().glob("*.txt") if not p.stem.startswith("LICENSE"))


def weighted_errors(model, X, y, sample_weight=None):
    """Weighted misclassification of ``model.predict(X)``."""
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    return float(np.sum(weight * (model.predict(X) != np.asarray(y))))


def redundant_splits(model, X):
    """Internal nodes whose two children are leaves that predict the same class."""
    leaves = model.apply(X)
    predicted = model.predict(X)
    leaf_class = {leaf: predicted[leaves == leaf][0] for leaf in np.unique(leaves)}
    tree = model.tree_
    found = []
    for node in np.flatnonzero(tree.children_left != -1):
        left, right = tree.children_left[node], tree.children_right[node]
        if tree.children_left[left] == -1 and tree.children_left[right] == -1:
            if leaf_class[left] == leaf_class[right]:
                found.append(node)
    return found
