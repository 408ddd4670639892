"""How the docstrings' notation and names read on the site.

stmviz's docstrings are numpy style in the paper's plain-text notation, which reST reads in two
ways they do not mean:

- ``|π(ω_t)|`` is the size of the model input; reST reads ``|…|`` as a substitution reference.
  The site defines no substitutions but Sphinx's own (``|version|``, ``|release|``, ``|today|``),
  so any other ``|…|`` is shown as written (:class:`SizeBars`).
- a builtin named as a type (``type``, ``list``, ``str`` in a signature or a ``Returns`` section)
  has no page here (no intersphinx: nothing is fetched), and Sphinx's fuzzy search would tie it to
  a stmviz attribute of the same name (``Element.type``); it is shown as text (:func:`builtins_as_text`).

And a docstring names an object by any of its import paths (``:func:`stmviz.run```, ``:class:`Trace```
in ``stmviz``'s docstring); the reference documents each object once, under one canonical name
(:mod:`.api`). :func:`resolve` follows the path through the imports to the object and links to
its page; a reference to a ``stmviz`` name that resolves to no documented object is a warning.
"""

from __future__ import annotations

import builtins
import importlib
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from . import api

logger = logging.getLogger(__name__)

BUILTIN_NAMES = frozenset(name for name in dir(builtins) if not name.startswith("_"))


class SizeBars(SphinxTransform):
    """``|x|`` with no substitution of that name is the size |x| of the notation, shown as written."""

    # after Sphinx's DefaultSubstitutions (210) fills |version| and the like, before docutils' Substitutions (220)
    default_priority = 215

    def apply(self, **kwargs: Any) -> None:
        defined = set(self.document.substitution_defs) | set(self.document.substitution_names)
        for node in list(self.document.findall(nodes.substitution_reference)):
            if node["refname"] not in defined and nodes.fully_normalize_name(node["refname"]) not in defined:
                node.replace_self(nodes.Text(f"|{node.astext()}|"))


def builtins_as_text(app: Sphinx, doctree: nodes.document) -> None:
    """A cross-reference to a Python builtin (``type``, ``int``) becomes its text: there is no page to link to."""
    for node in list(doctree.findall(addnodes.pending_xref)):
        if node.get("refdomain") == "py" and node.get("reftarget") in BUILTIN_NAMES:
            node.replace_self(node.children or [nodes.Text(node["reftarget"])])


def lookup(path: str) -> tuple[Any] | None:
    """``(object,)`` for the object a dotted path names (its longest importable prefix, then attributes), or None."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:
            continue
        for name in parts[cut:]:
            try:
                obj = getattr(obj, name)
            except Exception:
                return None
        return (obj,)
    return None


def documented_names(path: str) -> list[str]:
    """The documented names that ``path`` may link to, best first: the object's own, then the classes or
    modules around it (a method that a class takes from a private base has no entry of its own; its
    class does)."""
    parts = path.split(".")
    names = []
    for cut in range(len(parts), 0, -1):
        found = lookup(".".join(parts[:cut]))
        if found is None:
            continue
        name = api.CANONICAL.get((parts[cut - 1], id(found[0])))
        if name is not None:
            names.append(".".join([name, *parts[cut:]]))
            names.append(name)
    return list(dict.fromkeys(names))


def resolve(app: Sphinx, env: Any, node: addnodes.pending_xref, contnode: nodes.Element) -> nodes.Element | None:
    """Link a Python reference that names an object by another import path than its page's.

    A reference to a ``stmviz`` path that names nothing (misspelt, or the object moved) is a warning;
    one to an existing object with no entry (a private helper) stays text.
    """
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    module, klass = node.get("py:module"), node.get("py:class")
    candidates = [target]
    if module:
        candidates.insert(0, f"{module}.{target}")
        if klass:
            candidates.insert(0, f"{module}.{klass}.{target}")
    domain = env.get_domain("py")
    exists = False
    for candidate in candidates:
        if not candidate.startswith("stmviz"):
            continue
        exists = exists or lookup(candidate) is not None
        for name in documented_names(candidate):
            if name == target:
                continue
            for role in dict.fromkeys((node["reftype"], "obj")):
                found = domain.resolve_xref(env, node["refdoc"], app.builder, role, name, node.deepcopy(), contnode)
                if found is not None:
                    return found
    if target.startswith("stmviz.") and not exists:
        logger.warning("reference to %s, which names nothing in stmviz (misspelt, or it moved)", target,
                       location=node, type="stmviz", subtype="ref")
    return None


def setup(app: Sphinx) -> None:
    app.add_transform(SizeBars)
    app.connect("doctree-read", builtins_as_text)
    app.connect("missing-reference", resolve)
