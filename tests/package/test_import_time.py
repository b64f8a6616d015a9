"""``import odtree`` and ``odtree --version`` load only what they use (checked in a fresh
interpreter by the modules it holds, not by the wall time, which the machine's load skews)."""

import json
import subprocess
import sys

import odtree
import pytest

#: What a bare ``import odtree`` must not load: the scientific stack and the optional solvers.
HEAVY = ("numpy", "scipy", "sklearn", "pandas", "matplotlib", "highspy", "pysat", "joblib")


def loaded_after(code: str) -> set[str]:
    """The top-level packages among :data:`HEAVY` that a fresh interpreter holds after
    running ``code``."""
    top = "{m.split('.')[0] for m in sys.modules}"
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted({top} & {set(HEAVY)!r})))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True)
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def test_import_odtree_loads_none_of_the_heavy_packages():
    assert loaded_after("import odtree") == set()


def test_the_version_command_loads_none_of_the_heavy_packages():
    code = ("from odtree.cli import main\n"
            "import contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            "    assert main(['--version']) == 0\n"
            "assert out.getvalue().startswith('odtree ')")
    assert loaded_after(code) == set()


def test_an_estimator_loads_neither_the_solvers_nor_matplotlib():
    loaded = loaded_after("from odtree import OptimalTreeClassifier, OptimalTreeRegressor")
    assert "sklearn" in loaded  # the estimators subclass scikit-learn's BaseEstimator
    assert loaded.isdisjoint({"matplotlib", "highspy", "pysat"})


@pytest.mark.parametrize("name", odtree.__all__)
def test_every_public_name_resolves(name):
    assert getattr(odtree, name) is not None
    assert name in dir(odtree)


def test_an_unknown_name_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'NoSuchThing'"):
        odtree.NoSuchThing  # noqa: B018 (the lookup is the test)


def test_a_model_loads_in_a_fresh_interpreter_that_imported_only_from_json():
    # the estimator classes register themselves when their modules load; from_json must load
    # them itself now that ``import odtree`` does not
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    text = odtree.to_json(odtree.GreedyTreeClassifier(max_depth=2).fit(X, y))
    code = (f"from odtree import from_json\nmodel = from_json({text!r})\n"
            "assert type(model).__name__ == 'GreedyTreeClassifier', model")
    loaded_after(code)  # raises CalledProcessError if the model did not load
