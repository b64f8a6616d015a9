"""Python names the core's things as the core does: every cache figure and status that Python
writes is one the core reports (``odtree._search.vocabulary``, read from ``_core``)."""

import ast
from pathlib import Path

import odtree
from odtree import _json
from odtree._search.vocabulary import CACHE_FIGURES, STATUSES
from odtree.tree._base import CACHE_ATTRIBUTES

PACKAGE = Path(odtree.__file__).parent


def _is_status(node) -> bool:
    """Whether ``node`` is a status: a name or attribute called ``status`` or ``status_``."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
    return name in ("status", "status_")


def _strings(node) -> list[str]:
    """The string constants of ``node``: itself, or the items of a tuple, list or set."""
    items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return [item.value for item in items
            if isinstance(item, ast.Constant) and isinstance(item.value, str)]


def _status_literals() -> set[tuple[str, str]]:
    """(file, string) for each string Python compares a status with or sets one to."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                sides = [node.targets[0], node.value]
            elif isinstance(node, ast.keyword) and node.arg == "status":
                found |= {(path.name, value) for value in _strings(node.value)}
                continue
            elif isinstance(node, ast.FunctionDef):
                arguments = node.args
                pairs = [*zip(arguments.args[::-1], arguments.defaults[::-1], strict=False),
                         *zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)]
                found |= {(path.name, value) for arg, default in pairs
                          if arg.arg == "status" and default is not None
                          for value in _strings(default)}
                continue
            else:
                continue
            if any(_is_status(side) for side in sides):
                found |= {(path.name, value) for side in sides for value in _strings(side)}
    return found


def test_every_cache_figure_python_reads_is_one_the_core_reports():
    assert set(CACHE_ATTRIBUTES) <= set(CACHE_FIGURES)
    assert set(_json._CACHE_FIGURES) <= set(CACHE_FIGURES)


def test_every_status_python_writes_or_compares_is_one_the_core_names():
    literals = _status_literals()
    assert len(literals) > 10
    assert {value for _, value in literals} <= set(STATUSES), literals
