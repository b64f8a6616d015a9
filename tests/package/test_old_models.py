"""Models saved before the package was split into families (commit de01c83, by
``tests/package/fixtures/before_families/make.py``) load and give the same answers: pickles
through the old module paths, JSON unchanged."""

import pathlib
import pickle

import numpy as np
import odtree
import pytest

SAVED = pathlib.Path(__file__).parent / "fixtures" / "before_families"
NAMES = sorted(path.stem for path in SAVED.glob("*.pkl"))


def _same_output(model, name: str) -> None:
    X = np.load(SAVED / f"{name}_X.npy")
    expected = np.load(SAVED / f"{name}_predict.npy", allow_pickle=True)
    output = model.predict if hasattr(model, "predict") else model.transform
    np.testing.assert_array_equal(output(X), expected)


def test_every_estimator_was_saved():
    assert len(NAMES) == 11


@pytest.mark.parametrize("name", NAMES)
def test_an_old_pickle_loads_and_predicts_the_same(name):
    model = pickle.loads((SAVED / f"{name}.pkl").read_bytes())
    _same_output(model, name)


@pytest.mark.parametrize("name", sorted(path.stem for path in SAVED.glob("*.json")))
def test_an_old_json_model_loads_and_predicts_the_same(name):
    model = odtree.from_json((SAVED / f"{name}.json").read_text())
    _same_output(model, name)
