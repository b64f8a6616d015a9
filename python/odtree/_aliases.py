"""The module paths of odtree before its families (0.1.0 to commit de01c83), which pickles of
models saved then name: each old path imports as an alias of the module that now holds its
names, so that ``pickle.load`` finds every class where it was.

One finder on :data:`sys.meta_path`, consulted only after the real modules, instead of a file per
old module at the top of the package.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types

#: Old module path -> the module that holds its names now.
OLD_PATHS = {
    "odtree._base": "odtree.tree._base",
    "odtree._binarizer": "odtree.preprocessing._binarizer",
    "odtree._boosting": "odtree.ensemble._boosting",
    "odtree._classes": "odtree.tree._classifier",
    "odtree._columns": "odtree.preprocessing._columns",
    "odtree._constraints": "odtree.tree._constraints",
    "odtree._deadline": "odtree._utils.deadline",
    "odtree._distinct": "odtree.distinct._trees",
    "odtree._exact": "odtree._search.exact",
    "odtree._export": "odtree.tree._export",
    "odtree._features": "odtree.preprocessing._features",
    "odtree._greedy": "odtree.tree._greedy",
    "odtree._improve": "odtree.slim._improve",
    "odtree._interrupts": "odtree._search.interrupts",
    "odtree._master": "odtree.ensemble._master",
    "odtree._memory": "odtree._search.memory",
    "odtree._pilot": "odtree.slim._pilot",
    "odtree._progress": "odtree._search.progress",
    "odtree._pruning_path": "odtree.tree._pruning_path",
    "odtree._registry": "odtree._utils.registry",
    "odtree._regressor": "odtree.tree._regressor",
    "odtree._sat": "odtree.slim._sat",
    "odtree._selection": "odtree.distinct._selection",
    "odtree._serialize": "odtree._json",
    "odtree._serialize_forest": "odtree.ensemble._json",
    "odtree._sklearn_import": "odtree.tree._from_sklearn",
    "odtree._slim": "odtree.slim._slimmer",
    "odtree._slim_tree": "odtree.slim._tree",
    "odtree._solver": "odtree._search.solver",
    "odtree._thresholds": "odtree.preprocessing._thresholds",
    "odtree._tree": "odtree.tree._arrays",
    "odtree._tuning": "odtree.model_selection._tuning",
    "odtree._unsupervised": "odtree.tree._unsupervised",
    "odtree._warn": "odtree._utils.warn",
}


class _Alias(types.ModuleType):
    """A module that reads every name from the module an old path now points to."""

    def __init__(self, name: str, target: str):
        super().__init__(name, f"old path of {target}")
        self.__target = target

    def __getattr__(self, attribute: str):
        return getattr(importlib.import_module(self.__target), attribute)


class OldPathFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the modules of :data:`OLD_PATHS` (and nothing else)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in OLD_PATHS:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return _Alias(spec.name, OLD_PATHS[spec.name])

    def exec_module(self, module) -> None:
        """Nothing to run: the alias reads its target's names when asked."""


def install() -> None:
    """Adds the finder after the real ones (once)."""
    if not any(isinstance(finder, OldPathFinder) for finder in sys.meta_path):
        sys.meta_path.append(OldPathFinder())
