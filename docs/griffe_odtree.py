"""A Griffe extension that makes odtree's numpydoc docstrings render truthfully on the site.

mkdocs.yml loads it (``mkdocstrings`` > ``handlers.python.options.extensions``). It changes
only what the site shows, never the docstrings themselves, in two ways:

* **Sphinx roles.** The docstrings use Sphinx's cross-reference roles (``:class:`Binarizer```,
  ``:func:`~odtree.improve_depth```), which Markdown shows literally. Each role becomes a link to
  the object's section when the site documents that object (an ``::: odtree._module.Name``
  block in ``site_docs/``, or a public member of one), and inline code otherwise, with
  Sphinx's display rules: ``~a.b.c`` shows ``c``, ``title <target>`` shows ``title``, and a
  function or method gets ``()``.
* **Parameter defaults and types.** Griffe's numpydoc parser takes the first entry of a
  ``{"a", "b"}`` choice set as the default (so ``{"short", "mid", "long"}, default="mid"``
  read "short") and gives every name of a grouped entry (``oracle, time_limit, ...``) the
  default of the first one. The signature is the truth: every documented parameter that the
  signature names gets the signature's default as Python shows it at run time ("required"
  when it has none; a default read from the core shows its value), and a type
  with a choice set or a comma is shown as written (``{"short", "mid", "long"} or list of
  int``, ``int, RandomState or None``), not as the Python set or tuple Griffe parses.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import griffe

# The API blocks of the site's pages: "::: odtree.tree._classifier.OptimalTreeClassifier".
_SITE_DOCS = Path(__file__).resolve().parent.parent / "site_docs"
_BLOCK = re.compile(r"^::: *(\S+)\s*$", re.MULTILINE)
# A Sphinx cross-reference role, e.g. :class:`~odtree.Binarizer` or :py:meth:`fit`.
_ROLE = re.compile(
    r":(?:py:)?(?P<role>class|func|meth|attr|mod|data|obj|exc|const|property):`(?P<target>[^`]+)`"
)
_CALLABLE_ROLES = {"func", "meth"}


def rendered_roots(site_docs: Path = _SITE_DOCS) -> list[str]:
    """The object paths the site renders with ``:::`` blocks, in page order."""
    roots = []
    for page in sorted(site_docs.rglob("*.md")):
        roots.extend(_BLOCK.findall(page.read_text(encoding="utf-8")))
    return roots


def _walk(obj):
    """Every object defined in ``obj`` (aliases and external objects left out)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _walk(member)


class OdtreeDocstrings(griffe.Extension):
    """Turns Sphinx roles into links or code and takes parameter defaults from signatures."""

    def __init__(self) -> None:
        super().__init__()
        self._roots = rendered_roots()
        self._targets: dict[str, str] = {}

    def on_package(self, *, pkg, loader, **kwargs) -> None:
        """Rewrites the roles in every docstring of ``pkg``; fixes the rendered defaults."""
        if pkg.path != "odtree":
            return
        rendered = self._index(loader)
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = _ROLE.sub(lambda m, o=obj: self._role(m, o),
                                                obj.docstring.value)
        for obj in rendered:
            _fix_defaults(obj)

    def _index(self, loader) -> list:
        """Fills the role-target index; returns the rendered objects that take parameters."""
        rendered = []
        for root_path in self._roots:
            root = loader.modules_collection[root_path]
            short = root_path.rsplit(".", 1)[1]
            for name in (root_path, short, "odtree." + short):
                self._targets[name] = root_path
            rendered.append(root)
            if root.is_class:
                for member_name, member in root.all_members.items():
                    if member_name.startswith("_"):
                        continue
                    path = f"{root_path}.{member_name}"
                    for name in (path, f"{short}.{member_name}",
                                 f"odtree.{short}.{member_name}"):
                        self._targets[name] = path
                    if member.is_function:
                        rendered.append(member)
        return rendered

    def _role(self, match: re.Match, obj) -> str:
        """The Markdown for one role found in ``obj``'s docstring."""
        role, target = match["role"], match["target"].strip()
        title = None
        explicit = re.fullmatch(r"(?P<title>.+?)\s*<(?P<target>[^>]+)>", target)
        if explicit:
            title, target = explicit["title"], explicit["target"]
        no_link = target.startswith("!")
        target = target.lstrip("!")
        shown = target.lstrip("~")
        if title is None:
            title = shown.rsplit(".", 1)[-1] if target.startswith("~") else shown
            if role in _CALLABLE_ROLES and not title.endswith(")"):
                title += "()"
        path = None if no_link else self._resolve(shown, obj)
        code = f"`{title}`"
        return f"[{code}][{path}]" if path else code

    def _resolve(self, name: str, obj) -> str | None:
        """The rendered object ``name`` refers to from ``obj``'s docstring, if any."""
        if name in self._targets:
            return self._targets[name]
        # a bare member name inside a rendered class (or one of its methods)
        scope = obj if obj.is_class else obj.parent
        while scope is not None and not scope.is_module:
            candidate = f"{scope.path}.{name}"
            if candidate in self._targets:
                return self._targets[candidate]
            scope = scope.parent
        return None


def _fix_defaults(obj) -> None:
    """Gives each documented parameter of ``obj`` its signature default and full type, and
    each documented attribute its full type."""
    if obj.docstring is None:
        return
    try:
        signature = {p.name: p for p in obj.parameters}
    except (AttributeError, KeyError):
        return
    shown = _runtime_defaults(obj.path)
    for section in obj.docstring.parsed:
        if section.kind is griffe.DocstringSectionKind.attributes:
            for attribute in section.value:
                documented = _documented_type(obj.docstring.value, attribute.name)
                if documented is not None and ("{" in documented or "," in documented):
                    attribute.annotation = documented
        if section.kind is not griffe.DocstringSectionKind.parameters:
            continue
        for parameter in section.value:
            in_signature = signature.get(parameter.name)
            if in_signature is not None and in_signature.kind not in (
                griffe.ParameterKind.var_positional, griffe.ParameterKind.var_keyword
            ):
                parameter.value = shown.get(parameter.name, in_signature.default)
            documented = _documented_type(obj.docstring.value, parameter.name)
            if documented is not None and ("{" in documented or "," in documented):
                parameter.annotation = documented  # as written, not as a Python tuple or set


def _runtime_defaults(path: str) -> dict[str, str]:
    """The defaults of the object at ``path`` as Python shows them when it runs: a default
    read from the core (``wipe_factor=DEFAULTS["wipe_factor"]``) shows its value, ``0.1``,
    where the source shows the expression. Empty when the object cannot be imported."""
    module, _, name = path.rpartition(".")
    try:
        signature = inspect.signature(getattr(importlib.import_module(module), name))
    except (ImportError, AttributeError, TypeError, ValueError):
        return {}
    return {p.name: repr(p.default) for p in signature.parameters.values()
            if p.default is not inspect.Parameter.empty}


def _documented_type(text: str, name: str) -> str | None:
    """The type written after ``name :`` in a numpydoc Parameters entry, default removed."""
    header = re.search(
        rf"^[ \t]*(?:[\w*]+,[ \t]*)*{re.escape(name)}(?:,[ \t]*[\w*]+)*[ \t]+:[ \t]+(.+)$",
        text, re.MULTILINE)
    if header is None:
        return None
    kind = re.sub(r",\s*default\s*[=:]?\s*.*$", "", header[1].strip())
    return re.sub(r",\s*optional$", "", kind)
