"""The examples in the docstrings run and print what they say."""

import doctest
import importlib
import pkgutil

import odtree
import pytest

MODULES = sorted(m.name for m in pkgutil.walk_packages(odtree.__path__, "odtree.")
                 if not m.name.endswith("_core"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
