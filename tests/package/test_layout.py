"""The package's floor plan: no import cycle (function-local imports included), one door to
the compiled module, no import of a module that is gone, and a short top level."""

import ast
import pathlib

import odtree

ROOT = pathlib.Path(odtree.__file__).parent


def _modules() -> dict[str, pathlib.Path]:
    """Module name -> file, for every module of the package."""
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: pathlib.Path) -> set[str]:
    """The odtree modules ``name`` imports anywhere in its file (the compiled ``odtree._core``
    as ``odtree._core``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("odtree")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if not source.startswith("odtree"):
                continue
            found.add(source)
            found |= {f"{source}.{alias.name}" for alias in node.names
                      if f"{source}.{alias.name}" in MODULES
                      or f"{source}.{alias.name}" == "odtree._core"}
    found.discard(name)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycle() -> list[str]:
    """One import cycle, or [] when there is none (depth-first search)."""
    state, stack = {}, []

    def visit(name):
        state[name] = "open"
        stack.append(name)
        for other in sorted(GRAPH.get(name, ())):
            if state.get(other) == "open":
                return stack[stack.index(other):] + [other]
            if other not in state:
                found = visit(other)
                if found:
                    return found
        state[name] = "done"
        stack.pop()
        return []

    for name in sorted(GRAPH):
        if name not in state:
            found = visit(name)
            if found:
                return found
    return []


def test_no_module_imports_a_module_that_imports_it_back():
    assert _cycle() == []


def test_the_cycle_check_finds_a_cycle():
    GRAPH["odtree._utils.warn"].add("odtree.tree._base")
    try:
        assert _cycle()
    finally:
        GRAPH["odtree._utils.warn"].discard("odtree.tree._base")


def test_every_imported_module_exists():
    """Old module paths (``odtree._classes``, ...) load only for old pickles, never inside."""
    gone = {(name, other) for name, others in GRAPH.items() for other in others
            if other not in MODULES and other != "odtree._core"}
    assert gone == set()


def test_only_the_search_door_imports_the_compiled_module():
    importers = {name for name, others in GRAPH.items() if "odtree._core" in others}
    assert importers and all(name.startswith("odtree._search.") for name in importers)


def test_the_top_level_holds_families_and_at_most_a_dozen_modules():
    top = sorted(path.name for path in ROOT.glob("*.py"))
    assert len(top) <= 12, top
    families = {path.name for path in ROOT.iterdir() if (path / "__init__.py").exists()}
    assert {"tree", "preprocessing", "model_selection", "ensemble", "distinct", "slim",
            "_search", "_utils", "datasets"} <= families
